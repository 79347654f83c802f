// SIMT control flow: predication, nested divergent if/else, loops with break/continue and
// per-lane trip counts, early exit/ret, unstructured branches, and reconvergence: every block
// stamps a global sequence number (atom.add) per lane, so the logs show which lanes executed
// each block and in which order; after a join all lanes of a warp must execute the join block
// together (one warp instruction = consecutive stamps) and after every block of the paths.
#include "tests/unit/func/op_test_util.h"

namespace simtlab::testing {
namespace {

constexpr uint32_t kNone = 0xffffffffu;

/// Stamp the sequence counter into log slot `slot` of this thread.
std::string stamp(unsigned slot) {
  return fmt::format("  atom.global.add.u32 %r30, [%rd20], 1;\n  st.global.u32 [%rd21+{}], %r30;\n",
                     slot * 4);
}

std::string header(const char* name, unsigned log_slots) {
  return fmt::format(R"(
.visible .entry {}(.param .u64 pin, .param .u64 plog, .param .u64 pctr, .param .u64 pout) {{
  .reg .pred %p<16>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<40>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd1, %r4, 4;
  ld.param.u64 %rd2, [pin];
  add.u64 %rd2, %rd2, %rd1;
  ld.global.u32 %r5, [%rd2];
  ld.param.u64 %rd20, [pctr];
  mul.wide.u32 %rd3, %r4, {};
  ld.param.u64 %rd21, [plog];
  add.u64 %rd21, %rd21, %rd3;
  ld.param.u64 %rd22, [pout];
  add.u64 %rd22, %rd22, %rd1;
)",
                     name, log_slots * 4);
}

struct LoggedRun {
  std::vector<uint32_t> log, out;
};

LoggedRun run_logged(const std::string& body, const char* name, unsigned slots,
                     const std::vector<uint32_t>& in, uint32_t block) {
  PtxRunner r(ptx_module(body));
  const uint32_t nt = uint32_t(in.size());
  Addr pin = r.upload(in), plog = r.upload(std::vector<uint32_t>(nt * slots, kNone));
  Addr pctr = r.upload(std::vector<uint32_t>{0}), pout = r.upload(std::vector<uint32_t>(nt, kNone));
  r.launch(name, {(nt + block - 1) / block, 1, 1}, {block, 1, 1}, 0, pin, plog, pctr, pout);
  return {r.download<uint32_t>(plog, nt * slots), r.download<uint32_t>(pout, nt)};
}

/// For each warp: the lanes that executed `join` did so in one warp instruction (consecutive
/// stamps) after every stamp in `before` of the same lanes.
void expect_reconverged(const LoggedRun& run, unsigned slots, uint32_t nt, uint32_t block,
                        unsigned join, const std::vector<unsigned>& before, const char* what) {
  for (uint32_t cta = 0; cta < nt; cta += block) {
    for (uint32_t w0 = cta; w0 < std::min(cta + block, nt); w0 += 32) {
      const uint32_t w1 = std::min({w0 + 32, nt, cta + block});
      std::vector<uint32_t> stamps;
      uint32_t latest_before = 0;
      bool any_before = false;
      for (uint32_t i = w0; i < w1; ++i) {
        const uint32_t s = run.log[i * slots + join];
        if (s == kNone) continue;
        stamps.push_back(s);
        for (unsigned b : before) {
          const uint32_t x = run.log[i * slots + b];
          if (x != kNone) {
            latest_before = std::max(latest_before, x);
            any_before = true;
          }
        }
      }
      if (stamps.empty()) continue;
      std::sort(stamps.begin(), stamps.end());
      EXPECT_EQ(stamps.back() - stamps.front(), stamps.size() - 1)
          << what << ": warp at thread " << w0 << " executed the join block in several pieces";
      if (any_before) {
        EXPECT_GT(stamps.front(), latest_before) << what << ": warp at thread " << w0;
      }
    }
  }
}

TEST(Control, NestedIfElseReconvergence) {
  std::string k = header("nest", 8);
  k += stamp(0);
  k += "  and.b32 %r6, %r5, 1;\n  setp.eq.u32 %p1, %r6, 0;\n  @%p1 bra ELSE1;\n";
  k += stamp(1);
  k += "  and.b32 %r7, %r5, 2;\n  setp.eq.u32 %p2, %r7, 0;\n  @%p2 bra ELSE2;\n";
  k += stamp(2);
  k += "  bra.uni JOIN2;\nELSE2:\n";
  k += stamp(3);
  k += "JOIN2:\n";
  k += stamp(4);
  k += "  bra JOIN1;\nELSE1:\n";
  k += stamp(5);
  k +=
      "  and.b32 %r8, %r5, 4;\n  setp.ne.u32 %p3, %r8, 0;\n  @%p3 bra JOIN1;\n";  // if without else
  k += stamp(6);
  k += "JOIN1:\n";
  k += stamp(7);
  k += "  st.global.u32 [%rd22], %r5;\n  ret;\n}\n";
  const uint32_t block = 80, nt = 240;
  std::vector<uint32_t> in(nt);
  std::mt19937 rng(3);
  for (uint32_t i = 0; i < nt; ++i) in[i] = (i / 32 == 2) ? 5 : rng() % 8;  // one warp uniform
  LoggedRun run = run_logged(k, "nest", 8, in, block);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t v = in[i];
    const bool visited[8] = {true,         (v & 1) != 0, (v & 3) == 3, (v & 3) == 1,
                             (v & 1) != 0, (v & 1) == 0, (v & 5) == 0, true};
    for (unsigned s = 0; s < 8; ++s)
      EXPECT_EQ(run.log[i * 8 + s] != kNone, visited[s]) << "thread " << i << " block " << s;
    EXPECT_EQ(run.out[i], v);
  }
  expect_reconverged(run, 8, nt, block, 4, {1, 2, 3}, "inner join");
  expect_reconverged(run, 8, nt, block, 7, {0, 1, 2, 3, 4, 5, 6}, "outer join");
  expect_reconverged(run, 8, nt, block, 0, {}, "entry");
}

TEST(Control, LoopsWithBreakContinueAndPerLaneTripCounts) {
  // for (k = 0; k < n; ) { ++k; if (k % 3 == 0) continue; t = k * v; if (t > 5000) break;
  //   sum += t; for (j = 0; j < k % 4; ++j) sum += j * 7 + 1; }
  std::string k = header("loops", 2);
  k += R"(
  rem.u32 %r6, %r5, 13;
  mov.u32 %r7, 0;
  mov.u32 %r8, 0;
  mov.u32 %r14, 0;
LOOP:
  setp.ge.u32 %p1, %r7, %r6;
  @%p1 bra END;
  add.u32 %r7, %r7, 1;
  add.u32 %r14, %r14, 1;
  rem.u32 %r9, %r7, 3;
  setp.eq.u32 %p2, %r9, 0;
  @%p2 bra LOOP;
  mul.lo.u32 %r10, %r7, %r5;
  setp.gt.u32 %p3, %r10, 5000;
  @%p3 bra END;
  add.u32 %r8, %r8, %r10;
  and.b32 %r11, %r7, 3;
  mov.u32 %r12, 0;
INNER:
  setp.ge.u32 %p4, %r12, %r11;
  @%p4 bra INNER_END;
  mad.lo.u32 %r13, %r12, 7, 1;
  add.u32 %r8, %r8, %r13;
  add.u32 %r12, %r12, 1;
  bra INNER;
INNER_END:
  bra LOOP;
END:
)";
  k += stamp(1);
  k += "  st.global.u32 [%rd21], %r14;\n  st.global.u32 [%rd22], %r8;\n  ret;\n}\n";
  const uint32_t nt = 192, block = 64;
  std::vector<uint32_t> in(nt);
  std::mt19937 rng(9);
  for (uint32_t i = 0; i < nt; ++i) in[i] = rng() % 900;
  LoggedRun run = run_logged(k, "loops", 2, in, block);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t v = in[i], n = v % 13;
    uint32_t sum = 0, iters = 0;
    for (uint32_t kk = 0; kk < n;) {
      ++kk;
      ++iters;
      if (kk % 3 == 0) continue;
      const uint32_t t = kk * v;
      if (t > 5000) break;
      sum += t;
      for (uint32_t j = 0; j < kk % 4; ++j) sum += j * 7 + 1;
    }
    EXPECT_EQ(run.out[i], sum) << "thread " << i << " v=" << v;
    EXPECT_EQ(run.log[i * 2], iters) << "thread " << i;
  }
  // Every thread leaves the loop at a different time; they still run END as one instruction.
  expect_reconverged(run, 2, nt, block, 1, {}, "loop exit");
}

