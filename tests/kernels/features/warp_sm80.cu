// warp_sm80: sm_80-only warp and memory features: __reduce_{add,min,max,and,or,xor}_sync
// (redux.sync), __match_any_sync/__match_all_sync, bf16 atomicAdd, and asynchronous global->shared
// copies through the pipeline primitives (cp.async). Built with -arch=sm_80 (PTX only).
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>

__global__ void warpReduce(const int* in, unsigned* out) {
  unsigned t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  unsigned u = (unsigned)v;
  unsigned* o = out + (blockIdx.x * blockDim.x + t) * 8;
  o[0] = __reduce_add_sync(0xffffffff, u);
  o[1] = (unsigned)__reduce_add_sync(0xffffffff, v);
  o[2] = __reduce_min_sync(0xffffffff, u);
  o[3] = (unsigned)__reduce_max_sync(0xffffffff, v);
  o[4] = __reduce_and_sync(0xffffffff, u);
  o[5] = __reduce_or_sync(0xffffffff, u);
  o[6] = __reduce_xor_sync(0xffffffff, u);
  if (t % 32 < 8) o[7] = __reduce_add_sync(0x000000ff, u);   // partial mask
  else o[7] = __match_any_sync(0xffffff00, v & 3);
  int pred;
  o[7] ^= __match_all_sync(0xffffffff, v >> 4, &pred) + pred;
}

__global__ void bf16Atomics(__nv_bfloat16* acc, __nv_bfloat162* acc2, const float* in) {
  float x = in[blockIdx.x * blockDim.x + threadIdx.x];
  atomicAdd(acc, __float2bfloat16(x));
  atomicAdd(acc2, __floats2bfloat162_rn(x, -x));
}

// Copies 4 floats per thread into shared memory with cp.async, waits, then reduces.
__global__ void asyncCopy(const float4* in, float* out) {
  __shared__ float4 tile[256];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&tile[t], &in[blockIdx.x * blockDim.x + t], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  float4 a = tile[t], b = tile[(t + 1) % blockDim.x];
  out[blockIdx.x * blockDim.x + t] = a.x * b.y + a.z * b.w;
}
