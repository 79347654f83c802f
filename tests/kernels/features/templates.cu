// templates: templated kernels and device functions: type and non-type parameters, template
// recursion, variadic templates, functors and lambdas as arguments, partial specialisation,
// if constexpr, explicit instantiations, and an extended __device__ lambda (built with
// --extended-lambda; compiled to PTX only).
#include <cuda_runtime.h>

template <typename T, int N>
struct Vec { T v[N]; };

template <typename T, int N>
__device__ T dot(const Vec<T, N>& a, const Vec<T, N>& b) {
  T s = T(0);
#pragma unroll
  for (int k = 0; k < N; ++k) s += a.v[k] * b.v[k];
  return s;
}

template <int N> __device__ int factorial() { return N * factorial<N - 1>(); }
template <> __device__ int factorial<0>() { return 1; }

template <typename... Ts> __device__ int countArgs(Ts...) { return sizeof...(Ts); }
template <typename T> __device__ T sumAll(T x) { return x; }
template <typename T, typename... Rest> __device__ T sumAll(T x, Rest... rest) { return x + sumAll(rest...); }

template <typename T> struct Traits { static constexpr int bits = 8 * sizeof(T); };
template <typename T> struct Traits<T*> { static constexpr int bits = -1; };

template <typename T, int N>
__global__ void dotKernel(const Vec<T, N>* a, const Vec<T, N>* b, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = dot(a[i], b[i]) + T(factorial<5>()) + T(countArgs(1, 2.0, 'c')) + T(Traits<T>::bits);
}

template <typename T, typename F>
__global__ void transform(T* data, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = f(data[i], i);
}

template <typename T>
__global__ void typeSwitch(T* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (sizeof(T) == 8) data[i] = data[i] * T(2) + sumAll(T(1), T(2), T(3));
  else if constexpr (Traits<T*>::bits < 0) data[i] = data[i] + T(1);
}

struct Saxpy {
  float a;
  __device__ float operator()(float x, int i) const { return a * x + (float)i; }
};

template __global__ void dotKernel<float, 3>(const Vec<float, 3>*, const Vec<float, 3>*, float*, int);
template __global__ void dotKernel<double, 4>(const Vec<double, 4>*, const Vec<double, 4>*, double*, int);
template __global__ void dotKernel<int, 8>(const Vec<int, 8>*, const Vec<int, 8>*, int*, int);
template __global__ void transform<float, Saxpy>(float*, int, Saxpy);
template __global__ void typeSwitch<double>(double*, int);
template __global__ void typeSwitch<long long>(long long*, int);
template __global__ void typeSwitch<int>(int*, int);
template __global__ void typeSwitch<unsigned char>(unsigned char*, int);

// Launching with a lambda forces an instantiation with a closure type.
void launchLambda(int* d, int n, int k) {
  auto f = [k] __device__(int x, int i) { return x * k + i; };
  transform<<<(n + 127) / 128, 128>>>(d, n, f);
}
