// The thesis ch. 3 compiler passes (src/ptx/relssp.h) on small CFGs: which instructions touch
// the shared scratchpad region, Pre/Post access ranges, critical edges and their splitting, the
// Safe/INS placement of relssp (eq. 3.1/3.2) and the PostDom variant, and the minimize layout.
// Every expectation is derived by hand from the equations in the header.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptx/layout.h"
#include "ptx/relssp.h"
#include "ptx_test_util.h"

namespace simtlab::ptx {
namespace {

using ::testing::ElementsAre;
using testing::parse_kernel;

// The kernel's code as "op op L:op ..." (L: marks an instruction some label points to;
// guarded instructions get a leading @).
std::string code(const Function& f) {
  std::string s;
  for (size_t i = 0; i < f.insts.size(); ++i) {
    bool lab = false;
    for (int32_t t : f.label_target) lab |= t == int32_t(i);
    if (!s.empty()) s += ' ';
    if (lab) s += "L:";
    if (f.insts[i].guard >= 0) s += '@';
    s += std::string(op_name(f.insts[i].op));
  }
  return s;
}

Function& kf(Module& m) { return m.funcs[m.func_index.at("k")]; }

std::vector<bool> shared_acc(const Module& m, const Function& f, double t = 0.1) {
  const KernelLayout lay = layout_kernel(m, m.func_index.at("k"));
  return shared_region_accesses(m, smem_accesses(m, f), lay.shared_offset,
                                uint32_t(t * lay.static_shared + 1e-9));
}

std::vector<uint32_t> true_at(const std::vector<bool>& v) {
  std::vector<uint32_t> o;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i]) o.push_back(uint32_t(i));
  return o;
}

// A diamond whose taken side skips the only access: the edge B0 -> JOIN is critical.
const char* kSkipTaken = R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.shared .align 4 .b8 sA[256];
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra JOIN;
	st.shared.u32 [sA+128], %r1;
JOIN:
	add.s32 %r2, %r1, 1;
	ret;
)";

TEST(Relssp, SharedRegionAccessesFollowTheLayoutAndPointers) {
  Module m = parse_kernel(R"(	.reg .b32 %r<8>;
	.shared .align 4 .b8 sB[16];
	.shared .align 4 .b8 sA[240];
	mov.u32 %r1, %tid.x;
	st.shared.u32 [sB+4], %r1;
	ld.shared.u32 %r2, [sB];
	mov.u32 %r3, sA;
	shl.b32 %r4, %r1, 2;
	add.s32 %r5, %r3, %r4;
	st.shared.u32 [%r5], %r2;
	st.shared.u32 [%r4], %r2;
	ld.shared.u32 %r6, [sA+200];
	ret;
)");
  const Function& f = kf(m);
  const std::vector<SmemAccess> acc = smem_accesses(m, f);
  ASSERT_EQ(acc[1].vars.size(), 1u);  // a direct symbol
  EXPECT_EQ(m.vars[acc[1].vars[0]].name, "sB");
  EXPECT_FALSE(acc[6].unknown);  // [%r5] derives from sA through mov and add
  ASSERT_EQ(acc[6].vars.size(), 1u);
  EXPECT_EQ(m.vars[acc[6].vars[0]].name, "sA");
  EXPECT_TRUE(acc[7].unknown);  // [%r4]: no variable known
  // 256 bytes, t = 0.1: the shared region starts at 25. sB [0,16) is private; sA [16,256)
  // straddles it (its dynamic offsets count as shared); the unknown access counts as shared.
  EXPECT_THAT(true_at(shared_acc(m, f)), ElementsAre(6u, 7u, 8u));
}

TEST(Relssp, CriticalEdgesAndGenericSplitting) {
  Module m = parse_kernel(kSkipTaken);
  Function& f = kf(m);
  // B0 [0,3) -> JOIN (B2), B1;  B1 [3,4) -> B2;  B2 [4,6).
  EXPECT_THAT(critical_edges(f), ElementsAre(std::pair<uint32_t, uint32_t>{0, 2}));
  EXPECT_EQ(split_edges(f, critical_edges(f)), 1u);
  EXPECT_EQ(code(f), "mov setp @bra st L:add ret L:bra");
  EXPECT_TRUE(critical_edges(f).empty());
}

TEST(Relssp, OptOnADiamondSplitsTheCriticalEdgeOfTheSkippingPath) {
  Module m = parse_kernel(kSkipTaken);
  Function& f = kf(m);
  const RelsspPlacement p = place_relssp_opt(f, shared_acc(m, f));
  EXPECT_THAT(p.after_inst, ElementsAre(3u));  // eq. 3.1 in B1, just after the store
  EXPECT_TRUE(p.before_inst.empty());
  EXPECT_THAT(p.edges, ElementsAre(std::pair<uint32_t, uint32_t>{0, 2}));  // eq. 3.2 on B0->B2
  EXPECT_EQ(apply_relssp(f, p), 1u);
  EXPECT_EQ(code(f), "mov setp @bra st relssp L:add ret L:relssp bra");
  // The split block's branch goes to JOIN, and the guarded branch now to the split block.
  EXPECT_EQ(f.label_target[f.insts[2].ops[0].id], 7);
  EXPECT_EQ(f.label_target[f.insts[8].ops[0].id], 5);
}

