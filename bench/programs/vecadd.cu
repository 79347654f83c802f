// vecadd: bench-sized vector add for the timing-mode simulation rate.
//
// c[i] = a[i] + b[i], one element per thread, 256-thread CTAs, N elements (default 2M, i.e.
// 8192 CTAs and 65536 warps of 4-byte coalesced loads and stores). Short-lived warps with two
// loads and one store each: CTA dispatch and DRAM traffic dominate the simulated time.
//
// Build: nvcc -cudart shared -o vecadd vecadd.cu
// Run:   simtlab run -- ./vecadd [N]   (default 2097152)
#include <vector>

#include "bench_common.h"

__global__ void vecAdd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  const int n = (int)arg_or(argc, argv, 1, 1 << 21);
  const size_t bytes = (size_t)n * sizeof(float);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = (float)(i % 1000) * 0.5f;   // small binary fractions: every sum is exact
    b[i] = (float)(i / 1000 % 1000) * 0.25f;
  }
  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, bytes));
  CUDA_CHECK(cudaMalloc(&dB, bytes));
  CUDA_CHECK(cudaMalloc(&dC, bytes));
  CUDA_CHECK(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, b.data(), bytes, cudaMemcpyHostToDevice));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  vecAdd<<<blocks, threads>>>(dA, dB, dC, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(c.data(), dC, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) {
      printf("FAILED: c[%d] = %f, expected %f\n", i, c[i], a[i] + b[i]);
      return 1;
    }
  printf("vecadd: %d elements, %d blocks of %d threads\n", n, blocks, threads);
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  printf("PASSED\n");
  return 0;
}
