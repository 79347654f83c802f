// Thread block compaction on the timing model (sim.divergence=tbc): the diamond, loop-with-break
// and early-exit kernels give the IPDOM stack's results; the warp instructions are those of the
// compacted warps (counted by hand below from the CFG, two warps per CTA), the thread
// instructions are unchanged; the SM's tbc statistics group exists only when on.
#include <gtest/gtest.h>

#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

#define PROLOGUE                                                    \
  ".version 9.0\n.target sm_75\n.address_size 64\n"                 \
  ".visible .entry k(.param .u64 out) {\n"                          \
  "  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<8>;\n" \
  "  mov.u32 %r1, %tid.x;\n  shr.u32 %r5, %r1, 5;\n  and.b32 %r6, %r1, 31;\n"

// Diamond. Taken: warp 0 lanes 0-15 and warp 1 lanes 16-31 (one compacted warp per path).
// pc 0-5 setup, 6 branch, 7-9 else path, 10-11 then path, 12-17 join and store.
const char* kDiamond = PROLOGUE R"(
  setp.lt.u32 %p1, %r6, 16;
  setp.eq.u32 %p2, %r5, 1;
  xor.pred %p3, %p1, %p2;
  @%p3 bra THEN;
  add.u32 %r2, %r1, 10;
  add.u32 %r2, %r2, 1;
  bra.uni JOIN;
THEN:
  add.u32 %r2, %r1, 20;
  add.u32 %r2, %r2, 2;
JOIN:
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}
)";

// Loop with a break: the same half of each warp loops 3 times, the other half once.
// pc 0-8 setup, 9 head, 10 compare, 11 break, 12 body, 13 back edge, 14-19 exit and store.
const char* kLoop = PROLOGUE R"(
  setp.lt.u32 %p1, %r6, 16;
  setp.eq.u32 %p2, %r5, 1;
  xor.pred %p3, %p1, %p2;
  selp.u32 %r7, 3, 1, %p3;
  mov.u32 %r3, 0;
  mov.u32 %r2, 0;
LOOP:
  add.u32 %r3, %r3, 1;
  setp.ge.u32 %p4, %r3, %r7;
  @%p4 bra DONE;
  add.u32 %r2, %r2, 3;
  bra.uni LOOP;
DONE:
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}
)";

// Early exit of warp 0 lanes 16-31 and warp 1 lanes 0-15, then a diamond on the lane's parity.
// pc 0-5 setup, 6 exit, 7-12, 13 branch, 14-15 odd path, 16 even path, 17-18 join.
const char* kExit = PROLOGUE R"(
  setp.ge.u32 %p1, %r6, 16;
  setp.eq.u32 %p2, %r5, 1;
  xor.pred %p3, %p1, %p2;
  @%p3 exit;
  and.b32 %r8, %r1, 1;
  setp.eq.u32 %p4, %r8, 0;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  @%p4 bra EVEN;
  add.u32 %r2, %r1, 100;
  bra.uni JOIN;
EVEN:
  add.u32 %r2, %r1, 200;
JOIN:
  st.global.u32 [%rd4], %r2;
  ret;
}
)";

struct TbcRun {
  nlohmann::json sm0;
  std::vector<uint32_t> out;
};

TbcRun run(const char* ptx, const char* mode) {
  TimingRunner r(timing_params({"gpu.num_sms=1", std::string("sim.divergence=") + mode}));
  r.load(ptx);
  const Addr out = r.upload(std::vector<uint32_t>(64, 0));
  r.launch("k", {1, 1, 1}, {64, 1, 1}, out);
  return TbcRun{r.stats["sm[0]"], r.download<uint32_t>(out, 64)};
}

uint64_t v(const nlohmann::json& g, const char* n) { return g[n]["value"].get<uint64_t>(); }

TEST(TbcTiming, DiamondCompactsBothPaths) {
  const TbcRun i = run(kDiamond, "ipdom"), t = run(kDiamond, "tbc");
  std::vector<uint32_t> want(64);
  for (uint32_t x = 0; x < 64; ++x) want[x] = ((x % 32 < 16) != (x / 32 == 1)) ? x + 22 : x + 11;
  EXPECT_EQ(i.out, want);
  EXPECT_EQ(t.out, want);
  EXPECT_FALSE(i.sm0.contains("tbc"));
  ASSERT_TRUE(t.sm0.contains("tbc"));
  // IPDOM: per warp 7 + 3 (else) + 2 (then) + 6. TBC: 7 x 2 warps, one compacted warp per
  // path (2 + 3), the join as the 2 static warps (6 x 2).
  EXPECT_EQ(v(i.sm0, "warp_insts"), 2u * (7 + 3 + 2 + 6));
  EXPECT_EQ(v(t.sm0, "warp_insts"), 7u * 2 + 2 + 3 + 6 * 2);
  EXPECT_EQ(v(t.sm0, "thread_insts"), v(i.sm0, "thread_insts"));
  const auto& g = t.sm0["tbc"];
  EXPECT_EQ(v(g, "divergent_branches"), 1u);
  EXPECT_EQ(v(g, "uniform_branches"), 0u);
  EXPECT_EQ(v(g, "pushes"), 2u);
  EXPECT_EQ(v(g, "reconvergences"), 3u);  // both paths, then the CTA's end
  EXPECT_EQ(v(g, "warps_formed"), 1u + 1 + 2);
  EXPECT_EQ(v(g, "compacted_warps"), 2u);
  EXPECT_EQ(v(g, "mixed_warp_insts"), 2u + 3);
  EXPECT_EQ(g["stack_depth"]["count"].get<uint64_t>(), 3u);
  EXPECT_EQ(g["stack_depth"]["max"].get<uint64_t>(), 3u);
}

