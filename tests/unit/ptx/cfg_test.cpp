// Control-flow graph, immediate post-dominators (reconvergence points) and liveness
// (src/ptx/cfg.h). Expected IPDOMs are derived by hand from post-dominator theory: d
// post-dominates b when every path from b to the function exit passes through d; the IPDOM is
// the closest strict post-dominator. A random-CFG test checks the same definition by brute
// force.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "ptx/cfg.h"
#include "ptx_test_util.h"

namespace simtlab::ptx {
namespace {

using ::testing::ElementsAre;
using testing::fn;
using testing::parse;
using testing::parse_kernel;
using ::testing::UnorderedElementsAre;

constexpr int32_t kExit = -1;

/// Block index of the instruction a label points to.
int32_t block_of_label(const Function& f, const std::string& label) {
  for (size_t l = 0; l < f.label_names.size(); ++l)
    if (f.label_names[l] == label) return int32_t(f.block_of[size_t(f.label_target[l])]);
  throw std::runtime_error("no label " + label);
}

std::vector<int32_t> ipdoms(const Function& f) {
  std::vector<int32_t> out;
  for (const BasicBlock& b : f.blocks) out.push_back(b.ipdom);
  return out;
}

std::set<std::string> names(const Function& f, const BitSet& s) {
  std::set<std::string> out;
  s.for_each([&](size_t r) { out.insert(f.regs[r].name); });
  return out;
}

TEST(PtxCfg, StraightLine) {
  Module m = parse_kernel("\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 1;\n\tret;\n");
  const Function& k = fn(m, "k");
  ASSERT_EQ(k.blocks.size(), 1u);
  EXPECT_TRUE(k.blocks[0].reachable);
  EXPECT_TRUE(k.blocks[0].succs.empty());
  EXPECT_EQ(k.blocks[0].ipdom, kExit);
}

TEST(PtxCfg, DiamondReconvergesAtTheJoin) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra ELSE;
	add.s32 %r2, %r1, 1;
	bra.uni JOIN;
ELSE:
	sub.s32 %r2, %r1, 1;
JOIN:
	add.s32 %r3, %r2, %r2;
	ret;
)");
  const Function& k = fn(m, "k");
  // B0 [0,2) -> ELSE=B2, B1;  B1 [2,4) -> JOIN=B3;  B2 [4,5) -> B3;  B3 [5,7) -> exit.
  ASSERT_EQ(k.blocks.size(), 4u);
  EXPECT_THAT(k.blocks[0].succs, ElementsAre(2u, 1u));
  EXPECT_THAT(k.blocks[3].preds, UnorderedElementsAre(1u, 2u));
  // Every path from B0 goes through B3; B1 and B2 each lead straight to B3.
  EXPECT_THAT(ipdoms(k), ElementsAre(3, 3, 3, kExit));
  EXPECT_EQ(reconvergence_pc(k, 1), 5u);
}

TEST(PtxCfg, SeveralExitsOnlyMeetAtFunctionExit) {
  Module m = parse_kernel(R"(	.reg .pred %p<3>;
	.reg .b32 %r<4>;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra A;
	setp.eq.s32 %p2, %r1, 1;
	@%p2 bra B;
	add.s32 %r2, %r2, 1;
	ret;
A:
	exit;
B:
	add.s32 %r3, %r3, 1;
	ret;
)");
  const Function& k = fn(m, "k");
  // B0 [0,2) -> A=B3, B1;  B1 [2,4) -> B=B4, B2;  B2 [4,6) ret;  B3 [6,7) exit;  B4 [7,9) ret.
  ASSERT_EQ(k.blocks.size(), 5u);
  // Paths from B0 leave through three different blocks: only the exit post-dominates it.
  EXPECT_THAT(ipdoms(k), ElementsAre(kExit, kExit, kExit, kExit, kExit));
  EXPECT_EQ(reconvergence_pc(k, 1), k.insts.size());
  EXPECT_EQ(reconvergence_pc(k, 3), k.insts.size());
}

