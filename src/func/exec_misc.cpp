// mov (incl. vector pack/unpack and special registers), setp, set, selp, slct.
#include "func/exec_common.h"

namespace simtlab::func {

using namespace ptx;

namespace {

// ---- mov --------------------------------------------------------------------------------------

template <unsigned Bytes>
void h_mov(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t;
  Lanes a = src_lanes(w, d.op[1], t);
  uint64_t* D = dst_lanes(w, d.op[0]);
  constexpr uint64_t m = low_mask(Bytes * 8);
  for_lanes(e, [&](unsigned l) { D[l] = a[l] & m; });
}

void h_mov_pred(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  write_pred(w, d.op[0], pred_value(w, d.op[1]), e);
}

/// mov.bN {a, b, ...}, x: split x into equal-sized pieces (element 0 = least significant).
void h_mov_unpack(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t;
  Lanes a = src_lanes(w, d.op[1], t);
  const DOp& v = d.op[0];
  const unsigned n = v.count;
  const unsigned bits = type_bits(d.in->type) / n;
  for (unsigned k = 0; k < n; ++k) {
    const DOp& el = cx.prog->elems[v.slot + k];
    if (el.kind != DOp::k_reg) continue;
    uint64_t* D = dst_lanes(w, el);
    for_lanes(e, [&](unsigned l) { D[l] = (a[l] >> (k * bits)) & low_mask(bits); });
  }
}

/// mov.bN x, {a, b, ...}: concatenate pieces.
void h_mov_pack(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const DOp& v = d.op[1];
  const unsigned n = v.count;
  const unsigned bits = type_bits(d.in->type) / n;
  uint64_t acc[kMaxWarpSize] = {};
  for (unsigned k = 0; k < n; ++k) {
    uint64_t t;
    Lanes a = src_lanes(w, cx.prog->elems[v.slot + k], t);
    for_lanes(e, [&](unsigned l) { acc[l] |= (a[l] & low_mask(bits)) << (k * bits); });
  }
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) { D[l] = acc[l]; });
}

// ---- special registers ------------------------------------------------------------------------

