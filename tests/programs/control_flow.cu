// control_flow: divergence inside loops: per-thread trip counts (Collatz with a step cap and
// break), continue that skips iterations, nested loops with an inner break that depends on
// both indices, a switch, a do-while, early return, and a loop whose exit differs per lane.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int NOUT = 6;

__host__ __device__ void work(int i, int* o) {
  // 1. Collatz steps, capped at 60 (break).
  unsigned long long c = (unsigned long long)i + 1;
  int steps = 0;
  while (c != 1) {
    c = (c & 1) ? 3 * c + 1 : c / 2;
    if (++steps >= 60) break;
  }
  o[0] = steps;
  // 2. continue + break: sum j in [0, 40) skipping multiples of 3 and of (i % 7 + 2), stop above limit.
  int sum = 0, limit = 100 + i % 50;
  for (int j = 0; j < 40; ++j) {
    if (j % 3 == 0) continue;
    if (j % (i % 7 + 2) == 0) continue;
    sum += j;
    if (sum > limit) break;
  }
  o[1] = sum;
  // 3. nested loops with a dependent inner break.
  int acc = 0;
  for (int a = 0; a < (i % 5) + 1; ++a) {
    for (int b = a; b < 10; ++b) {
      if ((a * b + i) % 11 == 0) break;
      if (b == a + 2) continue;
      acc += a ^ b;
    }
  }
  o[2] = acc;
  // 4. switch with fallthrough and default.
  int s = 0;
  switch (i % 6) {
    case 0: s += 1; [[fallthrough]];
    case 1: s += 10; break;
    case 2: s = -i; break;
    case 4: s = i * i % 97; [[fallthrough]];
    case 5: s += 3; break;
    default: s = 42;
  }
  o[3] = s;
  // 5. do-while on a digit sum.
  int x = i * 7919, digits = 0;
  do { digits += x % 10; x /= 10; } while (x > 0);
  o[4] = digits;
  // 6. search with early exit from a nested loop via a flag.
  int found = -1;
  for (int a = 1; a < 12 && found < 0; ++a)
    for (int b = 1; b < 12; ++b)
      if (a * b == i % 30 + 1 && a + b > 6) { found = a * 100 + b; break; }
  o[5] = found;
}

__global__ void controlKernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;                 // early return leaves a partial last warp
  if (i % 37 == 13) { for (int k = 0; k < NOUT; ++k) out[i * NOUT + k] = -7; return; }
  work(i, out + i * NOUT);
}

int main() {
  const int n = 320;
  int* d;
  CK(cudaMalloc(&d, n * NOUT * sizeof(int)));
  controlKernel<<<(n + 127) / 128, 128>>>(d, n);
  CK(cudaGetLastError());
  std::vector<int> out(n * NOUT);
  CK(cudaMemcpy(out.data(), d, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  long long sums[NOUT] = {};
  for (int i = 0; i < n; ++i) {
    int e[NOUT];
    if (i % 37 == 13) for (int k = 0; k < NOUT; ++k) e[k] = -7; else work(i, e);
    for (int k = 0; k < NOUT; ++k) {
      if (out[i * NOUT + k] != e[k]) { printf("FAILED: thread %d result %d: %d vs %d\n", i, k, out[i * NOUT + k], e[k]); return 1; }
      sums[k] += e[k];
    }
  }
  printf("control_flow: n=%d sums %lld %lld %lld %lld %lld %lld\n", n, sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]);
  cudaFree(d);
  printf("PASSED\n");
  return 0;
}
