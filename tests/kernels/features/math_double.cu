// math_double: double-precision CUDA math library calls and correctly rounded intrinsics
// (compiled to PTX only).
#include <cuda_runtime.h>

__global__ void mathDouble1(const double* x, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i], w = x[(i + 1) % n];
  double* o = out + i * 32;
  o[0] = sin(v);   o[1] = cos(v);   o[2] = tan(v);   o[3] = asin(v * 0.5);
  o[4] = acos(v * 0.5); o[5] = atan(v); o[6] = atan2(v, w); o[7] = sinh(v);
  o[8] = cosh(v);  o[9] = tanh(v);  o[10] = asinh(v); o[11] = acosh(fabs(v) + 1.0);
  o[12] = atanh(v * 0.25); o[13] = exp(v); o[14] = exp2(v); o[15] = exp10(v);
  o[16] = expm1(v); o[17] = log(fabs(v) + 1e-3); o[18] = log2(fabs(v) + 1.0); o[19] = log10(fabs(v) + 1.0);
  o[20] = log1p(fabs(v)); o[21] = pow(fabs(v), w); o[22] = sqrt(fabs(v)); o[23] = cbrt(v);
  o[24] = rsqrt(fabs(v) + 1.0); o[25] = rcbrt(v + 3.0); o[26] = hypot(v, w); o[27] = erf(v);
  o[28] = erfc(v); o[29] = erfinv(v * 0.5); o[30] = lgamma(fabs(v) + 0.5); o[31] = tgamma(fabs(v) + 0.5);
}

__global__ void mathDouble2(const double* x, double* out, long long* iout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i], w = x[(i + 3) % n] + 0.5;
  double* o = out + i * 32;
  o[0] = fmod(v, w); o[1] = remainder(v, w); o[2] = fma(v, w, 1.0); o[3] = fmin(v, w);
  o[4] = fmax(v, w); o[5] = fdim(v, w); o[6] = floor(v); o[7] = ceil(v);
  o[8] = trunc(v); o[9] = round(v); o[10] = rint(v); o[11] = nearbyint(v);
  o[12] = copysign(v, w); o[13] = fabs(v); o[14] = ldexp(v, i % 8); int e; o[15] = frexp(v, &e);
  double ip; o[16] = modf(v, &ip); o[17] = ip; double s, c; sincos(v, &s, &c); o[18] = s + c;
  o[19] = normcdf(v); o[20] = normcdfinv(0.25 + 0.001 * (i % 100)); o[21] = erfcx(v); o[22] = j1(v);
  o[23] = y0(fabs(v) + 1.0); o[24] = scalbn(v, 3); o[25] = logb(v + 10.0); o[26] = nextafter(v, w);
  o[27] = sinpi(v); o[28] = cospi(v); o[29] = norm3d(v, w, 1.0); o[30] = rhypot(v, w); o[31] = remquo(v, w, &e) + e;
  long long* io = iout + i * 6;
  io[0] = e; io[1] = ilogb(v + 10.0); io[2] = isnan(v / w); io[3] = llrint(v * 1e6);
  io[4] = llround(v); io[5] = signbit(v) + isinf(v) * 2 + isfinite(v) * 4;
}

// Correctly rounded double intrinsics with explicit rounding modes.
__global__ void doubleIntrinsics(const double* x, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i], w = x[(i + 7) % n] + 1.5;
  double* o = out + i * 16;
  o[0] = __dadd_rn(v, w); o[1] = __dadd_rz(v, w); o[2] = __dadd_ru(v, w); o[3] = __dadd_rd(v, w);
  o[4] = __dmul_rn(v, w); o[5] = __dmul_rz(v, w); o[6] = __ddiv_rn(v, w); o[7] = __ddiv_ru(v, w);
  o[8] = __drcp_rn(w); o[9] = __drcp_rd(w); o[10] = __dsqrt_rn(fabs(v)); o[11] = __dsqrt_ru(fabs(v));
  o[12] = __fma_rn(v, w, 1.0); o[13] = __fma_rz(v, w, -1.0); o[14] = __dsub_rn(v, w); o[15] = __dsub_ru(v, w);
}
