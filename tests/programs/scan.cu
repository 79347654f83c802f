// scan: a three-kernel exclusive prefix sum over 10000 ints (per-block Hillis-Steele scan in
// double-buffered shared memory, a single-block scan of the block totals, then adding the block
// offsets), i.e. a classic multi-launch pipeline with __syncthreads in loops.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int T = 256;

// Exclusive scan of each block's T elements; writes the block total to sums[blockIdx.x].
__global__ void blockScan(const int* in, int* out, int* sums, int n) {
  __shared__ int buf[2][T];
  int t = threadIdx.x, i = blockIdx.x * T + t;
  int v = i < n ? in[i] : 0;
  int cur = 0;
  buf[cur][t] = v;
  __syncthreads();
  for (int off = 1; off < T; off <<= 1) {
    int x = buf[cur][t];
    if (t >= off) x += buf[cur][t - off];
    buf[cur ^ 1][t] = x;
    cur ^= 1;
    __syncthreads();
  }
  if (i < n) out[i] = buf[cur][t] - v;       // inclusive -> exclusive
  if (t == T - 1) sums[blockIdx.x] = buf[cur][t];
}

__global__ void addOffsets(int* out, const int* offsets, int n) {
  int i = blockIdx.x * T + threadIdx.x;
  if (i < n) out[i] += offsets[blockIdx.x];
}

int main() {
  const int n = 10000, B = (n + T - 1) / T;   // 40 blocks, fits one block for the second level
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 23 - 7;
  int *din, *dout, *dsums, *doffs, *dtot;
  CK(cudaMalloc(&din, n * sizeof(int))); CK(cudaMalloc(&dout, n * sizeof(int)));
  CK(cudaMalloc(&dsums, T * sizeof(int))); CK(cudaMalloc(&doffs, T * sizeof(int))); CK(cudaMalloc(&dtot, sizeof(int)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  blockScan<<<B, T>>>(din, dout, dsums, n);
  blockScan<<<1, T>>>(dsums, doffs, dtot, B);
  addOffsets<<<B, T>>>(dout, doffs, n);
  CK(cudaGetLastError());
  int total = 0;
  CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&total, dtot, sizeof(int), cudaMemcpyDeviceToHost));
  int run = 0;
  for (int i = 0; i < n; ++i) {
    if (out[i] != run) { printf("FAILED: scan[%d] = %d, expected %d\n", i, out[i], run); return 1; }
    run += in[i];
  }
  if (total != run) { printf("FAILED: total %d vs %d\n", total, run); return 1; }
  printf("scan: n=%d blocks=%d total=%d scan[5000]=%d\n", n, B, total, out[5000]);
  cudaFree(din); cudaFree(dout); cudaFree(dsums); cudaFree(doffs); cudaFree(dtot);
  printf("PASSED\n");
  return 0;
}