TEST(Relssp, OptOnAFallThroughCriticalEdge) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.shared .align 4 .b8 sA[256];
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra ACC;
JOIN:
	add.s32 %r2, %r1, 1;
	ret;
ACC:
	st.shared.u32 [sA], %r1;
	bra.uni JOIN;
)");
  Function& f = kf(m);
  const RelsspPlacement p = place_relssp_opt(f, shared_acc(m, f));
  EXPECT_EQ(apply_relssp(f, p), 1u);
  // The fall-through edge B0 -> JOIN gets `relssp; bra JOIN` between B0 and JOIN.
  EXPECT_EQ(code(f), "mov setp @bra relssp bra L:add ret L:st relssp bra");
}

TEST(Relssp, OptAfterALoopGoesToTheExitBlockOnce) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.shared .align 4 .b8 sA[256];
	mov.u32 %r1, 0;
LOOP:
	st.shared.u32 [sA+64], %r1;
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, 4;
	@%p1 bra LOOP;
	add.s32 %r2, %r1, 1;
	ret;
)");
  Function& f = kf(m);
  const RelsspPlacement p = place_relssp_opt(f, shared_acc(m, f));
  EXPECT_TRUE(p.after_inst.empty());  // the loop block is not SafeOUT (back edge)
  EXPECT_THAT(p.before_inst, ElementsAre(5u));
  EXPECT_EQ(apply_relssp(f, p), 0u);
  EXPECT_EQ(code(f), "mov L:st add setp @bra relssp add ret");
}

TEST(Relssp, OptWithAnEarlyExitNeedsNothingOnTheExitEdge) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.shared .align 4 .b8 sA[256];
	mov.u32 %r1, %tid.x;
	setp.gt.s32 %p1, %r1, 15;
	@%p1 ret;
	st.shared.u32 [sA+64], %r1;
	add.s32 %r2, %r1, 1;
	ret;
)");
  Function& f = kf(m);
  const RelsspPlacement p = place_relssp_opt(f, shared_acc(m, f));
  EXPECT_THAT(p.after_inst, ElementsAre(3u));
  EXPECT_TRUE(p.edges.empty());  // exited threads count as released
  apply_relssp(f, p);
  EXPECT_EQ(code(f), "mov setp @ret st relssp add ret");
}

TEST(Relssp, PrivateAccessesOnlyGetNoRelssp) {
  Module m = parse_kernel(R"(	.reg .b32 %r<4>;
	.shared .align 4 .b8 sB[16];
	.shared .align 4 .b8 sA[240];
	mov.u32 %r1, %tid.x;
	st.shared.u32 [sB+4], %r1;
	ret;
)");
  Function& f = kf(m);
  EXPECT_TRUE(place_relssp_opt(f, shared_acc(m, f)).empty());
  RelsspOptions o;
  o.mode = RelsspOptions::Mode::opt;
  const auto reps = run_relssp_passes(m, o);
  ASSERT_EQ(reps.size(), 1u);
  EXPECT_EQ(reps[0].boundary, 25u);
  EXPECT_EQ(reps[0].accesses, 1u);
  EXPECT_EQ(reps[0].shared_accesses, 0u);
  EXPECT_EQ(reps[0].inserted, 0u);
}

// Both arms access; a later block does not. OPT releases in each arm; PostDom at the join.
const char* kBothArms = R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.shared .align 4 .b8 sA[256];
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra ELSE;
	st.shared.u32 [sA+64], %r1;
	add.s32 %r3, %r1, 7;
	bra.uni JOIN;
ELSE:
	st.shared.u32 [sA+128], %r1;
JOIN:
	add.s32 %r2, %r1, 1;
	ret;
)";

TEST(Relssp, OptVersusPostDomOnADiamond) {
  Module m = parse_kernel(kBothArms);
  Function& f = kf(m);
  const RelsspPlacement opt = place_relssp_opt(f, shared_acc(m, f));
  EXPECT_THAT(opt.after_inst, ElementsAre(3u, 6u));
  EXPECT_TRUE(opt.edges.empty());
  const RelsspPlacement pd = place_relssp_postdom(f, shared_acc(m, f));
  EXPECT_TRUE(pd.after_inst.empty());
  EXPECT_THAT(pd.before_inst, ElementsAre(7u));  // JOIN post-dominates both arms
  Module m2 = parse_kernel(kBothArms);
  apply_relssp(kf(m2), pd);
  EXPECT_EQ(code(kf(m2)), "mov setp @bra st add bra L:st L:relssp add ret");
  apply_relssp(f, opt);
  EXPECT_EQ(code(f), "mov setp @bra st relssp add bra L:st relssp L:add ret");
}

