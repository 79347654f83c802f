// managed_mem: unified memory from cudaMallocManaged, written and read on the host and on the
// device alternately (with cudaDeviceSynchronize in between), a managed struct holding a
// pointer to other managed memory, and cudaMemset/cudaMemcpy on managed pointers.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

struct Table { int n; int* data; long long sum; };

__global__ void step(int* x, int n, int mul, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * mul + add;
}

__global__ void sumTable(Table* t) {
  __shared__ long long s[128];
  long long acc = 0;
  for (int i = threadIdx.x; i < t->n; i += blockDim.x) acc += t->data[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int st = 64; st > 0; st >>= 1) {
    if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0) t->sum = s[0];
}

int main() {
  const int n = 4096;
  int* x;
  CK(cudaMallocManaged(&x, n * sizeof(int)));
  for (int i = 0; i < n; ++i) x[i] = i % 100 - 50;             // host writes
  step<<<n / 256, 256>>>(x, n, 3, 1);                           // device updates
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    int ref = (i % 100 - 50) * 3 + 1;
    if (x[i] != ref) { printf("FAILED: after step 1, x[%d] = %d, expected %d\n", i, x[i], ref); return 1; }
    x[i] -= i;                                                  // host modifies again
  }
  step<<<n / 128, 128>>>(x, n, -2, 7);
  CK(cudaDeviceSynchronize());

  Table* t;
  CK(cudaMallocManaged(&t, sizeof(Table)));
  t->n = n; t->data = x; t->sum = -1;
  sumTable<<<1, 128>>>(t);
  CK(cudaDeviceSynchronize());
  long long ref = 0;
  for (int i = 0; i < n; ++i) {
    int e = ((i % 100 - 50) * 3 + 1 - i) * -2 + 7;
    if (x[i] != e) { printf("FAILED: after step 2, x[%d] = %d, expected %d\n", i, x[i], e); return 1; }
    ref += e;
  }
  if (t->sum != ref) { printf("FAILED: managed struct sum %lld vs %lld\n", t->sum, ref); return 1; }
  printf("managed: n=%d x[0]=%d x[%d]=%d sum=%lld\n", n, x[0], n - 1, x[n - 1], t->sum);

  int* y;
  CK(cudaMallocManaged(&y, n * sizeof(int)));
  CK(cudaMemset(y, 0, n * sizeof(int)));
  CK(cudaMemcpy(y, x, 100 * sizeof(int), cudaMemcpyDefault));
  step<<<n / 256, 256>>>(y, n, 1, 5);
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    int e = (i < 100 ? x[i] : 0) + 5;
    if (y[i] != e) { printf("FAILED: memset/memcpy on managed memory at %d\n", i); return 1; }
  }
  printf("managed memset/memcpy ok\n");
  CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFree(t));
  printf("PASSED\n");
  return 0;
}
