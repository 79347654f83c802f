// convsep: separable 2D convolution (filter radius 8, 17 taps) of a W x H float image, a row
// pass (each output = sum of 17 horizontal neighbours times the filter) followed by a column
// pass over the row pass's result; pixels outside the image count as 0.
// Analog of: CUDA-SDK convolutionSeparable, kernels convolutionRowsKernel and
// convolutionColumnsKernel, thesis Table 2.2 (CONV1, CONV2) and Table 3.8 (CV).
// Algorithm from the SDK's white paper (Podlozhnyuk, "Image Convolution with CUDA", 2007):
// each block stages a tile plus one halo step on each side in shared memory, every thread
// produces RESULT_STEPS outputs, the filter lives in constant memory.
// Profile:
//  * convolutionRowsKernel (CONV1): 64 threads = 16 x 4 (thesis Table 2.2), shared
//    float[4][(8 + 2) * 16] = 2560 B (thesis Table 2.2; shape as the SDK: ROWS_BLOCKDIM 16x4,
//    ROWS_RESULT_STEPS 8, ROWS_HALO_STEPS 1); 6 resident blocks/SM at 16 KB (thesis 5.2).
//  * convolutionColumnsKernel<8> (CONV2): 128 threads = 16 x 8, shared
//    float[16][(8 + 2) * 8 + 1] = 5184 B (thesis Table 2.2; SDK COLUMNS_BLOCKDIM 16x8,
//    COLUMNS_RESULT_STEPS 8, HALO 1, one padding column); 3 resident blocks/SM at 16 KB.
//  * convolutionColumnsKernel<14> (CV, variant "cv"): 128 threads, shared
//    float[16][(14 + 2) * 8 + 1] = 8256 B (thesis Table 3.8: 1 variable, 8256 B, 128 threads;
//    the 8256 B is reached with 14 result steps per thread).
//  The thesis lists no register counts for these kernels; ours are recorded in the manifest.
// Usage: convsep [size] [variant]   size: image width, a multiple of 128 (default 512; scaled
//   run 2048). variant "conv" (default): W = H = size, rows kernel + columns kernel with 8
//   steps; variant "cv": W = size, H = size * 7 / 8 (a multiple of 8 * 14), rows kernel +
//   columns kernel with 14 steps.
// Check: both passes exact. The device accumulates with __fmaf_rn in a fixed tap order and the
//   CPU reference does the same with std::fma (both correctly rounded), so results are
//   bit-identical.
#include <cmath>
#include <string>
#include <vector>

#include "wl.h"

constexpr int kRadius = 8;
constexpr int kTaps = 2 * kRadius + 1;

constexpr int kRowsX = 16, kRowsY = 4, kRowsSteps = 8, kRowsHalo = 1;
constexpr int kColsX = 16, kColsY = 8, kColsHalo = 1;

__constant__ float c_filter[kTaps];

