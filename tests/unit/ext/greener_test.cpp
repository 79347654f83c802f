// GREENER (src/ext/greener, thesis ch. 4): the compile-time analysis on small instruction
// graphs (Dist with threshold W, liveness, Table 4.1, the 1 dst + 2 src encoding).
#include <gtest/gtest.h>

#include "ext/greener/analysis.h"

namespace simtlab::ext::greener {
namespace {

constexpr uint8_t INF = kDistInf;

// A straight-line graph of `n` nodes (i -> i + 1), the last one an exit.
Graph line(uint32_t n, uint32_t nregs) {
  Graph g;
  g.nregs = nregs;
  g.nodes.resize(n);
  for (uint32_t i = 0; i + 1 < n; ++i) g.nodes[i].succ = {i + 1};
  g.nodes[n - 1].exit = true;
  return g;
}

TEST(GreenerAnalysis, StraightLineDistanceSaturatesAtW) {
  // 0: R0 = ..; 1, 2: other; 3: .. = R0; 4: exit.
  Graph g = line(5, 2);
  g.nodes[0].dst = {{0, 1}};
  g.nodes[3].src = {{0, 1}};
  const Analysis a3 = analyze(g, 3);
  EXPECT_EQ(a3.dist(2, 0), 1);
  EXPECT_EQ(a3.dist(1, 0), 2);
  EXPECT_EQ(a3.dist(0, 0), 3);
  EXPECT_TRUE(a3.live(0, 0));
  EXPECT_EQ(a3.power(0, 0), PState::on);  // next access 3 instructions on, W = 3: ON
  EXPECT_EQ(a3.dist(3, 0), INF);          // no further access
  EXPECT_FALSE(a3.live(3, 0));
  EXPECT_EQ(a3.power(3, 0), PState::off);
  // R1 is never accessed: OFF everywhere.
  for (uint32_t n = 0; n < 5; ++n) EXPECT_EQ(a3.power(n, 1), PState::off);
  // W = 2: INC(2) = INF, so the read 3 instructions on is far: live and far -> SLEEP.
  const Analysis a2 = analyze(g, 2);
  EXPECT_EQ(a2.dist(1, 0), 2);
  EXPECT_EQ(a2.dist(0, 0), INF);
  EXPECT_EQ(a2.power(0, 0), PState::sleep);
  EXPECT_EQ(a2.power(1, 0), PState::on);
  // W = 1: only the very next instruction is near.
  const Analysis a1 = analyze(g, 1);
  EXPECT_EQ(a1.dist(2, 0), 1);
  EXPECT_EQ(a1.dist(1, 0), INF);
  EXPECT_EQ(a1.power(1, 0), PState::sleep);
}

TEST(GreenerAnalysis, FarNextWriteIsOffNearNextWriteIsOn) {
  // 0: R0 = ..; 1: .. = R0; 2..5: other; 6: R0 = ..; 7: .. = R0; 8: exit.
  Graph g = line(9, 1);
  g.nodes[0].dst = {{0, 1}};
  g.nodes[1].src = {{0, 1}};
  g.nodes[6].dst = {{0, 1}};
  g.nodes[7].src = {{0, 1}};
  const Analysis a = analyze(g, 3);
  EXPECT_EQ(a.dist(1, 0), INF);  // next access (the write at 6) is 5 instructions on
  EXPECT_FALSE(a.live(1, 0));    // ... and it is a write: dead
  EXPECT_EQ(a.power(1, 0), PState::off);
  EXPECT_EQ(a.dist(4, 0), 2);
  EXPECT_FALSE(a.live(4, 0));
  EXPECT_EQ(a.power(4, 0), PState::on);  // not live but near (Table 4.1 row 4)
  // A guarded write does not kill: the value read at 7 may come from before it.
  g.nodes[6].guarded = true;
  const Analysis b = analyze(g, 3);
  EXPECT_TRUE(b.live(1, 0));
  EXPECT_EQ(b.power(1, 0), PState::sleep);
}

// Thesis Fig. 4.4(a): S0 defines r0; along S10 the next use (S11) is at distance 2, along S1
// the next use is S9, far beyond W. The MAX at the branch makes OUT(S0) INF: SLEEP.
Graph fig44() {
  Graph g;
  g.nregs = 1;
  g.nodes.resize(13);
  g.nodes[0].dst = {{0, 1}};
  g.nodes[0].succ = {1, 10};
  for (uint32_t i = 1; i < 9; ++i) g.nodes[i].succ = {i + 1};
  g.nodes[9].src = {{0, 1}};
  g.nodes[9].succ = {12};
  g.nodes[10].succ = {11};
  g.nodes[11].src = {{0, 1}};
  g.nodes[11].succ = {12};
  g.nodes[12].exit = true;
  return g;
}

TEST(GreenerAnalysis, Fig44BranchTakesTheMaximum) {
  const Graph g = fig44();
  const Analysis a = analyze(g, 3);
  EXPECT_EQ(a.dist(10, 0), 1);
  EXPECT_EQ(a.dist(1, 0), INF);  // S2..S8 then S9: 8 instructions on
  EXPECT_EQ(a.dist(0, 0), INF);  // MAX(INF, 2)
  EXPECT_TRUE(a.live(0, 0));
  EXPECT_EQ(a.power(0, 0), PState::sleep);
  EXPECT_EQ(a.power(10, 0), PState::on);
  EXPECT_EQ(a.power(9, 0), PState::off);
  EXPECT_EQ(a.power(11, 0), PState::off);
  // With W = 9 the S1 path is near too (S9 is 9 instructions after S0): ON.
  const Analysis b = analyze(g, 9);
  EXPECT_EQ(b.dist(0, 0), 9);
  EXPECT_EQ(b.power(0, 0), PState::on);
}

TEST(GreenerAnalysis, LoopFixpoint) {
  // 0: R0 = ..; 1: .. = R0 (loop head); 2..5: other; 6: branch to 1 or fall to 7;
  // 7: .. = R0; 8: exit.
  Graph g = line(9, 1);
  g.nodes[0].dst = {{0, 1}};
  g.nodes[1].src = {{0, 1}};
  g.nodes[6].succ = {1, 7};
  g.nodes[7].src = {{0, 1}};
  const Analysis a7 = analyze(g, 7);
  EXPECT_EQ(a7.dist(6, 0), 1);
  EXPECT_EQ(a7.dist(1, 0), 6);  // around the loop: 2, 3, 4, 5, 6, then 1
  EXPECT_EQ(a7.power(1, 0), PState::on);
  const Analysis a5 = analyze(g, 5);
  EXPECT_EQ(a5.dist(1, 0), INF);
  EXPECT_EQ(a5.power(1, 0), PState::sleep);  // live (read again at 1 or 7) and far
  EXPECT_EQ(a5.power(0, 0), PState::on);
  // A loop whose body never touches R1: INF everywhere in it, OFF.
  Graph h = g;
  h.nregs = 2;
  const Analysis c = analyze(h, 21);
  for (uint32_t n = 0; n < 9; ++n) EXPECT_EQ(c.power(n, 1), PState::off) << n;
}

TEST(GreenerAnalysis, PairOperandTakesTheMostPoweredState) {
  // 0: R2:R3 = ..; 1: .. = R2; 2..6 other; 7: .. = R3; 8: exit.
  Graph g = line(9, 4);
  g.nodes[0].dst = {{2, 2}};
  g.nodes[1].src = {{2, 1}};
  g.nodes[7].src = {{3, 1}};
  const Analysis a = analyze(g, 3);
  EXPECT_EQ(a.power(0, 2), PState::on);
  EXPECT_EQ(a.power(0, 3), PState::sleep);
  const Encoded e = encode(g, a, 0, 2, 1);
  ASSERT_EQ(e.dst.size(), 1u);
  EXPECT_EQ(e.dst[0], PState::on);
}

TEST(GreenerAnalysis, EncodingOneDestinationTwoSources) {
  // 0: R0, R1 = R2, R3, R4, R2 (R2 twice); 1: .. = R0, R1, R2, R3, R4; 2: exit.
  Graph g = line(3, 5);
  g.nodes[0].dst = {{0, 1}, {1, 1}};
  g.nodes[0].src = {{2, 1}, {3, 1}, {4, 1}, {2, 1}};
  g.nodes[1].src = {{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}};
  const Analysis a = analyze(g, 3);
  for (uint32_t r = 0; r < 5; ++r) EXPECT_EQ(a.power(0, r), PState::on) << r;
  const Encoded e = encode(g, a, 0, 2, 1);
  ASSERT_EQ(e.dst.size(), 2u);
  EXPECT_EQ(e.dst[0], PState::on);
  EXPECT_EQ(e.dst[1], PState::sleep);  // second destination: not encoded
  ASSERT_EQ(e.src.size(), 4u);
  EXPECT_EQ(e.src[0], PState::on);
  EXPECT_EQ(e.src[1], PState::on);
  EXPECT_EQ(e.src[2], PState::sleep);  // third distinct source: not encoded
  EXPECT_EQ(e.src[3], PState::on);     // R2 again: the same encoded slot
  // Encoding everything: all ON; encoding nothing (Sleep-Reg-like): all SLEEP.
  const Encoded all = encode(g, a, 0, 8, 4);
  for (PState s : all.src) EXPECT_EQ(s, PState::on);
  const Encoded none = encode(g, a, 0, 0, 0);
  for (PState s : none.src) EXPECT_EQ(s, PState::sleep);
  for (PState s : none.dst) EXPECT_EQ(s, PState::sleep);
}

TEST(GreenerAnalysis, Table41) {
  EXPECT_EQ(table41(true, true), PState::sleep);
  EXPECT_EQ(table41(true, false), PState::on);
  EXPECT_EQ(table41(false, true), PState::off);
  EXPECT_EQ(table41(false, false), PState::on);
}

}  // namespace
}  // namespace simtlab::ext::greener
