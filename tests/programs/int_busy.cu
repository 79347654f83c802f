// int_busy: an integer multiply-add loop that keeps every SM's pipeline busy (few registers,
// no memory traffic inside the loop), launched `launches` times with identical work. Used by
// the power model's calibration and linearity tests (docs/power-area.md): seed 004's Tesla-like
// GPGPU is integer-only, so its synthesis power is compared on integer work.
//   int_busy [launches=1] [iters=256] [blocks=64] [threads=128]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__host__ __device__ unsigned busy_value(unsigned tid, unsigned bid, int iters) {
  unsigned a = tid + 1, b = bid * 7 + 1, c = 0x9e3779b9u;
  for (int i = 0; i < iters; ++i) {
    a = a * b + c;
    b = b * 3 + a;
    c ^= a + b;
  }
  return a ^ b ^ c;
}

__global__ void busy(unsigned* out, int iters) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = busy_value(threadIdx.x, blockIdx.x, iters);
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? atoi(argv[1]) : 1;
  const int iters = argc > 2 ? atoi(argv[2]) : 256;
  const int blocks = argc > 3 ? atoi(argv[3]) : 64;
  const int threads = argc > 4 ? atoi(argv[4]) : 128;
  const int n = blocks * threads;
  unsigned* d;
  CK(cudaMalloc(&d, n * sizeof(unsigned)));
  for (int l = 0; l < launches; ++l) {
    busy<<<blocks, threads>>>(d, iters);
    CK(cudaGetLastError());
  }
  std::vector<unsigned> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned sum = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned want = busy_value(unsigned(i % threads), unsigned(i / threads), iters);
    if (h[i] != want) {
      printf("FAILED: out[%d] = %u, want %u\n", i, h[i], want);
      return 1;
    }
    sum += h[i];
  }
  printf("int_busy: %d launches x %d blocks x %d threads x %d iterations, checksum %u\n",
         launches, blocks, threads, iters, sum);
  printf("PASSED\n");
  CK(cudaFree(d));
  return 0;
}
