// redux_sm80 (sm_80): warp reductions with __reduce_*_sync (redux.sync), full and partial masks.
// Host reference: ref_redux.
#include <cuda_runtime.h>

extern "C" __global__ void redux(const unsigned* in, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned v = in[i];
  unsigned* o = out + 6 * i;
  o[0] = __reduce_add_sync(0xffffffffu, v);
  o[1] = __reduce_min_sync(0xffffffffu, v);
  o[2] = (unsigned)__reduce_max_sync(0xffffffffu, (int)v);
  o[3] = __reduce_and_sync(0xffffffffu, v);
  o[4] = __reduce_or_sync(0xffffffffu, v);
  o[5] = 0;
  if (threadIdx.x % 2 == 0) o[5] = __reduce_xor_sync(0x55555555u, v);
}
