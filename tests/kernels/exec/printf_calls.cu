// printf_calls: device printf with several argument types from divergent threads, and calls:
// __noinline__ functions with many parameters, recursion, function pointers, device malloc.
// Host reference: ref_printf / ref_calls.
#include <cstdio>
#include <cuda_runtime.h>

extern "C" __global__ void print_values(const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int v = in[i];
  if (v % 3 == 0) {
    printf("thread %d block %d: v=%d hex=%08x ll=%lld d=%.3f s=%s c=%c\n", threadIdx.x, blockIdx.x, v, v,
           (long long)v * -123456789LL, v / 8.0, (v & 1) ? "odd" : "even", 'a' + v % 26);
  }
}

__device__ __noinline__ long long mix(int a, long long b, unsigned c, short d, char e, long long f) {
  return a * 3 + b * 5 - (long long)c + d * 7 + e * 11 + f;
}

__device__ __noinline__ int ackermann_small(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann_small(m - 1, 1);
  return ackermann_small(m - 1, ackermann_small(m, n - 1));
}

__device__ __noinline__ int op_add(int x) { return x + 17; }
__device__ __noinline__ int op_mul(int x) { return x * 3; }
__device__ __noinline__ int op_neg(int x) { return -x; }
__device__ int (*const ops[3])(int) = {op_add, op_mul, op_neg};

struct Pair {
  long long a;
  int b;
};
__device__ __noinline__ Pair make_pair(int x) { return Pair{(long long)x * x, x ^ 0x3c}; }

extern "C" __global__ void calls(const int* in, long long* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int v = in[i];
  long long r = mix(v, v * 1000LL, unsigned(v) * 7u, short(v - 300), char(v & 63), -v);
  const int m = v % 3, k = v % 4;  // ackermann(2, k) = 2k + 3, ackermann(1, k) = k + 2
  r += ackermann_small(m, k);
  int (*f)(int) = ops[v % 3];
  r += f(v);
  const Pair p = make_pair(v);
  r += p.a - p.b;
  out[i] = r;
}

extern "C" __global__ void heap(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int len = 1 + i % 13;
  int* p = static_cast<int*>(malloc(len * sizeof(int)));
  if (!p) {
    out[i] = -1;
    return;
  }
  for (int k = 0; k < len; ++k) p[k] = i * k;
  __syncwarp();
  int s = 0;
  for (int k = 0; k < len; ++k) s += p[k];
  free(p);
  out[i] = s;
}
