// conversions: float <-> integer conversions with every rounding intrinsic (__float2int_rn/rz/
// ru/rd, uint, ll, ull), int -> float with rounding modes, saturating conversions to narrow
// types, float <-> double, reinterpretation (__float_as_int, __int_as_float, __float_as_uint),
// and implicit C++ conversions between all integer widths (sign/zero extension, truncation)
// (compiled to PTX only).
#include <cuda_runtime.h>

__global__ void floatToInt(const float* in, int* out, long long* lout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  int* o = out + i * 12;
  o[0] = (int)x; o[1] = __float2int_rn(x); o[2] = __float2int_rz(x); o[3] = __float2int_ru(x);
  o[4] = __float2int_rd(x); o[5] = (int)__float2uint_rn(fabsf(x)); o[6] = (int)__float2uint_rz(fabsf(x));
  o[7] = (int)(unsigned)fabsf(x); o[8] = __float_as_int(x); o[9] = (int)__float_as_uint(-x);
  o[10] = (int)(short)x + (int)(unsigned char)x + (int)(signed char)x;
  o[11] = (int)rintf(x) + (int)lroundf(x);
  long long* l = lout + i * 6;
  l[0] = (long long)x; l[1] = __float2ll_rn(x * 1e6f); l[2] = __float2ll_rz(x); l[3] = __float2ll_ru(x);
  l[4] = (long long)__float2ull_rd(fabsf(x) * 1e10f); l[5] = (long long)(unsigned long long)fabsf(x);
}

__global__ void intToFloat(const int* in, const long long* lin, float* out, double* dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i]; long long lv = lin[i];
  float* o = out + i * 10;
  o[0] = (float)v; o[1] = __int2float_rz(v); o[2] = __int2float_ru(v); o[3] = __int2float_rd(v);
  o[4] = __uint2float_rn((unsigned)v); o[5] = __ll2float_rn(lv); o[6] = __ll2float_rz(lv);
  o[7] = __ull2float_ru((unsigned long long)lv); o[8] = __int_as_float(v); o[9] = __uint_as_float((unsigned)v ^ 0x80000000u);
  double* d = dout + i * 4;
  d[0] = (double)o[0]; d[1] = (double)lv; d[2] = (double)(unsigned long long)lv; d[3] = (double)(float)(double)lv;
}

__global__ void intWidths(const long long* in, long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v = in[i];
  signed char c = (signed char)v; unsigned char uc = (unsigned char)v;
  short s = (short)v; unsigned short us = (unsigned short)v;
  int w = (int)v; unsigned uw = (unsigned)v;
  bool b = v != 0;
  long long* o = out + i * 8;
  o[0] = c; o[1] = uc; o[2] = s; o[3] = us; o[4] = w; o[5] = uw; o[6] = b;
  o[7] = (long long)(c * uc) + (long long)(s * us) + (long long)w * uw + (c < uc) + (s < (short)us);
}

// Saturating narrow conversions via inline PTX (cvt.sat).
__global__ void saturating(const float* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  int a, b;
  float c;
  asm("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(a) : "f"(x));
  asm("cvt.rzi.sat.u16.f32 %0, %1;" : "=r"(b) : "f"(x));
  asm("cvt.sat.f32.f32 %0, %1;" : "=f"(c) : "f"(x));
  out[i] = a + b + (int)(c * 100.0f);
}
