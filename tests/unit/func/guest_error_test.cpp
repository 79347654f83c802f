// Guest errors: sanitizer-style reports for bad accesses (kernel, block, thread, PTX line and
// address), traps, barrier deadlocks, the endless-loop watchdog, unsupported instructions,
// runtime misuse (bad free, bad indirect call, call-stack overflow) and the division-by-zero
// warning. Expected messages are assembled from values the test knows independently: the PTX
// text (line numbers are found by searching it), allocation addresses and launch geometry.
#include "tests/unit/func/op_test_util.h"

#include "func/memory.h"

namespace simtlab::testing {
namespace {

/// 1-based line of the first line of `ptx` containing `needle`.
unsigned line_of(const std::string& ptx, const std::string& needle) {
  const size_t p = ptx.find(needle);
  EXPECT_NE(p, std::string::npos) << needle;
  return unsigned(std::count(ptx.begin(), ptx.begin() + std::ptrdiff_t(p), '\n')) + 1;
}

std::string guest_error(PtxRunner& r, const std::string& k, Dim3 grid, Dim3 block, uint32_t dyn,
                        const std::vector<Addr>& args) {
  try {
    switch (args.size()) {
      case 0:
        r.launch(k, grid, block, dyn);
        break;
      case 1:
        r.launch(k, grid, block, dyn, args[0]);
        break;
      default:
        r.launch(k, grid, block, dyn, args[0], args[1]);
        break;
    }
  } catch (const GuestError& e) {
    return e.what();
  }
  ADD_FAILURE() << "kernel " << k << " completed without a guest error";
  return {};
}

// Thread (5,0,0) of block (1,0,0) accesses p[idx] with idx chosen by the test.
const char* kAccessKernel = R"(
.visible .entry acc(.param .u64 p, .param .u64 idx) {
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  setp.eq.u32 %p1, %r1, 5;
  setp.eq.u32 %p2, %r2, 1;
  and.pred %p3, %p1, %p2;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [idx];
  add.u64 %rd3, %rd1, %rd2;
  @%p3 ld.global.u32 %r3, [%rd3];
  @%p3 st.global.u32 [%rd3+4], %r3;
  ret;
}
)";

TEST(GuestError, FaultingLaunchReportsTheInstructionsItRanBeforeTheFault) {
  // Block 1's first warp faults at its 5th instruction (the store); block 0 (run first by the
  // functional engine) completed. The engine's partial result counts both, without the
  // faulting instruction, as the timing model does.
  const std::string k = R"(
.visible .entry partial(.param .u64 p) {
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 st.global.u32 [%rd1], %r2;
  ret;
}
)";
  PtxRunner r(ptx_module(k));
  // One block alone: 2 warps x 6 instructions, 32 lanes each.
  const func::LaunchResult one = r.launch("partial", {1, 1, 1}, {64, 1, 1}, 0, Addr(16));
  EXPECT_EQ(one.warp_insts, 12u);
  EXPECT_EQ(one.thread_insts, 12u * 32);
  EXPECT_NE(guest_error(r, "partial", {2, 1, 1}, {64, 1, 1}, 0, {Addr(16)}), "");
  func::LaunchResult part;
  ASSERT_TRUE(r.dev().engine()->take_failed_result(&part));
  EXPECT_EQ(part.warp_insts, 12u + 4);
  EXPECT_EQ(part.thread_insts, (12u + 4) * 32);
  EXPECT_EQ(part.ctas, 1u);  // completed blocks
}

