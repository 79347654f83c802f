// thrust_cub: library code as researchers' programs use it. thrust::sort (CUB onesweep radix
// sort: decoupled look-back, warp-synchronous ranking), sort_by_key, reduce, transform,
// inclusive_scan, count_if and cub::DeviceScan / cub::DeviceReduce with the two-call temporary
// storage protocol. thrust and CUB query cudaFuncGetAttributes(ptxVersion) to pick their tuning
// policies and launch through the CUDA 13 kernel-handle path. Every result is checked against
// a host reference; the values are integers, so all checks are exact.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <numeric>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

struct Square {
  __host__ __device__ int operator()(int x) const { return x * x; }
};
struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return x & 1; }
};

int main() {
  const int n = 5000;
  std::vector<int> h(n), keys(n), vals(n);
  unsigned s = 12345u;
  for (int i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    h[i] = int((s >> 8) % 20001u) - 10000;  // negative and positive, with repeats
    keys[i] = int((s >> 4) % 97u);
    vals[i] = i;
  }

  // sort (signed keys) + reduce.
  thrust::device_vector<int> d(h.begin(), h.end());
  thrust::sort(d.begin(), d.end());
  std::vector<int> ref = h;
  std::sort(ref.begin(), ref.end());
  std::vector<int> got(n);
  thrust::copy(d.begin(), d.end(), got.begin());
  if (got != ref) { printf("FAILED: thrust::sort\n"); return 1; }
  const long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
  const long long rsum = std::accumulate(h.begin(), h.end(), 0LL);
  if (sum != rsum) { printf("FAILED: reduce %lld vs %lld\n", sum, rsum); return 1; }

  // stable sort_by_key: values of equal keys keep their order.
  thrust::device_vector<int> dk(keys.begin(), keys.end()), dv(vals.begin(), vals.end());
  thrust::stable_sort_by_key(dk.begin(), dk.end(), dv.begin());
  std::vector<int> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return keys[a] < keys[b]; });
  std::vector<int> gv(n);
  thrust::copy(dv.begin(), dv.end(), gv.begin());
  if (gv != idx) { printf("FAILED: stable_sort_by_key\n"); return 1; }

  // transform + inclusive_scan + count_if.
  thrust::device_vector<int> sq(n);
  thrust::transform(d.begin(), d.end(), sq.begin(), Square());
  thrust::inclusive_scan(sq.begin(), sq.end(), sq.begin(), thrust::maximum<int>());
  const int odd = int(thrust::count_if(d.begin(), d.end(), IsOdd()));
  int rmax = 0, rodd = 0;
  for (int v : ref) { rmax = std::max(rmax, v * v); rodd += v & 1; }
  if (int(sq.back()) != rmax) { printf("FAILED: scan max %d vs %d\n", int(sq.back()), rmax); return 1; }
  if (odd != rodd) { printf("FAILED: count_if %d vs %d\n", odd, rodd); return 1; }

  // CUB directly: exclusive sum and min, each with the size query first.
  int *in = nullptr, *out = nullptr, *mn = nullptr;
  CK(cudaMalloc(&in, n * sizeof(int)));
  CK(cudaMalloc(&out, n * sizeof(int)));
  CK(cudaMalloc(&mn, sizeof(int)));
  CK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  void* tmp = nullptr;
  size_t tmp_bytes = 0;
  CK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, in, out, n));
  CK(cudaMalloc(&tmp, tmp_bytes));
  CK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, in, out, n));
  CK(cudaFree(tmp));
  tmp = nullptr;
  tmp_bytes = 0;
  CK(cub::DeviceReduce::Min(tmp, tmp_bytes, in, mn, n));
  CK(cudaMalloc(&tmp, tmp_bytes));
  CK(cub::DeviceReduce::Min(tmp, tmp_bytes, in, mn, n));
  std::vector<int> ex(n);
  int m = 0;
  CK(cudaMemcpy(ex.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&m, mn, sizeof(int), cudaMemcpyDeviceToHost));
  int run = 0;
  for (int i = 0; i < n; ++i) {
    if (ex[i] != run) { printf("FAILED: ExclusiveSum[%d] = %d, expected %d\n", i, ex[i], run); return 1; }
    run += h[i];
  }
  if (m != ref[0]) { printf("FAILED: DeviceReduce::Min %d vs %d\n", m, ref[0]); return 1; }
  CK(cudaFree(tmp)); CK(cudaFree(in)); CK(cudaFree(out)); CK(cudaFree(mn));

  printf("thrust/cub n=%d sum=%lld min=%d max=%d odd=%d\n", n, sum, ref[0], ref[n - 1], odd);
  printf("PASSED\n");
  return 0;
}
