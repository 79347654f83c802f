// Baseline transfer regions (d2ma.xfer_regions, src/ext/d2ma/xfer.h): a software-tiling loop
// marked with the label simtlab_xfer_begin() emits (include/simtlab/xfer.h) on one SM with a
// fixed-latency memory: exact region counts, AGEN/MEM split, the all-warps-waiting cycles, the
// marker's absence of any effect on the run, and the group's absence when off.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

// Each thread copies one word per tile global -> register -> shared, the CTA synchronises,
// reads the word back and accumulates it, and synchronises again before the next tile. The
// marker precedes `first` (the tile's first global load, or with `shared_only` a shared load,
// i.e. a region without a global load). `addr_insts` extra address instructions sit between
// the marker and the load (the tile's address computation).
std::string kernel(bool marker, int addr_insts, bool shared_only = false, bool twice = false) {
  std::string addr;
  for (int i = 0; i < addr_insts; ++i) addr += "  add.s64 %rd6, %rd6, 0;\n";
  // The tile body, twice per trip with `twice` (an unrolled loop: the marker label repeats).
  std::string body =
      fmt::format(R"(  mov.u64 %rd6, %rd4;
{}{}  {}
  st.shared.u32 [%r4], %r6;
  bar.sync 0;
  ld.shared.u32 %r7, [%r4];
  add.s32 %r10, %r10, %r7;
  bar.sync 0;
  add.s64 %rd4, %rd4, 4096;
)",
                  marker ? "  {\n__simtlab_xfer_begin:\n  }\n" : "", addr,
                  shared_only ? "ld.shared.u32 %r6, [%r4];" : "ld.global.u32 %r6, [%rd6];");
  if (twice) body += body;
  return fmt::format(R"(.version 9.0
.target sm_75
.address_size 64
.shared .align 4 .b8 buf[4096];
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 tiles) {{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r9, [tiles];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.s32 %r4, %r3, %r2;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r5, 0;
  mov.u32 %r10, 0;
LOOP:
{}  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p1, %r5, %r9;
  @%p1 bra LOOP;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r10;
  ret;
}}
)",
                     body);
}

struct XRun {
  std::vector<uint32_t> out;
  nlohmann::json xfer;
  uint64_t cycles = 0, warp_insts = 0;
  nlohmann::json trace;  // trace events (with `traced`)
};

XRun run(bool marker, std::vector<std::string> more, uint32_t threads, uint32_t ctas,
         uint32_t tiles, int addr_insts = 0, bool shared_only = false, bool twice = false,
         bool traced = false) {
  std::vector<std::string> s = {"gpu.num_sms=1", "sm.l1i_perfect=true", "sim.memory_model=fixed",
                                "sim.fixed_memory_latency=100",
                                // skipping idle cycles with the fixed memory stalls the run
                                // (a known bug, docs/results/d2ma.md); policies never skip
                                "sm.skip_idle_cycles=false"};
  s.insert(s.end(), more.begin(), more.end());
  TimingRunner r(timing_params(s));
  r.load(kernel(marker, addr_insts, shared_only, twice));
  std::vector<uint32_t> in((twice ? 2 : 1) * tiles * 1024);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i % 1024 + 7 * (i / 1024);
  const Addr a = r.upload(in), o = r.upload(std::vector<uint32_t>(threads, 0));
  if (traced) r.gpu().enable_trace(0, UINT64_MAX);
  r.launch("k", {ctas, 1, 1}, {threads, 1, 1}, a, o, tiles);
  XRun x{r.download<uint32_t>(o, threads), nlohmann::json(), r.last.cycles, r.sm0("warp_insts"),
         nlohmann::json()};
  if (r.stats["sm[0]"].contains("xfer")) x.xfer = r.stats["sm[0]"]["xfer"];
  if (r.stats.contains("trace_events")) x.trace = r.stats["trace_events"];
  return x;
}
uint64_t v(const XRun& r, const char* k) { return r.xfer[k]["value"].get<uint64_t>(); }

TEST(D2maXfer, MarkerIsNoInstructionAndOffHasNoGroup) {
  // The label adds no instruction; measuring changes nothing in the run.
  const XRun plain = run(false, {}, 64, 2, 3);
  const XRun marked = run(true, {}, 64, 2, 3);
  const XRun on = run(true, {"d2ma.xfer_regions=true"}, 64, 2, 3);
  EXPECT_TRUE(plain.xfer.is_null());
  EXPECT_TRUE(marked.xfer.is_null());
  EXPECT_FALSE(on.xfer.is_null());
  EXPECT_EQ(marked.cycles, plain.cycles);
  EXPECT_EQ(marked.warp_insts, plain.warp_insts);
  EXPECT_EQ(on.cycles, plain.cycles);
  EXPECT_EQ(on.warp_insts, plain.warp_insts);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(on.out[t], 3 * t + 7 * 3) << t;
}

TEST(D2maXfer, OneRegionPerCtaAndTile) {
  // 2 CTAs x 3 tiles: 6 regions, each closed by its own first barrier's release (the second
  // barrier of a trip is outside the region).
  const XRun x = run(true, {"d2ma.xfer_regions=true"}, 64, 2, 3);
  EXPECT_EQ(v(x, "regions"), 6u);
  EXPECT_EQ(v(x, "regions_without_loads"), 0u);
  EXPECT_EQ(v(x, "transfer_cycles"), v(x, "agen_cycles") + v(x, "mem_cycles"));
  // Without a marker nothing is measured.
  const XRun y = run(false, {"d2ma.xfer_regions=true"}, 64, 2, 3);
  EXPECT_EQ(v(y, "regions"), 0u);
  EXPECT_EQ(v(y, "transfer_cycles"), 0u);
}