TEST(Control, EarlyExitAndRetInDivergentCode) {
  // Lanes with v % 4 == 0 exit, lanes with v % 4 == 1 return; the rest synchronize at a
  // barrier (exited threads do not count) and read a neighbour's shared value.
  std::string k = header("early", 1);
  k += R"(
  .shared .align 4 .b8 sh[1024];
  rem.u32 %r6, %r5, 4;
  setp.eq.u32 %p1, %r6, 0;
  @%p1 exit;
  setp.eq.u32 %p2, %r6, 1;
  @%p2 bra RET;
  mul.wide.u32 %rd5, %r3, 4;
  mov.u64 %rd6, sh;
  add.u64 %rd7, %rd6, %rd5;
  st.shared.u32 [%rd7], %r5;
  bar.sync 0;
  xor.b32 %r9, %r3, 1;
  mul.wide.u32 %rd8, %r9, 4;
  add.u64 %rd9, %rd6, %rd8;
  ld.shared.u32 %r10, [%rd9];
  st.global.u32 [%rd22], %r10;
  ret;
RET:
  add.u32 %r11, %r5, 100000;
  st.global.u32 [%rd22], %r11;
  ret;
}
)";
  const uint32_t nt = 256, block = 128;
  std::vector<uint32_t> in(nt);
  // Pairs (t, t^1) are both in the barrier group or not; group membership varies per pair.
  std::mt19937 rng(4);
  for (uint32_t i = 0; i < nt; i += 2) {
    const uint32_t cls = rng() % 4;
    in[i] = (rng() % 1000) * 4 + cls;
    in[i + 1] = (rng() % 1000) * 4 + (cls >= 2 ? 2 + rng() % 2 : cls);
  }
  LoggedRun run = run_logged(k, "early", 1, in, block);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t cls = in[i] % 4;
    const uint32_t want = cls == 0 ? kNone : cls == 1 ? in[i] + 100000 : in[i ^ 1];
    EXPECT_EQ(run.out[i], want) << "thread " << i;
  }
}

