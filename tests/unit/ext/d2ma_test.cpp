// D2MA (src/ext/d2ma): the AGEN's exact request plans (unit stride, strided, 2D, bank-conflict
// padding, halo frame) and the engine on an SM: exact AGEN/MEM cycles against a fixed-latency
// memory, the RAW squash and release, and the fallback body running when the engine is off.
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "ext/d2ma/d2ma.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

using ext::d2ma::Desc;
using ext::d2ma::plan_transfer;

TEST(D2maPlan, UnitStrideIsOneSegmentPerCycle) {
  Desc d;
  d.sbase = 0x40;
  d.gbase = 0x1000;
  d.n = 128;  // 512 B, block aligned: 4 requests, whole blocks
  const auto p = plan_transfer(d, 128);
  ASSERT_EQ(p.reqs.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p.reqs[i].block, 0x1000u + 128 * i);
    EXPECT_EQ(p.reqs[i].cost, 1u);
    EXPECT_EQ(p.reqs[i].sectors, 0xfu);
    ASSERT_EQ(p.reqs[i].pieces.size(), 1u);
    EXPECT_EQ(p.reqs[i].pieces[0].soff, 0x40u + 128 * i);
    EXPECT_EQ(p.reqs[i].pieces[0].size, 128u);
  }
  EXPECT_EQ(p.footprint, 512u);
  // Misaligned by 8 B: 5 segments, the first 120 B and the last 8 B (sector 0 only).
  d.gbase = 0x1008;
  const auto q = plan_transfer(d, 128);
  ASSERT_EQ(q.reqs.size(), 5u);
  EXPECT_EQ(q.reqs[0].pieces[0].size, 120u);
  EXPECT_EQ(q.reqs[4].pieces[0].size, 8u);
  EXPECT_EQ(q.reqs[4].sectors, 0x1u);
  // 32-byte segments: 16 requests, each one sector.
  d.gbase = 0x1000;
  const auto r = plan_transfer(d, 32);
  ASSERT_EQ(r.reqs.size(), 16u);
  EXPECT_EQ(r.reqs[5].block, 0x1080u);
  EXPECT_EQ(r.reqs[5].sectors, 0x2u);
}

TEST(D2maPlan, StridedExaminesOneElementPerCycle) {
  Desc d;
  d.gbase = 0x2000;
  d.n = 64;
  d.stride = 2;  // 64 ints 8 B apart: 4 blocks of 16 useful elements
  const auto p = plan_transfer(d, 128);
  ASSERT_EQ(p.reqs.size(), 4u);
  for (const auto& r : p.reqs) {
    EXPECT_EQ(r.cost, 16u);
    EXPECT_EQ(r.pieces.size(), 16u);  // scattered: packed densely in shared memory
  }
  EXPECT_EQ(p.reqs[1].pieces[3].goff, 24u);
  EXPECT_EQ(p.reqs[1].pieces[3].soff, 4u * 19);
  // A stride of one block: every element is its own request, one cycle each.
  d.n = 8;
  d.stride = 32;
  const auto q = plan_transfer(d, 128);
  ASSERT_EQ(q.reqs.size(), 8u);
  for (const auto& r : q.reqs) EXPECT_EQ(r.cost, 1u);
}

TEST(D2maPlan, MatrixRowsAndBankConflictPadding) {
  Desc d;
  d.gbase = 0x4000;
  d.n = 4;        // rows
  d.cols = 16;    // 64 B per row
  d.stride = 64;  // ld: rows 256 B apart
  const auto p = plan_transfer(d, 128);
  ASSERT_EQ(p.reqs.size(), 4u);  // one request per row
  EXPECT_EQ(p.reqs[2].block, 0x4200u);
  EXPECT_EQ(p.reqs[2].pieces[0].soff, 2u * 64);
  // Bank-conflict mode, n = 16 per row: element (r, c) at (r * 17 + c) * 4 (tile[..][17]).
  d.mode = 1;
  d.n_or_hr = 16;
  const auto q = plan_transfer(d, 128);
  ASSERT_EQ(q.reqs.size(), 4u);
  EXPECT_EQ(q.reqs[3].pieces.size(), 1u);  // a row stays contiguous
  EXPECT_EQ(q.reqs[3].pieces[0].soff, 3u * 17 * 4);
  EXPECT_EQ(q.footprint, (3u * 17 + 16) * 4);
  EXPECT_EQ(q.paper_bytes, 4u * 16 * 4);
}

