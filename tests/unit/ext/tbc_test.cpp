// Thread block compaction (sim.divergence=tbc, src/ext/tbc; Fung & Aamodt HPCA 2011): exact
// lane-aware compaction, the CTA-wide stack's entries and reconvergence points on small CFGs
// (diamond, nested diamond, loop with a break, early exit), and the timing model running
// the same kernels: same results as the IPDOM stack, the warp instructions compaction saves.
#include <gtest/gtest.h>

#include "ext/tbc/tbc.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

using ext::tbc::compact;
using ext::tbc::CtaStack;
using ext::tbc::Cw;
using ext::tbc::Piece;
using ext::tbc::TbcCta;

constexpr LaneMask kLo = 0x0000ffffu, kHi = 0xffff0000u, kAll = 0xffffffffu;

TEST(TbcCompact, LaneAwareKthThreadOfEachLane) {
  // 3 warps, lanes 0..2: lane 0 in warps 0,1; lane 1 in warps 0,2; lane 2 in warps 1,2.
  const std::vector<LaneMask> m = {0b011, 0b101, 0b110};
  const auto f = compact(m);
  ASSERT_EQ(f.size(), 2u);  // the most threads any lane has
  EXPECT_EQ(f[0].pieces, (std::vector<Piece>{{0, 0b011}, {1, 0b100}}));
  EXPECT_EQ(f[1].pieces, (std::vector<Piece>{{1, 0b001}, {2, 0b110}}));
  EXPECT_EQ(f[0].lanes, 0b111u);
  EXPECT_EQ(f[1].lanes, 0b111u);
}

TEST(TbcCompact, FullWarpsStayStaticAndComplementaryHalvesMerge) {
  const std::vector<LaneMask> full = {kAll, kAll, kAll};
  const auto s = compact(full);
  ASSERT_EQ(s.size(), 3u);
  for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(s[k].pieces, (std::vector<Piece>{{k, kAll}}));
  // The book's Figure 3.13 case: the taken threads of two warps occupy disjoint lanes.
  const std::vector<LaneMask> halves = {kLo, kHi, 0, kLo};
  const auto h = compact(halves);
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].pieces, (std::vector<Piece>{{0, kLo}, {1, kHi}}));
  EXPECT_EQ(h[1].pieces, (std::vector<Piece>{{3, kLo}}));
  EXPECT_TRUE(compact(std::vector<LaneMask>{0, 0}).empty());
}

// Drive a TbcCta as the SM does: every compacted warp executes the branch with the given
// per-warp outcome (taken lanes), or reaches a PC.
ext::tbc::Settled branch_all(TbcCta& t, uint32_t pc, uint32_t target, uint32_t reconv,
                             const std::vector<LaneMask>& taken_by_warp) {
  const size_t n = t.cws.size();
  for (size_t i = 0; i < n; ++i) {
    std::vector<LaneMask> tk, nt;
    for (const Piece& p : t.cws[i].f.pieces) {
      tk.push_back(p.mask & taken_by_warp[p.warp]);
      nt.push_back(p.mask & ~taken_by_warp[p.warp]);
    }
    t.arrive_branch(i, pc, target, reconv, tk, nt);
    if (i + 1 < n) {
      EXPECT_FALSE(t.settle(0).any);  // the others have not arrived
    }
  }
  return t.settle(5);
}
void reach_all(TbcCta& t, uint32_t pc) {
  for (size_t i = 0; i < t.cws.size(); ++i) t.advance(i, pc);
}

