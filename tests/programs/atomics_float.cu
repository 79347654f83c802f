// atomics_float: floating-point atomics: atomicAdd on float and double in global memory, float
// atomicAdd in shared memory merged into global, atomicExch on float, a float max built from
// atomicCAS on the bit pattern, and the classic double add built from a 64-bit atomicCAS loop.
// All addends are small multiples of 1/8 or 1/16, so every partial sum is exact and the
// totals do not depend on the order of the additions.
#include <cstdio>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

struct FResults {
  float fsum; double dsum; float blockSums[16]; float fmax; double casSum; float exch[8];
};

__device__ float atomicMaxFloat(float* addr, float v) {
  int* ia = (int*)addr;
  int old = *ia;
  while (__int_as_float(old) < v) {
    int prev = atomicCAS(ia, old, __float_as_int(v));
    if (prev == old) break;
    old = prev;
  }
  return __int_as_float(old);
}

__device__ double atomicAddDoubleCAS(double* addr, double v) {
  unsigned long long* ua = (unsigned long long*)addr;
  unsigned long long old = *ua, assumed;
  do {
    assumed = old;
    old = atomicCAS(ua, assumed, __double_as_longlong(__longlong_as_double(assumed) + v));
  } while (assumed != old);
  return __longlong_as_double(old);
}

__host__ __device__ float fval(int i) { return (float)(i % 16) * 0.125f - 0.5f; }
__host__ __device__ double dval(int i) { return (double)(i % 32) * 0.0625 + 1.0; }

__global__ void floatAtomics(FResults* r, int n) {
  __shared__ float sSum;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) sSum = 0.0f;
  __syncthreads();
  if (i < n) {
    atomicAdd(&r->fsum, fval(i));
    atomicAdd(&r->dsum, dval(i));
    atomicAdd(&sSum, fval(i) * 2.0f);
    atomicMaxFloat(&r->fmax, fval(i) * (float)(i % 5));
    if (i % 16 == 0) atomicAddDoubleCAS(&r->casSum, dval(i));
    if (i < 8) {
      float old = atomicExch(&r->exch[i], (float)i * 0.5f);
      atomicExch(&r->exch[i], old + (float)i * 0.5f);   // slots held 100.0
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) r->blockSums[blockIdx.x] = sSum;
}

int main() {
  const int T = 256, B = 16, n = T * B - 37;
  FResults h = {};
  h.fmax = -1e30f;
  for (int k = 0; k < 8; ++k) h.exch[k] = 100.0f;
  FResults* d;
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
  floatAtomics<<<B, T>>>(d, n);
  CK(cudaGetLastError());
  FResults r;
  CK(cudaMemcpy(&r, d, sizeof r, cudaMemcpyDeviceToHost));

  float fsum = 0, fmax = -1e30f, bs[B] = {};
  double dsum = 0, cas = 0;
  for (int i = 0; i < n; ++i) {
    fsum += fval(i); dsum += dval(i); bs[i / T] += fval(i) * 2.0f;
    fmax = std::max(fmax, fval(i) * (float)(i % 5));
    if (i % 16 == 0) cas += dval(i);
  }
  if (r.fsum != fsum) { printf("FAILED: float atomicAdd %f vs %f\n", r.fsum, fsum); return 1; }
  if (r.dsum != dsum) { printf("FAILED: double atomicAdd %f vs %f\n", r.dsum, dsum); return 1; }
  if (r.fmax != fmax) { printf("FAILED: CAS float max %f vs %f\n", r.fmax, fmax); return 1; }
  if (r.casSum != cas) { printf("FAILED: CAS double add %f vs %f\n", r.casSum, cas); return 1; }
  for (int b = 0; b < B; ++b)
    if (r.blockSums[b] != bs[b]) { printf("FAILED: shared float atomicAdd block %d: %f vs %f\n", b, r.blockSums[b], bs[b]); return 1; }
  for (int k = 0; k < 8; ++k)
    if (r.exch[k] != 100.0f + k * 0.5f) { printf("FAILED: atomicExch float slot %d: %f\n", k, r.exch[k]); return 1; }
  printf("fsum=%.3f dsum=%.4f fmax=%.3f casSum=%.4f block0=%.3f block15=%.3f\n",
         r.fsum, r.dsum, r.fmax, r.casSum, r.blockSums[0], r.blockSums[B - 1]);
  cudaFree(d);
  printf("PASSED\n");
  return 0;
}
