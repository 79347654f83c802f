// Function calls: non-inlined .func with parameters and return values (scalar and aggregate),
// calls in divergent code, nested calls, recursion with per-lane depth (factorial, fibonacci),
// indirect calls through .callprototype with per-lane targets, and the device runtime: printf
// through vprintf, malloc/free, __assertfail.
#include "tests/unit/func/op_test_util.h"

#include <algorithm>
#include <sstream>

namespace simtlab::testing {
namespace {

/// A PTX byte-array initializer for a NUL-terminated string.
std::string cstr_init(const std::string& s) {
  std::string r = "{";
  for (unsigned char c : s) r += std::to_string(c) + ", ";
  return r + "0}";
}

const char* kIndexPrologue = R"(
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd1, %r4, 4;
  ld.param.u64 %rd2, [pin];
  add.u64 %rd2, %rd2, %rd1;
  ld.global.u32 %r5, [%rd2];
  ld.param.u64 %rd3, [pout];
  add.u64 %rd3, %rd3, %rd1;
)";

std::vector<uint32_t> run_in_out(const std::string& ptx, const char* kernel,
                                 const std::vector<uint32_t>& in, uint32_t block,
                                 uint32_t stack_bytes = 0) {
  PtxRunner r(ptx_module(ptx));
  if (stack_bytes) r.dev().options().stack_bytes = stack_bytes;
  const uint32_t nt = uint32_t(in.size());
  Addr pin = r.upload(in), pout = r.upload(std::vector<uint32_t>(nt, 0xcccccccc));
  r.launch(kernel, {(nt + block - 1) / block, 1, 1}, {block, 1, 1}, 0, pin, pout);
  return r.download<uint32_t>(pout, nt);
}

TEST(Calls, DirectCallsWithParamsReturnsInDivergentCode) {
  const std::string ptx = std::string(R"(
.func (.param .b32 ret) lin(.param .b32 a, .param .b32 b, .param .b32 c) {
  .reg .b32 %r<6>;
  ld.param.b32 %r1, [a];
  ld.param.b32 %r2, [b];
  ld.param.b32 %r3, [c];
  add.u32 %r4, %r1, %r2;
  mad.lo.u32 %r4, %r3, 3, %r4;
  st.param.b32 [ret], %r4;
  ret;
}
.func (.param .b32 ret) twice(.param .b32 x) {
  .reg .b32 %r<4>;
  .reg .pred %p1;
  ld.param.b32 %r1, [x];
  setp.gt.u32 %p1, %r1, 500;
  @%p1 bra BIG;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 a1;
    st.param.b32 [a1], %r1;
    .param .b32 a2;
    st.param.b32 [a2], 7;
    .param .b32 r0;
    call (r0), lin, (a0, a1, a2);
    ld.param.b32 %r2, [r0];
  }
  st.param.b32 [ret], %r2;
  ret;
BIG:
  sub.u32 %r2, %r1, 500;
  st.param.b32 [ret], %r2;
  ret;
}
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
)") + kIndexPrologue + R"(
  mov.u32 %r9, 11;
  and.b32 %r6, %r5, 1;
  setp.eq.u32 %p1, %r6, 0;
  @%p1 bra EVEN;
  {
    .param .b32 x;
    st.param.b32 [x], %r5;
    .param .b32 y;
    call.uni (y), twice, (x);
    ld.param.b32 %r7, [y];
  }
  bra JOIN;
EVEN:
  {
    .param .b32 a0;
    st.param.b32 [a0], %r5;
    .param .b32 a1;
    st.param.b32 [a1], %r4;
    .param .b32 a2;
    st.param.b32 [a2], %r9;
    .param .b32 r0;
    call (r0), lin, (a0, a1, a2);
    ld.param.b32 %r7, [r0];
  }
JOIN:
  add.u32 %r7, %r7, %r9;
  st.global.u32 [%rd3], %r7;
  ret;
}
)";
  const uint32_t nt = 288;
  std::vector<uint32_t> in(nt);
  for (uint32_t i = 0; i < nt; ++i) in[i] = i * 37 % 1001;
  auto v = run_in_out(ptx, "k", in, 96);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t x = in[i];
    uint32_t want;
    if (x & 1)
      want = x > 500 ? x - 500 : x + x + 21;
    else
      want = x + i + 33;
    EXPECT_EQ(v[i], want + 11) << "thread " << i << " x=" << x;
  }
}

