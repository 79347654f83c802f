// pchase: pointer-chasing load-latency microbenchmark (run in timing mode).
//
// One thread follows a ring of NODES nodes placed STRIDE bytes apart: every load's address is
// the value the previous load returned, so the loads cannot overlap and the time per load is
// the load-to-use latency of whichever level of the memory hierarchy the ring lives in. Time
// is read on the device with clock64() (core cycles) around a chase of LOADS loads, after a
// warm-up lap that brings the ring into the caches it fits in; the cost of the clock reads
// themselves (an empty chase) is subtracted. Rings are written from the host (cudaMemcpy), so
// no kernel store leaves ring lines in a cache.
//
// Two kinds of ring:
//   ptr64  each node holds the 64-bit address of the next node: `p = *p`, nothing but the load
//          between two loads (strides >= 8 B)
//   idx32  each node holds the 32-bit byte offset of the next node: `off = *(base + off)`, one
//          mad.wide.u32 between two loads (adds one integer multiply-add latency; allows 4 B)
// Loads are written in inline PTX (ld.global.ca = cached in L1, ld.global.cg = L2 only) so the
// compiler can neither reorder them around the clock reads nor change their cache operator.
//
// Output (parsed by scripts/bench.sh):
//   sweep   a 256-node ring, ld.global.ca, strides 4 B..4 MB (footprints 1 KB..1 GB; the
//           buffer is reserved once, only the touched pages are ever written). With strides of
//           a line or more the ring touches 256 lines (32 KB at 128 B lines), more than a 16 KB
//           L1 holds, so it runs from the L2 - or from DRAM once large power-of-two strides
//           make the nodes collide in a few L1/L2 sets and DRAM banks.
//   probes  three rings aimed at one level each:
//     L1    32 nodes x 128 B = 4 KB, ld.global.ca, warm-up lap (fits any L1)
//     L2    1024 nodes x 128 B = 128 KB, ld.global.cg (bypasses L1), warm-up lap (fits an L2
//           of >= 128 KB)
//     DRAM  2048 nodes x 4160 B = 8.1 MB in a fresh buffer, ld.global.cg, no warm-up lap, after a
//           kernel that streams through 16 MB of other data to evict whatever the L2 holds;
//           the odd stride spreads the nodes over channels and banks (row misses)
// Functional mode runs too (clock64() is then 0 and every latency prints as 0).
//
// Self-check: after every chase the thread must stand on node (warm + loads) mod NODES.
//
// Build: nvcc -cudart shared -o pchase pchase.cu
// Run:   simtlab run --gpu fermi-gtx480 -- ./pchase [LAPS]   (measured laps per sweep point, default 1)
#include <cstring>
#include <vector>

#include "bench_common.h"

enum Kind { kPtr64 = 0, kIdx32 = 1 };
enum CacheOp { kCa = 0, kCg = 1 };

template <int OP>
__device__ __forceinline__ unsigned long long load_ptr(unsigned long long p) {
  unsigned long long v;
  if (OP == kCa) asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  else asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

template <int OP>
__device__ __forceinline__ unsigned load_idx(unsigned long long base, unsigned off) {
  unsigned long long a;
  unsigned v;
  asm volatile("mad.wide.u32 %0, %1, 1, %2;" : "=l"(a) : "r"(off), "l"(base));
  if (OP == kCa) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
  else asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
  return v;
}

// Consume `v` so that the next instruction (a clock read) cannot issue before v has arrived:
// warps issue in order and the add waits on the scoreboard for v.
__device__ __forceinline__ void wait_for(unsigned long long v) {
  asm volatile("{\n\t.reg .u64 t;\n\tadd.u64 t, %0, 1;\n\t}" : : "l"(v));
}

__device__ __forceinline__ long long clk() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}

// out[0] = cycles of the measured chase, out[1] = final position (address or offset).
// The same code runs twice: first `warm` loads (the warm-up lap, which also brings the timed
// code into the instruction cache), then the `loads` that are timed.
template <int KIND, int OP>
__global__ void chase(char* base, long long warm, long long loads, long long* out) {
  const unsigned long long b = (unsigned long long)base;
  unsigned long long p = b;  // ptr64 position
  unsigned off = 0;          // idx32 position
  long long cycles = 0;
#pragma unroll 1
  for (int rep = 0; rep < 2; ++rep) {
    const long long n = rep == 0 ? warm : loads;
    // The chain so far and the trip count must have arrived before the first clock read.
    wait_for((KIND == kPtr64 ? p : off) + (unsigned long long)n);
    const long long t0 = clk();
    for (long long i = 0; i < n; ++i) {
      if (KIND == kPtr64) p = load_ptr<OP>(p);
      else off = load_idx<OP>(b, off);
    }
    wait_for(KIND == kPtr64 ? p : off);
    cycles = clk() - t0;
  }
  out[0] = cycles;
  out[1] = KIND == kPtr64 ? (long long)(p - b) : (long long)off;
}