TEST(TbcTiming, LoopBreakLoopersCompactIntoOneWarp) {
  const TbcRun i = run(kLoop, "ipdom"), t = run(kLoop, "tbc");
  std::vector<uint32_t> want(64);
  for (uint32_t x = 0; x < 64; ++x) want[x] = ((x % 32 < 16) != (x / 32 == 1)) ? 6 : 0;
  EXPECT_EQ(i.out, want);
  EXPECT_EQ(t.out, want);
  // Per warp: 9 setup, the first iteration (3), two more for the loopers (5 each), 6 after.
  EXPECT_EQ(v(i.sm0, "warp_insts"), 2u * (9 + 3 + 10 + 6));
  EXPECT_EQ(v(t.sm0, "warp_insts"), 2u * (9 + 3) + 10 + 2 * 6);
  EXPECT_EQ(v(t.sm0, "thread_insts"), v(i.sm0, "thread_insts"));
  const auto& g = t.sm0["tbc"];
  // First iteration: the leavers split off; second: nobody leaves; third: all leave.
  EXPECT_EQ(v(g, "divergent_branches"), 1u);
  EXPECT_EQ(v(g, "uniform_branches"), 2u);
  EXPECT_EQ(v(g, "pushes"), 1u);
  EXPECT_EQ(v(g, "reconvergences"), 2u);
  EXPECT_EQ(v(g, "warps_formed"), 1u + 2);
  EXPECT_EQ(v(g, "compacted_warps"), 1u);
  EXPECT_EQ(v(g, "mixed_warp_insts"), 10u);
}

TEST(TbcTiming, EarlyExitSurvivorsCompactAtTheNextBranch) {
  const TbcRun i = run(kExit, "ipdom"), t = run(kExit, "tbc");
  std::vector<uint32_t> want(64, 0);
  for (uint32_t x = 0; x < 64; ++x)
    if ((x % 32 >= 16) == (x / 32 == 1)) want[x] = x + (x % 2 ? 100 : 200);
  EXPECT_EQ(i.out, want);
  EXPECT_EQ(t.out, want);
  // IPDOM per warp: 14 + 2 (odd) + 1 (even) + 2. TBC: 14 x 2 (the exit does not compact),
  // one compacted warp per path, and the join: the survivors of both warps in one warp.
  EXPECT_EQ(v(i.sm0, "warp_insts"), 2u * (14 + 2 + 1 + 2));
  EXPECT_EQ(v(t.sm0, "warp_insts"), 14u * 2 + 1 + 2 + 2);
  EXPECT_EQ(v(t.sm0, "thread_insts"), v(i.sm0, "thread_insts"));
  const auto& g = t.sm0["tbc"];
  EXPECT_EQ(v(g, "warps_formed"), 3u);
  EXPECT_EQ(v(g, "compacted_warps"), 3u);
  EXPECT_EQ(v(g, "mixed_warp_insts"), 1u + 2 + 2);
  EXPECT_EQ(v(g, "reconvergences"), 3u);
}

// Dynamic warp formation on the same kernels: the IPDOM stack's results and thread
// instructions; threads of the two warps that reach a PC together merge, so fewer warp
// instructions than the stack (how many depends on the issue timing of the pool's warps).
TEST(DwfTiming, SameResultsFewerWarpInstructions) {
  for (const char* k : {kDiamond, kLoop, kExit}) {
    const TbcRun i = run(k, "ipdom"), d = run(k, "dwf");
    EXPECT_EQ(d.out, i.out);
    EXPECT_EQ(v(d.sm0, "thread_insts"), v(i.sm0, "thread_insts"));
    EXPECT_LT(v(d.sm0, "warp_insts"), v(i.sm0, "warp_insts"));
    EXPECT_FALSE(i.sm0.contains("dwf"));
    ASSERT_TRUE(d.sm0.contains("dwf"));
    EXPECT_GT(v(d.sm0["dwf"], "mixed_warp_insts"), 0u);
    EXPECT_FALSE(d.sm0.contains("tbc"));
  }
}

TEST(TbcTiming, RejectsIndependentThreadScheduling) {
  EXPECT_THROW(TimingRunner(timing_params({"sim.divergence=tbc", "sim.its=true"})), UserError);
}

}  // namespace
}  // namespace simtlab::testing
