// Handlers of the floating-point instructions (PTX ISA 9.0, 9.7.3 and 9.7.4): add, sub, mul,
// mad/fma, div, rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh, abs, neg, min, max, copysign and
// testp on f32/f64, and the f16/f16x2/bf16/bf16x2 forms of add/sub/mul/fma/neg/abs/min/max/
// ex2/tanh. The per-lane semantics live in fp.h; a handler is one lane loop around a kernel
// chosen at decode time from the type and modifiers (template arguments, no per-lane
// modifier tests). Directed rounding of f32/f64 sets the host FPU mode once per instruction.
//
// Build note: this file must be compiled with -frounding-math.
#include "func/exec_fp_tables.h"

namespace simtlab::func {

namespace {

using fp::Round;
using ptx::Type;

using fptab::hnd;
using fptab::KBase;
using fptab::pick;
using fptab::pick_m;

/// Applies a 16-bit kernel to both halves of a packed x2 register (element 0 = low half).
template <class K>
struct X2 : KBase<K::arity, K::fpu> {
  static uint64_t lo(uint64_t v) { return v & 0xffff; }
  static uint64_t hi(uint64_t v) { return (v >> 16) & 0xffff; }
  static uint64_t f(uint64_t a) { return K::f(lo(a)) | (K::f(hi(a)) << 16); }
  static uint64_t f(uint64_t a, uint64_t b) {
    return K::f(lo(a), lo(b)) | (K::f(hi(a), hi(b)) << 16);
  }
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    return K::f(lo(a), lo(b), lo(c)) | (K::f(hi(a), hi(b), hi(c)) << 16);
  }
};

// ---- f32 / f64 kernels ---------------------------------------------------------------------

enum : unsigned { kFtz = 1, kSat = 2 };

template <class Op, Round R, unsigned M>
struct F32Bin : KBase<2, R> {
  static uint64_t f(uint64_t a, uint64_t b) {
    constexpr bool Z = (M & kFtz) != 0, S = (M & kSat) != 0;
    return fp::out32<Z, S>(Op::f(fp::in32<Z>(a), fp::in32<Z>(b)));
  }
};

template <Round R, unsigned M>
struct F32Fma : KBase<3, R> {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    constexpr bool Z = (M & kFtz) != 0, S = (M & kSat) != 0;
    return fp::out32<Z, S>(std::fma(fp::in32<Z>(a), fp::in32<Z>(b), fp::in32<Z>(c)));
  }
};

template <class Op, Round R, unsigned M>
struct F32Un : KBase<1, R> {
  static uint64_t f(uint64_t a) {
    constexpr bool Z = (M & kFtz) != 0;
    return fp::out32<Z, false>(Op::f(fp::in32<Z>(a)));
  }
};

template <class Op, Round R>
struct F64Bin : KBase<2, R> {
  static uint64_t f(uint64_t a, uint64_t b) {
    const double x = fp::f64_of(a), y = fp::f64_of(b);
    const double r = Op::f(x, y);
    return r != r ? fp::nan64(x, y) : fp::bits_of(r);
  }
};

template <Round R>
struct F64Fma : KBase<3, R> {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    const double x = fp::f64_of(a), y = fp::f64_of(b), z = fp::f64_of(c);
    const double r = std::fma(x, y, z);
    return r != r ? fp::nan64(x, y, z) : fp::bits_of(r);
  }
};

template <class Op, Round R>
struct F64Un : KBase<1, R> {
  static uint64_t f(uint64_t a) {
    const double x = fp::f64_of(a);
    const double r = Op::f(x);
    return r != r ? fp::nan64(x) : fp::bits_of(r);
  }
};