const char* kRecursion = R"(
.func (.param .b64 r) fact(.param .b32 n) {
  .reg .pred %p1;
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.b32 %r1, [n];
  setp.le.u32 %p1, %r1, 1;
  @%p1 bra BASE;
  sub.u32 %r2, %r1, 1;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r2;
    .param .b64 r0;
    call (r0), fact, (a0);
    ld.param.b64 %rd1, [r0];
  }
  mul.wide.u32 %rd2, %r1, 1;
  mul.lo.u64 %rd3, %rd1, %rd2;
  st.param.b64 [r], %rd3;
  ret;
BASE:
  mov.u64 %rd3, 1;
  st.param.b64 [r], %rd3;
  ret;
}
.func (.param .b32 r) fib(.param .b32 n) {
  .reg .pred %p1;
  .reg .b32 %r<6>;
  ld.param.b32 %r1, [n];
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra BASE;
  sub.u32 %r2, %r1, 1;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r2;
    .param .b32 r0;
    call (r0), fib, (a0);
    ld.param.b32 %r3, [r0];
  }
  sub.u32 %r2, %r1, 2;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r2;
    .param .b32 r0;
    call (r0), fib, (a0);
    ld.param.b32 %r4, [r0];
  }
  add.u32 %r5, %r3, %r4;
  st.param.b32 [r], %r5;
  ret;
BASE:
  st.param.b32 [r], %r1;
  ret;
}
)";

TEST(Calls, RecursionWithPerLaneDepth) {
  const std::string ptx = std::string(kRecursion) + R"(
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
)" + kIndexPrologue + R"(
  rem.u32 %r6, %r5, 21;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r6;
    .param .b64 r0;
    call (r0), fact, (a0);
    ld.param.b64 %rd4, [r0];
  }
  rem.u32 %r7, %r5, 16;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r7;
    .param .b32 r0;
    call (r0), fib, (a0);
    ld.param.b32 %r8, [r0];
  }
  mov.b64 {%r9, %r10}, %rd4;
  xor.b32 %r9, %r9, %r10;
  mad.lo.u32 %r11, %r8, 65599, %r9;
  st.global.u32 [%rd3], %r11;
  ret;
}
)";
  const uint32_t nt = 128;
  std::vector<uint32_t> in(nt);
  for (uint32_t i = 0; i < nt; ++i) in[i] = i * 7 + i / 5;
  auto v = run_in_out(ptx, "k", in, 64, 16384);
  auto fact = [](uint32_t n) {
    uint64_t f = 1;
    for (uint32_t k = 2; k <= n; ++k) f *= k;
    return f;
  };
  auto fib = [](uint32_t n) {
    uint32_t a = 0, b = 1;
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t t = a + b;
      a = b;
      b = t;
    }
    return a;
  };
  for (uint32_t i = 0; i < nt; ++i) {
    const uint64_t f = fact(in[i] % 21);
    const uint32_t want = fib(in[i] % 16) * 65599u + (uint32_t(f) ^ uint32_t(f >> 32));
    EXPECT_EQ(v[i], want) << "thread " << i;
  }
}

TEST(Calls, IndirectCallsThroughPrototypeWithPerLaneTargets) {
  const std::string ptx = std::string(R"(
.func (.param .b32 r) f0(.param .b32 x) {
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.u32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) f1(.param .b32 x) {
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  shl.b32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) f2(.param .b32 x) {
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  xor.b32 %r2, %r1, 0x55;
  st.param.b32 [r], %r2;
  ret;
}
.global .align 8 .u64 ftab[3] = {f0, f1, f2};
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
)") + kIndexPrologue + R"(
  rem.u32 %r6, %r5, 3;
  mul.wide.u32 %rd4, %r6, 8;
  mov.u64 %rd5, ftab;
  add.u64 %rd5, %rd5, %rd4;
  ld.global.u64 %rd6, [%rd5];
  {
    .param .b32 a0;
    st.param.b32 [a0], %r5;
    .param .b32 r0;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (r0), %rd6, (a0), proto;
    ld.param.b32 %r7, [r0];
  }
  mov.u64 %rd7, f1;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r7;
    .param .b32 r0;
    proto2: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (r0), %rd7, (a0), proto2;
    ld.param.b32 %r8, [r0];
  }
  st.global.u32 [%rd3], %r8;
  ret;
}
)";
  const uint32_t nt = 192;
  std::vector<uint32_t> in(nt);
  for (uint32_t i = 0; i < nt; ++i) in[i] = i * 13 + 5;
  auto v = run_in_out(ptx, "k", in, 96);
  for (uint32_t i = 0; i < nt; ++i) {
    const uint32_t x = in[i];
    const uint32_t y = x % 3 == 0 ? x + 1 : x % 3 == 1 ? x << 1 : x ^ 0x55;
    EXPECT_EQ(v[i], y << 1) << "thread " << i;
  }
}

