// reduce_sync: __syncthreads-based block reductions in three classic variants (interleaved
// addressing with %, sequential addressing, first-add-during-load with a warp-synchronous tail
// that uses __syncwarp), a two-pass grid reduction, and __syncthreads_count/_and/_or.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int T = 128;

__global__ void reduceInterleaved(const int* in, int* out) {
  __shared__ int s[T];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * T + t];
  __syncthreads();
  for (unsigned stride = 1; stride < T; stride *= 2) {
    if (t % (2 * stride) == 0) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reduceSequential(const int* in, int* out) {
  __shared__ int s[T];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * T + t];
  __syncthreads();
  for (unsigned stride = T / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// Each block reduces 2*T elements; the last 64 -> 1 steps run in warp 0 with __syncwarp.
__global__ void reduceTwoLoads(const int* in, int* out, int n) {
  __shared__ int s[T];
  unsigned t = threadIdx.x, i = blockIdx.x * 2 * T + t;
  int v = 0;
  if (i < n) v = in[i];
  if (i + T < n) v += in[i + T];
  s[t] = v;
  __syncthreads();
  for (unsigned stride = T / 2; stride > 32; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    int x = s[t] + s[t + 32];
    for (int off = 16; off > 0; off >>= 1) {
      __syncwarp();
      s[t] = x;
      __syncwarp();
      if (t + off < 32) x += s[t + off];
    }
    if (t == 0) out[blockIdx.x] = x;
  }
}

__global__ void voteCounts(const int* in, int* out) {
  int v = in[blockIdx.x * T + threadIdx.x];
  int cnt = __syncthreads_count(v % 3 == 0);
  int all = __syncthreads_and(v >= 0);
  int any = __syncthreads_or(v > 1000);
  if (threadIdx.x == 0) { out[3 * blockIdx.x] = cnt; out[3 * blockIdx.x + 1] = all != 0; out[3 * blockIdx.x + 2] = any != 0; }
}

int main() {
  const int n = 8192, B = n / T;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (int)((i * 7919u) % 1009u) - (i % 64 == 5 ? 2000 : 0);
  int *din, *dp, *dtot;
  CK(cudaMalloc(&din, n * sizeof(int))); CK(cudaMalloc(&dp, 3 * B * sizeof(int))); CK(cudaMalloc(&dtot, sizeof(int)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> part(3 * B);
  long long total = 0;
  std::vector<int> ref(B, 0);
  for (int i = 0; i < n; ++i) { ref[i / T] += in[i]; total += in[i]; }

  const char* names[2] = {"interleaved", "sequential"};
  for (int variant = 0; variant < 2; ++variant) {
    if (variant == 0) reduceInterleaved<<<B, T>>>(din, dp); else reduceSequential<<<B, T>>>(din, dp);
    CK(cudaMemcpy(part.data(), dp, B * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < B; ++b)
      if (part[b] != ref[b]) { printf("FAILED: %s block %d: %d vs %d\n", names[variant], b, part[b], ref[b]); return 1; }
    printf("%s: block sums ok, block0=%d\n", names[variant], part[0]);
  }
  // Two passes: n -> n/(2T) partials -> 1.
  int B2 = (n + 2 * T - 1) / (2 * T);
  reduceTwoLoads<<<B2, T>>>(din, dp, n);
  reduceTwoLoads<<<1, T>>>(dp, dtot, B2);
  int tot = 0;
  CK(cudaMemcpy(&tot, dtot, sizeof(int), cudaMemcpyDeviceToHost));
  if (tot != total) { printf("FAILED: two-pass total %d vs %lld\n", tot, total); return 1; }
  printf("two-pass total=%d\n", tot);

  voteCounts<<<B, T>>>(din, dp);
  CK(cudaGetLastError());
  CK(cudaMemcpy(part.data(), dp, 3 * B * sizeof(int), cudaMemcpyDeviceToHost));
  int cntSum = 0, allSum = 0, anySum = 0;
  for (int b = 0; b < B; ++b) {
    int c = 0, a = 1, o = 0;
    for (int t = 0; t < T; ++t) { int v = in[b * T + t]; c += v % 3 == 0; a &= v >= 0; o |= v > 1000; }
    if (part[3 * b] != c || part[3 * b + 1] != a || part[3 * b + 2] != o) { printf("FAILED: vote block %d\n", b); return 1; }
    cntSum += c; allSum += a; anySum += o;
  }
  printf("syncthreads_count total=%d and-blocks=%d or-blocks=%d\n", cntSum, allSum, anySum);
  cudaFree(din); cudaFree(dp); cudaFree(dtot);
  printf("PASSED\n");
  return 0;
}
