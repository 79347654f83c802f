// divergent: a control-divergent kernel for simulator throughput (functional mode).
//
// Every thread gets a pseudo-random 32-bit input. Its loop trip count (0..63) comes from the
// input, so the lanes of a warp leave the loop at different iterations; inside the loop a
// data-dependent if/else (a Collatz step with an extra mixing branch) splits the warp again,
// and after the loop a four-way switch on the top input bits diverges once more. The
// simulator's SIMT stack (push/pop at branches and reconvergence points) is exercised on
// nearly every warp instruction, and the average number of active lanes is well below 32.
//
// Self-check: every output is recomputed on the CPU.
//
// Build: nvcc -cudart shared -o divergent divergent.cu
// Run:   simtlab run --mode functional -- ./divergent [N] [MAXTRIPS]   (default 1048576 64)
#include <vector>

#include "bench_common.h"

__host__ __device__ inline unsigned work(unsigned v, unsigned max_trips) {
  const unsigned trips = v % max_trips;
  unsigned acc = v | 1u;
  for (unsigned t = 0; t < trips; ++t) {
    if (acc & 1u) {
      acc = acc * 3u + 1u;
      acc ^= acc >> 11;
    } else {
      acc >>= 1;
      acc += t * 0x9e3779b9u;
    }
    if ((acc & 6u) == 6u) {  // a second, independent split inside the loop
      acc = (acc << 7) | (acc >> 25);
      acc ^= 0x5bd1e995u;
    }
  }
  switch (v >> 30) {
    case 0: acc += 17u; break;
    case 1: acc *= 0x01000193u; break;
    case 2: acc ^= acc >> 16; acc *= 0x85ebca6bu; break;
    default: acc = ~acc; acc ^= acc >> 13; acc *= 0xc2b2ae35u; acc ^= acc >> 16; break;
  }
  return acc;
}

__global__ void divergentKernel(const unsigned* in, unsigned* out, int n, unsigned max_trips) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = work(in[i], max_trips);
}

int main(int argc, char** argv) {
  const int n = (int)arg_or(argc, argv, 1, 1 << 20);
  const unsigned max_trips = (unsigned)arg_or(argc, argv, 2, 64);
  std::vector<unsigned> in(n), out(n);
  unsigned seed = 2463534242u;
  for (int i = 0; i < n; ++i) {
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    in[i] = seed;
  }
  unsigned *dIn, *dOut;
  CUDA_CHECK(cudaMalloc(&dIn, n * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&dOut, n * sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(dIn, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  divergentKernel<<<blocks, threads>>>(dIn, dOut, n, max_trips);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(unsigned), cudaMemcpyDeviceToHost));

  unsigned long long lane_trips = 0, warp_trips = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned e = work(in[i], max_trips);
    if (out[i] != e) {
      printf("FAILED: out[%d] = %08x, expected %08x (input %08x)\n", i, out[i], e, in[i]);
      return 1;
    }
    lane_trips += in[i] % max_trips;
  }
  for (int w = 0; w < n; w += 32) {
    unsigned m = 0;
    for (int l = w; l < w + 32 && l < n; ++l) m = in[l] % max_trips > m ? in[l] % max_trips : m;
    warp_trips += m;
  }
  printf("divergent: %d threads, loop trip counts 0..%u per lane\n", n, max_trips - 1);
  printf("  loop SIMD efficiency from trip counts alone: %.1f%% (lane trips / (32 x warp max trips))\n",
         100.0 * (double)lane_trips / (32.0 * (double)warp_trips));
  printf("  all %d outputs match the CPU\n", n);
  CUDA_CHECK(cudaFree(dIn));
  CUDA_CHECK(cudaFree(dOut));
  printf("PASSED\n");
  return 0;
}
