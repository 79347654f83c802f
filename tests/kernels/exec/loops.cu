// loops: nested loops with per-thread trip counts, break/continue, a data-dependent while loop
// (Collatz steps) and a do/while. Host reference: ref_loops.
#include <cuda_runtime.h>

extern "C" __global__ void loops(const int* in, long long* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int v = in[i];
  long long acc = 0;
  for (int a = 0; a < (v & 15); ++a) {
    if (a == 7) continue;
    for (int b = a; b < 20; b += 3) {
      if ((a * b + v) % 11 == 0) break;
      acc += a * b - v;
    }
    if (acc > 100000) break;
  }
  unsigned w = unsigned(v) + 1;
  int steps = 0;
  while (w != 1 && steps < 300) {
    w = (w & 1) ? 3 * w + 1 : w / 2;
    ++steps;
  }
  int d = 0;
  do {
    d += 3;
  } while (d < (v % 50));
  out[3 * i] = acc;
  out[3 * i + 1] = steps;
  out[3 * i + 2] = d;
}
