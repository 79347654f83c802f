// device_vars: module-scope __device__ variables: written and read with cudaMemcpyToSymbol /
// cudaMemcpyFromSymbol, static initializers, cudaGetSymbolAddress + cudaGetSymbolSize, passing a
// symbol's address to a kernel as a pointer, and a value persisting across launches.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ int d_counter;
__device__ float d_table[64];
__device__ int d_init[4] = {10, 20, 30, 40};
__device__ unsigned long long d_big = 0x0123456789abcdefULL;
__device__ double d_result;

__global__ void countAndFill() {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&d_counter, 1);
  if (i < 64) d_table[i] = i * 1.5f;
  if (i == 0) d_big ^= 0xffULL;
}

// Writes through a pointer obtained with cudaGetSymbolAddress, then reads via the symbol.
__global__ void scaleViaPointer(float* table, float s) {
  int i = threadIdx.x;
  table[i] *= s;
}

__global__ void sumTable() {
  double acc = 0;
  for (int i = 0; i < 64; ++i) acc += d_table[i];
  for (int i = 0; i < 4; ++i) acc += d_init[i];
  d_result = acc;
}

int main() {
  int zero = 0;
  CK(cudaMemcpyToSymbol(d_counter, &zero, sizeof zero));
  int init[4];
  unsigned long long big = 0;
  CK(cudaMemcpyFromSymbol(init, d_init, sizeof init));
  CK(cudaMemcpyFromSymbol(&big, d_big, sizeof big));
  if (init[0] != 10 || init[1] != 20 || init[2] != 30 || init[3] != 40) { printf("FAILED: d_init initializer\n"); return 1; }
  if (big != 0x0123456789abcdefULL) { printf("FAILED: d_big initializer %llx\n", big); return 1; }

  countAndFill<<<5, 96>>>();
  countAndFill<<<1, 32>>>();   // the counter keeps its value between launches
  CK(cudaGetLastError());
  int counter = -1;
  CK(cudaMemcpyFromSymbol(&counter, d_counter, sizeof counter));
  CK(cudaMemcpyFromSymbol(&big, d_big, sizeof big));
  if (counter != 5 * 96 + 32) { printf("FAILED: d_counter = %d\n", counter); return 1; }
  if (big != 0x0123456789abcdefULL) { printf("FAILED: d_big after two xors %llx\n", big); return 1; }
  printf("d_counter=%d d_big=%llx\n", counter, big);

  float* tablePtr = nullptr;
  size_t tableSize = 0;
  CK(cudaGetSymbolAddress((void**)&tablePtr, d_table));
  CK(cudaGetSymbolSize(&tableSize, d_table));
  if (tablePtr == nullptr || tableSize != 64 * sizeof(float)) { printf("FAILED: symbol address/size (%zu)\n", tableSize); return 1; }
  float table[64];
  CK(cudaMemcpy(table, tablePtr, sizeof table, cudaMemcpyDeviceToHost));  // plain memcpy from the address
  for (int i = 0; i < 64; ++i) if (table[i] != i * 1.5f) { printf("FAILED: d_table[%d] = %f\n", i, table[i]); return 1; }

  scaleViaPointer<<<1, 64>>>(tablePtr, 2.0f);
  // Overwrite d_init[2..3] through an offset copy.
  int tail[2] = {-1, -2};
  CK(cudaMemcpyToSymbol(d_init, tail, sizeof tail, 2 * sizeof(int)));
  sumTable<<<1, 1>>>();
  CK(cudaGetLastError());
  double result = 0;
  CK(cudaMemcpyFromSymbol(&result, d_result, sizeof result));
  CK(cudaMemcpyFromSymbol(table, d_table, sizeof table));
  double ref = 10 + 20 - 1 - 2;
  for (int i = 0; i < 64; ++i) {
    if (table[i] != i * 3.0f) { printf("FAILED: scaled d_table[%d] = %f\n", i, table[i]); return 1; }
    ref += i * 3.0;
  }
  if (result != ref) { printf("FAILED: d_result = %f, expected %f\n", result, ref); return 1; }
  printf("d_table via pointer ok, d_result=%.1f\n", result);
  printf("PASSED\n");
  return 0;
}
