// launch_bounds: __launch_bounds__ with one and two arguments (.maxntid / .minnctapersm) and
// __maxnreg__ (.maxnreg), next to an unbounded kernel (compiled to PTX only).
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) bounded256(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) acc[k] = in[i] * (k + 1);
#pragma unroll
  for (int k = 1; k < 8; ++k) acc[0] += acc[k] * acc[k - 1];
  out[i] = acc[0];
}

__global__ void __launch_bounds__(128, 4) bounded128x4(const double* in, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double a = in[i], b = a * a, c = b * a, d = c * b;
  out[i] = a + b / 2 + c / 6 + d / 120;
}

__global__ void __launch_bounds__(1024, 1) bounded1024(int* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}

__global__ void __maxnreg__(32) maxReg32(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  out[i] = x * x * x + 2.0f * x;
}

// No bounds: contrast.
__global__ void unbounded(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1.0f;
}