TEST(GuestError, OutOfBoundsGlobalReadNamesEverything) {
  const std::string ptx = ptx_module(kAccessKernel);
  PtxRunner r(ptx);
  Addr p = r.upload(std::vector<uint32_t>(64, 0));  // 256 bytes
  const uint64_t off = 256 + 12;                    // 12 bytes past the end
  const std::string msg = guest_error(r, "acc", {2, 1, 1}, {32, 1, 1}, 0, {p, off});
  const unsigned line = line_of(ptx, "@%p3 ld.global.u32");
  EXPECT_EQ(
      msg,
      fmt::format(
          "invalid global read of 4 bytes at address {:#x}: not inside any live allocation; 12 "
          "bytes past the end of the 256-byte allocation at {:#x}\n"
          "    in kernel acc, block (1,0,0), thread (5,0,0)\n"
          "    at test.ptx:{}: @%p3 ld.global.u32 %r3, [%rd3]; (in acc, pc 8)",
          p + off, p, line));
}

// -lineinfo builds: the report also names the CUDA source line (`.loc`) of the instruction.
TEST(GuestError, LineinfoBuildsNameTheSourceLine) {
  std::string k = kAccessKernel;
  const std::string ld = "  @%p3 ld.global.u32";
  k.replace(k.find(ld), 0, "  .loc 1 42 7\n");
  std::string ptx = ptx_module(k) + "  .file 1 \"/src/acc.cu\"\n";
  PtxRunner r(ptx);
  Addr p = r.upload(std::vector<uint32_t>(64, 0));
  const std::string msg = guest_error(r, "acc", {2, 1, 1}, {32, 1, 1}, 0, {p, 256 + 12});
  EXPECT_NE(msg.find(fmt::format("    at test.ptx:{}: @%p3 ld.global.u32 %r3, [%rd3]; (in acc, pc "
                                 "8; /src/acc.cu:42:7)",
                                 line_of(ptx, "@%p3 ld.global.u32"))),
            std::string::npos)
      << msg;
}

TEST(GuestError, OutOfBoundsGlobalWrite) {
  const std::string ptx = ptx_module(kAccessKernel);
  PtxRunner r(ptx);
  Addr p = r.upload(std::vector<uint32_t>(64, 0));
  // The load of p[252] is in bounds, the store to p[256] is not.
  const std::string msg = guest_error(r, "acc", {2, 1, 1}, {32, 1, 1}, 0, {p, 252});
  EXPECT_NE(
      msg.find(fmt::format(
          "invalid global write of 4 bytes at address {:#x}: not inside any live allocation; 0 "
          "bytes past the end of the 256-byte allocation at {:#x}",
          p + 256, p)),
      std::string::npos)
      << msg;
  EXPECT_NE(msg.find("in kernel acc, block (1,0,0), thread (5,0,0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find(fmt::format("at test.ptx:{}: @%p3 st.global.u32 [%rd3+4], %r3;",
                                 line_of(ptx, "@%p3 st.global"))),
            std::string::npos)
      << msg;
}

TEST(GuestError, MisalignedAccess) {
  PtxRunner r(ptx_module(kAccessKernel));
  Addr p = r.upload(std::vector<uint32_t>(64, 0));
  const std::string msg = guest_error(r, "acc", {2, 1, 1}, {32, 1, 1}, 0, {p, 6});
  EXPECT_NE(msg.find(fmt::format(
                "invalid global read of 4 bytes at address {:#x}: misaligned (needs 4-byte "
                "alignment)",
                p + 6)),
            std::string::npos)
      << msg;
}

TEST(GuestError, UseAfterFree) {
  PtxRunner r(ptx_module(kAccessKernel));
  Addr p = r.upload(std::vector<uint32_t>(64, 0));
  Addr keep = r.upload(std::vector<uint32_t>(64, 0));
  ASSERT_TRUE(r.dev().free(p));
  const std::string msg = guest_error(r, "acc", {2, 1, 1}, {32, 1, 1}, 0, {p, 0});
  EXPECT_NE(
      msg.find(fmt::format(
          "invalid global read of 4 bytes at address {:#x}: not inside any live allocation", p)),
      std::string::npos)
      << msg;
  EXPECT_NE(msg.find(fmt::format("bytes before the allocation at {:#x}", keep)), std::string::npos)
      << msg;
}

