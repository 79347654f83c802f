// vector_add: the simtlab demo. Adds two vectors on the (simulated) GPU, times the kernel with
// CUDA events, checks every element against the CPU and prints PASSED.
//
// Build: nvcc -cudart shared -o vector_add vector_add.cu
// Run:   simtlab run -- ./vector_add
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

// Abort with a message if a CUDA runtime call fails.
#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) {                                                    \
      printf("FAILED: %s: %s\n", #call, cudaGetErrorString(err_));                \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

// One thread per element: c[i] = a[i] + b[i]. The grid may have more threads than
// elements, so each thread checks that its index is in range.
__global__ void vectorAdd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 14;                       // 16384 elements
  const size_t bytes = n * sizeof(float);

  // Host data. The values are small binary fractions, so every sum is exact.
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = (float)(i % 1000) * 0.5f;
    b[i] = (float)(i / 1000) * 0.25f;
  }

  // Device buffers and input copies.
  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, bytes));
  CUDA_CHECK(cudaMalloc(&dB, bytes));
  CUDA_CHECK(cudaMalloc(&dC, bytes));
  CUDA_CHECK(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, b.data(), bytes, cudaMemcpyHostToDevice));

  // Launch enough 256-thread blocks to cover all elements, bracketed by events.
  const int threads = 256, blocks = (n + threads - 1) / threads;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  vectorAdd<<<blocks, threads>>>(dA, dB, dC, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

  // Copy the result back and verify it element by element.
  CUDA_CHECK(cudaMemcpy(c.data(), dC, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) {
      printf("FAILED: c[%d] = %f, expected %f\n", i, c[i], a[i] + b[i]);
      return 1;
    }
  }
  printf("vector_add: %d elements, %d blocks of %d threads\n", n, blocks, threads);
  for (int i : {0, 1, n / 2, n - 1}) printf("  c[%5d] = %8.2f + %6.2f = %8.2f\n", i, a[i], b[i], c[i]);
  printf("kernel time (events): %.3f ms\n", ms);

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  printf("PASSED\n");
  return 0;
}
