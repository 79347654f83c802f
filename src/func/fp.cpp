// Runtime-mode wrappers around the fp.h kernels (tests and tools). Compiled with
// -frounding-math; the lane handlers use the templates directly.
#include "func/fp.h"

namespace simtlab::func::fp {

namespace {

/// Keeps `v` in memory across the barrier so the compiler cannot move the arithmetic that
/// produces or consumes it across the fesetround calls around it.
template <class T>
inline T opaque(T v) {
  asm volatile("" : "+m"(v) : : "memory");
  return v;
}

class ScopedRound {
 public:
  explicit ScopedRound(Round r) : on_(r == Round::rz || r == Round::rm || r == Round::rp) {
    if (on_) std::fesetround(fe_mode(r));
  }
  ~ScopedRound() {
    if (on_) std::fesetround(FE_TONEAREST);
  }
  ScopedRound(const ScopedRound&) = delete;
  ScopedRound& operator=(const ScopedRound&) = delete;

 private:
  bool on_;
};

uint32_t post32(float r, bool z, bool s) {
  if (z) return s ? out32<true, true>(r) : out32<true, false>(r);
  return s ? out32<false, true>(r) : out32<false, false>(r);
}

template <class Op>
float bin32(float a, float b, Round r, bool z, bool s) {
  float x = z ? ftz(a) : a, y = z ? ftz(b) : b, res;
  {
    ScopedRound g(r);
    x = opaque(x);
    y = opaque(y);
    res = opaque(Op::f(x, y));
  }
  return f32_of(post32(res, z, s));
}

template <class Op>
float un32(float a, Round r, bool z) {
  float x = z ? ftz(a) : a, res;
  {
    ScopedRound g(r);
    x = opaque(x);
    res = opaque(Op::f(x));
  }
  return f32_of(post32(res, z, false));
}

template <class Op>
double bin64(double a, double b, Round r) {
  double res;
  {
    ScopedRound g(r);
    a = opaque(a);
    b = opaque(b);
    res = opaque(Op::f(a, b));
  }
  return res != res ? f64_of(nan64(a, b)) : res;
}

template <class Op>
double un64(double a, Round r) {
  double res;
  {
    ScopedRound g(r);
    a = opaque(a);
    res = opaque(Op::f(a));
  }
  return res != res ? f64_of(nan64(a)) : res;
}

}  // namespace

float f32_add(float a, float b, Round r, bool z, bool s) { return bin32<OpAdd>(a, b, r, z, s); }
float f32_sub(float a, float b, Round r, bool z, bool s) { return bin32<OpSub>(a, b, r, z, s); }
float f32_mul(float a, float b, Round r, bool z, bool s) { return bin32<OpMul>(a, b, r, z, s); }
float f32_div(float a, float b, Round r, bool z) { return bin32<OpDiv>(a, b, r, z, false); }
float f32_rcp(float a, Round r, bool z) { return un32<OpRcp>(a, r, z); }
float f32_sqrt(float a, Round r, bool z) { return un32<OpSqrt>(a, r, z); }

float f32_fma(float a, float b, float c, Round r, bool z, bool s) {
  float x = z ? ftz(a) : a, y = z ? ftz(b) : b, w = z ? ftz(c) : c, res;
  {
    ScopedRound g(r);
    x = opaque(x);
    y = opaque(y);
    w = opaque(w);
    res = opaque(std::fma(x, y, w));
  }
  return f32_of(post32(res, z, s));
}

double f64_add(double a, double b, Round r) { return bin64<OpAdd>(a, b, r); }
double f64_sub(double a, double b, Round r) { return bin64<OpSub>(a, b, r); }
double f64_mul(double a, double b, Round r) { return bin64<OpMul>(a, b, r); }
double f64_div(double a, double b, Round r) { return bin64<OpDiv>(a, b, r); }
double f64_rcp(double a, Round r) { return un64<OpRcp>(a, r); }
double f64_sqrt(double a, Round r) { return un64<OpSqrt>(a, r); }

double f64_fma(double a, double b, double c, Round r) {
  double res;
  {
    ScopedRound g(r);
    a = opaque(a);
    b = opaque(b);
    c = opaque(c);
    res = opaque(std::fma(a, b, c));
  }
  return res != res ? f64_of(nan64(a, b, c)) : res;
}

// ---- 16-bit ----------------------------------------------------------------------------------

uint16_t f16_add(uint16_t a, uint16_t b, bool z, bool s) {
  if (z)
    return uint16_t(s ? half_add<FmtF16, kHalfFtz | kHalfSat>(a, b)
                      : half_add<FmtF16, kHalfFtz>(a, b));
  return uint16_t(s ? half_add<FmtF16, kHalfSat>(a, b) : half_add<FmtF16, 0>(a, b));
}
uint16_t f16_sub(uint16_t a, uint16_t b, bool z, bool s) {
  if (z)
    return uint16_t(s ? half_sub<FmtF16, kHalfFtz | kHalfSat>(a, b)
                      : half_sub<FmtF16, kHalfFtz>(a, b));
  return uint16_t(s ? half_sub<FmtF16, kHalfSat>(a, b) : half_sub<FmtF16, 0>(a, b));
}
uint16_t f16_mul(uint16_t a, uint16_t b, bool z, bool s) {
  if (z)
    return uint16_t(s ? half_mul<FmtF16, kHalfFtz | kHalfSat>(a, b)
                      : half_mul<FmtF16, kHalfFtz>(a, b));
  return uint16_t(s ? half_mul<FmtF16, kHalfSat>(a, b) : half_mul<FmtF16, 0>(a, b));
}
uint16_t f16_fma(uint16_t a, uint16_t b, uint16_t c, bool z, bool s, bool relu) {
  // .sat and .relu are exclusive in the ISA; .relu wins here.
  if (relu)
    return uint16_t(z ? half_fma<FmtF16, kHalfFtz | kHalfRelu>(a, b, c)
                      : half_fma<FmtF16, kHalfRelu>(a, b, c));
  if (z)
    return uint16_t(s ? half_fma<FmtF16, kHalfFtz | kHalfSat>(a, b, c)
                      : half_fma<FmtF16, kHalfFtz>(a, b, c));
  return uint16_t(s ? half_fma<FmtF16, kHalfSat>(a, b, c) : half_fma<FmtF16, 0>(a, b, c));
}
uint16_t bf16_add(uint16_t a, uint16_t b) { return uint16_t(half_add<FmtBF16, 0>(a, b)); }
uint16_t bf16_sub(uint16_t a, uint16_t b) { return uint16_t(half_sub<FmtBF16, 0>(a, b)); }
uint16_t bf16_mul(uint16_t a, uint16_t b) { return uint16_t(half_mul<FmtBF16, 0>(a, b)); }
uint16_t bf16_fma(uint16_t a, uint16_t b, uint16_t c, bool relu) {
  return uint16_t(relu ? half_fma<FmtBF16, kHalfRelu>(a, b, c) : half_fma<FmtBF16, 0>(a, b, c));
}

// ---- conversions -----------------------------------------------------------------------------

int32_t cvt_f32_to_s32(float v, Round r, bool z) {
  return float_to_int<int32_t>(z ? ftz(v) : v, r, false);
}
uint32_t cvt_f32_to_u32(float v, Round r, bool z) {
  return float_to_int<uint32_t>(z ? ftz(v) : v, r, false);
}
int64_t cvt_f32_to_s64(float v, Round r, bool z) {
  return float_to_int<int64_t>(z ? ftz(v) : v, r, false);
}
uint64_t cvt_f32_to_u64(float v, Round r, bool z) {
  return float_to_int<uint64_t>(z ? ftz(v) : v, r, false);
}
int32_t cvt_f64_to_s32(double v, Round r) { return float_to_int<int32_t>(v, r, true); }
uint32_t cvt_f64_to_u32(double v, Round r) { return float_to_int<uint32_t>(v, r, true); }
int64_t cvt_f64_to_s64(double v, Round r) { return float_to_int<int64_t>(v, r, true); }
uint64_t cvt_f64_to_u64(double v, Round r) { return float_to_int<uint64_t>(v, r, true); }
float cvt_u64_to_f32(uint64_t v, Round r) {
  return f32_of(uint32_t(u64_to_float_bits<FmtF32>(v, r)));
}
float cvt_s64_to_f32(int64_t v, Round r) {
  return f32_of(uint32_t(s64_to_float_bits<FmtF32>(v, r)));
}
double cvt_u64_to_f64(uint64_t v, Round r) { return f64_of(u64_to_float_bits<FmtF64>(v, r)); }
double cvt_s64_to_f64(int64_t v, Round r) { return f64_of(s64_to_float_bits<FmtF64>(v, r)); }
float cvt_s32_to_f32(int32_t v, Round r) {
  return f32_of(uint32_t(s64_to_float_bits<FmtF32>(v, r)));
}

}  // namespace simtlab::func::fp