TEST(GuestError, SharedAndLocalOutOfRange) {
  const std::string ptx = ptx_module(R"(
.visible .entry sh(.param .u64 off) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[100];
  ld.param.u64 %rd1, [off];
  mov.u64 %rd2, buf;
  add.u64 %rd3, %rd2, %rd1;
  ld.shared.u32 %r1, [%rd3];
  st.shared.u32 [buf], %r1;
  ret;
}
.visible .entry lo(.param .u64 off) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .local .align 4 .b8 arr[40];
  ld.param.u64 %rd1, [off];
  mov.u64 %rd2, arr;
  add.u64 %rd3, %rd2, %rd1;
  st.local.u32 [%rd3], %rd1;
  ld.local.u32 %r1, [arr];
  ret;
}
)");
  PtxRunner r(ptx);
  {
    // buf is the only shared variable: 100 bytes; reading 4 bytes at offset 100 is outside.
    const std::string msg = guest_error(r, "sh", {1, 1, 1}, {32, 1, 1}, 0, {Addr(100)});
    EXPECT_EQ(msg.find("invalid shared read of 4 bytes at address 0x64: outside the CTA's 100 "
                       "bytes of shared memory"),
              0u)
        << msg;
    EXPECT_NE(msg.find("in kernel sh, block (0,0,0), thread (0,0,0)"), std::string::npos) << msg;
    // The last in-range word is fine.
    r.launch("sh", {1, 1, 1}, {32, 1, 1}, 0, Addr(96));
  }
  {
    const std::string msg = guest_error(r, "lo", {1, 1, 1}, {32, 1, 1}, 0, {Addr(48)});
    EXPECT_EQ(msg.find("invalid local write of 4 bytes at address 0x30: outside the thread's 48 "
                       "bytes of local memory "
                       "(stack overflow?)"),
              0u)
        << msg;
    EXPECT_NE(msg.find(fmt::format("at test.ptx:{}: st.local.u32", line_of(ptx, "st.local.u32"))),
              std::string::npos)
        << msg;
  }
}

TEST(GuestError, Trap) {
  const std::string ptx = ptx_module(R"(
.visible .entry tr(.param .u64 unused) {
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.y;
  setp.eq.u32 %p1, %r1, 2;
  @%p1 trap;
  ret;
})");
  PtxRunner r(ptx);
  const std::string msg = guest_error(r, "tr", {1, 2, 1}, {4, 3, 1}, 0, {Addr(0)});
  EXPECT_EQ(msg.rfind("trap instruction executed (kernel aborted)\n    in kernel tr, block "
                      "(0,0,0), thread (0,2,0)\n"
                      "    at test.ptx:" +
                          std::to_string(line_of(ptx, "@%p1 trap")),
                      0),
            0u)
      << msg;
}

TEST(GuestError, BarrierDeadlockDiagnosis) {
  // Warp 0 waits at barrier 0, warp 1 at barrier 1: neither can complete.
  const std::string ptx = ptx_module(R"(
.visible .entry dl(.param .u64 unused) {
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra W0;
  bar.sync 1;
  ret;
W0:
  bar.sync 0;
  ret;
})");
  PtxRunner r(ptx);
  const std::string msg = guest_error(r, "dl", {1, 1, 1}, {64, 1, 1}, 0, {Addr(0)});
  EXPECT_EQ(
      msg,
      fmt::format(
          "deadlock in kernel dl block (0,0,0): every live warp waits at a barrier that can never "
          "complete (barrier inside divergent code?)\n"
          "    warp 0: waits at barrier 0 at test.ptx:{}: bar.sync 0; (in dl, pc 5)\n"
          "    warp 1: waits at barrier 1 at test.ptx:{}: bar.sync 1; (in dl, pc 3)",
          line_of(ptx, "bar.sync 0"), line_of(ptx, "bar.sync 1")));
}

