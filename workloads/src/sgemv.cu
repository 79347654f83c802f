// sgemv: y = alpha * A x for a column-major n x m matrix A (leading dimension lda = n), one
// thread per row. The vector x is staged through a single shared-memory buffer of VEC_ELMTS
// floats: per chunk of VEC_ELMTS columns, "transfer" — each thread copies one element of x into
// the buffer, __syncthreads; "compute" — each thread accumulates A[row, j] * buf[j] over the
// chunk (A read straight from global memory, coalesced across the warp since A is column-major),
// then __syncthreads before the buffer is refilled.
// Analog of: CudaDMA's SGEMV example (itself MAGMA's sgemvn kernel for Fermi), in the software
// buffering baseline form, D2MA Table 2 (SGEMV) and the CudaDMA comparison (D2MA Sec. 5.4, "a
// single buffer"). Algorithm as in the D2MA paper's Fig. 8 (one row per thread, x chunk in a
// shared buffer).
// Profile: 128 threads per block and a 128-float (512 B) buffer (CudaDMA example: 128 compute
// threads per CTA, VEC_ELMTS 128 in its single-buffer "vec_single" configuration; MAGMA's Fermi
// baseline uses num_threads = 128 with a buffer of num_threads floats). The chunk loop is fully
// unrolled as in those codes. No register count is published; ours is in the manifest.
// Usage: sgemv [n] [m]   (n rows, a multiple of 128; m columns, a multiple of 128; default
//        7168 x 512 -> 56 blocks; scaled run 28672 x 2048)
// Check: exact (small-integer A and x, alpha = 0.5: all products and partial sums are integers
//        below 2^24, exact in float with or without FMA contraction).
// Registers: the fully unrolled chunk loop wants 70 on sm_75; capped at 63 (Fermi's per-thread
// maximum, which bounds any Fermi build of the original) with -maxrregcount=63.
// nvcc-flags: -maxrregcount=63
#include <vector>

#include "simtlab/xfer.h"
#include "wl.h"

constexpr int NUM_THREADS = 128;
constexpr int VEC_ELMTS = 128;  // one x element per thread per chunk

__global__ void sgemv_kernel(int n, int m, float alpha, const float* A, int lda, const float* x,
                             float* y) {
  __shared__ float buff[VEC_ELMTS];
  const int ind = blockIdx.x * NUM_THREADS + threadIdx.x;
  const float* a = A + ind;
  float res = 0.0f;
  for (int i = 0; i < m; i += VEC_ELMTS) {
    // ---- transfer: x[i .. i+VEC_ELMTS) -> buff, one element per thread ----
    simtlab_xfer_begin();  // transfer region (include/simtlab/xfer.h)
    buff[threadIdx.x] = x[i + threadIdx.x];
    __syncthreads();
    // ---- compute: this thread's row times the buffered chunk ----
#pragma unroll
    for (int j = 0; j < VEC_ELMTS; ++j) {
      res += a[0] * buff[j];
      a += lda;
    }
    __syncthreads();
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
