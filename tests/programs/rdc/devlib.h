// Declarations shared by the two translation units of the rdc test program.
#pragma once
#include <cuda_runtime.h>

constexpr int LIB_TABLE_SIZE = 16;
extern __device__ int libTable[LIB_TABLE_SIZE];

__device__ int libCombine(int v, int i);
__device__ __noinline__ int libSumDigits(int v);
__device__ int mainHelper(int x);  // defined in main.cu

cudaError_t libInitTable();              // fills libTable with cudaMemcpyToSymbol
void launchLibKernel(int* data, int n);  // launches a kernel defined in devlib.cu

// Host references.
int hostLibCombine(int v, int i);
int hostLibTable(int k);
int hostSumDigits(int v);
