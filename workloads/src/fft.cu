// fft: batched 1024-point complex forward FFT, one transform per block, entirely in shared memory.
// Radix-2 decimation in time: the block loads its 1024 complex inputs into shared memory in
// bit-reversed order, then runs 10 butterfly stages (512 butterflies each, 8 per thread, a barrier
// between stages) with twiddle factors from a global table, and writes the result in natural
// order. The shared array is padded by one float2 every 16 elements (index i + i/16) against bank
// conflicts, which gives 1024 + 64 = 1088 float2.
// Analog of: shared-memory-multiplexing benchmark set (Yang et al., PACT'12) FFT, kernel kfft;
// thesis Table 3.8 (FFT).
// Profile: 64 threads per block, one shared variable of 8704 B = 1088 float2 (thesis Table 3.8:
// 1 variable, 8704 B, 64 threads; the 1024-point size and the padding are our reading of 1088
// float2). No register count is listed; ours is recorded.
// Usage: fft [batch]   (default 64 transforms = 64 blocks; scaled run 1024)
// Check: against a double-precision CPU FFT, per component |err| <= 2e-3 + 1e-4 |ref|. Inputs are
// in [-1, 1), so |X_k| <= 1024; a float radix-2 FFT has an error of order eps log2(N) |x|_2
// (about 1.2e-7 x 10 x 32 = 4e-5 rms here), so 2e-3 leaves ample room for FMA contraction.
#include <cmath>
#include <complex>
#include <vector>

#include "wl.h"

#define FFT_N 1024
#define FFT_LOG2N 10
#define FFT_THREADS 64
#define PAD(i) ((i) + ((i) >> 4))

__global__ void kfft(float2* data, const float2* twiddle) {
  __shared__ float2 s[FFT_N + FFT_N / 16];
  float2* x = data + size_t(blockIdx.x) * FFT_N;
  for (int n = threadIdx.x; n < FFT_N; n += FFT_THREADS) {
    const int r = __brev(n) >> (32 - FFT_LOG2N);
    s[PAD(r)] = x[n];
  }
  __syncthreads();
  for (int stage = 0; stage < FFT_LOG2N; ++stage) {
    const int half = 1 << stage;
    for (int b = threadIdx.x; b < FFT_N / 2; b += FFT_THREADS) {
      const int j = b & (half - 1);
      const int i0 = ((b >> stage) << (stage + 1)) + j, i1 = i0 + half;
      const float2 w = twiddle[j << (FFT_LOG2N - 1 - stage)];  // exp(-2 pi i j / (2 half))
      const float2 a = s[PAD(i0)], c = s[PAD(i1)];
      const float2 t = make_float2(w.x * c.x - w.y * c.y, w.x * c.y + w.y * c.x);
      s[PAD(i0)] = make_float2(a.x + t.x, a.y + t.y);
      s[PAD(i1)] = make_float2(a.x - t.x, a.y - t.y);
    }
    __syncthreads();
  }
  for (int n = threadIdx.x; n < FFT_N; n += FFT_THREADS) x[n] = s[PAD(n)];
}

// Recursive radix-2 FFT in double (reference).
static void cpuFft(std::vector<std::complex<double>>& a) {
  const size_t n = a.size();
  if (n == 1) return;
  std::vector<std::complex<double>> e(n / 2), o(n / 2);
  for (size_t i = 0; i < n / 2; ++i) {
    e[i] = a[2 * i];
    o[i] = a[2 * i + 1];
  }
  cpuFft(e);
  cpuFft(o);
  for (size_t k = 0; k < n / 2; ++k) {
    const std::complex<double> t = std::polar(1.0, -2 * M_PI * double(k) / double(n)) * o[k];
    a[k] = e[k] + t;
    a[k + n / 2] = e[k] - t;
  }
}

int main(int argc, char** argv) {
  const int batch = int(wl::arg_int(argc, argv, 1, 64, 1, 1 << 16));
  const size_t total = size_t(batch) * FFT_N;
  std::vector<float2> in(total), out(total), tw(FFT_N / 2);
  wl::Rng rng(1024);
  for (auto& v : in) {
    v.x = rng.uniform(-1.0f, 1.0f);
    v.y = rng.uniform(-1.0f, 1.0f);
  }
  for (int k = 0; k < FFT_N / 2; ++k) {
    const double a = -2 * M_PI * k / FFT_N;
    tw[k] = make_float2(float(std::cos(a)), float(std::sin(a)));
  }
  float2 *dData, *dTw;
  WL_CK(cudaMalloc(&dData, total * sizeof(float2)));
  WL_CK(cudaMalloc(&dTw, tw.size() * sizeof(float2)));
  WL_CK(cudaMemcpy(dData, in.data(), total * sizeof(float2), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dTw, tw.data(), tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
  kfft<<<batch, FFT_THREADS>>>(dData, dTw);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(out.data(), dData, total * sizeof(float2), cudaMemcpyDeviceToHost));
  std::printf("fft n=%d batch=%d threads=%d\n", FFT_N, batch, FFT_THREADS);
  std::vector<float> got(2 * total), ref(2 * total);
  std::vector<std::complex<double>> a(FFT_N);
  for (int b = 0; b < batch; ++b) {
    for (int i = 0; i < FFT_N; ++i) a[i] = {in[size_t(b) * FFT_N + i].x, in[size_t(b) * FFT_N + i].y};
    cpuFft(a);
    for (int i = 0; i < FFT_N; ++i) {
      const size_t k = size_t(b) * FFT_N + i;
      ref[2 * k] = float(a[i].real());
      ref[2 * k + 1] = float(a[i].imag());
      got[2 * k] = out[k].x;
      got[2 * k + 1] = out[k].y;
    }
  }
  const bool ok = wl::check_close("X", got.data(), ref.data(), got.size(), 1e-4, 2e-3);
  WL_CK(cudaFree(dData));
  WL_CK(cudaFree(dTw));
  return wl::finish(ok);
}
