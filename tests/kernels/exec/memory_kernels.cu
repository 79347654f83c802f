// memory_kernels: per-thread local arrays with dynamic indexing (insertion sort), struct
// copies, and dynamic shared memory (extern __shared__) sized at launch, used through two views.
// Host reference: ref_local_sort / ref_dyn_shared.
#include <cuda_runtime.h>

extern "C" __global__ void local_sort(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a[24];
  for (int k = 0; k < 24; ++k) a[k] = in[i * 24 + k];
  for (int k = 1; k < 24; ++k) {  // insertion sort: data-dependent local indexing
    const int x = a[k];
    int j = k - 1;
    while (j >= 0 && a[j] > x) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = x;
  }
  int pick = a[in[i * 24] & 15];  // dynamic index
  for (int k = 0; k < 24; ++k) out[i * 25 + k] = a[k];
  out[i * 25 + 24] = pick;
}

extern "C" __global__ void dyn_shared(const int* in, int* out, int words) {
  extern __shared__ int buf[];
  short* halves = reinterpret_cast<short*>(buf);
  const int base = blockIdx.x * words;
  for (int k = threadIdx.x; k < words; k += blockDim.x) buf[k] = in[base + k];
  __syncthreads();
  // reverse through the int view, then read the high halves through the short view
  for (int k = threadIdx.x; k < words; k += blockDim.x) out[base + k] = buf[words - 1 - k] + halves[2 * k + 1];
}