TEST(D2maPlan, HaloFrameFillsTheClippedSides) {
  Desc d;
  d.gbase = 0x10000;
  d.n = 4;
  d.cols = 4;
  d.stride = 64;
  d.mode = 2;
  d.n_or_hr = 1;
  d.hc = 1;
  d.region = 1;  // top-left: top row and left column take the constant
  const auto p = plan_transfer(d, 128);
  // 6x6 frame: row 0 (6 cells) and column 0 of rows 1..5 (5 cells) are constant.
  EXPECT_EQ(p.fills.size(), 11u);
  ASSERT_EQ(p.reqs.size(), 5u);  // rows 1..5, 5 elements each (cols 1..5)
  EXPECT_EQ(p.reqs[0].pieces[0].soff, (1u * 6 + 1) * 4);
  EXPECT_EQ(p.reqs[0].pieces[0].size, 20u);
  EXPECT_EQ(p.reqs[0].block + p.reqs[0].pieces[0].goff, 0x10000u);
  EXPECT_EQ(p.footprint, 36u * 4);
  EXPECT_EQ(p.paper_bytes, 16u * 4);
  // Interior (9): no constants, 6 rows of 6 elements from the neighbours.
  d.region = 9;
  const auto q = plan_transfer(d, 128);
  EXPECT_EQ(q.fills.size(), 0u);
  // Every frame row starts one element before a block boundary (gbase + gr * 256 - 4) and
  // spans 24 B: two requests per row.
  ASSERT_EQ(q.reqs.size(), 12u);
  d.region = 7;  // bottom: the last frame row is constant
  EXPECT_EQ(plan_transfer(d, 128).fills.size(), 6u);
}

// One warp configures a buffer of `n` floats (32-bit elements), stride `stride`, then each lane
// reads element lane of it and stores it. The stub's body is empty: the data can only come
// from the engine.
std::string kernel(uint32_t n, uint32_t stride, bool loads = false) {
  return fmt::format(R"(.version 9.0
.target sm_75
.address_size 64
.shared .align 8 .b8 buf[4096];
.func __d2ma_set_datatype(.param .b32 a) {{
  ret;
}}
.func __d2ma_configure(.param .b32 a, .param .b64 b, .param .b32 c, .param .b32 d,
                       .param .b32 e, .param .b32 f) {{
  ret;
}}
.visible .entry k(.param .u64 in, .param .u64 out) {{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, buf;
  mov.u32 %r2, {};
  mov.u32 %r3, 0;
  mov.u32 %r4, {};
  mov.u32 %r7, 4;
  {{
  .param .b32 p0;
  st.param.b32 [p0+0], %r7;
  call.uni __d2ma_set_datatype, (p0);
  }}
  {{
  .param .b32 p0;
  st.param.b32 [p0+0], %r1;
  .param .b64 p1;
  st.param.b64 [p1+0], %rd1;
  .param .b32 p2;
  st.param.b32 [p2+0], %r2;
  .param .b32 p3;
  st.param.b32 [p3+0], %r3;
  .param .b32 p4;
  st.param.b32 [p4+0], %r4;
  .param .b32 p5;
  st.param.b32 [p5+0], %r3;
  call.uni __d2ma_configure, (p0, p1, p2, p3, p4, p5);
  }}
  mov.u32 %r5, %tid.x;
{}  shl.b32 %r6, %r5, 2;
  add.s32 %r8, %r1, %r6;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r9;
  ret;
}}
)",
                     n, stride,
                     loads ? R"(  mul.wide.u32 %rd5, %r5, 128;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.u32 %r10, [%rd6];
  ld.global.u32 %r11, [%rd6+4096];
  ld.global.u32 %r10, [%rd6+8192];
  ld.global.u32 %r11, [%rd6+12288];
)"
                           : "");
}

struct DRun {
  std::vector<uint32_t> out;
  nlohmann::json d2ma;
  uint64_t cycles = 0;
};

