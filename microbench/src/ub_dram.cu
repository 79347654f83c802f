// DRAM bandwidth by a streaming copy (Jia et al. 2018, Sec. "Global memory throughput": a
// large grid-stride copy timed on the host).
//
// Method: dst[i] = src[i] over float4 elements, a grid of (SMs x resident 256-thread blocks)
// striding through buffers of --bytes each (default: 2 x the L2 capacity, at least 32 MB, so the
// copy streams from DRAM and the L2 holds no useful part of src when a pass starts). One
// untimed pass (instruction caches), then one pass timed with cudaEvents.
// Bandwidth = (bytes read + bytes written) / elapsed time.
//   ubench dram.copy_bw <GB/s> GB/s
//   ubench dram.copy_bw_per_clk <bytes per SM clock> B/cycle
// Options: --l2=BYTES, --bytes=BYTES (per buffer).
#include "ub.h"

__global__ void k_copy(const float4* __restrict__ src, float4* __restrict__ dst, size_t n) {
  const size_t step = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) dst[i] = src[i];
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  UB_CHECK(cudaGetDeviceProperties(&prop, 0));
  const long long l2 = ub_opt(argc, argv, "--l2", prop.l2CacheSize);
  long long def = 2 * l2;
  if (def < (32ll << 20)) def = 32ll << 20;
  const size_t bytes = size_t(ub_opt(argc, argv, "--bytes", def)) & ~size_t(15);
  const size_t n = bytes / 16;
  float4 *src, *dst;
  UB_CHECK(cudaMalloc(&src, bytes));
  UB_CHECK(cudaMalloc(&dst, bytes));
  UB_CHECK(cudaMemset(src, 1, bytes));
  int per_sm = prop.maxThreadsPerMultiProcessor / 256;
  if (per_sm < 1) per_sm = 1;
  const int blocks = prop.multiProcessorCount * per_sm;
  std::printf("# ub_dram: copy of %zu bytes, %d blocks x 256 threads\n", bytes, blocks);
  cudaEvent_t a, b;
  UB_CHECK(cudaEventCreate(&a));
  UB_CHECK(cudaEventCreate(&b));
  k_copy<<<blocks, 256>>>(src, dst, n);
  UB_CHECK(cudaGetLastError());
  UB_CHECK(cudaEventRecord(a));
  k_copy<<<blocks, 256>>>(src, dst, n);
  UB_CHECK(cudaEventRecord(b));
  UB_CHECK(cudaEventSynchronize(b));
  float ms = 0;
  UB_CHECK(cudaEventElapsedTime(&ms, a, b));
  const double gbs = 2.0 * double(bytes) / (double(ms) * 1e6);
  ub_print("dram.copy_bw", gbs, "GB/s");
  ub_print("dram.copy_bw_per_clk", 2.0 * double(bytes) / (double(ms) * ub_sm_khz()), "B/cycle");
  ub_print("dram.copy_ms", double(ms), "ms");
  return 0;
}
