// stream: streaming-copy bandwidth microbenchmark (run in timing mode).
//
// dst[i] = src[i] over BYTES bytes with 16-byte (float4) loads and stores, one float4 per
// thread and one pass (no reuse: every line comes from DRAM once and goes back once), 256-thread
// CTAs, many CTAs (default 16 MB = 4096 CTAs). Each warp touches 512 contiguous bytes per
// access, so every access is perfectly coalesced.
//
// Device-side timing: thread 0 of every CTA records clock64() when the CTA starts and again
// after the CTA's last warp has its data and has issued its store (a __syncthreads() after the
// store, which in turn waits for the loaded value); the kernel keeps the earliest start and the
// latest end. scripts/bench.sh turns bytes moved (read + written) over that span, and over
// the kernel's total cycles from the stats JSON, into GB/s with the preset's core clock and
// compares it with the configured DRAM bandwidth.
//
// Self-check: dst must equal src everywhere.
//
// Build: nvcc -cudart shared -o stream stream.cu
// Run:   simtlab run --gpu fermi-gtx480 -- ./stream [MB]   (default 16)
#include <vector>

#include "bench_common.h"

__global__ void copy16(const float4* __restrict__ src, float4* __restrict__ dst, long long n,
                       unsigned long long* span) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long t0 = 0;
  if (threadIdx.x == 0) t0 = clock64();
  if (i < n) dst[i] = src[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    const long long t1 = clock64();
    atomicMin(&span[0], (unsigned long long)t0);
    atomicMax(&span[1], (unsigned long long)t1);
  }
}

int main(int argc, char** argv) {
  const long long mb = arg_or(argc, argv, 1, 16);
  const long long bytes = mb << 20;
  const long long n = bytes / 16;
  std::vector<float> h(bytes / 4), out(bytes / 4);
  for (size_t i = 0; i < h.size(); ++i) h[i] = (float)(i % 65536) - 1000.0f;

  float4 *dSrc, *dDst;
  unsigned long long* dSpan;
  CUDA_CHECK(cudaMalloc(&dSrc, bytes));
  CUDA_CHECK(cudaMalloc(&dDst, bytes));
  CUDA_CHECK(cudaMalloc(&dSpan, 2 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemcpy(dSrc, h.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dDst, 0, bytes));
  unsigned long long init[2] = {~0ull, 0ull};
  CUDA_CHECK(cudaMemcpy(dSpan, init, sizeof init, cudaMemcpyHostToDevice));

  const int threads = 256;
  const long long blocks = (n + threads - 1) / threads;
  copy16<<<(unsigned)blocks, threads>>>(dSrc, dDst, n, dSpan);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  unsigned long long span[2];
  CUDA_CHECK(cudaMemcpy(span, dSpan, sizeof span, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(out.data(), dDst, bytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] != h[i]) {
      printf("FAILED: dst[%zu] = %f, expected %f\n", i, out[i], h[i]);
      return 1;
    }
  const unsigned long long cycles = span[1] > span[0] ? span[1] - span[0] : 0;
  printf("stream: copied %lld MB with 16-byte loads/stores, %lld CTAs of %d threads\n", mb, blocks, threads);
  printf("  bytes moved (read + write): %lld\n", 2 * bytes);
  printf("  device clock64() span: %llu cycles (%.1f bytes/cycle)\n", cycles,
         cycles ? 2.0 * (double)bytes / (double)cycles : 0.0);
  printf("STREAM bytes=%lld span_cycles=%llu\n", 2 * bytes, cycles);
  CUDA_CHECK(cudaFree(dSrc));
  CUDA_CHECK(cudaFree(dDst));
  CUDA_CHECK(cudaFree(dSpan));
  printf("PASSED\n");
  return 0;
}
