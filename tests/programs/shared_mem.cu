// shared_mem: dynamic shared memory (extern __shared__, size from the third launch parameter,
// several different sizes) together with static __shared__ arrays in the same kernel; a
// dynamic buffer carved into an int part and a double part; block-wide reversal and a
// per-block histogram built with shared-memory atomics.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

// Reverses each block's slice of `in` and counts values mod 16 per block.
__global__ void reverseAndHist(const int* in, int* out, int* hist) {
  extern __shared__ int s_dyn[];           // blockDim.x ints
  __shared__ int s_hist[16];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  if (t < 16) s_hist[t] = 0;
  s_dyn[t] = in[base + t];
  __syncthreads();
  out[base + t] = s_dyn[blockDim.x - 1 - t];
  atomicAdd(&s_hist[s_dyn[t] & 15], 1);
  __syncthreads();
  if (t < 16) hist[blockIdx.x * 16 + t] = s_hist[t];
}

// Dynamic buffer layout: [blockDim.x doubles][blockDim.x ints]; doubles first keeps alignment.
__global__ void mixedLayout(const int* in, double* out) {
  extern __shared__ double s_mem[];
  double* s_d = s_mem;
  int* s_i = (int*)(s_mem + blockDim.x);
  __shared__ double s_total;
  int t = threadIdx.x, n = blockDim.x;
  s_i[t] = in[blockIdx.x * n + t];
  s_d[t] = s_i[t] * 0.5;
  if (t == 0) s_total = 0;
  __syncthreads();
  // Each thread combines its neighbour's values (written by another thread).
  int nb = (t + 1) % n;
  double v = s_d[nb] + s_i[nb];
  if (t == 0) { double acc = 0; for (int k = 0; k < n; ++k) acc += s_d[k]; s_total = acc; }
  __syncthreads();
  out[blockIdx.x * n + t] = v + s_total;
}

int main() {
  const int sizes[3] = {64, 128, 256};
  const int n = 4096;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 20;
  int *din, *dout, *dhist; double* dd;
  CK(cudaMalloc(&din, n * sizeof(int))); CK(cudaMalloc(&dout, n * sizeof(int)));
  CK(cudaMalloc(&dhist, (n / 64) * 16 * sizeof(int))); CK(cudaMalloc(&dd, n * sizeof(double)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  for (int T : sizes) {
    int B = n / T;
    reverseAndHist<<<B, T, T * sizeof(int)>>>(din, dout, dhist);
    mixedLayout<<<B, T, T * (sizeof(double) + sizeof(int))>>>(din, dd);
    CK(cudaGetLastError());
    std::vector<int> out(n), hist(B * 16); std::vector<double> dv(n);
    CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hist.data(), dhist, B * 16 * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dv.data(), dd, n * sizeof(double), cudaMemcpyDeviceToHost));
    for (int b = 0; b < B; ++b) {
      int h[16] = {0};
      double total = 0;
      for (int t = 0; t < T; ++t) { h[in[b * T + t] & 15]++; total += in[b * T + t] * 0.5; }
      for (int t = 0; t < T; ++t) {
        int i = b * T + t;
        if (out[i] != in[b * T + T - 1 - t]) { printf("FAILED: T=%d reverse at %d\n", T, i); return 1; }
        int nb = b * T + (t + 1) % T;
        double ref = (in[nb] * 0.5 + in[nb]) + total;
        if (dv[i] != ref) { printf("FAILED: T=%d mixedLayout at %d: %f vs %f\n", T, i, dv[i], ref); return 1; }
      }
      for (int k = 0; k < 16; ++k)
        if (hist[b * 16 + k] != h[k]) { printf("FAILED: T=%d hist block %d bin %d\n", T, b, k); return 1; }
    }
    printf("block size %d: dynamic smem %zu + %zu bytes ok, hist[0][0..3]=%d %d %d %d\n", T,
           T * sizeof(int), T * (sizeof(double) + sizeof(int)), hist[0], hist[1], hist[2], hist[3]);
  }
  cudaFree(din); cudaFree(dout); cudaFree(dhist); cudaFree(dd);
  printf("PASSED\n");
  return 0;
}
