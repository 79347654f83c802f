// half_bf16: __half / __half2 and __nv_bfloat16 / __nv_bfloat162 arithmetic, comparisons,
// conversions (with rounding modes), packing/unpacking, half math functions and fused
// multiply-add, plus the integer conversions (compiled to PTX only, default arch sm_75, where
// bf16 arithmetic is emulated; see bf16_sm80.cu for the native sm_80 forms).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void halfArith(const __half* a, const __half* b, __half* out, float* fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i], y = b[i];
  __half s = x + y, d = x - y, m = x * y, q = x / y;
  __half f = __hfma(x, y, s);
  __half r = __hadd_sat(x, y) + __hmul_sat(x, y) + __hneg(x) + __habs(d);
  __half mn = __hmin(x, y), mx = __hmax(x, y);
  bool lt = x < y, eq = __heq(x, y), nan = __hisnan(q), inf = __hisinf(q);
  __half mathv = hsqrt(__habs(x)) + hexp(y) + hlog(__habs(x) + __float2half(1.0f)) + hsin(x) + hcos(y) + hrcp(y) + hfloor(x) + hceil(y);
  out[i] = s + d + m + q + f + r + mn + mx + mathv;
  fout[i] = __half2float(out[i]) + lt + eq * 2 + nan * 4 + inf * 8 + __half2float(__float2half_rz(1.0f / 3.0f)) +
            __half2float(__float2half_ru(0.1f)) + __half2float(__float2half_rd(0.1f)) +
            __half2int_rn(x) + __half2uint_rz(__habs(y)) + __half2short_rn(m) + __half2ll_rz(s) +
            __half2float(__int2half_rn(i)) + __half2float(__uint2half_rn(i * 3)) + __half2float(__short2half_rn((short)-i)) +
            __half_as_ushort(x) + __half2float(__ushort_as_half((unsigned short)(0x3c00 + (i & 0xff))));
}

__global__ void half2Arith(const __half2* a, const __half2* b, __half2* out, float2* fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = a[i], y = b[i];
  __half2 s = __hadd2(x, y), m = __hmul2(x, y), f = __hfma2(x, y, s), d = __h2div(x, y);
  __half2 sw = __lowhigh2highlow(x), lo = __low2half2(x), hi = __high2half2(y);
  __half2 cmp = __hlt2(x, y);
  __half2 mx = __hmax2(x, y), mn = __hmin2(x, y), ng = __hneg2(x), sat = __hadd2_sat(x, y);
  __half2 fn = h2sqrt(__habs2(x)) + h2exp(y) + h2sin(x);
  out[i] = s + m + f + d + sw + lo + hi + cmp + mx + mn + ng + sat + fn;
  float2 ff = __half22float2(out[i]);
  ff.x += __low2float(x) + __high2float(y) + __hbeq2(x, y) + __hbgt2(x, y);
  __half2 packed = __floats2half2_rn(ff.x, ff.y);
  __half2 pk2 = __halves2half2(__low2half(packed), __high2half(x));
  fout[i] = __half22float2(__hmul2(pk2, __float2half2_rn(0.5f)));
}

__global__ void bf16Arith(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* out,
                          const __nv_bfloat162* a2, __nv_bfloat162* out2, float* fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 x = a[i], y = b[i];
  __nv_bfloat16 s = x + y, d = x - y, m = x * y, q = x / y;
  __nv_bfloat16 f = s * x + y;          // no bf16 fma before sm_80: emulated through float
  __nv_bfloat16 mx = __hmax(x, y), mn = __hmin(x, y), ab = __habs(d), ng = __hneg(x);
  out[i] = s + d + m + q + f + mx + mn + ab + ng + hsqrt(ab) + hexp(mn);
  __nv_bfloat162 v = a2[i];
  __nv_bfloat162 w = __hmul2(v, v) + v;
  out2[i] = w;
  fout[i] = __bfloat162float(out[i]) + __low2float(w) + __high2float(w) + (x < y) + __hisnan(q) +
            __bfloat162float(__float2bfloat16_rz(1.0f / 3.0f)) + __bfloat162float(__float2bfloat16_rn(0.1f)) +
            __bfloat162int_rn(x) + __bfloat162float(__int2bfloat16_rn(i)) + __bfloat16_as_ushort(y) +
            __bfloat162float(__double2bfloat16(1.0 / 7.0)) + __half2float(__float2half(__bfloat162float(x)));
}
