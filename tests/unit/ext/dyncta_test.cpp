// DYNCTA (src/ext/dyncta): the exact up/down rule, the start value, sampling-period accounting
// of C_idle / C_mem, CTA pausing, and whole-kernel runs.
#include <gtest/gtest.h>

#include "ext/dyncta/dyncta.h"
#include "func/program.h"
#include "ptx/ir.h"
#include "tests/unit/ext/ext_kernels.h"
#include "timing/sm/sm.h"

namespace simtlab::timing::dyncta {
namespace {

DynctaParams params() {
  DynctaParams p;
  p.enable = true;  // defaults: period 2048, t_idle 16, t_mem_low 128, t_mem_high 384
  return p;
}

TEST(DynctaRule, StartsAtHalfTheMaximum) {
  DynctaController c(params());
  c.start(8);
  EXPECT_EQ(c.limit(), 4u);
  c.start(7);
  EXPECT_EQ(c.limit(), 3u);
  c.start(1);
  EXPECT_EQ(c.limit(), 1u);  // never 0
}

TEST(DynctaRule, UpDownHold) {
  DynctaController c(params());
  c.start(8);
  EXPECT_EQ(c.end_period(16, 1000), 1);  // idle first: too few warps, even if memory waits
  EXPECT_EQ(c.limit(), 5u);
  EXPECT_EQ(c.end_period(15, 127), 1);  // memory not the bottleneck
  EXPECT_EQ(c.limit(), 6u);
  EXPECT_EQ(c.end_period(15, 128), 0);  // between the memory thresholds: hold
  EXPECT_EQ(c.end_period(0, 383), 0);
  EXPECT_EQ(c.limit(), 6u);
  EXPECT_EQ(c.end_period(15, 384), -1);  // memory contention
  EXPECT_EQ(c.limit(), 5u);
}

TEST(DynctaRule, StaysWithinOneAndMaximum) {
  DynctaController c(params());
  c.start(2);
  EXPECT_EQ(c.limit(), 1u);
  EXPECT_EQ(c.end_period(0, 1000), 0);  // would go down, already 1
  EXPECT_EQ(c.limit(), 1u);
  EXPECT_EQ(c.end_period(100, 0), 1);
  EXPECT_EQ(c.end_period(100, 0), 0);  // at the maximum
  EXPECT_EQ(c.limit(), 2u);
}

struct Insts {
  ptx::Instruction ld_in, add_in;
  func::DInst ld, add;
  Insts() {
    ld_in.op = ptx::Op::ld;
    add_in.op = ptx::Op::add;
    ld.in = &ld_in;
    ld.exec = ptx::ExecClass::mem;
    ld.aspace = func::AddrSpace::global;
    add.in = &add_in;
    add.exec = ptx::ExecClass::int_alu;
  }
};

TEST(DynctaPolicy, CountsIdleAndMemoryCyclesPerPeriodAndMovesTheLimit) {
  DynctaParams p = params();
  p.period = 4;
  p.t_idle = 3;
  p.t_mem_low = 1;
  p.t_mem_high = 3;
  p.c_mem = "wait";
  stats::Group root("");
  DynctaPolicy d(p, 2, 8, root);
  EXPECT_EQ(d.cta_limit(8), 4u);
  const std::vector<Stall> sb = {Stall::scoreboard, Stall::scoreboard};
  std::vector<WarpSlot> w(2);
  for (uint32_t i = 0; i < 2; ++i) {
    w[i].slot = i;
    w[i].age = i;
    w[i].active = true;
  }
  Insts in;
  d.on_issue(w[0], in.ld);
  d.on_issue(w[1], in.ld);
  d.on_issue(w[1], in.add);  // not a load: not counted
  // Period 1 (cycles 0..3): both warps wait on loads and nothing issues -> C_mem = 3; one
  // cycle issues (counts nowhere).
  for (uint64_t t = 0; t < 4; ++t) {
    d.begin_issue(t, w);
    d.end_issue(t, t == 2, sb);
  }
  EXPECT_EQ(root.find_child("dyncta") != nullptr, true);
  EXPECT_EQ(d.controller().limit(), 3u);  // C_mem 3 >= t_mem_high: down
  // Period 2: warp 1's load returns; warp 0 still waits -> neither idle nor memory.
  d.on_mem_done(w[1], in.ld);
  for (uint64_t t = 4; t < 8; ++t) {
    d.begin_issue(t, w);
    d.end_issue(t, false, sb);
  }
  EXPECT_EQ(d.controller().limit(), 4u);  // C_idle 0, C_mem 0 < t_mem_low: up
  // Period 3: no loads outstanding, nothing issues -> C_idle = 4 >= t_idle: up.
  d.on_mem_done(w[0], in.ld);
  for (uint64_t t = 8; t < 12; ++t) {
    d.begin_issue(t, w);
    d.end_issue(t, false, sb);
  }
  EXPECT_EQ(d.controller().limit(), 5u);
}

TEST(DynctaPolicy, DefaultMetricCountsMemoryPipelineBackPressure) {
  DynctaParams p = params();  // c_mem = stall
  p.period = 4;
  p.t_idle = 3;
  p.t_mem_low = 1;
  p.t_mem_high = 3;
  stats::Group root("");
  DynctaPolicy d(p, 2, 8, root);
  ASSERT_EQ(d.cta_limit(8), 4u);
  std::vector<WarpSlot> w(2);
  for (uint32_t i = 0; i < 2; ++i) {
    w[i].slot = i;
    w[i].active = true;
  }
  // Three cycles a scheduler's memory instruction is refused by the full LD/ST unit (no load
  // outstanding needed), one cycle with nothing at all: C_mem 3, C_idle 1 -> down.
  for (uint64_t t = 0; t < 3; ++t) {
    d.begin_issue(t, w);
    d.end_issue(t, false, {Stall::mem_pipeline, Stall::scoreboard});
  }
  EXPECT_EQ(d.c_mem(), 3u);
  d.begin_issue(3, w);
  d.end_issue(3, false, {Stall::idle, Stall::idle});
  EXPECT_EQ(d.controller().limit(), 3u);
  // Next period: the same refusals but on a cycle that issued count nowhere: C_mem 0 -> up.
  for (uint64_t t = 4; t < 8; ++t) {
    d.begin_issue(t, w);
    d.end_issue(t, true, {Stall::issued, Stall::mem_pipeline});
  }
  EXPECT_EQ(d.controller().limit(), 4u);
}

TEST(DynctaPolicy, PausesNewestCtasAboveTheLimit) {
  stats::Group root("");
  DynctaPolicy d(params(), 3, 8, root);
  ASSERT_EQ(d.cta_limit(4), 2u);
  // Three resident CTAs, one warp each; CTA 2 (slot 0) arrived last.
  std::vector<CtaSlot> ctas(3);
  const uint64_t start[] = {30, 10, 20};
  std::vector<WarpSlot> w(3);
  for (uint32_t i = 0; i < 3; ++i) {
    ctas[i].cta = std::make_unique<func::Cta>();
    ctas[i].cta->linear_id = i;
    ctas[i].start_cycle = start[i];
    ctas[i].active = true;
    w[i].slot = i;
    w[i].age = i;
    w[i].active = true;
    w[i].cta = &ctas[i];
  }
  Insts in;
  d.begin_issue(0, w);
  EXPECT_FALSE(d.may_issue(w[0], in.add));
  EXPECT_TRUE(d.may_issue(w[1], in.add));
  EXPECT_TRUE(d.may_issue(w[2], in.add));
  // The oldest CTA finishes: the paused one resumes.
  w[1].active = false;
  d.begin_issue(1, w);
  EXPECT_TRUE(d.may_issue(w[0], in.add));
  // A new kernel with another occupancy limit restarts at half of it.
  d.begin_kernel();
  EXPECT_EQ(d.cta_limit(6), 3u);
}

}  // namespace
}  // namespace simtlab::timing::dyncta

namespace simtlab::testing {
namespace {

TEST(DynctaKernel, CorrectWithDynctaAndStatsOnlyWhenOn) {
  // 12 CTAs of 8 warps on one SM (6 fit: 48 warp slots), short periods so the limit moves.
  const auto base = run_thrash({}, 12, 256, 2);
  EXPECT_TRUE(base.correct);
  EXPECT_FALSE(base.has_group("dyncta"));
  const auto on = run_thrash({"dyncta.enable=true", "dyncta.period=256"}, 12, 256, 2);
  EXPECT_TRUE(on.correct);
  ASSERT_TRUE(on.has_group("dyncta"));
  EXPECT_GT(on.group("dyncta", "periods"), 0u);
  const uint64_t first = on.sm0["dyncta"]["limit_trace"]["values"]["p0"].get<uint64_t>();
  EXPECT_GE(first, 2u);  // started at 3, moved by at most one
  EXPECT_LE(first, 4u);
  EXPECT_TRUE(on.has_stall("throttled"));
}

}  // namespace
}  // namespace simtlab::testing
