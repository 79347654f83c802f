// Likely convergence points (sim.lpc; Fung & Aamodt 2011, GPGPU book 3.4.2; func/executor.cpp
// simt_diverge_lpc) against the plain IPDOM stack on small control-flow graphs: the decoded
// likely convergence PCs, and the exact sequence of (pc, active lanes) a 4-thread warp executes
// (the lane assignment of each path and where the paths meet again).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "func/device.h"
#include "func/executor.h"
#include "tests/unit/func/ptx_harness.h"

namespace simtlab::testing {
namespace {

struct Trace {
  std::string steps;  // "pc:mask pc:mask ..." (mask in hex)
  uint32_t n = 0;     // warp instructions
  std::vector<uint32_t> out;
  func::LpcState lpc;
  uint32_t max_depth = 0;
};

std::string kernel(const std::string& body) {
  return ptx_module(R"(.visible .entry k(.param .u64 out) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
)" + body + "}\n");
}

/// Runs warp 0 of a one-CTA launch of `body` (4 threads) step by step.
Trace run(const std::string& body, bool lpc) {
  func::DeviceOptions o;
  o.lpc = lpc;
  PtxRunner r(o);
  r.load(kernel(body));
  const uint32_t threads = 4;
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
  EXPECT_EQ(w.lpc != nullptr, lpc);  // absent when off
  func::WarpInstRecord rec;
  Trace t;
  for (int n = 0; !w.done() && n < 1000; ++n) {
    func::step(cx, w, &rec);
    t.steps += fmt::format("{}{}:{:x}", t.steps.empty() ? "" : " ", rec.pc, rec.active);
    ++t.n;
    t.max_depth = std::max<uint32_t>(t.max_depth, uint32_t(w.stack.size()));
  }
  EXPECT_TRUE(w.done());
  t.out = r.download<uint32_t>(out, threads);
  if (w.lpc) t.lpc = *w.lpc;
  return t;
}

/// Decoded (reconvergence PC, likely convergence PC) of the branch at `pc` (~0u: none).
std::pair<uint32_t, uint32_t> points(const std::string& body, uint32_t pc) {
  PtxRunner r;
  r.load(kernel(body));
  const func::Program& k = *r.mod().kernel("k");
  const func::DInst& d = k.code[k.funcs[0].begin + pc];
  EXPECT_EQ(d.in->op, ptx::Op::bra);
  const uint32_t lpc = d.lpc == ~0u ? ~0u : d.lpc - k.funcs[0].begin;
  return {d.reconv - k.funcs[0].begin, lpc};
}

// Every kernel stores %r2 of each thread to out[tid] (6 instructions, the last a ret).
const char* kStore = R"(
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
)";

// The book's Example 3.2 (Fung & Aamodt 2011): a loop whose body is `if (X == 0) B; else if
// (breaker) break; else C;` then E (i++). X = (tid + i) & 1 alternates the two paths per thread
// and iteration; thread 3 is the breaker (it takes the else path at i = 0 and leaves). 4
// iterations. `brk` is the target of the break: EXIT (after the loop) or OUT (an early `ret`
// after the store: an early exit, the IPDOM is then the function's end).
std::string loop_with_break(const char* brk) {
  return fmt::format(R"(
  mov.u32 %r1, %tid.x;          // 0
  mov.u32 %r2, %r1;             // 1  acc = tid
  mov.u32 %r3, 0;               // 2  i
  setp.eq.u32 %p3, %r1, 3;      // 3  the breaker
LOOP:
  add.u32 %r4, %r1, %r3;        // 4
  and.b32 %r4, %r4, 1;          // 5
  setp.eq.u32 %p1, %r4, 0;      // 6
  @%p1 bra B;                   // 7  A
  @%p3 bra {};                  // 8  C: break
  add.u32 %r2, %r2, 1;          // 9
  bra.uni E;                    // 10
B:
  add.u32 %r2, %r2, 10;         // 11
E:
  add.u32 %r3, %r3, 1;          // 12 the latch block (likely convergence point)
  setp.lt.u32 %p2, %r3, 4;      // 13
  @%p2 bra LOOP;                // 14 the backward branch
EXIT:
)",
                     brk) +
         kStore + "OUT:\n  ret;\n";  // 15..20 store, 21 OUT
}

}  // namespace

TEST(Lpc, DecodedPointsOfALoopWithBreak) {
  const std::string k = loop_with_break("EXIT");
  // A and the break reconverge only after the loop (15); their likely point is E (12), the
  // block of the closest enclosing backward branch. The backward branch itself has none.
  EXPECT_EQ(points(k, 7), std::make_pair(15u, 12u));
  EXPECT_EQ(points(k, 8), std::make_pair(15u, 12u));
  EXPECT_EQ(points(k, 14), std::make_pair(15u, ~0u));
  // Early exit: the IPDOM is the function's end (22 = its virtual exit); same likely point.
  const std::string e = loop_with_break("OUT");
  EXPECT_EQ(points(e, 7), std::make_pair(22u, 12u));
  EXPECT_EQ(points(e, 8), std::make_pair(22u, 12u));
}

