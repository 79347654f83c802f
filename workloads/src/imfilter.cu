// imfilter: 2D image filters on an 8-bit greyscale image with a halo'd shared-memory tile.
//  * gauss_filter: 5x5 Gaussian (binomial weights [1 4 6 4 1] x [1 4 6 4 1] / 256, rounded);
//  * mean_filter:  5x5 box mean (sum / 25, rounded to nearest);
//  * sobel_filter: 3x3 Sobel gradient, magnitude |Gx| + |Gy| clamped to 255 (the usual integer
//    L1 approximation of sqrt(Gx^2 + Gy^2)).
// Each block produces a 16x16 tile of output pixels with 256 threads (16x16). The block first
// copies its input tile INCLUDING the apron (halo of R pixels on every side) from global memory
// into a shared buffer: every thread loads one or more tile elements, deciding per element whether
// it lies inside the image (load the pixel) or outside (store the halo constant 0). This is the
// "transfer" phase that the D2MA paper's halo addressing mode replaces. After __syncthreads the
// "compute" phase reads only shared memory.
// Analog of: the D2MA paper's GAUSS, MEAN and SOBEL kernels (D2MA Table 2, "from the NVIDIA CUDA
// SDK", baseline software tiling with conditional halo fill described in its Sec. 5.1).
// Profile: 256 threads (16x16 outputs per block, the brief's tile shape; the paper publishes no
// block size); shared tile of ints (16+2R)^2: GAUSS/MEAN R=2 -> 20x20x4 = 1600 B, SOBEL R=1 ->
// 18x18x4 = 1296 B. No register count is published; ours are recorded in the manifest.
// Usage: imfilter [side] [gauss|mean|sobel]   (square side x side image, any side >= 1; default
//        256 -> 16x16 = 256 blocks; scaled run 1024 -> 4096 blocks).
// Check: exact (integer pixels and integer arithmetic, same formula on the CPU).
#include <algorithm>
#include <string>
#include <vector>

#include "simtlab/xfer.h"
#include "wl.h"

constexpr int TILE = 16;  // outputs per block side; blockDim = TILE x TILE = 256 threads

// Transfer phase shared by the three kernels: copy the (TILE+2R)^2 input window whose top-left
// corner is (x0, y0) (may be negative) into tile[][]; pixels outside the image become 0.
template <int R>
__device__ __forceinline__ void load_halo_tile(int (*tile)[TILE + 2 * R], const unsigned char* in,
                                               int w, int h, int x0, int y0) {
  constexpr int TW = TILE + 2 * R;
  const int tid = threadIdx.y * TILE + threadIdx.x;
  for (int i = tid; i < TW * TW; i += TILE * TILE) {
    const int ty = i / TW, tx = i - ty * TW;
    const int gx = x0 + tx, gy = y0 + ty;
    int v = 0;  // halo constant for the parts of the apron outside the image
    if (gx >= 0 && gx < w && gy >= 0 && gy < h) v = in[gy * w + gx];
    tile[ty][tx] = v;
  }
}

__global__ void gauss_filter(const unsigned char* in, unsigned char* out, int w, int h) {
  constexpr int R = 2, TW = TILE + 2 * R;
  __shared__ int tile[TW][TW];
  simtlab_xfer_begin();
  const int x0 = blockIdx.x * TILE - R, y0 = blockIdx.y * TILE - R;
  // ---- transfer: global -> registers -> shared (with halo), then barrier ----
  load_halo_tile<R>(tile, in, w, h, x0, y0);
  __syncthreads();
  // ---- compute: 5x5 binomial filter from shared memory ----
  const int wgt[5] = {1, 4, 6, 4, 1};
  const int tx = threadIdx.x, ty = threadIdx.y;
  int sum = 0;
#pragma unroll
  for (int dy = 0; dy < 5; ++dy) {
    int row = 0;
#pragma unroll
    for (int dx = 0; dx < 5; ++dx) row += wgt[dx] * tile[ty + dy][tx + dx];
    sum += wgt[dy] * row;
  }
  const int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
  if (x < w && y < h) out[y * w + x] = (unsigned char)((sum + 128) >> 8);
}

__global__ void mean_filter(const unsigned char* in, unsigned char* out, int w, int h) {
  constexpr int R = 2, TW = TILE + 2 * R;
  __shared__ int tile[TW][TW];
  simtlab_xfer_begin();
  const int x0 = blockIdx.x * TILE - R, y0 = blockIdx.y * TILE - R;
  // ---- transfer ----
  load_halo_tile<R>(tile, in, w, h, x0, y0);
  __syncthreads();
  // ---- compute: 5x5 box sum / 25 ----
  const int tx = threadIdx.x, ty = threadIdx.y;
  int sum = 0;
#pragma unroll
  for (int dy = 0; dy < 5; ++dy)
#pragma unroll
    for (int dx = 0; dx < 5; ++dx) sum += tile[ty + dy][tx + dx];
  const int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
  if (x < w && y < h) out[y * w + x] = (unsigned char)((sum + 12) / 25);
}

