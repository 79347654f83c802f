// mm: dense matrix product C = A B (row-major, A is hA x wA, B is wA x wB) with shared-memory
// tiling. Each block computes one BLOCK_SIZE x BLOCK_SIZE tile of C with one thread per element.
// It walks the k dimension one tile at a time: "transfer" — every thread copies one element of the
// current A tile and one of the current B tile from global memory into the shared tiles As and
// Bs, then __syncthreads; "compute" — every thread accumulates the BLOCK_SIZE products of its row
// of As and column of Bs, then __syncthreads before the tiles are overwritten.
// Analog of: CUDA SDK matrixMul (kernel matrixMulCUDA), D2MA Table 2 (MM). Algorithm: the tiled
// product of the CUDA C Programming Guide's shared-memory section.
// Profile: BLOCK_SIZE 16 -> 16x16 = 256 threads, two 16x16 float tiles = 2048 B (the SDK
// sample's block size and tile shape). No register count is published; ours is in the manifest.
// Usage: mm [n]   (hA = wA = wB = n, n a multiple of 16; default 160 -> 10x10 = 100 blocks, 10
//        k-tiles; scaled run 512)
// Check: exact (matrix entries are small integers, so every product and partial sum is an
//        integer below 2^24 and exact in float, with or without FMA contraction).
#include <vector>

#include "simtlab/xfer.h"
#include "wl.h"

constexpr int BLOCK_SIZE = 16;

__global__ void matrixMulCUDA(float* C, const float* A, const float* B, int wA, int wB) {
  __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * BLOCK_SIZE + ty;  // row of C (and of A)
  const int col = blockIdx.x * BLOCK_SIZE + tx;  // column of C (and of B)
  const float* a = A + row * wA + tx;            // this thread's element of the first A tile
  const float* b = B + ty * wB + col;            // this thread's element of the first B tile
  float sum = 0.0f;
#pragma unroll 1  // one tile per trip, as in the SDK sample (ptxas would otherwise unroll by 4: 60 regs)
  for (int k0 = 0; k0 < wA; k0 += BLOCK_SIZE) {
    // ---- transfer: one element of each tile per thread, global -> register -> shared ----
    simtlab_xfer_begin();  // transfer region (include/simtlab/xfer.h)
    As[ty][tx] = a[k0];
    Bs[ty][tx] = b[size_t(k0) * wB];
    __syncthreads();
    // ---- compute: row ty of As times column tx of Bs ----
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * wB + col] = sum;
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 160, 16, 8192));
  if (n % BLOCK_SIZE) {
    std::printf("FAILED: n=%d must be a multiple of %d\n", n, BLOCK_SIZE);
    return 1;
  }
  const int hA = n, wA = n, wB = n;
  std::vector<float> a(size_t(hA) * wA), b(size_t(wA) * wB), c(size_t(hA) * wB),
      ref(size_t(hA) * wB);
  wl::Rng ra(11), rb(12);
  for (auto& v : a) v = float(ra.range(-4, 4));
  for (auto& v : b) v = float(rb.range(-4, 4));
  for (int i = 0; i < hA; ++i)
    for (int j = 0; j < wB; ++j) {
      long s = 0;
      for (int k = 0; k < wA; ++k) s += long(a[size_t(i) * wA + k]) * long(b[size_t(k) * wB + j]);
      ref[size_t(i) * wB + j] = float(s);
    }
  float *da, *db, *dc;
  WL_CK(cudaMalloc(&da, a.size() * sizeof(float)));
  WL_CK(cudaMalloc(&db, b.size() * sizeof(float)));
  WL_CK(cudaMalloc(&dc, c.size() * sizeof(float)));
  WL_CK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  const dim3 block(BLOCK_SIZE, BLOCK_SIZE), grid(wB / BLOCK_SIZE, hA / BLOCK_SIZE);
  matrixMulCUDA<<<grid, block>>>(dc, da, db, wA, wB);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("mm %dx%d * %dx%d blocks=%dx%d threads=%d\n", hA, wA, wA, wB, grid.x, grid.y,
              BLOCK_SIZE * BLOCK_SIZE);
  const bool ok = wl::check_equal("C", c.data(), ref.data(), c.size());
  WL_CK(cudaFree(da));
  WL_CK(cudaFree(db));
  WL_CK(cudaFree(dc));
  return wl::finish(ok);
}
