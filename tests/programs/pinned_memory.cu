// pinned_memory: page-locked host memory from cudaMallocHost (both the template and the void**
// form) and cudaHostAlloc (Default and Portable flags), synchronous copies H2D, D2D and D2H
// (also with cudaMemcpyDefault), a kernel in between, and cudaFreeHost.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void mix(const double* a, const unsigned* b, double* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * 0.25 + (double)(b[i] >> 3);
}

int main() {
  const int n = 3000;
  double *hA, *hC; unsigned* hB; void* raw;
  CK(cudaMallocHost(&hA, n * sizeof(double)));                   // template overload
  CK(cudaMallocHost(&raw, n * sizeof(unsigned)));                 // void** overload
  hB = (unsigned*)raw;
  CK(cudaHostAlloc((void**)&hC, n * sizeof(double), cudaHostAllocPortable));
  char* hFlags;
  CK(cudaHostAlloc((void**)&hFlags, 64, cudaHostAllocDefault));
  for (int i = 0; i < 64; ++i) hFlags[i] = (char)i;
  for (int i = 0; i < n; ++i) { hA[i] = i - 1500.5; hB[i] = 0xdeadbeefu ^ (i * 40503u); hC[i] = -1; }

  double *dA, *dA2, *dC; unsigned* dB;
  CK(cudaMalloc(&dA, n * sizeof(double))); CK(cudaMalloc(&dA2, n * sizeof(double)));
  CK(cudaMalloc(&dB, n * sizeof(unsigned))); CK(cudaMalloc(&dC, n * sizeof(double)));
  CK(cudaMemcpy(dA, hA, n * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dA2, dA, n * sizeof(double), cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(dB, hB, n * sizeof(unsigned), cudaMemcpyDefault));
  mix<<<(n + 255) / 256, 256>>>(dA2, dB, dC, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hC, dC, n * sizeof(double), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    double ref = hA[i] * 0.25 + (double)(hB[i] >> 3);
    if (hC[i] != ref) { printf("FAILED: c[%d] = %f, expected %f\n", i, hC[i], ref); return 1; }
    sum += hC[i] - (double)(hB[i] >> 3);
  }
  CK(cudaMemcpy(hC, dA, n * sizeof(double), cudaMemcpyDefault));   // D2H, inferred
  for (int i = 0; i < n; ++i) if (hC[i] != hA[i]) { printf("FAILED: default-kind copy at %d\n", i); return 1; }
  for (int i = 0; i < 64; ++i) if (hFlags[i] != (char)i) { printf("FAILED: host alloc contents\n"); return 1; }
  printf("pinned copies ok: n=%d, sum of a/4 = %.3f\n", n, sum);
  CK(cudaFreeHost(hA)); CK(cudaFreeHost(hB)); CK(cudaFreeHost(hC)); CK(cudaFreeHost(hFlags));
  cudaFree(dA); cudaFree(dA2); cudaFree(dB); cudaFree(dC);
  printf("PASSED\n");
  return 0;
}
