// sgemm: C = alpha * A * B + beta * C with a shared-memory tiled kernel (16x16 tiles, one output
// element per thread; 8x8 tiles on GPUs whose SMs cannot hold a 256-thread block of it, such
// as the Tesla-like preset with 4096 registers per SM). Row-major matrices of any size (partial tiles are zero-padded).
// Self-checking against a double-precision CPU reference with a rigorous float error bound.
//
// Build: nvcc -cudart shared -o sgemm sgemm.cu
// Run:   simtlab run -- ./sgemm [M N K]     (default 128 128 128)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) {                                                    \
      printf("FAILED: %s: %s\n", #call, cudaGetErrorString(err_));                \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

// A is MxK, B is KxN, C is MxN. Block (TILE, TILE) computes one TILE x TILE tile of C.
template <int TILE>
__global__ void sgemmTiled(int M, int N, int K, float alpha, const float* A, const float* B,
                           float beta, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    // Each thread loads one element of the A tile and one of the B tile (0 outside the matrix).
    As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();   // the tiles are overwritten in the next iteration
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

int main(int argc, char** argv) {
  int M = 128, N = 128, K = 128;
  if (argc == 4) { M = atoi(argv[1]); N = atoi(argv[2]); K = atoi(argv[3]); }
  if (M <= 0 || N <= 0 || K <= 0) { printf("FAILED: bad sizes\n"); return 1; }
  const float alpha = 1.5f, beta = -0.5f;

  // Deterministic pseudo-random inputs in [-1, 1).
  std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N), C0;
  unsigned seed = 12345u;
  auto rnd = [&seed]() { seed = seed * 1664525u + 1013904223u; return (float)(seed >> 8) / 8388608.0f - 1.0f; };
  for (float& x : A) x = rnd();
  for (float& x : B) x = rnd();
  for (float& x : C) x = rnd();
  C0 = C;

  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));

  // Use 16x16 tiles when an SM can hold such a block, else 8x8.
  cudaFuncAttributes fa;
  CUDA_CHECK(cudaFuncGetAttributes(&fa, sgemmTiled<16>));
  int dev = 0, regsPerSm = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&regsPerSm, cudaDevAttrMaxRegistersPerMultiprocessor, dev));
  const int TILE = fa.numRegs * 256 <= regsPerSm && fa.maxThreadsPerBlock >= 256 ? 16 : 8;
  dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  if (TILE == 16) sgemmTiled<16><<<grid, block>>>(M, N, K, alpha, dA, dB, beta, dC);
  else sgemmTiled<8><<<grid, block>>>(M, N, K, alpha, dA, dB, beta, dC);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // Reference in double. Float summation of K products has error at most about
  // (K + 2) * 2^-24 * sum|terms|; allow that plus a tiny absolute slack.
  double maxErr = 0.0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0.0, mag = 0.0;
      for (int k = 0; k < K; ++k) {
        double p = (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
        ref += p; mag += std::fabs(p);
      }
      double c0 = C0[(size_t)i * N + j];
      double full = alpha * ref + beta * c0;
      double tol = (K + 4) * 1.2e-7 * (std::fabs(alpha) * mag + std::fabs(beta * c0)) + 1e-6;
      double err = std::fabs(C[(size_t)i * N + j] - full);
      if (!(err <= tol)) {
        printf("FAILED: C[%d][%d] = %.7f, expected %.7f (tolerance %.2e)\n", i, j, C[(size_t)i * N + j], full, tol);
        return 1;
      }
      if (err > maxErr) maxErr = err;
    }
  printf("sgemm: M=%d N=%d K=%d, %dx%d tiles, grid %dx%d\n", M, N, K, TILE, TILE, grid.x, grid.y);
  printf("  all %d elements within tolerance of the CPU reference\n", M * N);
  printf("  kernel time (events): %.3f ms (%.2f GFLOP/s)\n", ms, ms > 0 ? 2.0 * M * N * K / (ms * 1e6) : 0.0);

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  printf("PASSED\n");
  return 0;
}
