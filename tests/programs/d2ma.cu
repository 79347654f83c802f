// D2MA intrinsics (include/simtlab/d2ma.h): every transfer kind, checked against the host.
// Runs the software fallback on a real GPU and under simtlab with d2ma.enable=false, and the
// engine under simtlab --mode timing with d2ma.enable=true; all must print the same and PASSED.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "simtlab/d2ma.h"

#define CK(x)                                                            \
  do {                                                                   \
    cudaError_t e_ = (x);                                                \
    if (e_ != cudaSuccess) {                                             \
      printf("FAILED: %s: %s\n", #x, cudaGetErrorString(e_));            \
      exit(1);                                                           \
    }                                                                    \
  } while (0)

constexpr int T = 128;  // tile elements / threads per CTA

// SAXPY with two unit-stride buffers re-executed per tile (the paper's Fig. 8 pattern).
__global__ void saxpy_d2ma(const float* x, const float* y, float* out, float a, int tiles) {
  __shared__ float bx[T], by[T];
  dma_init();
  dma_set_datatype_float();
  const int base = blockIdx.x * tiles * T;
  dma_configure_flat_unit_stride(bx, x + base, T);
  dma_configure_flat_unit_stride(by, y + base, T);
  for (int k = 0; k < tiles; ++k) {
    if (k > 0) {
      dma_execute(bx, x + base + k * T, 0);
      dma_execute(by, y + base + k * T, 0);
    }
    out[base + k * T + threadIdx.x] = a * bx[threadIdx.x] + by[threadIdx.x];
  }
}

// Strided: every 3rd element (a column of a 3-wide array).
__global__ void strided_d2ma(const int* in, int* out) {
  __shared__ int b[T];
  dma_init();
  dma_set_datatype_int();
  dma_configure_flat_strided(b, in + blockIdx.x * T * 3 + 1, T, 3);
  out[blockIdx.x * T + threadIdx.x] = b[T - 1 - threadIdx.x] * 2;
}

// 2D tile, bank-conflict mode (n = 16 per row -> padded [16][17]) for a transpose.
__global__ void transpose_d2ma(const float* in, float* out, int n) {
  __shared__ float t[16 * 17];
  dma_init();
  dma_set_datatype_float();
  dma_enable_bank_conflict_mode(16);
  const int bx = blockIdx.x * 16, by = blockIdx.y * 16;
  dma_configure_matrix_2d(t, in + by * n + bx, 16, 16, n);
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;  // 256 threads
  out[(bx + ty) * n + by + tx] = t[tx * 17 + ty];
}

// Halo mode: 3x3 mean over 16x16 tiles with a 1-cell halo, constant 0 outside the image.
__global__ void mean_d2ma(const float* in, float* out, int n) {
  __shared__ float f[18 * 18];
  dma_init();
  dma_set_datatype_float();
  dma_enable_halo(1, 1, 0.0f);
  const int bx = blockIdx.x, by = blockIdx.y, nb = gridDim.x;
  const bool top = by == 0, bot = by == nb - 1, left = bx == 0, right = bx == nb - 1;
  int region = 9;
  if (top) region = left ? 1 : right ? 3 : 2;
  else if (bot) region = left ? 6 : right ? 8 : 7;
  else if (left) region = 4;
  else if (right) region = 5;
  dma_configure_matrix_2d(f, in + by * 16 * n + bx * 16, 16, 16, n, region);
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float s = 0;
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) s += f[(ty + dy) * 18 + tx + dx];
  out[(by * 16 + ty) * n + bx * 16 + tx] = s / 9.0f;
}

int main() {
  int fails = 0;
  {  // saxpy
    const int ctas = 4, tiles = 3, N = ctas * tiles * T;
    std::vector<float> x(N), y(N), o(N);
    for (int i = 0; i < N; ++i) x[i] = float(i % 17), y[i] = float(i % 5) * 0.5f;
    float *dx, *dy, *dout;
    CK(cudaMalloc(&dx, N * 4)); CK(cudaMalloc(&dy, N * 4)); CK(cudaMalloc(&dout, N * 4));
    CK(cudaMemcpy(dx, x.data(), N * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, y.data(), N * 4, cudaMemcpyHostToDevice));
    saxpy_d2ma<<<ctas, T>>>(dx, dy, dout, 2.0f, tiles);
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), dout, N * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += o[i] != 2.0f * x[i] + y[i];
    printf("saxpy: %d mismatches\n", bad);
    fails += bad != 0;
  }
  {  // strided
    const int ctas = 2;
    std::vector<int> in(ctas * T * 3), o(ctas * T);
    for (size_t i = 0; i < in.size(); ++i) in[i] = int(i * 7 + 1);
    int *di, *dout;
    CK(cudaMalloc(&di, in.size() * 4)); CK(cudaMalloc(&dout, o.size() * 4));
    CK(cudaMemcpy(di, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
    strided_d2ma<<<ctas, T>>>(di, dout);
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < ctas; ++b)
      for (int t = 0; t < T; ++t) bad += o[b * T + t] != 2 * in[b * T * 3 + 1 + (T - 1 - t) * 3];
    printf("strided: %d mismatches\n", bad);
    fails += bad != 0;
  }
  const int n = 48;
  std::vector<float> img(n * n), o(n * n);
  for (int i = 0; i < n * n; ++i) img[i] = float((i * 37) % 101) * 0.25f;
  float *din, *dout;
  CK(cudaMalloc(&din, n * n * 4)); CK(cudaMalloc(&dout, n * n * 4));
  CK(cudaMemcpy(din, img.data(), n * n * 4, cudaMemcpyHostToDevice));
  {  // transpose
    transpose_d2ma<<<dim3(n / 16, n / 16), 256>>>(din, dout, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), dout, n * n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) bad += o[c * n + r] != img[r * n + c];
    printf("transpose: %d mismatches\n", bad);
    fails += bad != 0;
  }
  {  // mean (halo)
    mean_d2ma<<<dim3(n / 16, n / 16), 256>>>(din, dout, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), dout, n * n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        float s = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int rr = r + dy, cc = c + dx;
            s += (rr < 0 || cc < 0 || rr >= n || cc >= n) ? 0.0f : img[rr * n + cc];
          }
        bad += o[r * n + c] != s / 9.0f;
      }
    printf("mean (halo): %d mismatches\n", bad);
    fails += bad != 0;
  }
  if (fails) {
    printf("FAILED: %d kernels\n", fails);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
