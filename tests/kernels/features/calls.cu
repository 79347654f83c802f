// calls: device function calls: __noinline__ functions with many parameters, struct arguments
// and returns, recursion (direct and mutual), function pointers / indirect calls through a
// table (.callprototype), virtual functions on device-constructed objects, and
// __forceinline__ for contrast (compiled to PTX only).
#include <cuda_runtime.h>

struct Vec2 { float x, y; };

__device__ __noinline__ float manyArgs(int a, float b, double c, long long d, char e, short f, unsigned g,
                                       float h, double i, int j, Vec2 k) {
  return a + b + (float)c + (float)d + e + f + g + h + (float)i + j + k.x * k.y;
}
__device__ __noinline__ Vec2 rotate(Vec2 v, float c, float s) { return Vec2{c * v.x - s * v.y, s * v.x + c * v.y}; }
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ int odd(int n);
__device__ __noinline__ int even(int n) { return n == 0 ? 1 : odd(n - 1); }
__device__ __noinline__ int odd(int n) { return n == 0 ? 0 : even(n - 1); }
__device__ __noinline__ void quicksort(int* a, int lo, int hi) {   // recursion on local memory
  if (lo >= hi) return;
  int p = a[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (a[i] < p) ++i;
    while (a[j] > p) --j;
    if (i <= j) { int t = a[i]; a[i] = a[j]; a[j] = t; ++i; --j; }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}
__device__ __forceinline__ int inlined(int x) { return x * x + 1; }

typedef int (*BinOp)(int, int);
__device__ int opAdd(int a, int b) { return a + b; }
__device__ int opSub(int a, int b) { return a - b; }
__device__ int opMul(int a, int b) { return a * b; }
__device__ int opMax(int a, int b) { return a > b ? a : b; }
__device__ BinOp d_ops[4] = {opAdd, opSub, opMul, opMax};

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Square : Shape { float s; __device__ Square(float s) : s(s) {} __device__ float area() const override { return s * s; } };
struct Circle : Shape { float r; __device__ Circle(float r) : r(r) {} __device__ float area() const override { return 3.14159265f * r * r; } };

__global__ void callKernel(const int* in, int* out, float* fout) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  float m = manyArgs(v, 1.5f, 2.5, 3LL, 'a', (short)-2, 7u, 0.25f, 0.125, i, Vec2{2.0f, 3.0f});
  Vec2 r = rotate(Vec2{(float)v, 1.0f}, 0.6f, 0.8f);
  int arr[16];
  for (int k = 0; k < 16; ++k) arr[k] = (v * 31 + k * 17) % 23;
  quicksort(arr, 0, 15);
  BinOp op = d_ops[v & 3];                 // indirect call
  BinOp local = (v & 4) ? opAdd : opMul;   // pointer chosen at run time
  out[i] = fib(v % 10) + even(v % 13) + op(v, i) + local(i, 3) + inlined(v) + arr[v & 15];
  Square sq(r.x);
  Circle ci(r.y);
  const Shape* s = (v & 1) ? (const Shape*)&sq : (const Shape*)&ci;
  fout[i] = m + s->area();
}