DRun run(uint32_t n, uint32_t stride, std::vector<std::string> more, uint32_t threads = 32,
         bool loads = false) {
  std::vector<std::string> s = {"gpu.num_sms=1", "sm.l1i_perfect=true", "sim.memory_model=fixed",
                                "sim.fixed_memory_latency=100"};
  s.insert(s.end(), more.begin(), more.end());
  TimingRunner r(timing_params(s));
  r.load(kernel(n, stride, loads));
  std::vector<uint32_t> in(loads ? std::max<size_t>(n * stride, 4096) : n * stride);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i * 3 + 1;
  Addr a = r.upload(in), o = r.upload(std::vector<uint32_t>(threads, 0));
  r.launch("k", {1, 1, 1}, {threads, 1, 1}, a, o);
  DRun x{r.download<uint32_t>(o, threads), nlohmann::json(), r.last.cycles};
  if (r.stats["sm[0]"].contains("d2ma")) x.d2ma = r.stats["sm[0]"]["d2ma"];
  return x;
}
uint64_t v(const DRun& r, const char* k) { return r.d2ma[k]["value"].get<uint64_t>(); }

TEST(D2maSm, UnitStrideAgenAndMemCyclesAndRawRelease) {
  const DRun x = run(128, 1, {"d2ma.enable=true"});
  for (uint32_t l = 0; l < 32; ++l) ASSERT_EQ(x.out[l], l * 3 + 1) << "lane " << l;
  EXPECT_EQ(v(x, "transfers"), 1u);
  EXPECT_EQ(v(x, "requests"), 4u);
  EXPECT_EQ(v(x, "bytes"), 512u);
  EXPECT_EQ(v(x, "l1_fills_avoided"), 512u);
  // Ignited at issue in cycle t; the AGEN's first request leaves at t + 1 and one per cycle
  // after it; the last of 4 answers 100 cycles after it left: MEM = 3 + 100.
  EXPECT_EQ(v(x, "agen_cycles"), 1u);
  EXPECT_EQ(v(x, "mem_cycles"), 103u);
  EXPECT_EQ(v(x, "agen_busy_cycles"), 4u);
  EXPECT_EQ(v(x, "agen_span_cycles"), 4u);  // ignition -> the last request (t + 4)
  // The warp's shared load reached issue while the buffer was in flight: squashed once,
  // released once when the transfer completed, then it read the data.
  EXPECT_EQ(v(x, "raw_squashes"), 1u);
  EXPECT_EQ(v(x, "releases"), 1u);
  EXPECT_EQ(v(x, "ignitions"), 1u);
  EXPECT_EQ(v(x, "intrinsic_calls"), 2u);
}

TEST(D2maSm, RequestsTakeL1dMshrsAndWaitWhenNoneIsFree) {
  // Two L1D MSHRs: requests 1 and 2 leave at t + 1 and t + 2; the AGEN then finds no MSHR
  // for 98 cycles (t + 3 .. t + 100); the first answer (t + 101) frees one: request 3 leaves
  // at t + 101, request 4 at t + 102 and answers at t + 202: MEM = 202 - 1.
  const DRun x = run(128, 1, {"d2ma.enable=true", "sm.l1d.mshrs=2"});
  for (uint32_t l = 0; l < 32; ++l) ASSERT_EQ(x.out[l], l * 3 + 1) << "lane " << l;
  EXPECT_EQ(v(x, "agen_cycles"), 1u);
  EXPECT_EQ(v(x, "mshr_full"), 98u);
  EXPECT_EQ(v(x, "mem_cycles"), 201u);
  EXPECT_EQ(v(x, "agen_busy_cycles"), 102u);
  EXPECT_EQ(v(x, "agen_span_cycles"), 102u);
  // infinite_mshrs: the engine ignores the budget (the Fig. 1 experiment's engine side).
  const DRun y = run(128, 1, {"d2ma.enable=true", "sm.l1d.mshrs=2", "d2ma.infinite_mshrs=true"});
  EXPECT_EQ(v(y, "mshr_full"), 0u);
  EXPECT_EQ(v(y, "mem_cycles"), 103u);
}

