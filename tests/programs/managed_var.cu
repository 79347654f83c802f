// managed_var: a module-scope __managed__ variable and array, read and written directly by host
// code and by kernels (registered through __cudaRegisterManagedVar), with cudaDeviceSynchronize.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__managed__ int m_total = 5;
__managed__ float m_vals[256];

__global__ void accumulate(int bonus) {
  int i = threadIdx.x;
  m_vals[i] = m_vals[i] * 2.0f + 1.0f;
  atomicAdd(&m_total, i % 4 + bonus);
}

int main() {
  if (m_total != 5) { printf("FAILED: initial m_total = %d\n", m_total); return 1; }
  for (int i = 0; i < 256; ++i) m_vals[i] = i * 0.5f;
  accumulate<<<1, 256>>>(1);
  CK(cudaDeviceSynchronize());
  int expect = 5 + 256 + 64 * (0 + 1 + 2 + 3);
  if (m_total != expect) { printf("FAILED: m_total = %d, expected %d\n", m_total, expect); return 1; }
  m_total = 0;
  accumulate<<<1, 256>>>(0);
  CK(cudaDeviceSynchronize());
  if (m_total != 64 * 6) { printf("FAILED: m_total after reset = %d\n", m_total); return 1; }
  for (int i = 0; i < 256; ++i) {
    float e = (i * 0.5f * 2.0f + 1.0f) * 2.0f + 1.0f;
    if (m_vals[i] != e) { printf("FAILED: m_vals[%d] = %f, expected %f\n", i, m_vals[i], e); return 1; }
  }
  printf("managed vars: m_total=%d m_vals[255]=%.1f\n", m_total, m_vals[255]);
  printf("PASSED\n");
  return 0;
}