TEST(Calls, AggregateParametersAndReturnValues) {
  const std::string ptx = std::string(R"(
.func (.param .align 8 .b8 r[16]) swap(.param .align 8 .b8 s[16], .param .b32 k) {
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [s+8];
  ld.param.u32 %r1, [k];
  mul.wide.u32 %rd3, %r1, 3;
  add.u64 %rd1, %rd1, %rd3;
  st.param.u64 [r], %rd2;
  st.param.u64 [r+8], %rd1;
  ret;
}
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
)") + kIndexPrologue + R"(
  mul.wide.u32 %rd4, %r5, 1000;
  mul.wide.u32 %rd5, %r4, 1;
  {
    .param .align 8 .b8 a0[16];
    st.param.u64 [a0], %rd4;
    st.param.u64 [a0+8], %rd5;
    .param .b32 a1;
    st.param.b32 [a1], %r4;
    .param .align 8 .b8 r0[16];
    call (r0), swap, (a0, a1);
    ld.param.u64 %rd6, [r0];
    ld.param.u64 %rd7, [r0+8];
  }
  sub.u64 %rd8, %rd7, %rd6;
  mov.b64 {%r7, %r8}, %rd8;
  st.global.u32 [%rd3], %r7;
  ret;
}
)";
  const uint32_t nt = 128;
  std::vector<uint32_t> in(nt);
  for (uint32_t i = 0; i < nt; ++i) in[i] = i + 3;
  auto v = run_in_out(ptx, "k", in, 64);
  for (uint32_t i = 0; i < nt; ++i)
    EXPECT_EQ(v[i], uint32_t(uint64_t(in[i]) * 1000 + 3 * i - i)) << i;
}

TEST(Calls, ExitInsideCalledFunctionAndCallsInLoops) {
  // Lanes whose value is a multiple of 5 exit inside the callee (the caller never resumes for
  // them); the others call the function a per-lane number of times from a loop.
  const std::string ptx = std::string(R"(
.func (.param .b32 r) step(.param .b32 x, .param .b32 k) {
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  ld.param.b32 %r1, [x];
  ld.param.b32 %r2, [k];
  rem.u32 %r3, %r1, 5;
  setp.eq.u32 %p1, %r3, 0;
  @%p1 exit;
  mad.lo.u32 %r4, %r1, 3, %r2;
  st.param.b32 [r], %r4;
  ret;
}
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
)") + kIndexPrologue + R"(
  rem.u32 %r6, %r5, 7;
  mov.u32 %r7, 0;
  mov.u32 %r8, %r5;
LOOP:
  setp.ge.u32 %p1, %r7, %r6;
  @%p1 bra DONE;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r8;
    .param .b32 a1;
    st.param.b32 [a1], %r7;
    .param .b32 r0;
    call (r0), step, (a0, a1);
    ld.param.b32 %r8, [r0];
  }
  add.u32 %r7, %r7, 1;
  bra LOOP;
DONE:
  st.global.u32 [%rd3], %r8;
  ret;
}
)";
  const uint32_t nt = 192;
  std::vector<uint32_t> in(nt);
  for (uint32_t i = 0; i < nt; ++i) in[i] = i * 11 + 1;
  auto v = run_in_out(ptx, "k", in, 96);
  for (uint32_t i = 0; i < nt; ++i) {
    uint32_t x = in[i];
    bool exited = false;
    for (uint32_t k = 0; k < in[i] % 7; ++k) {
      if (x % 5 == 0) {
        exited = true;
        break;
      }
      x = x * 3 + k;
    }
    EXPECT_EQ(v[i], exited ? 0xccccccccu : x) << "thread " << i;
  }
}

