// CCWS and static warp limiting (src/ext/ccws): exact decisions of the victim tag array, the
// lost-locality scores and cutoff, the issue gate, and whole-kernel runs with each switch on.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "ext/ccws/ccws.h"
#include "ext/sm_policies.h"
#include "func/program.h"
#include "ptx/ir.h"
#include "tests/unit/ext/ext_kernels.h"
#include "timing/sm/ldst.h"
#include "timing/sm/sm_params.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing::ccws {
namespace {

constexpr Addr L(uint64_t n) { return n * 128; }  // the n-th 128-byte line

TEST(CcwsVta, TakeFindsInsertedTagOnce) {
  VictimTagArray v(16, 8);
  v.insert(L(5));
  EXPECT_TRUE(v.contains(L(5)));
  EXPECT_FALSE(v.take(L(6)));
  EXPECT_TRUE(v.take(L(5)));
  EXPECT_FALSE(v.take(L(5)));  // a detected tag leaves the array
}

TEST(CcwsVta, SetReplacesOldestInsertion) {
  VictimTagArray v(4, 2);  // 2 sets x 2 ways; set = line number mod 2
  v.insert(L(0));
  v.insert(L(2));
  v.insert(L(1));  // other set
  v.insert(L(4));  // set 0 is full: L(0) goes
  EXPECT_FALSE(v.contains(L(0)));
  EXPECT_TRUE(v.contains(L(2)));
  EXPECT_TRUE(v.contains(L(4)));
  EXPECT_TRUE(v.contains(L(1)));
  v.insert(L(2));  // re-inserting refreshes: L(4) is now the oldest of set 0
  v.insert(L(6));
  EXPECT_TRUE(v.contains(L(2)));
  EXPECT_FALSE(v.contains(L(4)));
  v.clear();
  EXPECT_FALSE(v.contains(L(2)));
}

TEST(CcwsScores, NoDetectionNoThrottling) {
  LostLocality s(4, 100, 100, 1);
  std::vector<uint8_t> t(4, 9);
  EXPECT_EQ(s.apply_cutoff({0, 1, 2, 3}, t), 0u);
  EXPECT_EQ(t, (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(s.cutoff(4), 400u);
}

TEST(CcwsScores, DetectionRaisesScoreAndPushesYoungestPastCutoff) {
  LostLocality s(4, 100, 100, 1);
  std::vector<uint8_t> t(4, 0);
  s.detected(0);
  EXPECT_EQ(s.score(0), 200u);
  // Stacked by score: 0 (200), then 1, 2, 3 (100 each, oldest first): 200, 300, 400, 500 > 400.
  EXPECT_EQ(s.apply_cutoff({0, 1, 2, 3}, t), 1u);
  EXPECT_EQ(t, (std::vector<uint8_t>{0, 0, 0, 1}));
  // Two detections on warp 2: 2 (300), 0 (200), 1, 3: 300, 500 > 400 -> 0, 1 and 3 are out.
  s.detected(2);
  s.detected(2);
  EXPECT_EQ(s.apply_cutoff({0, 1, 2, 3}, t), 3u);
  EXPECT_EQ(t, (std::vector<uint8_t>{1, 1, 0, 1}));
}

TEST(CcwsScores, DecayReturnsToBaseAndLiftsThrottling) {
  LostLocality s(4, 100, 100, 1);
  std::vector<uint8_t> t(4, 0);
  s.detected(1);
  s.decay(60);
  EXPECT_EQ(s.score(1), 140u);
  EXPECT_EQ(s.score(0), 100u);  // never below base
  EXPECT_EQ(s.apply_cutoff({0, 1, 2, 3}, t), 1u);
  EXPECT_EQ(t[3], 1);
  s.decay(40);
  EXPECT_EQ(s.score(1), 100u);
  EXPECT_EQ(s.apply_cutoff({0, 1, 2, 3}, t), 0u);
  s.decay(1000);
  EXPECT_EQ(s.score(1), 100u);
}

TEST(CcwsScores, HighestScoringWarpAloneIsNeverThrottled) {
  LostLocality s(2, 100, 100, 1);
  std::vector<uint8_t> t(2, 0);
  s.detected(1);
  s.detected(1);
  EXPECT_EQ(s.apply_cutoff({1}, t), 0u);  // 300 > cutoff 100, but it is the first
  EXPECT_EQ(s.apply_cutoff({0, 1}, t), 1u);
  EXPECT_EQ(t, (std::vector<uint8_t>{1, 0}));
}

// ---- The policy against a real LD/ST unit's caches (observer calls made by hand) ------------

struct Insts {
  ptx::Instruction ld_in, add_in;
  func::DInst ld, ld_shared, add;
  Insts() {
    ld_in.op = ptx::Op::ld;
    add_in.op = ptx::Op::add;
    ld.in = &ld_in;
    ld.exec = ptx::ExecClass::mem;
    ld.aspace = func::AddrSpace::global;
    ld_shared = ld;
    ld_shared.aspace = func::AddrSpace::shared;
    add.in = &add_in;
    add.exec = ptx::ExecClass::int_alu;
  }
};

std::vector<WarpSlot> two_warps() {
  std::vector<WarpSlot> w(2);
  for (uint32_t i = 0; i < 2; ++i) {
    w[i].slot = i;
    w[i].age = i;
    w[i].active = true;
  }
  return w;
}

TEST(CcwsPolicy, VictimTagHitRaisesScoreAndCutoffBlocksLoadsOnly) {
  SmParams p;
  p.ccws.enable = true;
  stats::Group root("");
  LdstUnit ldst(p, 0, root, nullptr, [](const InFlight&, uint64_t) {});
  CcwsPolicy c(p.ccws, 2, root, ldst);
  auto warps = two_warps();
  Insts in;
  c.begin_issue(0, warps);
  c.l1d_access(0, L(7), AccessStatus::miss);  // warp 0 allocates line 7
  c.evicted(L(7));                            // ... and loses it: into warp 0's tags
  EXPECT_TRUE(c.vta(0).contains(L(7)));
  EXPECT_FALSE(c.vta(1).contains(L(7)));
  c.l1d_access(1, L(7), AccessStatus::miss);  // another warp missing on it: not lost locality
  EXPECT_EQ(c.scores().score(1), 100u);
  c.l1d_access(0, L(9), AccessStatus::hit);   // hits change nothing
  c.l1d_access(0, L(7), AccessStatus::miss);  // warp 0 misses on its own victim: detection
  EXPECT_EQ(c.scores().score(0), 200u);
  EXPECT_FALSE(c.vta(0).contains(L(7)));
  c.l1d_access(0, L(7), AccessStatus::miss);  // the tag was used up
  EXPECT_EQ(c.scores().score(0), 200u);
  // Line 7 is now owned by warp 0 (last allocation); warp 1's earlier ownership was replaced.
  c.evicted(L(7));
  EXPECT_TRUE(c.vta(0).contains(L(7)));
  EXPECT_FALSE(c.vta(1).contains(L(7)));
  const auto* g = root.find_child("ccws");
  ASSERT_NE(g, nullptr);

  // Cycle 1: warp 0 (200) then warp 1 (100) stack to 300 > 2 x 100: warp 1 may not load.
  c.begin_issue(1, warps);
  EXPECT_EQ(c.scores().score(0), 199u);  // one cycle of decay
  EXPECT_TRUE(c.may_issue(warps[0], in.ld));
  EXPECT_FALSE(c.may_issue(warps[1], in.ld));
  EXPECT_TRUE(c.may_issue(warps[1], in.add));        // non-memory instructions still issue
  EXPECT_TRUE(c.may_issue(warps[1], in.ld_shared));  // shared memory is not an L1D request
  // After the score decays back to base, warp 1 loads again.
  c.begin_issue(100, warps);
  EXPECT_EQ(c.scores().score(0), 100u);
  EXPECT_TRUE(c.may_issue(warps[1], in.ld));
  // A new warp in slot 0 starts from a clean state.
  warps[0].age = 7;
  c.begin_issue(101, warps);
  EXPECT_FALSE(c.vta(0).contains(L(7)));
  c.evicted(L(7));  // owned by the departed warp: recorded nowhere
  EXPECT_FALSE(c.vta(0).contains(L(7)));
}

TEST(SwlPolicy, OnlyOldestRunnableWarpsIssue) {
  SmParams p;
  p.swl.warps = 2;
  stats::Group root("");
  SwlPolicy s(p.swl, 4, root);
  std::vector<WarpSlot> w(4);
  const uint64_t ages[] = {3, 1, 2, 0};
  for (uint32_t i = 0; i < 4; ++i) {
    w[i].slot = i;
    w[i].age = ages[i];
    w[i].active = true;
  }
  Insts in;
  s.begin_issue(0, w);
  EXPECT_FALSE(s.may_issue(w[0], in.add));
  EXPECT_TRUE(s.may_issue(w[1], in.add));
  EXPECT_FALSE(s.may_issue(w[2], in.ld));
  EXPECT_TRUE(s.may_issue(w[3], in.ld));
  w[3].func_done = true;  // a finished warp frees its place for the next oldest
  s.begin_issue(1, w);
  EXPECT_TRUE(s.may_issue(w[1], in.add));
  EXPECT_TRUE(s.may_issue(w[2], in.add));
  EXPECT_FALSE(s.may_issue(w[0], in.add));
}

TEST(SmPolicies, OffBuildsNothing) {
  SmParams p;
  EXPECT_FALSE(sm_policies_on(p));
  stats::Group root("");
  LdstUnit ldst(p, 0, root, nullptr, [](const InFlight&, uint64_t) {});
  EXPECT_TRUE(make_sm_policies(p, root, ldst).empty());
  EXPECT_EQ(root.find_child("ccws"), nullptr);
  p.ccws.enable = true;
  p.swl.warps = 8;
  EXPECT_TRUE(sm_policies_on(p));
  EXPECT_EQ(make_sm_policies(p, root, ldst).size(), 2u);
}

TEST(IsL1dLoad, LoadsOfGlobalLocalGenericOnly) {
  Insts in;
  EXPECT_TRUE(is_l1d_load(in.ld));
  EXPECT_FALSE(is_l1d_load(in.ld_shared));
  EXPECT_FALSE(is_l1d_load(in.add));
  func::DInst st = in.ld;
  ptx::Instruction st_in;
  st_in.op = ptx::Op::st;
  st.in = &st_in;
  EXPECT_FALSE(is_l1d_load(st));
}

}  // namespace
}  // namespace simtlab::timing::ccws

// ---- Whole kernels on one SM: correct output with each switch, stats only when on ----------
namespace simtlab::testing {
namespace {

TEST(CcwsKernel, ThrashingKernelCorrectAndThrottledOnlyWhenOn) {
  const auto gto = run_thrash({});
  EXPECT_TRUE(gto.correct);
  EXPECT_FALSE(gto.has_group("ccws"));
  EXPECT_FALSE(gto.has_stall("throttled"));
  const auto on = run_thrash({"ccws.enable=true"});
  EXPECT_TRUE(on.correct);
  EXPECT_TRUE(on.has_stall("throttled"));
  EXPECT_GT(on.group("ccws", "lost_locality"), 0u);
  EXPECT_GT(on.group("ccws", "vta_inserts"), 0u);
  EXPECT_GT(on.group("ccws", "throttled_cycles"), 0u);
  EXPECT_GT(on.stall("throttled"), 0u);
  std::printf(
      "thrash kernel (48 warps x 1 KB, 16 KB L1D): gto %llu cycles, %llu/%llu load "
      "misses; ccws %llu cycles, %llu misses, %llu detections\n",
      (unsigned long long)gto.cycles, (unsigned long long)gto.l1d_load_misses,
      (unsigned long long)gto.l1d_load_accesses, (unsigned long long)on.cycles,
      (unsigned long long)on.l1d_load_misses,
      (unsigned long long)on.group("ccws", "lost_locality"));
  // Fewer warps competing for the 16 KB L1D: fewer load misses than plain GTO.
  EXPECT_LT(on.l1d_load_misses, gto.l1d_load_misses);
  EXPECT_EQ(on.l1d_load_accesses, gto.l1d_load_accesses);
}

TEST(CcwsKernel, StaticWarpLimitCorrectAndCutsMisses) {
  const auto gto = run_thrash({});
  const auto swl = run_thrash({"swl.warps=8"});
  EXPECT_TRUE(swl.correct);
  EXPECT_TRUE(swl.has_group("swl"));
  EXPECT_GT(swl.group("swl", "limited_cycles"), 0u);
  EXPECT_GT(swl.stall("throttled"), 0u);
  std::printf("thrash kernel: swl8 %llu cycles, %llu load misses\n", (unsigned long long)swl.cycles,
              (unsigned long long)swl.l1d_load_misses);
  // 8 warps x 1 KB fit in the L1D: misses drop to about the compulsory ones.
  EXPECT_LT(swl.l1d_load_misses, gto.l1d_load_misses);
}

}  // namespace
}  // namespace simtlab::testing
