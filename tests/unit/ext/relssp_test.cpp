// relssp (thesis ch. 3) end to end: the instruction in the functional executor (release bits,
// the block's release event, exited threads), the timing model (the pair lock is freed early,
// the partner acquires it), the safety checker, the Fig. 3.12 phase statistics, and Table 3.5
// in kind: the executed-instruction difference the pass makes is exactly 1 x threads when
// only relssp is inserted and 2 x threads when every thread also runs a split edge's branch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/error.h"
#include "ext/sharing/sharing.h"
#include "ptx/relssp.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::timing::sharing {
namespace {

// One SM with 1536 bytes of scratchpad: a 1024-byte block fits once; at t = 0.1 the 512 left
// over pay for a pair (Table 2.8 style): 2 resident blocks, private offsets [0, 102).
std::vector<std::string> sets(bool share, bool check = true) {
  std::vector<std::string> s = {"gpu.num_sms=1", "sm.l1i_perfect=true", "sim.memory_model=fixed",
                                "sim.fixed_memory_latency=100", "sm.shared_bytes=1536"};
  if (share) {
    s.push_back("sharing.mode=smem");
    s.push_back("sharing.threshold=0.1");
    if (check) s.push_back("sharing.relssp_check=true");
  }
  return s;
}

// Every thread stores into the shared region (offset 512 + 4 tid), then runs a dependent chain.
// `pre` goes right after the store (a hand-placed relssp for the checker test), `post` at the
// end of the chain.
std::string kernel(const std::string& pre = "", const std::string& post = "") {
  std::string chain;
  for (int i = 0; i < 30; ++i) chain += "  add.s32 %r5, %r5, %r1;\n";
  return R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>;
  .shared .align 4 .b8 sA[1024];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sA;
  add.s32 %r4, %r3, %r2;
  st.shared.u32 [%r4+512], %r1;
)" + pre +
         "  mov.u32 %r5, 0;\n" + chain + post + "  ret;\n}\n";
}

struct Outcome {
  uint64_t cycles = 0, thread_insts = 0;
  nlohmann::json sharing, stall;
};

Outcome run(const std::vector<std::string>& s, const std::string& ptx, const char* pass,
            Dim3 block = {32, 1, 1}) {
  testing::TimingRunner r(testing::timing_params(s));
  if (pass) {
    ptx::RelsspOptions o;
    o.mode = std::string(pass) == "opt" ? ptx::RelsspOptions::Mode::opt
                                        : ptx::RelsspOptions::Mode::postdom;
    r.dev().options().module_pass = [o](ptx::Module& m) { ptx::run_relssp_passes(m, o); };
  }
  r.load(ptx);
  r.launch("k", {2, 1, 1}, block, Addr(0));
  Outcome out;
  out.cycles = r.last.cycles;
  out.thread_insts = r.last.thread_insts;
  if (r.stats["sm[0]"].contains("sharing")) out.sharing = r.stats["sm[0]"]["sharing"];
  out.stall = r.stats["sm[0]"]["stall"]["values"];
  return out;
}

uint64_t v(const nlohmann::json& g, const char* n) { return g[n]["value"].get<uint64_t>(); }

TEST(Relssp, WithoutThePassTheLockIsHeldUntilTheOwnerExits) {
  const Outcome a = run(sets(true), kernel(), nullptr);
  EXPECT_EQ(v(a.sharing, "shared_ctas"), 2u);
  EXPECT_EQ(v(a.sharing, "lock_acquisitions"), 2u);
  EXPECT_EQ(v(a.sharing, "relssp_fires"), 0u);
  EXPECT_EQ(v(a.sharing, "relssp_releases"), 0u);
  EXPECT_EQ(v(a.sharing, "phase_unshared_after_cycles"), 0u);  // nothing released early
  EXPECT_GT(v(a.sharing, "phase_shared_cycles"), 0u);
}

TEST(Relssp, TheReleaseLetsThePartnerAcquireBeforeTheOwnerExits) {
  const Outcome a = run(sets(true), kernel(), nullptr);
  const Outcome b = run(sets(true), kernel(), "opt");
  // One relssp per block, right after the store: each block's release fires once and frees the
  // lock it holds; the partner takes it at its (held) store.
  EXPECT_EQ(v(b.sharing, "relssp_fires"), 2u);
  EXPECT_EQ(v(b.sharing, "relssp_releases"), 2u);
  EXPECT_EQ(v(b.sharing, "lock_acquisitions"), 2u);
  EXPECT_EQ(v(b.sharing, "lock_releases"), 2u);
  EXPECT_GT(v(b.sharing, "phase_unshared_after_cycles"), 0u);
  EXPECT_LT(b.cycles, a.cycles);
  EXPECT_LT(b.stall["lock_wait"].get<uint64_t>(), a.stall["lock_wait"].get<uint64_t>());
  // Table 3.5 in kind: only relssp inserted, 2 blocks x 32 threads.
  EXPECT_EQ(b.thread_insts - a.thread_insts, 64u);
}

