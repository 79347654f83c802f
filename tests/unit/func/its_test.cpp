// Independent thread scheduling (sim.its; func/executor.cpp) against the SIMT stack on small
// control-flow graphs: the exact sequence of (pc, active lanes) a 4-thread warp executes, which
// shows the lane assignment of each path and where the paths reconverge; the yield rule; and
// bar.warp.sync as a wait under ITS (a no-op under the stack).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "func/device.h"
#include "func/executor.h"
#include "tests/unit/func/ptx_harness.h"

namespace simtlab::testing {
namespace {

struct Trace {
  std::string steps;  // "pc:mask pc:mask ..." (mask in hex)
  std::vector<uint32_t> out;
  func::ItsState its;  // statistics (ITS only)
};

/// Runs warp 0 of a one-CTA launch of `body` (kernel k(.param .u64 out), `threads` threads)
/// step by step.
Trace run(const std::string& body, bool its, uint32_t yield_backedges = 64, uint32_t threads = 4) {
  func::DeviceOptions o;
  o.its = its;
  o.its_yield_backedges = yield_backedges;
  PtxRunner r(o);
  r.load(ptx_module(R"(.visible .entry k(.param .u64 out) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .shared .align 4 .b32 sh[4];
)" + body + "}\n"));
  const Addr out = r.upload(std::vector<uint32_t>(threads, 0));
  const func::Program& k = *r.mod().kernel("k");
  const void* args[] = {&out, nullptr};
  auto L = r.dev().prepare(k, {1, 1, 1}, {threads, 1, 1}, 0, r.dev().pack_params(k, args));
  func::Cta cta;
  func::init_cta(cta, *L, {0, 0, 0}, 0, 0);
  func::ExecContext cx;
  cx.gmem = &r.dev().memory();
  cx.heap = &r.dev().heap();
  cx.prog = &k;
  cx.launch = L.get();
  cx.cta = &cta;
  func::Warp& w = *cta.warps[0];
  func::WarpInstRecord rec;
  Trace t;
  for (int n = 0; !w.done() && n < 1000; ++n) {
    func::step(cx, w, &rec);
    t.steps += fmt::format("{}{}:{:x}", t.steps.empty() ? "" : " ", rec.pc, rec.active);
  }
  EXPECT_TRUE(w.done());
  t.out = r.download<uint32_t>(out, threads);
  if (w.its) {
    t.its.forks = w.its->forks;
    t.its.joins = w.its->joins;
    t.its.yields = w.its->yields;
    t.its.released_lanes = w.its->released_lanes;
    t.its.wsyncs = w.its->wsyncs;
    t.its.max_splits = w.its->max_splits;
  }
  return t;
}

// Every kernel stores %r2 of each thread to out[tid] at the end (pcs after the body).
const char* kStore = R"(
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
)";

// pc 0..6, then the store at 7..12.
const std::string kDiamond = std::string(R"(
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra THEN;
  add.u32 %r2, %r1, 10;
  bra.uni JOIN;
THEN:
  add.u32 %r2, %r1, 20;
JOIN:
  add.u32 %r2, %r2, 100;
)") + kStore;

}  // namespace

TEST(Its, DiamondRunsBothPathsAndReconvergesAtTheIpdom) {
  const std::string store = "7:f 8:f 9:f 10:f 11:f 12:f";
  // Stack: taken path (lanes 0,1) first, then the other (lanes 2,3), together again at JOIN.
  const Trace s = run(kDiamond, false);
  EXPECT_EQ(s.steps, "0:f 1:f 2:f 5:3 3:c 4:c 6:f " + store);
  // ITS: the not-taken path is a second thread group; the taken one waits at the convergence
  // barrier (JOIN) until it arrives.
  const Trace i = run(kDiamond, true);
  EXPECT_EQ(i.steps, s.steps);
  EXPECT_EQ(i.its.forks, 1u);
  EXPECT_EQ(i.its.joins, 1u);
  EXPECT_EQ(i.its.max_splits, 2u);
  EXPECT_EQ(s.out, (std::vector<uint32_t>{120, 121, 112, 113}));
  EXPECT_EQ(i.out, s.out);
}

TEST(Its, NestedBranchesReconvergeInnerThenOuter) {
  const std::string k = std::string(R"(
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra A;
  mov.u32 %r2, 1;
  bra.uni J;
A:
  setp.eq.u32 %p2, %r1, 0;
  @%p2 bra B;
  mov.u32 %r2, 2;
  bra.uni IJ;
B:
  mov.u32 %r2, 3;
IJ:
  add.u32 %r2, %r2, 10;
J:
  add.u32 %r2, %r2, 100;
)") + kStore;
  const std::string store = " 12:f 13:f 14:f 15:f 16:f 17:f";
  const Trace s = run(k, false);
  EXPECT_EQ(s.steps, "0:f 1:f 2:f 5:3 6:3 9:1 7:2 8:2 10:3 3:c 4:c 11:f" + store);
  const Trace i = run(k, true);
  EXPECT_EQ(i.steps, s.steps);
  EXPECT_EQ(i.its.forks, 2u);
  EXPECT_EQ(i.its.joins, 2u);
  EXPECT_EQ(i.its.max_splits, 3u);
  EXPECT_EQ(s.out, (std::vector<uint32_t>{113, 112, 101, 101}));
  EXPECT_EQ(i.out, s.out);
}

