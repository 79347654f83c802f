// templates: templated kernels with several instantiations (int, float, double, long long,
// unsigned), a non-type template parameter used for static shared memory size, functor
// template arguments and a recursive template device function (compile-time unrolled sum).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

template <typename T>
__global__ void axpb(T* out, const T* in, T a, T b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + b;
}

template <typename T, int BLOCK>
__global__ void blockReduce(const T* in, T* out, int n) {
  __shared__ T s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

struct AddSeven { __host__ __device__ int operator()(int x) const { return x + 7; } };
struct SquareMod { int m; __host__ __device__ int operator()(int x) const { return (x * x) % m; } };

template <typename F>
__global__ void mapKernel(int* d, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = f(d[i]);
}

// sumPow<K>(x) = x + x^2 + ... + x^K, unrolled at compile time.
template <int K> __host__ __device__ long long sumPow(long long x) { return sumPow<K - 1>(x) * x + x; }
template <> __host__ __device__ long long sumPow<1>(long long x) { return x; }

template <int K>
__global__ void sumPowKernel(long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sumPow<K>(i % 9 - 4);
}

template <typename T>
static bool runAxpb(const char* name, T a, T b) {
  const int n = 1000;
  std::vector<T> h(n), r(n);
  for (int i = 0; i < n; ++i) h[i] = T(i % 50);
  T *din, *dout;
  cudaMalloc(&din, n * sizeof(T)); cudaMalloc(&dout, n * sizeof(T));
  cudaMemcpy(din, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  axpb<T><<<(n + 127) / 128, 128>>>(dout, din, a, b, n);
  cudaMemcpy(r.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(din); cudaFree(dout);
  for (int i = 0; i < n; ++i)
    if (r[i] != T(a * h[i] + b)) { printf("FAILED: axpb<%s> at %d\n", name, i); return false; }
  printf("axpb<%s> ok\n", name);
  return true;
}

template <typename T, int BLOCK>
static bool runReduce(const char* name) {
  const int n = 3000, blocks = (n + BLOCK - 1) / BLOCK;
  std::vector<T> h(n), r(blocks);
  for (int i = 0; i < n; ++i) h[i] = T(i % 13) / T(2);  // exact halves for float types
  T *din, *dout;
  cudaMalloc(&din, n * sizeof(T)); cudaMalloc(&dout, blocks * sizeof(T));
  cudaMemcpy(din, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  blockReduce<T, BLOCK><<<blocks, BLOCK>>>(din, dout, n);
  cudaMemcpy(r.data(), dout, blocks * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(din); cudaFree(dout);
  T total = 0;
  for (int b = 0; b < blocks; ++b) {
    T ref = 0;
    for (int i = b * BLOCK; i < n && i < (b + 1) * BLOCK; ++i) ref += h[i];
    if (r[b] != ref) { printf("FAILED: blockReduce<%s,%d> block %d\n", name, BLOCK, b); return false; }
    total += r[b];
  }
  printf("blockReduce<%s,%d> blocks=%d total=%g\n", name, BLOCK, blocks, (double)total);
  return true;
}

int main() {
  if (!runAxpb<int>("int", 3, -5)) return 1;
  if (!runAxpb<float>("float", 1.5f, 0.25f)) return 1;
  if (!runAxpb<double>("double", -2.5, 1.0)) return 1;
  if (!runAxpb<long long>("long long", 1LL << 33, 7)) return 1;
  if (!runReduce<int, 128>("int")) return 1;
  if (!runReduce<unsigned, 256>("unsigned")) return 1;
  if (!runReduce<float, 64>("float")) return 1;
  if (!runReduce<double, 32>("double")) return 1;

  const int n = 500;
  std::vector<int> h(n), r(n);
  for (int i = 0; i < n; ++i) h[i] = i;
  int* d;
  CK(cudaMalloc(&d, n * sizeof(int)));
  CK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  SquareMod sq{1009};
  mapKernel<<<4, 128>>>(d, n, AddSeven{});
  mapKernel<<<4, 128>>>(d, n, sq);
  CK(cudaMemcpy(r.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (r[i] != sq(AddSeven{}(h[i]))) { printf("FAILED: mapKernel at %d: %d\n", i, r[i]); return 1; }
  printf("mapKernel<AddSeven>, mapKernel<SquareMod> ok\n");

  long long* dl;
  std::vector<long long> rl(n);
  CK(cudaMalloc(&dl, n * sizeof(long long)));
  sumPowKernel<5><<<4, 128>>>(dl, n);
  CK(cudaMemcpy(rl.data(), dl, n * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (rl[i] != sumPow<5>(i % 9 - 4)) { printf("FAILED: sumPow<5> at %d\n", i); return 1; }
  sumPowKernel<11><<<4, 128>>>(dl, n);
  CK(cudaMemcpy(rl.data(), dl, n * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (rl[i] != sumPow<11>(i % 9 - 4)) { printf("FAILED: sumPow<11> at %d\n", i); return 1; }
  printf("sumPow<5>(-4)=%lld sumPow<11>(4)=%lld\n", sumPow<5>(-4), sumPow<11>(4));
  CK(cudaGetLastError());
  cudaFree(d); cudaFree(dl);
  printf("PASSED\n");
  return 0;
}
