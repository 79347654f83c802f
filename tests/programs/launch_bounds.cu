// launch_bounds: a __launch_bounds__(1024) kernel whose cubin (built for sm_75: 64K registers
// per SM) uses 64 registers per thread. A 1024-thread CTA fits the simulated Fermi's 32K
// registers only with the 32 registers ptxas would allocate for it; simtlab applies that cap
// (Runtime::register_alloc) and the kernel runs. The heavy register pressure (40 live
// accumulators) is checked against a host reference.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int kAcc = 40;

__host__ __device__ inline int heavy_value(const int* in, int t, int n) {
  int acc[kAcc];
#pragma unroll
  for (int j = 0; j < kAcc; ++j) acc[j] = in[(t + j * 97) % n];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int j = 0; j < kAcc; ++j) acc[j] = acc[j] * 3 + acc[(j + 1 + r) % kAcc];
  int s = 0;
#pragma unroll
  for (int j = 0; j < kAcc; ++j) s ^= acc[j] << (j % 7);
  return s;
}

__global__ void __launch_bounds__(1024) heavy(const int* in, int* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) out[t] = heavy_value(in, t, n);
}

int main() {
  const int n = 4096, threads = 1024;
  std::vector<int> in(n), out(n, 0);
  for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000 - 500;
  int *din, *dout;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dout, n * sizeof(int)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaFuncAttributes attr;
  CK(cudaFuncGetAttributes(&attr, heavy));
  if (attr.numRegs * threads > 32768 * 2) { printf("FAILED: numRegs %d\n", attr.numRegs); return 1; }
  heavy<<<n / threads, threads>>>(din, dout, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  unsigned h = 0;
  for (int i = 0; i < n; ++i) {
    const int want = heavy_value(in.data(), i, n);
    if (out[i] != want) { printf("FAILED: out[%d] = %d, expected %d\n", i, out[i], want); return 1; }
    h = h * 31u + unsigned(out[i]);
  }
  printf("launch_bounds n=%d threads=%d hash=%08x\n", n, threads, h);
  CK(cudaFree(din)); CK(cudaFree(dout));
  printf("PASSED\n");
  return 0;
}
