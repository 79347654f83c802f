// d2ma_mm: the mm workload (mm.cu, SDK matrixMul) ported to the D2MA intrinsics
// (include/simtlab/d2ma.h): per k step the As and Bs tiles are two 16x16 2D transfers
// (dma_configure_matrix_2d once, dma_execute per step) and both __syncthreads() are gone (the
// RAW check holds readers; ignition waits for every warp under d2ma.ignite_policy=all_warps).
// Same arguments, data and check as mm.cu. Run the engine with --set d2ma.enable=true.
// Analog of: D2MA Table 2 (MM).
#include <vector>

#include "simtlab/d2ma.h"
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
  const float* at = A + size_t(blockIdx.y) * BLOCK_SIZE * wA;  // the first A tile
  const float* bt = B + size_t(blockIdx.x) * BLOCK_SIZE;       // the first B tile
  (void)a;
  (void)b;
  dma_init();
  dma_set_datatype_float();
  dma_configure_matrix_2d(As, at, BLOCK_SIZE, BLOCK_SIZE, wA);
  dma_configure_matrix_2d(Bs, bt, BLOCK_SIZE, BLOCK_SIZE, wB);
#pragma unroll 1
  for (int k0 = 0; k0 < wA; k0 += BLOCK_SIZE) {
    if (k0) {
      dma_execute(As, at + k0, 0);
      dma_execute(Bs, bt + size_t(k0) * wB, 0);
    }
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) sum += As[ty][k] * Bs[k][tx];
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
