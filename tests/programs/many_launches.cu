// many_launches: N launches of a one-warp kernel (argv[1], default 100), each adding 1 to every
// element of a small array; optionally (argv[2] = "kernel" or "host") one long-running phase at
// the end, for the interrupt tests: "kernel" launches a kernel that runs for minutes of
// simulation, "host" sleeps in host code. The memory benchmark (bench/many_launches.sh) and
// runtime.many_launches_memory check that peak memory does not grow with N.
#include <unistd.h>

#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void bump(int* a) { a[threadIdx.x] += 1; }

__global__ void long_loop(unsigned* out, unsigned iters) {
  unsigned x = threadIdx.x;
  for (unsigned i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  out[threadIdx.x] = x;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  const char* tail = argc > 2 ? argv[2] : "";
  int* a = nullptr;
  if (cudaMalloc(&a, 32 * sizeof(int)) != cudaSuccess || cudaMemset(a, 0, 32 * sizeof(int))) {
    printf("FAILED: setup\n");
    return 1;
  }
  for (int i = 0; i < n; ++i) bump<<<1, 32>>>(a);
  int h[32];
  if (cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("FAILED: copy\n");
    return 1;
  }
  for (int i = 0; i < 32; ++i)
    if (h[i] != n) {
      printf("FAILED: a[%d] = %d after %d launches\n", i, h[i], n);
      return 1;
    }
  printf("%d launches done\n", n);
  fflush(stdout);
  if (!strcmp(tail, "kernel")) {
    long_loop<<<1, 32>>>(reinterpret_cast<unsigned*>(a), 4000000000u);
    cudaDeviceSynchronize();
  } else if (!strcmp(tail, "host")) {
    sleep(60);
  }
  printf("PASSED\n");
  return 0;
}
