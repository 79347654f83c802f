// Floating-point semantics of the PTX float and conversion instructions, as small pure
// functions (NVIDIA PTX ISA 9.0, sections 9.7.3 floating-point, 9.7.4 half precision and
// 9.7.9.21 cvt). The instruction handlers (exec_float.cpp, exec_cvt.cpp) are thin lane loops
// around the templates here; the runtime-mode wrappers at the end exist for tests and tools.
//
// Conventions
// - Values travel as raw bits (uint16/32/64) wherever the NaN encoding matters.
// - NaN results: f32 and all 16/8-bit formats produce the canonical NaN of the format
//   (f32 0x7fffffff, f16/bf16 0x7fff, e4m3/e5m2 0x7f). f64 instructions propagate an input NaN
//   (quieted; the first NaN operand in textual order) and generate kNaN64 otherwise
//   ("NaN payloads are supported for double-precision instructions", PTX ISA 9.7.3).
// - Directed rounding of f32/f64 arithmetic uses the host FPU with <cfenv> (RoundScope); this
//   file and its users must be compiled with -frounding-math. Every rounding to a narrower
//   format (f16, bf16, tf32, e4m3, e5m2, and f32 from f64/integers in directed modes) is exact
//   integer code (round_pack; encode_rn / f32_to_tf32 fast paths for round-to-nearest).
// - All functions assume the FPU is in round-to-nearest mode on entry (the default): the .rn
//   paths use host arithmetic/conversions, TwoSum and libm.
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

/// Small kernels the lane loops must inline (GCC otherwise keeps some out of line).
#if defined(__GNUC__)
#define SIMTLAB_FP_INLINE [[gnu::always_inline]] inline
#else
#define SIMTLAB_FP_INLINE inline
#endif

