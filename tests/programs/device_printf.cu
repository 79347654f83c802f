// device_printf: device-side printf with many conversions (d i u x X o ld lld llu f e g s c %%,
// widths, precision, flags), printf's return value (number of arguments), printing inside a
// loop, and per-block output from single-block launches so the order is deterministic.
// Host stdout is flushed around every launch; device output appears at synchronisation.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ const char d_name[] = "simtlab";

__global__ void formats(int* ret) {
  int a = -42; unsigned u = 3000000000u; long long ll = -1234567890123LL;
  unsigned long long ull = 18446744073709551615ULL; long l = 1L << 40;
  float f = 1.5f; double d = -0.03125;
  ret[0] = printf("ints: %d %i %u %x %X %o\n", a, 17, u, 255u, 0xbeefu, 8u);
  ret[1] = printf("longs: %ld %lld %llu\n", l, ll, ull);
  ret[2] = printf("floats: %f %.3f %e %.2e %g %g\n", f, d, 1234.5, -0.000123, 0.0001, 123456789.0);
  ret[3] = printf("text: %s [%c%c] %s 100%%\n", "hello", 'o', 'k', d_name);
  ret[4] = printf("width: [%5d] [%-5d] [%05d] [%+d] [%8.3f] [%-8.2f] [%x]\n", 42, 42, 42, 42, 3.14159, 2.5, 0u);
  ret[5] = printf("no arguments\n");
  for (int i = 0; i < 4; ++i) printf("loop %d: %d squared is %d\n", i, i, i * i);
}

// Every thread contributes; thread 0 prints the block's sum and its own index triple.
__global__ void blockReport(const int* data, int launch) {
  __shared__ int s[64];
  s[threadIdx.x] = data[launch * 64 + threadIdx.x];
  __syncthreads();
  for (int st = 32; st > 0; st >>= 1) {
    if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    printf("launch %d: block (%d,%d,%d) of %d threads, sum=%d\n", launch, blockIdx.x, blockIdx.y, blockIdx.z, blockDim.x, s[0]);
}

int main() {
  int* dret; int* ddata;
  int hdata[4 * 64];
  for (int i = 0; i < 4 * 64; ++i) hdata[i] = i * 3 - 100;
  CK(cudaMalloc(&dret, 6 * sizeof(int))); CK(cudaMalloc(&ddata, sizeof hdata));
  CK(cudaMemcpy(ddata, hdata, sizeof hdata, cudaMemcpyHostToDevice));
  printf("host: before formats\n");
  fflush(stdout);
  formats<<<1, 1>>>(dret);
  CK(cudaDeviceSynchronize());
  fflush(stdout);
  printf("host: after formats\n");
  int ret[6];
  CK(cudaMemcpy(ret, dret, sizeof ret, cudaMemcpyDeviceToHost));
  const int expect[6] = {6, 3, 6, 4, 7, 0};
  for (int k = 0; k < 6; ++k)
    if (ret[k] != expect[k]) { printf("FAILED: printf %d returned %d, expected %d\n", k, ret[k], expect[k]); return 1; }
  printf("host: printf return values ok\n");
  for (int launch = 0; launch < 4; ++launch) {
    fflush(stdout);
    blockReport<<<1, 64>>>(ddata, launch);
    CK(cudaDeviceSynchronize());
    fflush(stdout);
    int ref = 0;
    for (int t = 0; t < 64; ++t) ref += hdata[launch * 64 + t];
    printf("host: expected sum %d\n", ref);
  }
  cudaFree(dret); cudaFree(ddata);
  printf("PASSED\n");
  return 0;
}
