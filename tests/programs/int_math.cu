// int_math: integer division and remainder with negative operands (C++ truncation toward zero),
// signed/unsigned shifts, 32-bit wrap-around, 64-bit multiply/divide/modulo/shift, __umulhi,
// __mulhi, __umul64hi, __mul64hi (checked with 128-bit host arithmetic), min/max/abs, and
// 64-bit rotations, all compared exactly with the host.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int NOUT = 16;
__constant__ int c_div[8] = {-7, -3, -1, 1, 2, 5, 13, -64};
static const int h_div[8] = {-7, -3, -1, 1, 2, 5, 13, -64};

__host__ __device__ unsigned long long mix64(unsigned long long x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return x;
}

__global__ void intKernel(long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a = i - n / 2, b = c_div[i % 8];
  unsigned long long u = mix64(i + 1), v = mix64(i + 1000) | 1;
  long long s = (long long)u, t = (long long)(v >> (i % 40)) * ((i & 1) ? -1 : 1);
  if (t == 0) t = 3;
  long long* o = out + i * NOUT;
  o[0] = a / b;
  o[1] = a % b;
  o[2] = (a * 1000003) >> 7;                 // arithmetic shift of negatives
  o[3] = (long long)((unsigned)a >> 5);
  o[4] = (int)((unsigned)a * 2654435761u);   // wraps
  o[5] = s / t;
  o[6] = s % t;
  o[7] = (long long)(u * v);
  o[8] = (long long)(u / (v >> 20 | 1));
  o[9] = s >> (i % 63);
  o[10] = (long long)__umul64hi(u, v);
  o[11] = __mul64hi(s, t);
  o[12] = __umulhi((unsigned)u, (unsigned)v);
  o[13] = __mulhi((int)u, (int)v);
  o[14] = (long long)((u << (i % 64)) | (u >> ((64 - i % 64) % 64)));   // rotate left
  o[15] = max(a, b * 37) + min(a, -b) + abs(a) + (long long)llabs(t % 1000);
}

int main() {
  const int n = 640;
  long long* d;
  CK(cudaMalloc(&d, n * NOUT * sizeof(long long)));
  intKernel<<<n / 128, 128>>>(d, n);
  CK(cudaGetLastError());
  std::vector<long long> out(n * NOUT);
  CK(cudaMemcpy(out.data(), d, out.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  const char* names[NOUT] = {"div", "mod", "sar", "shr", "wrap", "div64", "mod64", "mul64", "udiv64", "sar64",
                             "umul64hi", "mul64hi", "umulhi", "mulhi", "rotl64", "minmaxabs"};
  unsigned long long checksum = 0;
  for (int i = 0; i < n; ++i) {
    int a = i - n / 2, b = h_div[i % 8];
    unsigned long long u = mix64(i + 1), v = mix64(i + 1000) | 1;
    long long s = (long long)u, t = (long long)(v >> (i % 40)) * ((i & 1) ? -1 : 1);
    if (t == 0) t = 3;
    long long e[NOUT];
    e[0] = a / b; e[1] = a % b; e[2] = (a * 1000003) >> 7; e[3] = (long long)((unsigned)a >> 5);
    e[4] = (int)((unsigned)a * 2654435761u);
    e[5] = s / t; e[6] = s % t; e[7] = (long long)(u * v); e[8] = (long long)(u / (v >> 20 | 1));
    e[9] = s >> (i % 63);
    e[10] = (long long)(unsigned long long)(((unsigned __int128)u * v) >> 64);
    e[11] = (long long)(((__int128)s * t) >> 64);
    e[12] = (long long)(unsigned)(((unsigned long long)(unsigned)u * (unsigned)v) >> 32);
    e[13] = (long long)(int)(((long long)(int)u * (int)v) >> 32);
    e[14] = (long long)((u << (i % 64)) | (u >> ((64 - i % 64) % 64)));
    e[15] = std::max(a, b * 37) + std::min(a, -b) + std::abs(a) + (long long)llabs(t % 1000);
    for (int k = 0; k < NOUT; ++k) {
      if (out[i * NOUT + k] != e[k]) { printf("FAILED: %s at i=%d: %lld vs %lld\n", names[k], i, out[i * NOUT + k], e[k]); return 1; }
      checksum = checksum * 1099511628211ULL + (unsigned long long)e[k];
    }
  }
  printf("int_math: %d x %d results ok, checksum=%016llx\n", n, NOUT, checksum);
  printf("samples: -7/2=%lld -7%%2=%lld 7/-2=%lld 7%%-2=%lld\n", (long long)(-7 / 2), (long long)(-7 % 2), (long long)(7 / -2), (long long)(7 % -2));
  cudaFree(d);
  printf("PASSED\n");
  return 0;
}
