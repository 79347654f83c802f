// warp_reduce: warp-shuffle reductions: tree sum with __shfl_down_sync combined across warps
// through shared memory, butterfly max with __shfl_xor_sync (every lane gets the result), an
// inclusive warp scan with __shfl_up_sync, a float sum with exact values, and a grid-wide total.
#include <cstdio>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr unsigned FULL = 0xffffffffu;

__device__ int warpSum(int v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(FULL, v, off);
  return v;   // valid in lane 0
}
__device__ int warpMaxAll(int v) {
  for (int m = 1; m < 32; m <<= 1) v = max(v, __shfl_xor_sync(FULL, v, m));
  return v;   // valid in all lanes
}
__device__ float warpSumF(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(FULL, v, off);
  return v;
}

// blockDim.x is a multiple of 32 and at most 1024.
__global__ void reduceKernel(const int* in, int* blockSum, int* blockMax, float* blockSumF,
                             int* scan, int* grandTotal, int n) {
  __shared__ int sWarp[32];
  __shared__ float sWarpF[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
  int v = i < n ? in[i] : 0;
  // Inclusive scan within the warp.
  int s = v;
  for (int off = 1; off < 32; off <<= 1) {
    int up = __shfl_up_sync(FULL, s, off);
    if (lane >= off) s += up;
  }
  if (i < n) scan[i] = s;
  int mx = warpMaxAll(i < n ? v : -2147483647 - 1);
  int ws = warpSum(v);
  float wf = warpSumF((float)v * 0.25f);
  __shared__ int sMax[32];
  if (lane == 0) { sWarp[warp] = ws; sWarpF[warp] = wf; sMax[warp] = mx; }
  __syncthreads();
  if (warp == 0) {
    int a = lane < nw ? sWarp[lane] : 0;
    int b = lane < nw ? sMax[lane] : -2147483647 - 1;
    float f = lane < nw ? sWarpF[lane] : 0.0f;
    a = warpSum(a); b = warpMaxAll(b); f = warpSumF(f);
    if (lane == 0) {
      blockSum[blockIdx.x] = a; blockMax[blockIdx.x] = b; blockSumF[blockIdx.x] = f;
      atomicAdd(grandTotal, a);
    }
  }
}

int main() {
  const int n = 10000, T = 256, B = (n + T - 1) / T;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (int)((i * 48271u) % 2003u) - 1001;
  int *din, *dsum, *dmax, *dscan, *dtot; float* dsf;
  CK(cudaMalloc(&din, n * sizeof(int))); CK(cudaMalloc(&dsum, B * sizeof(int))); CK(cudaMalloc(&dmax, B * sizeof(int)));
  CK(cudaMalloc(&dscan, n * sizeof(int))); CK(cudaMalloc(&dtot, sizeof(int))); CK(cudaMalloc(&dsf, B * sizeof(float)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dtot, 0, sizeof(int)));
  reduceKernel<<<B, T>>>(din, dsum, dmax, dsf, dscan, dtot, n);
  CK(cudaGetLastError());
  std::vector<int> bsum(B), bmax(B), scan(n); std::vector<float> bsf(B); int tot = 0;
  CK(cudaMemcpy(bsum.data(), dsum, B * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(bmax.data(), dmax, B * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(bsf.data(), dsf, B * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(scan.data(), dscan, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&tot, dtot, sizeof(int), cudaMemcpyDeviceToHost));
  long long total = 0;
  for (int b = 0; b < B; ++b) {
    int s = 0, m = -2147483647 - 1; float f = 0;
    for (int i = b * T; i < n && i < (b + 1) * T; ++i) { s += in[i]; m = std::max(m, in[i]); f += in[i] * 0.25f; }
    if (bsum[b] != s || bmax[b] != m || bsf[b] != f) {
      printf("FAILED: block %d: sum %d/%d max %d/%d fsum %f/%f\n", b, bsum[b], s, bmax[b], m, bsf[b], f); return 1; }
    total += s;
  }
  for (int i = 0, run = 0; i < n; ++i) {
    run = (i % 32 == 0) ? in[i] : run + in[i];
    if (scan[i] != run) { printf("FAILED: warp scan at %d: %d vs %d\n", i, scan[i], run); return 1; }
  }
  if (tot != total) { printf("FAILED: grand total %d vs %lld\n", tot, total); return 1; }
  printf("warp reductions ok: blocks=%d total=%d block0 sum=%d max=%d fsum=%.2f\n", B, tot, bsum[0], bmax[0], bsf[0]);
  cudaFree(din); cudaFree(dsum); cudaFree(dmax); cudaFree(dscan); cudaFree(dtot); cudaFree(dsf);
  printf("PASSED\n");
  return 0;
}
