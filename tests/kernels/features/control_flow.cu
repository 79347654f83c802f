// control_flow: branches and loops the PTX front end must handle: dense switch (jump-table
// candidates), sparse switch, goto, nested loops with break/continue, loops with
// #pragma unroll / #pragma unroll 1 (nounroll), early returns from divergent threads,
// short-circuit conditions, ternary selects (selp), and infinite loops left by break
// (compiled to PTX only).
#include <cuda_runtime.h>

__device__ __noinline__ int denseSwitch(int k) {
  switch (k) {
    case 0: return 11; case 1: return 23; case 2: return 37; case 3: return 41;
    case 4: return 59; case 5: return 61; case 6: return 73; case 7: return 89;
    case 8: return 97; case 9: return 101; default: return -1;
  }
}

__device__ __noinline__ int sparseSwitch(int k) {
  switch (k) {
    case -100: return 1; case 7: return 2; case 1000: return 3; case 65536: return 4;
    default: return 0;
  }
}

__global__ void branches(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i], acc = 0;
  if (v < 0) { out[i] = -1; return; }                 // divergent early return
  acc += denseSwitch(v % 12) + sparseSwitch(v * 7);
  for (int a = 0; a < 8; ++a) {
    if (a == v % 5) continue;
    for (int b = 0; b < 8; ++b) {
      if ((a + b + v) % 7 == 0) break;
      acc += a * b;
    }
    if (acc > 500) break;
  }
  int k = 0;
retry:
  ++k;
  if (k < (v & 3)) goto retry;
  acc += k;
  while (true) {                                       // left only by break
    acc ^= acc >> 3;
    if ((acc & 7) == 0 || ++k > 20) break;
  }
  acc += (v > 3 && v < 100) || (v % 2 == 0 && i % 3 == 0) ? 5 : -5;
  acc += v > 10 ? v : i;
#pragma unroll
  for (int j = 0; j < 4; ++j) acc += j * v;
#pragma unroll 1
  for (int j = 0; j < v % 9; ++j) acc += j;
  int dw = 0;
  do { dw += 3; } while (dw < v % 17);
  out[i] = acc + dw;
}
