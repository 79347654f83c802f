// d2ma_fwt: the fwt workload (fwt.cu, SDK fastWalshTransform) with fwtBatch1Kernel ported to the
// D2MA intrinsics (include/simtlab/d2ma.h): the block's 2048-element chunk is one flat
// unit-stride transfer into the dynamic shared array, and the __syncthreads() that ended the
// copy (the first radix-4 step's) is gone: in the first step every thread reads and then
// writes only its own four elements, so the RAW check on those reads is the only ordering
// needed; the later steps keep their barriers. fwtBatch2Kernel (global memory only) is the
// baseline kernel unchanged. Same arguments, data and check as fwt.cu. Run the engine with
// --set d2ma.enable=true. Analog of: D2MA Table 2 (FW: the SDK's fast Walsh transform).
#include <vector>

#include "simtlab/d2ma.h"
#include "wl.h"

namespace {
constexpr int ELEMENTARY_LOG2SIZE = 11;
constexpr int ELEMENTARY_N = 1 << ELEMENTARY_LOG2SIZE;
constexpr int kBatch2Threads = 256;
}  // namespace

// Radix-4 step on global memory over the distances 2*stride and stride.
__global__ void fwtBatch2Kernel(float* out, const float* in, int stride) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  const int lo = pos & (stride - 1);
  const int i0 = ((pos - lo) << 2) + lo;
  const float D0 = in[i0], D1 = in[i0 + stride], D2 = in[i0 + 2 * stride], D3 = in[i0 + 3 * stride];
  // distance 2*stride
  const float T0 = D0 + D2, T2 = D0 - D2, T1 = D1 + D3, T3 = D1 - D3;
  // distance stride
  out[i0] = T0 + T1;
  out[i0 + stride] = T0 - T1;
  out[i0 + 2 * stride] = T2 + T3;
  out[i0 + 3 * stride] = T2 - T3;
}

// All stages with distance < ELEMENTARY_N inside one 2048-element chunk per block.
__global__ void fwtBatch1Kernel(float* out, const float* in, int log2N) {
  extern __shared__ float s_data[];
  const int N = 1 << log2N;
  const int tid = threadIdx.x, bdim = blockDim.x;  // bdim = N/4
  const int base = blockIdx.x * N;
  // ---- transfer: the chunk, one flat unit-stride transfer (no barrier) ----
  dma_init();
  dma_set_datatype_float();
  dma_configure_flat_unit_stride(s_data, in + base, N);
  int stride = N;
  // Radix-4 steps: distances (stride/2, stride/4).
  for (; stride >= 4; stride >>= 2) {
    const int q = stride >> 2;
    if (stride != N) __syncthreads();
    const int lo = tid & (q - 1);
    const int i0 = ((tid - lo) << 2) + lo;
    const float D0 = s_data[i0], D1 = s_data[i0 + q], D2 = s_data[i0 + 2 * q],
                D3 = s_data[i0 + 3 * q];
    const float T0 = D0 + D2, T2 = D0 - D2, T1 = D1 + D3, T3 = D1 - D3;
    s_data[i0] = T0 + T1;
    s_data[i0 + q] = T0 - T1;
    s_data[i0 + 2 * q] = T2 + T3;
    s_data[i0 + 3 * q] = T2 - T3;
  }
  __syncthreads();
  // Odd log2N: one radix-2 step at distance 1, two pairs per thread.
  if (log2N & 1) {
    for (int p = tid; p < N / 2; p += bdim) {
      const float a = s_data[2 * p], b = s_data[2 * p + 1];
      s_data[2 * p] = a + b;
      s_data[2 * p + 1] = a - b;
    }
    __syncthreads();
  }
  for (int p = tid; p < N; p += bdim) out[base + p] = s_data[p];
}

int main(int argc, char** argv) {
  const int log2N = int(wl::arg_int(argc, argv, 1, 17, ELEMENTARY_LOG2SIZE, 21));
  if (!(log2N & 1)) {
    std::printf("FAILED: log2N=%d must be odd (keeps the 2048-element shared chunk)\n", log2N);
    return 1;
  }
  const int N = 1 << log2N;
  std::vector<float> data(N), out(N);
  std::vector<long long> ref(N);
  wl::Rng rng(41);
  for (int i = 0; i < N; ++i) {
    const int v = rng.range(-4, 4);
    data[i] = float(v);
    ref[i] = v;
  }
  for (int h = N / 2; h >= 1; h /= 2)
    for (int i = 0; i < N; ++i)
      if (!(i & h)) {
        const long long a = ref[i], b = ref[i + h];
        ref[i] = a + b;
        ref[i + h] = a - b;
      }

  float* d;
  WL_CK(cudaMalloc(&d, size_t(N) * sizeof(float)));
  WL_CK(cudaMemcpy(d, data.data(), size_t(N) * sizeof(float), cudaMemcpyHostToDevice));
  int n = N, launches2 = 0;
  for (; n > ELEMENTARY_N; n >>= 2, ++launches2) {
    fwtBatch2Kernel<<<N / 4 / kBatch2Threads, kBatch2Threads>>>(d, d, n / 4);
    WL_CK_LAUNCH();
  }
  fwtBatch1Kernel<<<N / n, n / 4, n * sizeof(float)>>>(d, d, ELEMENTARY_LOG2SIZE);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(out.data(), d, size_t(N) * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("fwt log2N=%d batch2 launches=%d (%d blocks x %d) batch1 %d blocks x %d, %d B\n",
              log2N, launches2, N / 4 / kBatch2Threads, kBatch2Threads, N / n, n / 4,
              int(n * sizeof(float)));
  std::vector<float> reff(ref.begin(), ref.end());
  const bool ok = wl::check_equal("transform", out.data(), reff.data(), size_t(N));
  WL_CK(cudaFree(d));
  return wl::finish(ok);
}
