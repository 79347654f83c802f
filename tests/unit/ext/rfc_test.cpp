// Register-file cache (src/ext/rfc): exact allocation, eviction, last-use and pool decisions
// of the class; the compiler last-use bits (ptx::last_uses); and its effect on an SM running
// small kernels (operand reads by level, bank conflicts removed by hits, the config rule).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "base/error.h"
#include "ext/rfc/rfc.h"
#include "ptx/cfg.h"
#include "ptx/parser.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

using Entries = std::vector<std::pair<uint32_t, bool>>;

uint64_t stat(const stats::Group& g, const char* child, const char* name) {
  const stats::Group* c = g.find_child(child);
  EXPECT_NE(c, nullptr);
  const stats::Stat* s = c->find_stat(name);
  EXPECT_NE(s, nullptr);
  return std::get<const stats::Counter*>(s->what)->value;
}

}  // namespace

TEST(Rfc, EveryResultAllocatesFifoAndEvictsTheOldest) {
  stats::Group root("sm");
  ext::RfcParams p;
  p.entries = 3;
  ext::RegFileCache c(p, 2, root);
  c.enter(0);
  EXPECT_EQ(c.write(0, 10), -1);
  EXPECT_EQ(c.write(0, 11), -1);
  EXPECT_EQ(c.write(0, 12), -1);
  EXPECT_EQ(c.entries(0), (Entries{{10, true}, {11, true}, {12, true}}));
  // Full: the oldest (r10, live) is evicted and written back to the MRF.
  EXPECT_EQ(c.write(0, 13), 10);
  EXPECT_EQ(c.entries(0), (Entries{{11, true}, {12, true}, {13, true}}));
  // A register that already has an entry is overwritten in place (no allocation, no eviction).
  EXPECT_EQ(c.write(0, 12), -1);
  EXPECT_EQ(c.entries(0), (Entries{{11, true}, {12, true}, {13, true}}));
  EXPECT_EQ(stat(root, "rfc", "writes"), 5u);
  EXPECT_EQ(stat(root, "rfc", "evict_writebacks"), 1u);
  EXPECT_EQ(stat(root, "mrf", "writes"), 1u);
}

TEST(Rfc, SourceMissReadsTheMrfAndDoesNotAllocate) {
  stats::Group root("sm");
  ext::RfcParams p;
  p.entries = 2;
  ext::RegFileCache c(p, 1, root);
  c.enter(0);
  c.write(0, 5);
  EXPECT_TRUE(c.read(0, 5));
  EXPECT_FALSE(c.read(0, 7));
  EXPECT_FALSE(c.read(0, 7));
  EXPECT_EQ(c.entries(0), (Entries{{5, true}}));
  EXPECT_EQ(stat(root, "rfc", "operand_reads"), 3u);
  EXPECT_EQ(stat(root, "rfc", "reads"), 1u);
  EXPECT_EQ(stat(root, "mrf", "reads"), 2u);
}

TEST(Rfc, LastUseMakesTheEvictionFree) {
  stats::Group root("sm");
  ext::RfcParams p;
  p.entries = 2;
  ext::RegFileCache c(p, 1, root);
  c.enter(0);
  c.write(0, 1);
  c.write(0, 2);
  EXPECT_TRUE(c.read(0, 1));
  c.kill(0, 1);  // last read of r1
  EXPECT_EQ(c.entries(0), (Entries{{1, false}, {2, true}}));
  // A dead entry can still be read (another operand of the same instruction).
  EXPECT_TRUE(c.read(0, 1));
  EXPECT_EQ(c.write(0, 3), -1);  // evicts dead r1: no MRF write
  EXPECT_EQ(c.write(0, 4), 2);   // evicts live r2: written back
  EXPECT_EQ(stat(root, "rfc", "evict_dead"), 1u);
  EXPECT_EQ(stat(root, "rfc", "evict_writebacks"), 1u);
  EXPECT_EQ(stat(root, "rfc", "last_use_kills"), 1u);
  EXPECT_EQ(stat(root, "mrf", "writes"), 1u);
  // Without last-use bits every eviction of a written value writes back.
  stats::Group root2("sm");
  p.last_use = false;
  ext::RegFileCache d(p, 1, root2);
  d.enter(0);
  d.write(0, 1);
  d.write(0, 2);
  d.kill(0, 1);
  EXPECT_EQ(d.write(0, 3), 1);
}

TEST(Rfc, LeavingThePoolFlushesLiveEntriesOnly) {
  stats::Group root("sm");
  ext::RfcParams p;
  ext::RegFileCache c(p, 2, root);
  c.enter(1);
  for (uint32_t r : {4u, 5u, 6u}) c.write(1, r);
  c.kill(1, 5);
  EXPECT_EQ(c.leave(1), (std::vector<uint32_t>{4, 6}));
  EXPECT_FALSE(c.active(1));
  EXPECT_TRUE(c.entries(1).empty());
  // Outside the pool: a result goes to the MRF directly and a read misses.
  EXPECT_EQ(c.write(1, 9), 9);
  EXPECT_FALSE(c.read(1, 9));
  // Re-entering starts empty; retiring drops without write-back.
  c.enter(1);
  c.write(1, 7);
  c.retire(1);
  EXPECT_TRUE(c.entries(1).empty());
  EXPECT_EQ(stat(root, "rfc", "flush_writebacks"), 2u);
  EXPECT_EQ(stat(root, "rfc", "flush_dead"), 1u);
  EXPECT_EQ(stat(root, "rfc", "mrf_direct_writes"), 1u);
  EXPECT_EQ(stat(root, "mrf", "writes"), 3u);  // 2 flushed + 1 direct
}