TEST(PtxCfg, GuardedRetAndTrapEndBlocks) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 ret;
	add.s32 %r2, %r2, 1;
	@!%p1 trap;
	add.s32 %r2, %r2, 2;
)");
  const Function& k = fn(m, "k");
  // B0 [0,2) -> exit, B1;  B1 [2,4) -> exit, B2;  B2 [4,5) falls off the end -> exit.
  ASSERT_EQ(k.blocks.size(), 3u);
  EXPECT_THAT(k.blocks[0].succs, ElementsAre(1u));
  EXPECT_THAT(k.blocks[1].succs, ElementsAre(2u));
  EXPECT_THAT(ipdoms(k), ElementsAre(kExit, kExit, kExit));
}

TEST(PtxCfg, UnreachableBlocksGetIpdomsToo) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	setp.ne.s32 %p1, %r1, 0;
	@%p1 bra L;
	bra.uni DONE;
	add.s32 %r2, %r2, 1;
L:
	add.s32 %r3, %r3, 1;
DONE:
	ret;
)");
  const Function& k = fn(m, "k");
  // B0 [0,2) -> L=B3, B1;  B1 [2,3) -> DONE=B4;  B2 [3,4) (no label, after bra.uni) -> B3;
  // B3 [4,5) -> B4;  B4 [5,6) ret.
  ASSERT_EQ(k.blocks.size(), 5u);
  EXPECT_TRUE(k.blocks[0].reachable);
  EXPECT_TRUE(k.blocks[1].reachable);
  EXPECT_FALSE(k.blocks[2].reachable);
  EXPECT_TRUE(k.blocks[3].reachable);
  EXPECT_THAT(ipdoms(k), ElementsAre(4, 4, 3, 4, kExit));
}

TEST(PtxCfg, InfiniteLoopWithoutAnyExit) {
  Module m = parse_kernel("\t.reg .b32 %r<2>;\nSPIN:\n\tadd.s32 %r1, %r1, 1;\n\tbra.uni SPIN;\n");
  const Function& k = fn(m, "k");
  ASSERT_EQ(k.blocks.size(), 1u);
  EXPECT_THAT(k.blocks[0].succs, ElementsAre(0u));
  EXPECT_EQ(k.blocks[0].ipdom, kExit);  // the virtual exit edge keeps it defined
  EXPECT_EQ(reconvergence_pc(k, 1), k.insts.size());
  Liveness L = compute_liveness(k);
  EXPECT_EQ(names(k, L.blocks.in[0]), std::set<std::string>{"%r1"});
}

TEST(PtxCfg, InfiniteLoopBesideAnExit) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra SPIN;
	ret;
SPIN:
	add.s32 %r2, %r2, 1;
	setp.ne.s32 %p1, %r2, 0;
	@%p1 bra SPIN;
	bra.uni SPIN;
)");
  const Function& k = fn(m, "k");
  // B0 [0,2) -> SPIN=B2, B1;  B1 [2,3) ret;  B2 [3,6) -> B2, B3;  B3 [6,7) -> B2.
  // B2 and B3 cannot reach the exit. build_cfg gives the last block of such a region (B3, the
  // loop bottom) a virtual edge to the exit. In that augmented graph:
  //  - B0: its paths leave through B1 (ret) or through B3's virtual edge: only the exit
  //    post-dominates it, so diverged threads only meet at function exit;
  //  - B2: every path to the exit goes through B3, its natural loop exit: IPDOM B3;
  //  - B1, B3: exit.
  ASSERT_EQ(k.blocks.size(), 4u);
  EXPECT_THAT(ipdoms(k), ElementsAre(kExit, kExit, 3, kExit));
}

TEST(PtxCfg, SeveralExitlessRegionsEachGetAVirtualExit) {
  Module m = parse_kernel(R"(	.reg .pred %p<4>;
	.reg .b32 %r<4>;
	setp.eq.u32 %p0, %r0, 0;
	@%p0 bra A;
	setp.eq.u32 %p1, %r0, 1;
	@%p1 bra B;
	setp.eq.u32 %p2, %r0, 2;
	@%p2 bra C;
	ret;
A:
	add.u32 %r1, %r1, 1;
	bra A;
B:
	add.u32 %r2, %r2, 1;
	setp.eq.u32 %p3, %r2, 7;
	@%p3 bra B2;
	bra B;
B2:
	bra B;
C:
	add.u32 %r3, %r3, 1;
	bra C;
)");
  const Function& k = fn(m, "k");
  // B0-B2 branch to the spin loops A = B4, B = B5..B7 (B5 -> B7, B6; B6, B7 -> B5), C = B8;
  // B3 returns. Each exit-less region's highest block gets a virtual edge to the exit, the
  // highest first (C, then B2 = B7, then A): B7 is the way out of region B, so it
  // post-dominates B5, and B5 post-dominates B6. The incremental search that adds the edges
  // (build_cfg) must give what a search from the exit after each edge gives.
  ASSERT_EQ(k.blocks.size(), 9u);
  EXPECT_THAT(ipdoms(k), ElementsAre(kExit, kExit, kExit, kExit, kExit, 7, 5, kExit, kExit));
}

