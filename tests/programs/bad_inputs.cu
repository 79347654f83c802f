// bad_inputs: CUDA API misuse returns the error a real runtime returns, and the process keeps
// working afterwards (nothing here is sticky).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void touch(int* p) { p[threadIdx.x] = threadIdx.x; }
__global__ void bigShared(int* p) {
  extern __shared__ int s[];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  p[threadIdx.x] = s[threadIdx.x];
}
static void notAKernel(int*) {}

static int failures = 0;
static void expect(const char* what, cudaError_t got, cudaError_t want) {
  printf("%-40s -> %s\n", what, cudaGetErrorName(got));
  if (got != want) {
    printf("FAILED: %s: expected %s\n", what, cudaGetErrorName(want));
    ++failures;
  }
}

int main() {
  int* d = nullptr;
  expect("cudaMalloc", cudaMalloc(&d, 1024 * sizeof(int)), cudaSuccess);
  int host[4] = {1, 2, 3, 4};
  // A host pointer where a device pointer is required.
  expect("cudaMemcpy H2D to a host pointer", cudaMemcpy(host, host + 1, 4, cudaMemcpyHostToDevice),
         cudaErrorInvalidValue);
  cudaGetLastError();
  // Past the end of an allocation.
  expect("cudaMemcpy past the allocation end", cudaMemcpy(d + 1000, host, 100 * sizeof(int), cudaMemcpyHostToDevice),
         cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaMemset of a host pointer", cudaMemset(host, 0, sizeof host), cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaFree of a non-allocation", cudaFree(d + 3), cudaErrorInvalidValue);
  cudaGetLastError();
  // A function that is not a kernel.
  void* args[] = {&d};
  expect("cudaLaunchKernel(non-kernel)",
         cudaLaunchKernel((const void*)notAKernel, dim3(1), dim3(32), args, 0, 0), cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
  // Too many threads per block.
  touch<<<1, 2048>>>(d);
  expect("launch with 2048 threads", cudaGetLastError(), cudaErrorInvalidConfiguration);
  // Too much dynamic shared memory (the limit without opt-in is 48 KB).
  bigShared<<<1, 32, 100 * 1024>>>(d);
  expect("launch with 100 KB shared memory", cudaGetLastError(), cudaErrorInvalidValue);
  // Everything still works.
  touch<<<1, 32>>>(d);
  expect("valid launch", cudaGetLastError(), cudaSuccess);
  int out[32];
  expect("cudaMemcpy D2H", cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 32; ++i)
    if (out[i] != i) {
      printf("FAILED: out[%d] = %d\n", i, out[i]);
      return 1;
    }
  expect("cudaFree", cudaFree(d), cudaSuccess);
  if (failures) return 1;
  printf("PASSED\n");
  return 0;
}
