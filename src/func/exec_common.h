// Internal helpers shared by the instruction handlers (exec_*.cpp). Not a public header.
//
// A handler has the signature `void h(ExecContext&, Warp&, const DInst&, LaneMask exec)` and
// runs the instruction on the lanes in `exec` (already filtered by the SIMT stack and the
// guard predicate). Operands are read through Lanes views: a register is read per lane, an
// immediate is broadcast (index mask 0), so the lane loop has no branches.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "base/bits.h"
#include "base/error.h"
#include "func/program.h"
#include "func/warp.h"
#include "ptx/ir.h"

namespace simtlab::func {

struct Lanes {
  const uint64_t* p;
  uint32_t m;
  uint64_t operator[](unsigned lane) const { return p[lane & m]; }
};

/// A per-instruction scratch area for broadcast values (frame-relative symbols).
struct Scratch {
  uint64_t v[6];
};

inline Lanes src_lanes(const Warp& w, const DOp& o, uint64_t& tmp) {
  switch (o.kind) {
    case DOp::k_reg:
      return {w.R + size_t(o.slot) * kMaxWarpSize, 31};
    case DOp::k_frame:
      tmp = o.imm + w.frame().local_base;
      return {&tmp, 0};
    default:
      return {&o.imm, 0};
  }
}

inline uint64_t* dst_lanes(Warp& w, const DOp& o) {
  static thread_local uint64_t sink[kMaxWarpSize];
  return o.kind == DOp::k_reg ? w.R + size_t(o.slot) * kMaxWarpSize : sink;
}

template <typename F>
inline void for_lanes(LaneMask m, F&& f) {
  if (m == kFullMask) {
    for (unsigned l = 0; l < kMaxWarpSize; ++l) f(l);
  } else {
    while (m) {
      const unsigned l = unsigned(__builtin_ctz(m));
      f(l);
      m &= m - 1;
    }
  }
}

// ---- value <-> register bits -------------------------------------------------------------

template <typename T>
inline T from_bits(uint64_t b) {
  if constexpr (std::is_same_v<T, float>)
    return bitcast<float>(uint32_t(b));
  else if constexpr (std::is_same_v<T, double>)
    return bitcast<double>(b);
  else
    return static_cast<T>(b);
}

template <typename T>
inline uint64_t to_bits(T v) {
  if constexpr (std::is_same_v<T, float>)
    return bitcast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>)
    return bitcast<uint64_t>(v);
  else if constexpr (std::is_same_v<T, bool>)
    return v ? 1 : 0;
  else
    return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

// ---- predicates ----------------------------------------------------------------------------

inline LaneMask pred_value(const Warp& w, const DOp& o) {
  if (o.kind == DOp::k_pred) return o.neg ? ~w.P[o.slot] : w.P[o.slot];
  if (o.kind == DOp::k_imm) return o.imm ? kFullMask : 0;
  return 0;
}

inline void write_pred(Warp& w, const DOp& o, LaneMask value, LaneMask exec) {
  if (o.kind != DOp::k_pred) return;
  uint32_t& p = w.P[o.slot];
  p = (p & ~exec) | (value & exec);
}

// ---- handler selection ---------------------------------------------------------------------

/// Each exec_*.cpp file provides one selector; it returns nullptr when it does not handle the
/// instruction. decode.cpp tries them in order and reports unsupported instructions.
Handler select_int(const ptx::Instruction& in);
Handler select_float(const ptx::Instruction& in);
Handler select_cvt(const ptx::Instruction& in);
Handler select_mem(const ptx::Instruction& in);
Handler select_ctrl(const ptx::Instruction& in);
Handler select_warp(const ptx::Instruction& in);
Handler select_misc(const ptx::Instruction& in);
Handler select_mma(const ptx::Instruction& in);       // wmma.* (exec_mma.cpp)
Handler select_mma_sync(const ptx::Instruction& in);  // mma/ldmatrix/stmatrix (exec_mma_sync.cpp)
Handler select_async(const ptx::Instruction& in);     // cp.async/mbarrier/elect (exec_async.cpp)
Handler select_cluster(
    const ptx::Instruction& in);  // mapa/getctarank/barrier.cluster (exec_cluster.cpp)

/// Host pointer of a shared-space access of `size` bytes at 32-bit shared address `a` that is
/// not inside this CTA's shared memory: a shared::cluster address of a peer CTA (memory.h,
/// kClusterSharedBit), or a fault naming what is wrong (rank out of range, exited CTA, offset
/// outside the peer's shared memory). `*remote` is set when the target is another CTA.
uint8_t* cluster_shared(ExecContext& cx, const Warp& w, const DInst& d, unsigned lane, uint64_t a,
                        uint32_t size, bool write, bool* remote);
/// cp.async (a global->shared copy; not commit/wait/mbarrier/bulk) (exec_async.cpp).
bool is_async_copy(const ptx::Instruction& in);
/// cp.async.commit_group.
bool is_async_commit(const ptx::Instruction& in);
/// cp.async.wait_group N: N; wait_all: 0; any other instruction: -1.
int async_wait_groups(const ptx::Instruction& in);
/// wgmma.mma_async: its N (m64nNk16), 0 when not one (exec_mma_sync.cpp).
unsigned wgmma_n_of(const ptx::Instruction& in);

/// Per-instruction descriptor caches (mma/wmma/ldmatrix/wgmma forms parsed once) are keyed by
/// the Instruction's address; a later module can reuse that address for another instruction,
/// so each entry keeps what the parse depends on and is re-parsed when it differs.
struct InsnFormKey {
  std::string text;  // the source line
  ptx::Op op = ptx::Op::count_;
  ptx::Type type = ptx::Type::none, type2 = ptx::Type::none;
  size_t nops = 0, nextra = 0;
  static InsnFormKey of(const ptx::Instruction& in) {
    return {std::string(in.text), in.op, in.type, in.type2, in.ops.size(), in.extra.size()};
  }
  bool same(const ptx::Instruction& in) const {
    return op == in.op && type == in.type && type2 == in.type2 && nops == in.ops.size() &&
           nextra == in.extra.size() && text == in.text;
  }
};
template <typename D, typename Parse>
const D& cached_form(std::unordered_map<const ptx::Instruction*, std::pair<InsnFormKey, D>>& cache,
                     const ptx::Instruction& in, Parse parse) {
  auto it = cache.find(&in);
  if (it == cache.end() || !it->second.first.same(in))
    it = cache.insert_or_assign(&in, std::pair<InsnFormKey, D>{InsnFormKey::of(in), parse(in)})
             .first;
  return it->second.second;
}

/// Report a guest error for lane `lane` of `w` at the current instruction (implemented in
/// executor.cpp; builds a sanitizer-style message naming kernel, block, thread, PC and line).
/// Report (once per instruction) an integer division by zero; hardware does not trap.
void warn_div_zero(const ExecContext& cx, const Warp& w, const DInst& d, unsigned lane);

[[noreturn]] void guest_fault(const ExecContext& cx, const Warp& w, const DInst& d, unsigned lane,
                              const std::string& what);

}  // namespace simtlab::func