TEST(Lpc, LoopWithBreakMergesThePathsAtTheLatch) {
  const std::string k = loop_with_break("EXIT");
  const std::string head = "0:f 1:f 2:f 3:f 4:f 5:f 6:f 7:f ";
  const std::string store = "15:f 16:f 17:f 18:f 19:f 20:f";
  auto b = [](const char* m) {  // one B iteration from the loop head, mask m
    return fmt::format("4:{0} 5:{0} 6:{0} 7:{0} 11:{0} 12:{0} 13:{0} 14:{0} ", m);
  };
  auto c = [](const char* m) {  // one C iteration
    return fmt::format("4:{0} 5:{0} 6:{0} 7:{0} 8:{0} 9:{0} 10:{0} 12:{0} 13:{0} 14:{0} ", m);
  };
  // IPDOM: at A (i = 0) lanes 0,2 take B and 1,3 the else path; the reconvergence point is
  // EXIT, so lanes 0,2 run all 4 iterations alone (B, C, B, C: 4 + 10 + 8 + 10 = 32), then
  // lanes 1,3 (8: lane 3 breaks to EXIT, lane 1 runs C's rest and 3 iterations alone,
  // 1 + 5 + 8 + 10 + 8 = 32): 8 + 32 + 32 + 6 = 78 warp instructions.
  const Trace s = run(k, false);
  EXPECT_EQ(s.steps, head + "11:5 12:5 13:5 14:5 " + c("5") + b("5") + c("5") +
                         "8:a 9:2 10:2 12:2 13:2 14:2 " + b("2") + c("2") + b("2") + store);
  EXPECT_EQ(s.n, 78u);
  // LPC: A pushes an LPC entry at E below its two paths. B's lanes 0,2 reach E and wait there;
  // the else path's break sends lane 3 to EXIT (the IPDOM entry) and lane 1 on to E, where it
  // joins them: E runs with lanes 0,1,2. Every later iteration: the head (4) + B (1) + C (3) +
  // the latch (3) = 11 with the paths merged again at E: 8 + 7 + 3 x 11 + 6 = 54.
  const Trace l = run(k, true);
  std::string it;
  for (const char* m : {"2 8:5 9:5 10:5", "5 8:2 9:2 10:2", "2 8:5 9:5 10:5"})
    it += fmt::format("4:7 5:7 6:7 7:7 11:{} 12:7 13:7 14:7 ", m);
  EXPECT_EQ(l.steps, head + "11:5 8:a 9:2 10:2 12:7 13:7 14:7 " + it + store);
  EXPECT_EQ(l.n, 54u);
  // Stack: the IPDOM entry, the LPC entry and two paths.
  EXPECT_EQ(l.max_depth, 4u);
  EXPECT_EQ(s.out, (std::vector<uint32_t>{22, 23, 24, 3}));
  EXPECT_EQ(l.out, s.out);
  // One LPC entry per iteration (the break reuses A's: same likely point); two merges per
  // iteration, the second joining the first; threads 2 + 1, then 1 + 2, 2 + 1, 1 + 2.
  EXPECT_EQ(l.lpc.entries, 4u);
  EXPECT_EQ(l.lpc.merges, 8u);
  EXPECT_EQ(l.lpc.joined, 4u);
  EXPECT_EQ(l.lpc.merged_threads, 12u);
}

TEST(Lpc, EarlyExitInALoopMergesBeforeTheFunctionEnd) {
  const std::string k = loop_with_break("OUT");
  const std::string head = "0:f 1:f 2:f 3:f 4:f 5:f 6:f 7:f ";
  auto b = [](const char* m) {
    return fmt::format("4:{0} 5:{0} 6:{0} 7:{0} 11:{0} 12:{0} 13:{0} 14:{0} ", m);
  };
  auto c = [](const char* m) {
    return fmt::format("4:{0} 5:{0} 6:{0} 7:{0} 8:{0} 9:{0} 10:{0} 12:{0} 13:{0} 14:{0} ", m);
  };
  auto store = [](const char* m) {
    return fmt::format("15:{0} 16:{0} 17:{0} 18:{0} 19:{0} 20:{0}", m);
  };
  // IPDOM = the function's end: lanes 0,2 run the loop and the store alone (32 + 6), then lane
  // 3 returns at OUT (21) and lane 1 runs the loop and the store alone:
  // 8 + 38 + 1 + 1 + 5 + 26 + 6 = 85.
  const Trace s = run(k, false);
  EXPECT_EQ(s.steps, head + "11:5 12:5 13:5 14:5 " + c("5") + b("5") + c("5") + store("5") +
                         " 8:a 21:8 9:2 10:2 12:2 13:2 14:2 " + b("2") + c("2") + b("2") +
                         store("2"));
  EXPECT_EQ(s.n, 85u);
  // LPC: lane 3 returns (its path entry pops empty), lane 1 joins lanes 0,2 at E; the loop and
  // the store run with lanes 0,1,2: 8 + 8 + 3 x 11 + 6 = 55.
  const Trace l = run(k, true);
  std::string it;
  for (const char* m : {"2 8:5 9:5 10:5", "5 8:2 9:2 10:2", "2 8:5 9:5 10:5"})
    it += fmt::format("4:7 5:7 6:7 7:7 11:{} 12:7 13:7 14:7 ", m);
  EXPECT_EQ(l.steps, head + "11:5 8:a 21:8 9:2 10:2 12:7 13:7 14:7 " + it + store("7"));
  EXPECT_EQ(l.n, 55u);
  EXPECT_EQ(s.out, (std::vector<uint32_t>{22, 23, 24, 0}));  // lane 3 returned before storing
  EXPECT_EQ(l.out, s.out);
  EXPECT_EQ(l.lpc.entries, 4u);
  EXPECT_EQ(l.lpc.merges, 8u);
  EXPECT_EQ(l.lpc.joined, 4u);
  EXPECT_EQ(l.lpc.merged_threads, 12u);
}

