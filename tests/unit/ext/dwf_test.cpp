// Dynamic warp formation (sim.divergence=dwf, src/ext/dwf; Fung et al. MICRO 2007): exact
// lane-aware insertion into the warp pool, the Majority issue order and the re-forming of
// static warps at sync points; the timing model runs the diamond / loop-break / early-exit
// kernels of tbc_timing_test.cpp with the IPDOM stack's results.
#include <gtest/gtest.h>

#include "ext/dwf/dwf.h"

namespace simtlab::testing {
namespace {

using ext::dwf::DwfCta;
using ext::dwf::Piece;

constexpr LaneMask kLo = 0x0000ffffu, kHi = 0xffff0000u, kAll = 0xffffffffu;

TEST(DwfPool, BranchTargetsMergeThreadsOfDifferentWarps) {
  DwfCta t({kAll, kAll}, 0);
  ASSERT_EQ(t.pool.size(), 2u);
  // Warp 0 branches at 6: lanes 0-15 to 10, lanes 16-31 fall through to 7.
  t.remove(0);
  EXPECT_EQ(t.insert(10, std::vector<Piece>{{0, kLo}}, 3), 1u);
  EXPECT_EQ(t.insert(7, std::vector<Piece>{{0, kHi}}, 3), 1u);
  // Warp 1 (now pool[0]) branches the other way: its threads fill the free lanes.
  t.remove(0);
  EXPECT_EQ(t.insert(10, std::vector<Piece>{{1, kHi}}, 4), 0u);
  EXPECT_EQ(t.insert(7, std::vector<Piece>{{1, kLo}}, 4), 0u);
  ASSERT_EQ(t.pool.size(), 2u);
  EXPECT_EQ(t.pool[0].pc, 10u);
  EXPECT_EQ(t.pool[0].f.pieces, (std::vector<Piece>{{0, kLo}, {1, kHi}}));
  EXPECT_EQ(t.pool[0].f.lanes, kAll);
  EXPECT_EQ(t.pool[0].ready_at, 4u);  // the later arrivals' readiness
  EXPECT_EQ(t.pool[1].pc, 7u);
  EXPECT_EQ(t.pool[1].f.pieces, (std::vector<Piece>{{0, kHi}, {1, kLo}}));
}

TEST(DwfPool, ATakenLaneFormsANewWarp) {
  DwfCta t({0x0fu, 0xffu}, 10);
  t.remove(1);  // warp 1 leaves to re-arrive at 10 (a loop back edge)
  EXPECT_EQ(t.insert(10, std::vector<Piece>{{1, 0xffu}}, 0), 1u);
  ASSERT_EQ(t.pool.size(), 2u);
  EXPECT_EQ(t.pool[0].f.pieces, (std::vector<Piece>{{0, 0x0fu}, {1, 0xf0u}}));
  EXPECT_EQ(t.pool[1].f.pieces, (std::vector<Piece>{{1, 0x0fu}}));
}

TEST(DwfPool, MajorityIssuesThePcWithTheMostThreadsFirst) {
  DwfCta t({0xffu, 0xfffffu, 0xffffu}, 0);
  t.pool[0].pc = 5;  //  8 threads at 5
  t.pool[1].pc = 9;  // 20 threads at 9
  t.pool[2].pc = 5;  // 16 more at 5: 24
  std::vector<uint32_t> o;
  t.majority_order(o);
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 2, 1}));
  t.pool[1].pc = 3;  // 20 at 3 vs 8 at 5 and 16 at 5: still PC 5 first
  t.majority_order(o);
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 2, 1}));
  t.pool[2].pc = 4;  // now 20 at 3 > 16 at 4 > 8 at 5
  t.majority_order(o);
  EXPECT_EQ(o, (std::vector<uint32_t>{1, 2, 0}));
}