TEST(Control, PredicatedInstructionsOfEveryKind) {
  // Guards on ALU ops, loads, stores, setp, selp and branches, with per-lane predicates.
  std::string k = header("pred", 1);
  k += R"(
  and.b32 %r6, %r5, 1;
  setp.ne.u32 %p1, %r6, 0;
  and.b32 %r7, %r5, 2;
  setp.ne.u32 %p2, %r7, 0;
  mov.u32 %r8, 10;
  @%p1 add.u32 %r8, %r8, 1;
  @!%p1 add.u32 %r8, %r8, 2;
  @%p2 mul.lo.u32 %r8, %r8, 3;
  mov.u32 %r9, 7;
  @%p1 ld.global.u32 %r9, [%rd2];
  @!%p2 st.global.u32 [%rd21], %r8;
  @%p2 setp.gt.u32 %p1, %r5, 50;
  selp.u32 %r10, 1000, 0, %p1;
  add.u32 %r8, %r8, %r10;
  add.u32 %r8, %r8, %r9;
  @%p2 bra SKIP;
  add.u32 %r8, %r8, 5;
SKIP:
  st.global.u32 [%rd22], %r8;
  ret;
}
)";
  const uint32_t nt = 128;
  std::vector<uint32_t> in(nt);
  for (uint32_t i = 0; i < nt; ++i) in[i] = i * 3 + 1;
  LoggedRun run = run_logged(k, "pred", 1, in, 64);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t v = in[i];
    bool p1 = v & 1;
    const bool p2 = v & 2;
    uint32_t r8 = 10 + (p1 ? 1 : 2);
    if (p2) r8 *= 3;
    const uint32_t r9 = p1 ? v : 7;
    EXPECT_EQ(run.log[i], p2 ? kNone : r8) << i;
    if (p2) p1 = v > 50;
    r8 += (p1 ? 1000 : 0) + r9;
    if (!p2) r8 += 5;
    EXPECT_EQ(run.out[i], r8) << i;
  }
}

