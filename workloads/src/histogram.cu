// histogram: 256-bin histogram of a byte array. Pass 1 (histogram256Kernel): each block keeps
// sub-histograms of 256 uint counters in shared memory; its threads stride over the input as 32-bit
// words and add the 4 bytes of each word to their sub-histogram with shared-memory atomics (Fermi-
// class replacement of the SDK's older tagged updates); the block then sums its sub-histograms
// into one partial histogram in global memory. Pass 2 (mergeHistogram256Kernel): one block per
// bin sums that bin over all partial histograms with a shared-memory tree reduction.
// Analog of: CUDA SDK histogram, kernels histogram256Kernel + mergeHistogram256Kernel (thesis
// Table 3.3 Set-2 "histogram", Table 3.7; thesis Table 3.8 "HG" for the 32-thread variant).
// Profiles:
//  * variant "sdk" (default): 192 threads = 6 warps, one sub-histogram per warp: 6 x 256 uint =
//    6144 B in one shared variable; 240 partial histograms (= blocks). All as published for the
//    SDK sample (WARP_COUNT 6, 256 bins, PARTIAL_HISTOGRAM256_COUNT 240); thesis Table 3.5's
//    46,080 threads = 240 x 192 agrees. The merge uses 256 threads and 256 uint (1024 B).
//  * variant "hg": 32 threads and 7168 B = 7 sub-histograms x 256 uint (thesis Table 3.8: HG,
//    1 variable, 7168 B, 32 threads). With one warp, the thread's sub-histogram rotates with the
//    word index (word i goes to sub-histogram i mod 7), spreading same-bin atomics.
// Usage: histogram [KiB] [sdk|hg]   (input size in KiB; default 1024 KiB; scaled run 16384)
// Check: exact (integer counts), final histogram and all partial histograms.
#include <string>
#include <vector>

#include "wl.h"

#define BIN_COUNT 256
#define PARTIAL_COUNT 240
#define MERGE_THREADS 256

template <int THREADS, int SUBHISTS>
__global__ void histogram256Kernel(unsigned* d_Partial, const unsigned* d_Data, int wordCount) {
  __shared__ unsigned s_Hist[SUBHISTS * BIN_COUNT];
#pragma unroll 1
  for (int i = threadIdx.x; i < SUBHISTS * BIN_COUNT; i += THREADS) s_Hist[i] = 0;
  __syncthreads();
  const int warp = threadIdx.x / 32;
#pragma unroll 1  // one word per iteration, as the SDK loop (unrolled, ptxas needs ~60 registers)
  for (int pos = blockIdx.x * THREADS + threadIdx.x; pos < wordCount; pos += THREADS * gridDim.x) {
    const unsigned w = d_Data[pos];
    // SDK profile: one sub-histogram per warp. HG profile: 1 warp, rotate over the SUBHISTS.
    const int sub = (THREADS / 32 == SUBHISTS) ? warp : (pos / THREADS) % SUBHISTS;
    unsigned* h = s_Hist + sub * BIN_COUNT;
    atomicAdd(h + ((w >> 0) & 0xFFu), 1u);
    atomicAdd(h + ((w >> 8) & 0xFFu), 1u);
    atomicAdd(h + ((w >> 16) & 0xFFu), 1u);
    atomicAdd(h + ((w >> 24) & 0xFFu), 1u);
  }
  __syncthreads();
#pragma unroll 1
  for (int bin = threadIdx.x; bin < BIN_COUNT; bin += THREADS) {
    unsigned sum = 0;
    for (int s = 0; s < SUBHISTS; ++s) sum += s_Hist[s * BIN_COUNT + bin];
    d_Partial[blockIdx.x * BIN_COUNT + bin] = sum;
  }
}

// One block per bin: sum the bin over the partial histograms.
__global__ void mergeHistogram256Kernel(unsigned* d_Histogram, const unsigned* d_Partial,
                                        int partialCount) {
  __shared__ unsigned data[MERGE_THREADS];
  unsigned sum = 0;
#pragma unroll 1
  for (int i = threadIdx.x; i < partialCount; i += MERGE_THREADS)
    sum += d_Partial[blockIdx.x + i * BIN_COUNT];
  data[threadIdx.x] = sum;
  for (int stride = MERGE_THREADS / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) data[threadIdx.x] += data[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) d_Histogram[blockIdx.x] = data[0];
}

int main(int argc, char** argv) {
  const long kib = wl::arg_int(argc, argv, 1, 1024, 1, 1 << 20);
  const std::string variant = wl::arg_str(argc, argv, 2, "sdk");
  if (variant != "sdk" && variant != "hg") {
    std::printf("FAILED: variant must be sdk or hg\n");
    return 1;
  }
  const int wordCount = int(kib * 1024 / 4);
  std::vector<unsigned> data(wordCount);
  wl::Rng rng(4242);
  // Bytes with a skewed distribution (sum of two uniform bytes / 2, plus runs of one value) so
  // that some bins are hot, as in image data.
  for (int i = 0; i < wordCount; ++i) {
    unsigned w = 0;
    for (int b = 0; b < 4; ++b) {
      unsigned v = (i % 97 < 7) ? 128u : (rng.u32() % 256 + rng.u32() % 256) / 2;
      w |= v << (8 * b);
    }
    data[i] = w;
  }
  const bool sdk = variant == "sdk";
  const int threads = sdk ? 192 : 32;
  std::vector<unsigned> refPartial(size_t(PARTIAL_COUNT) * BIN_COUNT, 0), ref(BIN_COUNT, 0);
  for (int pos = 0; pos < wordCount; ++pos) {
    const int blk = (pos / threads) % PARTIAL_COUNT;
    for (int b = 0; b < 4; ++b) {
      const unsigned bin = (data[pos] >> (8 * b)) & 0xFFu;
      ++refPartial[size_t(blk) * BIN_COUNT + bin];
      ++ref[bin];
    }
  }
  unsigned *dData, *dPartial, *dHist;
  WL_CK(cudaMalloc(&dData, size_t(wordCount) * 4));
  WL_CK(cudaMalloc(&dPartial, refPartial.size() * 4));
  WL_CK(cudaMalloc(&dHist, BIN_COUNT * 4));
  WL_CK(cudaMemcpy(dData, data.data(), size_t(wordCount) * 4, cudaMemcpyHostToDevice));
  if (sdk)
    histogram256Kernel<192, 6><<<PARTIAL_COUNT, 192>>>(dPartial, dData, wordCount);
  else
    histogram256Kernel<32, 7><<<PARTIAL_COUNT, 32>>>(dPartial, dData, wordCount);
  WL_CK_LAUNCH();
  mergeHistogram256Kernel<<<BIN_COUNT, MERGE_THREADS>>>(dHist, dPartial, PARTIAL_COUNT);
  WL_CK_LAUNCH();
  std::vector<unsigned> partial(refPartial.size()), hist(BIN_COUNT);
  WL_CK(cudaMemcpy(partial.data(), dPartial, partial.size() * 4, cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(hist.data(), dHist, BIN_COUNT * 4, cudaMemcpyDeviceToHost));
  std::printf("histogram variant=%s bytes=%d blocks=%d threads=%d\n", variant.c_str(),
              wordCount * 4, PARTIAL_COUNT, threads);
  bool ok = wl::check_equal("partial histograms", partial.data(), refPartial.data(), partial.size());
  ok = ok && wl::check_equal("histogram", hist.data(), ref.data(), size_t(BIN_COUNT));
  WL_CK(cudaFree(dData));
  WL_CK(cudaFree(dPartial));
  WL_CK(cudaFree(dHist));
  return wl::finish(ok);
}
