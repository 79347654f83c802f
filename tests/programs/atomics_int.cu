// atomics_int: integer atomics on global and shared memory: atomicAdd (histograms), atomicSub,
// atomicMin/Max (signed with negatives, unsigned), atomicInc/atomicDec with wrap-around,
// atomicAnd/Or/Xor bitmasks, atomicExch (per-slot swap, and as the release of a spin lock
// taken with atomicCAS by one thread per block), and a 64-bit add built from an atomicCAS loop.
// Every final value is independent of the order in which threads run.
#include <cstdio>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

struct Results {
  int hist[64];          // global histogram
  int sharedHist[64];    // histogram built in shared memory, then merged
  int sub;               // starts at 1000000, every thread subtracts (i % 7)
  int minv, maxv;        // signed
  unsigned umin, umax;
  unsigned inc, dec;     // atomicInc(.., 10) from 0, atomicDec(.., 9) from 5
  unsigned orMask[4], andMask[4], xorMask[4];
  unsigned long long sum64;   // via atomicCAS loop
  int lock, locked;      // spin-lock word and the value it protects
  int sharedMax[32];     // per block max from shared atomicMax / CAS
};

__device__ unsigned long long casAdd64(unsigned long long* addr, unsigned long long v) {
  unsigned long long old = *addr, assumed;
  do {
    assumed = old;
    old = atomicCAS(addr, assumed, assumed + v);
  } while (old != assumed);
  return old;
}

__device__ __host__ int valueOf(int i) { return (int)((i * 2654435761u) >> 16) % 2001 - 1000; }

__global__ void atomicsKernel(Results* r, int* slots, int n) {
  __shared__ int sHist[64];
  __shared__ int sMax, sCasMax;
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (t < 64) sHist[t] = 0;
  if (t == 0) { sMax = -100000; sCasMax = -100000; }
  __syncthreads();
  if (i < n) {
    int v = valueOf(i);
    atomicAdd(&r->hist[(v + 1000) & 63], 1);
    atomicAdd(&sHist[i & 63], 1);
    atomicSub(&r->sub, i % 7);
    atomicMin(&r->minv, v);
    atomicMax(&r->maxv, v);
    atomicMin(&r->umin, (unsigned)v);     // negative values become large unsigned values
    atomicMax(&r->umax, (unsigned)(v + 1000));
    atomicInc(&r->inc, 10u);
    atomicDec(&r->dec, 9u);
    atomicOr(&r->orMask[i & 3], 1u << (i % 32));
    atomicAnd(&r->andMask[i & 3], ~(1u << ((i * 7) % 32)));
    atomicXor(&r->xorMask[i & 3], 1u << (i % 29));
    if (i % 8 == 0) casAdd64(&r->sum64, (unsigned long long)i * 1000003ULL);
    atomicMax(&sMax, v);
    int old = sCasMax;                    // CAS-loop max in shared memory
    while (old < v) {
      int prev = atomicCAS(&sCasMax, old, v);
      if (prev == old) break;
      old = prev;
    }
    slots[i] = atomicExch(&slots[i + n], i * 3);   // swap: slots[i+n] held -i
  }
  __syncthreads();
  if (t < 64) atomicAdd(&r->sharedHist[t], sHist[t]);
  if (t == 0) {
    r->sharedMax[blockIdx.x] = sMax == sCasMax ? sMax : -999999;
    // One thread per block takes the lock, updates a plain counter, releases with atomicExch.
    while (atomicCAS(&r->lock, 0, 1) != 0) { }
    __threadfence();
    volatile int* p = &r->locked;
    *p = *p + (int)blockIdx.x + 1;
    __threadfence();
    atomicExch(&r->lock, 0);
  }
}

