// Warp-level instructions (PTX ISA 9.7.8.x): shfl.sync in all modes with clamp values and
// segment masks (c operand) and the p|q valid predicate, vote(.sync) all/any/uni/ballot in
// both spellings, match.any/.all, redux.sync, activemask - in converged and divergent code,
// full and partial warps. References follow the ISA pseudo-code, computed per lane on the host.
#include "tests/unit/func/op_test_util.h"

namespace simtlab::testing {
namespace {

enum class Shfl { up, down, bfly, idx };
const char* shfl_name(Shfl m) {
  switch (m) {
    case Shfl::up:
      return "up";
    case Shfl::down:
      return "down";
    case Shfl::bfly:
      return "bfly";
    default:
      return "idx";
  }
}

/// Source lane and validity of lane `lane` for operands b, c (ISA pseudo-code of shfl.sync).
std::pair<unsigned, bool> shfl_src(Shfl m, unsigned lane, uint32_t b, uint32_t c) {
  const int bval = int(b & 31), cval = int(c & 31), seg = int((c >> 8) & 31);
  const int l = int(lane);
  const int max_lane = (l & seg) | (cval & ~seg);
  const int min_lane = l & seg;
  int j = 0;
  bool p = false;
  switch (m) {
    case Shfl::up:
      j = l - bval;
      p = j >= max_lane;
      break;
    case Shfl::down:
      j = l + bval;
      p = j <= max_lane;
      break;
    case Shfl::bfly:
      j = l ^ bval;
      p = j <= max_lane;
      break;
    case Shfl::idx:
      j = min_lane | (bval & ~seg);
      p = j <= max_lane;
      break;
  }
  if (!p) j = l;
  return {unsigned(j), p};
}

/// Runs `inst` (with {d}|{q}, {a}, and b/c operands) on 3 CTAs x 96 threads and checks every
/// lane against shfl_src() using the per-thread b and c values.
void check_shfl(Shfl m, const std::string& inst, const std::vector<uint32_t>& b,
                const std::vector<uint32_t>& c, bool has_pred = true) {
  const uint32_t nt = 288;
  std::vector<OpIn> in(nt);
  for (uint32_t i = 0; i < nt; ++i)
    in[i] = {uint64_t(i * 2654435761u ^ 0x5bd1e995u) & 0xffffffff, b[i % b.size()],
             c[i % c.size()]};
  OpSpec o(inst, 32, 32, 32, 32);
  if (has_pred) o.q = 1;
  SCOPED_TRACE(inst);
  OpResult res = run_op(o, in);
  int bad = 0;
  for (uint32_t i = 0; i < nt && bad < 8; ++i) {
    const unsigned lane = i % 32, base = i - lane;
    const auto [j, p] = shfl_src(m, lane, uint32_t(in[i].b), uint32_t(in[i].c));
    if (res.d[i] != in[base + j].a || (has_pred && res.q[i] != uint64_t(p))) {
      ++bad;
      ADD_FAILURE() << inst << " lane " << lane << " b=" << in[i].b
                    << " c=" << fmt::format("{:#x}", in[i].c) << ": got "
                    << fmt::format("{:#x}", res.d[i]) << " p=" << res.q[i] << ", expected lane "
                    << j << " (" << fmt::format("{:#x}", in[base + j].a) << ") p=" << p;
    }
  }
}

TEST(WarpOps, ShflImmediateOperandGrid) {
  // c values: full-warp clamps, CUDA's width encodings ((32 - w) << 8 | clamp), odd clamps and
  // segment masks.
  const uint32_t cs[] = {0x1f,   0x0,    0x5,    0x10,   0x181f, 0x1800, 0x1c1f, 0x1c00, 0x1e1f,
                         0x1e00, 0x101f, 0x1000, 0x1f1f, 0x1f00, 0x0c1f, 0x0813, 0x1f07};
  const uint32_t bs[] = {0, 1, 2, 3, 5, 8, 16, 31, 33, 0xffffffe1};
  for (Shfl m : {Shfl::up, Shfl::down, Shfl::bfly, Shfl::idx})
    for (uint32_t c : cs)
      for (uint32_t b : bs)
        check_shfl(m,
                   fmt::format("shfl.sync.{}.b32 {{d}}|{{q}}, {{a}}, {}, {:#x}, 0xffffffff;",
                               shfl_name(m), b, c),
                   {b}, {c});
}

TEST(WarpOps, ShflRegisterOperandsPerLane) {
  std::vector<uint32_t> b(288), c(288);
  std::mt19937 rng(11);
  for (uint32_t i = 0; i < 288; ++i) {
    b[i] = rng() % 40;
    c[i] = (rng() % 2 ? 0x1f : 0) | ((rng() % 32) << 8) | (rng() % 32);
  }
  for (Shfl m : {Shfl::up, Shfl::down, Shfl::bfly, Shfl::idx}) {
    check_shfl(
        m,
        fmt::format("shfl.sync.{}.b32 {{d}}|{{q}}, {{a}}, {{b}}, {{c}}, 0xffffffff;", shfl_name(m)),
        b, c);
    // Without the predicate destination and without .sync (legacy spelling).
    check_shfl(m, fmt::format("shfl.sync.{}.b32 {{d}}, {{a}}, {{b}}, {{c}}, -1;", shfl_name(m)), b,
               c, false);
    check_shfl(m, fmt::format("shfl.{}.b32 {{d}}, {{a}}, {{b}}, {{c}};", shfl_name(m)), b, c,
               false);
  }
}

TEST(WarpOps, ShflWarpReductionAndScan) {
  // Butterfly reduction and an inclusive scan with shfl.up + predicate, as in the ISA examples.
  PtxRunner r(ptx_module(R"(
.visible .entry red(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd1, %r4, 4;
  ld.param.u64 %rd2, [pin];
  add.u64 %rd2, %rd2, %rd1;
  ld.global.u32 %r5, [%rd2];
  mov.u32 %r6, %r5;
  shfl.sync.bfly.b32 %r7, %r6, 16, 0x1f, -1;
  add.u32 %r6, %r6, %r7;
  shfl.sync.bfly.b32 %r7, %r6, 8, 0x1f, -1;
  add.u32 %r6, %r6, %r7;
  shfl.sync.bfly.b32 %r7, %r6, 4, 0x1f, -1;
  add.u32 %r6, %r6, %r7;
  shfl.sync.bfly.b32 %r7, %r6, 2, 0x1f, -1;
  add.u32 %r6, %r6, %r7;
  shfl.sync.bfly.b32 %r7, %r6, 1, 0x1f, -1;
  add.u32 %r6, %r6, %r7;
  mov.u32 %r8, %r5;
  shfl.sync.up.b32 %r9|%p1, %r8, 1, 0, -1;
  @%p1 add.u32 %r8, %r8, %r9;
  shfl.sync.up.b32 %r9|%p1, %r8, 2, 0, -1;
  @%p1 add.u32 %r8, %r8, %r9;
  shfl.sync.up.b32 %r9|%p1, %r8, 4, 0, -1;
  @%p1 add.u32 %r8, %r8, %r9;
  shfl.sync.up.b32 %r9|%p1, %r8, 8, 0, -1;
  @%p1 add.u32 %r8, %r8, %r9;
  shfl.sync.up.b32 %r9|%p1, %r8, 16, 0, -1;
  @%p1 add.u32 %r8, %r8, %r9;
  mul.wide.u32 %rd3, %r4, 8;
  ld.param.u64 %rd4, [pout];
  add.u64 %rd4, %rd4, %rd3;
  st.global.v2.u32 [%rd4], {%r6, %r8};
  ret;
})"));
  const uint32_t nt = 256;
  std::vector<uint32_t> in(nt);
  for (uint32_t i = 0; i < nt; ++i) in[i] = i * i % 1000 + 1;
  Addr pin = r.upload(in), pout = r.upload(std::vector<uint32_t>(nt * 2, 0));
  r.launch("red", {2, 1, 1}, {128, 1, 1}, 0, pin, pout);
  auto v = r.download<uint32_t>(pout, nt * 2);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t base = i - i % 32;
    uint32_t sum = 0, scan = 0;
    for (uint32_t k = 0; k < 32; ++k) sum += in[base + k];
    for (uint32_t k = 0; k <= i % 32; ++k) scan += in[base + k];
    EXPECT_EQ(v[2 * i], sum) << i;
    EXPECT_EQ(v[2 * i + 1], scan) << i;
  }
}

TEST(WarpOps, ShflInsideDivergentHalfWarp) {
  // Only lanes 0..15 are active; they exchange among themselves with membermask 0xffff.
  PtxRunner r(ptx_module(R"(
.visible .entry k(.param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  mul.lo.u32 %r3, %r1, 3;
  mov.u32 %r4, 0xffffffff;
  setp.ge.u32 %p1, %r2, 16;
  @%p1 bra SKIP;
  shfl.sync.bfly.b32 %r4, %r3, 1, 0x1f, 0xffff;
  shfl.sync.idx.b32 %r5, %r3, 15, 0x1f, 0xffff;
  add.u32 %r4, %r4, %r5;
SKIP:
  mul.wide.u32 %rd1, %r1, 4;
  ld.param.u64 %rd2, [pout];
  add.u64 %rd2, %rd2, %rd1;
  st.global.u32 [%rd2], %r4;
  ret;
})"));
  Addr out = r.upload(std::vector<uint32_t>(64, 0));
  r.launch("k", {1, 1, 1}, {64, 1, 1}, 0, out);
  auto v = r.download<uint32_t>(out, 64);
  for (uint32_t t = 0; t < 64; ++t) {
    const uint32_t lane = t % 32, base = t - lane;
    const uint32_t want = lane >= 16 ? 0xffffffffu : (base + (lane ^ 1)) * 3 + (base + 15) * 3;
    EXPECT_EQ(v[t], want) << t;
  }
}

const char* kVoteKernel = R"(
.visible .entry votes(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<12>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd1, %r4, 4;
  ld.param.u64 %rd2, [pin];
  add.u64 %rd2, %rd2, %rd1;
  ld.global.u32 %r5, [%rd2];
  and.b32 %r20, %r5, 1;
  setp.ne.u32 %p1, %r20, 0;
  vote.sync.all.pred %p2, %p1, 0xffffffff;
  vote.sync.any.pred %p3, %p1, 0xffffffff;
  vote.sync.uni.pred %p4, %p1, 0xffffffff;
  vote.sync.ballot.b32 %r6, %p1, 0xffffffff;
  vote.all.pred %p5, !%p1;
  vote.any.pred %p8, !%p1;
  vote.ballot.b32 %r7, !%p1;
  selp.u32 %r10, 1, 0, %p2;
  selp.u32 %r11, 2, 0, %p3;
  selp.u32 %r12, 4, 0, %p4;
  selp.u32 %r13, 8, 0, %p5;
  selp.u32 %r14, 16, 0, %p8;
  or.b32 %r10, %r10, %r11;
  or.b32 %r10, %r10, %r12;
  or.b32 %r10, %r10, %r13;
  or.b32 %r10, %r10, %r14;
  mov.u32 %r8, 0;
  mov.u32 %r9, 0;
  mov.u32 %r15, 0;
  and.b32 %r16, %r5, 2;
  setp.eq.u32 %p6, %r16, 0;
  @%p6 bra SKIP;
  activemask.b32 %r8;
  vote.sync.ballot.b32 %r9, %p1, %r8;
  vote.sync.all.pred %p7, %p1, %r8;
  vote.sync.any.pred %p9, %p1, %r8;
  vote.sync.uni.pred %p10, %p1, %r8;
  selp.u32 %r17, 1, 0, %p7;
  selp.u32 %r18, 2, 0, %p9;
  selp.u32 %r19, 4, 0, %p10;
  or.b32 %r15, %r17, %r18;
  or.b32 %r15, %r15, %r19;
SKIP:
  mul.wide.u32 %rd3, %r4, 24;
  ld.param.u64 %rd4, [pout];
  add.u64 %rd4, %rd4, %rd3;
  st.global.u32 [%rd4], %r10;
  st.global.u32 [%rd4+4], %r6;
  st.global.u32 [%rd4+8], %r7;
  st.global.u32 [%rd4+12], %r8;
  st.global.u32 [%rd4+16], %r9;
  st.global.u32 [%rd4+20], %r15;
  ret;
}
)";

TEST(WarpOps, VoteAllAnyUniBallotFullPartialAndDivergent) {
  for (uint32_t block : {96u, 80u, 45u}) {
    SCOPED_TRACE(block);
    PtxRunner r(ptx_module(kVoteKernel));
    const uint32_t grid = 3, nt = grid * block;
    std::vector<uint32_t> in(nt);
    std::mt19937 rng(block);
    for (uint32_t i = 0; i < nt; ++i) {
      const uint32_t cta = i / block, warp = (i % block) / 32;
      // Warp-uniform predicate in some warps, mixed in others; bit 1 selects the divergent subset.
      uint32_t bit0 = (cta + warp) % 3 == 0 ? 1 : (cta + warp) % 3 == 1 ? 0 : rng() & 1;
      in[i] = bit0 | (rng() & 2);
    }
    Addr pin = r.upload(in), pout = r.upload(std::vector<uint32_t>(nt * 6, 0));
    r.launch("votes", {grid, 1, 1}, {block, 1, 1}, 0, pin, pout);
    auto v = r.download<uint32_t>(pout, nt * 6);
    for (uint32_t i = 0; i < nt; ++i) {
      const uint32_t t = i % block, base = i - t % 32, lane = t % 32;
      const uint32_t nlanes = std::min<uint32_t>(32, block - (t - lane));
      uint32_t ballot = 0, nballot = 0, sub = 0, subballot = 0;
      for (uint32_t k = 0; k < nlanes; ++k) {
        const uint32_t x = in[base + k];
        if (x & 1)
          ballot |= 1u << k;
        else
          nballot |= 1u << k;
        if (x & 2) {
          sub |= 1u << k;
          if (x & 1) subballot |= 1u << k;
        }
      }
      const uint32_t valid = nlanes == 32 ? 0xffffffffu : (1u << nlanes) - 1;
      const uint32_t flags = (ballot == valid ? 1 : 0) | (ballot != 0 ? 2 : 0) |
                             (ballot == 0 || ballot == valid ? 4 : 0) | (nballot == valid ? 8 : 0) |
                             (nballot != 0 ? 16 : 0);
      const uint32_t* f = &v[i * 6];
      EXPECT_EQ(f[0], flags) << "thread " << i;
      EXPECT_EQ(f[1], ballot) << "thread " << i;
      EXPECT_EQ(f[2], nballot) << "thread " << i;
      if (in[i] & 2) {
        const uint32_t subflags = (subballot == sub ? 1 : 0) | (subballot != 0 ? 2 : 0) |
                                  (subballot == 0 || subballot == sub ? 4 : 0);
        EXPECT_EQ(f[3], sub) << "activemask, thread " << i;
        EXPECT_EQ(f[4], subballot) << "thread " << i;
        EXPECT_EQ(f[5], subflags) << "thread " << i;
      } else {
        EXPECT_EQ(f[3], 0u);
        EXPECT_EQ(f[4], 0u);
        EXPECT_EQ(f[5], 0u);
      }
    }
  }
}

TEST(WarpOps, MatchAnyAll) {
  for (unsigned bits : {32u, 64u}) {
    SCOPED_TRACE(bits);
    const char* reg = bits == 32 ? "%r5" : "%rd5";
    PtxRunner r(ptx_module(fmt::format(R"(
.visible .entry m(.param .u64 pin, .param .u64 pout) {{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd1, %r4, 8;
  ld.param.u64 %rd2, [pin];
  add.u64 %rd2, %rd2, %rd1;
  ld.global.b{0} {1}, [%rd2];
  match.any.sync.b{0} %r6, {1}, 0xffffffff;
  match.all.sync.b{0} %r7|%p1, {1}, 0xffffffff;
  selp.u32 %r8, 1, 0, %p1;
  match.all.sync.b{0} %r9, {1}, -1;
  mul.wide.u32 %rd3, %r4, 16;
  ld.param.u64 %rd4, [pout];
  add.u64 %rd4, %rd4, %rd3;
  st.global.v4.u32 [%rd4], {{%r6, %r7, %r8, %r9}};
  ret;
}})",
                                       bits, reg)));
    const uint32_t nt = 256, block = 128;
    std::vector<uint64_t> in(nt);
    std::mt19937_64 rng(bits);
    for (uint32_t i = 0; i < nt; ++i) {
      const uint32_t warp = i / 32;
      // Warps 0 and 5 are uniform (values differing only above bit 31 for b64); others have
      // a few distinct values.
      if (warp == 0 || warp == 5)
        in[i] = 0x1234567800000000ull * (bits == 64) + 77;
      else if (warp == 3 && bits == 64)
        in[i] = (uint64_t(i % 2) << 40) | 5;  // equal low words
      else
        in[i] = rng() % 4 + (bits == 64 ? (rng() % 2) << 33 : 0);
    }
    Addr pin = r.upload(in), pout = r.upload(std::vector<uint32_t>(nt * 4, 0));
    r.launch("m", {nt / block, 1, 1}, {block, 1, 1}, 0, pin, pout);
    auto v = r.download<uint32_t>(pout, nt * 4);
    for (uint32_t i = 0; i < nt; ++i) {
      const uint32_t base = i - i % 32;
      const uint64_t mine = in[i] & mask_bits(bits);
      uint32_t same = 0;
      bool all = true;
      for (uint32_t k = 0; k < 32; ++k) {
        if ((in[base + k] & mask_bits(bits)) == mine)
          same |= 1u << k;
        else
          all = false;
      }
      EXPECT_EQ(v[4 * i], same) << i;
      EXPECT_EQ(v[4 * i + 1], all ? 0xffffffffu : 0u) << i;
      EXPECT_EQ(v[4 * i + 2], all ? 1u : 0u) << i;
      EXPECT_EQ(v[4 * i + 3], all ? 0xffffffffu : 0u) << i;
    }
  }
}

TEST(WarpOps, ReduxSync) {
  struct R {
    const char* op;
    const char* type;
  };
  const R ops[] = {{"add", "u32"}, {"add", "s32"}, {"min", "u32"}, {"min", "s32"}, {"max", "u32"},
                   {"max", "s32"}, {"and", "b32"}, {"or", "b32"},  {"xor", "b32"}};
  for (const R& o : ops) {
    // Full warps, plus a divergent subset (lanes with bit 0 of the input set).
    for (bool divergent : {false, true}) {
      SCOPED_TRACE(fmt::format("redux.sync.{}.{} divergent={}", o.op, o.type, divergent));
      OpSpec s(
          divergent
              ? fmt::format("mov.u32 {{d}}, 0xdeadbeef;\n  and.b32 %r1, {{a}}, 1;\n"
                            "  setp.eq.u32 %p1, %r1, 0;\n  @%p1 bra SKIP;\n  activemask.b32 %r2;\n"
                            "  redux.sync.{}.{} {{d}}, {{a}}, %r2;\nSKIP:",
                            o.op, o.type)
              : fmt::format("redux.sync.{}.{} {{d}}, {{a}}, 0xffffffff;", o.op, o.type),
          32, 32, 0);
      const uint32_t nt = 288;
      std::vector<OpIn> in(nt);
      std::mt19937 rng(7);
      for (uint32_t i = 0; i < nt; ++i) in[i].a = (i / 32 == 4) ? 0x80000001u : rng();
      OpResult res = run_op(s, in);
      const bool sgn = o.type[0] == 's';
      const std::string op = o.op;
      for (uint32_t i = 0; i < nt; ++i) {
        const uint32_t base = i - i % 32;
        if (divergent && !(in[i].a & 1)) {
          EXPECT_EQ(res.d[i], 0xdeadbeefu) << i;
          continue;
        }
        i128 acc = 0;
        bool first = true;
        for (uint32_t k = 0; k < 32; ++k) {
          const uint64_t x = in[base + k].a;
          if (divergent && !(x & 1)) continue;
          const i128 xv = ival(x, 32, sgn);
          if (first)
            acc = xv;
          else if (op == "add")
            acc += xv;
          else if (op == "min")
            acc = std::min(acc, xv);
          else if (op == "max")
            acc = std::max(acc, xv);
          else if (op == "and")
            acc &= xv;
          else if (op == "or")
            acc |= xv;
          else
            acc ^= xv;
          first = false;
        }
        ASSERT_EQ(res.d[i], wrap(acc, 32)) << "thread " << i;
      }
    }
  }
}

}  // namespace
}  // namespace simtlab::testing
