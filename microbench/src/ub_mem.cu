// Memory-hierarchy latencies by pointer chasing, and shared-memory bandwidth (Jia et al. 2018,
// Sec. "Memory hierarchy": a fine-grained pointer chase timed with the SM clock; Mei & Chu 2017
// for the chase itself). Every load's address is the value the previous load returned.
//
// Method (one warp, every lane chasing the same address, so one transaction per load): a
// warm-up part of the chase, then t0 = clock64(), kChase dependent loads, t1 = clock64(). The
// warm-up ends with a load the first timed load depends on, so t1 - t0 = kChase x (load-to-use
// latency) in an in-order pipeline. Everything runs twice in one kernel and the second pass is
// reported (the first warms the instruction cache).
//   pchase.l1    ld.global.ca, 32 lines 128 B apart (4 KB), chased once before: L1 hits
//   pchase.l2    ld.global.cg (L1 bypass), the same 4 KB: L2 hits
//   pchase.dram  ld.global.cg, fresh lines 32 KB apart at the start of a buffer of --l2 x 4
//                bytes written by cudaMemcpy (the copy's later part evicted them from L2):
//                DRAM accesses; 66 lines inside 2.1 MB, so on hardware the TLB hits after
//                the first touch of each 2 MB page
//   smem.latency ld.shared.u32 chase, stride 4 B
//   smem.bandwidth  all warps of a 1024-thread block (or the SM's limit) load 32 consecutive
//                words per warp instruction (conflict-free), 64 loads per thread; bytes per
//                SM cycle = bytes loaded / (last warp's end - first warp's start), from clock64
// Options: --l2=BYTES (L2 capacity; default: the device's l2CacheSize).
#include "ub.h"

constexpr int kChase = 32;

template <int CG>
__device__ __forceinline__ void ld_next(unsigned long long& p) {
  if (CG)
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  else
    asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p));
}

template <int CG>
__global__ void k_chase(unsigned long long start, int warm, long long* dt,
                        unsigned long long* sink) {
  unsigned long long p = start;
  long long d = 0;
#pragma unroll 1
  for (int rep = 0; rep < 2; ++rep) {
#pragma unroll 1
    for (int i = 1; i < warm; ++i) ld_next<CG>(p);
    ld_next<CG>(p);  // straight-line: t0 is read the cycle after this load issues
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < kChase; ++i) ld_next<CG>(p);
    long long t1 = clock64();
    d = t1 - t0;
  }
  if (threadIdx.x == 0) {
    dt[0] = d;
    sink[0] = p;
  }
}

constexpr int kSmemWords = 1024;

__global__ void k_smem_lat(long long* dt, unsigned* sink) {
  __shared__ unsigned s[kSmemWords];
  for (int i = threadIdx.x; i < kSmemWords; i += blockDim.x)
    s[i] = unsigned(__cvta_generic_to_shared(&s[(i + 1) % kSmemWords]));
  __syncthreads();
  unsigned p = unsigned(__cvta_generic_to_shared(&s[0]));
  long long d = 0;
#pragma unroll 1
  for (int rep = 0; rep < 2; ++rep) {
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < kChase; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    long long t1 = clock64();
    d = t1 - t0;
  }
  if (threadIdx.x == 0) {
    dt[0] = d;
    sink[0] = p;
  }
}

constexpr int kBwLoads = 64;

#define UB_LDS(k) \
  asm volatile("ld.shared.u32 %0, [%1+%2];" : "=r"(v[(k) % 8]) : "r"(base), "n"((k)*128))
#define UB_LDS8(b) \
  UB_LDS(b + 0);   \
  UB_LDS(b + 1);   \
  UB_LDS(b + 2);   \
  UB_LDS(b + 3);   \
  UB_LDS(b + 4);   \
  UB_LDS(b + 5);   \
  UB_LDS(b + 6);   \
  UB_LDS(b + 7)

__global__ void k_smem_bw(long long* t, unsigned* sink) {
  __shared__ unsigned s[32 * kBwLoads];
  for (int i = threadIdx.x; i < 32 * kBwLoads; i += blockDim.x) s[i] = i;
  const unsigned base = unsigned(__cvta_generic_to_shared(&s[threadIdx.x % 32]));
  unsigned v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  long long t0 = 0, t1 = 0;
#pragma unroll 1
  for (int rep = 0; rep < 2; ++rep) {
    __syncthreads();
    t0 = clock64();
    UB_LDS8(0);
    UB_LDS8(8);
    UB_LDS8(16);
    UB_LDS8(24);
    UB_LDS8(32);
    UB_LDS8(40);
    UB_LDS8(48);
    UB_LDS8(56);
    static_assert(kBwLoads == 64, "eight UB_LDS8 above");
    t1 = clock64();
  }
  unsigned x = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) x ^= v[k];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = x;
  if (threadIdx.x % 32 == 0) {
    t[2 * (threadIdx.x / 32)] = t0;
    t[2 * (threadIdx.x / 32) + 1] = t1;
  }
}