TEST(PtxCfg, NestedLoopsWithBreak) {
  Module m = parse_kernel(R"(	.reg .pred %p<4>;
	.reg .b32 %r<5>;
	mov.u32 %r1, 0;
OUTER:
	mov.u32 %r2, 0;
INNER:
	add.s32 %r2, %r2, 1;
	setp.eq.s32 %p1, %r2, 7;
	@%p1 bra BREAK;
	setp.lt.s32 %p2, %r2, 10;
	@%p2 bra INNER;
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p3, %r1, 4;
	@%p3 bra OUTER;
BREAK:
	ret;
)");
  const Function& k = fn(m, "k");
  const int32_t outer = block_of_label(k, "OUTER"), inner = block_of_label(k, "INNER"),
                brk = block_of_label(k, "BREAK");
  // B0 [0,1) -> OUTER;  OUTER=B1 [1,2) -> INNER;  INNER=B2 [2,5) -> BREAK, B3;
  // B3 [5,7) -> INNER, B4;  B4 [7,10) -> OUTER, BREAK;  BREAK=B5 ret.
  ASSERT_EQ(k.blocks.size(), 6u);
  EXPECT_EQ(outer, 1);
  EXPECT_EQ(inner, 2);
  EXPECT_EQ(brk, 5);
  // Every way out of both loops ends in BREAK: all blocks reconverge there.
  EXPECT_THAT(ipdoms(k), ElementsAre(1, 2, 5, 5, 5, kExit));
}

// The golden kernels (tests/data/ptx/golden_cfg.ptx); derivations in tests/golden/ptx/README.md.
TEST(PtxCfg, GoldenKernelsHaveHandDerivedIpdoms) {
  Module m =
      parse_module(testing::read_text(std::string(SIMTLAB_TEST_DATA_DIR) + "/ptx/golden_cfg.ptx"),
                   "golden_cfg.ptx");
  {
    const Function& f = fn(m, "loop_break");
    // B0 -> B4|B1, B1 -> B2 (loop head $L__BB1_2), B2 -> B4 (break) | B3, B3 -> B2 | B4.
    EXPECT_THAT(ipdoms(f), ElementsAre(4, 2, 4, 4, kExit));
    EXPECT_EQ(block_of_label(f, "$L__BB1_4"), 4);
  }
  {
    const Function& f = fn(m, "nested_if");
    // B0 -> B2|B1; B1 -> B5; B2 -> B4|B3; B3 -> B6; B4 -> B7; B5 -> B8; B6 -> B7; B7 -> B8.
    EXPECT_THAT(ipdoms(f), ElementsAre(8, 5, 7, 6, 7, 8, 7, 8, kExit));
  }
  {
    const Function& f = fn(m, "early_return");
    // B0 -> B5|B1 (early return), B1 -> B3|B2, B2 -> B4, B3 -> B5, B4 -> B5, B5 ret.
    EXPECT_THAT(ipdoms(f), ElementsAre(5, 5, 4, 5, 5, kExit));
  }
  {
    const Function& f = fn(m, "classify");
    // B0..B2 each branch to B4 (ret) or fall on; B3 is `exit`: two ways out, no join.
    EXPECT_THAT(ipdoms(f), ElementsAre(kExit, kExit, kExit, kExit, kExit));
  }
  {
    const Function& f = fn(m, "multi_exit");
    EXPECT_EQ(f.blocks.size(), 1u);  // a call does not end a basic block
  }
}

// ---- brute-force IPDOM check on random CFGs -------------------------------------------------

struct RandomCfg {
  std::string ptx;
  std::vector<std::vector<int>> succ;  // -1 = exit
};

