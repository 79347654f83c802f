// dwt: full 1D Haar wavelet decomposition of a signal of n = 2^m samples. Level l turns the
// 2^(m-l+1) approximation coefficients of level l-1 into 2^(m-l) approximations
// a' = (a0 + a1)/sqrt(2) and details d = (a0 - a1)/sqrt(2). Output layout: out[0] = final
// approximation, out[2^(l-1) .. 2^l - 1] = details of level m-l+1 (the coarsest details first,
// the finest details in the upper half).
// Each block loads a chunk of 2*blockDim samples into shared memory (2 per thread, coalesced)
// and performs all levels of that chunk there, halving the active threads per level and writing
// each level's details straight to global memory; the chunk's final approximation goes to a
// per-block array that the next, smaller launch decomposes further (as the SDK sample does for
// signals longer than one block).
// Analog of: CUDA-SDK dwtHaar1D, kernel dwtHaar1D, D2MA Table 2 (DWT).
// Profile of the SDK sample: 512 threads per block, each thread two samples, dynamic shared
// memory of 2 floats per thread = 4096 B for the main launch. The second pass over the per-block
// approximations uses min(512, n/2048) threads per block (default: 128 threads, 1024 B, 1 block).
// Usage: dwt [n]   (n a power of two >= 2; default 262144 -> 256 blocks + 1 block; scaled run
//        4194304 -> 4096 blocks + 4 blocks + 1 block)
// Check: exact. Device and CPU do the same float operations (__fadd_rn/__fsub_rn/__fmul_rn on
// the device, no FMA contraction) in the same pairing order.
#include <vector>

#include "simtlab/xfer.h"
#include "wl.h"

namespace {
constexpr int kMaxThreads = 512;
constexpr float kInvSqrt2 = 0.70710678118654752440f;
}  // namespace

// One pass: each block decomposes its 2*blockDim.x samples of `in` (a signal of length len)
// through `levels` = log2(2*blockDim.x) levels.
__global__ void dwtHaar1D(const float* in, float* out, float* approxFinal, int len, int levels) {
  extern __shared__ float chunk[];
  const int tid = threadIdx.x, bdim = blockDim.x;
  const int base = blockIdx.x * 2 * bdim;
  simtlab_xfer_begin();  // transfer region (include/simtlab/xfer.h)
  chunk[tid] = in[base + tid];
  chunk[tid + bdim] = in[base + bdim + tid];
  __syncthreads();
  int active = bdim;       // pairs at this level within the block
  int levelLen = len / 2;  // global count of details at this level (= offset of its slot)
  for (int l = 0; l < levels; ++l) {
    float a = 0.0f;
    if (tid < active) {
      const float x0 = chunk[2 * tid], x1 = chunk[2 * tid + 1];
      a = __fmul_rn(__fadd_rn(x0, x1), kInvSqrt2);
      out[levelLen + blockIdx.x * active + tid] = __fmul_rn(__fsub_rn(x0, x1), kInvSqrt2);
    }
    __syncthreads();
    if (tid < active) chunk[tid] = a;
    __syncthreads();
    active >>= 1;
    levelLen >>= 1;
  }
  if (tid == 0) approxFinal[blockIdx.x] = chunk[0];
}

int main(int argc, char** argv) {
  const long n = wl::arg_int(argc, argv, 1, 262144, 2, 1L << 26);
  if (n & (n - 1)) {
    std::printf("FAILED: n=%ld must be a power of two\n", n);
    return 1;
  }
  std::vector<float> sig(n), out(n), ref(n);
  wl::Rng rng(31);
  for (auto& v : sig) v = rng.uniform(-1.0f, 1.0f);
  // CPU reference.
  {
    std::vector<float> a(sig), next(n / 2);
    for (long len = n; len > 1; len /= 2) {
      for (long i = 0; i < len / 2; ++i) {
        next[i] = (a[2 * i] + a[2 * i + 1]) * kInvSqrt2;
        ref[len / 2 + i] = (a[2 * i] - a[2 * i + 1]) * kInvSqrt2;
      }
      for (long i = 0; i < len / 2; ++i) a[i] = next[i];
    }
    ref[0] = a[0];
  }
  float *dSig, *dOut, *dApprox[2];
  WL_CK(cudaMalloc(&dSig, n * sizeof(float)));
  WL_CK(cudaMalloc(&dOut, n * sizeof(float)));
  const long maxBlocks = n / 2 / kMaxThreads + 1;
  WL_CK(cudaMalloc(&dApprox[0], maxBlocks * sizeof(float)));
  WL_CK(cudaMalloc(&dApprox[1], maxBlocks * sizeof(float)));
  WL_CK(cudaMemcpy(dSig, sig.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemset(dOut, 0, n * sizeof(float)));
  const float* src = dSig;
  long len = n;
  int pass = 0;
  std::printf("dwt n=%ld\n", n);
  while (len > 1) {
    const int threads = int(len / 2 < kMaxThreads ? len / 2 : kMaxThreads);
    const int blocks = int(len / (2 * threads));
    int levels = 0;
    while ((1 << levels) < 2 * threads) ++levels;
    float* dst = dApprox[pass % 2];
    dwtHaar1D<<<blocks, threads, 2 * threads * sizeof(float)>>>(src, dOut, dst, int(len), levels);
    WL_CK_LAUNCH();
    std::printf("pass %d: len=%ld blocks=%d threads=%d levels=%d\n", pass, len, blocks, threads,
                levels);
    src = dst;
    len = blocks;
    ++pass;
  }
  WL_CK(cudaMemcpy(dOut, src, sizeof(float), cudaMemcpyDeviceToDevice));
  WL_CK(cudaMemcpy(out.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost));
  const bool ok = wl::check_equal("coefficients", out.data(), ref.data(), size_t(n));
  WL_CK(cudaFree(dSig));
  WL_CK(cudaFree(dOut));
  WL_CK(cudaFree(dApprox[0]));
  WL_CK(cudaFree(dApprox[1]));
  return wl::finish(ok);
}
