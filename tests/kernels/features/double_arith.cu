// double_arith: double arithmetic (add/sub/mul/div/fma chains, comparisons, selects, NaN/inf
// handling), conversions between double and float/int/long long with rounding modes, and
// reinterpretation intrinsics (compiled to PTX only).
#include <cuda_runtime.h>

__global__ void doubleArith(const double* a, const double* b, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i];
  double s = x + y, d = x - y, m = x * y, q = x / (y + 1.0);
  double poly = ((x * 0.5 + 1.25) * x - 3.0) * x + 7.0;   // contracts to fma chains
  double sel = x > y ? s : (x < y ? d : m);
  double neg = -x, ab = fabs(d);
  double mn = fmin(x, y), mx = fmax(x, y);
  bool unordered = x != x || y != y;
  out[i] = s + d + m + q + poly + sel + neg + ab + mn + mx + (unordered ? 1.0 : 0.0);
  out[n + i] = x == y ? 0.0 : 1.0 / (x - y);               // may produce inf
}

__global__ void doubleConvert(const double* a, float* f, int* si, unsigned* ui, long long* sl,
                              unsigned long long* ul, double* back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i];
  f[i * 4 + 0] = (float)x;
  f[i * 4 + 1] = __double2float_rz(x);
  f[i * 4 + 2] = __double2float_ru(x);
  f[i * 4 + 3] = __double2float_rd(x);
  si[i * 4 + 0] = (int)x;
  si[i * 4 + 1] = __double2int_rn(x);
  si[i * 4 + 2] = __double2int_ru(x);
  si[i * 4 + 3] = __double2int_rd(x);
  ui[i * 2 + 0] = (unsigned)fabs(x);
  ui[i * 2 + 1] = __double2uint_rn(fabs(x));
  sl[i * 2 + 0] = (long long)(x * 1e9);
  sl[i * 2 + 1] = __double2ll_rn(x * 1e12);
  ul[i * 2 + 0] = (unsigned long long)fabs(x * 1e15);
  ul[i * 2 + 1] = __double2ull_rz(fabs(x));
  long long bits = __double_as_longlong(x);
  int hi = __double2hiint(x), lo = __double2loint(x);
  back[i * 6 + 0] = __longlong_as_double(bits ^ (1LL << 63));
  back[i * 6 + 1] = __hiloint2double(hi, lo);
  back[i * 6 + 2] = (double)(i - 100) + __int2double_rn(hi);
  back[i * 6 + 3] = __ll2double_rn(bits >> 12) + __ll2double_rz(bits) + __ull2double_ru((unsigned long long)bits);
  back[i * 6 + 4] = __uint2double_rn((unsigned)lo) + (double)(float)x;
  back[i * 6 + 5] = (double)(unsigned long long)bits + (double)(short)i + (double)(unsigned char)i;
}