RandomCfg random_cfg(std::mt19937& rng, int n) {
  RandomCfg c;
  c.succ.resize(size_t(n));
  std::string body = "\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n";
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int b = 0; b < n; ++b) {
    body += "L" + std::to_string(b) + ":\n\tadd.s32 %r1, %r1, 1;\n";
    const int fall = b + 1 < n ? b + 1 : -1;
    const int target = pick(0, n - 1);
    switch (pick(0, 6)) {
      case 0:  // fall through
        c.succ[size_t(b)] = {fall};
        break;
      case 1:
      case 2:
        body += "\t@%p1 bra L" + std::to_string(target) + ";\n";
        c.succ[size_t(b)] = {target, fall};
        break;
      case 3:
        body += "\tbra.uni L" + std::to_string(target) + ";\n";
        c.succ[size_t(b)] = {target};
        break;
      case 4:
        body += "\tret;\n";
        c.succ[size_t(b)] = {-1};
        break;
      case 5:
        body += "\t@!%p1 ret;\n";
        c.succ[size_t(b)] = {-1, fall};
        break;
      default:
        body += "\texit;\n";
        c.succ[size_t(b)] = {-1};
        break;
    }
  }
  c.ptx = std::string(testing::kHeader) + ".visible .entry k()\n{\n" + body + "}\n";
  return c;
}

/// Whether `from` reaches the exit without passing through `removed`.
bool reaches_exit(const RandomCfg& c, int from, int removed) {
  std::vector<bool> seen(c.succ.size(), false);
  std::vector<int> st{from};
  while (!st.empty()) {
    int b = st.back();
    st.pop_back();
    if (b == removed || seen[size_t(b)]) continue;
    seen[size_t(b)] = true;
    for (int s : c.succ[size_t(b)]) {
      if (s < 0) return true;
      st.push_back(s);
    }
  }
  return false;
}

TEST(PtxCfg, RandomCfgsMatchBruteForcePostDominators) {
  std::mt19937 rng(20240611);
  int checked = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int n = 2 + iter % 12;
    RandomCfg c = random_cfg(rng, n);
    Module m = parse_module(c.ptx, "random.ptx");
    const Function& f = fn(m, "k");
    ASSERT_EQ(f.blocks.size(), size_t(n)) << c.ptx;
    bool all_exit = true;
    for (int b = 0; b < n; ++b) all_exit = all_exit && reaches_exit(c, b, -2);
    for (int b = 0; b < n; ++b) {
      std::set<uint32_t> want;
      for (int s : c.succ[size_t(b)])
        if (s >= 0) want.insert(uint32_t(s));
      std::set<uint32_t> got(f.blocks[size_t(b)].succs.begin(), f.blocks[size_t(b)].succs.end());
      ASSERT_EQ(got, want) << "block " << b << "\n" << c.ptx;
      const int32_t ip = f.blocks[size_t(b)].ipdom;
      ASSERT_NE(ip, b) << c.ptx;
      if (!reaches_exit(c, b, -2)) continue;
      // The IPDOM post-dominates b: removing it disconnects b from the exit...
      if (ip >= 0) {
        ASSERT_FALSE(reaches_exit(c, b, ip)) << "block " << b << "\n" << c.ptx;
      }
      if (!all_exit) continue;  // exit-less regions get virtual exit edges; stop here
      // ...and is the closest one: every strict post-dominator of b post-dominates it.
      std::vector<int> pdoms;
      for (int d = 0; d < n; ++d)
        if (d != b && !reaches_exit(c, b, d)) pdoms.push_back(d);
      if (pdoms.empty()) {
        ASSERT_EQ(ip, kExit) << "block " << b << "\n" << c.ptx;
        continue;
      }
      int closest = -1;
      for (int d : pdoms) {
        bool all = true;
        for (int e : pdoms) {
          if (e != d && reaches_exit(c, d, e)) all = false;
        }
        if (all) closest = d;
      }
      ASSERT_EQ(ip, closest) << "block " << b << "\n" << c.ptx;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);
}

// ---- liveness -------------------------------------------------------------------------------

TEST(PtxLiveness, ExactLiveSetsOnADiamond) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<2>;
	mov.u64 %rd1, 0;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra ELSE;
	add.s32 %r3, %r1, 1;
	bra.uni JOIN;