TEST(Control, UnstructuredBranchesAndSharedTails) {
  // Two paths jump into the middle of a loop and leave through two different exits that share
  // a tail: irregular CFGs still reconverge at the immediate post-dominator.
  std::string k = header("unstr", 2);
  k += R"(
  mov.u32 %r6, 0;
  and.b32 %r7, %r5, 1;
  setp.ne.u32 %p1, %r7, 0;
  @%p1 bra MID;
TOP:
  add.u32 %r6, %r6, 3;
MID:
  add.u32 %r6, %r6, 1;
  setp.gt.u32 %p2, %r6, %r5;
  @%p2 bra EXIT_A;
  and.b32 %r8, %r6, 7;
  setp.eq.u32 %p3, %r8, 7;
  @%p3 bra EXIT_B;
  bra TOP;
EXIT_A:
  add.u32 %r6, %r6, 1000;
  bra TAIL;
EXIT_B:
  add.u32 %r6, %r6, 2000;
TAIL:
)";
  k += stamp(1);
  k += "  st.global.u32 [%rd22], %r6;\n  ret;\n}\n";
  const uint32_t nt = 192, block = 96;
  std::vector<uint32_t> in(nt);
  std::mt19937 rng(21);
  for (uint32_t i = 0; i < nt; ++i) in[i] = rng() % 60;
  LoggedRun run = run_logged(k, "unstr", 2, in, block);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t v = in[i];
    uint32_t r = 0;
    bool mid = v & 1;
    for (;;) {
      if (!mid) r += 3;
      mid = false;
      r += 1;
      if (r > v) {
        r += 1000;
        break;
      }
      if ((r & 7) == 7) {
        r += 2000;
        break;
      }
    }
    EXPECT_EQ(run.out[i], r) << "thread " << i << " v=" << v;
  }
  expect_reconverged(run, 2, nt, block, 1, {}, "tail");
}

TEST(Control, PerLaneLogsOfLoopIterationsInOrder) {
  // Each lane appends (iteration index) to its own log; the order inside a lane is program order
  // regardless of how the warp is scheduled.
  std::string k = header("plog", 16);
  k += R"(
  rem.u32 %r6, %r5, 17;
  mov.u32 %r7, 0;
L:
  setp.ge.u32 %p1, %r7, %r6;
  @%p1 bra E;
  setp.ge.u32 %p2, %r7, 16;
  @%p2 bra E;
  mul.wide.u32 %rd10, %r7, 4;
  add.u64 %rd11, %rd21, %rd10;
  mad.lo.u32 %r8, %r7, %r7, %r5;
  st.global.u32 [%rd11], %r8;
  add.u32 %r7, %r7, 1;
  bra L;
E:
  st.global.u32 [%rd22], %r7;
  ret;
}
)";
  const uint32_t nt = 128;
  std::vector<uint32_t> in(nt);
  for (uint32_t i = 0; i < nt; ++i) in[i] = i * 37 % 101;
  LoggedRun run = run_logged(k, "plog", 16, in, 128);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t n = std::min<uint32_t>(in[i] % 17, 16);
    EXPECT_EQ(run.out[i], n);
    for (uint32_t s = 0; s < 16; ++s)
      EXPECT_EQ(run.log[i * 16 + s], s < n ? s * s + in[i] : kNone) << i << " " << s;
  }
}

}  // namespace
}  // namespace simtlab::testing
