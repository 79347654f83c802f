// d2ma_dct8x8: the DCT kernel of the dct8x8 workload (dct8x8.cu, SDK CUDAkernel1DCT: one 8x8
// image block per CTA of 8x8 threads, staged in shared memory, then T = C B and D = T C^T with
// the DCT matrix C in constant memory) ported to the D2MA intrinsics (include/simtlab/d2ma.h):
// the 8x8 block is one 2D transfer (8 rows of 8 floats, leading dimension = the image side) and
// the __syncthreads() after the copy is gone (the RAW check holds the readers of T = C B; the two
// barriers around the in-place T store order the compute phase and stay).
// Only this kernel: the other kernels of dct8x8.cu (the thesis's DCT1-4) are not among the D2MA
// paper's 13 (D2MA Table 2 "DCT" is the SDK DCT in its stage-then-compute form, manifest label
// of CUDAkernel1DCT). Same image, same CPU reference and tolerance as dct8x8.cu's kernel-1
// check. Run the engine with --set d2ma.enable=true. Analog of: D2MA Table 2 (DCT).
// Usage: d2ma_dct8x8 [side]   (square image, side a multiple of 64; default 256; scaled 1024)
// Check: |err| <= 5e-3 + 1e-5 |ref| against a double-precision CPU DCT (as dct8x8.cu).
#include <cmath>
#include <vector>

#include "simtlab/d2ma.h"
#include "wl.h"

__constant__ float c_DCT[64];  // C[k][n] = c_k cos((2n+1) k pi / 16)

__global__ void CUDAkernel1DCT(float* dst, const float* src, int stride) {
  __shared__ float CurBlockLocal1[64];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int gx = blockIdx.x * 8 + tx, gy = blockIdx.y * 8 + ty;
  // ---- transfer: the 8x8 block, one 2D transfer (no barrier) ----
  dma_init();
  dma_set_datatype_float();
  dma_configure_matrix_2d(CurBlockLocal1, src + size_t(blockIdx.y) * 8 * stride + blockIdx.x * 8, 8,
                          8, stride);
  float t = 0.0f;  // T = C B
  for (int k = 0; k < 8; ++k) t += c_DCT[ty * 8 + k] * CurBlockLocal1[k * 8 + tx];
  __syncthreads();
  CurBlockLocal1[ty * 8 + tx] = t;
  __syncthreads();
  float d = 0.0f;  // D = T C^T
  for (int k = 0; k < 8; ++k) d += CurBlockLocal1[ty * 8 + k] * c_DCT[tx * 8 + k];
  dst[gy * stride + gx] = d;
}

static double C[8][8];

// Double-precision 2D DCT of every 8x8 block, column pass first (as dct8x8.cu).
static void cpuTransform(const float* in, double* out, int side) {
  for (int by = 0; by < side; by += 8)
    for (int bx = 0; bx < side; bx += 8) {
      double b[8][8], t[8][8];
      for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) b[y][x] = in[(by + y) * side + bx + x];
      for (int k = 0; k < 8; ++k)
        for (int x = 0; x < 8; ++x) {
          double s = 0;
          for (int n = 0; n < 8; ++n) s += C[k][n] * b[n][x];
          t[k][x] = s;
        }
      for (int y = 0; y < 8; ++y)
        for (int k = 0; k < 8; ++k) {
          double s = 0;
          for (int n = 0; n < 8; ++n) s += t[y][n] * C[k][n];
          out[(by + y) * side + bx + k] = s;
        }
    }
}

int main(int argc, char** argv) {
  const int side = int(wl::arg_int(argc, argv, 1, 256, 64, 8192));
  if (side % 64) {
    std::printf("FAILED: side must be a multiple of 64\n");
    return 1;
  }
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 8; ++n)
      C[k][n] = (k ? std::sqrt(0.25) : std::sqrt(0.125)) * std::cos((2 * n + 1) * k * M_PI / 16);
  float hDCT[64];
  for (int i = 0; i < 64; ++i) hDCT[i] = float(C[i / 8][i % 8]);
  WL_CK(cudaMemcpyToSymbol(c_DCT, hDCT, sizeof(hDCT)));

  // Synthetic 8-bit image: smooth integer pattern plus noise (as dct8x8.cu).
  const size_t n = size_t(side) * side;
  std::vector<int> pix(n);
  wl::Rng rng(888);
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x)
      pix[size_t(y) * side + x] =
          ((x * x + 3 * y * y) / 37 + (x * y) / 11 + rng.range(0, 63)) & 255;
  std::vector<float> img(n);
  for (size_t i = 0; i < n; ++i) img[i] = float(pix[i]);

  float *dA, *dB;
  WL_CK(cudaMalloc(&dA, n * 4));
  WL_CK(cudaMalloc(&dB, n * 4));
  WL_CK(cudaMemcpy(dA, img.data(), n * 4, cudaMemcpyHostToDevice));
  std::printf("d2ma_dct8x8 side=%d\n", side);
  CUDAkernel1DCT<<<dim3(side / 8, side / 8), dim3(8, 8)>>>(dB, dA, side);
  WL_CK_LAUNCH();
  std::vector<float> coef(n);
  WL_CK(cudaMemcpy(coef.data(), dB, n * 4, cudaMemcpyDeviceToHost));
  std::vector<double> refd(n);
  cpuTransform(img.data(), refd.data(), side);
  std::vector<float> ref(refd.begin(), refd.end());
  const bool ok = wl::check_close("CUDAkernel1DCT", coef.data(), ref.data(), n, 1e-5, 5e-3);
  WL_CK(cudaFree(dA));
  WL_CK(cudaFree(dB));
  return wl::finish(ok);
}
