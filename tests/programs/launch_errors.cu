// launch_errors: launch-configuration errors are reported by cudaGetLastError as
// cudaErrorInvalidConfiguration (too many threads per block, gridDim.y > 65535, blockDim.z > 64),
// the failed kernel does not run, cudaPeekAtLastError does not clear the error but
// cudaGetLastError does, the error is not sticky (a later valid launch works), and cudaFree(nullptr)
// succeeds.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void mark(int* p) { atomicAdd(p, 1); }

static bool expectConfigError(const char* what) {
  cudaError_t peek = cudaPeekAtLastError();
  cudaError_t got = cudaGetLastError();
  cudaError_t after = cudaGetLastError();
  if (peek != cudaErrorInvalidConfiguration || got != cudaErrorInvalidConfiguration || after != cudaSuccess) {
    printf("FAILED: %s: peek=%s get=%s after=%s\n", what, cudaGetErrorName(peek), cudaGetErrorName(got), cudaGetErrorName(after));
    return false;
  }
  printf("%s -> %s\n", what, cudaGetErrorName(got));
  return true;
}

int main() {
  int* d;
  CK(cudaMalloc(&d, sizeof(int)));
  CK(cudaMemset(d, 0, sizeof(int)));
  mark<<<1, 2048>>>(d);
  if (!expectConfigError("blockDim.x = 2048")) return 1;
  mark<<<dim3(1, 70000), 32>>>(d);
  if (!expectConfigError("gridDim.y = 70000")) return 1;
  mark<<<1, dim3(1, 1, 128)>>>(d);
  if (!expectConfigError("blockDim.z = 128")) return 1;
  mark<<<3, 96>>>(d);                      // valid: errors are not sticky
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int h = -1;
  CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  if (h != 3 * 96) { printf("FAILED: counter = %d, expected %d (a failed launch ran?)\n", h, 3 * 96); return 1; }
  printf("valid launch after errors: counter=%d\n", h);
  CK(cudaFree(nullptr));
  if (strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration") != 0) {
    printf("FAILED: cudaGetErrorName\n"); return 1; }
  CK(cudaFree(d));
  printf("PASSED\n");
  return 0;
}
