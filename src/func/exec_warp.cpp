// Warp-level collectives: shfl.sync, vote(.sync), match.sync, redux.sync, activemask
// (PTX ISA 9.7.8.x). Source lanes that are inactive are read as they are (their registers hold
// their last values), which is what hardware does for converged code and is undefined
// otherwise.
#include "func/exec_common.h"

namespace simtlab::func {

using namespace ptx;

namespace {

template <ShflMode M>
void h_shfl(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  const bool pipe = d.in->ndst == 2;
  const unsigned ia = pipe ? 2 : 1;
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[ia], t1), b = src_lanes(w, d.op[ia + 1], t2),
        c = src_lanes(w, d.op[ia + 2], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  uint64_t src[kMaxWarpSize];
  for (unsigned l = 0; l < kMaxWarpSize; ++l) src[l] = a[l];
  LaneMask pv = 0;
  for_lanes(e, [&](unsigned l) {
    const uint32_t bval = uint32_t(b[l]) & 31, cval = uint32_t(c[l]) & 31,
                   seg = (uint32_t(c[l]) >> 8) & 31;
    const uint32_t maxl = (l & seg) | (cval & ~seg), minl = l & seg;
    int32_t j;
    bool ok;
    if constexpr (M == ShflMode::up) {
      j = int32_t(l) - int32_t(bval);
      ok = j >= int32_t(maxl);  // for .up, c's clamp field is the lower bound
    } else if constexpr (M == ShflMode::down) {
      j = int32_t(l + bval);
      ok = uint32_t(j) <= maxl;
    } else if constexpr (M == ShflMode::bfly) {
      j = int32_t(l ^ bval);
      ok = uint32_t(j) <= maxl;
    } else {
      j = int32_t(minl | (bval & ~seg));
      ok = uint32_t(j) <= maxl;
    }
    if (!ok) j = int32_t(l);
    D[l] = src[uint32_t(j) & 31] & 0xffffffffu;
    if (ok) pv |= 1u << l;
  });
  if (pipe) write_pred(w, d.op[1], pv, e);
}

template <VoteMode M>
void h_vote(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  const LaneMask p = pred_value(w, d.op[1]) & e;
  if constexpr (M == VoteMode::ballot) {
    uint64_t* D = dst_lanes(w, d.op[0]);
    for_lanes(e, [&](unsigned l) { D[l] = p; });
  } else {
    bool r;
    if constexpr (M == VoteMode::all)
      r = p == e;
    else if constexpr (M == VoteMode::any)
      r = p != 0;
    else
      r = p == 0 || p == e;
    write_pred(w, d.op[0], r ? kFullMask : 0, e);
  }
}

template <typename T, bool All>
void h_match(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  const bool pipe = d.in->ndst == 2;
  uint64_t t;
  Lanes a = src_lanes(w, d.op[pipe ? 2 : 1], t);
  uint64_t* D = dst_lanes(w, d.op[0]);
  if constexpr (All) {
    bool same = true;
    const T v0 = T(a[unsigned(__builtin_ctz(e))]);
    for_lanes(e, [&](unsigned l) { same = same && T(a[l]) == v0; });
    for_lanes(e, [&](unsigned l) { D[l] = same ? e : 0; });
    if (pipe) write_pred(w, d.op[1], same ? kFullMask : 0, e);
  } else {
    for_lanes(e, [&](unsigned l) {
      LaneMask m = 0;
      const T v = T(a[l]);
      for_lanes(e, [&](unsigned k) {
        if (T(a[k]) == v) m |= 1u << k;
      });
      D[l] = m;
    });
  }
}

template <typename T, AtomOp OP>
void h_redux(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t;
  Lanes a = src_lanes(w, d.op[1], t);
  uint64_t* D = dst_lanes(w, d.op[0]);
  T acc = T(a[unsigned(__builtin_ctz(e))]);
  bool first = true;
  for_lanes(e, [&](unsigned l) {
    const T v = T(a[l]);
    if (first) {
      first = false;
      return;
    }
    if constexpr (OP == AtomOp::add)
      acc = T(acc + v);
    else if constexpr (OP == AtomOp::min)
      acc = v < acc ? v : acc;
    else if constexpr (OP == AtomOp::max)
      acc = v > acc ? v : acc;
    else if constexpr (OP == AtomOp::and_)
      acc = T(acc & v);
    else if constexpr (OP == AtomOp::or_)
      acc = T(acc | v);
    else
      acc = T(acc ^ v);
  });
  for_lanes(e, [&](unsigned l) { D[l] = to_bits(acc); });
}

void h_activemask(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) { D[l] = e; });
}

}  // namespace

Handler select_warp(const Instruction& in) {
  switch (in.op) {
    case Op::shfl:
      switch (in.shfl_mode()) {
        case ShflMode::up:
          return &h_shfl<ShflMode::up>;
        case ShflMode::down:
          return &h_shfl<ShflMode::down>;
        case ShflMode::bfly:
          return &h_shfl<ShflMode::bfly>;
        case ShflMode::idx:
          return &h_shfl<ShflMode::idx>;
        default:
          return nullptr;
      }
    case Op::vote:
      switch (in.vote_mode()) {
        case VoteMode::all:
          return &h_vote<VoteMode::all>;
        case VoteMode::any:
          return &h_vote<VoteMode::any>;
        case VoteMode::uni:
          return &h_vote<VoteMode::uni>;
        case VoteMode::ballot:
          return &h_vote<VoteMode::ballot>;
        default:
          return nullptr;
      }
    case Op::match: {
      const bool all = in.vote_mode() == VoteMode::all;
      if (type_size(in.type) == 8)
        return all ? &h_match<uint64_t, true> : &h_match<uint64_t, false>;
      return all ? &h_match<uint32_t, true> : &h_match<uint32_t, false>;
    }
    case Op::redux: {
      const bool s = in.type == Type::s32;
      switch (in.atom_op()) {
        case AtomOp::add:
          return &h_redux<uint32_t, AtomOp::add>;
        case AtomOp::min:
          return s ? &h_redux<int32_t, AtomOp::min> : &h_redux<uint32_t, AtomOp::min>;
        case AtomOp::max:
          return s ? &h_redux<int32_t, AtomOp::max> : &h_redux<uint32_t, AtomOp::max>;
        case AtomOp::and_:
          return &h_redux<uint32_t, AtomOp::and_>;
        case AtomOp::or_:
          return &h_redux<uint32_t, AtomOp::or_>;
        case AtomOp::xor_:
          return &h_redux<uint32_t, AtomOp::xor_>;
        default:
          return nullptr;
      }
    }
    case Op::activemask:
      return &h_activemask;
    default:
      return nullptr;
  }
}

}  // namespace simtlab::func
