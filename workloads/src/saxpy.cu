// saxpy: y = a * x + y with both vectors staged through shared memory. Each block owns a
// contiguous segment of ITERS x 256 elements and walks it one 256-element chunk at a time:
// "transfer" — every thread copies one element of x and one of y into the two shared buffers
// xs and ys, __syncthreads; "compute" — every thread forms a * xs[t] + ys[t] from the buffers and
// stores it to y in global memory, then __syncthreads before the buffers are refilled.
// Analog of: CudaDMA's SAXPY example in its plain software-buffering form, the D2MA paper's SAXPY
// case study (Sec. 5.3, Fig. 12: "a version of the kernel that buffers both vectors ... into
// shared memory", each CTA using 2 buffers at the same time). The CudaDMA example processes
// CTA_COUNT x NUM_ITERS x COMPUTE_THREADS_PER_CTA elements, i.e. each CTA iterates over chunks of
// one element per compute thread, which is what this kernel does.
// Profile: 256 threads per block (ours; CudaDMA's thread count is a sweep parameter), two buffers
// of 256 floats = 2048 B. No register count is published; ours is in the manifest.
// Usage: saxpy [iters] [ctas]   (chunks per block, default 32; blocks, default 56 = 4 per SM on
//        14 SMs; n = ctas x iters x 256 elements; scaled run 512 56. The paper's Fig. 12 setup
//        is 2 CTAs on one shader: e.g. `saxpy 32 2`.)
// Check: exact (x, y multiples of 1/4 below 256 in magnitude and a = 1.5: a*x + y is exact in
//        float whether or not it is contracted to an FMA).
#include <vector>

#include "simtlab/xfer.h"
#include "wl.h"

constexpr int THREADS = 256;  // one element of each vector per thread per chunk

__global__ void saxpy_buffered(float* y, const float* x, float a, int iters) {
  __shared__ float xs[THREADS];
  __shared__ float ys[THREADS];
  const int t = threadIdx.x;
  size_t base = size_t(blockIdx.x) * iters * THREADS;
  for (int it = 0; it < iters; ++it, base += THREADS) {
    // ---- transfer: both vector chunks global -> register -> shared ----
    simtlab_xfer_begin();  // transfer region (include/simtlab/xfer.h)
    xs[t] = x[base + t];
    ys[t] = y[base + t];
    __syncthreads();
    // ---- compute: from the buffers, result back to global ----
    y[base + t] = a * xs[t] + ys[t];
    __syncthreads();
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
