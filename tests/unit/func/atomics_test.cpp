// Atomic instructions (PTX ISA 9.7.12.x): atom and red on global, shared and generic addresses
// for add/min/max/and/or/xor/exch/cas/inc/dec on 16/32/64-bit integer types, with every thread
// of several warps hitting one address. Checks: the exact final value and that the values
// returned by atom form a valid serialization (each thread's old value is the state some
// ordering of the operations produces) - independent of the order the simulator picks.
#include <algorithm>
#include <optional>

#include "tests/unit/func/op_test_util.h"

namespace simtlab::testing {
namespace {

enum class Space { global, shared, generic_global, generic_shared };
const char* space_name(Space s) {
  switch (s) {
    case Space::global:
      return "global";
    case Space::shared:
      return "shared";
    case Space::generic_global:
      return "generic->global";
    default:
      return "generic->shared";
  }
}

struct AtomOp {
  const char* op;
  const char* type;
  unsigned bits;
  bool sgn;
  bool has_c = false;  // cas
};

/// New memory value after `op` with operands b, c on the old value (all n-bit patterns).
uint64_t apply(const AtomOp& o, uint64_t old, uint64_t b, uint64_t c) {
  const unsigned n = o.bits;
  const std::string op = o.op;
  if (op == "add") return wrap(uval(old, n) + uval(b, n), n);
  if (op == "min") return wrap(std::min(ival(old, n, o.sgn), ival(b, n, o.sgn)), n);
  if (op == "max") return wrap(std::max(ival(old, n, o.sgn), ival(b, n, o.sgn)), n);
  if (op == "and") return old & b;
  if (op == "or") return old | b;
  if (op == "xor") return old ^ b;
  if (op == "exch") return b;
  if (op == "cas") return old == b ? c : old;
  if (op == "inc") return old >= b ? 0 : old + 1;
  if (op == "dec") return (old == 0 || old > b) ? b : old - 1;
  ADD_FAILURE() << "unknown op " << op;
  return 0;
}

const char* reg_of(unsigned bits, int k) {
  static const char* r16[] = {"%h1", "%h2", "%h3"};
  static const char* r32[] = {"%r10", "%r11", "%r12"};
  static const char* r64[] = {"%rd10", "%rd11", "%rd12"};
  return bits == 16 ? r16[k] : bits == 32 ? r32[k] : r64[k];
}

std::string atom_kernel(const AtomOp& o, Space sp, bool red) {
  const unsigned n = o.bits;
  const char* B = reg_of(n, 0);
  const char* C = reg_of(n, 1);
  const char* OLD = reg_of(n, 2);
  const bool shared = sp == Space::shared || sp == Space::generic_shared;
  std::string k = R"(
.visible .entry at(.param .u64 pold, .param .u64 pfinal, .param .u64 pb, .param .u64 pc) {
  .reg .pred %p<4>;
  .reg .b16 %h<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 8 .b8 cell[8];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd1, %r4, 8;
  ld.param.u64 %rd2, [pold];
  add.u64 %rd2, %rd2, %rd1;
  ld.param.u64 %rd3, [pfinal];
  ld.param.u64 %rd4, [pb];
  add.u64 %rd4, %rd4, %rd1;
  ld.param.u64 %rd5, [pc];
  add.u64 %rd5, %rd5, %rd1;
)";
  k += fmt::format("  ld.global.b{} {}, [%rd4];\n  ld.global.b{} {}, [%rd5];\n", n, B, n, C);
  if (shared) {
    k += "  setp.eq.u32 %p1, %r3, 0;\n";
    k += fmt::format(
        "  @%p1 ld.global.b{} {}, [%rd3];\n  @%p1 st.shared.b{} [cell], {};\n  bar.sync 0;\n", n,
        OLD, n, OLD);
  }
  std::string addr, space;
  switch (sp) {
    case Space::global:
      addr = "[%rd3]";
      space = ".global";
      break;
    case Space::generic_global:
      addr = "[%rd3]";
      break;
    case Space::shared:
      addr = "[cell]";
      space = ".shared";
      break;
    case Space::generic_shared:
      k += "  mov.u64 %rd6, cell;\n  cvta.shared.u64 %rd7, %rd6;\n";
      addr = "[%rd7]";
      break;
  }
  if (red) {
    k += fmt::format("  red{}.{}.{} {}, {};\n", space, o.op, o.type, addr, B);
  } else {
    k += fmt::format("  atom{}.{}.{} {}, {}, {}{};\n", space, o.op, o.type, OLD, addr, B,
                     o.has_c ? std::string(", ") + C : std::string());
    k += fmt::format("  st.global.b{} [%rd2], {};\n", n, OLD);
  }
  if (shared) {
    k += fmt::format(
        "  bar.sync 0;\n  @%p1 ld.shared.b{} {}, [cell];\n  @%p1 st.global.b{} [%rd3], {};\n", n,
        OLD, n, OLD);
  }
  k += "  ret;\n}\n";
  return k;
}

/// Operand values and initial memory value for op `o` with `nt` threads.
void make_operands(const AtomOp& o, uint32_t nt, std::vector<uint64_t>& b, std::vector<uint64_t>& c,
                   uint64_t& init) {
  const unsigned n = o.bits;
  const uint64_t m = mask_bits(n);
  std::mt19937_64 rng(nt * 131 + n + o.op[0] * 7 + o.op[1]);
  b.assign(nt, 0);
  c.assign(nt, 0);
  const std::string op = o.op;
  init = rng() & m;
  for (uint32_t i = 0; i < nt; ++i) {
    if (op == "add")
      b[i] = (i % 5 == 0 ? m - (rng() & 0xffff) : (rng() & 0xfffff) + 1) & m;
    else if (op == "and")
      b[i] = ~(uint64_t(1) << (rng() % n)) & m;
    else if (op == "or")
      b[i] = uint64_t(1) << (rng() % n);
    else if (op == "exch")
      b[i] = (i * 7919 + 1) & m;
    else if (op == "cas") {
      b[i] = i;  // thread i swaps i -> i+1: a chain from the initial value 0
      c[i] = i + 1;
    } else if (op == "inc")
      b[i] = 100;
    else if (op == "dec")
      b[i] = 50;
    else
      b[i] = rng() & m;
  }
  if (op == "cas") init = 0;
  if (op == "inc") init = 7;
  if (op == "dec") init = 5;
  if (op == "and") init = m;
  if (op == "or") init = 0;
}

/// Finds an order of the operations consistent with the returned old values (greedy, taking
/// operations that leave the value unchanged first). Returns the final value, or nullopt.
std::optional<uint64_t> serialize(const AtomOp& o, uint64_t init, const std::vector<uint64_t>& olds,
                                  const std::vector<uint64_t>& b, const std::vector<uint64_t>& c) {
  const size_t nt = olds.size();
  std::vector<bool> used(nt, false);
  uint64_t state = init;
  for (size_t step = 0; step < nt; ++step) {
    size_t pick = nt;
    for (size_t i = 0; i < nt; ++i) {
      if (used[i] || olds[i] != state) continue;
      if (apply(o, state, b[i], c[i]) == state) {
        pick = i;
        break;
      }
      if (pick == nt) pick = i;
    }
    if (pick == nt) return std::nullopt;
    used[pick] = true;
    state = apply(o, state, b[pick], c[pick]);
  }
  return state;
}

const std::vector<AtomOp> kAtomOps = {
    {"add", "u32", 32, false},       {"add", "s32", 32, true},
    {"add", "u64", 64, false},       {"min", "u32", 32, false},
    {"min", "s32", 32, true},        {"min", "u64", 64, false},
    {"min", "s64", 64, true},        {"max", "u32", 32, false},
    {"max", "s32", 32, true},        {"max", "u64", 64, false},
    {"max", "s64", 64, true},        {"and", "b32", 32, false},
    {"and", "b64", 64, false},       {"or", "b32", 32, false},
    {"or", "b64", 64, false},        {"xor", "b32", 32, false},
    {"xor", "b64", 64, false},       {"exch", "b32", 32, false},
    {"exch", "b64", 64, false},      {"cas", "b32", 32, false, true},
    {"cas", "b64", 64, false, true}, {"cas", "b16", 16, false, true},
    {"inc", "u32", 32, false},       {"dec", "u32", 32, false}};

void run_atomic(const AtomOp& o, Space sp, bool red) {
  SCOPED_TRACE(fmt::format("{}.{}.{} on {}", red ? "red" : "atom", o.op, o.type, space_name(sp)));
  const bool shared = sp == Space::shared || sp == Space::generic_shared;
  const uint32_t block = shared ? 128 : 96, grid = shared ? 1 : 2, nt = block * grid;
  std::vector<uint64_t> b, c;
  uint64_t init;
  make_operands(o, nt, b, c, init);
  PtxRunner r;
  try {
    r.load(ptx_module(atom_kernel(o, sp, red)));
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
    return;
  }
  Addr pold = r.upload(std::vector<uint64_t>(nt, 0xabababababababab)), pb = r.upload(b),
       pc = r.upload(c);
  Addr pfinal = r.upload(std::vector<uint64_t>{init});
  try {
    r.launch("at", {grid, 1, 1}, {block, 1, 1}, 0, pold, pfinal, pb, pc);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
    return;
  }
  const uint64_t m = mask_bits(o.bits);
  const uint64_t final_v = r.download<uint64_t>(pfinal, 1)[0] & m;
  std::vector<uint64_t> olds = r.download<uint64_t>(pold, nt);
  for (auto& x : olds) x &= m;
  const std::string op = o.op;
  const bool commutative =
      op == "add" || op == "min" || op == "max" || op == "and" || op == "or" || op == "xor";
  if (commutative || op == "inc" || op == "dec") {
    // Same result in any order (inc/dec: every thread applies the same function).
    uint64_t want = init;
    for (uint32_t i = 0; i < nt; ++i) want = apply(o, want, b[i], c[i]);
    EXPECT_EQ(final_v, want);
  }
  if (red) return;
  const auto ser = serialize(o, init, olds, b, c);
  ASSERT_TRUE(ser.has_value()) << "the returned old values are not a valid serialization";
  EXPECT_EQ(*ser, final_v);
}

TEST(Atomics, AtomEveryOpTypeAndSpaceContended) {
  for (Space sp : {Space::global, Space::shared, Space::generic_global, Space::generic_shared})
    for (const AtomOp& o : kAtomOps) run_atomic(o, sp, false);
}

TEST(Atomics, RedEveryOpTypeAndSpaceContended) {
  for (Space sp : {Space::global, Space::shared, Space::generic_global, Space::generic_shared})
    for (const AtomOp& o : kAtomOps)
      if (std::string(o.op) != "exch" && std::string(o.op) != "cas") run_atomic(o, sp, true);
}

TEST(Atomics, IncDecWrapSequences) {
  // With one function applied by every thread, the multiset of old values is fixed:
  // inc from 7 with bound 100 gives 7..100, 0..100, 0..; dec from 5 with bound 50 gives
  // 5,4,..,0,50,49,...
  for (const AtomOp& o : {AtomOp{"inc", "u32", 32, false}, AtomOp{"dec", "u32", 32, false}}) {
    PtxRunner r(ptx_module(atom_kernel(o, Space::global, false)));
    const uint32_t nt = 192;
    std::vector<uint64_t> b(nt, o.op[0] == 'i' ? 100 : 50), c(nt, 0);
    const uint64_t init = o.op[0] == 'i' ? 7 : 5;
    Addr pold = r.upload(std::vector<uint64_t>(nt, 0)), pb = r.upload(b), pc = r.upload(c);
    Addr pfinal = r.upload(std::vector<uint64_t>{init});
    r.launch("at", {2, 1, 1}, {96, 1, 1}, 0, pold, pfinal, pb, pc);
    auto olds = r.download<uint64_t>(pold, nt);
    for (auto& x : olds) x &= 0xffffffff;
    std::sort(olds.begin(), olds.end());
    std::vector<uint64_t> want;
    uint64_t s = init;
    for (uint32_t i = 0; i < nt; ++i) {
      want.push_back(s);
      s = apply(o, s, b[0], 0);
    }
    std::sort(want.begin(), want.end());
    EXPECT_EQ(olds, want) << o.op;
    EXPECT_EQ(r.download<uint64_t>(pfinal, 1)[0] & 0xffffffff, s) << o.op;
  }
}

TEST(Atomics, PerLaneAddressesReturnOwnOldValue) {
  PtxRunner r(ptx_module(R"(
.visible .entry k(.param .u64 p) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, 4;
  ld.param.u64 %rd2, [p];
  add.u64 %rd3, %rd2, %rd1;
  add.u32 %r2, %r1, 1;
  atom.global.add.u32 %r3, [%rd3], %r2;
  atom.global.exch.b32 %r4, [%rd3], %r3;
  atom.global.max.s32 %r5, [%rd3], -1;
  add.u32 %r6, %r4, %r5;
  atom.global.add.u32 %r7, [%rd3], %r6;
  ret;
})"));
  const uint32_t nt = 100;
  std::vector<uint32_t> init(nt);
  for (uint32_t i = 0; i < nt; ++i) init[i] = i * 1000;
  Addr p = r.upload(init);
  r.launch("k", {1, 1, 1}, {nt, 1, 1}, 0, p);
  auto v = r.download<uint32_t>(p, nt);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t a = init[i];          // add: old = a, mem = a + i + 1
    const uint32_t x = a + i + 1;        // exch: old = x, mem = a
    const uint32_t mx = a;               // max(a, -1) = a (non-negative), old = a
    EXPECT_EQ(v[i], a + (x + mx)) << i;  // add: mem = a + x + a
  }
}

TEST(Atomics, MemoryOrderAndScopeQualifiers) {
  // nvcc emits .relaxed/.acquire/.release/.acq_rel with .cta/.gpu/.sys scopes (cuda::atomic_ref,
  // atomicAdd_block/_system); in the functional model they behave like the plain forms.
  PtxRunner r(ptx_module(R"(
.visible .entry k(.param .u64 p) {
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 sh[4];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [p];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [sh], %r1;
  bar.sync 0;
  atom.relaxed.gpu.global.add.u32 %r2, [%rd1], 1;
  atom.acquire.sys.global.max.u32 %r3, [%rd1+4], %r1;
  atom.release.cta.global.or.b32 %r4, [%rd1+8], %r1;
  atom.acq_rel.gpu.global.exch.b32 %r5, [%rd1+12], 7;
  red.relaxed.gpu.global.add.u32 [%rd1+16], 2;
  red.release.sys.global.xor.b32 [%rd1+20], %r1;
  atom.relaxed.cta.shared.add.u32 %r6, [sh], 3;
  atom.sys.global.min.s32 %r7, [%rd1+24], %r1;
  red.gpu.global.add.u64 [%rd1+32], 5;
  fence.acq_rel.gpu;
  membar.gl;
  fence.sc.sys;
  membar.cta;
  bar.sync 0;
  ld.relaxed.cta.shared.u32 %r8, [sh];
  @%p1 st.release.gpu.global.u32 [%rd1+28], %r8;
  ret;
}
)"));
  const uint32_t nt = 100;
  Addr p = r.upload(std::vector<uint32_t>{0, 0, 0, 0, 0, 0, 1000, 0, 0, 0});
  r.launch("k", {1, 1, 1}, {nt, 1, 1}, 0, p);
  auto v = r.download<uint32_t>(p, 10);
  uint32_t orv = 0, xorv = 0;
  for (uint32_t t = 0; t < nt; ++t) {
    orv |= t;
    xorv ^= t;
  }
  EXPECT_EQ(v[0], nt);
  EXPECT_EQ(v[1], nt - 1);
  EXPECT_EQ(v[2], orv);
  EXPECT_EQ(v[3], 7u);
  EXPECT_EQ(v[4], 2 * nt);
  EXPECT_EQ(v[5], xorv);
  EXPECT_EQ(v[6], 0u);
  EXPECT_EQ(v[7], 3 * nt);
  EXPECT_EQ(v[8] | (uint64_t(v[9]) << 32), 5ull * nt);
}

TEST(Atomics, CasSpinLoopUnderDivergence) {
  // Every thread adds its value with a compare-and-swap retry loop; lanes of one warp contend,
  // so the loop diverges (one winner per iteration) and must still terminate with the exact sum.
  PtxRunner r(ptx_module(R"(
.visible .entry k(.param .u64 p, .param .u64 tries) {
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  add.u32 %r5, %r4, 1;
  ld.param.u64 %rd1, [p];
  mov.u32 %r9, 0;
RETRY:
  add.u32 %r9, %r9, 1;
  ld.volatile.global.u32 %r6, [%rd1];
  add.u32 %r7, %r6, %r5;
  atom.global.cas.b32 %r8, [%rd1], %r6, %r7;
  setp.ne.u32 %p1, %r8, %r6;
  @%p1 bra RETRY;
  mul.wide.u32 %rd2, %r4, 4;
  ld.param.u64 %rd3, [tries];
  add.u64 %rd3, %rd3, %rd2;
  st.global.u32 [%rd3], %r9;
  ret;
})"));
  const uint32_t nt = 160;
  Addr p = r.upload(std::vector<uint32_t>{0}), tries = r.upload(std::vector<uint32_t>(nt, 0));
  r.launch("k", {2, 1, 1}, {80, 1, 1}, 0, p, tries);
  EXPECT_EQ(r.download<uint32_t>(p, 1)[0], nt * (nt + 1) / 2);
  auto t = r.download<uint32_t>(tries, nt);
  uint32_t total = 0;
  for (uint32_t x : t) {
    EXPECT_GE(x, 1u);
    total += x;
  }
  EXPECT_GT(total, nt);  // contention forced retries
}

}  // namespace
}  // namespace simtlab::testing