// Read 16-byte words of `buf` through the L2 (ld.global.cg), to evict the L2's contents.
__global__ void evict(const float4* buf, long long n, float* sink) {
  float acc = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    float4 v;
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(buf + i));
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 12345.0f) *sink = acc;  // never true (buf is zero); keeps the loads alive
}

struct Chaser {
  long long* dOut = nullptr;
  long long overhead = 0;  // cycles of an empty chase
  bool ok = true;

  // Write a ring of `nodes` nodes `stride` bytes apart at `base` from the host.
  bool build(char* base, int kind, int nodes, long long stride) {
    const bool dense = (long long)nodes * stride <= (64LL << 20);
    std::vector<unsigned char> img(dense ? (size_t)nodes * stride : 0);
    for (int k = 0; k < nodes; ++k) {
      const long long next = (long long)((k + 1) % nodes) * stride;
      unsigned long long p64 = (unsigned long long)(base + next);
      unsigned i32 = (unsigned)next;
      const void* src = kind == kPtr64 ? (const void*)&p64 : (const void*)&i32;
      const size_t sz = kind == kPtr64 ? 8 : 4;
      if (dense) memcpy(img.data() + (size_t)k * stride, src, sz);
      else if (cudaMemcpy(base + (long long)k * stride, src, sz, cudaMemcpyHostToDevice) != cudaSuccess) return false;
    }
    return !dense || cudaMemcpy(base, img.data(), img.size(), cudaMemcpyHostToDevice) == cudaSuccess;
  }