TEST(Rfc, LastUseBitsFromLiveness) {
  // %r1 is read by the add and the mul; its last use is the mul. %r2 is read once (last use
  // at the add). In the loop, %r3 is read every iteration and live around the back edge: never
  // a last use inside the loop; its last use is the store after it.
  const ptx::Module m = ptx::parse_module(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  .reg .pred %p<2>;
  mov.u32 %r1, 1;
  mov.u32 %r2, 2;
  add.s32 %r3, %r1, %r2;
  mul.lo.s32 %r4, %r1, %r1;
L:
  add.s32 %r4, %r4, %r3;
  setp.lt.s32 %p1, %r4, 100;
  @%p1 bra L;
  ld.param.u64 %rd1, [p];
  st.global.u32 [%rd1], %r3;
  st.global.u32 [%rd1+4], %r4;
  ret;
}
)",
                                          "t.ptx");
  const ptx::Function& f = m.funcs[0];
  auto id = [&](const char* n) {
    for (uint32_t i = 0; i < f.regs.size(); ++i)
      if (f.regs[i].name == n) return i;
    return ~0u;
  };
  const auto last = ptx::last_uses(f);
  ASSERT_EQ(last.size(), f.insts.size());
  EXPECT_EQ(last[2], (std::vector<uint32_t>{id("%r2")}));  // add %r3, %r1, %r2
  EXPECT_EQ(last[3], (std::vector<uint32_t>{id("%r1")}));  // mul %r4, %r1, %r1
  EXPECT_TRUE(last[4].empty());                            // add in the loop
  EXPECT_EQ(last[5], (std::vector<uint32_t>{}));           // setp: %r4 live (loop, store)
  EXPECT_EQ(last[6], (std::vector<uint32_t>{id("%p1")}));  // the branch reads %p1 last
  EXPECT_EQ(last[8], (std::vector<uint32_t>{id("%r3")}));  // first store: %r3 (%rd1 is live)
  EXPECT_EQ(last[9], (std::vector<uint32_t>{id("%r4"), id("%rd1")}));
}

namespace {

std::string chain_kernel(uint32_t n, const char* line) {
  std::string body;
  for (uint32_t k = 0; k < n; ++k) body += std::string("  ") + line + "\n";
  return fmt::format(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {{
  .reg .b32 %r<64>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, 1;
  mov.u32 %r2, 2;
  mov.u32 %r17, 3;
{}  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}}
)",
                     body);
}

struct RfcRun {
  uint64_t cycles, operand_reads, hits, mrf_reads, mrf_writes, conflicts;
};

RfcRun run_chain(const std::vector<std::string>& more, uint32_t n, const char* line) {
  std::vector<std::string> s = {
      "gpu.num_sms=1",          "sm.l1i_perfect=true",    "sim.fixed_memory_latency=100",
      "sim.memory_model=fixed", "sm.scheduler=two_level", "sm.int_alu.latency=4"};
  s.insert(s.end(), more.begin(), more.end());
  TimingRunner r(timing_params(s));
  r.load(chain_kernel(n, line));
  Addr out = r.upload(std::vector<uint32_t>(1, 0));
  r.launch("k", {1, 1, 1}, {32, 1, 1}, out);
  RfcRun x{r.last.cycles, 0, 0, 0, 0, r.sm0("reg_bank_conflicts")};
  if (r.stats["sm[0]"].contains("rfc")) {
    x.operand_reads = r.stats["sm[0]"]["rfc"]["operand_reads"]["value"].get<uint64_t>();
    x.hits = r.stats["sm[0]"]["rfc"]["reads"]["value"].get<uint64_t>();
    x.mrf_reads = r.stats["sm[0]"]["mrf"]["reads"]["value"].get<uint64_t>();
    x.mrf_writes = r.stats["sm[0]"]["mrf"]["writes"]["value"].get<uint64_t>();
  }
  return x;
}

}  // namespace

