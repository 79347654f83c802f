// devlib.cu: the second translation unit of the rdc program (see main.cu).
#include "devlib.h"

__device__ int libTable[LIB_TABLE_SIZE];

__host__ __device__ static int combine(int v, int i) { return (v ^ (i << 3)) - (v >> 2); }
__device__ int libCombine(int v, int i) { return combine(v, i); }
int hostLibCombine(int v, int i) { return combine(v, i); }

__host__ __device__ static int sumDigits(int v) { v = v < 0 ? -v : v; return v < 10 ? v : v % 10 + sumDigits(v / 10); }
__device__ __noinline__ int libSumDigits(int v) { v = v < 0 ? -v : v; return v < 10 ? v : v % 10 + libSumDigits(v / 10); }
int hostSumDigits(int v) { return sumDigits(v); }

int hostLibTable(int k) { return k * k - 20; }

cudaError_t libInitTable() {
  int t[LIB_TABLE_SIZE];
  for (int k = 0; k < LIB_TABLE_SIZE; ++k) t[k] = hostLibTable(k);
  return cudaMemcpyToSymbol(libTable, t, sizeof t);
}

__global__ void libKernel(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = mainHelper(data[i]) ^ 0x55;
}

void launchLibKernel(int* data, int n) { libKernel<<<(n + 255) / 256, 256>>>(data, n); }
