// device_query: device management and query APIs: cudaGetDeviceCount, cudaGetDevice/SetDevice,
// cudaGetDeviceProperties, cudaDeviceGetAttribute (incl. the clock rate, no longer in
// cudaDeviceProp in CUDA 13), cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor,
// cudaGetLastError/cudaPeekAtLastError after a successful launch, and error strings.
// Prints nothing device-specific: only whether values are sane. `device_query L2 BUS` also checks
// l2CacheSize == L2 bytes and memoryBusWidth == BUS bits (the simulated memory system's sizes).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)
#define EXPECT(cond) do { if (!(cond)) { printf("FAILED: %s\n", #cond); return 1; } } while (0)

__global__ void fill(int* p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v; }

int main(int argc, char** argv) {
  int count = 0, dev = -1;
  CK(cudaGetDeviceCount(&count));
  EXPECT(count >= 1);
  CK(cudaSetDevice(0));
  CK(cudaGetDevice(&dev));
  EXPECT(dev == 0);

  cudaDeviceProp prop;
  memset(&prop, 0, sizeof prop);
  CK(cudaGetDeviceProperties(&prop, 0));
  EXPECT(prop.name[0] != '\0');
  EXPECT(prop.major >= 1);
  EXPECT(prop.multiProcessorCount > 0);
  EXPECT(prop.warpSize == 32);
  EXPECT(prop.maxThreadsPerBlock >= 256);
  EXPECT(prop.maxThreadsDim[0] > 0 && prop.maxThreadsDim[1] > 0 && prop.maxThreadsDim[2] > 0);
  EXPECT(prop.maxGridSize[0] > 0 && prop.maxGridSize[1] > 0 && prop.maxGridSize[2] > 0);
  EXPECT(prop.totalGlobalMem > 0);
  EXPECT(prop.sharedMemPerBlock >= 16384);
  EXPECT(prop.regsPerBlock > 0);
  EXPECT(prop.maxThreadsPerMultiProcessor > 0);
  EXPECT(prop.totalConstMem > 0);
  printf("cudaGetDeviceProperties: values sane\n");

  int v = 0;
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0)); EXPECT(v == prop.multiProcessorCount);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0)); EXPECT(v == prop.maxThreadsPerBlock);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0)); EXPECT(v == 32);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0)); EXPECT(v == prop.major);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMinor, 0)); EXPECT(v == prop.minor);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock, 0)); EXPECT(v > 0);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0)); EXPECT(v > 0);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxBlockDimX, 0)); EXPECT(v == prop.maxThreadsDim[0]);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxGridDimX, 0)); EXPECT(v == prop.maxGridSize[0]);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0)); EXPECT(v == prop.l2CacheSize);
  EXPECT(prop.l2CacheSize > 0);
  CK(cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, 0)); EXPECT(v == prop.memoryBusWidth);
  EXPECT(prop.memoryBusWidth > 0);
  if (argc == 3) {
    EXPECT(prop.l2CacheSize == atoi(argv[1]));
    EXPECT(prop.memoryBusWidth == atoi(argv[2]));
    printf("l2CacheSize %d, memoryBusWidth %d: as expected\n", prop.l2CacheSize, prop.memoryBusWidth);
  }
  printf("cudaDeviceGetAttribute: values sane and consistent\n");

  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, fill));
  EXPECT(fa.maxThreadsPerBlock > 0);
  EXPECT(fa.numRegs >= 0);
  int blocksPerSm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, fill, 128, 0));
  EXPECT(blocksPerSm >= 1);
  printf("cudaFuncGetAttributes and occupancy: ok\n");

  int* d;
  CK(cudaMalloc(&d, 256 * sizeof(int)));
  fill<<<2, 128>>>(d, 7);
  CK(cudaPeekAtLastError());
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int h[256];
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; ++i) EXPECT(h[i] == 7);
  EXPECT(cudaGetLastError() == cudaSuccess);
  EXPECT(strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess") == 0);
  EXPECT(cudaGetErrorString(cudaErrorInvalidValue) != nullptr);
  printf("launch + cudaGetLastError: ok\n");
  CK(cudaFree(d));
  printf("PASSED\n");
  return 0;
}
