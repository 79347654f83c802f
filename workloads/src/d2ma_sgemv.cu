// d2ma_sgemv: the sgemv workload (sgemv.cu) ported to the D2MA intrinsics
// (include/simtlab/d2ma.h) as in the D2MA paper's Fig. 8: the x chunk is moved by
// dma_configure_flat_unit_stride / dma_execute into the single shared buffer and no
// __syncthreads() remains; the RAW check on the buffer's loads replaces it. Same arguments,
// data and check as sgemv.cu (identical output). Run the D2MA engine with
// --set d2ma.enable=true (timing mode); without it the intrinsics' fallback bodies copy.
// Analog of: D2MA Fig. 8 / Table 2 (SGEMV).
// nvcc-flags: -maxrregcount=63
#include <vector>

#include "simtlab/d2ma.h"
#include "wl.h"

constexpr int NUM_THREADS = 128;
constexpr int VEC_ELMTS = 128;  // one x element per thread per chunk

__global__ void sgemv_kernel(int n, int m, float alpha, const float* A, int lda, const float* x,
                             float* y) {
  __shared__ float buff[VEC_ELMTS];
  const int ind = blockIdx.x * NUM_THREADS + threadIdx.x;
  const float* a = A + ind;
  float res = 0.0f;
  dma_init();
  dma_set_datatype_float();
  dma_configure_flat_unit_stride(buff, x, VEC_ELMTS);
  for (int i = 0; i < m; i += VEC_ELMTS) {
    if (i) dma_execute(buff, x + i, 0);
#pragma unroll
    for (int j = 0; j < VEC_ELMTS; ++j) {
      res += a[0] * buff[j];
      a += lda;
    }
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
  sgemv_kernel<<<blocks, NUM_THREADS>>>(n, m, alpha, dA, n, dx, dy);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("sgemv n=%d m=%d blocks=%d threads=%d\n", n, m, blocks, NUM_THREADS);
  const bool ok = wl::check_equal("y", y.data(), ref.data(), size_t(n));
  WL_CK(cudaFree(dA));
  WL_CK(cudaFree(dx));
  WL_CK(cudaFree(dy));
  return wl::finish(ok);
}
