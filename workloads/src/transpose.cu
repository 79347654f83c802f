// transpose: out = in^T for a width x height float matrix, through a shared-memory tile.
// Each 32x8 thread block moves one 32x32 tile: it reads rows of the tile with coalesced loads
// (each thread 4 elements, 8 rows apart) into tile[32][33] (one padding column so the
// column-wise reads hit 32 different banks), synchronises, and writes the transposed tile with
// coalesced stores.
//   coalesced: block (bx, by) handles tile (bx, by)                      -> TRANS1
//   diagonal:  blocks are renumbered along diagonals (tile x = (bid/gy + bid%gy) % gx, with
//              bid = bx + gx*by, tile y = bid % gy), so concurrently running blocks spread over
//              the DRAM partitions instead of all hitting one ("partition camping")  -> TRANS2
// Analog of: CUDA-SDK transpose, kernels transposeCoalesced and transposeDiagonal, D2MA Table 2
// (TRANS1, TRANS2). Algorithm and profile as published in Ruetsch & Micikevicius, "Optimizing
// Matrix Transpose in CUDA" (NVIDIA, 2009): TILE_DIM 32, BLOCK_ROWS 8 (256 threads),
// __shared__ float tile[TILE_DIM][TILE_DIM+1] = 4224 B.
// Usage: transpose [n] [coalesced|diagonal]   (n x n matrix, n a multiple of 32; default
//        1024 -> 32x32 blocks; scaled run 4096)
// Check: exact (data movement only).
#include <vector>

#include "simtlab/xfer.h"
#include "wl.h"

namespace {
constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;
}  // namespace

__global__ void transposeCoalesced(float* out, const float* in, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  simtlab_xfer_begin();
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int r = 0; r < TILE_DIM; r += BLOCK_ROWS)
    tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int r = 0; r < TILE_DIM; r += BLOCK_ROWS)
    out[(y + r) * height + x] = tile[threadIdx.x][threadIdx.y + r];
}

__global__ void transposeDiagonal(float* out, const float* in, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  simtlab_xfer_begin();
  // Diagonal renumbering of the blocks (valid for any gx, gy).
  const int bid = blockIdx.x + gridDim.x * blockIdx.y;
  const int by = bid % gridDim.y;
  const int bx = (bid / gridDim.y + by) % gridDim.x;
  int x = bx * TILE_DIM + threadIdx.x;
  int y = by * TILE_DIM + threadIdx.y;
  for (int r = 0; r < TILE_DIM; r += BLOCK_ROWS)
    tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * width + x];
  __syncthreads();
  x = by * TILE_DIM + threadIdx.x;
  y = bx * TILE_DIM + threadIdx.y;
  for (int r = 0; r < TILE_DIM; r += BLOCK_ROWS)
    out[(y + r) * height + x] = tile[threadIdx.x][threadIdx.y + r];
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 1024, 32, 16384));
  const std::string variant = wl::arg_str(argc, argv, 2, "coalesced");
  if (n % TILE_DIM) {
    std::printf("FAILED: n=%d must be a multiple of %d\n", n, TILE_DIM);
    return 1;
  }
  if (variant != "coalesced" && variant != "diagonal") {
    std::printf("FAILED: variant '%s' must be coalesced or diagonal\n", variant.c_str());
    return 1;
  }
  const int width = n, height = n;
  const size_t count = size_t(width) * height, bytes = count * sizeof(float);
  std::vector<float> in(count), out(count), ref(count);
  wl::Rng rng(23);
  for (auto& v : in) v = float(rng.range(-(1 << 20), 1 << 20));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) ref[size_t(x) * height + y] = in[size_t(y) * width + x];
  float *dIn, *dOut;
  WL_CK(cudaMalloc(&dIn, bytes));
  WL_CK(cudaMalloc(&dOut, bytes));
  WL_CK(cudaMemcpy(dIn, in.data(), bytes, cudaMemcpyHostToDevice));
  WL_CK(cudaMemset(dOut, 0, bytes));
  const dim3 grid(width / TILE_DIM, height / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
  if (variant == "coalesced")
    transposeCoalesced<<<grid, block>>>(dOut, dIn, width, height);
  else
    transposeDiagonal<<<grid, block>>>(dOut, dIn, width, height);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(out.data(), dOut, bytes, cudaMemcpyDeviceToHost));
  std::printf("transpose %s n=%d grid=%dx%d block=%dx%d\n", variant.c_str(), n, grid.x, grid.y,
              block.x, block.y);
  const bool ok = wl::check_equal("out", out.data(), ref.data(), count);
  WL_CK(cudaFree(dIn));
  WL_CK(cudaFree(dOut));
  return wl::finish(ok);
}
