// Independent thread scheduling (sim.its) on the timing model: the SM's its statistics group
// exists only when on and counts the thread groups of a diamond and of a loop with a yield; the
// instruction counts follow the functional model's execution (tests/unit/func/its_test.cpp).
#include <gtest/gtest.h>

#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

// Lanes < 16 take one path, the others the second; every lane stores its value. Then lane l
// loops l + 1 times.
const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra THEN;
  add.u32 %r2, %r1, 10;
  bra.uni JOIN;
THEN:
  add.u32 %r2, %r1, 20;
JOIN:
  mov.u32 %r3, 0;
LOOP:
  add.u32 %r3, %r3, 1;
  add.u32 %r2, %r2, 1;
  setp.gt.u32 %p2, %r3, %r1;
  @!%p2 bra LOOP;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}
)";

struct ItsRun {
  nlohmann::json sm0;
  std::vector<uint32_t> out;
};

ItsRun run(bool its, uint32_t yield = 64) {
  TimingRunner r(timing_params({"gpu.num_sms=1", its ? "sim.its=true" : "sim.its=false"}));
  r.dev().options().its = its;  // the runtime copies sim.its into the device options
  r.dev().options().its_yield_backedges = yield;
  r.load(kPtx);
  const Addr out = r.upload(std::vector<uint32_t>(32, 0));
  r.launch("k", {1, 1, 1}, {32, 1, 1}, out);
  return ItsRun{r.stats["sm[0]"], r.download<uint32_t>(out, 32)};
}

uint64_t v(const nlohmann::json& g, const char* n) { return g[n]["value"].get<uint64_t>(); }

}  // namespace

TEST(ItsTiming, StatisticsOnlyWhenOnAndTheSameWorkWithoutYields) {
  const ItsRun s = run(false), i = run(true);
  std::vector<uint32_t> want(32);
  for (uint32_t l = 0; l < 32; ++l) want[l] = (l < 16 ? 20 : 10) + l + l + 1;
  EXPECT_EQ(s.out, want);
  EXPECT_EQ(i.out, want);
  EXPECT_FALSE(s.sm0.contains("its"));
  ASSERT_TRUE(i.sm0.contains("its"));
  // The diamond forks one group that joins again; the loop's leavers wait at its exit (32
  // iterations, fewer than the 64 back edges of a yield).
  EXPECT_EQ(v(i.sm0["its"], "forks"), 1u);
  EXPECT_EQ(v(i.sm0["its"], "joins"), 1u);
  EXPECT_EQ(v(i.sm0["its"], "yields"), 0u);
  EXPECT_EQ(v(i.sm0["its"], "max_groups"), 2u);
  // Same instructions, same lanes: 3 + 1 + 2 + 1 (diamond) + 32 x 4 (loop) + 6.
  EXPECT_EQ(v(s.sm0, "warp_insts"), 3u + 1 + 2 + 1 + 32 * 4 + 6);
  EXPECT_EQ(v(i.sm0, "warp_insts"), v(s.sm0, "warp_insts"));
  EXPECT_EQ(v(i.sm0, "thread_insts"), v(s.sm0, "thread_insts"));
}

TEST(ItsTiming, AYieldSplitsTheLoopLeaversOff) {
  // Yield every 8 back edges: lanes that left the loop go on (the store, ret) without the
  // loopers, in groups; more warp instructions for the same thread instructions.
  const ItsRun s = run(false), y = run(true, 8);
  EXPECT_EQ(y.out, s.out);
  EXPECT_EQ(v(y.sm0["its"], "yields"), 3u);  // after 8, 16 and 24 iterations
  EXPECT_EQ(v(y.sm0["its"], "released_lanes"), 8u + 8 + 8);
  EXPECT_EQ(v(y.sm0, "thread_insts"), v(s.sm0, "thread_insts"));
  EXPECT_EQ(v(y.sm0, "warp_insts"), v(s.sm0, "warp_insts") + 3 * 6);  // 3 extra store tails
}

}  // namespace simtlab::testing

namespace simtlab::testing {

TEST(SimtStats, StackDepthAndReconvergencesOnlyWhenOn) {
  auto run_stats = [](bool on) {
    TimingRunner r(timing_params(
        {"gpu.num_sms=1", on ? "sim.divergence_stats=true" : "sim.divergence_stats=false"}));
    r.load(kPtx);
    const Addr out = r.upload(std::vector<uint32_t>(32, 0));
    r.launch("k", {1, 1, 1}, {32, 1, 1}, out);
    return r.stats["sm[0]"];
  };
  EXPECT_FALSE(run_stats(false).contains("simt"));
  const nlohmann::json sm = run_stats(true);
  ASSERT_TRUE(sm.contains("simt"));
  const auto& g = sm["simt"];
  // The diamond pushes two paths (depth 3) and pops both; the loop's first break pushes the
  // loopers over the exit entry (depth 2), later breaks replace that entry (no net change), the
  // last pops it. `ret` pops the bottom entry (the warp's end; depth 0 is not sampled).
  EXPECT_EQ(g["pushes"]["value"].get<uint64_t>(), 3u);
  EXPECT_EQ(g["reconvergences"]["value"].get<uint64_t>(), 4u);
  EXPECT_EQ(g["stack_depth"]["count"].get<uint64_t>(),
            sm["warp_insts"]["value"].get<uint64_t>() - 1);
  EXPECT_EQ(g["stack_depth"]["max"].get<uint64_t>(), 3u);
}

}  // namespace simtlab::testing
