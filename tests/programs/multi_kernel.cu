// multi_kernel: five kernels and a dozen launches that depend on each other through device
// memory (init -> 5x saxpy -> square -> two-pass block reduction). All values are small
// integers, so float arithmetic is exact and the result can be compared exactly.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void initKernel(float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { x[i] = (float)(i % 17); y[i] = (float)(i % 5); }
}

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void squareToInt(const float* y, int* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { int v = (int)y[i]; z[i] = v * v; }
}

__global__ void negate(int* z, int n) {  // applied twice: the identity
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) z[i] = -z[i];
}

// One partial sum per block (blockDim.x must be 256).
__global__ void blockSum(const int* in, int* out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

int main() {
  const int n = 4096, T = 256, B = n / T, iters = 5;
  float *x, *y; int *z, *partial, *total;
  CK(cudaMalloc(&x, n * sizeof(float))); CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMalloc(&z, n * sizeof(int))); CK(cudaMalloc(&partial, B * sizeof(int)));
  CK(cudaMalloc(&total, sizeof(int)));
  int launches = 0;
  initKernel<<<B, T>>>(x, y, n); ++launches;
  for (int it = 0; it < iters; ++it) { saxpy<<<B, T>>>(2.0f, x, y, n); ++launches; }
  squareToInt<<<B, T>>>(y, z, n); ++launches;
  negate<<<4, 128>>>(z, n); ++launches;   // grid-stride loops
  negate<<<3, 64>>>(z, n); ++launches;
  blockSum<<<B, T>>>(z, partial, n); ++launches;
  blockSum<<<1, T>>>(partial, total, B); ++launches;
  CK(cudaGetLastError());

  std::vector<int> hz(n), hp(B); int ht = 0;
  CK(cudaMemcpy(hz.data(), z, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hp.data(), partial, B * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&ht, total, sizeof(int), cudaMemcpyDeviceToHost));

  long long ref = 0;
  std::vector<int> refp(B, 0);
  for (int i = 0; i < n; ++i) {
    int v = i % 5 + iters * 2 * (i % 17);
    if (hz[i] != v * v) { printf("FAILED: z[%d] = %d, expected %d\n", i, hz[i], v * v); return 1; }
    refp[i / T] += v * v; ref += v * v;
  }
  for (int b = 0; b < B; ++b)
    if (hp[b] != refp[b]) { printf("FAILED: partial[%d] = %d, expected %d\n", b, hp[b], refp[b]); return 1; }
  if (ht != ref) { printf("FAILED: total = %d, expected %lld\n", ht, ref); return 1; }
  printf("multi_kernel: %d launches, 5 kernels, n=%d\n", launches, n);
  printf("partial[0]=%d partial[%d]=%d total=%d\n", hp[0], B - 1, hp[B - 1], ht);
  cudaFree(x); cudaFree(y); cudaFree(z); cudaFree(partial); cudaFree(total);
  printf("PASSED\n");
  return 0;
}