TEST(TbcCta, DiamondCompactsEachPathAndReconvergesAtTheIpdom) {
  // if (taken) {10..11} else {7..9}; join at 12. Warp 0 takes in lanes 0-15, warp 1 in 16-31.
  TbcCta t({kAll, kAll}, 0);
  ASSERT_EQ(t.cws.size(), 2u);
  EXPECT_EQ(t.cws[1].f.pieces, (std::vector<Piece>{{1, kAll}}));
  ext::tbc::Settled s = branch_all(t, 6, 10, 12, {kLo, kHi});
  EXPECT_TRUE(s.diverged);
  EXPECT_EQ(s.formed, 1u);
  EXPECT_EQ(s.compacted, 1u);
  // Stack: [join (12, -), fall-through (7 -> 12), taken (10 -> 12)]; the taken path runs first.
  ASSERT_EQ(t.stack().depth(), 3u);
  EXPECT_EQ(t.stack().entries()[0].pc, 12u);
  EXPECT_EQ(t.stack().entries()[1].pc, 7u);
  EXPECT_EQ(t.stack().entries()[1].rpc, 12u);
  EXPECT_EQ(t.stack().entries()[1].mask, (std::vector<LaneMask>{kHi, kLo}));
  ASSERT_EQ(t.cws.size(), 1u);
  EXPECT_EQ(t.cws[0].pc, 10u);
  EXPECT_EQ(t.cws[0].ready_at, 5u);
  EXPECT_EQ(t.cws[0].f.pieces, (std::vector<Piece>{{0, kLo}, {1, kHi}}));
  t.advance(0, 11);
  EXPECT_EQ(t.cws[0].st, Cw::St::run);
  t.advance(0, 12);  // the reconvergence point
  EXPECT_EQ(t.cws[0].st, Cw::St::rpc);
  s = t.settle(0);
  EXPECT_EQ(s.pops, 1u);
  ASSERT_EQ(t.cws.size(), 1u);
  EXPECT_EQ(t.cws[0].pc, 7u);
  EXPECT_EQ(t.cws[0].f.pieces, (std::vector<Piece>{{0, kHi}, {1, kLo}}));
  t.advance(0, 12);
  s = t.settle(0);
  EXPECT_EQ(s.pops, 1u);
  ASSERT_EQ(t.cws.size(), 2u);  // back to the static warps at the join
  EXPECT_EQ(t.cws[0].pc, 12u);
  EXPECT_EQ(t.cws[0].f.pieces, (std::vector<Piece>{{0, kAll}}));
  EXPECT_EQ(t.stack().depth(), 1u);
}

TEST(TbcCta, NestedDiamondReconvergesInnerThenOuter) {
  // Outer branch at 2 (target 20, reconv 40); inside the taken path a branch at 21 (target 30,
  // reconv 35). Warp 0: outer-taken lanes 0-15; inner-taken among them lanes 0-7.
  TbcCta t({kAll}, 0);
  branch_all(t, 2, 20, 40, {kLo});
  ASSERT_EQ(t.stack().depth(), 3u);
  EXPECT_EQ(t.cws[0].pc, 20u);
  t.advance(0, 21);
  branch_all(t, 21, 30, 35, {0xffu});
  ASSERT_EQ(t.stack().depth(), 5u);  // [40, 3->40, 35->40, 22->35, 30->35]
  EXPECT_EQ(t.stack().entries()[2].pc, 35u);
  EXPECT_EQ(t.stack().entries()[2].rpc, 40u);
  EXPECT_EQ(t.stack().entries()[3].mask[0], 0xff00u);
  EXPECT_EQ(t.cws[0].pc, 30u);
  EXPECT_EQ(t.cws[0].f.lanes, 0xffu);
  reach_all(t, 35);
  t.settle(0);
  EXPECT_EQ(t.cws[0].pc, 22u);
  EXPECT_EQ(t.cws[0].f.lanes, 0xff00u);
  reach_all(t, 35);
  t.settle(0);  // inner reconvergence: the outer taken path's threads together again
  EXPECT_EQ(t.cws[0].pc, 35u);
  EXPECT_EQ(t.cws[0].f.lanes, kLo);
  EXPECT_EQ(t.stack().depth(), 3u);
  reach_all(t, 40);
  t.settle(0);
  EXPECT_EQ(t.cws[0].pc, 3u);
  EXPECT_EQ(t.cws[0].f.lanes, kHi);
  reach_all(t, 40);
  t.settle(0);
  EXPECT_EQ(t.cws[0].pc, 40u);
  EXPECT_EQ(t.cws[0].f.lanes, kAll);
  EXPECT_EQ(t.stack().depth(), 1u);
}