TEST(DwfPool, SyncPointWaitsForTheWholeHomeWarpThenReformsIt) {
  DwfCta t({kAll, kAll}, 0);
  t.remove(0);
  t.remove(0);
  t.insert(20, std::vector<Piece>{{0, kLo}, {1, kHi}}, 0);
  t.insert(21, std::vector<Piece>{{0, kHi}}, 0);
  t.insert(30, std::vector<Piece>{{1, kLo}}, 0);
  t.pool[1].pc = 20;                   // warp 0's other half reaches the __shfl_sync at 20 too
  EXPECT_EQ(t.arrive_sync(0, 7), 0u);  // warp 0 lanes 16-31 and warp 1 lanes 0-15 not there
  EXPECT_EQ(t.arrive_sync(1, 7), 1u);  // all of warp 0 waits: its static warp
  ASSERT_EQ(t.pool.size(), 3u);
  EXPECT_EQ(t.pool[0].f.pieces, (std::vector<Piece>{{1, kHi}}));
  EXPECT_TRUE(t.pool[0].sync);
  EXPECT_EQ(t.pool[1].pc, 30u);
  EXPECT_EQ(t.pool[2].pc, 20u);
  EXPECT_EQ(t.pool[2].f.pieces, (std::vector<Piece>{{0, kAll}}));
  EXPECT_TRUE(t.pool[2].sync_pass);
  EXPECT_EQ(t.pool[2].ready_at, 7u);
  // Exits: warp 1's waiting lanes leave; the empty warp is dropped.
  t.exit(1, kHi);
  EXPECT_EQ(t.pool.size(), 2u);
}

}  // namespace
}  // namespace simtlab::testing

namespace simtlab::testing {

// The five issue policies of Fung et al. (MICRO 2007, section 4.2) on one pool: 8 threads at PC
// 5 (pool[0]), 20 at 9 (pool[1]), 16 more at 5 (pool[2]), 2 at 7 (pool[3]).
TEST(DwfPool, EachPolicysIssueOrder) {
  using ext::dwf::Policy;
  ext::dwf::DwfCta t({0xffu, 0xfffffu, 0xffffu, 0x3u}, 0);
  t.pool[0].pc = 5;
  t.pool[1].pc = 9;
  t.pool[2].pc = 5;
  t.pool[3].pc = 7;
  std::vector<uint32_t> o;
  t.order(Policy::majority, o);  // PC 5 (24 threads), 9 (20), 7 (2)
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 2, 1, 3}));
  t.order(Policy::minority, o);  // PC 7 (2), 9 (20), 5 (24)
  EXPECT_EQ(o, (std::vector<uint32_t>{3, 1, 0, 2}));
  t.order(Policy::pc, o);  // 5, 5, 7, 9 (pool order within a PC)
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 2, 3, 1}));
  t.order(Policy::time, o);  // arrival order
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 2, 3}));
  // Post-dominator priority: nobody on the way to a reconvergence point: majority.
  t.order(Policy::pdom, o);
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 2, 1, 3}));
  // pool[3] (PC 7) diverged with its IPDOM at 9 and has not reached it: pool[1], waiting at 9,
  // goes last.
  t.pool[3].rpc = 9;
  t.order(Policy::pdom, o);
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 2, 3, 1}));
  // Once pool[3] is at 9 too, nobody waits: majority again (PC 5: 24, PC 9: 22 threads).
  t.pool[3].pc = 9;
  t.order(Policy::pdom, o);
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 2, 1, 3}));
  // The policy names of sim.dwf_policy.
  EXPECT_EQ(ext::dwf::policy_of("time"), Policy::time);
  EXPECT_EQ(ext::dwf::policy_of("pc"), Policy::pc);
  EXPECT_EQ(ext::dwf::policy_of("majority"), Policy::majority);
  EXPECT_EQ(ext::dwf::policy_of("minority"), Policy::minority);
  EXPECT_EQ(ext::dwf::policy_of("pdom"), Policy::pdom);
}

TEST(DwfPool, ThreadsCarryTheirReconvergencePcIntoThePool) {
  ext::dwf::DwfCta t({0xfu, 0xfu}, 0);
  t.remove(0);  // warp 0 diverged: lanes 0,1 to 10, reconvergence at 20
  EXPECT_EQ(t.insert(10, std::vector<ext::dwf::Piece>{{0, 0x3u}}, 0, 20), 1u);
  ASSERT_EQ(t.pool.size(), 2u);
  EXPECT_EQ(t.pool[0].rpc, ~0u);  // warp 1, never diverged
  EXPECT_EQ(t.pool[1].rpc, 20u);
  // Threads that join a warp which already has one do not change it.
  EXPECT_EQ(t.insert(10, std::vector<ext::dwf::Piece>{{1, 0xcu}}, 0, 30), 0u);
  EXPECT_EQ(t.pool[1].rpc, 20u);
  EXPECT_EQ(t.pool[1].f.lanes, 0xfu);
}

}  // namespace simtlab::testing
