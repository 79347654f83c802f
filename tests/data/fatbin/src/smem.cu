#include <cstdio>
__constant__ float coeffs[16];

__global__ void __launch_bounds__(128) block_sum(const float* in, float* out, int n) {
  __shared__ float buf[128];
  int t = threadIdx.x;
  int i = blockIdx.x * 128 + t;
  buf[t] = (i < n) ? in[i] * coeffs[t & 15] : 0.0f;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

__global__ void dyn_smem(int* data, int n) {
  extern __shared__ int dyn[];
  __shared__ double stat[40];
  int t = threadIdx.x;
  dyn[t] = data[t];
  if (t < 40) stat[t] = t * 0.5;
  __syncthreads();
  data[t] = dyn[(t + 1) % blockDim.x] + (int)stat[t % 40];
}

// Uses a local array indexed dynamically -> stack frame.
__global__ void local_array(int* out, int k) {
  int arr[64];
  for (int i = 0; i < 64; ++i) arr[(i * k) & 63] = out[i];
  out[threadIdx.x] = arr[(k + threadIdx.x) & 63];
}

template <typename T, int R>
__global__ void stencil(const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= R && i < n - R) {
    T acc = 0;
    for (int k = -R; k <= R; ++k) acc += in[i + k] * (T)coeffs[k + R];
    out[i] = acc;
  }
}

template <typename T>
__global__ void scale(T* p, T f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= f;
}

int main() {
  float h[16] = {1};
  cudaMemcpyToSymbol(coeffs, h, sizeof(h));
  float *a, *b; double *da, *db; int* ip;
  cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&da, 8192); cudaMalloc(&db, 8192); cudaMalloc(&ip, 4096);
  block_sum<<<8, 128>>>(a, b, 1024);
  dyn_smem<<<1, 64, 64 * sizeof(int)>>>(ip, 64);
  local_array<<<1, 32>>>(ip, 3);
  stencil<float, 3><<<4, 256>>>(a, b, 1024);
  stencil<double, 2><<<4, 256>>>(da, db, 1024);
  scale<float><<<4, 256>>>(a, 2.0f, 1024);
  scale<int><<<4, 256>>>(ip, 3, 1024);
  cudaDeviceSynchronize();
  return 0;
}
