// nw: Needleman-Wunsch global sequence alignment score matrix for two random sequences of
// length N over a 24-letter alphabet with a BLOSUM-like substitution table and a linear gap
// penalty:  S[i][j] = max(S[i-1][j-1] + sub(a_i, b_j), S[i][j-1] - p, S[i-1][j] - p),
// S[i][0] = -i p, S[0][j] = -j p. The (N+1)^2 matrix is processed in 16x16 tiles along
// anti-diagonals of tiles: one launch per tile anti-diagonal, one 16-thread block per tile,
// and inside a tile the 16 threads sweep the cells' anti-diagonals (a wavefront).
// Analog of: Rodinia nw, kernels needle_cuda_shared_1 (upper-left triangle of tiles, NW1) and
// needle_cuda_shared_2 (lower-right triangle, NW2); thesis Table 2.2 (NW1, NW2), Table 3.3
// Set-2, Table 3.7. Algorithm from the Rodinia nw description (Che et al., IISWC 2009).
// Profile: 16 threads per block (thesis Table 2.2; the original's BLOCK_SIZE 16); shared
//   2180 B (thesis Table 2.2) = int temp[17][17] (tile plus its north row and west column)
//   + int ref[16][16] (the tile's substitution scores), as in the original; 7 resident
//   blocks/SM at 16 KB (thesis Section 5.2). No register count in the thesis; the natural code
//   takes 64 registers on sm_75 (the unrolled 16-row tile loads), more than Fermi's 63, so the
//   flags cap it at 63 (-maxrregcount=63) so the cubin is one a Fermi could run unchanged.
// Usage: nw [N] [penalty]   N a multiple of 16 (default 384: 24x24 tiles, 47 launches of 1..24
//   blocks; scaled run 2048 as the original's default). penalty default 10 (the original's).
// Check: the whole score matrix exact (integer arithmetic).
// nvcc-flags: -maxrregcount=63
#include <algorithm>
#include <vector>

#include "wl.h"

constexpr int kB = 16;  // tile edge = threads per block

// One tile per block; the tile's north-west corner cell is (row by*16, col bx*16) of the
// matrix, so the tile covers rows/cols [by*16 + 1, by*16 + 16].
__device__ void tileWavefront(const int* ref, int* matrix, int cols, int penalty, int bx, int by) {
  __shared__ int temp[kB + 1][kB + 1];
  __shared__ int refTile[kB][kB];
  const int tx = threadIdx.x;
  const int base = cols * kB * by + kB * bx;  // index of the corner cell

  if (tx == 0) temp[0][0] = matrix[base];
  for (int r = 0; r < kB; ++r) refTile[r][tx] = ref[base + cols * (r + 1) + tx + 1];
  temp[tx + 1][0] = matrix[base + cols * (tx + 1)];
  temp[0][tx + 1] = matrix[base + tx + 1];
  __syncthreads();

  // Growing anti-diagonals: diagonal d holds cells (y, x) with x + y = d + 2, thread tx takes
  // x = tx + 1.
  for (int d = 0; d < kB; ++d) {
    if (tx <= d) {
      const int x = tx + 1, y = d - tx + 1;
      temp[y][x] = max(temp[y - 1][x - 1] + refTile[y - 1][x - 1],
                       max(temp[y][x - 1] - penalty, temp[y - 1][x] - penalty));
    }
    __syncthreads();
  }
  // Shrinking anti-diagonals.
  for (int d = kB - 2; d >= 0; --d) {
    if (tx <= d) {
      const int x = tx + kB - d, y = kB - tx;
      temp[y][x] = max(temp[y - 1][x - 1] + refTile[y - 1][x - 1],
                       max(temp[y][x - 1] - penalty, temp[y - 1][x] - penalty));
    }
    __syncthreads();
  }
  for (int r = 0; r < kB; ++r) matrix[base + cols * (r + 1) + tx + 1] = temp[r + 1][tx + 1];
}

