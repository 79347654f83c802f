// alu_bound: an arithmetic-bound kernel for simulator throughput (functional mode).
//
// Many warps, each thread running a long loop of floating-point FMA chains (three independent
// chains and one that depends on another) and integer chains (an LCG multiply-add and a
// xorshift), with one load and one store per thread in total. Almost every executed instruction
// is an FP32/INT ALU operation, so the simulator's per-instruction dispatch cost dominates.
//
// Self-check: a strided subset of the threads is recomputed on the CPU with the same
// operations (explicit fmaf, so the results must match bit for bit).
//
// Build: nvcc -cudart shared -o alu_bound alu_bound.cu
// Run:   simtlab run --mode functional -- ./alu_bound [ITERS] [CTAS]   (default 4096 120)
#include <cmath>
#include <cstring>
#include <vector>

#include "bench_common.h"

constexpr int kThreads = 256;

struct State {
  float a0, a1, a2, a3;
  unsigned h0, h1;
};

__host__ __device__ inline State init_state(unsigned tid, float seed) {
  State s;
  // Explicit fmaf: nvcc would contract `seed + x * c` into an FMA on the device but not on the
  // host, and the results must match bit for bit.
  s.a0 = fmaf(float(tid & 1023), 1e-3f, seed);
  s.a1 = fmaf(-float(tid & 255), 1e-3f, 1.0f);
  s.a2 = fmaf(float(tid % 97), 1e-2f, 2.0f);
  s.a3 = 0.0f;
  s.h0 = tid * 2654435761u + 1u;
  s.h1 = (tid ^ 0x9e3779b9u) | 1u;
  return s;
}

// One loop iteration: 4 FMAs, 1 integer multiply-add, 3 xor, 4 shifts, 1 and, 1 add.
__host__ __device__ inline void iterate(State& s) {
  s.a0 = fmaf(s.a0, 0.9999f, 0.5f);
  s.a1 = fmaf(s.a1, 0.9998f, 0.25f);
  s.a2 = fmaf(s.a2, 0.9997f, -0.125f);
  s.a3 = fmaf(s.a3, 0.5f, s.a0);
  s.h0 = s.h0 * 1664525u + 1013904223u;
  s.h1 ^= s.h1 << 13;
  s.h1 ^= s.h1 >> 17;
  s.h1 ^= s.h1 << 5;
  s.h0 += (s.h1 >> 3) & 0xffu;
}

__global__ void aluKernel(const float* seeds, float* outf, unsigned* outi, int iters) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  State s = init_state(tid, seeds[blockIdx.x]);
#pragma unroll 4
  for (int i = 0; i < iters; ++i) iterate(s);
  outf[tid] = ((s.a0 + s.a1) + s.a2) + s.a3;
  outi[tid] = s.h0 ^ s.h1;
}

int main(int argc, char** argv) {
  const int iters = (int)arg_or(argc, argv, 1, 4096);
  const int ctas = (int)arg_or(argc, argv, 2, 120);
  const size_t n = (size_t)ctas * kThreads;

  std::vector<float> seeds(ctas), outf(n);
  std::vector<unsigned> outi(n);
  for (int b = 0; b < ctas; ++b) seeds[b] = 0.25f * float(b % 16);

  float *dSeeds, *dOutf;
  unsigned* dOuti;
  CUDA_CHECK(cudaMalloc(&dSeeds, ctas * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dOutf, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dOuti, n * sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(dSeeds, seeds.data(), ctas * sizeof(float), cudaMemcpyHostToDevice));
  aluKernel<<<ctas, kThreads>>>(dSeeds, dOutf, dOuti, iters);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(outf.data(), dOutf, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(outi.data(), dOuti, n * sizeof(unsigned), cudaMemcpyDeviceToHost));

  size_t checked = 0;
  for (size_t t = 0; t < n; t += (t % 32 == 31) ? 997 : 1) {  // runs of 32 threads, spread out
    State s = init_state((unsigned)t, seeds[t / kThreads]);
    for (int i = 0; i < iters; ++i) iterate(s);
    const float f = ((s.a0 + s.a1) + s.a2) + s.a3;
    const unsigned u = s.h0 ^ s.h1;
    if (std::memcmp(&f, &outf[t], sizeof f) != 0 || u != outi[t]) {
      printf("FAILED: thread %zu: got (%.9g, %08x), expected (%.9g, %08x)\n", t, outf[t], outi[t], f, u);
      return 1;
    }
    ++checked;
  }
  for (size_t t = 0; t < n; ++t)
    if (!std::isfinite(outf[t])) {
      printf("FAILED: thread %zu: non-finite result %g\n", t, outf[t]);
      return 1;
    }
  printf("alu_bound: %d CTAs x %d threads, %d iterations (%d FP32 FMA + 10 integer ops each)\n", ctas, kThreads,
         iters, 4);
  printf("  %zu threads checked bit-exactly against the CPU\n", checked);
  CUDA_CHECK(cudaFree(dSeeds));
  CUDA_CHECK(cudaFree(dOutf));
  CUDA_CHECK(cudaFree(dOuti));
  printf("PASSED\n");
  return 0;
}