template <Sreg S>
void h_sreg(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  if constexpr (S == Sreg::is_explicit_cluster) {
    if (d.op[0].kind == DOp::k_pred) {  // mov.pred p, %is_explicit_cluster
      uint32_t& p = w.P[d.op[0].slot];
      p = (p & ~e) | (cx.launch->explicit_cluster ? e : 0);
      return;
    }
  }
  uint64_t* D = dst_lanes(w, d.op[0]);
  const unsigned c = d.op[1].comp;
  const LaunchState& L = *cx.launch;
  auto dim = [](const Dim3& v, unsigned k) { return k == 0 ? v.x : k == 1 ? v.y : v.z; };
  const uint64_t mask = low_mask(type_bits(d.in->type));
  for_lanes(e, [&](unsigned l) {
    uint64_t v = 0;
    if constexpr (S == Sreg::tid)
      v = w.tid[c][l];
    else if constexpr (S == Sreg::ntid)
      v = dim(L.block, c);
    else if constexpr (S == Sreg::ctaid)
      v = dim(cx.cta->ctaid, c);
    else if constexpr (S == Sreg::nctaid)
      v = dim(L.grid, c);
    else if constexpr (S == Sreg::laneid)
      v = l;
    else if constexpr (S == Sreg::warpid)
      v = w.hw_warp_id;
    else if constexpr (S == Sreg::nwarpid)
      v = 64;
    else if constexpr (S == Sreg::smid)
      v = cx.cta->sm;
    else if constexpr (S == Sreg::nsmid)
      v = L.num_sms;
    else if constexpr (S == Sreg::gridid)
      v = L.launch_id;
    else if constexpr (S == Sreg::lanemask_eq)
      v = uint32_t(1u << l);
    else if constexpr (S == Sreg::lanemask_le)
      v = uint32_t(low_mask(l + 1));
    else if constexpr (S == Sreg::lanemask_lt)
      v = uint32_t(low_mask(l));
    else if constexpr (S == Sreg::lanemask_ge)
      v = uint32_t(~low_mask(l));
    else if constexpr (S == Sreg::lanemask_gt)
      v = uint32_t(~low_mask(l + 1));
    else if constexpr (S == Sreg::clock)
      v = uint32_t(cx.cycle);
    else if constexpr (S == Sreg::clock_hi)
      v = uint32_t(cx.cycle >> 32);
    else if constexpr (S == Sreg::clock64)
      v = cx.cycle;
    else if constexpr (S == Sreg::globaltimer)
      v = cx.time_ns;
    else if constexpr (S == Sreg::globaltimer_lo)
      v = uint32_t(cx.time_ns);
    else if constexpr (S == Sreg::globaltimer_hi)
      v = uint32_t(cx.time_ns >> 32);
    else if constexpr (S == Sreg::envreg)
      v = L.envreg[c & 31];
    else if constexpr (S == Sreg::dynamic_smem_size)
      v = L.dynamic_shared;
    else if constexpr (S == Sreg::total_smem_size)
      v = L.shared_bytes;
    else if constexpr (S == Sreg::aggr_smem_size)
      v = L.shared_bytes;
    else if constexpr (S == Sreg::is_explicit_cluster)
      v = L.explicit_cluster;
    else if constexpr (S == Sreg::clusterid)  // clusters tile the grid (launch checks divide)
      v = dim(cx.cta->ctaid, c) / dim(L.cluster, c);
    else if constexpr (S == Sreg::nclusterid)
      v = dim(L.grid, c) / dim(L.cluster, c);
    else if constexpr (S == Sreg::cluster_ctaid)
      v = dim(cx.cta->ctaid, c) % dim(L.cluster, c);
    else if constexpr (S == Sreg::cluster_nctaid)
      v = dim(L.cluster, c);
    else if constexpr (S == Sreg::cluster_ctarank) {  // x fastest within the cluster
      const Dim3& b = cx.cta->ctaid;
      v = b.x % L.cluster.x + L.cluster.x * (b.y % L.cluster.y + L.cluster.y * (b.z % L.cluster.z));
    } else if constexpr (S == Sreg::cluster_nctarank)
      v = L.cluster_size();
    else
      v = 0;
    D[l] = v & mask;
  });
}

Handler select_sreg(Sreg s) {
  // clang-format off
  switch (s) {
#define S(x) case Sreg::x: return &h_sreg<Sreg::x>;
    S(tid) S(ntid) S(ctaid) S(nctaid) S(laneid) S(warpid) S(nwarpid) S(smid) S(nsmid) S(gridid)
    S(lanemask_eq) S(lanemask_le) S(lanemask_lt) S(lanemask_ge) S(lanemask_gt) S(clock)
    S(clock_hi) S(clock64) S(globaltimer) S(globaltimer_lo) S(globaltimer_hi) S(envreg)
    S(dynamic_smem_size) S(total_smem_size) S(aggr_smem_size) S(is_explicit_cluster) S(clusterid)
    S(nclusterid) S(cluster_ctaid) S(cluster_nctaid) S(cluster_ctarank) S(cluster_nctarank)
#undef S
    default: return nullptr;
  }
  // clang-format on
}

// ---- comparisons ------------------------------------------------------------------------------

template <typename T>
inline T ftz_if(T v, bool ftz) {
  if constexpr (std::is_same_v<T, float>) {
    if (ftz && std::fpclassify(v) == FP_SUBNORMAL) return std::copysign(0.0f, v);
  }
  return v;
}