TEST(D2maSm, TheLdstUnitHasPriorityOnThePort) {
  // A 1024-float transfer (32 requests) while the warp's 4 global loads miss in 32 blocks each
  // (128 L1D misses sent by the LD/ST unit): in every cycle the LD/ST unit sends, the AGEN
  // waits. Every AGEN cycle either sends or waits for one counted reason, and the AGEN works
  // without a gap from t + 1: AGEN + MEM time = busy cycles + the 100-cycle latency.
  const DRun q = run(1024, 1, {"d2ma.enable=true"}, 32, false);
  const DRun x = run(1024, 1, {"d2ma.enable=true", "sm.l1d.mshrs=256"}, 32, true);
  for (uint32_t l = 0; l < 32; ++l) ASSERT_EQ(x.out[l], l * 3 + 1) << "lane " << l;
  EXPECT_EQ(v(q, "port_lost"), 0u);
  EXPECT_EQ(v(q, "agen_busy_cycles"), 32u);
  EXPECT_GT(v(x, "port_lost"), 0u);
  EXPECT_EQ(v(x, "requests"), 32u);
  EXPECT_EQ(v(x, "agen_busy_cycles"),
            v(x, "requests") + v(x, "port_lost") + v(x, "port_full") + v(x, "mshr_full"));
  EXPECT_EQ(v(x, "agen_cycles") + v(x, "mem_cycles"), v(x, "agen_busy_cycles") + 100);
  EXPECT_EQ(v(q, "agen_cycles") + v(q, "mem_cycles"), 32u + 100);
}

TEST(D2maSm, StridedAgenSpendsOneCyclePerElement) {
  // 64 elements 8 B apart (4 blocks x 16 elements): the first request leaves after 16 cycles
  // (t + 16), the last after 64 (t + 64); the last answer 100 cycles later.
  const DRun x = run(64, 2, {"d2ma.enable=true"});
  for (uint32_t l = 0; l < 32; ++l) ASSERT_EQ(x.out[l], l * 2 * 3 + 1) << "lane " << l;
  EXPECT_EQ(v(x, "requests"), 4u);
  EXPECT_EQ(v(x, "agen_cycles"), 16u);
  EXPECT_EQ(v(x, "mem_cycles"), 48u + 100);
  EXPECT_EQ(v(x, "agen_busy_cycles"), 64u);
  EXPECT_EQ(v(x, "agen_span_cycles"), 64u);
}

TEST(D2maSm, RawRangePaperVersusFootprint) {
  // Both ranges cover lanes' words here; the knob only changes halo/padded buffers. The
  // squash-free variant: the load reads beyond the buffer (n = 16 words), so with the engine
  // the lanes 16..31 read zeros and the lanes below must wait -> one squash either way.
  const DRun a = run(16, 1, {"d2ma.enable=true", "d2ma.raw_range=paper"});
  EXPECT_EQ(v(a, "raw_squashes"), 1u);
  for (uint32_t l = 0; l < 16; ++l) EXPECT_EQ(a.out[l], l * 3 + 1);
  for (uint32_t l = 16; l < 32; ++l) EXPECT_EQ(a.out[l], 0u);
}

TEST(D2maSm, AllWarpsIgnitionHoldsEarlyArrivalsOnTheArmedBuffer) {
  // Two warps: the first to call configure arms the buffer (all_warps) and its load must wait
  // although the transfer has not started; the second arrival ignites. Both loads are squashed
  // once and released by the completion; every lane reads its element.
  for (const char* pol : {"d2ma.ignite_policy=all_warps", "d2ma.ignite_policy=first_warp"}) {
    const DRun x = run(128, 1, {"d2ma.enable=true", pol}, 64);
    for (uint32_t t = 0; t < 64; ++t) ASSERT_EQ(x.out[t], t * 3 + 1) << pol << " thread " << t;
    EXPECT_EQ(v(x, "ignitions"), 1u) << pol;
    EXPECT_EQ(v(x, "raw_squashes"), 2u) << pol;
    EXPECT_EQ(v(x, "releases"), 2u) << pol;
    EXPECT_EQ(v(x, "intrinsic_calls"), 4u) << pol;
  }
}

TEST(D2maSm, OffRunsTheFallbackBodyAndHasNoStats) {
  // The stubs' bodies are empty: with the engine off nothing reaches shared memory.
  const DRun x = run(128, 1, {});
  EXPECT_TRUE(x.d2ma.is_null());
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(x.out[l], 0u);
}

