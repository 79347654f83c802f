// pitch2d: cudaMallocPitch + cudaMemcpy2D (H2D, D2D between pitched buffers, D2H), a 2D kernel
// indexing rows by pitch, cudaMemset on a pitched allocation (so unwritten columns read back as
// zero) and cudaMemset of a linear buffer with a non-zero byte pattern.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

// out(y, x) = 2 * in(y, x) + y for x < wWrite; other columns are left untouched.
__global__ void twiceRow(const float* in, size_t inPitch, float* out, size_t outPitch, int wWrite, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= wWrite || y >= h) return;
  const float* inRow = (const float*)((const char*)in + y * inPitch);
  float* outRow = (float*)((char*)out + y * outPitch);
  outRow[x] = 2.0f * inRow[x] + (float)y;
}

int main() {
  const int w = 100, h = 37, wWrite = 90;
  std::vector<float> host(w * h), back(w * h, -1.0f);
  for (int y = 0; y < h; ++y) for (int x = 0; x < w; ++x) host[y * w + x] = (float)(x - y * 3) * 0.5f;
  float *dIn, *dIn2, *dOut;
  size_t pIn, pIn2, pOut;
  CK(cudaMallocPitch((void**)&dIn, &pIn, w * sizeof(float), h));
  CK(cudaMallocPitch((void**)&dIn2, &pIn2, w * sizeof(float), h));
  CK(cudaMallocPitch((void**)&dOut, &pOut, w * sizeof(float), h));
  if (pIn < w * sizeof(float) || pOut < w * sizeof(float)) { printf("FAILED: pitch too small\n"); return 1; }
  CK(cudaMemset(dOut, 0, pOut * h));
  CK(cudaMemcpy2D(dIn, pIn, host.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  CK(cudaMemcpy2D(dIn2, pIn2, dIn, pIn, w * sizeof(float), h, cudaMemcpyDeviceToDevice));
  dim3 block(16, 8), grid((wWrite + 15) / 16, (h + 7) / 8);
  twiceRow<<<grid, block>>>(dIn2, pIn2, dOut, pOut, wWrite, h);
  CK(cudaGetLastError());
  CK(cudaMemcpy2D(back.data(), w * sizeof(float), dOut, pOut, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float ref = x < wWrite ? 2.0f * host[y * w + x] + (float)y : 0.0f;
      if (back[y * w + x] != ref) { printf("FAILED: (%d,%d) = %f, expected %f\n", y, x, back[y * w + x], ref); return 1; }
      sum += back[y * w + x];
    }
  printf("pitch2d %dx%d (pitch ok) sum=%.1f corner=%.1f\n", w, h, sum, back[(h - 1) * w + wWrite - 1]);

  // A sub-rectangle copy: columns 10..29 of rows 5..14 into a packed host array.
  std::vector<float> sub(20 * 10);
  CK(cudaMemcpy2D(sub.data(), 20 * sizeof(float), (char*)dIn + 5 * pIn + 10 * sizeof(float), pIn,
                  20 * sizeof(float), 10, cudaMemcpyDeviceToHost));
  for (int y = 0; y < 10; ++y) for (int x = 0; x < 20; ++x)
    if (sub[y * 20 + x] != host[(y + 5) * w + x + 10]) { printf("FAILED: sub-rectangle (%d,%d)\n", y, x); return 1; }
  printf("sub-rectangle copy ok\n");

  int* dLin; std::vector<int> lin(1000);
  CK(cudaMalloc(&dLin, 1000 * sizeof(int)));
  CK(cudaMemset(dLin, 0x7f, 1000 * sizeof(int)));
  CK(cudaMemset(dLin + 500, 0xff, 100 * sizeof(int)));
  CK(cudaMemset((char*)dLin + 3, 0x01, 1));     // a single byte, unaligned
  CK(cudaMemcpy(lin.data(), dLin, 1000 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 1000; ++i) {
    int ref = (i >= 500 && i < 600) ? -1 : 0x7f7f7f7f;
    if (i == 0) ref = 0x017f7f7f;
    if (lin[i] != ref) { printf("FAILED: memset at %d: %08x\n", i, lin[i]); return 1; }
  }
  printf("memset patterns ok: %08x %08x %08x\n", lin[0], lin[1], lin[550]);
  cudaFree(dIn); cudaFree(dIn2); cudaFree(dOut); cudaFree(dLin);
  printf("PASSED\n");
  return 0;
}
