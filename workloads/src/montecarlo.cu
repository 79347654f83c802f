// montecarlo: Monte Carlo pricing of European call options.
//  1. inverseCNDKernel (MC1): pathN quasi-random uniforms u_i from the base-2 van der Corput
//     sequence (bit reversal of i+1, 24 bits) are turned into standard normal samples with
//     Moro's inverse cumulative normal ("The Full Monte", Risk 1995: Beasley-Springer rational
//     approximation in the central region |u-0.5| < 0.42, Chebyshev polynomial in
//     log(-log(u)) in the tails). Grid-stride loop, 128 blocks x 128 threads.
//  2. MonteCarloOneBlockPerOption (MC2): one block of 256 threads per option; each thread sums
//     the payoff max(S*exp(MuByT + VBySqrtT*z) - X, 0) and its square over every 256th sample,
//     then the block reduces both sums in shared memory (tree, __syncthreads per level) and
//     thread 0 writes the discounted expected value and its 95% confidence half-width
//     exp(-RT)*1.96*stddev/sqrt(pathN). Option data in constant memory.
// Analog of: CUDA-SDK MonteCarlo, kernels inverseCNDKernel and MonteCarloOneBlockPerOption,
// thesis Table 4.3 #8 (MC1) and #9 (MC2).
// Profile of the SDK sample: inverseCNDKernel launched as 128 x 128 threads, no shared memory;
// MonteCarloOneBlockPerOption with THREAD_N = 256 threads and __shared__ float
// s_SumCall[256], s_Sum2Call[256] = 2048 B. The thesis lists no register count for Chapter 4;
// ours are in the manifest. Option parameters as in the sample: S in [5, 50], X in [10, 25],
// T in [1, 5], riskless rate 0.06, volatility 0.10.
// Usage: montecarlo [pathN] [optN]   (default 16384 56 = 4 options per SM; scaled run 262144 56)
// Check: samples vs a double CPU Moro of the same uniforms, |err| <= 2e-5 + 1e-5*|ref| (float
//   evaluation of the rational/polynomial and of log(-log u)); prices vs a double CPU reference
//   computed from the device's samples, expected value |err| <= 1e-4*(1 + |ref|) (float sums
//   of pathN terms, __expf) and confidence |err| <= 1e-3*(1e-3 + |ref|) (float
//   N*sum2 - sum^2 cancellation, as in the original).
#include <algorithm>
#include <vector>

#include "wl.h"

namespace {
constexpr int kMC1Blocks = 128;
constexpr int kMC1Threads = 128;
constexpr int THREAD_N = 256;
constexpr int kMaxOptions = 1024;
constexpr float kRiskFree = 0.06f;
constexpr float kVolatility = 0.10f;
}  // namespace

struct OptionData {
  float S, X, MuByT, VBySqrtT;
};
__constant__ OptionData d_OptionData[kMaxOptions];

template <typename T>
__host__ __device__ inline T moroInvCND(T p) {
  const T a1 = T(2.50662823884), a2 = T(-18.61500062529), a3 = T(41.39119773534),
          a4 = T(-25.44106049637);
  const T b1 = T(-8.4735109309), b2 = T(23.08336743743), b3 = T(-21.06224101826),
          b4 = T(3.13082909833);
  const T c1 = T(0.337475482272615), c2 = T(0.976169019091719), c3 = T(0.160797971491821),
          c4 = T(2.76438810333863E-02), c5 = T(3.8405729373609E-03), c6 = T(3.951896511919E-04),
          c7 = T(3.21767881768E-05), c8 = T(2.888167364E-07), c9 = T(3.960315187E-07);
  const T z = p - T(0.5);
  if (fabs(z) < T(0.42)) {
    const T r = z * z;
    return z * (((a4 * r + a3) * r + a2) * r + a1) /
           ((((b4 * r + b3) * r + b2) * r + b1) * r + T(1));
  }
  T r = z > 0 ? T(1) - p : p;
  r = log(-log(r));
  r = c1 + r * (c2 + r * (c3 + r * (c4 + r * (c5 + r * (c6 + r * (c7 + r * (c8 + r * c9)))))));
  return z < 0 ? -r : r;
}

__global__ void inverseCNDKernel(float* d_Output, int pathN) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int threadN = blockDim.x * gridDim.x;
  for (int pos = tid; pos < pathN; pos += threadN) {
    const float u = float(__brev(unsigned(pos + 1)) >> 8) * (1.0f / 16777216.0f);
    d_Output[pos] = moroInvCND<float>(u);
  }
}

