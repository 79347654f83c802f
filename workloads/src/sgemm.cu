// sgemm: C = alpha * A * B^T + beta * C in single precision, A (m x k) column-major, B (n x k)
// column-major (so B^T is k x n: the "NT" case), C (m x n) column-major.
// Register tiling (Volkov & Demmel, "Benchmarking GPUs to tune dense linear algebra", SC'08,
// as used by Parboil's sgemm): a block of TILE_M = 128 threads computes a 128 x 16 tile of C;
// thread t owns row t of the tile and keeps its 16 C values in registers. For each step of
// TILE_TB_HEIGHT = 8 along k, the block stages the 8 x 16 slice of B^T in shared memory
// (one element per thread), each thread loads its 8 values of A (one column of A per k),
// and does 8 x 16 multiply-adds from registers and shared memory.
// Analog of: Parboil sgemm, kernel mysgemmNT, thesis Table 2.1 (Ch. 2 Set-1), Table 4.3 #18
// (label SGEMM).
// Profile: 128 threads and 48 registers/thread (thesis Table 2.1; 5 blocks/SM in Table 2.6,
// i.e. 43..50 registers on fermi-c2050); shared b_s[TILE_TB_HEIGHT][TILE_N] = 8 x 16 floats
// = 512 B, TILE_N 16, TILE_TB_HEIGHT 8, TILE_M 128 as published for Parboil's mysgemmNT.
// Registers: ptxas (sm_75) gives the natural code 63 registers (it hoists the 8 A loads and
// the shared-memory B values of a step into registers); the file caps it at 48 with
// -maxrregcount=48 (ptxas then reports an 8-byte stack, i.e. a small spill), giving 5
// blocks/SM as in the thesis.
// Usage: sgemm [m] [n] [k]   (m multiple of 128, n of 16, k of 8; default 640 224 144 ->
//        5 x 14 = 70 blocks, 5 per SM; scaled run 1280 448 768)
// Check: exact. A, B, C are small integers and alpha = 0.5, beta = 2, so every product and
//        partial sum is an integer (or half-integer) far below 2^24: exact in float in any
//        order, with or without FMA.
// nvcc-flags: -maxrregcount=48
#include <vector>

#include "wl.h"

#define TILE_N 16
#define TILE_TB_HEIGHT 8
#define TILE_M (TILE_N * TILE_TB_HEIGHT)

__global__ void mysgemmNT(const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                          int k, float alpha, float beta) {
  __shared__ float b_s[TILE_TB_HEIGHT][TILE_N];
  float c[TILE_N];
  for (int j = 0; j < TILE_N; ++j) c[j] = 0.0f;

  const int m = blockIdx.x * TILE_M + threadIdx.x;  // this thread's row of C
  const int n = blockIdx.y * TILE_N;                // first column of the tile
  // This thread's element of the B^T slice: row (k offset) ty, column tx.
  const int ty = threadIdx.x / TILE_N, tx = threadIdx.x % TILE_N;

#pragma unroll 1
  for (int i = 0; i < k; i += TILE_TB_HEIGHT) {
    // B is n x k column-major: B^T(kk, j) = B[j + kk * ldb].
    b_s[ty][tx] = B[n + tx + (i + ty) * ldb];
    float a[TILE_TB_HEIGHT];
#pragma unroll
    for (int kk = 0; kk < TILE_TB_HEIGHT; ++kk) a[kk] = A[m + (i + kk) * lda];
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE_TB_HEIGHT; ++kk)
#pragma unroll
      for (int j = 0; j < TILE_N; ++j) c[j] += a[kk] * b_s[kk][j];
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < TILE_N; ++j) {
    float& out = C[m + (n + j) * ldc];
    out = alpha * c[j] + beta * out;
  }
}

int main(int argc, char** argv) {
  const int m = int(wl::arg_int(argc, argv, 1, 640, TILE_M, 1 << 16));
  const int n = int(wl::arg_int(argc, argv, 2, 224, TILE_N, 1 << 16));
  const int k = int(wl::arg_int(argc, argv, 3, 144, TILE_TB_HEIGHT, 1 << 16));
  if (m % TILE_M || n % TILE_N || k % TILE_TB_HEIGHT) {
    std::printf("FAILED: m, n, k must be multiples of %d, %d, %d\n", TILE_M, TILE_N,
                TILE_TB_HEIGHT);
    return 1;
  }
  const float alpha = 0.5f, beta = 2.0f;
  std::vector<float> A(size_t(m) * k), B(size_t(n) * k), C(size_t(m) * n), ref(size_t(m) * n);
  wl::Rng ra(41), rb(42), rc(43);
  for (auto& v : A) v = float(ra.range(-8, 8));
  for (auto& v : B) v = float(rb.range(-8, 8));
  for (auto& v : C) v = float(rc.range(-100, 100));

  // Reference: column-major, C(r, col) = alpha * sum_kk A(r, kk) * B(col, kk) + beta * C(r, col).
  for (int col = 0; col < n; ++col)
    for (int r = 0; r < m; ++r) {
      float s = 0.0f;
      for (int kk = 0; kk < k; ++kk) s += A[r + size_t(kk) * m] * B[col + size_t(kk) * n];
      ref[r + size_t(col) * m] = alpha * s + beta * C[r + size_t(col) * m];
    }

  float *dA, *dB, *dC;
  WL_CK(cudaMalloc(&dA, A.size() * sizeof(float)));
  WL_CK(cudaMalloc(&dB, B.size() * sizeof(float)));
  WL_CK(cudaMalloc(&dC, C.size() * sizeof(float)));
  WL_CK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));
  const dim3 grid(m / TILE_M, n / TILE_N), threads(TILE_M);
  mysgemmNT<<<grid, threads>>>(dA, m, dB, n, dC, m, k, alpha, beta);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("sgemm m=%d n=%d k=%d blocks=%dx%d threads=%d\n", m, n, k, grid.x, grid.y,
              TILE_M);
  const bool ok = wl::check_equal("C", C.data(), ref.data(), C.size());
  WL_CK(cudaFree(dA));
  WL_CK(cudaFree(dB));
  WL_CK(cudaFree(dC));
  return wl::finish(ok);
}