const char* kRuntimeDecls = R"(
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.extern .func __assertfail (.param .b64 p0, .param .b64 p1, .param .b32 p2, .param .b64 p3, .param .b64 p4);
)";

TEST(Calls, PrintfThroughVprintf) {
  const std::string fmt_s = "t=%d b=%u v=%lld s=%s x=%#x c=%c|\n";
  const std::string ptx = std::string(kRuntimeDecls) + ".global .align 1 .b8 fmt[" +
                          std::to_string(fmt_s.size() + 1) + "] = " + cstr_init(fmt_s) + ";\n" +
                          ".global .align 1 .b8 word[6] = " + cstr_init("hello") + ";\n" + R"(
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .local .align 8 .b8 buf[40];
)" + kIndexPrologue + R"(
  and.b32 %r6, %r5, 1;
  setp.eq.u32 %p1, %r6, 0;
  mov.u32 %r9, -1;
  @%p1 bra SKIP;
  st.local.u32 [buf], %r4;
  st.local.u32 [buf+4], %r1;
  mul.wide.s32 %rd4, %r5, -1000000007;
  st.local.u64 [buf+8], %rd4;
  mov.u64 %rd5, word;
  cvta.global.u64 %rd6, %rd5;
  st.local.u64 [buf+16], %rd6;
  st.local.u32 [buf+24], %r5;
  add.u32 %r7, %r3, 65;
  st.local.u32 [buf+28], %r7;
  mov.u64 %rd7, buf;
  cvta.local.u64 %rd8, %rd7;
  mov.u64 %rd9, fmt;
  cvta.global.u64 %rd10, %rd9;
  {
    .param .b64 param0;
    st.param.b64 [param0], %rd10;
    .param .b64 param1;
    st.param.b64 [param1], %rd8;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r9, [retval0];
  }
SKIP:
  st.global.u32 [%rd3], %r9;
  ret;
}
)";
  PtxRunner r(ptx_module(ptx));
  const uint32_t nt = 70, block = 35;
  std::vector<uint32_t> in(nt);
  for (uint32_t i = 0; i < nt; ++i) in[i] = i * 3 + (i % 4 == 0 ? 0 : 1) + 100;
  Addr pin = r.upload(in), pout = r.upload(std::vector<uint32_t>(nt, 0));
  r.launch("k", {2, 1, 1}, {block, 1, 1}, 0, pin, pout);
  auto v = r.download<uint32_t>(pout, nt);
  std::vector<std::string> want;
  for (uint32_t i = 0; i < nt; ++i) {
    if (!(in[i] & 1)) {
      EXPECT_EQ(v[i], 0xffffffffu);
      continue;
    }
    const int64_t big = int64_t(int32_t(in[i])) * -1000000007LL;
    want.push_back(fmt::format("t={} b={} v={} s=hello x={:#x} c={}|", i, i / block, big, in[i],
                               char(65 + i % block)));
    EXPECT_EQ(v[i], 6u) << "printf returns the number of arguments";
  }
  std::vector<std::string> got;
  std::istringstream ss(r.printed);
  for (std::string line; std::getline(ss, line);) got.push_back(line);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

