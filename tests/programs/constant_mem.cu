// constant_mem: __constant__ arrays written with cudaMemcpyToSymbol (whole and with an offset),
// a __constant__ array with a static initializer, rewriting constants between launches,
// reading them back with cudaMemcpyFromSymbol, and a 5-point stencil using constant weights.
// Weights are powers of two and inputs small integers, so float results are exact.
#include <cstdio>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__constant__ float c_weights[5];
__constant__ int c_lut[256];
__constant__ int c_init[4] = {3, 1, 4, 1};
__constant__ double c_scale;

__global__ void stencil(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = -2; k <= 2; ++k) {
    int j = min(max(i + k, 0), n - 1);
    acc += c_weights[k + 2] * in[j];
  }
  out[i] = acc;
}

__global__ void lookup(const int* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = c_scale * (c_lut[in[i] & 255] + c_init[i & 3]);
}

static std::vector<float> hostStencil(const std::vector<float>& in, const float* w) {
  int n = (int)in.size();
  std::vector<float> out(n);
  for (int i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int k = -2; k <= 2; ++k) { int j = std::min(std::max(i + k, 0), n - 1); acc += w[k + 2] * in[j]; }
    out[i] = acc;
  }
  return out;
}

int main() {
  const int n = 2000;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (float)((i * 7) % 31 - 15);
  float *din, *dout;
  CK(cudaMalloc(&din, n * sizeof(float))); CK(cudaMalloc(&dout, n * sizeof(float)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const float w1[5] = {0.125f, 0.25f, 0.25f, 0.25f, 0.125f};
  const float w2[5] = {-1.0f, 0.5f, 2.0f, 0.5f, -1.0f};
  const float* ws[2] = {w1, w2};
  for (int pass = 0; pass < 2; ++pass) {
    CK(cudaMemcpyToSymbol(c_weights, ws[pass], sizeof(w1)));
    stencil<<<(n + 255) / 256, 256>>>(din, dout, n);
    CK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<float> ref = hostStencil(in, ws[pass]);
    for (int i = 0; i < n; ++i)
      if (out[i] != ref[i]) { printf("FAILED: stencil pass %d at %d: %f vs %f\n", pass, i, out[i], ref[i]); return 1; }
    printf("stencil pass %d: out[0]=%.3f out[1000]=%.3f\n", pass, out[0], out[1000]);
  }

  // LUT: first half written with one call, second half with an offset.
  int lut[256];
  for (int i = 0; i < 256; ++i) lut[i] = (i * 37) % 256 - 128;
  CK(cudaMemcpyToSymbol(c_lut, lut, 128 * sizeof(int)));
  CK(cudaMemcpyToSymbol(c_lut, lut + 128, 128 * sizeof(int), 128 * sizeof(int), cudaMemcpyHostToDevice));
  double scale = 0.5;
  CK(cudaMemcpyToSymbol(c_scale, &scale, sizeof scale));
  int back[256], initBack[4];
  CK(cudaMemcpyFromSymbol(back, c_lut, sizeof back));
  CK(cudaMemcpyFromSymbol(initBack, c_init, sizeof initBack));
  for (int i = 0; i < 256; ++i) if (back[i] != lut[i]) { printf("FAILED: c_lut readback at %d\n", i); return 1; }
  if (initBack[0] != 3 || initBack[1] != 1 || initBack[2] != 4 || initBack[3] != 1) { printf("FAILED: c_init readback\n"); return 1; }

  std::vector<int> keys(n); std::vector<double> vals(n);
  for (int i = 0; i < n; ++i) keys[i] = i * 13 + 5;
  int* dkeys; double* dvals;
  CK(cudaMalloc(&dkeys, n * sizeof(int))); CK(cudaMalloc(&dvals, n * sizeof(double)));
  CK(cudaMemcpy(dkeys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  lookup<<<(n + 127) / 128, 128>>>(dkeys, dvals, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(vals.data(), dvals, n * sizeof(double), cudaMemcpyDeviceToHost));
  const int init[4] = {3, 1, 4, 1};
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    double ref = scale * (lut[keys[i] & 255] + init[i & 3]);
    if (vals[i] != ref) { printf("FAILED: lookup at %d: %f vs %f\n", i, vals[i], ref); return 1; }
    sum += vals[i];
  }
  printf("lookup ok: sum=%.1f\n", sum);
  cudaFree(din); cudaFree(dout); cudaFree(dkeys); cudaFree(dvals);
  printf("PASSED\n");
  return 0;
}
