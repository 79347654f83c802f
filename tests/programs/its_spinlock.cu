// its_spinlock: an intra-warp spin lock (GPGPU book Figure 3.5; ElTantawy & Aamodt, MICRO 2016).
// Every thread takes one global lock in turn (test-and-test-and-set) and increments a counter
// under it. Threads of one warp contend with each other: under the pre-Volta SIMT stack the
// thread that wins the lock waits at the loop's reconvergence point while the others spin
// forever (SIMT deadlock); under independent thread scheduling (sim.its=true) the holder runs
// on, releases the lock and all threads finish. Modes (argv[1]):
//   its       the kernel must complete with the right count: the default, as on the default GPU
//             (turing-t4, sim.its=true) and on real Volta-and-later hardware
//   deadlock  the kernel must be stopped as a hang (cudaErrorLaunchTimeout): run it with the
//             stack (--set sim.its=false, or a pre-Volta preset)
// Ends with PASSED when the runtime reported exactly what the mode expects.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

__global__ void locked_count(int* mutex, volatile int* counter, int* order) {
  while (atomicCAS(mutex, 0, 1) != 0) {
    while (*(volatile int*)mutex != 0) {
    }
  }
  const int n = *counter;  // critical section: a plain read-modify-write
  order[blockIdx.x * blockDim.x + threadIdx.x] = n;
  *counter = n + 1;
  __threadfence();
  atomicExch(mutex, 0);
}

int main(int argc, char** argv) {
  const bool its = !(argc > 1 && !strcmp(argv[1], "deadlock"));
  const int blocks = 2, threads = 64, n = blocks * threads;
  int *mutex = nullptr, *counter = nullptr, *order = nullptr;
  if (cudaMalloc(&mutex, sizeof(int)) != cudaSuccess ||
      cudaMalloc(&counter, sizeof(int)) != cudaSuccess ||
      cudaMalloc(&order, n * sizeof(int)) != cudaSuccess ||
      cudaMemset(mutex, 0, sizeof(int)) != cudaSuccess ||
      cudaMemset(counter, 0, sizeof(int)) != cudaSuccess ||
      cudaMemset(order, 0xff, n * sizeof(int)) != cudaSuccess) {
    printf("FAILED: setup\n");
    return 1;
  }
  locked_count<<<blocks, threads>>>(mutex, counter, order);
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  const cudaError_t expect = its ? cudaSuccess : cudaErrorLaunchTimeout;
  printf("%s: launch %s, synchronize %s\n", its ? "its" : "deadlock", cudaGetErrorName(launch),
         cudaGetErrorName(sync));
  if ((launch != cudaSuccess && launch != expect) || sync != expect) {
    printf("FAILED: expected %s\n", cudaGetErrorName(expect));
    return 1;
  }
  if (its) {
    int count = 0, seen[128] = {0}, ord[128];
    cudaMemcpy(&count, counter, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(ord, order, sizeof(ord), cudaMemcpyDeviceToHost);
    printf("count %d (expected %d)\n", count, n);
    if (count != n) {
      printf("FAILED: lost updates\n");
      return 1;
    }
    for (int i = 0; i < n; ++i) {
      if (ord[i] < 0 || ord[i] >= n || seen[ord[i]]++) {
        printf("FAILED: thread %d saw count %d (not a permutation: the lock failed)\n", i, ord[i]);
        return 1;
      }
    }
  }
  printf("PASSED\n");
  return 0;
}