// Approximate f32 operations (rn FPU mode; .ftz via F32Un's M).
struct ApDiv {
  static float f(float a, float b) { return fp::div_approx_f32(a, b); }
};
struct ApRcp {
  static float f(float a) { return 1.0f / a; }
};
struct ApSqrt {
  static float f(float a) { return std::sqrt(a); }
};
struct ApRsqrt {
  static float f(float a) { return fp::rsqrt_approx_f32(a); }
};
struct ApSin {
  static float f(float a) { return fp::sin_approx_f32(a); }
};
struct ApCos {
  static float f(float a) { return fp::cos_approx_f32(a); }
};
struct ApLg2 {
  static float f(float a) { return fp::lg2_approx_f32(a); }
};
struct ApEx2 {
  static float f(float a) { return fp::ex2_approx_f32(a); }
};
struct ApTanh {
  static float f(float a) { return fp::tanh_approx_f32(a); }
};
struct ApRsqrt64 {
  static double f(double a) { return fp::rsqrt_approx_f64(a); }
};

template <bool RSQRT>
struct F64ApproxFtz : KBase<1> {
  static uint64_t f(uint64_t a) { return fp::approx_ftz_f64<RSQRT>(a); }
};

// Families.
template <class Op>
struct F32BinFam {
  template <Round R, unsigned M>
  using K = F32Bin<Op, R, M>;
};
struct F32FmaFam {
  template <Round R, unsigned M>
  using K = F32Fma<R, M>;
};
template <class Op>
struct F32UnFam {
  template <Round R, unsigned M>
  using K = F32Un<Op, R, M>;
};
template <class Op>
struct F64BinFam {
  template <Round R, unsigned>
  using K = F64Bin<Op, R>;
};
struct F64FmaFam {
  template <Round R, unsigned>
  using K = F64Fma<R>;
};
template <class Op>
struct F64UnFam {
  template <Round R, unsigned>
  using K = F64Un<Op, R>;
};

// ---- bit-level kernels: abs, neg, copysign, min, max ------------------------------------------

template <class F, bool FTZ>
struct KAbs : KBase<1> {
  static uint64_t f(uint64_t a) {
    a &= fp::kSignBit<F> | fp::kMagMask<F>;
    if constexpr (FTZ) a = fp::ftz_bits<F>(a);
    return a & fp::kMagMask<F>;
  }
};
template <class F, bool FTZ>
struct KNeg : KBase<1> {
  static uint64_t f(uint64_t a) {
    a &= fp::kSignBit<F> | fp::kMagMask<F>;
    if constexpr (FTZ) a = fp::ftz_bits<F>(a);
    return a ^ fp::kSignBit<F>;
  }
};
/// copysign d, a, b: d = b with the sign of a.
template <class F>
struct KCopysign : KBase<2> {
  static uint64_t f(uint64_t a, uint64_t b) {
    return (b & fp::kMagMask<F>) | (a & fp::kSignBit<F>);
  }
};

enum : unsigned { kMmFtz = 1, kMmNaN = 2, kMmAbs = 4, kMmXor = 8 };

template <class F, bool MAX, unsigned M>
struct KMinMax2 : KBase<2> {
  static uint64_t f(uint64_t a, uint64_t b) {
    return fp::minmax2<F, MAX, (M & kMmFtz) != 0, (M & kMmNaN) != 0, (M & kMmAbs) != 0,
                       (M & kMmXor) != 0>(a, b);
  }
};
template <class F, bool MAX, unsigned M>
struct KMinMax3 : KBase<3> {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) {
    return fp::minmax3<F, MAX, (M & kMmFtz) != 0, (M & kMmNaN) != 0, (M & kMmAbs) != 0>(a, b, c);
  }
};
template <class F, bool MAX, bool PAIR>
struct MinMax2Fam {
  template <Round, unsigned M>
  using K = std::conditional_t<PAIR, X2<KMinMax2<F, MAX, M>>, KMinMax2<F, MAX, M>>;
};
template <class F, bool MAX>
struct MinMax3Fam {
  template <Round, unsigned M>
  using K = KMinMax3<F, MAX, M & ~unsigned(kMmXor)>;
};

