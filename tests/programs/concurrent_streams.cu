// concurrent_streams: four streams each launch a small kernel (2 CTAs) and copy its result
// back asynchronously; events order a final kernel after all four. Results are checked on the
// host. On a GPU with concurrent kernels the four small kernels overlap.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void work(int* out, int seed, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = seed + i;
  for (int k = 0; k < iters; ++k) v = v * 1103515245 + 12345;
  out[i] = v;
}

__global__ void combine(const int* a, const int* b, const int* c, const int* d, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i] ^ b[i] ^ c[i] ^ d[i];
}

static int reference(int seed, int i, int iters) {
  unsigned v = unsigned(seed + i);
  for (int k = 0; k < iters; ++k) v = v * 1103515245u + 12345u;
  return int(v);
}

int main() {
  const int n = 128, iters = 200, S = 4;
  cudaStream_t st[S];
  cudaEvent_t done[S];
  int* d[S];
  int* h[S];
  for (int s = 0; s < S; ++s) {
    cudaStreamCreate(&st[s]);
    cudaEventCreate(&done[s]);
    cudaMalloc(&d[s], n * sizeof(int));
    cudaMallocHost(&h[s], n * sizeof(int));
  }
  int* dc;
  cudaMalloc(&dc, n * sizeof(int));
  for (int s = 0; s < S; ++s) {
    work<<<2, 64, 0, st[s]>>>(d[s], 1000 * s, iters);
    cudaMemcpyAsync(h[s], d[s], n * sizeof(int), cudaMemcpyDeviceToHost, st[s]);
    cudaEventRecord(done[s], st[s]);
  }
  // The last stream waits for the other three before combining.
  for (int s = 0; s < S - 1; ++s) cudaStreamWaitEvent(st[S - 1], done[s], 0);
  combine<<<2, 64, 0, st[S - 1]>>>(d[0], d[1], d[2], d[3], dc);
  int hc[n];
  cudaMemcpyAsync(hc, dc, n * sizeof(int), cudaMemcpyDeviceToHost, st[S - 1]);
  cudaDeviceSynchronize();
  if (cudaGetLastError() != cudaSuccess) {
    printf("FAILED: CUDA error\n");
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    int x = 0;
    for (int s = 0; s < S; ++s) {
      const int r = reference(1000 * s, i, iters);
      if (h[s][i] != r) {
        printf("FAILED: stream %d element %d = %d, expected %d\n", s, i, h[s][i], r);
        return 1;
      }
      x ^= r;
    }
    if (hc[i] != x) {
      printf("FAILED: combined element %d = %d, expected %d\n", i, hc[i], x);
      return 1;
    }
  }
  float ms = -1;
  cudaEventElapsedTime(&ms, done[0], done[S - 1]);
  printf("4 streams x %d elements checked; combined result checked\n", n);
  printf("%s\n", ms >= 0 ? "event times ordered" : "event times out of order");
  for (int s = 0; s < S; ++s) {
    cudaStreamDestroy(st[s]);
    cudaEventDestroy(done[s]);
    cudaFree(d[s]);
    cudaFreeHost(h[s]);
  }
  cudaFree(dc);
  printf("PASSED\n");
  return 0;
}
