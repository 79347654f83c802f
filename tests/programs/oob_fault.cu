// oob_fault: a kernel that writes past the end of its buffer. simtlab reports it like a
// sanitizer (kernel, block, thread, PTX line, address) and the error is sticky, as in CUDA:
// cudaDeviceSynchronize and later calls return cudaErrorIllegalAddress.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void overrun(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p[i] = i;  // no bounds check: threads >= n write past the allocation
}

int main() {
  int n = 100;
  int* d;
  cudaMalloc(&d, n * sizeof(int));
  overrun<<<1, 1024>>>(d, n);
  cudaError_t e = cudaDeviceSynchronize();
  printf("cudaDeviceSynchronize -> %s\n", cudaGetErrorName(e));
  cudaError_t again = cudaMemset(d, 0, 4);
  printf("later call -> %s\n", cudaGetErrorName(again));
  if (e != cudaErrorIllegalAddress || again != cudaErrorIllegalAddress) {
    printf("FAILED\n");
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
