// vectoradd: C = A + B, one element per thread.
// Analog of: CUDA SDK vectorAdd (kernel VecAdd), thesis Table 4.3 #21 (VA). Algorithm from the
// CUDA C Programming Guide's first example; profile of the original: 256 threads per block,
// no shared memory.
// Usage: vectoradd [n]   (default 40000 elements; scaled run 4000000)
// Check: exact (float additions of values exact in float).
#include <vector>

#include "wl.h"

__global__ void VecAdd(const float* A, const float* B, float* C, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) C[i] = A[i] + B[i];
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 40000, 1, 1 << 28));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<float> a(n), b(n), c(n), ref(n);
  wl::Rng ra(1), rb(2);
  for (int i = 0; i < n; ++i) {
    a[i] = float(ra.range(-1000, 1000)) * 0.25f;
    b[i] = float(rb.range(-1000, 1000)) * 0.5f;
    ref[i] = a[i] + b[i];
  }
  float *da, *db, *dc;
  const size_t bytes = size_t(n) * sizeof(float);
  WL_CK(cudaMalloc(&da, bytes));
  WL_CK(cudaMalloc(&db, bytes));
  WL_CK(cudaMalloc(&dc, bytes));
  WL_CK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
  VecAdd<<<blocks, threads>>>(da, db, dc, n);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  std::printf("vectoradd n=%d blocks=%d threads=%d\n", n, blocks, threads);
  const bool ok = wl::check_equal("C", c.data(), ref.data(), size_t(n));
  WL_CK(cudaFree(da));
  WL_CK(cudaFree(db));
  WL_CK(cudaFree(dc));
  return wl::finish(ok);
}
