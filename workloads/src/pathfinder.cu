// pathfinder: minimum-cost path through a 2D grid of costs by dynamic programming. Row 0 of the
// result is row 0 of the cost grid; every later cell is its cost plus the minimum of the three
// cells above it (left/up/right, clamped at the edges). Each launch advances `pyramid height`
// rows: a block loads 256 columns of the previous row into shared memory and computes a
// shrinking "pyramid" of rows in shared memory (one halo column lost per side per row), writing
// only the 256 - 2*height columns whose value is complete; neighbouring blocks overlap.
// Analog of: Rodinia pathfinder, kernel dynproc_kernel, thesis Table 4.3 #17 (PF) and D2MA
// Table 2 (PATH).
// Profile (Rodinia's published configuration): BLOCK_SIZE 256 threads, HALO 1, shared prev[256]
// and result[256] ints = 2048 B; pyramid height 20 as in Rodinia's run script. The thesis lists
// no register count for Chapter 4; ours is recorded in the manifest.
// Usage: pathfinder [cols] [rows] [pyramid_height]   (default 6912 81 20: 32 blocks x 4
//        launches; scaled run 100000 101 20: 463 blocks x 5 launches)
// Check: exact (integers) against a row-by-row CPU dynamic program.
#include <algorithm>
#include <vector>

#include "simtlab/xfer.h"
#include "wl.h"

namespace {
constexpr int kBlock = 256;
constexpr int kHalo = 1;
}  // namespace

__global__ void dynproc_kernel(int iteration, const int* wall, const int* src, int* dst, int cols,
                               int startRow, int border) {
  __shared__ int prev[kBlock];
  __shared__ int result[kBlock];
  const int tx = threadIdx.x;
  // Columns this block completes, and the leftmost column it loads (may be negative).
  const int smallBlockCols = kBlock - 2 * border;
  const int blkX = smallBlockCols * blockIdx.x - border;
  const int blkXmax = blkX + kBlock - 1;
  const int xidx = blkX + tx;
  // Range of thread indices that map to real columns.
  const int validXmin = blkX < 0 ? -blkX : 0;
  const int validXmax = blkXmax > cols - 1 ? kBlock - 1 - (blkXmax - cols + 1) : kBlock - 1;
  const int W = max(tx - 1, validXmin);
  const int E = min(tx + 1, validXmax);
  const bool isValid = tx >= validXmin && tx <= validXmax;

  simtlab_xfer_begin();  // transfer region (include/simtlab/xfer.h)
  if (xidx >= 0 && xidx < cols) prev[tx] = src[xidx];
  __syncthreads();
  bool computed = false;
  for (int i = 0; i < iteration; ++i) {
    computed = false;
    if (tx >= i + 1 && tx <= kBlock - i - 2 && isValid) {
      computed = true;
      const int shortest = min(min(prev[W], prev[tx]), prev[E]);
      result[tx] = shortest + wall[size_t(startRow + i) * cols + xidx];
    }
    __syncthreads();
    if (i == iteration - 1) break;
    if (computed) prev[tx] = result[tx];
    __syncthreads();
  }
  if (computed) dst[xidx] = result[tx];
}

int main(int argc, char** argv) {
  const int cols = int(wl::arg_int(argc, argv, 1, 6912, 1, 1 << 24));
  const int rows = int(wl::arg_int(argc, argv, 2, 81, 2, 1 << 16));
  const int height = int(wl::arg_int(argc, argv, 3, 20, 1, kBlock / 2 - 1));
  std::vector<int> wall(size_t(rows) * cols), out(cols);
  wl::Rng rng(17);
  for (auto& w : wall) w = rng.range(0, 9);
  // CPU reference.
  std::vector<int> ref(wall.begin(), wall.begin() + cols), next(cols);
  for (int r = 1; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int m = ref[c];
      if (c > 0) m = std::min(m, ref[c - 1]);
      if (c < cols - 1) m = std::min(m, ref[c + 1]);
      next[c] = wall[size_t(r) * cols + c] + m;
    }
    ref.swap(next);
  }

  const int border = height * kHalo;
  const int smallBlockCols = kBlock - 2 * border;
  const int blocks = (cols + smallBlockCols - 1) / smallBlockCols;
  int *dWall, *dRes[2];
  WL_CK(cudaMalloc(&dWall, wall.size() * sizeof(int)));
  WL_CK(cudaMalloc(&dRes[0], cols * sizeof(int)));
  WL_CK(cudaMalloc(&dRes[1], cols * sizeof(int)));
  WL_CK(cudaMemcpy(dWall, wall.data(), wall.size() * sizeof(int), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dRes[0], wall.data(), cols * sizeof(int), cudaMemcpyHostToDevice));
  int src = 0, launches = 0;
  for (int t = 0; t < rows - 1; t += height) {
    const int iteration = std::min(height, rows - 1 - t);
    dynproc_kernel<<<blocks, kBlock>>>(iteration, dWall, dRes[src], dRes[1 - src], cols, t + 1,
                                       border);
    WL_CK_LAUNCH();
    src = 1 - src;
    ++launches;
  }
  WL_CK(cudaMemcpy(out.data(), dRes[src], cols * sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("pathfinder cols=%d rows=%d height=%d blocks=%d launches=%d\n", cols, rows, height,
              blocks, launches);
  const bool ok = wl::check_equal("last row", out.data(), ref.data(), size_t(cols));
  WL_CK(cudaFree(dWall));
  WL_CK(cudaFree(dRes[0]));
  WL_CK(cudaFree(dRes[1]));
  return wl::finish(ok);
}