template <typename T, Cmp C>
inline bool compare(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool un = std::isnan(a) || std::isnan(b);
    switch (C) {
      case Cmp::eq:
        return !un && a == b;
      case Cmp::ne:
        return !un && a != b;
      case Cmp::lt:
        return !un && a < b;
      case Cmp::le:
        return !un && a <= b;
      case Cmp::gt:
        return !un && a > b;
      case Cmp::ge:
        return !un && a >= b;
      case Cmp::equ:
        return un || a == b;
      case Cmp::neu:
        return un || a != b;
      case Cmp::ltu:
        return un || a < b;
      case Cmp::leu:
        return un || a <= b;
      case Cmp::gtu:
        return un || a > b;
      case Cmp::geu:
        return un || a >= b;
      case Cmp::num:
        return !un;
      case Cmp::nan:
        return un;
      default:
        return false;
    }
  } else {
    using UT = std::make_unsigned_t<T>;
    switch (C) {
      case Cmp::eq:
        return a == b;
      case Cmp::ne:
        return a != b;
      case Cmp::lt:
        return a < b;
      case Cmp::le:
        return a <= b;
      case Cmp::gt:
        return a > b;
      case Cmp::ge:
        return a >= b;
      case Cmp::lo:
        return UT(a) < UT(b);
      case Cmp::ls:
        return UT(a) <= UT(b);
      case Cmp::hi:
        return UT(a) > UT(b);
      case Cmp::hs:
        return UT(a) >= UT(b);
      default:
        return false;
    }
  }
}

inline LaneMask combine(BoolOp op, LaneMask r, LaneMask c) {
  switch (op) {
    case BoolOp::and_:
      return r & c;
    case BoolOp::or_:
      return r | c;
    case BoolOp::xor_:
      return r ^ c;
    default:
      return r;
  }
}

template <typename T, Cmp C, bool Ftz>
LaneMask compare_lanes(Warp& w, const DInst& d, unsigned ia, LaneMask e) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[ia], t1), b = src_lanes(w, d.op[ia + 1], t2);
  LaneMask r = 0;
  for_lanes(e, [&](unsigned l) {
    if (compare<T, C>(ftz_if(from_bits<T>(a[l]), Ftz), ftz_if(from_bits<T>(b[l]), Ftz)))
      r |= 1u << l;
  });
  return r;
}

template <typename T, Cmp C, bool Ftz>
void h_setp(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  const bool two = d.in->ndst == 2;
  const unsigned ia = d.in->ndst;
  LaneMask r = compare_lanes<T, C, Ftz>(w, d, ia, e);
  const BoolOp bop = d.in->boolop;
  if (bop != BoolOp::none) {
    const LaneMask c = pred_value(w, d.op[ia + 2]);
    const LaneMask p = combine(bop, r, c);
    const LaneMask q = combine(bop, ~r, c);
    write_pred(w, d.op[0], p, e);
    if (two) write_pred(w, d.op[1], q, e);
    return;
  }
  write_pred(w, d.op[0], r, e);
  if (two) write_pred(w, d.op[1], ~r, e);
}

template <typename T, Cmp C, bool Ftz>
void h_set(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  LaneMask r = compare_lanes<T, C, Ftz>(w, d, 1, e);
  if (d.in->boolop != BoolOp::none) r = combine(d.in->boolop, r, pred_value(w, d.op[3]));
  uint64_t* D = dst_lanes(w, d.op[0]);
  const Type dt = d.in->type;
  const uint64_t one = dt == Type::f32 ? 0x3f800000u : low_mask(type_bits(dt));
  for_lanes(e, [&](unsigned l) { D[l] = (r >> l) & 1 ? one : 0; });
}

template <typename T, Cmp C, bool F>
struct SetpH {
  static Handler get() { return &h_setp<T, C, F>; }
};
template <typename T, Cmp C, bool F>
struct SetH {
  static Handler get() { return &h_set<T, C, F>; }
};

template <typename T, template <typename, Cmp, bool> class H>
Handler pick_cmp(Cmp c, bool ftz) {
  // clang-format off
#define C(x) case Cmp::x: return ftz ? H<T, Cmp::x, true>::get() : H<T, Cmp::x, false>::get();
  switch (c) {
    C(eq) C(ne) C(lt) C(le) C(gt) C(ge) C(lo) C(ls) C(hi) C(hs) C(equ) C(neu) C(ltu) C(leu)
    C(gtu) C(geu) C(num) C(nan)
    default: return nullptr;
  }
#undef C
  // clang-format on
}