// ---- 16-bit kernels --------------------------------------------------------------------------

template <class F, unsigned M>
struct KHAdd : KBase<2> {
  static uint64_t f(uint64_t a, uint64_t b) { return fp::half_add<F, M>(a, b); }
};
template <class F, unsigned M>
struct KHSub : KBase<2> {
  static uint64_t f(uint64_t a, uint64_t b) { return fp::half_sub<F, M>(a, b); }
};
template <class F, unsigned M>
struct KHMul : KBase<2> {
  static uint64_t f(uint64_t a, uint64_t b) { return fp::half_mul<F, M>(a, b); }
};
template <class F, unsigned M>
struct KHFma : KBase<3> {
  static uint64_t f(uint64_t a, uint64_t b, uint64_t c) { return fp::half_fma<F, M>(a, b, c); }
};
template <class F, unsigned M>
struct KHEx2 : KBase<1> {
  static uint64_t f(uint64_t a) { return fp::half_ex2<F, (M & fp::kHalfFtz) != 0>(a); }
};
template <class F, unsigned>
struct KHTanh : KBase<1> {
  static uint64_t f(uint64_t a) { return fp::half_tanh<F>(a); }
};

template <template <class, unsigned> class KT, class F, bool PAIR>
struct HalfFam {
  template <Round, unsigned M>
  using K = std::conditional_t<PAIR, X2<KT<F, M>>, KT<F, M>>;
};

// ---- testp -----------------------------------------------------------------------------------

template <class F, fp::TestP MODE>
void h_testp(ExecContext&, Warp& w, const DInst& d, LaneMask exec) {
  uint64_t t1;
  const Lanes a = src_lanes(w, d.op[1], t1);
  LaneMask m = 0;
  for_lanes(exec, [&](unsigned l) {
    if (fp::testp_bits<F>(MODE, a[l])) m |= LaneMask(1) << l;
  });
  write_pred(w, d.op[0], m, exec);
}

template <class F>
Handler pick_testp(uint8_t sub) {
  switch (static_cast<fp::TestP>(sub)) {
    case fp::TestP::finite:
      return &h_testp<F, fp::TestP::finite>;
    case fp::TestP::infinite:
      return &h_testp<F, fp::TestP::infinite>;
    case fp::TestP::number:
      return &h_testp<F, fp::TestP::number>;
    case fp::TestP::notanumber:
      return &h_testp<F, fp::TestP::notanumber>;
    case fp::TestP::normal:
      return &h_testp<F, fp::TestP::normal>;
    case fp::TestP::subnormal:
      return &h_testp<F, fp::TestP::subnormal>;
  }
  return nullptr;
}

// ---- selection helpers -----------------------------------------------------------------------

/// IEEE rounding modifier of f32/f64 arithmetic; `dflt` when absent. nullopt-like: returns
/// false when the modifier is not a float rounding mode.
bool ieee_round(ptx::Round in, Round dflt, Round& out) {
  switch (in) {
    case ptx::Round::none:
      out = dflt;
      return true;
    case ptx::Round::rn:
      out = Round::rn;
      return true;
    case ptx::Round::rz:
      out = Round::rz;
      return true;
    case ptx::Round::rm:
      out = Round::rm;
      return true;
    case ptx::Round::rp:
      out = Round::rp;
      return true;
    default:
      return false;
  }
}

bool is_half(Type t) {
  return t == Type::f16 || t == Type::f16x2 || t == Type::bf16 || t == Type::bf16x2;
}

/// Dispatch a 16-bit family over the four half types.
template <template <class, unsigned> class KT, unsigned NM>
Handler pick_half(Type t, unsigned mods) {
  switch (t) {
    case Type::f16:
      return pick_m<HalfFam<KT, fp::FmtF16, false>, NM>(mods);
    case Type::f16x2:
      return pick_m<HalfFam<KT, fp::FmtF16, true>, NM>(mods);
    case Type::bf16:
      return pick_m<HalfFam<KT, fp::FmtBF16, false>, NM>(mods);
    case Type::bf16x2:
      return pick_m<HalfFam<KT, fp::FmtBF16, true>, NM>(mods);
    default:
      return nullptr;
  }
}