TEST(GuestError, BarrierCountErrors) {
  PtxRunner r(ptx_module(R"(
.visible .entry bc(.param .u64 unused) {
  bar.sync 0, 33;
  ret;
}
.visible .entry bid(.param .u64 unused) {
  .reg .b32 %r<2>;
  mov.u32 %r1, 16;
  bar.sync %r1;
  ret;
})"));
  EXPECT_NE(guest_error(r, "bc", {1, 1, 1}, {64, 1, 1}, 0, {Addr(0)})
                .find("barrier thread count 33 is not a multiple of the warp size"),
            std::string::npos);
  EXPECT_NE(guest_error(r, "bid", {1, 1, 1}, {64, 1, 1}, 0, {Addr(0)})
                .find("barrier id 16 out of range (0..15)"),
            std::string::npos);
}

TEST(GuestError, EndlessLoopWatchdog) {
  PtxRunner r(ptx_module(R"(
.visible .entry spin(.param .u64 unused) {
  .reg .b32 %r<2>;
  mov.u32 %r1, 0;
L:
  add.u32 %r1, %r1, 1;
  bra L;
})"));
  r.dev().options().max_warp_insts_per_cta = 20000;
  const std::string msg = guest_error(r, "spin", {3, 1, 1}, {64, 1, 1}, 0, {Addr(0)});
  EXPECT_EQ(msg.rfind("kernel spin block (0,0,0) did not finish within 20000 warp instructions", 0),
            0u)
      << msg;
}

TEST(GuestError, UnsupportedInstructionReport) {
  // The scalar video instruction vadd has no handler: decoding succeeds (the kernel runs up to
  // it), executing it reports the mnemonic and where it is.
  const std::string ptx = ptx_module(R"(
.visible .entry un(.param .u64 p) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 1;
  st.global.u32 [%rd1], %r1;
  vadd.s32.s32.s32 %r2, %r1, %r1;
  ret;
})");
  PtxRunner r(ptx);
  Addr p = r.upload(std::vector<uint32_t>{0});
  const std::string msg = guest_error(r, "un", {1, 1, 1}, {32, 1, 1}, 0, {p});
  EXPECT_EQ(msg.rfind("unsupported PTX instruction 'vadd", 0), 0u) << msg;
  EXPECT_NE(msg.find("(simtlab does not implement this form yet)"), std::string::npos) << msg;
  EXPECT_NE(msg.find(fmt::format("at test.ptx:{}: vadd", line_of(ptx, "vadd"))), std::string::npos)
      << msg;
  EXPECT_EQ(r.download<uint32_t>(p, 1)[0], 1u);
}

TEST(GuestError, RuntimeMisuse) {
  const std::string ptx = ptx_module(R"(
.extern .func free (.param .b64 free_param_0);
.func (.param .b32 r) deep(.param .b32 n) {
  .reg .pred %p1;
  .reg .b32 %r<4>;
  .local .align 8 .b8 pad[200];
  ld.param.b32 %r1, [n];
  st.local.u32 [pad], %r1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra BASE;
  sub.u32 %r2, %r1, 1;
  {
    .param .b32 a;
    st.param.b32 [a], %r2;
    .param .b32 b;
    call (b), deep, (a);
    ld.param.b32 %r3, [b];
  }
  st.param.b32 [r], %r3;
  ret;
BASE:
  st.param.b32 [r], 0;
  ret;
}
.visible .entry badfree(.param .u64 p) {
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    call.uni free, (param0);
  }
  ret;
}
.visible .entry badcall(.param .u64 p) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  {
    .param .b32 a;
    st.param.b32 [a], 1;
    .param .b32 b;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (b), %rd1, (a), proto;
    ld.param.b32 %r1, [b];
  }
  ret;
}
.visible .entry overflow(.param .u64 n) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [n];
  mov.b64 {%r1, %r2}, %rd1;
  {
    .param .b32 a;
    st.param.b32 [a], %r1;
    .param .b32 b;
    call (b), deep, (a);
    ld.param.b32 %r3, [b];
  }
  ret;
})");
  PtxRunner r(ptx);
  Addr p = r.upload(std::vector<uint32_t>(4, 0));
  EXPECT_NE(guest_error(r, "badfree", {1, 1, 1}, {1, 1, 1}, 0, {p + 8})
                .find(fmt::format("free({:#x}): not a pointer returned by device malloc", p + 8)),
            std::string::npos);
  EXPECT_NE(
      guest_error(r, "badcall", {1, 1, 1}, {1, 1, 1}, 0, {p})
          .find(fmt::format("indirect call to {:#x}, which is not a function of this kernel", p)),
      std::string::npos);
  // Recursion within the 1 KiB default stack works; 100 levels of >200-byte frames do not.
  r.launch("overflow", {1, 1, 1}, {32, 1, 1}, 0, Addr(2));
  const std::string msg = guest_error(r, "overflow", {1, 1, 1}, {32, 1, 1}, 0, {Addr(100)});
  EXPECT_NE(msg.find("call stack overflow calling deep: needs "), std::string::npos) << msg;
  EXPECT_NE(msg.find("bytes of local memory per thread, the limit is "), std::string::npos) << msg;
}

