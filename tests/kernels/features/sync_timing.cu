// sync_timing: synchronisation, fences and timing: __syncthreads, __syncthreads_count/_and/_or,
// __syncwarp (full and partial masks), a volatile shared-memory warp-synchronous reduction (the
// legacy idiom, with __syncwarp), __threadfence/__threadfence_block/__threadfence_system,
// the last-block-done pattern, clock()/clock64(), __nanosleep, and a named barrier via bar.sync
// with a thread count (compiled to PTX only).
#include <cuda_runtime.h>

__device__ unsigned int g_blocksDone = 0;

__device__ void warpReduce(volatile int* s, int t) {
  s[t] += s[t + 32]; __syncwarp();
  s[t] += s[t + 16]; __syncwarp();
  s[t] += s[t + 8];  __syncwarp();
  s[t] += s[t + 4];  __syncwarp();
  s[t] += s[t + 2];  __syncwarp();
  s[t] += s[t + 1];  __syncwarp();
}

// Sums the input; the last block to finish adds up the partial sums (threadfence reduction).
__global__ void fenceReduce(const int* in, int* partial, int* total, long long* cycles) {
  __shared__ int s[256];
  __shared__ bool amLast;
  long long start = clock64();
  unsigned c0 = clock();
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int st = 128; st > 32; st >>= 1) {
    if (t < st) s[t] += s[t + st];
    __syncthreads();
  }
  if (t < 32) warpReduce(s, t);
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    unsigned ticket = atomicInc(&g_blocksDone, gridDim.x);
    amLast = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (amLast) {
    int acc = 0;
    for (int b = t; b < gridDim.x; b += blockDim.x) acc += ((volatile int*)partial)[b];
    s[t] = acc;
    __syncthreads();
    for (int st = 128; st > 0; st >>= 1) {
      if (t < st) s[t] += s[t + st];
      __syncthreads();
    }
    if (t == 0) { *total = s[0]; g_blocksDone = 0; }
  }
  __nanosleep(100);
  if (t == 0) cycles[blockIdx.x] = (clock64() - start) + (long long)(clock() - c0) * 0;
}

__global__ void voteBarriers(const int* in, int* out) {
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  int cnt = __syncthreads_count(v > 0);
  int all = __syncthreads_and(v != 0);
  int any = __syncthreads_or(v == 7);
  if (t % 32 < 16) __syncwarp(0x0000ffff);
  else __syncwarp(0xffff0000);
  __threadfence_block();
  __threadfence_system();
  // Named barrier 1 for the first two warps only.
  if (t < 64) asm volatile("bar.sync 1, 64;" ::: "memory");
  out[blockIdx.x * blockDim.x + t] = cnt + 1000 * all + 2000 * any;
}

// Producer/consumer between two warps via a volatile flag and fences.
__global__ void flagHandoff(int* data, volatile int* flag) {
  if (threadIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *flag = 1;
  } else if (threadIdx.x == 32) {
    while (*flag == 0) __nanosleep(32);
    __threadfence();
    data[1] = data[0] + 1;
  }
}
