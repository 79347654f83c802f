// CTA barriers (PTX ISA 9.7.13.x): bar.sync / barrier.sync with every warp, barriers in loops
// (shared-memory tree reduction), bar.red.popc/.and/.or (both spellings), named barriers with
// thread counts, and bar.arrive producer/consumer pairs.
#include "tests/unit/func/op_test_util.h"

namespace simtlab::testing {
namespace {

TEST(Barrier, SyncMakesOtherWarpsStoresVisible) {
  for (const char* bar :
       {"bar.sync 0;", "barrier.sync 0;", "barrier.sync.aligned 0;", "bar.sync 0, 256;"}) {
    SCOPED_TRACE(bar);
    PtxRunner r(ptx_module(fmt::format(R"(
.visible .entry k(.param .u64 pout) {{
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b8 sh[1024];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u64 %rd1, sh;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  mad.lo.u32 %r3, %r2, 7919, %r1;
  st.shared.u32 [%rd3], %r3;
  {}
  add.u32 %r4, %r1, 97;
  and.b32 %r4, %r4, 255;
  mul.wide.u32 %rd4, %r4, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.shared.u32 %r5, [%rd5];
  {}
  st.shared.u32 [%rd3], %r1;
  ld.param.u64 %rd6, [pout];
  mad.lo.u32 %r6, %r2, 256, %r1;
  mul.wide.u32 %rd7, %r6, 4;
  add.u64 %rd6, %rd6, %rd7;
  st.global.u32 [%rd6], %r5;
  ret;
}})",
                                       bar, bar)));
    Addr out = r.upload(std::vector<uint32_t>(512, 0));
    r.launch("k", {2, 1, 1}, {256, 1, 1}, 0, out);
    auto v = r.download<uint32_t>(out, 512);
    for (uint32_t c = 0; c < 2; ++c)
      for (uint32_t t = 0; t < 256; ++t)
        EXPECT_EQ(v[c * 256 + t], c * 7919 + (t + 97) % 256) << c << " " << t;
  }
}

TEST(Barrier, TreeReductionWithBarriersInALoop) {
  PtxRunner r(ptx_module(R"(
.visible .entry red(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 8 .b8 sh[4096];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd1, %r4, 8;
  ld.param.u64 %rd2, [pin];
  add.u64 %rd2, %rd2, %rd1;
  ld.global.u64 %rd3, [%rd2];
  mov.u64 %rd4, sh;
  mul.wide.u32 %rd5, %r1, 8;
  add.u64 %rd6, %rd4, %rd5;
  st.shared.u64 [%rd6], %rd3;
  bar.sync 0;
  shr.u32 %r5, %r3, 1;
LOOP:
  setp.eq.u32 %p1, %r5, 0;
  @%p1 bra DONE;
  setp.ge.u32 %p2, %r1, %r5;
  @%p2 bra SKIP;
  add.u32 %r6, %r1, %r5;
  mul.wide.u32 %rd7, %r6, 8;
  add.u64 %rd8, %rd4, %rd7;
  ld.shared.u64 %rd9, [%rd8];
  ld.shared.u64 %rd10, [%rd6];
  add.u64 %rd10, %rd10, %rd9;
  st.shared.u64 [%rd6], %rd10;
SKIP:
  bar.sync 0;
  shr.u32 %r5, %r5, 1;
  bra LOOP;
DONE:
  setp.ne.u32 %p3, %r1, 0;
  @%p3 ret;
  ld.shared.u64 %rd11, [sh];
  ld.param.u64 %rd12, [pout];
  mul.wide.u32 %rd13, %r2, 8;
  add.u64 %rd12, %rd12, %rd13;
  st.global.u64 [%rd12], %rd11;
  ret;
})"));
  const uint32_t block = 512, grid = 3;
  std::vector<uint64_t> in(block * grid);
  std::mt19937_64 rng(1);
  for (auto& x : in) x = rng() >> 8;
  Addr pin = r.upload(in), pout = r.upload(std::vector<uint64_t>(grid, 0));
  r.launch("red", {grid, 1, 1}, {block, 1, 1}, 0, pin, pout);
  auto v = r.download<uint64_t>(pout, grid);
  for (uint32_t c = 0; c < grid; ++c) {
    uint64_t s = 0;
    for (uint32_t t = 0; t < block; ++t) s += in[c * block + t];
    EXPECT_EQ(v[c], s) << c;
  }
}

TEST(Barrier, BarRedPopcAndOr) {
  for (bool new_spelling : {false, true}) {
    SCOPED_TRACE(new_spelling);
    const char* popc = new_spelling ? "barrier.red.popc.u32" : "bar.red.popc.u32";
    const char* andp = new_spelling ? "barrier.red.and.pred" : "bar.red.and.pred";
    const char* orp = new_spelling ? "barrier.red.or.pred" : "bar.red.or.pred";
    PtxRunner r(ptx_module(fmt::format(R"(
.visible .entry k(.param .u64 pin, .param .u64 pout) {{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd1, %r4, 4;
  ld.param.u64 %rd2, [pin];
  add.u64 %rd2, %rd2, %rd1;
  ld.global.u32 %r5, [%rd2];
  and.b32 %r6, %r5, 1;
  setp.ne.u32 %p1, %r6, 0;
  and.b32 %r7, %r5, 2;
  setp.ne.u32 %p2, %r7, 0;
  and.b32 %r8, %r5, 4;
  setp.ne.u32 %p3, %r8, 0;
  {} %r9, 0, %p1;
  {} %p4, 1, %p2;
  {} %p5, 2, !%p3;
  {} %r10, 3, %r3, !%p1;
  selp.u32 %r11, 1, 0, %p4;
  selp.u32 %r12, 2, 0, %p5;
  or.b32 %r11, %r11, %r12;
  ld.param.u64 %rd3, [pout];
  mul.wide.u32 %rd4, %r4, 12;
  add.u64 %rd3, %rd3, %rd4;
  st.global.u32 [%rd3], %r9;
  st.global.u32 [%rd3+4], %r11;
  st.global.u32 [%rd3+8], %r10;
  ret;
}})",
                                       popc, andp, orp, popc)));
    const uint32_t block = 160, grid = 4, nt = block * grid;
    std::vector<uint32_t> in(nt);
    std::mt19937 rng(2);
    for (uint32_t i = 0; i < nt; ++i) {
      const uint32_t c = i / block;
      // CTA 0: bit 1 everywhere (and = true); CTA 1: bit 2 everywhere (or of !bit2 = false).
      in[i] = rng() & 7;
      if (c == 0) in[i] |= 2;
      if (c == 1) in[i] |= 4;
      if (c == 2) in[i] &= ~1u;
    }
    Addr pin = r.upload(in), pout = r.upload(std::vector<uint32_t>(nt * 3, 0xeeee));
    r.launch("k", {grid, 1, 1}, {block, 1, 1}, 0, pin, pout);
    auto v = r.download<uint32_t>(pout, nt * 3);
    for (uint32_t c = 0; c < grid; ++c) {
      uint32_t pop = 0, npop = 0;
      bool all2 = true, any_not4 = false;
      for (uint32_t t = 0; t < block; ++t) {
        const uint32_t x = in[c * block + t];
        pop += x & 1;
        npop += !(x & 1);
        all2 = all2 && (x & 2);
        any_not4 = any_not4 || !(x & 4);
      }
      for (uint32_t t = 0; t < block; ++t) {
        const uint32_t* f = &v[(c * block + t) * 3];
        EXPECT_EQ(f[0], pop) << "cta " << c << " thread " << t;
        EXPECT_EQ(f[1], (all2 ? 1u : 0u) | (any_not4 ? 2u : 0u)) << "cta " << c << " thread " << t;
        EXPECT_EQ(f[2], npop) << "cta " << c << " thread " << t;
      }
    }
  }
}

TEST(Barrier, NamedBarriersWithCountsAndArrive) {
  // Warps 0-1 (producers) write data then bar.arrive on barrier 1 (count 128); warps 2-3
  // (consumers) bar.sync on barrier 1 and read it. Independently, warps 0 and 2 meet at barrier
  // 2 (count 64) and warps 1 and 3 at barrier 3 (count 64) to swap values.
  PtxRunner r(ptx_module(R"(
.visible .entry k(.param .u64 pout) {
  .reg .pred %p<8>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b8 data[256];
  .shared .align 4 .b8 swap[512];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mov.u64 %rd1, data;
  mov.u64 %rd2, swap;
  mul.wide.u32 %rd3, %r1, 4;
  setp.lt.u32 %p1, %r2, 2;
  @!%p1 bra CONSUMER;
  mul.lo.u32 %r4, %r1, %r1;
  add.u64 %rd4, %rd1, %rd3;
  st.shared.u32 [%rd4], %r4;
  bar.arrive 1, 128;
  mov.u32 %r5, 0;
  bra PAIRS;
CONSUMER:
  bar.sync 1, 128;
  sub.u32 %r6, %r1, 64;
  xor.b32 %r6, %r6, 1;
  mul.wide.u32 %rd5, %r6, 4;
  add.u64 %rd6, %rd1, %rd5;
  ld.shared.u32 %r5, [%rd6];
PAIRS:
  add.u64 %rd7, %rd2, %rd3;
  add.u32 %r7, %r1, 5000;
  st.shared.u32 [%rd7], %r7;
  and.b32 %r8, %r2, 1;
  setp.eq.u32 %p2, %r8, 0;
  @%p2 bar.sync 2, 64;
  @!%p2 barrier.sync 3, 64;
  xor.b32 %r9, %r1, 64;
  mul.wide.u32 %rd8, %r9, 4;
  add.u64 %rd9, %rd2, %rd8;
  ld.shared.u32 %r10, [%rd9];
  ld.param.u64 %rd10, [pout];
  mul.wide.u32 %rd11, %r1, 8;
  add.u64 %rd10, %rd10, %rd11;
  st.global.v2.u32 [%rd10], {%r5, %r10};
  ret;
})"));
  Addr out = r.upload(std::vector<uint32_t>(256, 0));
  r.launch("k", {2, 1, 1}, {128, 1, 1}, 0, out);
  auto v = r.download<uint32_t>(out, 256);
  for (uint32_t t = 0; t < 128; ++t) {
    const uint32_t prod = (t - 64) ^ 1;
    EXPECT_EQ(v[2 * t], t < 64 ? 0 : prod * prod) << t;
    EXPECT_EQ(v[2 * t + 1], (t ^ 64) + 5000) << t;
  }
}

TEST(Barrier, BarrierInsideCalledFunction) {
  // __syncthreads() in a non-inlined device function: every warp reaches it through a call,
  // some warps through a different call site.
  PtxRunner r(ptx_module(R"(
.shared .align 4 .b8 sh[1024];
.func (.param .b32 r) exchange(.param .b32 t, .param .b32 v) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.b32 %r1, [t];
  ld.param.b32 %r2, [v];
  mov.u64 %rd1, sh;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.shared.u32 [%rd3], %r2;
  bar.sync 0;
  xor.b32 %r3, %r1, 255;
  mul.wide.u32 %rd4, %r3, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.shared.u32 %r4, [%rd5];
  bar.sync 0;
  st.param.b32 [r], %r4;
  ret;
}
.visible .entry k(.param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 3;
  setp.lt.u32 %p1, %r1, 128;
  @%p1 bra LOW;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 a1;
    st.param.b32 [a1], %r2;
    .param .b32 r0;
    call (r0), exchange, (a0, a1);
    ld.param.b32 %r3, [r0];
  }
  bra OUT;
LOW:
  add.u32 %r2, %r2, 1;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 a1;
    st.param.b32 [a1], %r2;
    .param .b32 r0;
    call (r0), exchange, (a0, a1);
    ld.param.b32 %r3, [r0];
  }
OUT:
  ld.param.u64 %rd1, [pout];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r3;
  ret;
})"));
  Addr out = r.upload(std::vector<uint32_t>(256, 0));
  r.launch("k", {2, 1, 1}, {256, 1, 1}, 0, out);
  auto v = r.download<uint32_t>(out, 256);
  for (uint32_t t = 0; t < 256; ++t) {
    const uint32_t src = t ^ 255;
    EXPECT_EQ(v[t], src * 3 + (src < 128 ? 1 : 0)) << t;
  }
}

TEST(Barrier, ExitedThreadsDoNotBlockABarrier) {
  // Whole warps and parts of warps exit before the barrier; the remaining threads complete it.
  PtxRunner r(ptx_module(R"(
.visible .entry k(.param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 sh[4];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 96;
  @%p1 exit;
  and.b32 %r2, %r1, 3;
  setp.eq.u32 %p2, %r2, 3;
  @%p2 exit;
  atom.shared.add.u32 %r3, [sh], 1;
  bar.sync 0;
  ld.shared.u32 %r4, [sh];
  ld.param.u64 %rd1, [pout];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r4;
  ret;
})"));
  Addr out = r.upload(std::vector<uint32_t>(160, 0));
  r.launch("k", {1, 1, 1}, {160, 1, 1}, 0, out);
  auto v = r.download<uint32_t>(out, 160);
  for (uint32_t t = 0; t < 160; ++t) EXPECT_EQ(v[t], (t < 96 && t % 4 != 3) ? 72u : 0u) << t;
}

}  // namespace
}  // namespace simtlab::testing