// Launch `i` (1-based) of the upper-left triangle: i tiles on the tile anti-diagonal i-1.
__global__ void needle_cuda_shared_1(const int* ref, int* matrix, int cols, int penalty, int i,
                                     int tilesPerRow) {
  const int bx = blockIdx.x;
  tileWavefront(ref, matrix, cols, penalty, bx, i - 1 - bx);
}

// Launch `i` of the lower-right triangle (i = tilesPerRow-1 down to 1): i tiles.
__global__ void needle_cuda_shared_2(const int* ref, int* matrix, int cols, int penalty, int i,
                                     int tilesPerRow) {
  const int bx = blockIdx.x;
  tileWavefront(ref, matrix, cols, penalty, bx + tilesPerRow - i, tilesPerRow - bx - 1);
}

int main(int argc, char** argv) {
  const int N = int(wl::arg_int(argc, argv, 1, 384, 16, 1 << 14));
  const int penalty = int(wl::arg_int(argc, argv, 2, 10, 0, 1000));
  if (N % kB) {
    std::printf("FAILED: N %d must be a multiple of %d\n", N, kB);
    return 1;
  }
  const int cols = N + 1, tiles = N / kB;
  const size_t cells = size_t(cols) * cols;

  // BLOSUM-like symmetric 24x24 substitution table: matches 4..11, mismatches -4..3.
  int sub[24][24];
  wl::Rng rs(31), rseq(32);
  for (int a = 0; a < 24; ++a)
    for (int b = 0; b <= a; ++b)
      sub[a][b] = sub[b][a] = (a == b) ? rs.range(4, 11) : rs.range(-4, 3);
  std::vector<int> seqA(cols), seqB(cols);
  for (int i = 1; i <= N; ++i) seqA[i] = rseq.range(0, 23);
  for (int j = 1; j <= N; ++j) seqB[j] = rseq.range(0, 23);

  std::vector<int> ref(cells, 0), matrix(cells, 0), want(cells, 0);
  for (int i = 1; i <= N; ++i)
    for (int j = 1; j <= N; ++j) ref[size_t(i) * cols + j] = sub[seqA[i]][seqB[j]];
  for (int i = 0; i <= N; ++i) {
    matrix[size_t(i) * cols] = -i * penalty;
    matrix[i] = -i * penalty;
  }

  want = matrix;
  for (int i = 1; i <= N; ++i)
    for (int j = 1; j <= N; ++j) {
      const size_t c = size_t(i) * cols + j;
      want[c] = std::max(want[c - cols - 1] + ref[c],
                         std::max(want[c - 1] - penalty, want[c - cols] - penalty));
    }

  int *dRef, *dMatrix;
  WL_CK(cudaMalloc(&dRef, cells * sizeof(int)));
  WL_CK(cudaMalloc(&dMatrix, cells * sizeof(int)));
  WL_CK(cudaMemcpy(dRef, ref.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dMatrix, matrix.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
  int launches = 0;
  for (int i = 1; i <= tiles; ++i, ++launches) {
    needle_cuda_shared_1<<<i, kB>>>(dRef, dMatrix, cols, penalty, i, tiles);
    WL_CK_LAUNCH();
  }
  for (int i = tiles - 1; i >= 1; --i, ++launches) {
    needle_cuda_shared_2<<<i, kB>>>(dRef, dMatrix, cols, penalty, i, tiles);
    WL_CK_LAUNCH();
  }
  WL_CK(cudaMemcpy(matrix.data(), dMatrix, cells * sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("nw N=%d penalty=%d tiles=%dx%d launches=%d score=%d\n", N, penalty, tiles, tiles,
              launches, matrix[cells - 1]);
  const bool ok = wl::check_equal("score matrix", matrix.data(), want.data(), cells);
  WL_CK(cudaFree(dRef));
  WL_CK(cudaFree(dMatrix));
  return wl::finish(ok);
}