  // Cycles per load of a chase over the ring at `base` (built by build()); -1 on error.
  double run(char* base, int kind, int op, int nodes, long long stride, long long warm, long long loads) {
    if (kind == kPtr64 && op == kCa) chase<kPtr64, kCa><<<1, 1>>>(base, warm, loads, dOut);
    if (kind == kPtr64 && op == kCg) chase<kPtr64, kCg><<<1, 1>>>(base, warm, loads, dOut);
    if (kind == kIdx32 && op == kCa) chase<kIdx32, kCa><<<1, 1>>>(base, warm, loads, dOut);
    if (kind == kIdx32 && op == kCg) chase<kIdx32, kCg><<<1, 1>>>(base, warm, loads, dOut);
    long long h[2];
    if (cudaMemcpy(h, dOut, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) {
      printf("FAILED: chase kernel: %s\n", cudaGetErrorString(cudaGetLastError()));
      ok = false;
      return -1;
    }
    const long long expect = ((warm + loads) % nodes) * stride;
    if (h[1] != expect) {
      printf("FAILED: %s ring of %d nodes, stride %lld: ended at offset %lld, expected %lld\n",
             kind == kPtr64 ? "ptr64" : "idx32", nodes, stride, h[1], expect);
      ok = false;
      return -1;
    }
    return loads ? (double)(h[0] - overhead) / (double)loads : (double)h[0];
  }

  double measure(char* base, int kind, int op, int nodes, long long stride, long long warm, long long loads) {
    if (!build(base, kind, nodes, stride)) {
      printf("FAILED: cannot write a ring of %d nodes, stride %lld\n", nodes, stride);
      ok = false;
      return -1;
    }
    return run(base, kind, op, nodes, stride, warm, loads);
  }
};

static void print_bytes(char* buf, size_t n, long long b) {
  if (b >= (1LL << 20) && b % (1LL << 20) == 0) snprintf(buf, n, "%lld MB", b >> 20);
  else if (b >= 1024 && b % 1024 == 0) snprintf(buf, n, "%lld KB", b >> 10);
  else snprintf(buf, n, "%lld B", b);
}

int main(int argc, char** argv) {
  const long long laps = arg_or(argc, argv, 1, 1);
  const int sweepNodes = 256;
  const long long maxStride = 4LL << 20;

  Chaser c;
  char* sweepBuf;
  CUDA_CHECK(cudaMalloc(&sweepBuf, (size_t)sweepNodes * maxStride));
  CUDA_CHECK(cudaMalloc(&c.dOut, 2 * sizeof(long long)));

  // Cost of the clock reads around an empty chase (same kernel, zero loads).
  const double ovh = c.measure(sweepBuf, kPtr64, kCa, 1, 8, 0, 0);
  if (!c.ok) return 1;
  c.overhead = (long long)ovh;

  printf("pchase: cycles per dependent load from clock64() (core cycles; empty-chase overhead of %lld cycles subtracted)\n",
         c.overhead);
  printf("sweep: ring of %d nodes, ld.global.ca, 1 warm-up lap, %lld measured lap(s)\n", sweepNodes, laps);
  printf("  %10s %12s %12s %12s\n", "stride", "footprint", "ptr64_cyc", "idx32_cyc");
  for (long long s = 4; s <= maxStride; s *= 2) {
    const long long fp = s * sweepNodes;
    double p64 = -1, i32 = -1;
    if (s >= 8) p64 = c.measure(sweepBuf, kPtr64, kCa, sweepNodes, s, sweepNodes, laps * sweepNodes);
    if (s <= 8) i32 = c.measure(sweepBuf, kIdx32, kCa, sweepNodes, s, sweepNodes, laps * sweepNodes);
    if (!c.ok) return 1;
    char sb[32], fb[32], pb[32], ib[32];
    print_bytes(sb, sizeof sb, s);
    print_bytes(fb, sizeof fb, fp);
    if (p64 < 0) snprintf(pb, sizeof pb, "-");
    else snprintf(pb, sizeof pb, "%.2f", p64);
    if (i32 < 0) snprintf(ib, sizeof ib, "-");
    else snprintf(ib, sizeof ib, "%.2f", i32);
    printf("  %10s %12s %12s %12s   SWEEP %lld %lld %s %s\n", sb, fb, pb, ib, s, fp, p64 < 0 ? "nan" : pb,
           i32 < 0 ? "nan" : ib);
  }
  CUDA_CHECK(cudaFree(sweepBuf));

  printf("probes: ptr64 rings aimed at one level each\n");
  printf("  %-5s %-14s %8s %10s %6s %7s %11s\n", "level", "load", "stride", "footprint", "nodes", "loads", "cycles/load");
  auto report = [](const char* level, int op, long long stride, int nodes, long long loads, double cyc) {
    char sb[32], fb[32];
    print_bytes(sb, sizeof sb, stride);
    print_bytes(fb, sizeof fb, stride * nodes);
    printf("  %-5s %-14s %8s %10s %6d %7lld %11.2f   PROBE %s %.2f\n", level,
           op == kCa ? "ld.global.ca" : "ld.global.cg", sb, fb, nodes, loads, cyc, level, cyc);
  };
  char* probeBuf;
  CUDA_CHECK(cudaMalloc(&probeBuf, 1024 * 128));
  double cyc = c.measure(probeBuf, kPtr64, kCa, 32, 128, 32, 8 * 32);
  if (!c.ok) return 1;
  report("L1", kCa, 128, 32, 8 * 32, cyc);
  cyc = c.measure(probeBuf, kPtr64, kCg, 1024, 128, 1024, 1024);
  if (!c.ok) return 1;
  report("L2", kCg, 128, 1024, 1024, cyc);
  CUDA_CHECK(cudaFree(probeBuf));

  // DRAM: a ring in memory no kernel has touched, and 16 MB of other reads to push anything
  // else out of the L2 first.
  const int dramNodes = 2048;
  const long long dramStride = 4160;
  char* dramBuf;
  float4* evictBuf;
  float* sink;
  const long long evictBytes = 16LL << 20;
  CUDA_CHECK(cudaMalloc(&dramBuf, (size_t)dramNodes * dramStride));
  CUDA_CHECK(cudaMalloc(&evictBuf, evictBytes));
  CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
  if (!c.build(dramBuf, kPtr64, dramNodes, dramStride)) {
    printf("FAILED: cannot write the DRAM ring\n");
    return 1;
  }
  evict<<<240, 256>>>(evictBuf, evictBytes / 16, sink);
  CUDA_CHECK(cudaGetLastError());
  cyc = c.run(dramBuf, kPtr64, kCg, dramNodes, dramStride, 1, dramNodes);  // warm = 1: loop code into the I-cache
  if (!c.ok) return 1;
  report("DRAM", kCg, dramStride, dramNodes, dramNodes, cyc);
  CUDA_CHECK(cudaFree(dramBuf));
  CUDA_CHECK(cudaFree(evictBuf));
  CUDA_CHECK(cudaFree(sink));
  CUDA_CHECK(cudaFree(c.dOut));
  printf("PASSED\n");
  return 0;
}