ELSE:
	mov.u32 %r3, %r2;
JOIN:
	add.s32 %r4, %r3, %r1;
	st.global.u32 [%rd1], %r4;
	ret;
)");
  const Function& k = fn(m, "k");
  ASSERT_EQ(k.blocks.size(), 4u);
  Liveness L = compute_liveness(k);
  using S = std::set<std::string>;
  EXPECT_EQ(names(k, L.blocks.in[0]), S{});
  EXPECT_EQ(names(k, L.blocks.out[0]), (S{"%r1", "%r2", "%rd1"}));
  EXPECT_EQ(names(k, L.blocks.in[1]), (S{"%r1", "%rd1"}));
  EXPECT_EQ(names(k, L.blocks.out[1]), (S{"%r1", "%r3", "%rd1"}));
  EXPECT_EQ(names(k, L.blocks.in[2]), (S{"%r1", "%r2", "%rd1"}));
  EXPECT_EQ(names(k, L.blocks.out[2]), (S{"%r1", "%r3", "%rd1"}));
  EXPECT_EQ(names(k, L.blocks.in[3]), (S{"%r1", "%r3", "%rd1"}));
  EXPECT_EQ(names(k, L.blocks.out[3]), S{});
  // Widest point: %rd1 (2 slots) + %r1 + %r2 (or %r3) = 4 slots, plus %p1 before the branch.
  EXPECT_EQ(L.max_live_slots, 4u);
  EXPECT_EQ(L.max_live_preds, 1u);
}

TEST(PtxLiveness, LoopCarriedAndGuardedDefinitions) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	mov.u32 %r1, 0;
	mov.u32 %r2, 10;
LOOP:
	@%p1 mov.u32 %r5, 1;
	add.s32 %r3, %r5, %r1;
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, %r2;
	@%p1 bra LOOP;
	ret;
)");
  const Function& k = fn(m, "k");
  // B0 [0,2) -> LOOP=B1;  B1 [2,7) -> B1, B2;  B2 ret.
  ASSERT_EQ(k.blocks.size(), 3u);
  Liveness L = compute_liveness(k);
  using S = std::set<std::string>;
  // %r5's definition is guarded, so it does not kill: %r5 is live into the loop and into the
  // kernel (never unconditionally defined). %p1 is read by the guard before its setp.
  EXPECT_EQ(names(k, L.blocks.in[1]), (S{"%p1", "%r1", "%r2", "%r5"}));
  EXPECT_EQ(names(k, L.blocks.out[1]), (S{"%p1", "%r1", "%r2", "%r5"}));
  EXPECT_EQ(names(k, L.blocks.in[0]), (S{"%p1", "%r5"}));
  EXPECT_EQ(names(k, L.blocks.in[2]), S{});
}

TEST(PtxDataflow, ForwardIntersectionReachesAFixedPoint) {
  // "Definitely assigned" registers: forward, intersection, gen = registers written.
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	mov.u32 %r1, 1;
	@%p1 bra B;
	mov.u32 %r2, 2;
	mov.u32 %r3, 3;
	bra.uni C;
B:
	mov.u32 %r3, 4;
C:
	ret;
)");
  const Function& k = fn(m, "k");
  ASSERT_EQ(k.blocks.size(), 4u);
  DataflowProblem p;
  p.dir = DataflowProblem::Dir::forward;
  p.meet = DataflowProblem::Meet::intersection;
  p.bits = k.regs.size();
  p.boundary = BitSet(p.bits);
  std::vector<uint32_t> defs;
  for (const BasicBlock& b : k.blocks) {
    BitSet gen(p.bits);
    for (uint32_t i = b.first; i < b.last; ++i) {
      inst_defs(k.insts[i], defs);
      for (uint32_t d : defs) gen.set(d);
    }
    p.gen.push_back(gen);
    p.kill.emplace_back(p.bits);
  }
  DataflowResult r = solve_dataflow(k, p);
  using S = std::set<std::string>;
  EXPECT_EQ(names(k, r.in[0]), S{});
  EXPECT_EQ(names(k, r.in[3]), (S{"%r1", "%r3"}));  // %r2 only on one path
}

}  // namespace
}  // namespace simtlab::ptx