TEST(Lpc, DiamondHasNoLikelyPointAndRunsAsTheStack) {
  const std::string k = std::string(R"(
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
  EXPECT_EQ(points(k, 2), std::make_pair(6u, ~0u));
  const Trace s = run(k, false), l = run(k, true);
  EXPECT_EQ(s.steps, "0:f 1:f 2:f 5:3 3:c 4:c 6:f 7:f 8:f 9:f 10:f 11:f 12:f");
  EXPECT_EQ(l.steps, s.steps);
  EXPECT_EQ(l.out, (std::vector<uint32_t>{120, 121, 112, 113}));
  EXPECT_EQ(l.lpc.entries, 0u);
  EXPECT_EQ(l.lpc.merges, 0u);
}

// Nested loops: an inner loop with a break (thread t leaves it at i == t) and a diamond in its
// body (thread 3 skips an add), inside an outer loop of 2 iterations.
const std::string kNested = std::string(R"(
  mov.u32 %r1, %tid.x;          // 0
  mov.u32 %r2, 0;               // 1
  mov.u32 %r3, 0;               // 2  j
OUTER:
  mov.u32 %r4, 0;               // 3  i
INNER:
  setp.eq.u32 %p1, %r4, %r1;    // 4
  @%p1 bra IBRK;                // 5  inner break
  setp.gt.u32 %p2, %r1, 2;      // 6
  @%p2 bra SKIP;                // 7  diamond (reconverges at SKIP, inside the loop)
  add.u32 %r2, %r2, 1;          // 8
SKIP:
  add.u32 %r4, %r4, 1;          // 9  inner latch block
  setp.lt.u32 %p3, %r4, 3;      // 10
  @%p3 bra INNER;               // 11 inner backward branch
IBRK:
  add.u32 %r2, %r2, 10;         // 12 outer latch block
  add.u32 %r3, %r3, 1;          // 13
  setp.lt.u32 %p3, %r3, 2;      // 14
  @%p3 bra OUTER;               // 15 outer backward branch
)") + kStore;

TEST(Lpc, NestedLoopsUseTheInnermostLoopsLatch) {
  // The inner break reconverges at IBRK (12, inside the outer loop, outside the inner one): its
  // likely point is the inner latch (9). The diamond reconverges inside the inner loop and the
  // backward branches end their loops: none.
  EXPECT_EQ(points(kNested, 5), std::make_pair(12u, 9u));
  EXPECT_EQ(points(kNested, 7), std::make_pair(9u, ~0u));
  EXPECT_EQ(points(kNested, 11), std::make_pair(12u, ~0u));
  EXPECT_EQ(points(kNested, 15), std::make_pair(16u, ~0u));
  // Every path of the break's fall-through reaches the latch (the diamond reconverges first),
  // so the LPC entry only takes over the path entry's threads: the same instructions and lanes
  // as the stack. Per outer iteration: i = 0: lane 0 breaks, lane 3 skips the add, lanes 1,2
  // take it; i = 1: lane 1 breaks, lane 2 adds; i = 2: lane 2 breaks, lane 3 alone skips.
  const Trace s = run(kNested, false), l = run(kNested, true);
  const std::string outer =
      "3:f 4:f 5:f 6:e 7:e 8:6 9:e 10:e 11:e 4:e 5:e 6:c 7:c 8:4 9:c 10:c 11:c 4:c 5:c 6:8 7:8 "
      "9:8 10:8 11:8 12:f 13:f 14:f 15:f ";
  EXPECT_EQ(s.steps, "0:f 1:f 2:f " + outer + outer + "16:f 17:f 18:f 19:f 20:f 21:f");
  EXPECT_EQ(l.steps, s.steps);
  EXPECT_EQ(s.out, (std::vector<uint32_t>{20, 22, 24, 20}));
  EXPECT_EQ(l.out, s.out);
  // Breaks at i = 0, 1, 2 of both outer iterations: one LPC entry and one merge (the loopers)
  // each; no join (the break-takers wait at the IPDOM, never at the latch).
  EXPECT_EQ(l.lpc.entries, 6u);
  EXPECT_EQ(l.lpc.merges, 6u);
  EXPECT_EQ(l.lpc.joined, 0u);
  EXPECT_EQ(l.lpc.merged_threads, 2u * (3 + 2 + 1));
}

}  // namespace simtlab::testing
