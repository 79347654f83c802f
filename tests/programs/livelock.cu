// livelock: kernels that can never finish are stopped, reported, and the program gets
// cudaErrorLaunchTimeout (what CUDA returns for a kernel stopped by the watchdog) instead of the
// simulation running forever (issue #10). Modes (argv[1]):
//   flag   one warp spins on a flag nobody sets (the default)
//   pair   block 0 waits for block 1's flag, block 1 for block 0's: they wait for each other
//   limit  a loop that does end, but only after far more cycles than sim.max_kernel_cycles
//          (run with --set sim.max_kernel_cycles=...; without it the program just passes)
// Every mode ends with PASSED when the runtime reported exactly what the mode expects.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

__global__ void spin_on_flag(volatile int* flag, int* out) {
  while (*flag == 0) {
  }
  out[threadIdx.x] = 1;
}

__global__ void wait_for_each_other(volatile int* flags, int* out) {
  const int me = blockIdx.x, other = 1 - blockIdx.x;
  while (flags[other] == 0) {
  }
  flags[me] = 1;  // never reached: each block waits for the other first
  out[me] = 1;
}

__global__ void long_loop(unsigned* out, unsigned iters) {
  unsigned x = threadIdx.x;
  for (unsigned i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  out[threadIdx.x] = x;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "flag";
  int* flags = nullptr;
  int* out = nullptr;
  if (cudaMalloc(&flags, 2 * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess ||
      cudaMemset(flags, 0, 2 * sizeof(int)) != cudaSuccess) {
    printf("FAILED: setup\n");
    return 1;
  }
  cudaError_t expect = cudaErrorLaunchTimeout;
  if (!strcmp(mode, "flag")) {
    spin_on_flag<<<1, 32>>>(flags, out);
  } else if (!strcmp(mode, "pair")) {
    wait_for_each_other<<<2, 32>>>(flags, out);
  } else if (!strcmp(mode, "limit")) {
    long_loop<<<1, 32>>>(reinterpret_cast<unsigned*>(out), 2000000u);
    expect = argc > 2 && !strcmp(argv[2], "completes") ? cudaSuccess : cudaErrorLaunchTimeout;
  } else {
    printf("FAILED: unknown mode %s\n", mode);
    return 1;
  }
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  printf("%s: launch %s, synchronize %s\n", mode, cudaGetErrorName(launch), cudaGetErrorName(sync));
  // simtlab runs a launch on the legacy stream at once, so the error may already show at launch.
  if ((launch != cudaSuccess && launch != expect) || sync != expect) {
    printf("FAILED: expected %s from cudaDeviceSynchronize\n", cudaGetErrorName(expect));
    return 1;
  }
  if (expect != cudaSuccess && cudaGetLastError() != expect) {
    printf("FAILED: the error is not sticky\n");
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
