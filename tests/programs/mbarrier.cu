// mbarrier: shared-memory mbarrier objects with inline PTX (sm_80).
//   1. producer/consumer over 4 phases: 128 threads write, arrive (state), spin on
//      mbarrier.test_wait with the state, read a neighbour's value; then the same with
//      mbarrier.test_wait.parity and the phase parity.
//   2. pending_count: the 32 states one warp's arrivals return hold pending counts 32..1.
//   3. arrive_drop: warp 3 drops out in phase 0; phase 1 completes with the other 96 arrivals.
//   4. cp.async.mbarrier.arrive.noinc: each thread's cp.async is tracked by the barrier (count
//      128), the consumer waits on parity 0 and checks every copied word.
//   5. mbarrier.inval then init again with another count.
// Built with -arch=sm_80, run with gpu.cc_major=8.
#include <cstdint>
#include <cstdio>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ inline uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }
__device__ inline void mb_init(uint64_t* b, uint32_t n) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(smem(b)), "r"(n) : "memory");
}
__device__ inline uint64_t mb_arrive(uint64_t* b) {
  uint64_t s;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(s) : "r"(smem(b)) : "memory");
  return s;
}
__device__ inline uint64_t mb_arrive_drop(uint64_t* b) {
  uint64_t s;
  asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(s) : "r"(smem(b)) : "memory");
  return s;
}
__device__ inline bool mb_test(uint64_t* b, uint64_t s) {
  uint32_t r;
  asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(smem(b)), "l"(s) : "memory");
  return r;
}
__device__ inline bool mb_test_parity(uint64_t* b, uint32_t parity) {
  uint32_t r;
  asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(smem(b)), "r"(parity) : "memory");
  return r;
}
__device__ inline uint32_t mb_pending(uint64_t s) {
  uint32_t n;
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(n) : "l"(s));
  return n;
}

// errors[0..4]: failures per part.
__global__ void kmain(const uint32_t* g, uint32_t* errors) {
  __shared__ uint64_t bar, bar2, bar3;
  __shared__ uint32_t data[128];
  __shared__ __align__(16) uint32_t copy[128 * 4];
  __shared__ uint32_t pend[32];
  const int t = threadIdx.x, n = blockDim.x;  // 128 threads
  if (t == 0) { mb_init(&bar, n); mb_init(&bar2, 32); mb_init(&bar3, n); }
  __syncthreads();
  // 1. four phases with test_wait(state), four with test_wait.parity.
  for (int ph = 0; ph < 8; ++ph) {
    data[t] = uint32_t(t * 3 + ph);
    if (ph < 4) {
      const uint64_t s = mb_arrive(&bar);
      while (!mb_test(&bar, s)) {}
    } else {
      mb_arrive(&bar);
      while (!mb_test_parity(&bar, ph & 1)) {}
    }
    if (data[(t + 1) % n] != uint32_t(((t + 1) % n) * 3 + ph)) atomicAdd(&errors[0], 1);
    __syncthreads();  // nobody overwrites data before everyone read it
  }
  // 2. pending counts from warp 0's states.
  if (t < 32) pend[t] = mb_pending(mb_arrive(&bar2));
  __syncthreads();
  if (t == 0) {
    uint32_t seen = 0;
    for (int i = 0; i < 32; ++i)
      if (pend[i] >= 1 && pend[i] <= 32) seen |= 1u << (pend[i] - 1);
    if (seen != 0xffffffffu) atomicAdd(&errors[1], 1);
  }
  // bar2 completed phase 0: parity 0 test is true.
  if (!mb_test_parity(&bar2, 0)) atomicAdd(&errors[1], 1);
  __syncthreads();
  // 3. arrive_drop: warp 3 leaves bar3 after phase 0.
  if (t >= 96) mb_arrive_drop(&bar3); else mb_arrive(&bar3);
  while (!mb_test_parity(&bar3, 0)) {}
  // Every thread has seen phase 0 complete before phase 1 can complete: a parity wait only
  // tells the current phase from the one before it (warp 3 would otherwise see parity 0 again
  // once phase 2 runs and wait forever).
  __syncthreads();
  if (t < 96) {
    mb_arrive(&bar3);
    while (!mb_test_parity(&bar3, 1)) {}
  }
  __syncthreads();
  // Phases 0 and 1 completed; phase 2 (parity 0) is running.
  if (!mb_test_parity(&bar3, 1) || mb_test_parity(&bar3, 0)) atomicAdd(&errors[2], 1);
  __syncthreads();
  // 4. cp.async tracked by an mbarrier (noinc: the async arrive is one of the 128 expected).
  if (t == 0) { asm volatile("mbarrier.inval.shared.b64 [%0];" :: "r"(smem(&bar)) : "memory"); mb_init(&bar, n); }
  __syncthreads();
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(smem(&copy[t * 4])), "l"(g + t * 4) : "memory");
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(smem(&bar)) : "memory");
  while (!mb_test_parity(&bar, 0)) {}
  for (int i = 0; i < 4; ++i) {
    const int w = ((t + 37) % n) * 4 + i;
    if (copy[w] != uint32_t(w * 2654435761u)) atomicAdd(&errors[3], 1);
  }
  __syncthreads();
  // 5. inval + init with a count of 64: two warps complete a phase.
  if (t == 0) { asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(smem(&bar)) : "memory"); mb_init(&bar, 64); }
  __syncthreads();
  if (t < 64) mb_arrive(&bar);
  if (t >= 64) while (!mb_test_parity(&bar, 0)) {}
  __syncthreads();
  if (!mb_test_parity(&bar, 0)) atomicAdd(&errors[4], 1);
}

int main() {
  uint32_t h[128 * 4], *dg, *de, err[5];
  for (int i = 0; i < 128 * 4; ++i) h[i] = uint32_t(i * 2654435761u);
  CK(cudaMalloc(&dg, sizeof h));
  CK(cudaMalloc(&de, sizeof err));
  CK(cudaMemcpy(dg, h, sizeof h, cudaMemcpyHostToDevice));
  CK(cudaMemset(de, 0, sizeof err));
  kmain<<<2, 128>>>(dg, de);
  CK(cudaGetLastError());
  CK(cudaMemcpy(err, de, sizeof err, cudaMemcpyDeviceToHost));
  const char* names[5] = {"phases (test_wait / test_wait.parity)", "pending_count", "arrive_drop",
                          "cp.async.mbarrier.arrive.noinc", "inval + init"};
  int fails = 0;
  for (int i = 0; i < 5; ++i) {
    printf("%-40s %s\n", names[i], err[i] ? "mismatch" : "ok");
    fails += err[i] != 0;
  }
  printf(fails ? "FAILED\n" : "PASSED\n");
  return fails ? 1 : 0;
}