TEST(D2maXfer, RepeatedMarkerLabelsAreEachARegion) {
  // The loop body twice per trip (as unrolling leaves it): the label appears twice in the
  // function, each copy marks its own tile; 2 CTAs x 2 trips x 2 tiles = 8 regions.
  const XRun x = run(true, {"d2ma.xfer_regions=true"}, 64, 2, 2, 0, false, true);
  EXPECT_EQ(v(x, "regions"), 8u);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(x.out[t], 4 * t + 7 * (0 + 1 + 2 + 3)) << t;
}

TEST(D2maXfer, AgenIsMarkerToLastLoadAndMemHoldsTheLatency) {
  // One warp, one tile, the marker on the load itself: AGEN 0; MEM = load issue -> barrier
  // release, which contains the memory latency exactly once (+200 cycles at 300 vs 100).
  const XRun a = run(true, {"d2ma.xfer_regions=true"}, 32, 1, 1);
  const XRun b = run(true, {"d2ma.xfer_regions=true", "sim.fixed_memory_latency=300"}, 32, 1, 1);
  EXPECT_EQ(v(a, "regions"), 1u);
  EXPECT_EQ(v(a, "agen_cycles"), 0u);
  EXPECT_EQ(v(b, "agen_cycles"), 0u);
  EXPECT_EQ(v(b, "mem_cycles"), v(a, "mem_cycles") + 200);
  // Four dependent address instructions between the marker and the load: AGEN grows by the
  // cycles they take (each waits for the previous result: the ALU latency + issue), MEM does
  // not change.
  const XRun c = run(true, {"d2ma.xfer_regions=true"}, 32, 1, 1, 4);
  const XRun d = run(false, {}, 32, 1, 1, 4);
  EXPECT_EQ(v(c, "mem_cycles"), v(a, "mem_cycles"));
  EXPECT_EQ(v(c, "agen_cycles"), d.cycles - run(false, {}, 32, 1, 1, 0).cycles);
  // A region with no global load: counted apart, its whole time is MEM.
  const XRun s = run(true, {"d2ma.xfer_regions=true"}, 32, 1, 1, 0, true);
  EXPECT_EQ(v(s, "regions_without_loads"), 1u);
  EXPECT_EQ(v(s, "agen_cycles"), 0u);
  EXPECT_EQ(v(s, "mem_cycles"), v(s, "transfer_cycles"));
}

TEST(D2maXfer, AllWaitCountsIdleCyclesWithEveryWarpInARegion) {
  // One warp: between the marker's issue (the load) and the first issue after the release, the
  // warp issues the load, the shared store and the barrier; every other cycle of the region
  // nothing issues and the only warp is inside it.
  const XRun a = run(true, {"d2ma.xfer_regions=true"}, 32, 1, 1);
  EXPECT_EQ(v(a, "all_wait_cycles"), v(a, "transfer_cycles") - 3);
  // Three tiles: the same per tile (no cycle outside the regions counts).
  const XRun b = run(true, {"d2ma.xfer_regions=true"}, 32, 1, 3);
  EXPECT_EQ(v(b, "regions"), 3u);
  EXPECT_EQ(v(b, "all_wait_cycles"), v(b, "transfer_cycles") - 3 * 3);
}

TEST(D2maXfer, TraceHasAgenMemAndComputeSlicesPerCta) {
  // One warp, 3 tiles, 4 address instructions before each load: per region an "agen" and a
  // "mem" slice whose lengths add up to the stats, and between two regions of the CTA a
  // "compute" slice from the release to the next marker, on the track "Xfer CTA slot 0".
  const XRun x = run(true, {"d2ma.xfer_regions=true"}, 32, 1, 3, 4, false, false, true);
  std::vector<std::tuple<std::string, uint64_t, uint64_t>> sl;  // name, ts, end
  bool named = false;
  for (const auto& e : x.trace) {
    if (e.value("cat", "") == "xfer")
      sl.push_back(
          {e["name"], e["ts"].get<uint64_t>(), e["ts"].get<uint64_t>() + e["dur"].get<uint64_t>()});
    if (e.value("name", "") == "thread_name" && e["args"]["name"] == "Xfer CTA slot 0")
      named = true;
  }
  EXPECT_TRUE(named);
  ASSERT_EQ(sl.size(), 8u);  // agen mem compute agen mem compute agen mem
  uint64_t agen = 0, mem = 0;
  for (size_t i = 0; i < sl.size(); ++i) {
    const auto& [name, b, e] = sl[i];
    const char* want = i % 3 == 0 ? "agen" : i % 3 == 1 ? "mem" : "compute";
    EXPECT_EQ(name, want) << i;
    if (i) {
      EXPECT_EQ(b, std::get<2>(sl[i - 1])) << i;  // back to back
    }
    if (i % 3 == 0) agen += e - b;
    if (i % 3 == 1) mem += e - b;
  }
  EXPECT_EQ(agen, v(x, "agen_cycles"));
  EXPECT_EQ(mem, v(x, "mem_cycles"));
  // Off: no xfer slices (the trace has its other tracks).
  const XRun y = run(true, {}, 32, 1, 3, 4, false, false, true);
  for (const auto& e : y.trace) EXPECT_NE(e.value("cat", ""), "xfer");
  EXPECT_FALSE(y.trace.empty());
}

}  // namespace
}  // namespace simtlab::testing