TEST(Its, LoopWithBreakKeepsLeaversAtTheExitUntilTheYield) {
  // Lane l leaves after l + 1 iterations.
  const std::string k = std::string(R"(
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
LOOP:
  add.u32 %r2, %r2, 1;
  setp.gt.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  bra.uni LOOP;
DONE:
  add.u32 %r2, %r2, 100;
)") + kStore;
  const std::string store = "7:f 8:f 9:f 10:f 11:f 12:f";
  const std::string loop = "0:f 1:f 2:f 3:f 4:f 5:e 2:e 3:e 4:e 5:c 2:c 3:c 4:c 5:8 2:8 3:8 4:8";
  const Trace s = run(k, false);
  EXPECT_EQ(s.steps, loop + " 6:f " + store);
  // ITS with the default yield (64 back edges): the same, no group is forked (the leavers wait
  // in the entry at DONE).
  const Trace i = run(k, true);
  EXPECT_EQ(i.steps, s.steps);
  EXPECT_EQ(i.its.forks, 0u);
  EXPECT_EQ(i.its.yields, 0u);
  // Yield after 2 back edges: lanes 0 and 1, waiting at DONE, go on without the loopers and
  // finish first; lanes 2 and 3 finish later, without reconverging.
  const Trace y = run(k, true, 2);
  EXPECT_EQ(y.steps,
            "0:f 1:f 2:f 3:f 4:f 5:e 2:e 3:e 4:e 5:c 6:3 7:3 8:3 9:3 10:3 11:3 12:3 "
            "2:c 3:c 4:c 5:8 2:8 3:8 4:8 6:c 7:c 8:c 9:c 10:c 11:c 12:c");
  EXPECT_EQ(y.its.yields, 1u);
  EXPECT_EQ(y.its.released_lanes, 2u);
  EXPECT_EQ(s.out, (std::vector<uint32_t>{101, 102, 103, 104}));
  EXPECT_EQ(i.out, s.out);
  EXPECT_EQ(y.out, s.out);
}

TEST(Its, EarlyExitLanesLeaveTheWarp) {
  const std::string k = std::string(R"(
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 5;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra OUT;
  add.u32 %r2, %r2, 1;
  bra.uni STORE;
OUT:
  exit;
STORE:
)") + kStore;
  const std::string store = "7:d 8:d 9:d 10:d 11:d 12:d";
  const Trace s = run(k, false);
  EXPECT_EQ(s.steps, "0:f 1:f 2:f 3:f 6:2 4:d 5:d " + store);
  const Trace i = run(k, true);
  EXPECT_EQ(i.steps, s.steps);
  EXPECT_EQ(i.its.joins, 1u);
  EXPECT_EQ(s.out, (std::vector<uint32_t>{6, 0, 6, 6}));
  EXPECT_EQ(i.out, s.out);
}

TEST(Its, WarpSyncWaitsForTheOtherGroup) {
  // Lanes 2,3 write shared memory before __syncwarp; lanes 0,1 read it after theirs.
  const std::string k = std::string(R"(
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra A;
  st.shared.u32 [sh], 7;
  bar.warp.sync -1;
  bra.uni J;
A:
  bar.warp.sync -1;
  ld.shared.u32 %r2, [sh];
J:
)") + kStore;
  const std::string store = "9:f 10:f 11:f 12:f 13:f 14:f";
  // Stack: lanes 0,1 run first; their bar.warp.sync does not wait, they read 0.
  const Trace s = run(k, false);
  EXPECT_EQ(s.steps, "0:f 1:f 2:f 3:f 7:3 8:3 4:c 5:c 6:c " + store);
  EXPECT_EQ(s.out, (std::vector<uint32_t>{0, 0, 0, 0}));
  // ITS: lanes 0,1 wait at bar.warp.sync until lanes 2,3 arrive (after their store).
  const Trace i = run(k, true);
  EXPECT_EQ(i.steps, "0:f 1:f 2:f 3:f 7:3 4:c 5:c 8:3 6:c " + store);
  EXPECT_EQ(i.out, (std::vector<uint32_t>{7, 7, 0, 0}));
  EXPECT_EQ(i.its.wsyncs, 2u);
}

}  // namespace simtlab::testing
