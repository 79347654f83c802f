// Transfer-region markers (include/simtlab/xfer.h): a software-tiling loop, unrolled by 2 so the
// marker label appears twice in the kernel's PTX. Natively (and under simtlab with
// d2ma.xfer_regions off) the marker is nothing; program.timing.xfer_regions runs it with the
// measurement on and requires exactly kCtas x kTiles regions (tests/CMakeLists.txt).
#include <cstdio>
#include <vector>

#include "simtlab/xfer.h"

constexpr int kThreads = 128, kCtas = 6, kTiles = 4;

__global__ void tiled_sum(const int* in, int* out) {
  __shared__ int s[kThreads];
  const int t = threadIdx.x;
  const int* p = in + blockIdx.x * kTiles * kThreads;
  int acc = 0;
#pragma unroll 2
  for (int k = 0; k < kTiles; ++k) {
    simtlab_xfer_begin();
    s[t] = p[k * kThreads + t];  // transfer: global -> register -> shared
    __syncthreads();
    acc += s[(t + 1) % kThreads];  // compute: a neighbour's word
    __syncthreads();
  }
  out[blockIdx.x * kThreads + t] = acc;
}

int main() {
  const int n = kCtas * kTiles * kThreads;
  std::vector<int> in(n), out(kCtas * kThreads);
  for (int i = 0; i < n; ++i) in[i] = i % 97;
  int *din, *dout;
  cudaMalloc(&din, n * sizeof(int));
  cudaMalloc(&dout, out.size() * sizeof(int));
  cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  tiled_sum<<<kCtas, kThreads>>>(din, dout);
  cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < kCtas; ++b)
    for (int t = 0; t < kThreads; ++t) {
      int ref = 0;
      for (int k = 0; k < kTiles; ++k) ref += in[(b * kTiles + k) * kThreads + (t + 1) % kThreads];
      bad += out[b * kThreads + t] != ref;
    }
  cudaFree(din);
  cudaFree(dout);
  std::printf("xfer: %d CTAs x %d tiles, %d wrong\n", kCtas, kTiles, bad);
  std::printf(bad ? "FAILED\n" : "PASSED\n");
  return bad ? 1 : 0;
}