namespace simtlab::func::fp {

/// Rounding of a floating-point result. Integer rounding (.rni/.rzi/.rmi/.rpi) maps to
/// rn/rz/rm/rp applied at integer granularity.
enum class Round : uint8_t { rn, rz, rm, rp, rna };

// ---- bit views -------------------------------------------------------------------------------

inline uint32_t bits_of(float x) { return std::bit_cast<uint32_t>(x); }
inline uint64_t bits_of(double x) { return std::bit_cast<uint64_t>(x); }
inline float f32_of(uint32_t b) { return std::bit_cast<float>(b); }
inline double f64_of(uint64_t b) { return std::bit_cast<double>(b); }

// ---- canonical NaNs and special encodings ----------------------------------------------------

inline constexpr uint32_t kNaN32 = 0x7fffffffu;                  // PTX f32 canonical NaN
inline constexpr uint64_t kNaN64 = 0xfff8000000000000ull;        // generated f64 NaN (CUDART_NAN)
inline constexpr uint64_t kNaN64Approx = 0x7fffffff00000000ull;  // rcp/rsqrt.approx.ftz.f64
inline constexpr uint16_t kNaN16 = 0x7fff;                       // f16 and bf16 canonical NaN
inline constexpr uint16_t kOobNaN16 = 0x7fff;                    // fma.oob "OOB NaN" (16-bit types)
inline constexpr uint32_t kSign32 = 0x80000000u;
inline constexpr uint64_t kSign64 = 0x8000000000000000ull;

// ---- formats ---------------------------------------------------------------------------------
// M: explicit mantissa bits, E: exponent bits. `ieee`: the all-ones exponent encodes Inf/NaN;
// otherwise (e4m3) only S.1111.111 is NaN and there is no infinity. `nan`: canonical NaN.

struct FmtF64 {
  static constexpr int M = 52, E = 11, bias = 1023;
  static constexpr bool ieee = true;
  static constexpr uint64_t nan = kNaN64;
};
struct FmtF32 {
  static constexpr int M = 23, E = 8, bias = 127;
  static constexpr bool ieee = true;
  static constexpr uint64_t nan = kNaN32;
};
struct FmtF16 {
  static constexpr int M = 10, E = 5, bias = 15;
  static constexpr bool ieee = true;
  static constexpr uint64_t nan = kNaN16;
};
struct FmtBF16 {
  static constexpr int M = 7, E = 8, bias = 127;
  static constexpr bool ieee = true;
  static constexpr uint64_t nan = kNaN16;
};
/// TF32 as a 19-bit format (sign, 8 exponent, 10 mantissa); stored in a .b32 register as the
/// f32 bit pattern with the 13 low mantissa bits zero (tf32_to_reg).
struct FmtTF32 {
  static constexpr int M = 10, E = 8, bias = 127;
  static constexpr bool ieee = true;
  static constexpr uint64_t nan = 0x7fffe000u >> 13;
};
struct FmtE4M3 {
  static constexpr int M = 3, E = 4, bias = 7;
  static constexpr bool ieee = false;
  static constexpr uint64_t nan = 0x7f;
};
struct FmtE5M2 {
  static constexpr int M = 2, E = 5, bias = 15;
  static constexpr bool ieee = true;
  static constexpr uint64_t nan = 0x7f;
};

template <class F>
inline constexpr uint64_t kSignBit = uint64_t(1) << (F::M + F::E);
template <class F>
inline constexpr uint64_t kMagMask = kSignBit<F> - 1;
template <class F>
inline constexpr uint64_t kExpMask = ((uint64_t(1) << F::E) - 1) << F::M;
template <class F>
inline constexpr uint64_t kInfBits = F::ieee ? kExpMask<F> : F::nan;
template <class F>
inline constexpr uint64_t kMaxFinite = F::ieee ? kExpMask<F> - 1
                                               : kExpMask<F> | ((uint64_t(1) << F::M) - 2);
template <class F>
inline constexpr uint64_t kOneBits = uint64_t(F::bias) << F::M;

template <class F>
inline constexpr bool is_nan_bits(uint64_t b) {
  b &= kMagMask<F>;
  return F::ieee ? b > kExpMask<F> : b == kMagMask<F>;
}
template <class F>
inline constexpr bool is_inf_bits(uint64_t b) {
  return F::ieee && (b & kMagMask<F>) == kExpMask<F>;
}
/// Nonzero with a zero exponent field.
template <class F>
inline constexpr bool is_subnormal_bits(uint64_t b) {
  return (b & kExpMask<F>) == 0 && (b & kMagMask<F>) != 0;
}
/// Sign-preserving flush of a subnormal to zero.
template <class F>
inline constexpr uint64_t ftz_bits(uint64_t b) {
  return (b & kExpMask<F>) == 0 ? b & kSignBit<F> : b;
}

// ---- exact decoding --------------------------------------------------------------------------

/// 2^k as a double, for -1022 <= k <= 1023.
inline double pow2(int k) { return f64_of(uint64_t(k + 1023) << 52); }

/// The exact value of an encoding of F (F narrower than f64). NaN decodes to a quiet NaN.
template <class F>
inline double decode(uint64_t b) {
  static_assert(F::M < 52);
  const uint64_t e = (b & kExpMask<F>) >> F::M;
  const uint64_t m = b & ((uint64_t(1) << F::M) - 1);
  double v;
  if (is_nan_bits<F>(b))
    v = std::numeric_limits<double>::quiet_NaN();
  else if (is_inf_bits<F>(b))
    v = std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = double(m) * pow2(1 - F::bias - F::M);
  else
    v = double(m | (uint64_t(1) << F::M)) * pow2(int(e) - F::bias - F::M);
  return (b & kSignBit<F>) ? -v : v;
}

/// f16 -> f32 bits (exact; NaN payloads are kept, so callers canonicalize where required).
SIMTLAB_FP_INLINE uint32_t f16_to_f32_bits(uint16_t h) {
  const uint32_t s = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return s | 0x7f800000u | (m << 13);
  if (e != 0) return s | ((e + 112) << 23) | (m << 13);
  if (m == 0) return s;
  const int sh = std::countl_zero(m) - 21;  // moves the leading one to bit 10
  return s | (uint32_t(113 - sh) << 23) | (((m << sh) & 0x3ffu) << 13);
}
SIMTLAB_FP_INLINE float f16_to_f32(uint16_t h) { return f32_of(f16_to_f32_bits(h)); }
SIMTLAB_FP_INLINE float bf16_to_f32(uint16_t h) { return f32_of(uint32_t(h) << 16); }

/// Value of a 16-bit float (F = FmtF16 or FmtBF16) as float (exact).
template <class F>
SIMTLAB_FP_INLINE float half_to_float(uint16_t h) {
  if constexpr (std::is_same_v<F, FmtF16>)
    return f16_to_f32(h);
  else
    return bf16_to_f32(h);
}

// ---- exact rounding to a format --------------------------------------------------------------

/// Rounds the value (-1)^neg * (sig + frac) * 2^exp to format F, where `sticky` says that the
/// dropped fraction 0 < frac < 1 is nonzero (sticky=false: the value is exactly sig * 2^exp).
/// Handles subnormal results, overflow per rounding mode (rn/rna: Inf; rz: max finite; rm/rp:
/// toward the infinity on their side) and `satfinite` (overflow gives the sign-preserving max
/// finite value). For formats without Inf (e4m3), overflow without satfinite gives NaN.
template <class F>
inline uint64_t round_pack(bool neg, uint64_t sig, int exp, bool sticky, Round r,
                           bool satfinite = false) {
  constexpr int M = F::M;
  constexpr int emin = 1 - F::bias;
  const uint64_t sign = neg ? kSignBit<F> : 0;
  if (sig == 0) return sign;
  const int msb = 63 - std::countl_zero(sig);
  const int e_val = exp + msb;                  // value in [2^e_val, 2^(e_val+1))
  const int e_q = e_val < emin ? emin : e_val;  // exponent of the result's leading position
  const int shift = e_q - M - exp;              // low bits of sig below the result's ulp
  uint64_t kept;
  bool rb = false;
  if (shift <= 0) {
    kept = sig << -shift;
  } else if (shift < 64) {
    kept = sig >> shift;
    rb = (sig >> (shift - 1)) & 1;
    sticky |= (sig & ((uint64_t(1) << (shift - 1)) - 1)) != 0;
  } else if (shift == 64) {
    kept = 0;
    rb = (sig >> 63) & 1;
    sticky |= (sig << 1) != 0;
  } else {
    kept = 0;
    sticky = true;
  }
  bool inc = false;
  switch (r) {
    case Round::rn:
      inc = rb && (sticky || (kept & 1));
      break;
    case Round::rna:
      inc = rb;
      break;
    case Round::rz:
      inc = false;
      break;
    case Round::rm:
      inc = neg && (rb || sticky);
      break;
    case Round::rp:
      inc = !neg && (rb || sticky);
      break;
  }
  kept += inc;
  const int64_t biased = int64_t(e_q) + F::bias;  // >= 1; subnormals use biased == 1
  if (biased < (int64_t(1) << F::E) + 1) {
    const uint64_t mag = (uint64_t(biased - 1) << M) + kept;
    if (mag <= kMaxFinite<F>) return sign | mag;
  }
  // overflow
  if (satfinite) return sign | kMaxFinite<F>;
  if (!F::ieee) return F::nan;
  switch (r) {
    case Round::rz:
      return sign | kMaxFinite<F>;
    case Round::rm:
      return neg ? sign | kInfBits<F> : kMaxFinite<F>;
    case Round::rp:
      return neg ? sign | kMaxFinite<F> : kInfBits<F>;
    default:
      return sign | kInfBits<F>;
  }
}

struct Parts {
  bool neg;
  uint64_t sig;  // 0 for zero
  int exp;
};
inline Parts parts_of(double v) {
  const uint64_t b = bits_of(v);
  const int e = int((b >> 52) & 0x7ff);
  const uint64_t m = b & ((uint64_t(1) << 52) - 1);
  if (e == 0) return {(b >> 63) != 0, m, -1074};
  return {(b >> 63) != 0, m | (uint64_t(1) << 52), e - 1075};
}
inline Parts parts_of(float v) {
  const uint32_t b = bits_of(v);
  const int e = int((b >> 23) & 0xff);
  const uint32_t m = b & 0x7fffffu;
  if (e == 0) return {(b >> 31) != 0, m, -149};
  return {(b >> 31) != 0, uint64_t(m | 0x800000u), e - 150};
}

/// Rounds a float/double value (exactly as given) to format F. NaN gives F's canonical NaN;
/// Inf gives Inf (or max finite with satfinite; NaN for e4m3 without satfinite).
template <class F, class T>
inline uint64_t encode(T v, Round r, bool satfinite = false) {
  if (v != v) return F::nan;
  const bool neg = std::signbit(v);
  const uint64_t sign = neg ? kSignBit<F> : 0;
  if (std::isinf(v)) {
    if (satfinite) return sign | kMaxFinite<F>;
    return F::ieee ? sign | kInfBits<F> : F::nan;
  }
  const Parts p = parts_of(v);
  return round_pack<F>(neg, p.sig, p.exp, false, r, satfinite);
}

/// Fast round-to-nearest-even of a double (any value) to an IEEE format F narrower than f32
/// in precision (f16, bf16): integer-only, same result as encode<F>(v, Round::rn).
template <class F>
SIMTLAB_FP_INLINE uint64_t encode_rn(double v) {
  static_assert(F::ieee && F::M < 23);
  constexpr uint64_t kMant52 = (uint64_t(1) << 52) - 1;
  constexpr uint64_t kOvf = uint64_t(1023 + F::bias + 1) << 52;      // 2^(emax + 1)
  constexpr uint64_t kMinNorm = uint64_t(1023 + 1 - F::bias) << 52;  // 2^emin
  constexpr int kDrop = 52 - F::M;
  constexpr int kQ = 1 - F::bias - F::M;  // exponent of the subnormal quantum
  const uint64_t b = bits_of(v);
  const uint64_t sign = (b >> 63) ? kSignBit<F> : 0;
  const uint64_t mag = b & ~kSign64;
  if (mag >= kOvf) return mag > 0x7ff0000000000000ull ? F::nan : sign | kInfBits<F>;
  uint64_t h;
  if (mag >= kMinNorm) {
    uint64_t t = mag - (uint64_t(1023 - F::bias) << 52);  // rebias the exponent field
    t += ((uint64_t(1) << (kDrop - 1)) - 1) + ((t >> kDrop) & 1);
    h = t >> kDrop;  // a carry out of the top binade lands exactly on the Inf encoding
  } else {
    const int e = int(mag >> 52);
    const uint64_t sig = (mag & kMant52) | (e ? uint64_t(1) << 52 : 0);
    const int shift = (e ? 1075 - e : 1074) + kQ;  // >= 43 for f16, >= 46 for bf16
    if (shift >= 64) {
      h = 0;  // below a quarter of the smallest subnormal
    } else {
      const uint64_t kept = sig >> shift, rem = sig & ((uint64_t(1) << shift) - 1);
      const uint64_t half = uint64_t(1) << (shift - 1);
      h = kept + ((rem > half || (rem == half && (kept & 1))) ? 1 : 0);
    }
  }
  return sign | h;
}

template <class F, class T>
inline uint64_t encode_half(T v, Round r) {
  return r == Round::rn ? encode_rn<F>(double(v)) : encode<F>(v, r);
}
inline uint16_t f32_to_f16(float v, Round r = Round::rn) {
  return uint16_t(encode_half<FmtF16>(v, r));
}
inline uint16_t f64_to_f16(double v, Round r = Round::rn) {
  return uint16_t(encode_half<FmtF16>(v, r));
}
inline uint16_t f32_to_bf16(float v, Round r = Round::rn) {
  return uint16_t(encode_half<FmtBF16>(v, r));
}
inline uint16_t f64_to_bf16(double v, Round r = Round::rn) {
  return uint16_t(encode_half<FmtBF16>(v, r));
}
/// f64 -> f32 with any rounding (exact software rounding; NaN -> kNaN32).
inline float f64_to_f32(double v, Round r = Round::rn) {
  return f32_of(uint32_t(encode<FmtF32>(v, r)));
}
/// tf32 result as stored in a .b32 register.
inline uint32_t tf32_to_reg(uint64_t tf32bits) { return uint32_t(tf32bits << 13); }
/// f32 -> tf32 (as stored in a register). rna/rn/rz round in place on the f32 bit pattern
/// (the subnormal grid is uniform in bit space and carries propagate into the exponent).
inline uint32_t f32_to_tf32(float v, Round r, bool satfinite = false) {
  uint32_t b = bits_of(v);
  const uint32_t mag = b & 0x7fffffffu;
  if (mag > 0x7f800000u) return 0x7fffe000u;  // NaN
  if (r == Round::rm || r == Round::rp) return tf32_to_reg(encode<FmtTF32>(v, r, satfinite));
  if (mag == 0x7f800000u) return satfinite ? (b & kSign32) | 0x7f7fe000u : b;
  if (r == Round::rna)
    b += 0x1000u;
  else if (r == Round::rn)
    b += 0xfffu + ((b >> 13) & 1);
  b &= 0xffffe000u;
  if (satfinite && (b & 0x7fffffffu) == 0x7f800000u) b = (b & kSign32) | 0x7f7fe000u;
  return b;
}

// ---- round to odd (exact arithmetic in double for narrow formats) ----------------------------

/// Error of s = rn(a + b): a + b == s + err exactly (Knuth's TwoSum; needs rn mode).
SIMTLAB_FP_INLINE double two_sum_err(double a, double b, double s) {
  const double bb = s - a;
  return (a - (s - bb)) + (b - bb);
}
/// Round-to-odd of the exact value s + e given s = rn(s + e) (|e| <= half an ulp of s). Rounding
/// the result to any format with at most 51 significand bits is the same as rounding s + e.
/// Branch-free: round-to-odd is round-toward-zero with the last bit set when inexact; the
/// truncation of s + e is s, or its predecessor in magnitude when e points toward zero.
SIMTLAB_FP_INLINE double round_odd(double s, double e) {
  const uint64_t b = bits_of(s), eb = bits_of(e);
  const uint64_t inexact = (eb << 1) != 0 ? 1 : 0;
  const uint64_t toward_zero = ((eb ^ b) >> 63) & inexact;
  return f64_of((b - toward_zero) | inexact);
}

// ---- flush / saturate helpers ------------------------------------------------------------------

inline float ftz(float x) { return f32_of(uint32_t(ftz_bits<FmtF32>(bits_of(x)))); }
inline bool is_subnormal(float x) { return is_subnormal_bits<FmtF32>(bits_of(x)); }

/// .sat on f32: clamp to [+0.0, 1.0]; NaN and -0.0 give +0.0.
inline uint32_t sat01_bits32(uint32_t b) {
  if (b & kSign32) return 0;      // negatives, -0.0 and negative NaNs
  if (b > 0x7f800000u) return 0;  // positive NaNs
  return b > 0x3f800000u ? 0x3f800000u : b;
}
inline double sat01(double v) {
  if (!(v > 0)) return 0.0;  // NaN, zeros, negatives
  return v > 1.0 ? 1.0 : v;
}
/// .sat for a 16/8-bit format F on its encoding.
template <class F>
inline uint64_t sat01_bits(uint64_t b) {
  if ((b & kSignBit<F>) || is_nan_bits<F>(b)) return 0;
  return b > kOneBits<F> ? kOneBits<F> : b;
}
/// .relu: negative results become +0.0; NaN becomes the canonical NaN.
template <class F>
inline uint64_t relu_bits(uint64_t b) {
  if (is_nan_bits<F>(b)) return F::nan;
  return (b & kSignBit<F>) ? 0 : b;
}

// ---- FPU rounding mode ------------------------------------------------------------------------

inline int fe_mode(Round r) {
  switch (r) {
    case Round::rz:
      return FE_TOWARDZERO;
    case Round::rm:
      return FE_DOWNWARD;
    case Round::rp:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}

/// Sets the host rounding mode for f32/f64 arithmetic for the lifetime of the object (no-op
/// for rn). Handlers create one around their lane loop: loads of the operands happen after the
/// mode switch and stores of results before the restore, so the compiler cannot move the
/// arithmetic across (it depends on memory the calls may touch).
template <Round R>
struct RoundScope {
  RoundScope() {
    if constexpr (R != Round::rn) std::fesetround(fe_mode(R));
  }
  ~RoundScope() {
    if constexpr (R != Round::rn) std::fesetround(FE_TONEAREST);
  }
  RoundScope(const RoundScope&) = delete;
  RoundScope& operator=(const RoundScope&) = delete;
};

// ---- f32 / f64 arithmetic kernels (in the current FPU rounding mode) -------------------------

template <bool FTZ>
inline float in32(uint64_t b) {
  uint32_t x = uint32_t(b);
  if constexpr (FTZ) x = uint32_t(ftz_bits<FmtF32>(x));
  return f32_of(x);
}

/// Result bits of an f32 arithmetic instruction: NaN -> canonical, then .ftz, then .sat.
template <bool FTZ, bool SAT>
inline uint32_t out32(float r) {
  uint32_t b = bits_of(r);
  if (r != r) return SAT ? 0u : kNaN32;
  if constexpr (FTZ) b = uint32_t(ftz_bits<FmtF32>(b));
  if constexpr (SAT) b = sat01_bits32(b);
  return b;
}

/// Quiets an f64 NaN (sets the quiet bit, keeps sign and payload).
inline uint64_t quiet64(uint64_t b) { return b | 0x0008000000000000ull; }

/// f64 NaN result: the first NaN operand quieted, else kNaN64.
inline uint64_t nan64(double a, double b = 0.0, double c = 0.0) {
  if (a != a) return quiet64(bits_of(a));
  if (b != b) return quiet64(bits_of(b));
  if (c != c) return quiet64(bits_of(c));
  return kNaN64;
}

// The operations. `f` works for float and double in the current rounding mode.
struct OpAdd {
  template <class T>
  static T f(T a, T b) {
    return a + b;
  }
};
struct OpSub {
  template <class T>
  static T f(T a, T b) {
    return a - b;
  }
};
struct OpMul {
  template <class T>
  static T f(T a, T b) {
    return a * b;
  }
};
struct OpDiv {
  template <class T>
  static T f(T a, T b) {
    return a / b;
  }
};
struct OpFma {
  template <class T>
  static T f(T a, T b, T c) {
    return std::fma(a, b, c);
  }
};
struct OpRcp {
  template <class T>
  static T f(T a) {
    return T(1) / a;
  }
};
struct OpSqrt {
  template <class T>
  static T f(T a) {
    return std::sqrt(a);
  }
};

// ---- approximate f32 functions (PTX .approx; results within the ISA's error bounds) ----------

/// div.approx.f32: a * (1/b); for 2^126 < |b| < 2^128 the reciprocal underflows, so the result
/// is a sign-preserving zero (NaN if a is Inf or NaN).
inline float div_approx_f32(float a, float b) {
  const float ab = std::fabs(b);
  if (ab > 0x1p126f && ab < std::numeric_limits<float>::infinity()) {
    if (std::isinf(a) || a != a) return std::numeric_limits<float>::quiet_NaN();
    return (std::signbit(a) != std::signbit(b)) ? -0.0f : 0.0f;
  }
  return a / b;
}
inline float rsqrt_approx_f32(float a) { return float(1.0 / std::sqrt(double(a))); }
inline double rsqrt_approx_f64(double a) { return 1.0 / std::sqrt(a); }
inline float sin_approx_f32(float a) { return std::sin(a); }
inline float cos_approx_f32(float a) { return std::cos(a); }
inline float lg2_approx_f32(float a) { return std::log2(a); }
inline float ex2_approx_f32(float a) { return std::exp2(a); }
inline float tanh_approx_f32(float a) { return std::tanh(a); }

/// rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: operate on the upper 32 bits of a (1.11.20),
/// subnormals flushed, result's low 32 bits zero, NaN -> 0x7fffffff00000000.
template <bool RSQRT>
inline uint64_t approx_ftz_f64(uint64_t a) {
  uint64_t hi = a & 0xffffffff00000000ull;
  if (is_nan_bits<FmtF64>(hi)) return kNaN64Approx;
  hi = ftz_bits<FmtF64>(hi);
  const double t = f64_of(hi);
  const double r = RSQRT ? 1.0 / std::sqrt(t) : 1.0 / t;
  if (r != r) return kNaN64Approx;
  return ftz_bits<FmtF64>(bits_of(r)) & 0xffffffff00000000ull;
}

// ---- min / max -----------------------------------------------------------------------------

/// Value-level view of a format for min/max/testp on raw bits.
template <class F>
struct MinMaxTraits;
template <>
struct MinMaxTraits<FmtF32> {
  static float val(uint64_t b) { return f32_of(uint32_t(b)); }
  static constexpr uint64_t nan = kNaN32;
};
template <>
struct MinMaxTraits<FmtF64> {
  static double val(uint64_t b) { return f64_of(b); }
  static constexpr uint64_t nan = kNaN64;
};
template <>
struct MinMaxTraits<FmtF16> {
  static float val(uint64_t b) { return f16_to_f32(uint16_t(b)); }
  static constexpr uint64_t nan = kNaN16;
};
template <>
struct MinMaxTraits<FmtBF16> {
  static float val(uint64_t b) { return bf16_to_f32(uint16_t(b)); }
  static constexpr uint64_t nan = kNaN16;
};

/// One min/max step on encodings (already flushed/abs'ed): NaN rules of min_num/min_nan,
/// -0.0 < +0.0.
template <class F, bool MAX, bool NANMODE>
SIMTLAB_FP_INLINE uint64_t minmax_step(uint64_t a, uint64_t b) {
  const bool na = is_nan_bits<F>(a), nb = is_nan_bits<F>(b);
  if (na || nb) {
    if (NANMODE || (na && nb)) return MinMaxTraits<F>::nan;
    return na ? b : a;
  }
  const auto x = MinMaxTraits<F>::val(a), y = MinMaxTraits<F>::val(b);
  if (x == y) return MAX ? (a & b) : (a | b);  // equal values differ at most in the zero sign
  return (MAX ? x > y : x < y) ? a : b;
}

/// min/max{.ftz}{.NaN}{.xorsign.abs}{.abs} on encodings of F (two inputs).
template <class F, bool MAX, bool FTZ, bool NANMODE, bool ABS, bool XORSIGN>
SIMTLAB_FP_INLINE uint64_t minmax2(uint64_t a, uint64_t b) {
  a &= kSignBit<F> | kMagMask<F>;
  b &= kSignBit<F> | kMagMask<F>;
  if constexpr (FTZ) {
    a = ftz_bits<F>(a);
    b = ftz_bits<F>(b);
  }
  const uint64_t xs = (a ^ b) & kSignBit<F>;
  if constexpr (ABS) {
    a &= kMagMask<F>;
    b &= kMagMask<F>;
  }
  uint64_t r = minmax_step<F, MAX, NANMODE>(a, b);
  if constexpr (XORSIGN) {
    if (!is_nan_bits<F>(r)) r = (r & kMagMask<F>) | xs;
  }
  return r;
}

/// Three-input min/max (PTX ISA 8.8+): d = op(op(a, b), c); no .xorsign.
template <class F, bool MAX, bool FTZ, bool NANMODE, bool ABS>
inline uint64_t minmax3(uint64_t a, uint64_t b, uint64_t c) {
  c &= kSignBit<F> | kMagMask<F>;
  if constexpr (FTZ) c = ftz_bits<F>(c);
  if constexpr (ABS) c &= kMagMask<F>;
  return minmax_step<F, MAX, NANMODE>(minmax2<F, MAX, FTZ, NANMODE, ABS, false>(a, b), c);
}

// ---- testp ---------------------------------------------------------------------------------

/// testp modes as encoded by the parser in Instruction::sub.
enum class TestP : uint8_t { finite = 1, infinite, number, notanumber, normal, subnormal };

template <class F>
inline bool testp_bits(TestP m, uint64_t b) {
  switch (m) {
    case TestP::finite:
      return (b & kExpMask<F>) != kExpMask<F>;
    case TestP::infinite:
      return is_inf_bits<F>(b);
    case TestP::number:
      return !is_nan_bits<F>(b);
    case TestP::notanumber:
      return is_nan_bits<F>(b);
    case TestP::normal:
      return (b & kExpMask<F>) != kExpMask<F> && !is_subnormal_bits<F>(b);
    case TestP::subnormal:
      return is_subnormal_bits<F>(b);
  }
  return false;
}

// ---- 16-bit (f16 / bf16) arithmetic ----------------------------------------------------------
// Computed in double and rounded once to the format with .rn. Products of two 16-bit values
// are exact in double. A sum that is inexact in double has an exponent gap of more than 45
// bits between its terms, so the small term is far below half an ulp of the large one (which
// lies on the 16-bit grid) and both roundings agree; the same holds for f16 fma, whose product
// could only be that far above the addend beyond the f16 range. bf16 fma is the exception (a
// 16-bit product can sit exactly on a bf16 midpoint with a tiny addend 2^-133 away), so its sum
// carries the exact TwoSum error and is rounded to odd before the final rounding.

enum HalfMod : unsigned { kHalfFtz = 1, kHalfSat = 2, kHalfRelu = 4, kHalfOob = 8 };

template <class F, unsigned MODS>
SIMTLAB_FP_INLINE double half_in(uint64_t h) {
  h &= 0xffff;
  if constexpr ((MODS & kHalfFtz) != 0) h = ftz_bits<F>(h);
  return double(half_to_float<F>(uint16_t(h)));
}

/// Final rounding of an exact-or-round-to-odd double to F with the output modifiers.
template <class F, unsigned MODS>
SIMTLAB_FP_INLINE uint64_t half_out(double v) {
  uint64_t r = encode_rn<F>(v);
  if constexpr ((MODS & kHalfFtz) != 0) r = ftz_bits<F>(r);
  if constexpr ((MODS & kHalfSat) != 0) r = sat01_bits<F>(r);
  if constexpr ((MODS & kHalfRelu) != 0) r = relu_bits<F>(r);
  return r;
}

template <class F, unsigned MODS>
SIMTLAB_FP_INLINE uint64_t half_add(uint64_t a, uint64_t b) {
  return half_out<F, MODS>(half_in<F, MODS>(a) + half_in<F, MODS>(b));
}
template <class F, unsigned MODS>
inline uint64_t half_sub(uint64_t a, uint64_t b) {
  return half_add<F, MODS>(a, (b ^ kSignBit<F>)&0xffff);
}
template <class F, unsigned MODS>
SIMTLAB_FP_INLINE uint64_t half_mul(uint64_t a, uint64_t b) {
  return half_out<F, MODS>(half_in<F, MODS>(a) * half_in<F, MODS>(b));
}
template <class F, unsigned MODS>
SIMTLAB_FP_INLINE uint64_t half_fma(uint64_t a, uint64_t b, uint64_t c) {
  if constexpr ((MODS & kHalfOob) != 0) {
    if ((a & 0xffff) == kOobNaN16 || (b & 0xffff) == kOobNaN16 || (c & 0xffff) == kOobNaN16)
      return 0;
  }
  const double p = half_in<F, MODS>(a) * half_in<F, MODS>(b);  // exact
  const double z = half_in<F, MODS>(c);
  const double s = p + z;
  if constexpr (std::is_same_v<F, FmtF16>) {
    return half_out<F, MODS>(s);
  } else {
    if (!std::isfinite(s)) return half_out<F, MODS>(s);
    return half_out<F, MODS>(round_odd(s, two_sum_err(p, z, s)));
  }
}
template <class F>
inline uint64_t half_neg(uint64_t a, bool ftz_) {
  a &= 0xffff;
  if (ftz_) a = ftz_bits<F>(a);
  return a ^ kSignBit<F>;
}
template <class F>
inline uint64_t half_abs(uint64_t a, bool ftz_) {
  a &= 0xffff;
  if (ftz_) a = ftz_bits<F>(a);
  return a & kMagMask<F>;
}
/// ex2.approx / tanh.approx on a 16-bit format (computed in float, rounded with .rn).
template <class F, bool FTZ>
inline uint64_t half_ex2(uint64_t a) {
  a &= 0xffff;
  if constexpr (FTZ) a = ftz_bits<F>(a);
  uint64_t r = encode_rn<F>(std::exp2(double(half_to_float<F>(uint16_t(a)))));
  if constexpr (FTZ) r = ftz_bits<F>(r);
  return r;
}
template <class F>
inline uint64_t half_tanh(uint64_t a) {
  return encode_rn<F>(std::tanh(double(half_to_float<F>(uint16_t(a & 0xffff)))));
}

// ---- conversions -----------------------------------------------------------------------------

/// Rounds v to an integral value (v finite or not; exact in double, no FPU mode dependence).
inline double round_integral(double v, Round r) {
  switch (r) {
    case Round::rz:
      return std::trunc(v);
    case Round::rm:
      return std::floor(v);
    case Round::rp:
      return std::ceil(v);
    case Round::rna:
      return std::round(v);
    case Round::rn: {
      const double t = std::trunc(v);
      const double diff = v - t;  // exact
      const double ad = std::fabs(diff);
      if (ad > 0.5 || (ad == 0.5 && std::fmod(t, 2.0) != 0)) return t + (v < 0 ? -1.0 : 1.0);
      return t;
    }
  }
  return v;
}

/// Float-to-integer conversion (cvt.{rni,rzi,rmi,rpi}.<int>.<float>): round to integral,
/// clamp to the destination range. NaN gives 0, except when the source is f64 or the
/// destination is 64-bit, where it gives 1 << (bits - 1) (PTX ISA 9.7.9.21).
template <class I>
inline I float_to_int(double v, Round r, bool src_is_f64) {
  using L = std::numeric_limits<I>;
  if (v != v) {
    if (src_is_f64 || sizeof(I) == 8)
      return static_cast<I>(std::make_unsigned_t<I>(1) << (sizeof(I) * 8 - 1));
    return 0;
  }
  const double x = round_integral(v, r);
  // Bounds as doubles: min is exact (0 or -2^(n-1)); 2^n (resp. 2^(n-1)) bounds the max.
  const double lo = double(L::min());
  const double hi_excl = std::ldexp(1.0, std::numeric_limits<I>::digits);
  if (x <= lo) return L::min();
  if (x >= hi_excl) return L::max();
  return static_cast<I>(x);
}

/// Integer-to-float with rounding r, as bits of format F (exact software rounding).
template <class F>
inline uint64_t int_to_float_bits(bool neg, uint64_t mag, Round r) {
  return round_pack<F>(neg, mag, 0, false, r);
}
template <class F>
inline uint64_t s64_to_float_bits(int64_t v, Round r) {
  const bool neg = v < 0;
  return int_to_float_bits<F>(neg, neg ? 0 - uint64_t(v) : uint64_t(v), r);
}
template <class F>
inline uint64_t u64_to_float_bits(uint64_t v, Round r) {
  return int_to_float_bits<F>(false, v, r);
}

/// Integer-to-integer saturation: clamps v (as a value of the source type) to D's range.
template <class D, class S>
inline D sat_int(S v) {
  using LD = std::numeric_limits<D>;
  if constexpr (std::is_signed_v<S>) {
    const int64_t x = v;
    if constexpr (std::is_signed_v<D>) {
      if (x < int64_t(LD::min())) return LD::min();
      if (x > int64_t(LD::max())) return LD::max();
      return D(x);
    } else {
      if (x < 0) return 0;
      if (uint64_t(x) > uint64_t(LD::max())) return LD::max();
      return D(x);
    }
  } else {
    const uint64_t x = v;
    if (x > uint64_t(LD::max())) return LD::max();
    return D(x);
  }
}

// ---- runtime-mode wrappers (fp.cpp; for tests and tools, not the hot path) -------------------

float f32_add(float a, float b, Round r = Round::rn, bool ftz = false, bool sat = false);
float f32_sub(float a, float b, Round r = Round::rn, bool ftz = false, bool sat = false);
float f32_mul(float a, float b, Round r = Round::rn, bool ftz = false, bool sat = false);
float f32_fma(float a, float b, float c, Round r = Round::rn, bool ftz = false, bool sat = false);
float f32_div(float a, float b, Round r = Round::rn, bool ftz = false);
float f32_rcp(float a, Round r = Round::rn, bool ftz = false);
float f32_sqrt(float a, Round r = Round::rn, bool ftz = false);
double f64_add(double a, double b, Round r = Round::rn);
double f64_sub(double a, double b, Round r = Round::rn);
double f64_mul(double a, double b, Round r = Round::rn);
double f64_fma(double a, double b, double c, Round r = Round::rn);
double f64_div(double a, double b, Round r = Round::rn);
double f64_rcp(double a, Round r = Round::rn);
double f64_sqrt(double a, Round r = Round::rn);

/// f16 / bf16 arithmetic with .rn and optional .ftz/.sat/.relu (bits in, bits out).
uint16_t f16_add(uint16_t a, uint16_t b, bool ftz = false, bool sat = false);
uint16_t f16_sub(uint16_t a, uint16_t b, bool ftz = false, bool sat = false);
uint16_t f16_mul(uint16_t a, uint16_t b, bool ftz = false, bool sat = false);
uint16_t f16_fma(uint16_t a, uint16_t b, uint16_t c, bool ftz = false, bool sat = false,
                 bool relu = false);
uint16_t bf16_add(uint16_t a, uint16_t b);
uint16_t bf16_sub(uint16_t a, uint16_t b);
uint16_t bf16_mul(uint16_t a, uint16_t b);
uint16_t bf16_fma(uint16_t a, uint16_t b, uint16_t c, bool relu = false);

/// cvt float-to-int helpers with runtime rounding and .ftz (f32 source).
int32_t cvt_f32_to_s32(float v, Round r, bool ftz = false);
uint32_t cvt_f32_to_u32(float v, Round r, bool ftz = false);
int64_t cvt_f32_to_s64(float v, Round r, bool ftz = false);
uint64_t cvt_f32_to_u64(float v, Round r, bool ftz = false);
int32_t cvt_f64_to_s32(double v, Round r);
uint32_t cvt_f64_to_u32(double v, Round r);
int64_t cvt_f64_to_s64(double v, Round r);
uint64_t cvt_f64_to_u64(double v, Round r);
float cvt_u64_to_f32(uint64_t v, Round r);
float cvt_s64_to_f32(int64_t v, Round r);
double cvt_u64_to_f64(uint64_t v, Round r);
double cvt_s64_to_f64(int64_t v, Round r);
float cvt_s32_to_f32(int32_t v, Round r);

}  // namespace simtlab::func::fp
