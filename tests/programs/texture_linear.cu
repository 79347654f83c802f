// texture_linear: bindless texture objects over linear device memory (cudaResourceTypeLinear,
// cudaCreateChannelDesc<float>/<int>, point filtering, element-type read mode) read with
// tex1Dfetch<float> and tex1Dfetch<int>, a gather through the texture, and
// cudaDestroyTextureObject.
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void gatherTex(cudaTextureObject_t vals, cudaTextureObject_t idx, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = tex1Dfetch<int>(idx, i);
  out[i] = tex1Dfetch<float>(vals, j) * 2.0f + tex1Dfetch<float>(vals, i);
}

template <typename T>
static cudaError_t makeLinearTex(cudaTextureObject_t* tex, T* buf, size_t count) {
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = buf;
  res.res.linear.desc = cudaCreateChannelDesc<T>();
  res.res.linear.sizeInBytes = count * sizeof(T);
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeElementType;
  td.filterMode = cudaFilterModePoint;
  td.addressMode[0] = cudaAddressModeClamp;
  td.normalizedCoords = 0;
  return cudaCreateTextureObject(tex, &res, &td, nullptr);
}

int main() {
  const int n = 3000;
  std::vector<float> vals(n), out(n);
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i) { vals[i] = (float)(i % 101) - 50.25f; idx[i] = (i * 7 + 11) % n; }
  float *dvals, *dout; int* didx;
  CK(cudaMalloc(&dvals, n * sizeof(float))); CK(cudaMalloc(&didx, n * sizeof(int))); CK(cudaMalloc(&dout, n * sizeof(float)));
  CK(cudaMemcpy(dvals, vals.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(didx, idx.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaTextureObject_t tVals = 0, tIdx = 0;
  CK(makeLinearTex(&tVals, dvals, n));
  CK(makeLinearTex(&tIdx, didx, n));
  gatherTex<<<(n + 255) / 256, 256>>>(tVals, tIdx, dout, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    float e = vals[idx[i]] * 2.0f + vals[i];
    if (out[i] != e) { printf("FAILED: out[%d] = %f, expected %f\n", i, out[i], e); return 1; }
    sum += out[i];
  }
  printf("tex1Dfetch gather ok: n=%d sum=%.2f out[0]=%.2f\n", n, sum, out[0]);
  CK(cudaDestroyTextureObject(tVals));
  CK(cudaDestroyTextureObject(tIdx));
  cudaFree(dvals); cudaFree(didx); cudaFree(dout);
  printf("PASSED\n");
  return 0;
}