TEST(Relssp, ExecutedInRegionWithoutALockItHasNoEffect) {
  // Sharing off: relssp still executes (and counts) but nothing is locked.
  const Outcome a = run(sets(false), kernel(), nullptr);
  const Outcome b = run(sets(false), kernel(), "opt");
  EXPECT_TRUE(b.sharing.is_null());
  EXPECT_EQ(b.thread_insts - a.thread_insts, 64u);
}

TEST(Relssp, TheReleaseWaitsForEveryLiveThreadOfTheBlock) {
  // Two warps per block; warp 1 executes relssp only after a long chain. The release fires
  // once per block (when its last warp executes it), never per warp.
  std::string chain;
  for (int i = 0; i < 40; ++i) chain += "  @%p1 add.s32 %r5, %r5, %r1;\n";
  const std::string ptx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .shared .align 4 .b8 sA[1024];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  st.shared.u32 [sA], %r1;
  mov.u32 %r5, 0;
)" + chain + "  relssp;\n  mov.u32 %r6, 1;\n  ret;\n}\n";
  const Outcome b = run(sets(true), ptx, nullptr, {64, 1, 1});
  EXPECT_EQ(v(b.sharing, "relssp_fires"), 2u);
  EXPECT_EQ(v(b.sharing, "relssp_releases"), 0u);  // the stores are private: no lock held
}

TEST(Relssp, ExitedThreadsCountAsReleased) {
  // Lanes 16-31 exit early; lanes 0-15 execute relssp: the release fires for each block.
  const std::string ptx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .shared .align 4 .b8 sA[1024];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 ret;
  shl.b32 %r2, %r1, 2;
  st.shared.u32 [%r2+512], %r1;
  relssp;
  add.s32 %r5, %r1, 1;
  ret;
}
)";
  const Outcome b = run(sets(true), ptx, nullptr);
  EXPECT_EQ(v(b.sharing, "relssp_fires"), 2u);
  EXPECT_EQ(v(b.sharing, "relssp_releases"), 2u);
}

TEST(Relssp, CheckerReportsASharedRegionAccessAfterRelssp) {
  const std::string bad = kernel("  relssp;\n", "  st.shared.u32 [%r4+512], %r5;\n");
  EXPECT_THROW(run(sets(true), bad, nullptr), UserError);
  // The pass places relssp after the last access: the checker stays quiet.
  const std::string ok = kernel("", "  st.shared.u32 [%r4+512], %r5;\n");
  const Outcome b = run(sets(true), ok, "opt");
  EXPECT_EQ(v(b.sharing, "relssp_fires"), 2u);
  // A private access after relssp is fine.
  EXPECT_NO_THROW(
      run(sets(true), kernel("  relssp;\n", "  st.shared.u32 [sA+8], %r5;\n"), nullptr));
}

// Table 3.5 in kind on a kernel with a branch: threads with tid >= `bound` skip the access and
// run the split edge's block (relssp + bra); the others run one relssp after their store.
std::string skip_kernel(int bound) {
  return std::string(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .shared .align 4 .b8 sA[1024];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, )") +
         std::to_string(bound) + R"(;
  @%p1 bra JOIN;
  shl.b32 %r2, %r1, 2;
  st.shared.u32 [%r2+512], %r1;
JOIN:
  add.s32 %r5, %r1, 1;
  ret;
}
)";
}

TEST(Relssp, Table35InKindOneOrTwoInstructionsPerThread) {
  for (bool share : {false, true}) {
    const auto diff = [&](int bound, const char* pass) {
      return run(sets(share), skip_kernel(bound), pass).thread_insts -
             run(sets(share), skip_kernel(bound), nullptr).thread_insts;
    };
    EXPECT_EQ(diff(0, "opt"), 2u * 64u);     // every thread skips: relssp + bra each
    EXPECT_EQ(diff(4096, "opt"), 1u * 64u);  // nobody skips: relssp only
    EXPECT_EQ(diff(16, "opt"), 2u * (16u * 1u + 16u * 2u));  // half and half, per block
    EXPECT_EQ(diff(16, "postdom"), 64u);                     // one relssp at the join, no branch
  }
}

}  // namespace
}  // namespace simtlab::timing::sharing
