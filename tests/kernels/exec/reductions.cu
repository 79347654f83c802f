// reductions: shared-memory tree reduction with __syncthreads (barriers in a loop), warp
// reductions with shuffles (down / xor / up scan), and __syncthreads_count/_and/_or.
// Host reference: ref_reductions.
#include <cuda_runtime.h>

extern "C" __global__ void block_sum(const int* in, long long* out) {
  __shared__ long long s[512];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void warp_ops(const int* in, int* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  const int v = in[i];
  int sum = v;
  for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  int mx = v;
  for (int off = 16; off > 0; off /= 2) mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, off));
  int scan = v;
  for (int off = 1; off < 32; off *= 2) {
    const int y = __shfl_up_sync(0xffffffffu, scan, off);
    if (lane >= unsigned(off)) scan += y;
  }
  const int bcast = __shfl_sync(0xffffffffu, v, 7);
  const int seg = __shfl_sync(0xffffffffu, v, 3, 8);  // lane 3 of each 8-lane segment
  out[5 * i] = lane == 0 ? sum : 0;
  out[5 * i + 1] = mx;
  out[5 * i + 2] = scan;
  out[5 * i + 3] = bcast;
  out[5 * i + 4] = seg;
}

extern "C" __global__ void sync_counts(const int* in, int* out) {
  const int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  const int c = __syncthreads_count(v > 50);
  const int a = __syncthreads_and(v >= 0);
  const int o = __syncthreads_or(v == 77);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = c;
    out[3 * blockIdx.x + 1] = a;
    out[3 * blockIdx.x + 2] = o;
  }
}
