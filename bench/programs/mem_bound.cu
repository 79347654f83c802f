// mem_bound: a memory-bound workload for simulator throughput (functional mode).
//
// Four streaming kernels in the style of the STREAM benchmark over three float arrays of N
// elements each (default 1M elements = 4 MB per array, 12 MB in total), repeated REPS times (default 8):
//   copy   c[i] = a[i]
//   scale  b[i] = s * c[i]
//   add    c[i] = a[i] + b[i]
//   triad  a[i] = b[i] + s * c[i]        (explicit fmaf)
// Grid-stride loops with 4-byte coalesced accesses: roughly one global load or store for every
// four instructions, so the simulator's memory path (address translation, per-lane accesses)
// dominates.
//
// Self-check: every element is recomputed on the CPU with the same float operations.
//
// Build: nvcc -cudart shared -o mem_bound mem_bound.cu
// Run:   simtlab run --mode functional -- ./mem_bound [N] [REPS]   (default 1048576 8)
#include <cmath>
#include <cstring>
#include <vector>

#include "bench_common.h"

__global__ void copyK(const float* a, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i];
}
__global__ void scaleK(float* b, const float* c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) b[i] = s * c[i];
}
__global__ void addK(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}
__global__ void triadK(float* a, const float* b, const float* c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = fmaf(s, c[i], b[i]);
}

int main(int argc, char** argv) {
  const int n = (int)arg_or(argc, argv, 1, 1 << 20);
  const int reps = (int)arg_or(argc, argv, 2, 8);
  const float s = 0.75f;
  const size_t bytes = (size_t)n * sizeof(float);

  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 1.0f + float(i % 4096) * (1.0f / 4096.0f);
    b[i] = 2.0f;
    c[i] = 0.0f;
  }
  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, bytes));
  CUDA_CHECK(cudaMalloc(&dB, bytes));
  CUDA_CHECK(cudaMalloc(&dC, bytes));
  CUDA_CHECK(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, b.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dC, c.data(), bytes, cudaMemcpyHostToDevice));

  const int threads = 256, blocks = 240;  // 16 resident warps' worth per SM on a 15-SM GPU
  for (int r = 0; r < reps; ++r) {
    copyK<<<blocks, threads>>>(dA, dC, n);
    scaleK<<<blocks, threads>>>(dB, dC, s, n);
    addK<<<blocks, threads>>>(dA, dB, dC, n);
    triadK<<<blocks, threads>>>(dA, dB, dC, s, n);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<float> ga(n), gb(n), gc(n);
  CUDA_CHECK(cudaMemcpy(ga.data(), dA, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(gb.data(), dB, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(gc.data(), dC, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float x = a[i], y = b[i], z = c[i];
    for (int r = 0; r < reps; ++r) {
      z = x;
      y = s * z;
      z = x + y;
      x = fmaf(s, z, y);
    }
    if (std::memcmp(&x, &ga[i], 4) || std::memcmp(&y, &gb[i], 4) || std::memcmp(&z, &gc[i], 4)) {
      printf("FAILED: element %d: got (%.9g, %.9g, %.9g), expected (%.9g, %.9g, %.9g)\n", i, ga[i], gb[i], gc[i],
             x, y, z);
      return 1;
    }
  }
  const double moved = (double)reps * (2 + 2 + 3 + 3) * bytes;
  printf("mem_bound: %d floats per array, %d repetitions of copy/scale/add/triad, %.1f MB moved\n", n, reps,
         moved / 1e6);
  printf("  all %d elements of a, b, c match the CPU\n", n);
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  printf("PASSED\n");
  return 0;
}