Handler select_add_sub_mul(const ptx::Instruction& in, unsigned m32) {
  const Type t = in.type;
  Round r;
  if (t == Type::f32) {
    if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;
    switch (in.op) {
      case ptx::Op::add:
        return pick<F32BinFam<fp::OpAdd>, 4>(r, m32);
      case ptx::Op::sub:
        return pick<F32BinFam<fp::OpSub>, 4>(r, m32);
      default:
        return pick<F32BinFam<fp::OpMul>, 4>(r, m32);
    }
  }
  if (t == Type::f64) {
    if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;
    switch (in.op) {
      case ptx::Op::add:
        return pick<F64BinFam<fp::OpAdd>, 1>(r, 0);
      case ptx::Op::sub:
        return pick<F64BinFam<fp::OpSub>, 1>(r, 0);
      default:
        return pick<F64BinFam<fp::OpMul>, 1>(r, 0);
    }
  }
  if (is_half(t)) {
    if (in.rnd != ptx::Round::none && in.rnd != ptx::Round::rn) return nullptr;
    unsigned hm = 0;
    if (in.has(ptx::IF_FTZ)) hm |= fp::kHalfFtz;
    if (in.has(ptx::IF_SAT)) hm |= fp::kHalfSat;
    switch (in.op) {
      case ptx::Op::add:
        return pick_half<KHAdd, 4>(t, hm);
      case ptx::Op::sub:
        return pick_half<KHSub, 4>(t, hm);
      default:
        return pick_half<KHMul, 4>(t, hm);
    }
  }
  return nullptr;
}

Handler select_fma(const ptx::Instruction& in, unsigned m32) {
  const Type t = in.type;
  Round r;
  if (t == Type::f32) {
    // mad.f32 without a rounding modifier is mad.rn.f32 (PTX ISA errata); all forms are fused.
    if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;
    return pick<F32FmaFam, 4>(r, m32);
  }
  if (t == Type::f64) {
    if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;
    return pick<F64FmaFam, 1>(r, 0);
  }
  if (is_half(t)) {
    if (in.rnd != ptx::Round::none && in.rnd != ptx::Round::rn) return nullptr;
    unsigned hm = 0;
    if (in.has(ptx::IF_FTZ)) hm |= fp::kHalfFtz;
    if (in.has(ptx::IF_SAT)) hm |= fp::kHalfSat;
    if (in.has(ptx::IF_RELU)) hm |= fp::kHalfRelu;
    if (in.has(ptx::IF_OOB)) hm |= fp::kHalfOob;
    return pick_half<KHFma, 16>(t, hm);
  }
  return nullptr;
}

