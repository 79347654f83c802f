#include <cstdio>
__global__ void vecadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
int main() {
  float *a, *b, *c;
  int n = 1024;
  cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&c, n * 4);
  vecadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
  cudaDeviceSynchronize();
  return 0;
}
