// divergence: data-dependent nested if/else, switch, short-circuit conditions and early
// returns per thread. Host reference: exec_kernels_test.cpp (ref_divergence).
#include <cuda_runtime.h>

__device__ __noinline__ int classify(int v) {
  if (v < 0) return -1;
  if (v == 0) return 0;
  return v < 1000 ? 1 : 2;
}

extern "C" __global__ void divergence(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int v = in[i];
  int r = 0;
  if (v & 1) {
    if (v & 2) {
      r = v * 3;
    } else {
      r = v - 7;
    }
    if ((v & 12) == 4) r ^= 0x55;
  } else {
    switch ((v >> 1) % 5) {
      case 0: r = 1; break;
      case 1: r = v << 2; break;
      case 2: r = -v; break;
      case 3: r = v / 3; break;
      default: r = v % 7; break;
    }
  }
  if (v > 100 && (v % 3 == 0 || v % 7 == 0)) r += 1000;
  if (threadIdx.x % 5 == 4) {
    out[i] = r + 100 * classify(v);
    return;  // early return from a divergent branch
  }
  out[i] = r - classify(v - 500);
}
