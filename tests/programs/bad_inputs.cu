// bad_inputs: CUDA API misuse returns the error a real runtime returns, and the process keeps
// working afterwards (nothing here is sticky):
//  - bad pointers, a non-kernel, too many threads, too much shared memory
//  - absurd allocation sizes (SIZE_MAX, 2^40 x 2^40 pitched, 3D, pinned, managed, arrays) fail
//    with cudaErrorMemoryAllocation (cudaErrorInvalidValue for arrays beyond the texture
//    limits) and leave the pointer NULL, instead of wrapping around to a small allocation
//  - grid and block dimensions beyond (2^31-1, 65535, 65535) / (1024, 1024, 64)
//  - stream and event flags other than the documented ones; stream priorities are clamped
//  - cudaFuncSetAttribute with an attribute that is read-only or unknown, or a value outside
//    its documented range, cudaFuncSetCacheConfig / cudaDeviceSetCacheConfig with a value that
//    is no cudaFuncCache: cudaErrorInvalidValue
//  - cudaDeviceReset frees every allocation (memory is reclaimed, old pointers are invalid),
//    re-initialises __device__ variables, keeps cudaMallocAsync memory
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void touch(int* p) { p[threadIdx.x] = threadIdx.x; }
__global__ void bigShared(int* p) {
  extern __shared__ int s[];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  p[threadIdx.x] = s[threadIdx.x];
}
static void notAKernel(int*) {}
__device__ int counter = 5;
__global__ void bump() { counter += 1; }

static int failures = 0;
static void expect(const char* what, cudaError_t got, cudaError_t want) {
  printf("%-40s -> %s\n", what, cudaGetErrorName(got));
  if (got != want) {
    printf("FAILED: %s: expected %s\n", what, cudaGetErrorName(want));
    ++failures;
  }
}

