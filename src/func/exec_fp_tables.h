// Lane loops and decode-time handler tables shared by the floating-point handlers
// (exec_float.cpp, exec_cvt.cpp). Internal header, like exec_common.h.
//
// A kernel K has `static constexpr int arity` (1..3), `static constexpr fp::Round fpu` (the
// host FPU rounding mode the loop runs in; Round::rn changes nothing) and
// `static uint64_t f(uint64_t...)` on raw register bits. Deriving from KBase<N, R> provides the
// first two. A family `Fam` has `template <fp::Round R, unsigned M> using K = ...` (M: modifier
// bit set); pick<Fam, NM>(r, m) returns the handler of Fam::K<r, m> from a constexpr table, so
// no modifier is tested per lane.
//
// Build note: users must be compiled with -frounding-math.
#pragma once

#include <array>
#include <utility>

#include "func/exec_common.h"
#include "func/fp.h"

namespace simtlab::func::fptab {

template <int N, fp::Round R = fp::Round::rn>
struct KBase {
  static constexpr int arity = N;
  static constexpr fp::Round fpu = R;
};

template <class K>
void h1(ExecContext&, Warp& w, const DInst& d, LaneMask exec) {
  uint64_t t1;
  const Lanes a = src_lanes(w, d.op[1], t1);
  uint64_t* out = dst_lanes(w, d.op[0]);
  fp::RoundScope<K::fpu> scope;
  for_lanes(exec, [&](unsigned l) { out[l] = K::f(a[l]); });
}

template <class K>
void h2(ExecContext&, Warp& w, const DInst& d, LaneMask exec) {
  uint64_t t1, t2;
  const Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  uint64_t* out = dst_lanes(w, d.op[0]);
  fp::RoundScope<K::fpu> scope;
  for_lanes(exec, [&](unsigned l) { out[l] = K::f(a[l], b[l]); });
}

template <class K>
void h3(ExecContext&, Warp& w, const DInst& d, LaneMask exec) {
  uint64_t t1, t2, t3;
  const Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2),
              c = src_lanes(w, d.op[3], t3);
  uint64_t* out = dst_lanes(w, d.op[0]);
  fp::RoundScope<K::fpu> scope;
  for_lanes(exec, [&](unsigned l) { out[l] = K::f(a[l], b[l], c[l]); });
}

template <class K>
constexpr Handler hnd() {
  if constexpr (K::arity == 1)
    return &h1<K>;
  else if constexpr (K::arity == 2)
    return &h2<K>;
  else
    return &h3<K>;
}

template <class Fam, fp::Round R, unsigned... I>
constexpr auto row(std::integer_sequence<unsigned, I...>) {
  return std::array<Handler, sizeof...(I)>{hnd<typename Fam::template K<R, I>>()...};
}

/// The handler of Fam::K<r, m> for the four IEEE rounding modes; nullptr for other modes or
/// m >= NM.
template <class Fam, unsigned NM>
Handler pick(fp::Round r, unsigned m) {
  using fp::Round;
  using Seq = std::make_integer_sequence<unsigned, NM>;
  static constexpr auto t_rn = row<Fam, Round::rn>(Seq{});
  static constexpr auto t_rz = row<Fam, Round::rz>(Seq{});
  static constexpr auto t_rm = row<Fam, Round::rm>(Seq{});
  static constexpr auto t_rp = row<Fam, Round::rp>(Seq{});
  if (m >= NM) return nullptr;
  switch (r) {
    case Round::rn:
      return t_rn[m];
    case Round::rz:
      return t_rz[m];
    case Round::rm:
      return t_rm[m];
    case Round::rp:
      return t_rp[m];
    default:
      return nullptr;
  }
}

/// The handler of Fam::K<R, m> for one fixed rounding mode R (families without a rounding
/// mode use the default); nullptr for m >= NM.
template <class Fam, unsigned NM, fp::Round R = fp::Round::rn>
Handler pick_m(unsigned m) {
  static constexpr auto t = row<Fam, R>(std::make_integer_sequence<unsigned, NM>{});
  return m < NM ? t[m] : nullptr;
}

}  // namespace simtlab::func::fptab
