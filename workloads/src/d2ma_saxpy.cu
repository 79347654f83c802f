// d2ma_saxpy: the saxpy workload (saxpy.cu, CudaDMA's SAXPY in software-buffering form) ported
// to the D2MA intrinsics (include/simtlab/d2ma.h): each CTA keeps two buffers in flight (x and
// y chunks, dma_configure_flat_unit_stride once, dma_execute per chunk) and both
// __syncthreads() are gone. Same arguments, data and check as saxpy.cu. The paper's Fig. 12
// case study is `d2ma_saxpy 32 2` on one SM with --trace (tracks "D2MA slot k buf b": agen and
// mem phases per transfer). Run the engine with --set d2ma.enable=true.
// Analog of: D2MA Sec. 5.3 / Fig. 12 (SAXPY case study).
#include <vector>

#include "simtlab/d2ma.h"
#include "wl.h"

constexpr int THREADS = 256;  // one element of each vector per thread per chunk

__global__ void saxpy_buffered(float* y, const float* x, float a, int iters) {
  __shared__ float xs[THREADS];
  __shared__ float ys[THREADS];
  const int t = threadIdx.x;
  size_t base = size_t(blockIdx.x) * iters * THREADS;
  dma_init();
  dma_set_datatype_float();
  dma_configure_flat_unit_stride(xs, x + base, THREADS);
  dma_configure_flat_unit_stride(ys, y + base, THREADS);
  for (int it = 0; it < iters; ++it, base += THREADS) {
    if (it) {
      dma_execute(xs, x + base, 0);
      dma_execute(ys, y + base, 0);
    }
    y[base + t] = a * xs[t] + ys[t];
  }
}

int main(int argc, char** argv) {
  const int iters = int(wl::arg_int(argc, argv, 1, 32, 1, 1 << 20));
  const int ctas = int(wl::arg_int(argc, argv, 2, 56, 1, 1 << 20));
  const size_t n = size_t(ctas) * iters * THREADS;
  const float a = 1.5f;
  std::vector<float> x(n), y(n), ref(n);
  wl::Rng rx(31), ry(32);
  for (size_t i = 0; i < n; ++i) {
    x[i] = float(rx.range(-1000, 1000)) * 0.25f;
    y[i] = float(ry.range(-1000, 1000)) * 0.25f;
    ref[i] = a * x[i] + y[i];
  }
  float *dx, *dy;
  WL_CK(cudaMalloc(&dx, n * sizeof(float)));
  WL_CK(cudaMalloc(&dy, n * sizeof(float)));
  WL_CK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  saxpy_buffered<<<ctas, THREADS>>>(dy, dx, a, iters);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("saxpy n=%zu blocks=%d iters=%d threads=%d\n", n, ctas, iters, THREADS);
  const bool ok = wl::check_equal("y", y.data(), ref.data(), n);
  WL_CK(cudaFree(dx));
  WL_CK(cudaFree(dy));
  return wl::finish(ok);
}