// Two transfers into one buffer, one warp: configure, read, dma_execute from the next 128
// floats, read again. The trace shows both transfers (agen, mem) and between them one compute
// period: from the first transfer's last fill to the execute's ignition.
TEST(D2maSm, TraceShowsTheComputePeriodBetweenTransfers) {
  const std::string k = R"(.version 9.0
.target sm_75
.address_size 64
.shared .align 8 .b8 buf[4096];
.func __d2ma_configure(.param .b32 a, .param .b64 b, .param .b32 c, .param .b32 d,
                       .param .b32 e, .param .b32 f) {
  ret;
}
.func __d2ma_execute(.param .b32 a, .param .b64 b, .param .b32 c) {
  ret;
}
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, buf;
  mov.u32 %r2, 128;
  mov.u32 %r3, 0;
  mov.u32 %r4, 1;
  {
  .param .b32 p0;
  st.param.b32 [p0+0], %r1;
  .param .b64 p1;
  st.param.b64 [p1+0], %rd1;
  .param .b32 p2;
  st.param.b32 [p2+0], %r2;
  .param .b32 p3;
  st.param.b32 [p3+0], %r3;
  .param .b32 p4;
  st.param.b32 [p4+0], %r4;
  .param .b32 p5;
  st.param.b32 [p5+0], %r3;
  call.uni __d2ma_configure, (p0, p1, p2, p3, p4, p5);
  }
  mov.u32 %r5, %tid.x;
  shl.b32 %r6, %r5, 2;
  add.s32 %r8, %r1, %r6;
  ld.shared.u32 %r9, [%r8];
  add.s64 %rd5, %rd1, 512;
  {
  .param .b32 p0;
  st.param.b32 [p0+0], %r1;
  .param .b64 p1;
  st.param.b64 [p1+0], %rd5;
  .param .b32 p2;
  st.param.b32 [p2+0], %r3;
  call.uni __d2ma_execute, (p0, p1, p2);
  }
  ld.shared.u32 %r10, [%r8];
  add.s32 %r9, %r9, %r10;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r9;
  ret;
}
)";
  TimingRunner r(timing_params({"gpu.num_sms=1", "sm.l1i_perfect=true", "sim.memory_model=fixed",
                                "sim.fixed_memory_latency=100", "d2ma.enable=true"}));
  r.load(k);
  std::vector<uint32_t> in(256);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i * 3 + 1;
  const Addr a = r.upload(in), o = r.upload(std::vector<uint32_t>(32, 0));
  r.gpu().enable_trace(0, UINT64_MAX);
  r.launch("k", {1, 1, 1}, {32, 1, 1}, a, o);
  const auto out = r.download<uint32_t>(o, 32);
  for (uint32_t l = 0; l < 32; ++l) ASSERT_EQ(out[l], (l * 3 + 1) + ((l + 128) * 3 + 1)) << l;
  std::vector<std::tuple<std::string, uint64_t, uint64_t>> sl;  // name, ts, end (cat d2ma)
  for (const auto& e : r.stats["trace_events"])
    if (e.value("cat", "") == "d2ma")
      sl.push_back(
          {e["name"], e["ts"].get<uint64_t>(), e["ts"].get<uint64_t>() + e["dur"].get<uint64_t>()});
  std::sort(sl.begin(), sl.end(),
            [](const auto& x, const auto& y) { return std::get<1>(x) < std::get<1>(y); });
  ASSERT_EQ(sl.size(), 5u);  // agen mem compute agen mem
  EXPECT_EQ(std::get<0>(sl[0]), "agen");
  EXPECT_EQ(std::get<0>(sl[1]), "mem");
  EXPECT_EQ(std::get<0>(sl[2]), "compute");
  EXPECT_EQ(std::get<0>(sl[3]), "agen");
  EXPECT_EQ(std::get<0>(sl[4]), "mem");
  EXPECT_EQ(std::get<1>(sl[2]), std::get<2>(sl[1]));  // from the first transfer's last fill
  EXPECT_EQ(std::get<2>(sl[2]), std::get<1>(sl[3]));  // to the second one's ignition
}

}  // namespace
}  // namespace simtlab::testing