template <template <typename, Cmp, bool> class H>
Handler pick_cmp_type(Type t, Cmp c, bool ftz) {
  const bool fcmp = c == Cmp::equ || c == Cmp::neu || c == Cmp::ltu || c == Cmp::leu ||
                    c == Cmp::gtu || c == Cmp::geu || c == Cmp::num || c == Cmp::nan;
  const bool ucmp = c == Cmp::lo || c == Cmp::ls || c == Cmp::hi || c == Cmp::hs;
  switch (t) {
    case Type::f32:
      return ucmp ? nullptr : pick_cmp<float, H>(c, ftz);
    case Type::f64:
      return ucmp ? nullptr : pick_cmp<double, H>(c, false);
    default:
      break;
  }
  if (fcmp) return nullptr;
  switch (t) {
    case Type::s16:
      return pick_cmp<int16_t, H>(c, false);
    case Type::s32:
      return pick_cmp<int32_t, H>(c, false);
    case Type::s64:
      return pick_cmp<int64_t, H>(c, false);
    case Type::u16:
    case Type::b16:
      return pick_cmp<uint16_t, H>(c, false);
    case Type::u32:
    case Type::b32:
      return pick_cmp<uint32_t, H>(c, false);
    case Type::u64:
    case Type::b64:
      return pick_cmp<uint64_t, H>(c, false);
    case Type::s8:
      return pick_cmp<int8_t, H>(c, false);
    case Type::u8:
    case Type::b8:
      return pick_cmp<uint8_t, H>(c, false);
    default:
      return nullptr;
  }
}

// ---- selection ----------------------------------------------------------------------------

void h_selp(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  const LaneMask c = pred_value(w, d.op[3]);
  uint64_t* D = dst_lanes(w, d.op[0]);
  const uint64_t m = low_mask(type_bits(d.in->type));
  for_lanes(e, [&](unsigned l) { D[l] = ((c >> l) & 1 ? a[l] : b[l]) & m; });
}

template <typename C>
void h_slct(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  const uint64_t m = low_mask(type_bits(d.in->type));
  const bool ftz = d.in->has(IF_FTZ);
  for_lanes(e, [&](unsigned l) {
    const C cv = ftz_if(from_bits<C>(c[l]), ftz);
    D[l] = (cv >= C(0) ? a[l] : b[l]) & m;
  });
}

}  // namespace

Handler select_misc(const Instruction& in) {
  switch (in.op) {
    case Op::mov: {
      if (in.ops.size() < 2) return nullptr;
      if (in.type == Type::pred && in.ops[1].kind == OperandKind::sreg)
        return select_sreg(in.ops[1].sreg);  // mov.pred p, %is_explicit_cluster
      if (in.type == Type::pred) return &h_mov_pred;
      if (in.ops[0].kind == OperandKind::vec) return &h_mov_unpack;
      if (in.ops[1].kind == OperandKind::vec) return &h_mov_pack;
      if (in.ops[1].kind == OperandKind::sreg) return select_sreg(in.ops[1].sreg);
      switch (type_size(in.type)) {
        case 1:
          return &h_mov<1>;
        case 2:
          return &h_mov<2>;
        case 4:
          return &h_mov<4>;
        case 8:
          return &h_mov<8>;
        default:
          return nullptr;
      }
    }
    case Op::setp:
      return pick_cmp_type<SetpH>(in.type, in.cmp, in.has(IF_FTZ));
    case Op::set:
      return pick_cmp_type<SetH>(in.type2, in.cmp, in.has(IF_FTZ));
    case Op::selp:
      return &h_selp;
    case Op::slct:
      if (in.type2 == Type::s32) return &h_slct<int32_t>;
      if (in.type2 == Type::f32) return &h_slct<float>;
      return nullptr;
    default:
      return nullptr;
  }
}

}  // namespace simtlab::func