int main() {
  int* d = nullptr;
  expect("cudaMalloc", cudaMalloc(&d, 1024 * sizeof(int)), cudaSuccess);
  int host[4] = {1, 2, 3, 4};
  // A host pointer where a device pointer is required.
  expect("cudaMemcpy H2D to a host pointer", cudaMemcpy(host, host + 1, 4, cudaMemcpyHostToDevice),
         cudaErrorInvalidValue);
  cudaGetLastError();
  // Past the end of an allocation.
  expect("cudaMemcpy past the allocation end", cudaMemcpy(d + 1000, host, 100 * sizeof(int), cudaMemcpyHostToDevice),
         cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaMemset of a host pointer", cudaMemset(host, 0, sizeof host), cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaFree of a non-allocation", cudaFree(d + 3), cudaErrorInvalidValue);
  cudaGetLastError();
  // A function that is not a kernel.
  void* args[] = {&d};
  expect("cudaLaunchKernel(non-kernel)",
         cudaLaunchKernel((const void*)notAKernel, dim3(1), dim3(32), args, 0, 0), cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
  // Too many threads per block.
  touch<<<1, 2048>>>(d);
  expect("launch with 2048 threads", cudaGetLastError(), cudaErrorInvalidConfiguration);
  // Too much dynamic shared memory (the limit without opt-in is 48 KB).
  bigShared<<<1, 32, 100 * 1024>>>(d);
  expect("launch with 100 KB shared memory", cudaGetLastError(), cudaErrorInvalidValue);
  // Everything still works.
  touch<<<1, 32>>>(d);
  expect("valid launch", cudaGetLastError(), cudaSuccess);
  int out[32];
  expect("cudaMemcpy D2H", cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 32; ++i)
    if (out[i] != i) {
      printf("FAILED: out[%d] = %d\n", i, out[i]);
      return 1;
    }
  expect("cudaFree", cudaFree(d), cudaSuccess);

  // ---- absurd allocation sizes ----
  void* const sentinel = (void*)0x1234;
  void* p = sentinel;
  expect("cudaMalloc(SIZE_MAX)", cudaMalloc(&p, SIZE_MAX), cudaErrorMemoryAllocation);
  expect("  last error", cudaGetLastError(), cudaErrorMemoryAllocation);
  if (p != nullptr) { printf("FAILED: cudaMalloc(SIZE_MAX) left %p\n", p); ++failures; }
  p = sentinel;
  expect("cudaMalloc(2^62)", cudaMalloc(&p, size_t(1) << 62), cudaErrorMemoryAllocation);
  cudaGetLastError();
  cudaDeviceProp prop;
  expect("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  expect("cudaMalloc(totalGlobalMem + 1)", cudaMalloc(&p, prop.totalGlobalMem + 1),
         cudaErrorMemoryAllocation);
  cudaGetLastError();
  p = sentinel;
  size_t pitch = 0;
  expect("cudaMallocPitch(2^40 x 2^40)",
         cudaMallocPitch(&p, &pitch, size_t(1) << 40, size_t(1) << 40), cudaErrorMemoryAllocation);
  cudaGetLastError();
  if (p != nullptr) { printf("FAILED: cudaMallocPitch left %p\n", p); ++failures; }
  expect("cudaMallocPitch(SIZE_MAX x 1)", cudaMallocPitch(&p, &pitch, SIZE_MAX, 1),
         cudaErrorMemoryAllocation);
  cudaGetLastError();
  cudaPitchedPtr pp;
  expect("cudaMalloc3D(2^40 x 2^40 x 2^40)",
         cudaMalloc3D(&pp, make_cudaExtent(size_t(1) << 40, size_t(1) << 40, size_t(1) << 40)),
         cudaErrorMemoryAllocation);
  cudaGetLastError();
  p = sentinel;
  expect("cudaMallocHost(SIZE_MAX)", cudaMallocHost(&p, SIZE_MAX), cudaErrorMemoryAllocation);
  cudaGetLastError();
  if (p != nullptr) { printf("FAILED: cudaMallocHost left %p\n", p); ++failures; }
  expect("cudaHostAlloc(SIZE_MAX)", cudaHostAlloc(&p, SIZE_MAX, cudaHostAllocMapped),
         cudaErrorMemoryAllocation);
  cudaGetLastError();
  p = sentinel;
  expect("cudaMallocManaged(SIZE_MAX)", cudaMallocManaged(&p, SIZE_MAX), cudaErrorMemoryAllocation);
  cudaGetLastError();
  if (p != nullptr) { printf("FAILED: cudaMallocManaged left %p\n", p); ++failures; }
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t arr = (cudaArray_t)sentinel;
  expect("cudaMallocArray(2^40 x 2^40)",
         cudaMallocArray(&arr, &fd, size_t(1) << 40, size_t(1) << 40), cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaMallocArray(2^40)", cudaMallocArray(&arr, &fd, size_t(1) << 40, 0),
         cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaMalloc3DArray(2^40 x 2 x 2)",
         cudaMalloc3DArray(&arr, &fd, make_cudaExtent(size_t(1) << 40, 2, 2)), cudaErrorInvalidValue);
  cudaGetLastError();
  if (arr != (cudaArray_t)sentinel) { printf("FAILED: cudaMallocArray wrote the handle\n"); ++failures; }

  // ---- launch dimensions ----
  expect("cudaMalloc", cudaMalloc(&d, 1024 * sizeof(int)), cudaSuccess);
  touch<<<dim3(1u << 31), 32>>>(d);
  expect("launch with gridDim.x = 2^31", cudaGetLastError(), cudaErrorInvalidConfiguration);
  touch<<<dim3(0xffffffffu), 32>>>(d);
  expect("launch with gridDim.x = 2^32-1", cudaGetLastError(), cudaErrorInvalidConfiguration);
  touch<<<dim3(1, 1, 65536), 32>>>(d);
  expect("launch with gridDim.z = 65536", cudaGetLastError(), cudaErrorInvalidConfiguration);
  touch<<<dim3(0), 32>>>(d);
  expect("launch with gridDim.x = 0", cudaGetLastError(), cudaErrorInvalidConfiguration);
  touch<<<1, dim3(1, 1, 65)>>>(d);
  expect("launch with blockDim.z = 65", cudaGetLastError(), cudaErrorInvalidConfiguration);
  touch<<<1, dim3(2048, 1, 1)>>>(d);
  expect("launch with blockDim.x = 2048", cudaGetLastError(), cudaErrorInvalidConfiguration);

  // ---- stream and event flags ----
  cudaStream_t s = (cudaStream_t)sentinel;
  expect("cudaStreamCreateWithFlags(2)", cudaStreamCreateWithFlags(&s, 2), cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaStreamCreateWithFlags(0x80000000)", cudaStreamCreateWithFlags(&s, 0x80000000u),
         cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaStreamCreateWithPriority(4, 0)", cudaStreamCreateWithPriority(&s, 4, 0),
         cudaErrorInvalidValue);
  cudaGetLastError();
  if (s != (cudaStream_t)sentinel) { printf("FAILED: a refused stream was written\n"); ++failures; }
  expect("cudaStreamCreateWithFlags(NonBlocking)",
         cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  expect("cudaStreamDestroy", cudaStreamDestroy(s), cudaSuccess);
  int least = 0, greatest = 0, prio = 12345;
  expect("cudaDeviceGetStreamPriorityRange", cudaDeviceGetStreamPriorityRange(&least, &greatest),
         cudaSuccess);
  expect("cudaStreamCreateWithPriority(0, 100)", cudaStreamCreateWithPriority(&s, 0, 100),
         cudaSuccess);
  expect("  cudaStreamGetPriority", cudaStreamGetPriority(s, &prio), cudaSuccess);
  if (prio != least) { printf("FAILED: priority 100 -> %d, expected %d\n", prio, least); ++failures; }
  cudaStreamDestroy(s);
  expect("cudaStreamCreateWithPriority(1, -100)",
         cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -100), cudaSuccess);
  expect("  cudaStreamGetPriority", cudaStreamGetPriority(s, &prio), cudaSuccess);
  if (prio != greatest) {
    printf("FAILED: priority -100 -> %d, expected %d\n", prio, greatest);
    ++failures;
  }
  cudaStreamDestroy(s);
  cudaEvent_t ev = (cudaEvent_t)sentinel;
  expect("cudaEventCreateWithFlags(8)", cudaEventCreateWithFlags(&ev, 8), cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaEventCreateWithFlags(Interprocess)",
         cudaEventCreateWithFlags(&ev, cudaEventInterprocess), cudaErrorInvalidValue);
  cudaGetLastError();
  if (ev != (cudaEvent_t)sentinel) { printf("FAILED: a refused event was written\n"); ++failures; }
  expect("cudaEventCreateWithFlags(BlockingSync|DisableTiming)",
         cudaEventCreateWithFlags(&ev, cudaEventBlockingSync | cudaEventDisableTiming), cudaSuccess);
  expect("cudaEventDestroy", cudaEventDestroy(ev), cudaSuccess);

  // ---- function attributes and cache configurations outside their documented values ----
  {
    const void* k = (const void*)touch;
    auto set = [&](const char* what, int attr, int value, cudaError_t want) {
      expect(what, cudaFuncSetAttribute(k, cudaFuncAttribute(attr), value), want);
    };
    set("FuncSetAttribute(unknown 77)", 77, 1, cudaErrorInvalidValue);
    set("FuncSetAttribute(-1)", -1, 1, cudaErrorInvalidValue);
    set("FuncSetAttribute(cudaFuncAttributeMax)", cudaFuncAttributeMax, 1, cudaErrorInvalidValue);
    set("FuncSetAttribute(read-only 0: max threads)", 0, 256, cudaErrorInvalidValue);
    set("FuncSetAttribute(ClusterDimMustBeSet)", cudaFuncAttributeClusterDimMustBeSet, 1,
        cudaErrorInvalidValue);
    cudaFuncAttributes fa;
    expect("cudaFuncGetAttributes(touch)", cudaFuncGetAttributes(&fa, k), cudaSuccess);
    const int dyn_max = int(prop.sharedMemPerBlockOptin) - int(fa.sharedSizeBytes);
    set("MaxDynamicSharedMemorySize -1", cudaFuncAttributeMaxDynamicSharedMemorySize, -1,
        cudaErrorInvalidValue);
    set("MaxDynamicSharedMemorySize optin+1", cudaFuncAttributeMaxDynamicSharedMemorySize,
        dyn_max + 1, cudaErrorInvalidValue);
    set("MaxDynamicSharedMemorySize optin", cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_max,
        cudaSuccess);
    set("MaxDynamicSharedMemorySize 0", cudaFuncAttributeMaxDynamicSharedMemorySize, 0,
        cudaSuccess);
    set("PreferredSharedMemoryCarveout -2", cudaFuncAttributePreferredSharedMemoryCarveout, -2,
        cudaErrorInvalidValue);
    set("PreferredSharedMemoryCarveout 101", cudaFuncAttributePreferredSharedMemoryCarveout, 101,
        cudaErrorInvalidValue);
    set("PreferredSharedMemoryCarveout 100", cudaFuncAttributePreferredSharedMemoryCarveout, 100,
        cudaSuccess);
    set("PreferredSharedMemoryCarveout -1", cudaFuncAttributePreferredSharedMemoryCarveout, -1,
        cudaSuccess);
    set("NonPortableClusterSizeAllowed 2", cudaFuncAttributeNonPortableClusterSizeAllowed, 2,
        cudaErrorInvalidValue);
    set("RequiredClusterWidth -1", cudaFuncAttributeRequiredClusterWidth, -1,
        cudaErrorInvalidValue);
    set("RequiredClusterDepth -5", cudaFuncAttributeRequiredClusterDepth, -5,
        cudaErrorInvalidValue);
    set("ClusterSchedulingPolicyPreference 3", cudaFuncAttributeClusterSchedulingPolicyPreference,
        3, cudaErrorInvalidValue);
    set("ClusterSchedulingPolicyPreference -1", cudaFuncAttributeClusterSchedulingPolicyPreference,
        -1, cudaErrorInvalidValue);
    expect("  last error", cudaGetLastError(), cudaErrorInvalidValue);
    expect("cudaFuncSetCacheConfig(77)", cudaFuncSetCacheConfig(k, cudaFuncCache(77)),
           cudaErrorInvalidValue);
    expect("cudaFuncSetCacheConfig(-1)", cudaFuncSetCacheConfig(k, cudaFuncCache(-1)),
           cudaErrorInvalidValue);
    expect("cudaFuncSetCacheConfig(PreferEqual)", cudaFuncSetCacheConfig(k, cudaFuncCachePreferEqual),
           cudaSuccess);
    expect("cudaFuncSetCacheConfig(non-kernel)",
           cudaFuncSetCacheConfig((const void*)notAKernel, cudaFuncCachePreferL1),
           cudaErrorInvalidDeviceFunction);
    expect("cudaDeviceSetCacheConfig(4)", cudaDeviceSetCacheConfig(cudaFuncCache(4)),
           cudaErrorInvalidValue);
    expect("cudaDeviceSetCacheConfig(PreferShared)",
           cudaDeviceSetCacheConfig(cudaFuncCachePreferShared), cudaSuccess);
    expect("  last error", cudaGetLastError(), cudaErrorInvalidValue);
    // The refused values changed nothing: the kernel still launches.
    int* d2 = nullptr;
    expect("cudaMalloc", cudaMalloc(&d2, 32 * sizeof(int)), cudaSuccess);
    touch<<<1, 32>>>(d2);
    expect("launch after refused attributes", cudaDeviceSynchronize(), cudaSuccess);
    expect("cudaFree", cudaFree(d2), cudaSuccess);
  }

  // ---- cudaDeviceReset ----
  bump<<<1, 1>>>();
  int c = 0;
  expect("cudaMemcpyFromSymbol", cudaMemcpyFromSymbol(&c, counter, sizeof c), cudaSuccess);
  if (c != 6) { printf("FAILED: counter = %d before reset, expected 6\n", c); ++failures; }
  size_t free0 = 0, total = 0;
  expect("cudaMemGetInfo", cudaMemGetInfo(&free0, &total), cudaSuccess);
  const size_t big = total / 4 * 3;
  void* b = nullptr;
  expect("cudaMalloc(3/4 of the memory)", cudaMalloc(&b, big), cudaSuccess);
  void* again = nullptr;
  expect("  a second one", cudaMalloc(&again, big), cudaErrorMemoryAllocation);
  cudaGetLastError();
  void* pool = nullptr;
  expect("cudaMallocAsync", cudaMallocAsync(&pool, 4096, 0), cudaSuccess);
  expect("cudaStreamCreate", cudaStreamCreate(&s), cudaSuccess);
  expect("cudaDeviceReset", cudaDeviceReset(), cudaSuccess);
  size_t free1 = 0;
  expect("cudaMemGetInfo after reset", cudaMemGetInfo(&free1, &total), cudaSuccess);
  if (free1 < big || free1 <= free0 - big) {
    printf("FAILED: %zu bytes free after reset (%zu before the big allocation)\n", free1, free0);
    ++failures;
  }
  expect("cudaMalloc(3/4) after reset", cudaMalloc(&again, big), cudaSuccess);
  expect("cudaFree(pointer from before the reset)", cudaFree(b), cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaMemcpy from a pointer from before the reset",
         cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  cudaGetLastError();
  expect("cudaMemset of the cudaMallocAsync memory", cudaMemset(pool, 0, 4096), cudaSuccess);
  expect("cudaFreeAsync", cudaFreeAsync(pool, 0), cudaSuccess);
  expect("cudaMemcpyFromSymbol after reset", cudaMemcpyFromSymbol(&c, counter, sizeof c),
         cudaSuccess);
  if (c != 5) { printf("FAILED: counter = %d after reset, expected 5\n", c); ++failures; }
  bump<<<1, 1>>>();
  expect("launch after reset", cudaGetLastError(), cudaSuccess);
  expect("cudaMemcpyFromSymbol", cudaMemcpyFromSymbol(&c, counter, sizeof c), cudaSuccess);
  if (c != 6) { printf("FAILED: counter = %d, expected 6\n", c); ++failures; }
  expect("cudaFree", cudaFree(again), cudaSuccess);
  if (failures) return 1;
  printf("PASSED\n");
  return 0;
}
