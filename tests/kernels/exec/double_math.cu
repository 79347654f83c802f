// double_math: correctly rounded double arithmetic (explicit _rn intrinsics, so no contraction),
// fma, sqrt, division, and library functions (compared with a tolerance). Host reference:
// ref_double_math.
#include <cuda_runtime.h>

extern "C" __global__ void double_math(const double* a, const double* b, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double x = a[i], y = b[i];
  double* o = out + 10 * i;
  o[0] = __dadd_rn(x, y);
  o[1] = __dmul_rn(x, y);
  o[2] = __ddiv_rn(x, y);
  o[3] = __fma_rn(x, y, -1.5);
  o[4] = __dsqrt_rn(fabs(x));
  o[5] = fmin(x, y) - fmax(x, y);
  o[6] = exp(x / 64.0);
  o[7] = sin(y);
  o[8] = log1p(fabs(y));
  o[9] = floor(x) + trunc(y) + (double)(long long)(x * 4.0);
}