Handler select_minmax(const ptx::Instruction& in, bool is_max, unsigned nops) {
  unsigned mm = 0;
  if (in.has(ptx::IF_FTZ)) mm |= kMmFtz;
  if (in.has(ptx::IF_NAN)) mm |= kMmNaN;
  if (in.has(ptx::IF_ABS)) mm |= kMmAbs;
  if (in.has(ptx::IF_XORSIGN)) {
    if (!in.has(ptx::IF_ABS) || nops == 4) return nullptr;  // .xorsign needs .abs, 2 inputs
    mm |= kMmXor;
  }
  const bool three = nops == 4;
  auto two = [&](auto f_tag, auto pair_tag) -> Handler {
    using F = typename decltype(f_tag)::type;
    constexpr bool P = decltype(pair_tag)::value;
    return is_max ? pick_m<MinMax2Fam<F, true, P>, 16>(mm)
                  : pick_m<MinMax2Fam<F, false, P>, 16>(mm);
  };
  switch (in.type) {
    case Type::f32:
      if (three)
        return is_max ? pick_m<MinMax3Fam<fp::FmtF32, true>, 16>(mm)
                      : pick_m<MinMax3Fam<fp::FmtF32, false>, 16>(mm);
      return two(std::type_identity<fp::FmtF32>{}, std::false_type{});
    case Type::f64:
      if (three)
        return is_max ? pick_m<MinMax3Fam<fp::FmtF64, true>, 16>(mm & ~unsigned(kMmFtz))
                      : pick_m<MinMax3Fam<fp::FmtF64, false>, 16>(mm & ~unsigned(kMmFtz));
      return two(std::type_identity<fp::FmtF64>{}, std::false_type{});
    case Type::f16:
      if (three) return nullptr;
      return two(std::type_identity<fp::FmtF16>{}, std::false_type{});
    case Type::f16x2:
      if (three) return nullptr;
      return two(std::type_identity<fp::FmtF16>{}, std::true_type{});
    case Type::bf16:
      if (three) return nullptr;
      return two(std::type_identity<fp::FmtBF16>{}, std::false_type{});
    case Type::bf16x2:
      if (three) return nullptr;
      return two(std::type_identity<fp::FmtBF16>{}, std::true_type{});
    default:
      return nullptr;
  }
}

}  // namespace

