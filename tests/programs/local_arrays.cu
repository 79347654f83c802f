// local_arrays: per-thread arrays indexed with run-time values (so they live in local memory):
// insertion sort of 16 ints, a histogram indexed by data, an explicit stack for an iterative
// depth-first walk of an implicit binary tree, an array of structs, and a float sliding window.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int NOUT = 6;
struct Item { int key; float w; };

__host__ __device__ unsigned lcg(unsigned& s) { s = s * 1664525u + 1013904223u; return s >> 8; }

__host__ __device__ void work(int i, float* fout, int* o) {
  unsigned seed = 977u * i + 1;
  int a[16];
  for (int k = 0; k < 16; ++k) a[k] = (int)(lcg(seed) % 1000) - 500;
  for (int k = 1; k < 16; ++k) {          // insertion sort
    int v = a[k], j = k - 1;
    while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; --j; }
    a[j + 1] = v;
  }
  o[0] = a[7] + a[8];                      // twice the median
  o[1] = a[i % 16];                        // dynamic index
  int hist[8] = {0};
  for (int k = 0; k < 16; ++k) hist[(a[k] + 500) / 125]++;
  int mode = 0;
  for (int b = 1; b < 8; ++b) if (hist[b] > hist[mode]) mode = b;
  o[2] = mode * 100 + hist[mode];
  // DFS over the implicit tree of nodes 1..63 (children 2n, 2n+1); sum nodes with n % (i%5+2) == 1.
  int stack[8], sp = 0, visited = 0, total = 0;
  stack[sp++] = 1;
  while (sp > 0) {
    int node = stack[--sp];
    ++visited;
    if (node % (i % 5 + 2) == 1) total += node;
    if (2 * node + 1 < 64 && (node + i) % 4 != 0) { stack[sp++] = 2 * node + 1; stack[sp++] = 2 * node; }
  }
  o[3] = visited * 10000 + total;
  Item items[6];
  for (int k = 0; k < 6; ++k) { items[k].key = (i * 31 + k * 17) % 23; items[k].w = 0.5f * k; }
  int best = 0;
  for (int k = 1; k < 6; ++k) if (items[k].key > items[best].key) best = k;
  o[4] = items[best].key * 10 + best;
  float win[5] = {0, 0, 0, 0, 0}, wsum = 0;
  for (int k = 0; k < 20; ++k) {
    float v = (float)((i + k * k) % 13) * 0.25f;
    wsum += v - win[k % 5];
    win[k % 5] = v;
  }
  o[5] = (int)(wsum * 4.0f);
  *fout = items[(i + 3) % 6].w + wsum;
}

__global__ void localKernel(int* out, float* fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) work(i, fout + i, out + i * NOUT);
}

int main() {
  const int n = 384;
  int* d; float* df;
  CK(cudaMalloc(&d, n * NOUT * sizeof(int))); CK(cudaMalloc(&df, n * sizeof(float)));
  localKernel<<<n / 128, 128>>>(d, df, n);
  CK(cudaGetLastError());
  std::vector<int> out(n * NOUT); std::vector<float> fo(n);
  CK(cudaMemcpy(out.data(), d, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(fo.data(), df, n * sizeof(float), cudaMemcpyDeviceToHost));
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    int e[NOUT]; float ef;
    work(i, &ef, e);
    for (int k = 0; k < NOUT; ++k)
      if (out[i * NOUT + k] != e[k]) { printf("FAILED: thread %d result %d: %d vs %d\n", i, k, out[i * NOUT + k], e[k]); return 1; }
    if (fo[i] != ef) { printf("FAILED: thread %d float result %f vs %f\n", i, fo[i], ef); return 1; }
    sum += e[0] + e[1] + e[2] + e[3] + e[4] + e[5];
  }
  printf("local_arrays: n=%d checksum=%lld out[0..2]=%d %d %d\n", n, sum, out[0], out[1], out[2]);
  cudaFree(d); cudaFree(df);
  printf("PASSED\n");
  return 0;
}
