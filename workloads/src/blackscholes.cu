// blackscholes: European call and put prices of a batch of options with the Black-Scholes
// closed form; the cumulative normal distribution uses the 5th-order polynomial approximation of
// Abramowitz & Stegun 26.2.17. One thread per option with a grid-stride loop.
// Analog of: CUDA-SDK BlackScholes, kernel BlackScholesGPU, thesis Table 4.3 #4 (BS).
// Profile: 128 threads per block and a fixed grid of 480 blocks with a grid-stride loop over the
// options (the launch of the original SDK sample); no shared memory. The thesis lists no
// register count for Chapter 4 kernels; ours is recorded in the manifest. Inputs as in the
// published sample: stock price in [5, 30], strike in [1, 100], expiry in [0.25, 10] years,
// riskless rate 0.02, volatility 0.30.
// Usage: blackscholes [options]   (default 122880 = 2 per thread; scaled run 4000000, the
//        sample's OPT_N)
// Check: call and put against a CPU reference in double precision with the same approximation;
//        |got - ref| <= 2e-4 + 1e-4 * |ref| (float rounding of exp/log/sqrt and the cancellation
//        in S*N(d1) - X*exp(-rT)*N(d2) for prices up to ~100; measured worst absolute error on the
//        simulator is between 1e-5 and 3e-5).
#include <vector>

#include "wl.h"

namespace {
constexpr int kThreads = 128;
constexpr int kBlocks = 480;
constexpr float kRiskFree = 0.02f;
constexpr float kVolatility = 0.30f;
}  // namespace

// Abramowitz & Stegun 26.2.17 polynomial approximation of the standard normal CDF.
__device__ inline float cndGPU(float d) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
              A5 = 1.330274429f, RSQRT2PI = 0.39894228040143267794f;
  const float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float cnd = RSQRT2PI * expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  if (d > 0) cnd = 1.0f - cnd;
  return cnd;
}

__device__ inline void blackScholesBody(float& call, float& put, float S, float X, float T, float R,
                                        float V) {
  const float sqrtT = sqrtf(T);
  const float d1 = (logf(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
  const float d2 = d1 - V * sqrtT;
  const float cndd1 = cndGPU(d1), cndd2 = cndGPU(d2);
  const float expRT = expf(-R * T);
  call = S * cndd1 - X * expRT * cndd2;
  put = X * expRT * (1.0f - cndd2) - S * (1.0f - cndd1);
}

__global__ void BlackScholesGPU(float* call, float* put, const float* S, const float* X,
                                const float* T, float R, float V, int optN) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int nthreads = blockDim.x * gridDim.x;
  for (int opt = tid; opt < optN; opt += nthreads)
    blackScholesBody(call[opt], put[opt], S[opt], X[opt], T[opt], R, V);
}

static double cndCPU(double d) {
  const double A1 = 0.31938153, A2 = -0.356563782, A3 = 1.781477937, A4 = -1.821255978,
               A5 = 1.330274429, RSQRT2PI = 0.39894228040143267794;
  const double K = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
  double cnd =
      RSQRT2PI * std::exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  if (d > 0) cnd = 1.0 - cnd;
  return cnd;
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 122880, 1, 1 << 26));
  std::vector<float> S(n), X(n), T(n), call(n), put(n);
  std::vector<double> refCall(n), refPut(n);
  wl::Rng rng(4);
  for (int i = 0; i < n; ++i) {
    S[i] = rng.uniform(5.0f, 30.0f);
    X[i] = rng.uniform(1.0f, 100.0f);
    T[i] = rng.uniform(0.25f, 10.0f);
  }
  for (int i = 0; i < n; ++i) {
    const double s = S[i], x = X[i], t = T[i], r = kRiskFree, v = kVolatility;
    const double sqrtT = std::sqrt(t);
    const double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrtT);
    const double d2 = d1 - v * sqrtT;
    const double c1 = cndCPU(d1), c2 = cndCPU(d2), e = std::exp(-r * t);
    refCall[i] = s * c1 - x * e * c2;
    refPut[i] = x * e * (1.0 - c2) - s * (1.0 - c1);
  }
  float *dS, *dX, *dT, *dC, *dP;
  const size_t bytes = size_t(n) * sizeof(float);
  WL_CK(cudaMalloc(&dS, bytes));
  WL_CK(cudaMalloc(&dX, bytes));
  WL_CK(cudaMalloc(&dT, bytes));
  WL_CK(cudaMalloc(&dC, bytes));
  WL_CK(cudaMalloc(&dP, bytes));
  WL_CK(cudaMemcpy(dS, S.data(), bytes, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dX, X.data(), bytes, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dT, T.data(), bytes, cudaMemcpyHostToDevice));
  BlackScholesGPU<<<kBlocks, kThreads>>>(dC, dP, dS, dX, dT, kRiskFree, kVolatility, n);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(call.data(), dC, bytes, cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(put.data(), dP, bytes, cudaMemcpyDeviceToHost));
  std::printf("blackscholes options=%d blocks=%d threads=%d\n", n, kBlocks, kThreads);
  std::vector<double> gotC(call.begin(), call.end()), gotP(put.begin(), put.end());
  bool ok = wl::check_close("call", gotC.data(), refCall.data(), size_t(n), 1e-4, 2e-4);
  ok = ok && wl::check_close("put", gotP.data(), refPut.data(), size_t(n), 1e-4, 2e-4);
  WL_CK(cudaFree(dS));
  WL_CK(cudaFree(dX));
  WL_CK(cudaFree(dT));
  WL_CK(cudaFree(dC));
  WL_CK(cudaFree(dP));
  return wl::finish(ok);
}
