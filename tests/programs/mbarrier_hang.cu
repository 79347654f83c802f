// mbarrier_hang: an mbarrier wait that can never complete ends like any other livelock: the
// kernel is stopped with a per-warp report naming the mbarrier, the phase and the waiting
// instruction, and the program gets cudaErrorLaunchTimeout (issue #31). Modes (argv[1]):
//   arrivals  the mbarrier expects 2 arrivals per phase, only thread 0 arrives; every thread
//             then loops on mbarrier.try_wait.parity for phase 0 (1 of 2 arrivals pending)
//   tx        one expected arrival, which thread 0 makes with arrive.expect_tx of 1024 bytes
//             that no copy ever delivers (0 of 1 arrivals pending, tx-count 1024)
//   test      as arrivals, polling with the non-blocking mbarrier.test_wait.parity
// Two warps, so the report has two entries. Built with -arch=sm_90a; run with gpu.cc_major=9 or
// --gpu hopper-h100. Every mode ends with PASSED when the runtime reported exactly what it
// expects.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>

__device__ inline uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ inline bool try_wait_parity(uint64_t* b, uint32_t parity) {
  uint32_t r;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(r) : "r"(smem(b)), "r"(parity) : "memory");
  return r;
}

__device__ inline bool test_wait_parity(uint64_t* b, uint32_t parity) {
  uint32_t r;
  asm volatile(
      "{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(r) : "r"(smem(b)), "r"(parity) : "memory");
  return r;
}

// mode 0: arrivals, 1: tx, 2: test
__global__ void hang(int mode, int* out) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(&bar)), "r"(mode == 1 ? 1 : 2)
                 : "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    if (mode == 1)
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" :: "r"(smem(&bar))
                   : "memory");
    else
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&bar)) : "memory");
  }
  if (mode == 2) {
    while (!test_wait_parity(&bar, 0)) {
    }
  } else {
    while (!try_wait_parity(&bar, 0)) {
    }
  }
  out[threadIdx.x] = 1;  // never reached
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "arrivals";
  int m = -1;
  if (!strcmp(mode, "arrivals")) m = 0;
  if (!strcmp(mode, "tx")) m = 1;
  if (!strcmp(mode, "test")) m = 2;
  if (m < 0) {
    printf("FAILED: unknown mode %s\n", mode);
    return 1;
  }
  int* out = nullptr;
  if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess) {
    printf("FAILED: setup\n");
    return 1;
  }
  hang<<<1, 64>>>(m, out);
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  printf("%s: launch %s, synchronize %s\n", mode, cudaGetErrorName(launch), cudaGetErrorName(sync));
  // simtlab runs a launch on the legacy stream at once, so the error may already show at launch.
  if ((launch != cudaSuccess && launch != cudaErrorLaunchTimeout) || sync != cudaErrorLaunchTimeout) {
    printf("FAILED: expected cudaErrorLaunchTimeout from cudaDeviceSynchronize\n");
    return 1;
  }
  if (cudaGetLastError() != cudaErrorLaunchTimeout) {
    printf("FAILED: the error is not sticky\n");
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
