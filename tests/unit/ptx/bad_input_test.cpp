// Issue #10 ("trustworthy results under bad input"), PTX front end: sizes that would wrap at 32
// bits, deep block nesting, a very long line, empty / binary / badly versioned modules. Every
// case checks the exact diagnostic (line:col: message) or the exact value.
#include <gtest/gtest.h>

#include <pthread.h>

#include <chrono>
#include <ctime>

#include "ptx/layout.h"
#include "ptx_test_util.h"

namespace simtlab::ptx {
namespace {

using testing::diag;
using testing::kHeader;

std::string header() { return kHeader; }

/// The diagnostic of parsing `text` and laying out every kernel and frame (what `simtlab ptx
/// check` does), "line:col: message", or "no error".
std::string check(const std::string& text) {
  try {
    Module m = parse_module(text, "t.ptx");
    for (uint32_t fi = 0; fi < m.funcs.size(); ++fi) {
      if (!m.funcs[fi].defined) continue;
      (void)layout_frame(m, fi);
      if (m.funcs[fi].is_entry) (void)layout_kernel(m, fi);
    }
  } catch (const DiagError& e) {
    return std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " + e.message();
  }
  return "no error";
}

// ---- item 5: sizes are computed in 64 bits and bounded ---------------------------------------

TEST(PtxBadInput, SharedArrayOf4GiBIsRejectedNotZero) {
  // Used to be laid out as 0 bytes of static shared memory (the size wrapped at 32 bits).
  EXPECT_EQ(diag(header() + ".shared .b8 s[4294967296];\n"),
            "4:13: .shared variable 's' is 4294967296 bytes, more than the 16777216-byte limit");
  EXPECT_EQ(diag(header() + ".visible .entry k()\n{\n\t.shared .align 8 .b64 s[536870912];\n"
                            "\tret;\n}\n"),
            "6:24: .shared variable 's' is 4294967296 bytes, more than the 16777216-byte limit");
  EXPECT_EQ(diag(header() + ".const .b32 c[4194305];\n"),
            "4:13: .const variable 'c' is 16777220 bytes, more than the 16777216-byte limit");
  EXPECT_EQ(diag(header() + ".visible .entry k()\n{\n\t.local .b8 l[16777217];\n\tret;\n}\n"),
            "6:13: .local variable 'l' is 16777217 bytes, more than the 16777216-byte limit");
  // .global variables are not bounded by it (their allocation reports a lack of memory).
  EXPECT_EQ(diag(header() + ".global .b8 g[4294967296];\n"), "no error");
}

TEST(PtxBadInput, ParamArrayOf2To29U64IsRejectedNotZero) {
  EXPECT_EQ(diag(header() + ".visible .entry k(.param .u64 p[536870912])\n{\n\tret;\n}\n"),
            "4:31: parameter 'p' is 4294967296 bytes, more than the 16777216-byte limit");
  EXPECT_EQ(diag(header() + ".func f(.param .u64 p[536870912])\n{\n\tret;\n}\n"),
            "4:21: parameter 'p' is 4294967296 bytes, more than the 16777216-byte limit");
}

TEST(PtxBadInput, KernelParameterSpaceIsPtxasLimit) {
  // 32764 bytes (0x7ffc) is what ptxas accepts; one more parameter byte is refused.
  Module ok = testing::parse(
      ".visible .entry k(.param .align 4 .b8 a[32760], .param .u32 b)\n"
      "{\n\tret;\n}\n");
  uint32_t bytes = 0;
  (void)layout_params(ok, ok.funcs[0].params, &bytes);
  EXPECT_EQ(bytes, 32764u);
  EXPECT_EQ(diag(header() + ".visible .entry k(.param .align 4 .b8 a[32760], .param .u64 b)\n"
                            "{\n\tret;\n}\n"),
            "4:61: the parameters of kernel 'k' take 32768 bytes up to 'b', more than the 32764 "
            "bytes CUDA allows");
}

TEST(PtxBadInput, ParamAlignmentCannotTruncate) {
  EXPECT_EQ(diag(header() + ".visible .entry k(.param .align 4294967296 .u32 p)\n{\n\tret;\n}\n"),
            "4:26: alignment must be a power of two");
}

TEST(PtxBadInput, KernelStaticSharedTotalIsBounded) {
  // Two 10 MiB variables: each is allowed, the kernel's 20 MiB is not.
  const std::string two = header() +
                          ".shared .b8 a[10485760];\n"
                          ".shared .b8 b[10485760];\n"
                          ".visible .entry k(.param .u64 p)\n{\n"
                          "\t.reg .b64 %rd<3>;\n"
                          "\tmov.u64 %rd1, a;\n"
                          "\tmov.u64 %rd2, b;\n"
                          "\tret;\n}\n";
  EXPECT_EQ(check(two),
            "6:1: kernel 'k' uses 20971520 bytes of static shared memory, more than the "
            "16777216-byte limit");
  // Exactly at the limit: laid out, total 16 MiB.
  Module m = testing::parse(
      ".shared .b8 a[16777216];\n"
      ".visible .entry k()\n{\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, a;\n\tret;\n}\n");
  EXPECT_EQ(layout_kernel(m, 0).static_shared, 16777216u);
}

TEST(PtxBadInput, LocalFrameTotalIsBounded) {
  EXPECT_EQ(diag(header() + ".visible .entry k()\n{\n\t.local .b8 a[10485760];\n"
                            "\t.local .b8 b[10485760];\n\tret;\n}\n"),
            "4:1: the local frame of 'k' (.local and .param variables) is 20971520 bytes, more "
            "than the 16777216-byte limit");
  EXPECT_EQ(diag(header() + ".func f(.param .b8 a[10485760], .param .b8 b[10485760])\n{\n"
                            "\tret;\n}\n"),
            "4:1: the local frame of 'f' (.local and .param variables) is 20971520 bytes, more "
            "than the 16777216-byte limit");
}

// ---- item 8: nesting depth --------------------------------------------------------------------

std::string nested(size_t depth) {
  return header() + ".visible .entry k()\n{\n" + std::string(depth, '{') + "\tret;\n" +
         std::string(depth, '}') + "\n}\n";
}

TEST(PtxBadInput, BlockNestingIsBounded) {
  EXPECT_EQ(diag(nested(256)), "no error");
  // The 257th `{` on line 6 (column 257) is refused.
  EXPECT_EQ(diag(nested(257)), "6:257: blocks nested more than 256 deep");
  // Used to overflow the stack (parse_block <-> parse_statement recursion).
  EXPECT_EQ(diag(nested(20000)), "6:257: blocks nested more than 256 deep");
}

TEST(PtxBadInput, LongCallChainDoesNotRecurse) {
  // f0 calls f1 calls ... f19999: the kernel's call graph used to be walked recursively (stack
  // overflow for long chains). Lay it out on a thread with a 512 KiB stack.
  const uint32_t n = 20000;
  std::string text = header();
  for (uint32_t i = n; i-- > 0;) {
    text += ".func f" + std::to_string(i) + "()\n{\n";
    if (i + 1 < n) text += "\tcall.uni f" + std::to_string(i + 1) + ", ();\n";
    text += "\tret;\n}\n";
  }
  text += ".visible .entry k()\n{\n\tcall.uni f0, ();\n\tret;\n}\n";
  const Module m = parse_module(text, "chain.ptx");
  struct Job {
    const Module* m;
    KernelLayout k;
    std::string error;
  } job{&m, {}, {}};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 512 * 1024);
  pthread_t t;
  ASSERT_EQ(pthread_create(
                &t, &attr,
                [](void* p) -> void* {
                  auto* j = static_cast<Job*>(p);
                  try {
                    j->k = layout_kernel(*j->m, uint32_t(j->m->funcs.size() - 1));
                  } catch (const std::exception& e) {
                    j->error = e.what();
                  }
                  return nullptr;
                },
                &job),
            0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_EQ(job.error, "");
  // The kernel, then f0, f1, ... in call order.
  ASSERT_EQ(job.k.functions.size(), size_t(n) + 1);
  EXPECT_EQ(m.funcs[job.k.functions[1]].name, "f0");
  EXPECT_EQ(m.funcs[job.k.functions[n]].name, "f" + std::to_string(n - 1));
}

// ---- item 15: one very long line is parsed in linear time -------------------------------------

double parse_seconds(size_t n) {
  std::string body;
  body.reserve(n * 21);
  for (size_t i = 0; i < n; ++i) body += "add.s32 %r1, %r1, 1; ";
  const std::string text =
      header() + ".visible .entry k()\n{\n.reg .b32 %r<2>;\n" + body + "ret;\n}\n";
  // The thread's CPU time, not wall time: a busy machine must not fail the test.
  timespec a{}, b{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  Module m = parse_module(text, "long.ptx");
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  const double s = double(b.tv_sec - a.tv_sec) + double(b.tv_nsec - a.tv_nsec) * 1e-9;
  EXPECT_EQ(m.funcs[0].insts.size(), n + 1);
  EXPECT_EQ(m.funcs[0].insts[0].text.substr(0, 21), "add.s32 %r1, %r1, 1; ");
  return s;
}

TEST(PtxBadInput, LongLineParsesInLinearTime) {
  // Each instruction's source text used to be found by scanning from the start of its line:
  // 400k instructions on one line took > 20 s. 8x the instructions must cost far less than the
  // 64x a quadratic parser needs (slack for cache effects; CPU time, so load does not matter).
  const double small = parse_seconds(25000);
  const double large = parse_seconds(200000);
  EXPECT_LT(large, 24 * small + 0.5) << "25k: " << small << " s, 200k: " << large << " s";
}

// ---- item 16: empty, binary and badly versioned modules ----------------------------------------

TEST(PtxBadInput, EmptyModuleIsAnError) {
  EXPECT_EQ(diag(""),
            "1:1: empty PTX module: no .version directive (PTX starts with .version, .target)");
  EXPECT_EQ(diag("// just a comment\n\n"),
            "3:1: empty PTX module: no .version directive (PTX starts with .version, .target)");
  EXPECT_EQ(diag(".target sm_75\n"),
            "1:1: missing .version directive at the start of the module (got '.target')");
  EXPECT_EQ(diag(".version 9.0\n.address_size 64\n.global .u32 x;\n"),
            "3:1: missing .target directive before '.global'");
  EXPECT_EQ(diag(".version 9.0\n"), "1:13: missing .target directive (e.g. .target sm_75)");
  EXPECT_EQ(diag(header() + ".version 9.0\n"),
            "4:1: duplicate .version directive (it must come once, first)");
}

TEST(PtxBadInput, NulByteIsNamedWhereverItIs) {
  // `.` followed by NUL used to be "unexpected character '.'".
  EXPECT_EQ(diag(std::string(".\0", 2)),
            "1:2: unexpected NUL byte (\\x00); PTX must be plain text");
  EXPECT_EQ(diag(header() + std::string("// comment \0 here\n", 18)),
            "4:12: unexpected NUL byte (\\x00); PTX must be plain text");
  EXPECT_EQ(diag(std::string(".version 9.0\n.\x01", 15)),
            "2:2: unexpected byte 0x01 (not PTX text)");
}

TEST(PtxBadInput, VersionOutOfRange) {
  // Used to become 4294967295.0 (and 4294967296 became 0.0, accepted).
  EXPECT_EQ(diag(".version 99999999999999999999.0\n.target sm_75\n"),
            "1:10: .version '99999999999999999999.0' is out of range (expected major.minor, e.g. "
            "9.0)");
  EXPECT_EQ(diag(".version 4294967296\n.target sm_75\n"),
            "1:10: .version '4294967296' is out of range (expected major.minor, e.g. 9.0)");
  EXPECT_EQ(diag(".version 8.99999999999999999999\n.target sm_75\n"),
            "1:10: .version '8.99999999999999999999' is out of range (expected major.minor, e.g. "
            "9.0)");
  EXPECT_EQ(diag(".version 9.0e1\n.target sm_75\n"),
            "1:10: malformed .version '9.0e1' (expected major.minor, e.g. 9.0)");
  EXPECT_EQ(diag(".version 10.0\n"),
            "1:1: PTX ISA version 10.0 is newer than simtlab supports (up to 9.x)");
  Module m = parse_module(".version 8.8\n.target sm_75\n", "v.ptx");
  EXPECT_EQ(m.version_major, 8u);
  EXPECT_EQ(m.version_minor, 8u);
}

}  // namespace
}  // namespace simtlab::ptx
