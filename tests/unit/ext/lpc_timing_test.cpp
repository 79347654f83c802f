// Likely convergence points (sim.lpc) on the timing model: the SM's lpc statistics group exists
// only when on; the loop with a break of tests/unit/func/lpc_test.cpp issues 54 warp
// instructions instead of the stack's 78 (the hand count is there) for the same thread
// instructions; sim.lpc is rejected with sim.its and sim.divergence=tbc/dwf.
#include <gtest/gtest.h>

#include "base/error.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

// The book's Example 3.2 (see lpc_test.cpp): 4 threads, X = (tid + i) & 1, thread 3 breaks.
const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %r1;
  mov.u32 %r3, 0;
  setp.eq.u32 %p3, %r1, 3;
LOOP:
  add.u32 %r4, %r1, %r3;
  and.b32 %r4, %r4, 1;
  setp.eq.u32 %p1, %r4, 0;
  @%p1 bra B;
  @%p3 bra EXIT;
  add.u32 %r2, %r2, 1;
  bra.uni E;
B:
  add.u32 %r2, %r2, 10;
E:
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, 4;
  @%p2 bra LOOP;
EXIT:
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}
)";

struct LpcRun {
  nlohmann::json sm0;
  std::vector<uint32_t> out;
};

LpcRun run(bool lpc) {
  TimingRunner r(timing_params({"gpu.num_sms=1", lpc ? "sim.lpc=true" : "sim.lpc=false"}));
  r.dev().options().lpc = lpc;  // the runtime copies sim.lpc into the device options
  r.load(kPtx);
  const Addr out = r.upload(std::vector<uint32_t>(4, 0));
  r.launch("k", {1, 1, 1}, {4, 1, 1}, out);
  return LpcRun{r.stats["sm[0]"], r.download<uint32_t>(out, 4)};
}

uint64_t v(const nlohmann::json& g, const char* n) { return g[n]["value"].get<uint64_t>(); }

}  // namespace

TEST(LpcTiming, FewerWarpInstructionsAndStatisticsOnlyWhenOn) {
  const LpcRun s = run(false), l = run(true);
  EXPECT_EQ(s.out, (std::vector<uint32_t>{22, 23, 24, 3}));
  EXPECT_EQ(l.out, s.out);
  EXPECT_FALSE(s.sm0.contains("lpc"));
  ASSERT_TRUE(l.sm0.contains("lpc"));
  EXPECT_EQ(v(s.sm0, "warp_insts"), 78u);
  EXPECT_EQ(v(l.sm0, "warp_insts"), 54u);
  EXPECT_EQ(v(l.sm0, "thread_insts"), v(s.sm0, "thread_insts"));
  EXPECT_EQ(v(l.sm0["lpc"], "lpc_entries"), 4u);
  EXPECT_EQ(v(l.sm0["lpc"], "lpc_merges"), 8u);
  EXPECT_EQ(v(l.sm0["lpc"], "lpc_threads"), 12u);
  EXPECT_EQ(v(l.sm0["lpc"], "lpc_joins"), 4u);
  EXPECT_LT(v(l.sm0, "cycles"), v(s.sm0, "cycles"));
}

TEST(LpcTiming, RejectedWithoutThePerWarpStack) {
  for (const char* other : {"sim.its=true", "sim.divergence=tbc", "sim.divergence=dwf"}) {
    try {
      timing_params({"sim.lpc=true", other});
      ADD_FAILURE() << "sim.lpc accepted with " << other;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("sim.lpc"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(timing_params({"sim.lpc=true"}));
}

TEST(DwfPolicy, OnlyWithDynamicWarpFormation) {
  try {
    timing_params({"sim.dwf_policy=pc"});
    ADD_FAILURE() << "sim.dwf_policy accepted without sim.divergence=dwf";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("sim.dwf_policy"), std::string::npos) << e.what();
  }
  for (const char* p : {"time", "pc", "majority", "minority", "pdom"})
    EXPECT_NO_THROW(timing_params({"sim.divergence=dwf", std::string("sim.dwf_policy=") + p}));
}

}  // namespace simtlab::testing
