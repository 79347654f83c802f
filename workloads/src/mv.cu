// mv: dense matrix-vector product y = A x (A row-major, rows x cols), one 32-row strip of A per
// block. Each block stages a 32 x 32 tile of A in shared memory (coalesced row loads), pads the
// tile to 33 columns so that the per-thread row walk is bank-conflict free, and every thread
// accumulates the dot product of its row with the matching 32 entries of x.
// Analog of: shared-memory-multiplexing benchmark set (Yang et al., PACT'12) MV, kernel
// mv_shared; thesis Table 3.8 (MV).
// Profile: 32 threads per block, one shared variable of 4224 B = 32 x 33 floats (thesis Table 3.8:
// 1 variable, 4224 B, 32 threads; the 32 x 33 shape is the padded-tile layout that gives exactly
// 4224 B). The thesis lists no register count; ours is recorded in the manifest.
// Usage: mv [n]   (A is n x n; default n = 1024 -> 32 blocks; scaled run n = 4096)
// Check: exact. A and x hold small integers (|a|, |x| <= 8) so every product and partial sum is an
// integer below 2^24 and thus exact in float in any order, with or without FMA contraction.
#include <vector>

#include "wl.h"

#define MV_TILE 32

__global__ void mv_shared(const float* A, const float* x, float* y, int rows, int cols) {
  __shared__ float tile[MV_TILE][MV_TILE + 1];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.x * MV_TILE;
  float sum = 0.0f;
  for (int c0 = 0; c0 < cols; c0 += MV_TILE) {
    // Stage A[row0 .. row0+31][c0 .. c0+31]: each iteration loads one row, coalesced. (Unrolled
    // by 4 so that the kernel stays within the 63 registers a Fermi thread can address.)
#pragma unroll 4
    for (int r = 0; r < MV_TILE; ++r) {
      const int gr = row0 + r, gc = c0 + tid;
      tile[r][tid] = (gr < rows && gc < cols) ? A[size_t(gr) * cols + gc] : 0.0f;
    }
    __syncthreads();
    const int nc = min(MV_TILE, cols - c0);
    for (int c = 0; c < nc; ++c) sum += tile[tid][c] * x[c0 + c];
    __syncthreads();
  }
  if (row0 + tid < rows) y[row0 + tid] = sum;
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 1024, 1, 1 << 15));
  const int rows = n, cols = n;
  const int blocks = (rows + MV_TILE - 1) / MV_TILE;
  std::vector<float> a(size_t(rows) * cols), x(cols), y(rows), ref(rows);
  wl::Rng ra(31), rx(32);
  for (auto& v : a) v = float(ra.range(-8, 8));
  for (auto& v : x) v = float(rx.range(-8, 8));
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c) s += double(a[size_t(r) * cols + c]) * double(x[c]);
    ref[r] = float(s);
  }
  float *dA, *dx, *dy;
  WL_CK(cudaMalloc(&dA, a.size() * sizeof(float)));
  WL_CK(cudaMalloc(&dx, x.size() * sizeof(float)));
  WL_CK(cudaMalloc(&dy, y.size() * sizeof(float)));
  WL_CK(cudaMemcpy(dA, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  mv_shared<<<blocks, MV_TILE>>>(dA, dx, dy, rows, cols);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("mv n=%d blocks=%d threads=%d\n", n, blocks, MV_TILE);
  const bool ok = wl::check_equal("y", y.data(), ref.data(), size_t(rows));
  WL_CK(cudaFree(dA));
  WL_CK(cudaFree(dx));
  WL_CK(cudaFree(dy));
  return wl::finish(ok);
}