// A chain of `n` nodes `stride` bytes apart starting at `off` inside a host image of the buffer
// `dev` (circular when `wrap`).
static void build_chain(unsigned long long* img, unsigned long long dev, size_t off, size_t stride,
                        int n, bool wrap) {
  for (int i = 0; i < n; ++i) {
    size_t here = off + size_t(i) * stride;
    size_t next = (i + 1 < n) ? here + stride : (wrap ? off : here);
    img[here / 8] = dev + next;
  }
}

template <int CG>
static double chase(unsigned long long* dbuf, size_t bytes, unsigned long long* img, int warm,
                    long long* dt, unsigned long long* sink) {
  UB_CHECK(cudaMemcpy(dbuf, img, bytes, cudaMemcpyHostToDevice));
  k_chase<CG><<<1, 32>>>((unsigned long long)dbuf, warm, dt, sink);
  UB_CHECK(cudaGetLastError());
  long long d = 0;
  UB_CHECK(cudaMemcpy(&d, dt, sizeof d, cudaMemcpyDeviceToHost));
  return double(d);
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  UB_CHECK(cudaGetDeviceProperties(&prop, 0));
  const long long l2 = ub_opt(argc, argv, "--l2", prop.l2CacheSize);
  long long* dt;
  unsigned long long* sink;
  UB_CHECK(cudaMalloc(&dt, 4096 * sizeof(long long)));
  UB_CHECK(cudaMalloc(&sink, 65536 * sizeof(unsigned long long)));
  std::printf("# ub_mem: %d dependent loads timed after a warm-up chase; L2 %lld bytes\n", kChase,
              l2);

  const size_t small = 4096, line = 128;
  const int lines = int(small / line);
  if (ub_selected(argc, argv, "l1") || ub_selected(argc, argv, "l2")) {
    unsigned long long* d;
    UB_CHECK(cudaMalloc(&d, small));
    unsigned long long* img = (unsigned long long*)std::calloc(small, 1);
    build_chain(img, (unsigned long long)d, 0, line, lines, true);
    if (ub_selected(argc, argv, "l1")) {
      double c = chase<0>(d, small, img, lines, dt, sink);
      ub_print("pchase.l1", c / kChase, "cycles");
      ub_print("pchase.l1.raw", c, "cycles");
    }
    if (ub_selected(argc, argv, "l2")) {
      double c = chase<1>(d, small, img, lines, dt, sink);
      ub_print("pchase.l2", c / kChase, "cycles");
      ub_print("pchase.l2.raw", c, "cycles");
    }
    std::free(img);
    UB_CHECK(cudaFree(d));
  }
  if (ub_selected(argc, argv, "dram")) {
    const size_t stride = 32768;
    const int nodes = 2 * (kChase + 1);
    size_t bytes = size_t(l2) * 4;
    if (bytes < size_t(nodes) * stride * 2) bytes = size_t(nodes) * stride * 2;
    unsigned long long* d;
    UB_CHECK(cudaMalloc(&d, bytes));
    unsigned long long* img = (unsigned long long*)std::calloc(bytes, 1);
    build_chain(img, (unsigned long long)d, 0, stride, nodes, false);
    double c = chase<1>(d, bytes, img, 1, dt, sink);
    ub_print("pchase.dram", c / kChase, "cycles");
    ub_print("pchase.dram.raw", c, "cycles");
    std::free(img);
    UB_CHECK(cudaFree(d));
  }
  if (ub_selected(argc, argv, "smem_lat")) {
    k_smem_lat<<<1, 32>>>(dt, (unsigned*)sink);
    UB_CHECK(cudaGetLastError());
    long long d = 0;
    UB_CHECK(cudaMemcpy(&d, dt, sizeof d, cudaMemcpyDeviceToHost));
    ub_print("smem.latency", double(d) / kChase, "cycles");
    ub_print("smem.latency.raw", double(d), "cycles");
  }
  if (ub_selected(argc, argv, "smem_bw")) {
    int threads = prop.maxThreadsPerMultiProcessor < 1024 ? prop.maxThreadsPerMultiProcessor : 1024;
    threads -= threads % 32;
    k_smem_bw<<<1, threads>>>(dt, (unsigned*)sink);
    UB_CHECK(cudaGetLastError());
    const int warps = threads / 32;
    long long t[2 * 64];
    UB_CHECK(cudaMemcpy(t, dt, 2 * warps * sizeof(long long), cudaMemcpyDeviceToHost));
    long long lo = t[0], hi = t[1];
    for (int w = 1; w < warps; ++w) {
      if (t[2 * w] < lo) lo = t[2 * w];
      if (t[2 * w + 1] > hi) hi = t[2 * w + 1];
    }
    const double bytes = double(threads) * kBwLoads * 4;
    ub_print("smem.bandwidth", bytes / double(hi - lo), "B/cycle/SM");
    ub_print("smem.bandwidth.cycles", double(hi - lo), "cycles");
  }
  return 0;
}