__global__ void sobel_filter(const unsigned char* in, unsigned char* out, int w, int h) {
  constexpr int R = 1, TW = TILE + 2 * R;
  __shared__ int tile[TW][TW];
  simtlab_xfer_begin();
  const int x0 = blockIdx.x * TILE - R, y0 = blockIdx.y * TILE - R;
  // ---- transfer ----
  load_halo_tile<R>(tile, in, w, h, x0, y0);
  __syncthreads();
  // ---- compute: Sobel Gx, Gy and |Gx| + |Gy| ----
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  const int ul = tile[ty - 1][tx - 1], um = tile[ty - 1][tx], ur = tile[ty - 1][tx + 1];
  const int ml = tile[ty][tx - 1], mr = tile[ty][tx + 1];
  const int ll = tile[ty + 1][tx - 1], lm = tile[ty + 1][tx], lr = tile[ty + 1][tx + 1];
  const int gx = (ur + 2 * mr + lr) - (ul + 2 * ml + ll);
  const int gy = (ll + 2 * lm + lr) - (ul + 2 * um + ur);
  const int mag = min(255, abs(gx) + abs(gy));
  const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = (unsigned char)mag;
}

// CPU reference: pixel (x, y) of the zero-padded image.
static int px(const std::vector<unsigned char>& img, int w, int h, int x, int y) {
  return (x < 0 || x >= w || y < 0 || y >= h) ? 0 : img[size_t(y) * w + x];
}

int main(int argc, char** argv) {
  const int side = int(wl::arg_int(argc, argv, 1, 256, 1, 16384));
  const std::string variant = wl::arg_str(argc, argv, 2, "gauss");
  if (variant != "gauss" && variant != "mean" && variant != "sobel") {
    std::printf("FAILED: variant '%s' must be gauss, mean or sobel\n", variant.c_str());
    return 1;
  }
  const int w = side, h = side;
  const size_t n = size_t(w) * h;
  std::vector<unsigned char> img(n), out(n), ref(n);
  wl::Rng rng(7);
  // A smooth gradient plus noise, so the filters see both edges and flat areas.
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      img[size_t(y) * w + x] =
          (unsigned char)std::min(255, ((x * 3 + y * 5) & 127) + rng.range(0, 128));

  const int gauss_w[5] = {1, 4, 6, 4, 1};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int v = 0;
      if (variant == "gauss") {
        int sum = 0;
        for (int dy = 0; dy < 5; ++dy) {
          int row = 0;
          for (int dx = 0; dx < 5; ++dx) row += gauss_w[dx] * px(img, w, h, x + dx - 2, y + dy - 2);
          sum += gauss_w[dy] * row;
        }
        v = (sum + 128) >> 8;
      } else if (variant == "mean") {
        int sum = 0;
        for (int dy = -2; dy <= 2; ++dy)
          for (int dx = -2; dx <= 2; ++dx) sum += px(img, w, h, x + dx, y + dy);
        v = (sum + 12) / 25;
      } else {
        auto p = [&](int dx, int dy) { return px(img, w, h, x + dx, y + dy); };
        const int gx = (p(1, -1) + 2 * p(1, 0) + p(1, 1)) - (p(-1, -1) + 2 * p(-1, 0) + p(-1, 1));
        const int gy = (p(-1, 1) + 2 * p(0, 1) + p(1, 1)) - (p(-1, -1) + 2 * p(0, -1) + p(1, -1));
        v = std::min(255, std::abs(gx) + std::abs(gy));
      }
      ref[size_t(y) * w + x] = (unsigned char)v;
    }

  unsigned char *din, *dout;
  WL_CK(cudaMalloc(&din, n));
  WL_CK(cudaMalloc(&dout, n));
  WL_CK(cudaMemcpy(din, img.data(), n, cudaMemcpyHostToDevice));
  WL_CK(cudaMemset(dout, 0, n));
  const dim3 block(TILE, TILE), grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
  if (variant == "gauss")
    gauss_filter<<<grid, block>>>(din, dout, w, h);
  else if (variant == "mean")
    mean_filter<<<grid, block>>>(din, dout, w, h);
  else
    sobel_filter<<<grid, block>>>(din, dout, w, h);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(out.data(), dout, n, cudaMemcpyDeviceToHost));
  std::printf("imfilter %s %dx%d blocks=%dx%d threads=%d\n", variant.c_str(), w, h, grid.x, grid.y,
              TILE * TILE);
  const bool ok = wl::check_equal("out", out.data(), ref.data(), n);
  WL_CK(cudaFree(din));
  WL_CK(cudaFree(dout));
  return wl::finish(ok);
}
