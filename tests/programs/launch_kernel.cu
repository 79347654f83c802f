// launch_kernel: kernels launched explicitly with cudaLaunchKernel (argument pointer array,
// dim3 grid/block, dynamic shared memory, a stream), including a struct argument, a template
// instantiation, and mixing with <<<>>> launches on the same data.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

struct Affine { float scale; int shift; double bias; };

__global__ void affine(float* data, Affine a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * a.scale + (float)a.shift + (float)a.bias;
}

// Block-wise rotate by one inside dynamic shared memory.
__global__ void rotateBlock(const float* in, float* out, int n) {
  extern __shared__ float s[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = s[(t + 1) % blockDim.x];
}

template <typename T>
__global__ void addConst(T* data, T c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += c;
}

int main() {
  const int n = 1024, T = 128;
  std::vector<float> h(n), r(n);
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 37) * 0.5f;
  float *d, *d2;
  CK(cudaMalloc(&d, n * sizeof(float))); CK(cudaMalloc(&d2, n * sizeof(float)));
  CK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));

  Affine a{2.0f, -3, 0.25};
  int nn = n;
  void* args1[] = {&d, &a, &nn};
  CK(cudaLaunchKernel((const void*)affine, dim3(n / T), dim3(T), args1, 0, s));
  void* args2[] = {&d, &d2, &nn};
  CK(cudaLaunchKernel((const void*)rotateBlock, dim3(n / T), dim3(T), args2, T * sizeof(float), s));
  float c = 1.5f;
  void* args3[] = {&d2, &c, &nn};
  CK(cudaLaunchKernel((const void*)addConst<float>, dim3(n / 256), dim3(256), args3, 0, s));
  addConst<float><<<n / 64, 64, 0, s>>>(d2, 0.5f, n);
  CK(cudaStreamSynchronize(s));
  CK(cudaMemcpy(r.data(), d2, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    int b = i / T, t = i % T, src = b * T + (t + 1) % T;
    float e = h[src] * 2.0f + (float)(-3) + 0.25f + 1.5f + 0.5f;
    if (r[i] != e) { printf("FAILED: r[%d] = %f, expected %f\n", i, r[i], e); return 1; }
    sum += r[i];
  }
  printf("cudaLaunchKernel x3 + <<<>>> ok: sum=%.2f r[0]=%.2f r[127]=%.2f\n", sum, r[0], r[127]);

  // The same launch on the legacy default stream (stream 0).
  std::vector<int> hi(n, 5);
  int* di;
  CK(cudaMalloc(&di, n * sizeof(int)));
  CK(cudaMemcpy(di, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int ci = -7;
  void* args4[] = {&di, &ci, &nn};
  CK(cudaLaunchKernel((const void*)addConst<int>, dim3(n / T, 1, 1), dim3(T, 1, 1), args4, 0, 0));
  CK(cudaMemcpy(hi.data(), di, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) if (hi[i] != -2) { printf("FAILED: addConst<int> at %d\n", i); return 1; }
  printf("cudaLaunchKernel on stream 0 ok\n");
  CK(cudaStreamDestroy(s));
  cudaFree(d); cudaFree(d2); cudaFree(di);
  printf("PASSED\n");
  return 0;
}