// Row pass: block (16, 4) covers 4 rows x (8 * 16) columns; the tile holds one halo step of 16
// pixels on each side (16 >= radius 8).
__global__ void convolutionRowsKernel(float* dst, const float* src, int W, int H, int pitch) {
  __shared__ float tile[kRowsY][(kRowsSteps + 2 * kRowsHalo) * kRowsX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = (int(blockIdx.x) * kRowsSteps - kRowsHalo) * kRowsX + tx;
  const int y = int(blockIdx.y) * kRowsY + ty;
  const float* in = src + size_t(y) * pitch;
  float* out = dst + size_t(y) * pitch;

#pragma unroll
  for (int s = 0; s < kRowsSteps + 2 * kRowsHalo; ++s) {
    const int x = x0 + s * kRowsX;
    tile[ty][tx + s * kRowsX] = (x >= 0 && x < W) ? in[x] : 0.0f;
  }
  __syncthreads();

#pragma unroll
  for (int s = kRowsHalo; s < kRowsHalo + kRowsSteps; ++s) {
    float acc = 0.0f;
#pragma unroll
    for (int k = -kRadius; k <= kRadius; ++k)
      acc = __fmaf_rn(c_filter[kRadius - k], tile[ty][tx + s * kRowsX + k], acc);
    out[x0 + s * kRowsX] = acc;
  }
}

// Column pass: block (16, 8) covers 16 columns x (STEPS * 8) rows. The tile is stored
// transposed (tile[x][y]) with one padding element so the vertical walk is conflict-free.
template <int STEPS>
__global__ void convolutionColumnsKernel(float* dst, const float* src, int W, int H, int pitch) {
  __shared__ float tile[kColsX][(STEPS + 2 * kColsHalo) * kColsY + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = int(blockIdx.x) * kColsX + tx;
  const int y0 = (int(blockIdx.y) * STEPS - kColsHalo) * kColsY + ty;

#pragma unroll
  for (int s = 0; s < STEPS + 2 * kColsHalo; ++s) {
    const int y = y0 + s * kColsY;
    tile[tx][ty + s * kColsY] = (y >= 0 && y < H) ? src[size_t(y) * pitch + x] : 0.0f;
  }
  __syncthreads();

#pragma unroll
  for (int s = kColsHalo; s < kColsHalo + STEPS; ++s) {
    float acc = 0.0f;
#pragma unroll
    for (int k = -kRadius; k <= kRadius; ++k)
      acc = __fmaf_rn(c_filter[kRadius - k], tile[tx][ty + s * kColsY + k], acc);
    dst[size_t(y0 + s * kColsY) * pitch + x] = acc;
  }
}

int main(int argc, char** argv) {
  const int size = int(wl::arg_int(argc, argv, 1, 512, 128, 1 << 15));
  const std::string variant = wl::arg_str(argc, argv, 2, "conv");
  if (size % 128) {
    std::printf("FAILED: size %d must be a multiple of 128\n", size);
    return 1;
  }
  if (variant != "conv" && variant != "cv") {
    std::printf("FAILED: variant '%s' must be conv or cv\n", variant.c_str());
    return 1;
  }
  const bool cv = variant == "cv";
  const int colSteps = cv ? 14 : 8;
  const int W = size, H = cv ? size * 7 / 8 : size, pitch = W;
  const size_t n = size_t(W) * H;

  std::vector<float> filter(kTaps), img(n), rows(n), cols(n), refRows(n), refCols(n);
  wl::Rng rf(11), ri(12);
  // Gaussian-like weights, rounded to multiples of 2^-12 so they are exact in float.
  for (int k = 0; k < kTaps; ++k) {
    const double d = double(k - kRadius) / 4.0;
    filter[k] = std::round(std::exp(-d * d) / 4.5 * 4096.0 + rf.range(-8, 8)) / 4096.0f;
  }
  for (size_t i = 0; i < n; ++i) img[i] = ri.unit();

  // CPU reference, same tap order and fused multiply-adds as the device.
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      float acc = 0.0f;
      for (int k = -kRadius; k <= kRadius; ++k) {
        const int xx = x + k;
        const float v = (xx >= 0 && xx < W) ? img[size_t(y) * pitch + xx] : 0.0f;
        acc = std::fma(filter[kRadius - k], v, acc);
      }
      refRows[size_t(y) * pitch + x] = acc;
    }
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      float acc = 0.0f;
      for (int k = -kRadius; k <= kRadius; ++k) {
        const int yy = y + k;
        const float v = (yy >= 0 && yy < H) ? refRows[size_t(yy) * pitch + x] : 0.0f;
        acc = std::fma(filter[kRadius - k], v, acc);
      }
      refCols[size_t(y) * pitch + x] = acc;
    }

  float *dImg, *dRows, *dCols;
  const size_t bytes = n * sizeof(float);
  WL_CK(cudaMalloc(&dImg, bytes));
  WL_CK(cudaMalloc(&dRows, bytes));
  WL_CK(cudaMalloc(&dCols, bytes));
  WL_CK(cudaMemcpy(dImg, img.data(), bytes, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpyToSymbol(c_filter, filter.data(), kTaps * sizeof(float)));

  const dim3 rowsBlock(kRowsX, kRowsY), rowsGrid(W / (kRowsSteps * kRowsX), H / kRowsY);
  convolutionRowsKernel<<<rowsGrid, rowsBlock>>>(dRows, dImg, W, H, pitch);
  WL_CK_LAUNCH();
  const dim3 colsBlock(kColsX, kColsY), colsGrid(W / kColsX, H / (colSteps * kColsY));
  if (cv)
    convolutionColumnsKernel<14><<<colsGrid, colsBlock>>>(dCols, dRows, W, H, pitch);
  else
    convolutionColumnsKernel<8><<<colsGrid, colsBlock>>>(dCols, dRows, W, H, pitch);
  WL_CK_LAUNCH();

  WL_CK(cudaMemcpy(rows.data(), dRows, bytes, cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(cols.data(), dCols, bytes, cudaMemcpyDeviceToHost));
  std::printf("convsep variant=%s W=%d H=%d rows grid=%ux%u cols grid=%ux%u steps=%d\n",
              variant.c_str(), W, H, rowsGrid.x, rowsGrid.y, colsGrid.x, colsGrid.y, colSteps);
  bool ok = wl::check_equal("row pass", rows.data(), refRows.data(), n);
  ok = ok && wl::check_equal("column pass", cols.data(), refCols.data(), n);
  WL_CK(cudaFree(dImg));
  WL_CK(cudaFree(dRows));
  WL_CK(cudaFree(dCols));
  return wl::finish(ok);
}
