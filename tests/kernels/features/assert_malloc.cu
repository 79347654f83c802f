// assert_malloc: device-side assert (__assertfail), __trap, and dynamic device heap allocation
// with malloc/free and new/delete, plus memcpy/memset on device pointers (compiled to PTX only).
#include <cassert>
#include <cstring>
#include <cuda_runtime.h>

struct Node { int value; Node* next; };

__global__ void assertKernel(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(i < n);
  int v = in[i];
  assert(v >= 0 && "input must be non-negative");
  if (v == 0x7fffffff) __trap();
  out[i] = v * 2;
}

__global__ void heapKernel(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int len = in[i] % 16 + 1;
  int* buf = (int*)malloc(len * sizeof(int));
  if (buf == nullptr) { out[i] = -1; return; }
  memset(buf, 0, len * sizeof(int));
  for (int k = 0; k < len; ++k) buf[k] = k * i;
  int* copy = (int*)malloc(len * sizeof(int));
  memcpy(copy, buf, len * sizeof(int));
  int s = 0;
  for (int k = 0; k < len; ++k) s += copy[k];
  free(copy);
  free(buf);
  // Linked list with new/delete.
  Node* head = nullptr;
  for (int k = 0; k < len; ++k) head = new Node{k, head};
  int t = 0;
  while (head) { Node* nx = head->next; t += head->value; delete head; head = nx; }
  double* arr = new double[len];
  arr[len - 1] = 0.5;
  s += (int)(arr[len - 1] * 2);
  delete[] arr;
  out[i] = s + t;
}

// A block-shared allocation made by one thread and used by all.
__global__ void sharedHeap(int* out) {
  __shared__ int* block;
  if (threadIdx.x == 0) block = (int*)malloc(blockDim.x * sizeof(int));
  __syncthreads();
  if (block == nullptr) return;
  block[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = block[blockDim.x - 1 - threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) free(block);
}