int main() {
  const int T = 256, B = 24, n = T * B;
  Results h = {};
  h.sub = 1000000; h.minv = 1 << 30; h.maxv = -(1 << 30); h.umin = 0xffffffffu; h.umax = 0;
  h.inc = 0; h.dec = 5;
  for (int k = 0; k < 4; ++k) { h.orMask[k] = 0; h.andMask[k] = 0xffffffffu; h.xorMask[k] = 0; }
  std::vector<int> slots(2 * n);
  for (int i = 0; i < n; ++i) { slots[i] = 0; slots[i + n] = -i; }
  Results* d; int* dslots;
  CK(cudaMalloc(&d, sizeof(Results))); CK(cudaMalloc(&dslots, 2 * n * sizeof(int)));
  CK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dslots, slots.data(), 2 * n * sizeof(int), cudaMemcpyHostToDevice));
  atomicsKernel<<<B, T>>>(d, dslots, n);
  CK(cudaGetLastError());
  Results r;
  CK(cudaMemcpy(&r, d, sizeof r, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(slots.data(), dslots, 2 * n * sizeof(int), cudaMemcpyDeviceToHost));

  // Host reference.
  Results e = h;
  std::vector<int> blockMax(B, -100000);
  for (int i = 0; i < n; ++i) {
    int v = valueOf(i);
    e.hist[(v + 1000) & 63]++; e.sharedHist[i & 63]++; e.sub -= i % 7;
    e.minv = std::min(e.minv, v); e.maxv = std::max(e.maxv, v);
    e.umin = std::min(e.umin, (unsigned)v); e.umax = std::max(e.umax, (unsigned)(v + 1000));
    e.inc = e.inc >= 10u ? 0 : e.inc + 1;
    e.dec = (e.dec == 0 || e.dec > 9u) ? 9u : e.dec - 1;
    e.orMask[i & 3] |= 1u << (i % 32); e.andMask[i & 3] &= ~(1u << ((i * 7) % 32));
    e.xorMask[i & 3] ^= 1u << (i % 29);
    if (i % 8 == 0) e.sum64 += (unsigned long long)i * 1000003ULL;
    blockMax[i / T] = std::max(blockMax[i / T], v);
  }
  for (int k = 0; k < 64; ++k) {
    if (r.hist[k] != e.hist[k]) { printf("FAILED: hist[%d] %d vs %d\n", k, r.hist[k], e.hist[k]); return 1; }
    if (r.sharedHist[k] != e.sharedHist[k]) { printf("FAILED: sharedHist[%d]\n", k); return 1; }
  }
  if (r.sub != e.sub) { printf("FAILED: atomicSub %d vs %d\n", r.sub, e.sub); return 1; }
  if (r.minv != e.minv || r.maxv != e.maxv) { printf("FAILED: atomicMin/Max %d %d\n", r.minv, r.maxv); return 1; }
  if (r.umin != e.umin || r.umax != e.umax) { printf("FAILED: unsigned atomicMin/Max %u %u\n", r.umin, r.umax); return 1; }
  if (r.inc != e.inc || r.dec != e.dec) { printf("FAILED: atomicInc/Dec %u %u vs %u %u\n", r.inc, r.dec, e.inc, e.dec); return 1; }
  for (int k = 0; k < 4; ++k)
    if (r.orMask[k] != e.orMask[k] || r.andMask[k] != e.andMask[k] || r.xorMask[k] != e.xorMask[k]) {
      printf("FAILED: bit atomics word %d\n", k); return 1; }
  if (r.sum64 != e.sum64) { printf("FAILED: CAS 64-bit sum %llu vs %llu\n", r.sum64, e.sum64); return 1; }
  if (r.lock != 0 || r.locked != B * (B + 1) / 2) { printf("FAILED: spin lock: lock=%d locked=%d\n", r.lock, r.locked); return 1; }
  for (int b = 0; b < B; ++b)
    if (r.sharedMax[b] != blockMax[b]) { printf("FAILED: shared max block %d: %d vs %d\n", b, r.sharedMax[b], blockMax[b]); return 1; }
  for (int i = 0; i < n; ++i)
    if (slots[i] != -i || slots[i + n] != i * 3) { printf("FAILED: atomicExch slot %d\n", i); return 1; }
  printf("hist ok, sub=%d min=%d max=%d umin=%u umax=%u\n", r.sub, r.minv, r.maxv, r.umin, r.umax);
  printf("inc=%u dec=%u or0=%08x and0=%08x xor0=%08x\n", r.inc, r.dec, r.orMask[0], r.andMask[0], r.xorMask[0]);
  printf("sum64=%llu locked=%d\n", r.sum64, r.locked);
  cudaFree(d); cudaFree(dslots);
  printf("PASSED\n");
  return 0;
}
