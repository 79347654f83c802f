// transpose: matrix transpose of a non-square 96x160 float matrix three ways: naive, through a
// 32x33 shared-memory tile (padding against bank conflicts) with 32x8 thread blocks that loop
// over rows, and a double-precision version; also a 2D grid whose x and y extents differ.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int TILE = 32, ROWS = 8;

__global__ void transposeNaive(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[x * h + y] = in[y * w + x];
}

template <typename T>
__global__ void transposeTiled(const T* in, T* out, int w, int h) {
  __shared__ T tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int w = 160, h = 96, n = w * h;
  std::vector<float> in(n), a(n), b(n);
  std::vector<double> ind(n), c(n);
  for (int i = 0; i < n; ++i) { in[i] = (float)(i % 1000) * 0.5f; ind[i] = i * 0.125 - 100.0; }
  float *din, *da, *db; double *dind, *dc;
  CK(cudaMalloc(&din, n * sizeof(float))); CK(cudaMalloc(&da, n * sizeof(float))); CK(cudaMalloc(&db, n * sizeof(float)));
  CK(cudaMalloc(&dind, n * sizeof(double))); CK(cudaMalloc(&dc, n * sizeof(double)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dind, ind.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  transposeNaive<<<dim3(w / 16, h / 16), dim3(16, 16)>>>(din, da, w, h);
  dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE), block(TILE, ROWS);
  transposeTiled<float><<<grid, block>>>(din, db, w, h);
  transposeTiled<double><<<grid, block>>>(dind, dc, w, h);
  CK(cudaGetLastError());
  CK(cudaMemcpy(a.data(), da, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), db, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(c.data(), dc, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int src = y * w + x, dst = x * h + y;
      if (a[dst] != in[src]) { printf("FAILED: naive (%d,%d)\n", y, x); return 1; }
      if (b[dst] != in[src]) { printf("FAILED: tiled float (%d,%d)\n", y, x); return 1; }
      if (c[dst] != ind[src]) { printf("FAILED: tiled double (%d,%d)\n", y, x); return 1; }
    }
  printf("transpose %dx%d: naive, tiled<float>, tiled<double> ok; out[1]=%.1f out[%d]=%.3f\n", h, w, b[1], n - 1, c[n - 1]);
  cudaFree(din); cudaFree(da); cudaFree(db); cudaFree(dind); cudaFree(dc);
  printf("PASSED\n");
  return 0;
}
