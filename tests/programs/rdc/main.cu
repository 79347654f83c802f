// rdc (main.cu + devlib.cu, built with -rdc=true): separate compilation. A kernel here calls
// __device__ functions defined in devlib.cu (one non-inlined and recursive) and reads an extern
// __device__ table defined there; devlib.cu's kernel calls a __device__ function defined here.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "devlib.h"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ int mainHelper(int x) { return x * 3 - 1; }   // called from devlib.cu

__global__ void useLib(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = libCombine(in[i], i) + libTable[i % LIB_TABLE_SIZE] + libSumDigits(in[i]);
}

int main() {
  const int n = 1000;
  std::vector<int> in(n), out(n), out2(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 10007 - 5000;
  int *din, *dout;
  CK(cudaMalloc(&din, n * sizeof(int))); CK(cudaMalloc(&dout, n * sizeof(int)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CK(libInitTable());                                   // host function in devlib.cu
  useLib<<<(n + 127) / 128, 128>>>(din, dout, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  launchLibKernel(dout, n);                              // kernel defined in devlib.cu
  CK(cudaGetLastError());
  CK(cudaMemcpy(out2.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    int e = hostLibCombine(in[i], i) + hostLibTable(i % LIB_TABLE_SIZE) + hostSumDigits(in[i]);
    if (out[i] != e) { printf("FAILED: useLib[%d] = %d, expected %d\n", i, out[i], e); return 1; }
    int e2 = (e * 3 - 1) ^ 0x55;
    if (out2[i] != e2) { printf("FAILED: libKernel[%d] = %d, expected %d\n", i, out2[i], e2); return 1; }
    sum += e2;
  }
  printf("rdc: cross-file device calls ok, n=%d sum=%lld\n", n, sum);
  cudaFree(din); cudaFree(dout);
  printf("PASSED\n");
  return 0;
}
