// cudadma_sgemv: the sgemv workload (sgemv.cu) in CudaDMA's warp-specialised form (Bauer,
// Cook, Khailany, SC 2011), single buffer: each CTA has 128 compute threads and one DMA warp.
// The DMA warp copies each x chunk into the shared buffer and signals "full" with a named
// barrier (bar.arrive 1); the compute warps wait on it (bar.sync 1), compute, and signal
// "empty" (bar.arrive 0), on which the DMA warp waits before the next chunk. Same arguments,
// data and check as sgemv.cu. Analog of: D2MA Sec. 5.4, the CudaDMA comparison (1.10x for
// CudaDMA vs 1.23x for D2MA over the baseline sgemv).
// nvcc-flags: -maxrregcount=63
#include <vector>

#include "wl.h"

constexpr int NUM_THREADS = 128;
constexpr int VEC_ELMTS = 128;  // one x element per thread per chunk

constexpr int DMA_THREADS = 32;  // one DMA warp
constexpr int CTA_THREADS = NUM_THREADS + DMA_THREADS;

__device__ __forceinline__ void bar_sync(int id, int n) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int n) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}

__global__ void sgemv_kernel(int n, int m, float alpha, const float* A, int lda, const float* x,
                             float* y) {
  __shared__ float buff[VEC_ELMTS];
  if (threadIdx.x >= NUM_THREADS) {  // ---- the DMA warp ----
    const int l = threadIdx.x - NUM_THREADS;
    for (int i = 0; i < m; i += VEC_ELMTS) {
      if (i) bar_sync(0, CTA_THREADS);  // buffer empty
#pragma unroll
      for (int k = 0; k < VEC_ELMTS / DMA_THREADS; ++k)
        buff[l + k * DMA_THREADS] = x[i + l + k * DMA_THREADS];
      bar_arrive(1, CTA_THREADS);  // buffer full
    }
    return;
  }
  const int ind = blockIdx.x * NUM_THREADS + threadIdx.x;
  const float* a = A + ind;
  float res = 0.0f;
  for (int i = 0; i < m; i += VEC_ELMTS) {
    bar_sync(1, CTA_THREADS);  // wait for the chunk
#pragma unroll
    for (int j = 0; j < VEC_ELMTS; ++j) {
      res += a[0] * buff[j];
      a += lda;
    }
    if (i + VEC_ELMTS < m) bar_arrive(0, CTA_THREADS);  // done with the buffer
  }
  if (ind < n) y[ind] = alpha * res;
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 7168, NUM_THREADS, 1 << 24));
  const int m = int(wl::arg_int(argc, argv, 2, 512, VEC_ELMTS, 1 << 20));
  if (n % NUM_THREADS || m % VEC_ELMTS) {
    std::printf("FAILED: n=%d must be a multiple of %d and m=%d of %d\n", n, NUM_THREADS, m,
                VEC_ELMTS);
    return 1;
  }
  const float alpha = 0.5f;
  std::vector<float> A(size_t(n) * m), x(m), y(n), ref(n);
  wl::Rng ra(21), rx(22);
  for (auto& v : A) v = float(ra.range(-4, 4));
  for (auto& v : x) v = float(rx.range(-4, 4));
  for (int r = 0; r < n; ++r) {
    long s = 0;
    for (int c = 0; c < m; ++c) s += long(A[size_t(c) * n + r]) * long(x[c]);
    ref[r] = alpha * float(s);
  }
  float *dA, *dx, *dy;
  WL_CK(cudaMalloc(&dA, A.size() * sizeof(float)));
  WL_CK(cudaMalloc(&dx, x.size() * sizeof(float)));
  WL_CK(cudaMalloc(&dy, y.size() * sizeof(float)));
  WL_CK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  const int blocks = n / NUM_THREADS;
  sgemv_kernel<<<blocks, CTA_THREADS>>>(n, m, alpha, dA, n, dx, dy);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("sgemv n=%d m=%d blocks=%d threads=%d\n", n, m, blocks, NUM_THREADS);
  const bool ok = wl::check_equal("y", y.data(), ref.data(), size_t(n));
  WL_CK(cudaFree(dA));
  WL_CK(cudaFree(dx));
  WL_CK(cudaFree(dy));
  return wl::finish(ok);
}
