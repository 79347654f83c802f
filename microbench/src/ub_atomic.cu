// Atomic operations: latency (dependent chain) and throughput with one address shared by every
// thread or one address per thread, in global and shared memory (Jia et al. 2019 Sec. on atomics
// measure throughput under contention the same way: many threads, atomicAdd, timed).
//
//   atomic.global.latency   one warp, every lane on one address: atom.global.add.u64 p, [p], 0
//                           returns the next node of a pointer chase (adding 0 keeps it), timed
//                           as ub_mem's chase; the node was touched before (an L2 hit)
//   atomic.shared.latency   the same with atom.shared.add.u32 over a shared-memory chase
//   atomic.global.same      atomicAdd(&one_word, 1) by every thread of one 256-thread block per
//                           SM, kIters each;
//                           atomics per SM-clock of the whole GPU (cudaEvent time x clock rate)
//   atomic.global.distinct  the same, thread i on word i (each warp covers one 128-B line)
//   atomic.shared.same      one block per SM, every thread on one shared word; atomics per
//                           clock per SM (clock64 around the block's loop, barriers before/after)
//   atomic.shared.distinct  the same, thread i on shared word i
#include "ub.h"

constexpr int kChase = 32;
constexpr int kIters = 8;

__global__ void k_atom_lat_global(unsigned long long start, long long* dt,
                                  unsigned long long* sink) {
  unsigned long long p = start;
  long long d = 0;
#pragma unroll 1
  for (int rep = 0; rep < 2; ++rep) {
    asm volatile("atom.global.add.u64 %0, [%0], 0;" : "+l"(p));
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < kChase; ++i) asm volatile("atom.global.add.u64 %0, [%0], 0;" : "+l"(p));
    long long t1 = clock64();
    d = t1 - t0;
  }
  if (threadIdx.x == 0) {
    dt[0] = d;
    sink[0] = p;
  }
}

__global__ void k_atom_lat_shared(long long* dt, unsigned* sink) {
  __shared__ unsigned s[64];
  for (int i = threadIdx.x; i < 64; i += blockDim.x)
    s[i] = unsigned(__cvta_generic_to_shared(&s[(i + 1) % 64]));
  __syncthreads();
  unsigned p = unsigned(__cvta_generic_to_shared(&s[0]));
  long long d = 0;
#pragma unroll 1
  for (int rep = 0; rep < 2; ++rep) {
    asm volatile("atom.shared.add.u32 %0, [%0], 0;" : "+r"(p));
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < kChase; ++i) asm volatile("atom.shared.add.u32 %0, [%0], 0;" : "+r"(p));
    long long t1 = clock64();
    d = t1 - t0;
  }
  if (threadIdx.x == 0) {
    dt[0] = d;
    sink[0] = p;
  }
}

__global__ void k_atom_global(unsigned* a, int distinct) {
  unsigned* p = a + (distinct ? size_t(blockIdx.x) * blockDim.x + threadIdx.x : 0);
#pragma unroll
  for (int i = 0; i < kIters; ++i) atomicAdd(p, 1u);
}

__global__ void k_atom_shared(long long* t, int distinct) {
  __shared__ unsigned s[1024];
  s[threadIdx.x] = 0;
  unsigned* p = distinct ? &s[threadIdx.x] : &s[0];
  long long t0 = 0, t1 = 0;
#pragma unroll 1
  for (int rep = 0; rep < 2; ++rep) {
    __syncthreads();
    t0 = clock64();
#pragma unroll
    for (int i = 0; i < kIters; ++i) atomicAdd(p, 1u);
    __syncthreads();
    t1 = clock64();
  }
  if (threadIdx.x == 0) t[blockIdx.x] = t1 - t0;
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  UB_CHECK(cudaGetDeviceProperties(&prop, 0));
  long long* dt;
  unsigned long long* sink;
  UB_CHECK(cudaMalloc(&dt, 4096 * sizeof(long long)));
  UB_CHECK(cudaMalloc(&sink, 64 * sizeof(unsigned long long)));
  const int threads =
      prop.maxThreadsPerMultiProcessor < 1024 ? prop.maxThreadsPerMultiProcessor : 1024;
  std::printf("# ub_atomic: %d atomics per thread for throughput, %d-long chains for latency\n",
              kIters, kChase);
  if (ub_selected(argc, argv, "global_lat")) {
    const int nodes = 64;
    unsigned long long* d;
    UB_CHECK(cudaMalloc(&d, nodes * 128));
    unsigned long long img[nodes * 16] = {};
    for (int i = 0; i < nodes; ++i) img[i * 16] = (unsigned long long)d + ((i + 1) % nodes) * 128;
    UB_CHECK(cudaMemcpy(d, img, sizeof img, cudaMemcpyHostToDevice));
    k_atom_lat_global<<<1, 32>>>((unsigned long long)d, dt, sink);
    UB_CHECK(cudaGetLastError());
    long long c = 0;
    UB_CHECK(cudaMemcpy(&c, dt, sizeof c, cudaMemcpyDeviceToHost));
    ub_print("atomic.global.latency", double(c) / kChase, "cycles");
    UB_CHECK(cudaFree(d));
  }
  if (ub_selected(argc, argv, "shared_lat")) {
    k_atom_lat_shared<<<1, 32>>>(dt, (unsigned*)sink);
    UB_CHECK(cudaGetLastError());
    long long c = 0;
    UB_CHECK(cudaMemcpy(&c, dt, sizeof c, cudaMemcpyDeviceToHost));
    ub_print("atomic.shared.latency", double(c) / kChase, "cycles");
  }
  const int blocks = prop.multiProcessorCount;  // one 256-thread block per SM
  for (int distinct = 0; distinct < 2; ++distinct) {
    const char* name = distinct ? "global_distinct" : "global_same";
    if (!ub_selected(argc, argv, name)) continue;
    unsigned* a;
    UB_CHECK(cudaMalloc(&a, size_t(blocks) * 256 * 4));
    UB_CHECK(cudaMemset(a, 0, size_t(blocks) * 256 * 4));
    k_atom_global<<<blocks, 256>>>(a, distinct);  // warm-up
    cudaEvent_t e0, e1;
    UB_CHECK(cudaEventCreate(&e0));
    UB_CHECK(cudaEventCreate(&e1));
    UB_CHECK(cudaEventRecord(e0));
    k_atom_global<<<blocks, 256>>>(a, distinct);
    UB_CHECK(cudaEventRecord(e1));
    UB_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    UB_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    const double ops = double(blocks) * 256 * kIters;
    ub_print(distinct ? "atomic.global.distinct" : "atomic.global.same", ops / (ms * ub_sm_khz()),
             "atomics/cycle");
    UB_CHECK(cudaFree(a));
  }
  for (int distinct = 0; distinct < 2; ++distinct) {
    const char* name = distinct ? "shared_distinct" : "shared_same";
    if (!ub_selected(argc, argv, name)) continue;
    k_atom_shared<<<1, threads>>>(dt, distinct);
    UB_CHECK(cudaGetLastError());
    long long c = 0;
    UB_CHECK(cudaMemcpy(&c, dt, sizeof c, cudaMemcpyDeviceToHost));
    ub_print(distinct ? "atomic.shared.distinct" : "atomic.shared.same",
             double(threads) * kIters / double(c), "atomics/cycle/SM");
  }
  return 0;
}