TEST(GuestError, DivisionByZeroWarnsForEveryModule) {
  // The warning is printed once per instruction - for every module that is loaded, also when a
  // previous module with the same code was unloaded.
  const std::string ptx = ptx_module(R"(
.visible .entry dz(.param .u64 p) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  div.u32 %r2, 7, %r1;
  st.global.u32 [%rd1], %r2;
  ret;
})");
  for (int rep = 0; rep < 3; ++rep) {
    ::testing::internal::CaptureStderr();
    {
      PtxRunner r(ptx);
      Addr p = r.upload(std::vector<uint32_t>{0});
      r.launch("dz", {1, 1, 1}, {32, 1, 1}, 0, p);  // one warp: every lane divides by zero
      EXPECT_EQ(r.download<uint32_t>(p, 1)[0], 0xffffffffu);
      r.launch("dz", {1, 1, 1}, {32, 1, 1}, 0, p);  // 7 / 0xffffffff = 0
      EXPECT_EQ(r.download<uint32_t>(p, 1)[0], 0u);
      r.launch("dz", {1, 1, 1}, {32, 1, 1}, 0, p);  // divides by zero again: no second warning
      EXPECT_EQ(r.download<uint32_t>(p, 1)[0], 0xffffffffu);
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    const std::string want = fmt::format(
        "simtlab: warning: integer division by zero in kernel dz, block (0,0,0), thread (0,0,0) at "
        "test.ptx:{}: "
        "div.u32 %r2, 7, %r1; (in dz, pc 2) (result is undefined)\n",
        line_of(ptx, "div.u32"));
    EXPECT_EQ(err, want) << "repetition " << rep;
  }
}

TEST(GuestError, LaunchConfigurationErrors) {
  PtxRunner r(ptx_module(R"(
.visible .entry k(.param .u64 unused) {
  ret;
})"));
  auto err = [&](Dim3 g, Dim3 b, uint32_t dyn) {
    try {
      r.launch("k", g, b, dyn, Addr(0));
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(err({1, 1, 1}, {2048, 1, 1}, 0),
            "launch of k: 2048 threads per block exceed the limit of 1024");
  EXPECT_EQ(err({0, 1, 1}, {32, 1, 1}, 0),
            "launch of k: grid and block dimensions must be non-zero");
  EXPECT_EQ(err({1, 1, 1}, {32, 1, 1}, 60000),
            "launch of k: 60000 bytes of shared memory (0 static + 60000 dynamic) exceed the 49152 "
            "per block");
}

}  // namespace
}  // namespace simtlab::testing
