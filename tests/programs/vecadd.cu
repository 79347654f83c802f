// vecadd: the basic path. cudaMalloc/cudaMemcpy/cudaFree, one kernel with a bounds check, a
// size that is not a multiple of the block size. Values are exact in float, so the check is exact.
// Also built with every --compress-mode, multi-arch -gencode and -lineinfo (see CMakeLists.txt).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void vecAdd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 10000, threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) { a[i] = i * 0.5f; b[i] = (n - i) * 0.25f; }
  float *da, *db, *dc;
  size_t bytes = n * sizeof(float);
  CK(cudaMalloc(&da, bytes)); CK(cudaMalloc(&db, bytes)); CK(cudaMalloc(&dc, bytes));
  CK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
  vecAdd<<<blocks, threads>>>(da, db, dc, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) { printf("FAILED: c[%d] = %f, expected %f\n", i, c[i], a[i] + b[i]); return 1; }
    sum += c[i];
  }
  printf("vecadd n=%d blocks=%d threads=%d\n", n, blocks, threads);
  printf("c[0]=%.2f c[%d]=%.2f sum=%.2f\n", c[0], n - 1, c[n - 1], sum);
  CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc));
  printf("PASSED\n");
  return 0;
}
