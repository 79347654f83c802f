// d2ma_transpose: the transpose workload (transpose.cu, TRANS1 coalesced / TRANS2 diagonal)
// ported to the D2MA intrinsics (include/simtlab/d2ma.h): the 32x32 tile is one 2D transfer
// in bank-conflict mode (n = 32 elements per row -> the tile[32][33] padding) and the
// __syncthreads() is gone (the RAW check holds the tile's readers). Same arguments, data and
// check as transpose.cu. Run the engine with --set d2ma.enable=true (timing mode).
// Analog of: D2MA Table 2 (TRANS1, TRANS2).
#include <vector>

#include "simtlab/d2ma.h"
#include "wl.h"

namespace {
constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;
}  // namespace

__global__ void transposeCoalesced(float* out, const float* in, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  dma_init();
  dma_set_datatype_float();
  dma_enable_bank_conflict_mode(TILE_DIM);
  dma_configure_matrix_2d(tile, in + (y - threadIdx.y) * width + x - threadIdx.x, TILE_DIM, TILE_DIM,
                          width);
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int r = 0; r < TILE_DIM; r += BLOCK_ROWS)
    out[(y + r) * height + x] = tile[threadIdx.x][threadIdx.y + r];
}

__global__ void transposeDiagonal(float* out, const float* in, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  // Diagonal renumbering of the blocks (valid for any gx, gy).
  const int bid = blockIdx.x + gridDim.x * blockIdx.y;
  const int by = bid % gridDim.y;
  const int bx = (bid / gridDim.y + by) % gridDim.x;
  int x = bx * TILE_DIM + threadIdx.x;
  int y = by * TILE_DIM + threadIdx.y;
  dma_init();
  dma_set_datatype_float();
  dma_enable_bank_conflict_mode(TILE_DIM);
  dma_configure_matrix_2d(tile, in + (y - threadIdx.y) * width + x - threadIdx.x, TILE_DIM, TILE_DIM,
                          width);
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