Handler select_float(const ptx::Instruction& in) {
  const Type t = in.type;
  const bool ftz = in.has(ptx::IF_FTZ), sat = in.has(ptx::IF_SAT);
  const bool approx = in.has(ptx::IF_APPROX);
  const unsigned m32 = (ftz ? kFtz : 0u) | (sat ? kSat : 0u);
  const unsigned mz = ftz ? kFtz : 0u;
  Round r;
  switch (in.op) {
    case ptx::Op::add:
    case ptx::Op::sub:
      return select_add_sub_mul(in, m32);
    case ptx::Op::mul:
      if (in.mul_mode() != ptx::MulMode::none) return nullptr;
      return select_add_sub_mul(in, m32);
    case ptx::Op::mad:
      if (in.mul_mode() != ptx::MulMode::none || in.has(ptx::IF_CC)) return nullptr;
      if (t != Type::f32 && t != Type::f64) return nullptr;
      return select_fma(in, m32);
    case ptx::Op::fma:
      return select_fma(in, m32);

    case ptx::Op::div:
      if (t == Type::f32) {
        if (approx) return pick_m<F32BinFam<ApDiv>, 2>(mz);
        if (in.has(ptx::IF_FULL)) return pick_m<F32BinFam<fp::OpDiv>, 2>(mz);
        if (in.rnd == ptx::Round::none) return nullptr;  // one of .approx/.full/.rnd required
        if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;
        return pick<F32BinFam<fp::OpDiv>, 2>(r, mz);
      }
      if (t == Type::f64) {
        if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;  // legacy div.f64 = div.rn.f64
        return pick<F64BinFam<fp::OpDiv>, 1>(r, 0);
      }
      return nullptr;

    case ptx::Op::rcp:
      if (t == Type::f32) {
        if (approx) return pick_m<F32UnFam<ApRcp>, 2>(mz);
        if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;
        return pick<F32UnFam<fp::OpRcp>, 2>(r, mz);
      }
      if (t == Type::f64) {
        if (approx) return hnd<F64ApproxFtz<false>>();  // rcp.approx.ftz.f64
        if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;
        return pick<F64UnFam<fp::OpRcp>, 1>(r, 0);
      }
      return nullptr;

    case ptx::Op::sqrt:
      if (t == Type::f32) {
        if (approx) return pick_m<F32UnFam<ApSqrt>, 2>(mz);
        if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;
        return pick<F32UnFam<fp::OpSqrt>, 2>(r, mz);
      }
      if (t == Type::f64) {
        if (!ieee_round(in.rnd, Round::rn, r)) return nullptr;
        return pick<F64UnFam<fp::OpSqrt>, 1>(r, 0);
      }
      return nullptr;

    case ptx::Op::rsqrt:
      if (t == Type::f32) return pick_m<F32UnFam<ApRsqrt>, 2>(mz);
      if (t == Type::f64) {
        if (ftz) return hnd<F64ApproxFtz<true>>();
        return pick_m<F64UnFam<ApRsqrt64>, 1>(0);
      }
      return nullptr;

    case ptx::Op::sin:
      return t == Type::f32 ? pick_m<F32UnFam<ApSin>, 2>(mz) : nullptr;
    case ptx::Op::cos:
      return t == Type::f32 ? pick_m<F32UnFam<ApCos>, 2>(mz) : nullptr;
    case ptx::Op::lg2:
      return t == Type::f32 ? pick_m<F32UnFam<ApLg2>, 2>(mz) : nullptr;
    case ptx::Op::ex2:
      if (t == Type::f32) return pick_m<F32UnFam<ApEx2>, 2>(mz);
      // f16/f16x2 support subnormals; bf16/bf16x2 are .ftz.
      if (t == Type::bf16 || t == Type::bf16x2) return pick_half<KHEx2, 2>(t, fp::kHalfFtz);
      return pick_half<KHEx2, 2>(t, 0);
    case ptx::Op::tanh:
      if (t == Type::f32) return pick_m<F32UnFam<ApTanh>, 1>(0);
      return pick_half<KHTanh, 1>(t, 0);

    case ptx::Op::abs:
      switch (t) {
        case Type::f32:
          return ftz ? hnd<KAbs<fp::FmtF32, true>>() : hnd<KAbs<fp::FmtF32, false>>();
        case Type::f64:
          return hnd<KAbs<fp::FmtF64, false>>();
        case Type::f16:
          return ftz ? hnd<KAbs<fp::FmtF16, true>>() : hnd<KAbs<fp::FmtF16, false>>();
        case Type::f16x2:
          return ftz ? hnd<X2<KAbs<fp::FmtF16, true>>>() : hnd<X2<KAbs<fp::FmtF16, false>>>();
        case Type::bf16:
          return hnd<KAbs<fp::FmtBF16, false>>();
        case Type::bf16x2:
          return hnd<X2<KAbs<fp::FmtBF16, false>>>();
        default:
          return nullptr;
      }
    case ptx::Op::neg:
      switch (t) {
        case Type::f32:
          return ftz ? hnd<KNeg<fp::FmtF32, true>>() : hnd<KNeg<fp::FmtF32, false>>();
        case Type::f64:
          return hnd<KNeg<fp::FmtF64, false>>();
        case Type::f16:
          return ftz ? hnd<KNeg<fp::FmtF16, true>>() : hnd<KNeg<fp::FmtF16, false>>();
        case Type::f16x2:
          return ftz ? hnd<X2<KNeg<fp::FmtF16, true>>>() : hnd<X2<KNeg<fp::FmtF16, false>>>();
        case Type::bf16:
          return hnd<KNeg<fp::FmtBF16, false>>();
        case Type::bf16x2:
          return hnd<X2<KNeg<fp::FmtBF16, false>>>();
        default:
          return nullptr;
      }

    case ptx::Op::min:
    case ptx::Op::max: {
      if (in.has(ptx::IF_RELU)) return nullptr;  // integer min/max.relu
      return select_minmax(in, in.op == ptx::Op::max, unsigned(in.ops.size()));
    }

    case ptx::Op::copysign:
      if (t == Type::f32) return hnd<KCopysign<fp::FmtF32>>();
      if (t == Type::f64) return hnd<KCopysign<fp::FmtF64>>();
      return nullptr;

    case ptx::Op::testp:
      if (t == Type::f32) return pick_testp<fp::FmtF32>(in.sub);
      if (t == Type::f64) return pick_testp<fp::FmtF64>(in.sub);
      return nullptr;

    default:
      return nullptr;
  }
}

}  // namespace simtlab::func