TEST(TbcCta, LoopBreakLeaversWaitAtTheExitAndUniformBranchesKeepTheWarps) {
  // Loop head 5; the break at 7 jumps to the exit 10 (its IPDOM). Warp 0's lanes 16-31 and warp
  // 1's lanes 0-15 leave in the first iteration: the loopers compact into one warp.
  TbcCta t({kAll, kAll}, 5);
  branch_all(t, 7, 10, 10, {kHi, kLo});
  // The exit is the reconvergence PC: no taken entry; the bottom entry now waits at 10.
  ASSERT_EQ(t.stack().depth(), 2u);
  EXPECT_EQ(t.stack().entries()[0].pc, 10u);
  EXPECT_EQ(t.stack().entries()[1].pc, 8u);
  ASSERT_EQ(t.cws.size(), 1u);
  EXPECT_EQ(t.cws[0].f.pieces, (std::vector<Piece>{{0, kLo}, {1, kHi}}));
  // Second iteration: nobody leaves (uniform): the same warp goes on at 8.
  t.advance(0, 9);
  t.advance(0, 5);
  t.advance(0, 7);
  const ext::tbc::Settled u = branch_all(t, 7, 10, 10, {0, 0});
  EXPECT_TRUE(u.uniform);
  EXPECT_FALSE(u.diverged);
  EXPECT_EQ(t.cws[0].pc, 8u);
  EXPECT_EQ(t.stack().depth(), 2u);
  // Third: everybody leaves: the loop entry pops, the CTA is whole again at 10.
  t.advance(0, 9);
  t.advance(0, 5);
  t.advance(0, 7);
  branch_all(t, 7, 10, 10, {kAll, kAll});
  EXPECT_EQ(t.stack().depth(), 1u);
  ASSERT_EQ(t.cws.size(), 2u);
  EXPECT_EQ(t.cws[0].pc, 10u);
  EXPECT_EQ(t.cws[1].f.pieces, (std::vector<Piece>{{1, kAll}}));
}

TEST(TbcCta, EarlyExitShrinksWarpsAndTheNextCompactionMergesThem) {
  TbcCta t({kAll, kAll}, 0);
  t.exit(0, kHi);  // early exit of half of each warp
  t.exit(1, kLo);
  EXPECT_EQ(t.cws.size(), 2u);  // compaction waits for the next branch
  EXPECT_EQ(t.cws[0].f.lanes, kLo);
  branch_all(t, 4, 9, 12, {0x5555u, 0x55550000u});  // even lanes branch
  ASSERT_EQ(t.cws.size(), 1u);
  EXPECT_EQ(t.cws[0].f.pieces, (std::vector<Piece>{{0, 0x5555u}, {1, 0x55550000u}}));
  reach_all(t, 12);
  t.settle(0);
  EXPECT_EQ(t.cws[0].f.pieces, (std::vector<Piece>{{0, 0xaaaau}, {1, 0xaaaa0000u}}));
  reach_all(t, 12);
  t.settle(0);  // the join compacts the survivors of both warps into one warp
  ASSERT_EQ(t.cws.size(), 1u);
  EXPECT_EQ(t.cws[0].f.pieces, (std::vector<Piece>{{0, kLo}, {1, kHi}}));
  t.exit(0, kLo);
  t.exit(1, kHi);
  EXPECT_EQ(t.cws[0].f.lanes, 0u);
  t.settle(0);
  EXPECT_TRUE(t.done());
}

TEST(TbcCta, SyncPointReformsStaticWarps) {
  TbcCta t({kAll, kAll}, 0);
  t.exit(0, kHi);
  t.exit(1, kLo);
  branch_all(t, 1, 5, 5, {0, 0x00ff0000u});  // some of warp 1 skip ahead to 5
  ASSERT_EQ(t.cws.size(), 1u);
  t.arrive_sync(0);  // a __shfl_sync at 2: the home warps' lanes together again
  const ext::tbc::Settled s = t.settle(0);
  EXPECT_TRUE(s.synced);
  ASSERT_EQ(t.cws.size(), 2u);
  EXPECT_EQ(t.cws[0].pc, 2u);
  EXPECT_EQ(t.cws[0].f.pieces, (std::vector<Piece>{{0, kLo}}));
  EXPECT_EQ(t.cws[1].f.pieces, (std::vector<Piece>{{1, 0xff000000u}}));
  EXPECT_TRUE(t.cws[1].sync_pass);
}

}  // namespace
}  // namespace simtlab::testing