TEST(Calls, MallocAndFree) {
  const std::string ptx = std::string(kRuntimeDecls) + R"(
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
)" + kIndexPrologue + R"(
  mul.wide.u32 %rd4, %r4, 8;
  add.u64 %rd4, %rd4, 16;
  {
    .param .b64 param0;
    st.param.b64 [param0], %rd4;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd5, [retval0];
  }
  // fill the block with the thread's pattern
  mov.u64 %rd6, 0;
FILL:
  add.u64 %rd7, %rd5, %rd6;
  add.u32 %r6, %r4, 0x10000;
  st.u32 [%rd7], %r6;
  add.u64 %rd6, %rd6, 4;
  setp.lt.u64 %p1, %rd6, %rd4;
  @%p1 bra FILL;
  bar.sync 0;
  // verify after every thread of the CTA has written its block
  mov.u32 %r7, 0;
  mov.u64 %rd6, 0;
CHECK:
  add.u64 %rd7, %rd5, %rd6;
  ld.u32 %r8, [%rd7];
  setp.ne.u32 %p2, %r8, %r6;
  selp.u32 %r9, 1, 0, %p2;
  add.u32 %r7, %r7, %r9;
  add.u64 %rd6, %rd6, 4;
  setp.lt.u64 %p1, %rd6, %rd4;
  @%p1 bra CHECK;
  ld.param.u64 %rd9, [pin];
  mul.wide.u32 %rd10, %r4, 8;
  add.u64 %rd9, %rd9, %rd10;
  st.global.u64 [%rd9], %rd5;
  st.global.u32 [%rd3], %r7;
  bar.sync 0;
  {
    .param .b64 param0;
    st.param.b64 [param0], %rd5;
    call.uni free, (param0);
  }
  mov.u64 %rd11, 0;
  {
    .param .b64 param0;
    st.param.b64 [param0], %rd11;
    call.uni free, (param0);
  }
  ret;
}
)";
  PtxRunner r(ptx_module(ptx));
  const uint32_t nt = 96;
  // pin doubles as the output array of returned pointers (8 bytes per thread).
  Addr pin = r.upload(std::vector<uint64_t>(nt, 0)),
       pout = r.upload(std::vector<uint32_t>(nt, 0xffff));
  r.launch("k", {2, 1, 1}, {48, 1, 1}, 0, pin, pout);
  auto ptrs = r.download<uint64_t>(pin, nt);
  auto errs = r.download<uint32_t>(pout, nt);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (uint32_t i = 0; i < nt; ++i) {
    EXPECT_EQ(errs[i], 0u) << "thread " << i << " saw its block overwritten";
    ASSERT_NE(ptrs[i], 0u) << i;
    EXPECT_EQ(ptrs[i] % 16, 0u) << "malloc results are 16-byte aligned";
    ranges.push_back({ptrs[i], ptrs[i] + 16 + 8 * i});
  }
  // Blocks of one CTA are live at the same time and must be disjoint.
  for (uint32_t c = 0; c < 2; ++c) {
    std::vector<std::pair<uint64_t, uint64_t>> rs(ranges.begin() + c * 48,
                                                  ranges.begin() + (c + 1) * 48);
    std::sort(rs.begin(), rs.end());
    for (size_t k = 1; k < rs.size(); ++k) EXPECT_LE(rs[k - 1].second, rs[k].first);
  }
}

TEST(Calls, AssertFailMessage) {
  const std::string ptx = std::string(kRuntimeDecls) +
                          ".global .align 1 .b8 msg[12] = " + cstr_init("x < limit") +
                          ";\n.global .align 1 .b8 file[16] = " + cstr_init("/src/kernel.cu") +
                          ";\n.global .align 1 .b8 func[24] = " + cstr_init("void check(int *)") +
                          ";\n" + R"(
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
)" + kIndexPrologue + R"(
  setp.lt.u32 %p1, %r5, 1000;
  @%p1 bra OK;
  mov.u64 %rd4, msg;
  cvta.global.u64 %rd5, %rd4;
  mov.u64 %rd6, file;
  cvta.global.u64 %rd7, %rd6;
  mov.u64 %rd8, func;
  cvta.global.u64 %rd9, %rd8;
  {
    .param .b64 param0;
    st.param.b64 [param0], %rd5;
    .param .b64 param1;
    st.param.b64 [param1], %rd7;
    .param .b32 param2;
    st.param.b32 [param2], 42;
    .param .b64 param3;
    st.param.b64 [param3], %rd9;
    .param .b64 param4;
    st.param.b64 [param4], 1;
    call.uni __assertfail, (param0, param1, param2, param3, param4);
  }
OK:
  st.global.u32 [%rd3], %r5;
  ret;
}
)";
  PtxRunner r(ptx_module(ptx));
  std::vector<uint32_t> in(128, 5);
  in[64 + 13] = 5000;  // block 1, thread 13 (blocks of 64)
  in[64 + 20] = 5000;
  Addr pin = r.upload(in), pout = r.upload(std::vector<uint32_t>(128, 0));
  try {
    r.launch("k", {2, 1, 1}, {64, 1, 1}, 0, pin, pout);
    FAIL() << "assert did not abort the kernel";
  } catch (const GuestAssert& e) {
    EXPECT_EQ(std::string(e.what()),
              "/src/kernel.cu:42: void check(int *): block: [1,0,0], thread: [13,0,0] Assertion `x "
              "< limit` failed.");
  }
  // Block 0 completed before the failing block.
  auto v = r.download<uint32_t>(pout, 128);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(v[i], 5u);
}

}  // namespace
}  // namespace simtlab::testing
