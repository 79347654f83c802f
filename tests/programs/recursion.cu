// recursion: non-inlined __device__ functions (__noinline__) with scalar, pointer and struct
// arguments and a struct return value, plus recursive functions (Fibonacci, gcd, Ackermann(2,n),
// mutual recursion, divide-and-conquer array sum) that need a real call stack.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int NOUT = 8;
struct Pair { int lo; long long hi; };

__host__ __device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__host__ __device__ __noinline__ int gcdRec(int a, int b) { return b == 0 ? a : gcdRec(b, a % b); }
__host__ __device__ __noinline__ int ack(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}
__host__ __device__ __noinline__ bool isOdd(int n);
__host__ __device__ __noinline__ bool isEven(int n) { return n == 0 ? true : isOdd(n - 1); }
__host__ __device__ __noinline__ bool isOdd(int n) { return n == 0 ? false : isEven(n - 1); }
__host__ __device__ __noinline__ int rangeSum(const int* a, int lo, int hi) {   // [lo, hi)
  if (hi - lo == 1) return a[lo];
  int mid = (lo + hi) / 2;
  return rangeSum(a, lo, mid) + rangeSum(a, mid, hi);
}
__host__ __device__ __noinline__ float horner(float x, const float* c, int n) {
  float r = 0.0f;
  for (int k = n - 1; k >= 0; --k) r = r * x + c[k];
  return r;
}
__host__ __device__ __noinline__ Pair split(long long v, int shift) { return Pair{(int)(v & ((1LL << shift) - 1)), v >> shift}; }

__host__ __device__ void work(int i, int* o) {
  int arr[12];
  for (int k = 0; k < 12; ++k) arr[k] = (i * 13 + k * 7) % 29 - 14;
  const float coeff[4] = {1.0f, -0.5f, 0.25f, 2.0f};
  o[0] = fib(i % 12);
  o[1] = gcdRec(i * 84 + 36, (i % 17 + 1) * 60);
  o[2] = ack(2, i % 4);
  o[3] = isEven(i % 20) ? 1 : 0;
  o[4] = rangeSum(arr, 0, i % 12 + 1);
  o[5] = (int)(horner((float)(i % 8) * 0.5f, coeff, 4) * 16.0f);
  Pair p = split(((long long)i << 35) + i * 12345LL, 20 + i % 8);
  o[6] = p.lo;
  o[7] = (int)(p.hi & 0x7fffffff);
}

__global__ void recurseKernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) work(i, out + i * NOUT);
}

int main() {
  const int n = 192;
  int* d;
  CK(cudaMalloc(&d, n * NOUT * sizeof(int)));
  recurseKernel<<<n / 64, 64>>>(d, n);
  CK(cudaGetLastError());
  std::vector<int> out(n * NOUT);
  CK(cudaMemcpy(out.data(), d, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  const char* names[NOUT] = {"fib", "gcd", "ackermann", "isEven", "rangeSum", "horner", "split.lo", "split.hi"};
  long long sums[NOUT] = {};
  for (int i = 0; i < n; ++i) {
    int e[NOUT];
    work(i, e);
    for (int k = 0; k < NOUT; ++k) {
      if (out[i * NOUT + k] != e[k]) { printf("FAILED: %s(thread %d) = %d, expected %d\n", names[k], i, out[i * NOUT + k], e[k]); return 1; }
      sums[k] += e[k];
    }
  }
  printf("recursion: fib(11)=%d ack(2,3)=%d\n", fib(11), ack(2, 3));
  printf("sums: fib=%lld gcd=%lld ack=%lld even=%lld rangeSum=%lld horner=%lld\n", sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]);
  cudaFree(d);
  printf("PASSED\n");
  return 0;
}