TEST(Relssp, PostDomLeavesLoopsThatContainAccesses) {
  // The only accessing block is the loop body; its post-dominator inside the loop would run
  // relssp every iteration, so PostDom walks up to the exit block.
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.shared .align 4 .b8 sA[256];
	mov.u32 %r1, 0;
LOOP:
	st.shared.u32 [sA+64], %r1;
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, 4;
	@%p1 bra LOOP;
	ret;
)");
  Function& f = kf(m);
  const RelsspPlacement pd = place_relssp_postdom(f, shared_acc(m, f));
  EXPECT_THAT(pd.before_inst, ElementsAre(5u));
  EXPECT_TRUE(pd.after_inst.empty());
}

TEST(Relssp, AccessRangesPreAndPostPerVariable) {
  Module m = parse_kernel(R"(	.reg .b32 %r<4>;
	.shared .align 4 .b8 a[128];
	.shared .align 4 .b8 b[128];
	mov.u32 %r1, %tid.x;
	st.shared.u32 [a], %r1;
	add.s32 %r2, %r1, 1;
	st.shared.u32 [b], %r2;
	add.s32 %r3, %r1, 2;
	ret;
)");
  const Function& f = kf(m);
  const auto acc = smem_accesses(m, f);
  std::vector<uint32_t> v;
  for (uint32_t vi = 0; vi < m.vars.size(); ++vi)
    if (m.vars[vi].space == Space::shared) v.push_back(vi);
  ASSERT_EQ(v.size(), 2u);  // a, b
  EXPECT_THAT(true_at(in_access_range(f, acc, v, 0b01)), ElementsAre(1u));
  EXPECT_THAT(true_at(in_access_range(f, acc, v, 0b10)), ElementsAre(3u));
  EXPECT_THAT(true_at(in_access_range(f, acc, v, 0b11)), ElementsAre(1u, 2u, 3u));
  const AccessRanges r = access_ranges(f, acc, v);
  ASSERT_EQ(f.blocks.size(), 1u);
  EXPECT_FALSE(r.pre_in[0].test(0));
  EXPECT_TRUE(r.pre_out[0].test(0));
  EXPECT_TRUE(r.post_in[0].test(1));
  EXPECT_FALSE(r.post_out[0].test(1));
  EXPECT_EQ(range_weight(f, in_access_range(f, acc, v, 0b11)), 3u);
}

TEST(Relssp, RangeWeightCountsLoopsAs1024AndTheLongerBranch) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	mov.u32 %r1, 0;
LOOP:
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, 4;
	@%p1 bra LOOP;
	@%p1 bra ELSE;
	add.s32 %r2, %r1, 1;
	add.s32 %r2, %r1, 1;
	bra.uni JOIN;
ELSE:
	add.s32 %r2, %r1, 2;
JOIN:
	ret;
)");
  const Function& f = kf(m);
  std::vector<bool> all(f.insts.size(), true);
  // mov (1) + loop (3 x 1024) + bra ELSE (1) + the longer arm (3, not ELSE's 1) + ret (1).
  EXPECT_EQ(range_weight(f, all), 1u + 3u * 1024u + 1u + 3u + 1u);
}

TEST(Relssp, MinimizePutsTheShortestRangeVariableInTheSharedRegion) {
  // t = 0.5: the shared region is the upper 128 of 256 bytes, one variable. ptxas order puts b
  // there; b is live over the whole kernel, a over one instruction, so minimize moves a up.
  const char* body = R"(	.reg .b32 %r<4>;
	.shared .align 4 .b8 a[128];
	.shared .align 4 .b8 b[128];
	mov.u32 %r1, %tid.x;
	st.shared.u32 [b], %r1;
	add.s32 %r2, %r1, 1;
	st.shared.u32 [a], %r2;
	add.s32 %r3, %r1, 2;
	ld.shared.u32 %r3, [b+4];
	ret;
)";
  Module m = parse_kernel(body);
  RelsspOptions o;
  o.mode = RelsspOptions::Mode::opt;
  o.minimize = true;
  o.t = 0.5;
  const auto reps = run_relssp_passes(m, o);
  ASSERT_EQ(reps.size(), 1u);
  ASSERT_EQ(reps[0].high_vars.size(), 1u);
  EXPECT_EQ(m.vars[reps[0].high_vars[0]].name, "a");
  const KernelLayout lay = layout_kernel(m, m.func_index.at("k"));
  EXPECT_EQ(lay.shared_offset.at(reps[0].high_vars[0]), 128u);
  EXPECT_EQ(reps[0].shared_accesses, 1u);
  EXPECT_EQ(code(kf(m)), "mov st add st relssp add ld ret");
  // Without minimize, b is shared and the release waits for its last load.
  Module m2 = parse_kernel(body);
  o.minimize = false;
  run_relssp_passes(m2, o);
  EXPECT_EQ(code(kf(m2)), "mov st add st add ld relssp ret");
}

}  // namespace
}  // namespace simtlab::ptx
