// math_float: single-precision CUDA math library calls and fast intrinsics (compiled to PTX only).
#include <cuda_runtime.h>

__global__ void mathFloat1(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], w = x[(i + 1) % n];
  float* o = out + i * 32;
  o[0] = sinf(v);   o[1] = cosf(v);   o[2] = tanf(v);   o[3] = asinf(v * 0.5f);
  o[4] = acosf(v * 0.5f); o[5] = atanf(v); o[6] = atan2f(v, w); o[7] = sinhf(v);
  o[8] = coshf(v);  o[9] = tanhf(v);  o[10] = asinhf(v); o[11] = acoshf(fabsf(v) + 1.0f);
  o[12] = atanhf(v * 0.25f); o[13] = expf(v); o[14] = exp2f(v); o[15] = exp10f(v);
  o[16] = expm1f(v); o[17] = logf(fabsf(v) + 1e-3f); o[18] = log2f(fabsf(v) + 1.0f); o[19] = log10f(fabsf(v) + 1.0f);
  o[20] = log1pf(fabsf(v)); o[21] = powf(fabsf(v), w); o[22] = sqrtf(fabsf(v)); o[23] = cbrtf(v);
  o[24] = rsqrtf(fabsf(v) + 1.0f); o[25] = rcbrtf(v + 3.0f); o[26] = hypotf(v, w); o[27] = erff(v);
  o[28] = erfcf(v); o[29] = erfinvf(v * 0.5f); o[30] = lgammaf(fabsf(v) + 0.5f); o[31] = tgammaf(fabsf(v) + 0.5f);
}

__global__ void mathFloat2(const float* x, float* out, int* iout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], w = x[(i + 3) % n] + 0.5f;
  float* o = out + i * 32;
  o[0] = fmodf(v, w); o[1] = remainderf(v, w); o[2] = fmaf(v, w, 1.0f); o[3] = fminf(v, w);
  o[4] = fmaxf(v, w); o[5] = fdimf(v, w); o[6] = floorf(v); o[7] = ceilf(v);
  o[8] = truncf(v); o[9] = roundf(v); o[10] = rintf(v); o[11] = nearbyintf(v);
  o[12] = copysignf(v, w); o[13] = fabsf(v); o[14] = ldexpf(v, i % 8); int e; o[15] = frexpf(v, &e);
  float ip; o[16] = modff(v, &ip); o[17] = ip; float s, c; sincosf(v, &s, &c); o[18] = s + c;
  o[19] = normcdff(v); o[20] = normcdfinvf(0.25f + 0.001f * (i % 100)); o[21] = erfcxf(v); o[22] = j0f(v);
  o[23] = y1f(fabsf(v) + 1.0f); o[24] = scalbnf(v, 3); o[25] = logbf(v + 10.0f); o[26] = nextafterf(v, w);
  o[27] = sinpif(v); o[28] = cospif(v); o[29] = norm3df(v, w, 1.0f); o[30] = rhypotf(v, w); o[31] = cyl_bessel_i0f(v);
  int* io = iout + i * 8;
  io[0] = e; io[1] = ilogbf(v + 10.0f); io[2] = isnan(v / w); io[3] = isinf(v / (w - w));
  io[4] = signbit(v); io[5] = isfinite(v); io[6] = lrintf(v); io[7] = (int)llroundf(v * 100.0f);
}

__global__ void fastIntrinsics(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], w = x[(i + 5) % n] + 2.0f;
  float* o = out + i * 24;
  o[0] = __expf(v); o[1] = __exp10f(v); o[2] = __logf(w); o[3] = __log2f(w);
  o[4] = __log10f(w); o[5] = __sinf(v); o[6] = __cosf(v); o[7] = __tanf(v);
  o[8] = __powf(w, v); o[9] = __fdividef(v, w); o[10] = __frcp_rn(w); o[11] = __fsqrt_rn(w);
  o[12] = __frsqrt_rn(w); o[13] = __saturatef(v); o[14] = __fadd_rz(v, w); o[15] = __fsub_ru(v, w);
  o[16] = __fmul_rd(v, w); o[17] = __fdiv_rn(v, w); o[18] = __fmaf_rz(v, w, 1.0f); o[19] = __fadd_rn(v, w);
  o[20] = __frcp_ru(w); o[21] = __fsqrt_rd(w); o[22] = __fdiv_rz(v, w); o[23] = __fmaf_ieee_rn(v, w, v);
  float s, c; __sincosf(v, &s, &c); o[0] += s * c;
}
