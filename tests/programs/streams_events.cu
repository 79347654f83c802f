// streams_events: two streams (cudaStreamCreate), each doing async H2D copy -> two dependent
// kernels -> cudaMemsetAsync of a scratch buffer -> async D2H copy, with pinned host buffers.
// Events recorded on each stream and on the default stream; the checks are only elapsed >= 0,
// monotonic ordering of events within a stream, and the results (which prove stream order).
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void stepOne(const int* x, int* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i] + 1;
}
__global__ void stepTwo(const int* y, int* x, int n) {   // needs stepOne's output
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = y[i] * y[i] - x[i];
}

int main() {
  const int NS = 2, chunk = 2048, n = NS * chunk;
  int *hIn, *hOut, *hScratch;
  CK(cudaMallocHost(&hIn, n * sizeof(int)));
  CK(cudaHostAlloc(&hOut, n * sizeof(int), cudaHostAllocDefault));
  CK(cudaHostAlloc(&hScratch, n * sizeof(int), cudaHostAllocPortable));
  for (int i = 0; i < n; ++i) { hIn[i] = i % 1000 - 500; hOut[i] = 0; hScratch[i] = 1; }
  int *dx, *dy;
  CK(cudaMalloc(&dx, n * sizeof(int))); CK(cudaMalloc(&dy, n * sizeof(int)));

  cudaStream_t st[NS];
  cudaEvent_t evBegin[NS], evMid[NS], evEnd[NS], gStart, gStop;
  for (int s = 0; s < NS; ++s) {
    CK(cudaStreamCreate(&st[s]));
    CK(cudaEventCreate(&evBegin[s])); CK(cudaEventCreate(&evMid[s])); CK(cudaEventCreate(&evEnd[s]));
  }
  CK(cudaEventCreate(&gStart)); CK(cudaEventCreate(&gStop));

  CK(cudaEventRecord(gStart, 0));
  for (int s = 0; s < NS; ++s) {
    int off = s * chunk;
    CK(cudaEventRecord(evBegin[s], st[s]));
    CK(cudaMemcpyAsync(dx + off, hIn + off, chunk * sizeof(int), cudaMemcpyHostToDevice, st[s]));
    stepOne<<<chunk / 256, 256, 0, st[s]>>>(dx + off, dy + off, chunk);
    stepTwo<<<chunk / 128, 128, 0, st[s]>>>(dy + off, dx + off, chunk);
    CK(cudaEventRecord(evMid[s], st[s]));
    CK(cudaMemcpyAsync(hOut + off, dx + off, chunk * sizeof(int), cudaMemcpyDeviceToHost, st[s]));
    CK(cudaMemsetAsync(dy + off, 0, chunk * sizeof(int), st[s]));
    CK(cudaMemcpyAsync(hScratch + off, dy + off, chunk * sizeof(int), cudaMemcpyDeviceToHost, st[s]));
    CK(cudaEventRecord(evEnd[s], st[s]));
  }
  CK(cudaGetLastError());
  for (int s = 0; s < NS; ++s) {
    CK(cudaEventSynchronize(evEnd[s]));
    float tMid = -1, tEnd = -1;
    CK(cudaEventElapsedTime(&tMid, evBegin[s], evMid[s]));
    CK(cudaEventElapsedTime(&tEnd, evBegin[s], evEnd[s]));
    if (!(tMid >= 0.0f) || !(tEnd >= 0.0f) || tEnd + 1e-6f < tMid) { printf("FAILED: stream %d event times\n", s); return 1; }
    CK(cudaStreamSynchronize(st[s]));
  }
  CK(cudaEventRecord(gStop, 0));
  CK(cudaEventSynchronize(gStop));
  float tAll = -1;
  CK(cudaEventElapsedTime(&tAll, gStart, gStop));
  if (!(tAll >= 0.0f)) { printf("FAILED: default-stream elapsed time\n"); return 1; }

  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    int y = 2 * hIn[i] + 1, ref = y * y - hIn[i];
    if (hOut[i] != ref) { printf("FAILED: out[%d] = %d, expected %d\n", i, hOut[i], ref); return 1; }
    if (hScratch[i] != 0) { printf("FAILED: scratch[%d] = %d after memset\n", i, hScratch[i]); return 1; }
    sum += hOut[i];
  }
  printf("streams=%d chunk=%d: results ok, sum=%lld\n", NS, chunk, sum);
  printf("event timings non-negative and ordered\n");
  for (int s = 0; s < NS; ++s) {
    CK(cudaEventDestroy(evBegin[s])); CK(cudaEventDestroy(evMid[s])); CK(cudaEventDestroy(evEnd[s]));
    CK(cudaStreamDestroy(st[s]));
  }
  CK(cudaEventDestroy(gStart)); CK(cudaEventDestroy(gStop));
  CK(cudaFreeHost(hIn)); CK(cudaFreeHost(hOut)); CK(cudaFreeHost(hScratch));
  CK(cudaFree(dx)); CK(cudaFree(dy));
  CK(cudaDeviceSynchronize());
  printf("PASSED\n");
  return 0;
}
