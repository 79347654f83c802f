// Handlers of cvt (PTX ISA 9.0, 9.7.9.21): integer <-> integer, integer <-> float,
// float <-> float (f16, bf16, f32, f64, incl. rounding to an integral value), the packed
// f16x2/bf16x2 from two f32, tf32 from f32, and e4m3x2/e5m2x2 <-> f32/f16x2.
//
// Operands: d.op[0] = d, d.op[1] = a (, d.op[2] = b). in.type is the destination type and
// in.type2 the source type. The source register is read through its low bits per the source
// type; the destination is written zero-extended (unsigned, bit and float types) or
// sign-extended to 64 bits (signed integer types).
//
// All rounding to narrower formats is exact software rounding (fp::round_pack), so no
// handler here changes the FPU mode. Build note: compile with -frounding-math.
#include <type_traits>

#include "func/exec_fp_tables.h"

namespace simtlab::func {

namespace {

using fp::FmtBF16;
using fp::FmtE4M3;
using fp::FmtE5M2;
using fp::FmtF16;
using fp::FmtF32;
using fp::FmtF64;
using fp::FmtTF32;
using fp::Round;
using ptx::Type;

using fptab::hnd;
using fptab::KBase;
using fptab::pick;

template <class Fam, unsigned NM>
Handler pick_rna(unsigned m) {
  return fptab::pick_m<Fam, NM, Round::rna>(m);
}

// ---- value helpers ---------------------------------------------------------------------------

template <class T>
uint64_t int_reg(T v) {
  if constexpr (std::is_signed_v<T>)
    return uint64_t(int64_t(v));
  else
    return uint64_t(v);
}

template <class F>
constexpr uint64_t width_mask() {
  constexpr int bits = F::M + F::E + 1;
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

/// Exact value of a float source register; FTZ flushes an f32 subnormal input.
template <class SF, bool FTZ>
double src_val(uint64_t a) {
  if constexpr (std::is_same_v<SF, FmtF64>) {
    return fp::f64_of(a);
  } else if constexpr (std::is_same_v<SF, FmtF32>) {
    uint32_t b = uint32_t(a);
    if constexpr (FTZ) b = uint32_t(fp::ftz_bits<FmtF32>(b));
    return double(fp::f32_of(b));
  } else if constexpr (std::is_same_v<SF, FmtF16> || std::is_same_v<SF, FmtBF16>) {
    return double(fp::half_to_float<SF>(uint16_t(a)));
  } else {
    return fp::decode<SF>(a & width_mask<SF>());
  }
}

// ---- kernels -----------------------------------------------------------------------------

// Modifier bits of the float-destination kernels.
enum : unsigned { kCvFtz = 1, kCvSat = 2, kCvRelu = 4, kCvSatf = 8, kCvInt = 16 };

/// int -> int: truncate, or clamp with .sat (M & 1).
template <class D, class S, unsigned M>
struct KI2I : KBase<1> {
  static uint64_t f(uint64_t a) {
    const S s = static_cast<S>(a);
    if constexpr ((M & 1) != 0)
      return int_reg(fp::sat_int<D>(s));
    else
      return int_reg(static_cast<D>(s));
  }
};
template <class D, class S>
struct I2IFam {
  template <Round, unsigned M>
  using K = KI2I<D, S, M>;
};

/// int -> float (DF), rounding R, .sat (M & kCvSat).
template <class DF, class S, Round R, unsigned M>
struct KI2F : KBase<1> {
  static uint64_t f(uint64_t a) {
    const S s = static_cast<S>(a);
    uint64_t r;
    if constexpr (R == Round::rn && std::is_same_v<DF, FmtF32>)
      r = fp::bits_of(float(s));
    else if constexpr (R == Round::rn && std::is_same_v<DF, FmtF64>)
      r = fp::bits_of(double(s));
    else if constexpr (std::is_signed_v<S>)
      r = fp::s64_to_float_bits<DF>(int64_t(s), R);
    else
      r = fp::u64_to_float_bits<DF>(uint64_t(s), R);
    if constexpr ((M & kCvSat) != 0) r = fp::sat01_bits<DF>(r);
    return r;
  }
};
template <class DF, class S>
struct I2FFam {
  static constexpr bool exact = std::numeric_limits<S>::digits <= DF::M + 1;
  template <Round R, unsigned M>
  using K = KI2F<DF, S, exact ? Round::rn : R, std::is_same_v<DF, FmtBF16> ? 0u : (M& kCvSat)>;
};

/// float -> int: round to integral with R, clamp; NaN per the ISA. .ftz (M & 1) for f32 sources.
template <class D, class SF, Round R, unsigned M>
struct KF2I : KBase<1> {
  static uint64_t f(uint64_t a) {
    return int_reg(
        fp::float_to_int<D>(src_val<SF, (M & 1) != 0>(a), R, std::is_same_v<SF, FmtF64>));
  }
};
template <class D, class SF>
struct F2IFam {
  template <Round R, unsigned M>
  using K = KF2I<D, SF, R, std::is_same_v<SF, FmtF32> ? (M & 1) : 0u>;
};

/// float -> float (DF from SF). M: kCvFtz (f32 input/output flush), kCvSat ([0,1]),
/// kCvRelu, kCvSatf (satfinite), kCvInt (round to an integral value with R; DF == SF).
template <class DF, class SF, Round R, unsigned M>
struct KF2F : KBase<1> {
  static uint64_t f(uint64_t a) {
    constexpr bool kFtzIn = (M & kCvFtz) != 0 && std::is_same_v<SF, FmtF32>;
    double v = src_val<SF, kFtzIn>(a);
    if constexpr ((M & kCvInt) != 0) v = fp::round_integral(v, R);
    uint64_t r;
    if (v != v) {
      if constexpr (std::is_same_v<DF, FmtF64>)
        r = fp::quiet64(fp::bits_of(v));  // keeps payload
      else
        r = DF::nan;
    } else if constexpr (std::is_same_v<DF, FmtF64>) {
      r = fp::bits_of(v);  // every source format is a subset of f64
    } else if constexpr (std::is_same_v<DF, FmtF32> && (R == Round::rn || (M & kCvInt) != 0)) {
      r = fp::bits_of(float(v));  // host conversion in the default rn mode
    } else if constexpr ((std::is_same_v<DF, FmtF16> ||
                          std::is_same_v<DF, FmtBF16>)&&(R == Round::rn || (M & kCvInt) != 0) &&
                         (M & kCvSatf) == 0) {
      r = fp::encode_rn<DF>(v);
    } else {
      r = fp::encode<DF>(v, R, (M & kCvSatf) != 0);
    }
    if constexpr ((M & kCvFtz) != 0 && std::is_same_v<DF, FmtF32>) r = fp::ftz_bits<FmtF32>(r);
    if constexpr ((M & kCvSat) != 0) r = fp::sat01_bits<DF>(r);
    if constexpr ((M & kCvRelu) != 0) r = fp::relu_bits<DF>(r);
    return r;
  }
};

template <class DF, class SF>
constexpr bool narrowing() {
  return DF::M < SF::M || DF::E < SF::E;
}

template <class DF, class SF, bool INT>
struct F2FFam {
  static constexpr bool f32_involved = std::is_same_v<DF, FmtF32> || std::is_same_v<SF, FmtF32>;
  static constexpr bool half_dst = std::is_same_v<DF, FmtF16> || std::is_same_v<DF, FmtBF16>;
  static constexpr unsigned allowed = (f32_involved ? kCvFtz : 0u) |
                                      (std::is_same_v<DF, FmtBF16> ? 0u : kCvSat) |
                                      (half_dst ? kCvRelu | kCvSatf : 0u);
  static constexpr bool r_matters = INT || narrowing<DF, SF>();
  template <Round R, unsigned M>
  using K = KF2F<DF, SF, r_matters ? R : Round::rn, (M & allowed) | (INT ? kCvInt : 0u)>;
};

/// cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: d = {hi: cvt(a), lo: cvt(b)}.
template <class DF, Round R, unsigned M>
struct KPack2 : KBase<2> {
  using One = KF2F<DF, FmtF32, R, M&(kCvRelu | kCvSatf)>;
  static uint64_t f(uint64_t a, uint64_t b) { return (One::f(a) << 16) | One::f(b); }
};
template <class DF>
struct Pack2Fam {
  template <Round R, unsigned M>
  using K = KPack2<DF, R, M>;
};

/// cvt.{rna,rn,rz}{.relu}{.satfinite}.tf32.f32: the tf32 value as f32 bits (13 low bits 0).
template <Round R, unsigned M>
struct KTf32 : KBase<1> {
  static uint64_t f(uint64_t a) {
    uint32_t r = fp::f32_to_tf32(fp::f32_of(uint32_t(a)), R, (M & kCvSatf) != 0);
    if constexpr ((M & kCvRelu) != 0) {
      if (r & fp::kSign32) r = 0;  // NaN results are already the (positive) canonical NaN
    }
    return r;
  }
};
struct Tf32Fam {
  template <Round R, unsigned M>
  using K = KTf32<R, M>;
};

/// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b (d[15:8] = cvt(a), d[7:0] = cvt(b)) and
/// .f16x2 d, a (d[15:8] = cvt(a[31:16]), d[7:0] = cvt(a[15:0])).
template <class D8, bool FROM_F16X2, unsigned M>
struct KF8Pack : KBase<FROM_F16X2 ? 1 : 2> {
  using FromF32 = KF2F<D8, FmtF32, Round::rn, M&(kCvRelu | kCvSatf)>;
  using FromF16 = KF2F<D8, FmtF16, Round::rn, M&(kCvRelu | kCvSatf)>;
  static uint64_t f(uint64_t a, uint64_t b) { return (FromF32::f(a) << 8) | FromF32::f(b); }
  static uint64_t f(uint64_t a) {
    return (FromF16::f((a >> 16) & 0xffff) << 8) | FromF16::f(a & 0xffff);
  }
};
template <class D8, bool FROM_F16X2>
struct F8PackFam {
  template <Round, unsigned M>
  using K = KF8Pack<D8, FROM_F16X2, M>;
};

/// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a: d[31:16] = cvt(a[15:8]), d[15:0] = cvt(a[7:0]).
template <class S8, unsigned M>
struct KF8Unpack : KBase<1> {
  using One = KF2F<FmtF16, S8, Round::rn, M & kCvRelu>;
  static uint64_t f(uint64_t a) { return (One::f((a >> 8) & 0xff) << 16) | One::f(a & 0xff); }
};
template <class S8>
struct F8UnpackFam {
  template <Round, unsigned M>
  using K = KF8Unpack<S8, M>;
};

// ---- type dispatch ---------------------------------------------------------------------------

template <class Fn>
Handler with_int(Type t, Fn&& fn) {
  switch (t) {
    case Type::u8:
    case Type::b8:
      return fn(std::type_identity<uint8_t>{});
    case Type::u16:
    case Type::b16:
      return fn(std::type_identity<uint16_t>{});
    case Type::u32:
    case Type::b32:
      return fn(std::type_identity<uint32_t>{});
    case Type::u64:
    case Type::b64:
      return fn(std::type_identity<uint64_t>{});
    case Type::s8:
      return fn(std::type_identity<int8_t>{});
    case Type::s16:
      return fn(std::type_identity<int16_t>{});
    case Type::s32:
      return fn(std::type_identity<int32_t>{});
    case Type::s64:
      return fn(std::type_identity<int64_t>{});
    default:
      return nullptr;
  }
}

template <class Fn>
Handler with_flt(Type t, Fn&& fn) {
  switch (t) {
    case Type::f16:
      return fn(std::type_identity<FmtF16>{});
    case Type::bf16:
      return fn(std::type_identity<FmtBF16>{});
    case Type::f32:
      return fn(std::type_identity<FmtF32>{});
    case Type::f64:
      return fn(std::type_identity<FmtF64>{});
    default:
      return nullptr;
  }
}

bool is_int_type(Type t) {
  switch (t) {
    case Type::u8:
    case Type::u16:
    case Type::u32:
    case Type::u64:
    case Type::s8:
    case Type::s16:
    case Type::s32:
    case Type::s64:
    case Type::b8:
    case Type::b16:
    case Type::b32:
    case Type::b64:
      return true;
    default:
      return false;
  }
}

bool is_flt_type(Type t) {
  return t == Type::f16 || t == Type::bf16 || t == Type::f32 || t == Type::f64;
}

/// Float rounding modifier (.rn .rz .rm .rp; absent -> rn).
bool float_round(ptx::Round in, Round& out) {
  switch (in) {
    case ptx::Round::none:
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

/// Integer rounding modifier (.rni .rzi .rmi .rpi).
bool int_round(ptx::Round in, Round& out) {
  switch (in) {
    case ptx::Round::rni:
      out = Round::rn;
      return true;
    case ptx::Round::rzi:
      out = Round::rz;
      return true;
    case ptx::Round::rmi:
      out = Round::rm;
      return true;
    case ptx::Round::rpi:
      out = Round::rp;
      return true;
    default:
      return false;
  }
}

}  // namespace

Handler select_cvt(const ptx::Instruction& in) {
  if (in.op != ptx::Op::cvt) return nullptr;
  const Type dt = in.type, st = in.type2;
  const unsigned nsrc = in.ops.size() > 0 ? unsigned(in.ops.size()) - 1 : 0;
  const bool ftz = in.has(ptx::IF_FTZ), relu = in.has(ptx::IF_RELU);
  // The parser folds .sat and .satfinite into IF_SAT. .sat ([0, 1]) exists for f16/f32/f64
  // destinations, .satfinite for f16/bf16/packed/tf32/fp8 ones; only f16 is ambiguous and is
  // told apart by the source text.
  bool satf = false, sat = false;
  if (in.has(ptx::IF_SAT)) {
    const bool says_satfinite = in.text.find(".satfinite") != std::string_view::npos;
    if (dt == Type::f32 || dt == Type::f64 || is_int_type(dt))
      sat = true;
    else if (dt == Type::f16)
      (says_satfinite ? satf : sat) = true;
    else
      satf = true;
  }
  const unsigned fmods =
      (ftz ? kCvFtz : 0u) | (sat ? kCvSat : 0u) | (relu ? kCvRelu : 0u) | (satf ? kCvSatf : 0u);
  Round r;

  // integer <- integer
  if (is_int_type(dt) && is_int_type(st)) {
    return with_int(dt, [&](auto dtag) {
      return with_int(st, [&](auto stag) {
        using D = typename decltype(dtag)::type;
        using S = typename decltype(stag)::type;
        return pick<I2IFam<D, S>, 2>(Round::rn, sat ? 1u : 0u);
      });
    });
  }
  // float <- integer
  if (is_flt_type(dt) && is_int_type(st)) {
    if (!float_round(in.rnd, r)) return nullptr;
    return with_flt(dt, [&](auto dtag) {
      return with_int(st, [&](auto stag) {
        using DF = typename decltype(dtag)::type;
        using S = typename decltype(stag)::type;
        return pick<I2FFam<DF, S>, 4>(r, sat ? kCvSat : 0u);
      });
    });
  }
  // integer <- float
  if (is_int_type(dt) && is_flt_type(st)) {
    if (in.rnd == ptx::Round::none)
      r = Round::rz;  // legacy form without a modifier
    else if (!int_round(in.rnd, r))
      return nullptr;
    return with_int(dt, [&](auto dtag) {
      return with_flt(st, [&](auto stag) {
        using D = typename decltype(dtag)::type;
        using SF = typename decltype(stag)::type;
        return pick<F2IFam<D, SF>, 2>(r, ftz ? 1u : 0u);
      });
    });
  }
  // float <- float
  if (is_flt_type(dt) && is_flt_type(st)) {
    if (int_round(in.rnd, r)) {
      if (dt != st) return nullptr;  // integer rounding needs equal sizes
      return with_flt(dt, [&](auto tag) {
        using F = typename decltype(tag)::type;
        return pick<F2FFam<F, F, true>, 16>(r, fmods);
      });
    }
    if (!float_round(in.rnd, r)) return nullptr;
    return with_flt(dt, [&](auto dtag) {
      return with_flt(st, [&](auto stag) {
        using DF = typename decltype(dtag)::type;
        using SF = typename decltype(stag)::type;
        return pick<F2FFam<DF, SF, false>, 16>(r, fmods);
      });
    });
  }
  // packed 16-bit from two f32
  if ((dt == Type::f16x2 || dt == Type::bf16x2) && st == Type::f32) {
    if (nsrc != 2 || !float_round(in.rnd, r)) return nullptr;
    const unsigned m = fmods & (kCvRelu | kCvSatf);
    return dt == Type::f16x2 ? pick<Pack2Fam<FmtF16>, 16>(r, m) : pick<Pack2Fam<FmtBF16>, 16>(r, m);
  }
  // tf32 from f32
  if (dt == Type::tf32 && st == Type::f32) {
    const unsigned m = fmods & (kCvRelu | kCvSatf);
    if (in.rnd == ptx::Round::rna) return pick_rna<Tf32Fam, 16>(m);
    if (in.rnd != ptx::Round::rn && in.rnd != ptx::Round::rz) return nullptr;
    return pick<Tf32Fam, 16>(in.rnd == ptx::Round::rn ? Round::rn : Round::rz, m);
  }
  // fp8 pairs
  if (dt == Type::e4m3x2 || dt == Type::e5m2x2) {
    if (in.rnd != ptx::Round::rn && in.rnd != ptx::Round::none) return nullptr;
    const unsigned m = fmods & (kCvRelu | kCvSatf);
    const bool e4 = dt == Type::e4m3x2;
    if (st == Type::f32 && nsrc == 2)
      return e4 ? pick<F8PackFam<FmtE4M3, false>, 16>(Round::rn, m)
                : pick<F8PackFam<FmtE5M2, false>, 16>(Round::rn, m);
    if (st == Type::f16x2 && nsrc == 1)
      return e4 ? pick<F8PackFam<FmtE4M3, true>, 16>(Round::rn, m)
                : pick<F8PackFam<FmtE5M2, true>, 16>(Round::rn, m);
    return nullptr;
  }
  if (dt == Type::f16x2 && (st == Type::e4m3x2 || st == Type::e5m2x2)) {
    if (in.rnd != ptx::Round::rn && in.rnd != ptx::Round::none) return nullptr;
    const unsigned m = relu ? kCvRelu : 0u;
    return st == Type::e4m3x2 ? pick<F8UnpackFam<FmtE4M3>, 8>(Round::rn, m)
                              : pick<F8UnpackFam<FmtE5M2>, 8>(Round::rn, m);
  }
  return nullptr;
}

}  // namespace simtlab::func