__global__ void MonteCarloOneBlockPerOption(float2* d_Result, const float* d_Samples, int pathN) {
  __shared__ float s_SumCall[THREAD_N];
  __shared__ float s_Sum2Call[THREAD_N];
  const int tid = threadIdx.x;
  const OptionData opt = d_OptionData[blockIdx.x];
  float sum = 0.0f, sum2 = 0.0f;
  for (int i = tid; i < pathN; i += THREAD_N) {
    const float r = d_Samples[i];
    const float end = opt.S * __expf(opt.MuByT + opt.VBySqrtT * r);
    const float call = fmaxf(end - opt.X, 0.0f);
    sum += call;
    sum2 += call * call;
  }
  s_SumCall[tid] = sum;
  s_Sum2Call[tid] = sum2;
  for (int stride = THREAD_N / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (tid < stride) {
      s_SumCall[tid] += s_SumCall[tid + stride];
      s_Sum2Call[tid] += s_Sum2Call[tid + stride];
    }
  }
  __syncthreads();
  if (tid == 0) {
    const float S = s_SumCall[0], S2 = s_Sum2Call[0], n = float(pathN);
    const float T = opt.MuByT / (kRiskFree - 0.5f * kVolatility * kVolatility);
    const float disc = __expf(-kRiskFree * T);
    const float stdDev = sqrtf(fmaxf(n * S2 - S * S, 0.0f) / (n * (n - 1.0f)));
    d_Result[blockIdx.x] = make_float2(disc * S / n, disc * 1.96f * stdDev / sqrtf(n));
  }
}

static unsigned brev32(unsigned v) {
  unsigned r = 0;
  for (int b = 0; b < 32; ++b) r |= ((v >> b) & 1u) << (31 - b);
  return r;
}

int main(int argc, char** argv) {
  const int pathN = int(wl::arg_int(argc, argv, 1, 16384, 2, 1 << 24));
  const int optN = int(wl::arg_int(argc, argv, 2, 56, 1, kMaxOptions));
  std::vector<OptionData> opts(optN);
  std::vector<float> T(optN);
  wl::Rng rng(8);
  for (int o = 0; o < optN; ++o) {
    const float S = rng.uniform(5.0f, 50.0f), X = rng.uniform(10.0f, 25.0f);
    T[o] = rng.uniform(1.0f, 5.0f);
    opts[o] = {S, X, (kRiskFree - 0.5f * kVolatility * kVolatility) * T[o],
               kVolatility * std::sqrt(T[o])};
  }
  float* dSamples;
  float2* dResult;
  WL_CK(cudaMalloc(&dSamples, size_t(pathN) * sizeof(float)));
  WL_CK(cudaMalloc(&dResult, optN * sizeof(float2)));
  WL_CK(cudaMemcpyToSymbol(d_OptionData, opts.data(), optN * sizeof(OptionData)));
  inverseCNDKernel<<<kMC1Blocks, kMC1Threads>>>(dSamples, pathN);
  WL_CK_LAUNCH();
  MonteCarloOneBlockPerOption<<<optN, THREAD_N>>>(dResult, dSamples, pathN);
  WL_CK_LAUNCH();
  std::vector<float> samples(pathN);
  std::vector<float2> res(optN);
  WL_CK(
      cudaMemcpy(samples.data(), dSamples, size_t(pathN) * sizeof(float), cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(res.data(), dResult, optN * sizeof(float2), cudaMemcpyDeviceToHost));
  std::printf("montecarlo pathN=%d optN=%d\n", pathN, optN);

  // MC1 reference: the same uniforms, Moro in double.
  std::vector<double> refS(pathN), gotS(samples.begin(), samples.end());
  for (int i = 0; i < pathN; ++i) {
    const double u = double(brev32(unsigned(i + 1)) >> 8) / 16777216.0;
    refS[i] = moroInvCND<double>(u);
  }
  bool ok = wl::check_close("samples", gotS.data(), refS.data(), size_t(pathN), 1e-5, 2e-5);
  // MC2 reference from the device's samples, in double.
  std::vector<double> gotE(optN), gotC(optN), refE(optN), refC(optN);
  for (int o = 0; o < optN; ++o) {
    double s = 0, s2 = 0;
    for (int i = 0; i < pathN; ++i) {
      const double end = double(opts[o].S) *
                         std::exp(double(opts[o].MuByT) + double(opts[o].VBySqrtT) * samples[i]);
      const double call = std::max(end - double(opts[o].X), 0.0);
      s += call;
      s2 += call * call;
    }
    const double n = pathN, disc = std::exp(-double(kRiskFree) * T[o]);
    const double sd = std::sqrt(std::max(n * s2 - s * s, 0.0) / (n * (n - 1)));
    refE[o] = disc * s / n;
    refC[o] = disc * 1.96 * sd / std::sqrt(n);
    gotE[o] = res[o].x;
    gotC[o] = res[o].y;
  }
  for (int o = 0; ok && o < optN; ++o) {
    if (!(std::fabs(gotE[o] - refE[o]) <= 1e-4 * (1 + std::fabs(refE[o])))) {
      std::printf("FAILED: option %d expected value %.9g, reference %.9g\n", o, gotE[o], refE[o]);
      ok = false;
    } else if (!(std::fabs(gotC[o] - refC[o]) <= 1e-3 * (1e-3 + std::fabs(refC[o])))) {
      std::printf("FAILED: option %d confidence %.9g, reference %.9g\n", o, gotC[o], refC[o]);
      ok = false;
    }
  }
  WL_CK(cudaFree(dSamples));
  WL_CK(cudaFree(dResult));
  return wl::finish(ok);
}