TEST(RfcSm, HitsNeedNoRegisterBank) {
  // %r1 and %r17 share an MRF bank (16 banks): each dependent add pays one conflict cycle
  // without the RFC. With it both operands hit (%r1 written by the previous add, %r17 by its
  // mov and never evicted: the chain only rewrites %r1 in place), so no bank is read.
  const char* line = "add.s32 %r1, %r1, %r17;";
  const RfcRun a10 = run_chain({}, 10, line), a20 = run_chain({}, 20, line);
  const RfcRun b10 = run_chain({"rfc.enable=true"}, 10, line),
               b20 = run_chain({"rfc.enable=true"}, 20, line);
  EXPECT_EQ(a20.cycles - a10.cycles, 10u * 5);
  EXPECT_EQ(b20.cycles - b10.cycles, 10u * 4);
  EXPECT_EQ(a20.conflicts - a10.conflicts, 10u);
  EXPECT_EQ(b20.conflicts - b10.conflicts, 0u);
  EXPECT_EQ(b20.operand_reads - b10.operand_reads, 20u);
  EXPECT_EQ(b20.hits - b10.hits, 20u);
  EXPECT_EQ(b20.mrf_reads - b10.mrf_reads, 0u);
  EXPECT_EQ(b20.mrf_writes - b10.mrf_writes, 0u);  // in-place rewrites of %r1
  // A register never written (%r60) misses every time and is never allocated.
  const char* miss = "add.s32 %r1, %r1, %r60;";
  const RfcRun c10 = run_chain({"rfc.enable=true"}, 10, miss),
               c20 = run_chain({"rfc.enable=true"}, 20, miss);
  EXPECT_EQ(c20.hits - c10.hits, 10u);
  EXPECT_EQ(c20.mrf_reads - c10.mrf_reads, 10u);
}

TEST(RfcSm, OffMeansNoStatsGroupsAndNeedsTwoLevel) {
  TimingRunner r(timing_params({"gpu.num_sms=1", "sm.scheduler=two_level"}));
  r.load(chain_kernel(1, "add.s32 %r1, %r1, %r2;"));
  Addr out = r.upload(std::vector<uint32_t>(1, 0));
  r.launch("k", {1, 1, 1}, {32, 1, 1}, out);
  EXPECT_FALSE(r.stats["sm[0]"].contains("rfc"));
  EXPECT_FALSE(r.stats["sm[0]"].contains("mrf"));
  try {
    timing_params({"rfc.enable=true", "sm.scheduler=gto"});
    FAIL() << "rfc.enable with gto must be a config error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("sm.scheduler=two_level"), std::string::npos) << e.what();
  }
}

TEST(RfcSm, LongLatencyDemotionKeepsAWarpStalledOnAnAluResultInThePool) {
  // One scheduler, an active pool of one warp, two warps running a dependent add chain. With
  // sm.two_level_demote=any, warp 0 leaves the pool at its first scoreboard stall and warp 1
  // comes in (the warps interleave). With long_latency (Gebhart et al.), an ALU dependence is
  // not a reason to leave: warp 0 issues its whole kernel before warp 1 issues anything.
  auto first_of_warp1_after_last_of_warp0 = [](const char* demote) {
    TimingRunner r(timing_params({"gpu.num_sms=1", "sm.l1i_perfect=true", "sim.memory_model=fixed",
                                  "sim.fixed_memory_latency=100", "sm.num_schedulers=1",
                                  "sm.scheduler=two_level", "sm.two_level_active=1",
                                  std::string("sm.two_level_demote=") + demote}));
    std::vector<std::pair<uint64_t, uint32_t>> log;
    r.gpu().sm(0).set_issue_log(&log);
    r.load(chain_kernel(8, "add.s32 %r1, %r1, %r17;"));
    Addr out = r.upload(std::vector<uint32_t>(1, 0));
    r.launch("k", {1, 1, 1}, {64, 1, 1}, out);
    uint64_t last0 = 0, first1 = UINT64_MAX;
    for (auto& [c, w] : log) {
      if (w == 0) last0 = std::max(last0, c);
      if (w == 1) first1 = std::min(first1, c);
    }
    return first1 > last0;
  };
  EXPECT_FALSE(first_of_warp1_after_last_of_warp0("any"));
  EXPECT_TRUE(first_of_warp1_after_last_of_warp0("long_latency"));
  // A dependence on a global load does demote: warp 1 issues while warp 0 waits for its load.
  TimingRunner r(timing_params({"gpu.num_sms=1", "sm.l1i_perfect=true", "sim.memory_model=fixed",
                                "sim.fixed_memory_latency=100", "sm.num_schedulers=1",
                                "sm.scheduler=two_level", "sm.two_level_active=1",
                                "sm.two_level_demote=long_latency"}));
  std::vector<std::pair<uint64_t, uint32_t>> log;
  r.gpu().sm(0).set_issue_log(&log);
  r.load(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u32 %r1, [%rd2];
  add.s32 %r2, %r1, 1;
  st.global.u32 [%rd2], %r2;
  ret;
}
)");
  Addr out = r.upload(std::vector<uint32_t>(1, 0));
  r.launch("k", {1, 1, 1}, {64, 1, 1}, out);
  uint64_t last0 = 0, first1 = UINT64_MAX;
  for (auto& [c, w] : log) {
    if (w == 0) last0 = std::max(last0, c);
    if (w == 1) first1 = std::min(first1, c);
  }
  EXPECT_LT(first1, last0);
  EXPECT_GE(last0, 100u);  // warp 0's add waited for the 100-cycle load
}

}  // namespace simtlab::testing
