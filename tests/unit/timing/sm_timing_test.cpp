// Exact cycle counts of the SM pipeline against mock neighbours (fixed-latency memory, a
// perfect I-cache). Kernels are generated so that the quantity under test is the only thing
// that changes between two runs; the difference of their cycle counts isolates it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "base/error.h"
#include "ptx/parser.h"
#include "ptx/regalloc.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {

namespace {

/// A kernel whose body is `n` copies of `line(k)` (k = 0..n-1), between register setup and a
/// final store of %r1 (so the last result must be written back before the kernel ends).
std::string kernel(uint32_t n, const std::function<std::string(uint32_t)>& line) {
  std::string body;
  for (uint32_t k = 0; k < n; ++k) body += "  " + line(k) + "\n";
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

std::vector<std::string> base_sets(std::vector<std::string> more = {}) {
  std::vector<std::string> s = {"gpu.num_sms=1", "sm.l1i_perfect=true",
                                "sim.fixed_memory_latency=100", "sim.memory_model=fixed"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

uint64_t run_cycles(const std::vector<std::string>& sets, const std::string& ptx,
                    uint32_t threads = 32, TimingRunner** keep = nullptr) {
  static std::unique_ptr<TimingRunner> last;
  last = std::make_unique<TimingRunner>(timing_params(sets));
  last->load(ptx);
  Addr out = last->upload(std::vector<uint32_t>(1, 0));
  last->launch("k", {1, 1, 1}, {threads, 1, 1}, out);
  if (keep) *keep = last.get();
  return last->last.cycles;
}

}  // namespace

TEST(SmTiming, DependentChainTakesLatencyPerInstruction) {
  for (uint32_t lat : {4u, 6u, 11u}) {
    const auto sets = base_sets({fmt::format("sm.int_alu.latency={}", lat)});
    auto chain = [](uint32_t) { return std::string("add.s32 %r1, %r1, %r2;"); };
    const uint64_t c10 = run_cycles(sets, kernel(10, chain));
    const uint64_t c20 = run_cycles(sets, kernel(20, chain));
    EXPECT_EQ(c20 - c10, 10u * lat) << "latency " << lat;
  }
}

TEST(SmTiming, IndependentInstructionsIssueOnePerCyclePerScheduler) {
  // Each add reads only %r60 (never written, so never pending; bank 12 of 16) and writes one
  // of %r3..%r10 (banks 3..10): no hazards, no read/write bank conflicts.
  auto indep = [](uint32_t k) { return fmt::format("add.s32 %r{}, %r60, 1;", 3 + k % 8); };
  const auto sets = base_sets();
  const uint64_t c30 = run_cycles(sets, kernel(30, indep));
  const uint64_t c60 = run_cycles(sets, kernel(60, indep));
  EXPECT_EQ(c60 - c30, 30u);
  // Two warps on two schedulers issue two instructions per cycle: still 30 more cycles.
  const uint64_t d30 = run_cycles(sets, kernel(30, indep), 64);
  const uint64_t d60 = run_cycles(sets, kernel(60, indep), 64);
  EXPECT_EQ(d60 - d30, 30u);
  // Issue slots per cycle, from the issue log: two schedulers issue two warps in one cycle,
  // one scheduler never more than one.
  auto max_per_cycle = [&](uint32_t schedulers) {
    TimingRunner r(timing_params(base_sets({fmt::format("sm.num_schedulers={}", schedulers)})));
    std::vector<std::pair<uint64_t, uint32_t>> log;
    r.gpu().sm(0).set_issue_log(&log);
    r.load(kernel(30, indep));
    Addr out = r.upload(std::vector<uint32_t>(1, 0));
    r.launch("k", {1, 1, 1}, {64, 1, 1}, out);
    std::map<uint64_t, uint32_t> per;
    for (auto& [c, w] : log) ++per[c];
    uint32_t m = 0, both = 0;
    for (auto& [c, n] : per) {
      m = std::max(m, n);
      if (n == 2) ++both;
    }
    return std::make_pair(m, both);
  };
  const auto two = max_per_cycle(2), one = max_per_cycle(1);
  EXPECT_EQ(two.first, 2u);
  EXPECT_GE(two.second, 30u);  // the 30 adds of each warp issue side by side
  EXPECT_EQ(one.first, 1u);
}

TEST(SmTiming, RegisterBankConflictCostsOneCycle) {
  // 16 banks (GTX480): %r1 and %r17 share a bank, %r1 and %r2 do not.
  const auto sets = base_sets({"sm.num_reg_banks=16", "sm.int_alu.latency=4"});
  auto no_conflict = [](uint32_t) { return std::string("add.s32 %r1, %r1, %r2;"); };
  auto conflict = [](uint32_t) { return std::string("add.s32 %r1, %r1, %r17;"); };
  const uint64_t a =
      run_cycles(sets, kernel(20, no_conflict)) - run_cycles(sets, kernel(10, no_conflict));
  const uint64_t b =
      run_cycles(sets, kernel(20, conflict)) - run_cycles(sets, kernel(10, conflict));
  EXPECT_EQ(a, 10u * 4);
  EXPECT_EQ(b, 10u * 5);
  TimingRunner* r = nullptr;
  run_cycles(sets, kernel(10, conflict), 32, &r);
  EXPECT_EQ(r->sm0("reg_bank_conflicts"), 10u);
}

// sm.register_numbering = architectural: banks see the SASS-model registers. %r1, %r2 and
// %r17 become R0, R2 and R3 (R1 is the stack pointer), so the virtual conflict of %r1/%r17
// is gone and the chain runs at the ALU latency.
TEST(SmTiming, ArchitecturalNumberingDecidesRegisterBankConflicts) {
  const auto sets = base_sets(
      {"sm.num_reg_banks=16", "sm.int_alu.latency=4", "sm.register_numbering=architectural"});
  auto conflict = [](uint32_t) { return std::string("add.s32 %r1, %r1, %r17;"); };
  TimingRunner* r = nullptr;
  const uint64_t c10 = run_cycles(sets, kernel(10, conflict), 32, &r);
  EXPECT_EQ(r->sm0("reg_bank_conflicts"), 0u);
  EXPECT_EQ(r->stats["sm[0]"]["regalloc"]["spill_reloads"]["value"].get<uint64_t>(), 0u);
  EXPECT_EQ(run_cycles(sets, kernel(20, conflict)) - c10, 10u * 4);
  // Virtual numbering has no `regalloc` group.
  run_cycles(base_sets(), kernel(10, conflict), 32, &r);
  EXPECT_FALSE(r->stats["sm[0]"].contains("regalloc"));
}

// Above max_regs_per_thread values are spilled: every reload and store is a local-memory
// warp instruction of its own, counted in `regalloc`, and the kernel takes longer.
TEST(SmTiming, SpilledRegistersIssueLocalLoadsAndStores) {
  std::string body;
  for (int k = 3; k < 15; ++k) body += fmt::format("add.s32 %r{}, %r1, {};", k + 20, k);
  for (int k = 3; k < 15; ++k) body += fmt::format("add.s32 %r1, %r1, %r{};", k + 20);
  const std::string ptx = kernel(1, [&](uint32_t) { return body; });
  const auto arch = base_sets({"sm.register_numbering=architectural"});
  TimingRunner* r = nullptr;
  const uint64_t fits = run_cycles(arch, ptx, 32, &r);
  EXPECT_EQ(r->stats["sm[0]"]["regalloc"]["spill_reloads"]["value"].get<uint64_t>(), 0u);
  auto tight = arch;
  tight.push_back("sm.max_regs_per_thread=8");
  const uint64_t spilled = run_cycles(tight, ptx, 32, &r);
  const auto& g = r->stats["sm[0]"]["regalloc"];
  // The allocation decides how many: the same count as the PTX pass reports.
  ptx::Module m = ptx::parse_module(ptx, "k.ptx");
  const ptx::RegAlloc a =
      ptx::allocate_registers(*m.find_function("k"), ptx::RegAllocOptions::sass(75, 8));
  uint64_t reloads = 0, stores = 0, words = 0;
  for (size_t i = 0; i < a.spill_loads.size(); ++i) {
    reloads += a.spill_loads[i] != 0;
    stores += a.spill_stores[i] != 0;
    words += a.spill_loads[i] + a.spill_stores[i];
  }
  EXPECT_GT(a.spilled, 0u);
  EXPECT_LE(a.count, 8u);
  EXPECT_EQ(g["spill_reloads"]["value"].get<uint64_t>(), reloads);  // one warp, straight line
  EXPECT_EQ(g["spill_stores"]["value"].get<uint64_t>(), stores);
  EXPECT_EQ(g["spill_words"]["value"].get<uint64_t>(), words);
  EXPECT_GT(spilled, fits + 100);  // at least one reload waits for the 100-cycle memory
}

TEST(SmTiming, ScoreboardHoldsRawHazardUntilWriteback) {
  const uint32_t lat = 7;
  const auto sets = base_sets({fmt::format("sm.int_alu.latency={}", lat)});
  auto chain = [](uint32_t) { return std::string("add.s32 %r1, %r1, %r2;"); };
  TimingRunner* r = nullptr;
  run_cycles(sets, kernel(10, chain), 32, &r);
  const uint64_t sb10 = r->sm0_stall("scoreboard"), is10 = r->sm0_stall("issued");
  run_cycles(sets, kernel(20, chain), 32, &r);
  const uint64_t sb20 = r->sm0_stall("scoreboard"), is20 = r->sm0_stall("issued");
  // Each extra dependent add waits lat-1 cycles on the scoreboard, then issues.
  EXPECT_EQ(sb20 - sb10, 10u * (lat - 1));
  EXPECT_EQ(is20 - is10, 10u);
}

TEST(SmTiming, OneInstructionInFlightPerWarpWaitsForWriteback) {
  // Independent adds (see IndependentInstructionsIssueOnePerCyclePerScheduler) issue one per
  // cycle; with sm.max_inflight_per_warp=1 (seed 004, no forwarding) each waits for the
  // previous one's writeback: the int_alu latency per instruction, as a dependent chain.
  auto indep = [](uint32_t k) { return fmt::format("add.s32 %r{}, %r60, 1;", 3 + k % 8); };
  for (uint32_t lat : {4u, 6u}) {
    const auto sets =
        base_sets({"sm.max_inflight_per_warp=1", fmt::format("sm.int_alu.latency={}", lat)});
    const uint64_t c30 = run_cycles(sets, kernel(30, indep));
    const uint64_t c60 = run_cycles(sets, kernel(60, indep));
    EXPECT_EQ(c60 - c30, 30u * lat) << lat;
  }
  // Two in flight: two instructions per latency window.
  const auto two = base_sets({"sm.max_inflight_per_warp=2", "sm.int_alu.latency=6"});
  EXPECT_EQ(run_cycles(two, kernel(60, indep)) - run_cycles(two, kernel(30, indep)), 90u);
}

TEST(SmTiming, StallReasonsSumToIssueSlots) {
  const auto sets = base_sets();
  auto chain = [](uint32_t) { return std::string("add.s32 %r1, %r1, %r2;"); };
  TimingRunner* r = nullptr;
  run_cycles(sets, kernel(25, chain), 96, &r);
  uint64_t sum = 0;
  for (auto& [k, v] : r->stats["sm[0]"]["stall"]["values"].items()) sum += v.get<uint64_t>();
  EXPECT_EQ(sum, r->sm0("issue_slots"));
  EXPECT_EQ(r->sm0("issue_slots"), 2 * r->sm0("cycles"));
}

namespace {
std::vector<uint32_t> issue_order(const std::string& policy) {
  auto indep = [](uint32_t k) { return fmt::format("add.s32 %r{}, %r60, 1;", 3 + k % 8); };
  TimingRunner r(timing_params(base_sets({"sm.num_schedulers=1", "sm.scheduler=" + policy})));
  std::vector<std::pair<uint64_t, uint32_t>> log;
  r.gpu().sm(0).set_issue_log(&log);
  r.load(kernel(8, indep));
  Addr out = r.upload(std::vector<uint32_t>(1, 0));
  r.launch("k", {1, 1, 1}, {64, 1, 1}, out);
  std::vector<uint32_t> warps;
  for (auto& [c, w] : log) warps.push_back(w);
  return warps;
}
}  // namespace

TEST(SmTiming, GtoKeepsIssuingOneWarpUntilItStalls) {
  // Each warp issues 3 movs + 8 adds + ld.param; the ld.param's consumer stalls it.
  const auto w = issue_order("gto");
  ASSERT_GE(w.size(), 24u);
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(w[i], 0u) << "issue " << i;
  for (size_t i = 12; i < 24; ++i) EXPECT_EQ(w[i], 1u) << "issue " << i;
}

TEST(SmTiming, LrrRotatesAmongReadyWarps) {
  // Once both warps have instructions, every issue alternates between them.
  const auto w = issue_order("lrr");
  ASSERT_GE(w.size(), 22u);
  for (size_t i = 2; i < 20; ++i) EXPECT_NE(w[i], w[i + 1]) << "issues " << i << " and " << i + 1;
}

TEST(SmTiming, EightSpsTakeFourTimesTheCyclesOfThirtyTwo) {
  auto indep = [](uint32_t k) { return fmt::format("add.s32 %r{}, %r60, 1;", 3 + k % 8); };
  auto delta = [&](uint32_t simd) {
    const auto sets = base_sets({"sm.num_sp_units=1", fmt::format("sm.simd_width={}", simd)});
    return run_cycles(sets, kernel(40, indep)) - run_cycles(sets, kernel(20, indep));
  };
  const uint64_t wide = delta(32), narrow = delta(8);
  EXPECT_EQ(wide, 20u);
  EXPECT_EQ(narrow, 80u);
  EXPECT_EQ(narrow, 4 * wide);
}

TEST(SmTiming, SameRunTwiceGivesIdenticalStats) {
  auto chain = [](uint32_t k) { return fmt::format("add.s32 %r{}, %r1, %r2;", 1 + (k % 3) * 20); };
  std::string a, b;
  for (std::string* s : {&a, &b}) {
    TimingRunner r(timing_params(base_sets()));
    r.load(kernel(50, chain));
    Addr out = r.upload(std::vector<uint32_t>(1, 0));
    r.launch("k", {3, 1, 1}, {96, 1, 1}, out);
    *s = r.last.stats_json;
  }
  EXPECT_EQ(a, b);
}

}  // namespace simtlab::testing

namespace simtlab::testing {

namespace {
/// Each thread writes its index to shared memory, waits at a CTA barrier, and stores its right
/// neighbour's value (a result only correct if the barrier held every warp).
const char* kBarrierKernel = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  .shared .align 4 .b8 buf[1024];
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, buf;
  add.s32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r1;
  bar.sync 0;
  add.s32 %r6, %r1, 1;
  rem.u32 %r6, %r6, %r2;
  shl.b32 %r6, %r6, 2;
  add.s32 %r6, %r4, %r6;
  ld.shared.u32 %r7, [%r6];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r7;
  ret;
}
)";

std::unique_ptr<TimingRunner> run_barrier(const std::vector<std::string>& sets, uint32_t threads) {
  auto r = std::make_unique<TimingRunner>(timing_params(base_sets(sets)));
  r->load(kBarrierKernel);
  Addr out = r->upload(std::vector<uint32_t>(threads, 0));
  r->launch("k", {1, 1, 1}, {threads, 1, 1}, out);
  const auto v = r->download<uint32_t>(out, threads);
  for (uint32_t t = 0; t < threads; ++t) EXPECT_EQ(v[t], (t + 1) % threads) << "thread " << t;
  return r;
}
}  // namespace

TEST(SmTiming, TwoLevelPassesBarrierWithMoreWarpsThanItsActivePool) {
  // 8 warps, an active pool of 2: warps waiting at bar.sync must leave the pool so the warps
  // that have not arrived yet can (issue #10: this deadlocked).
  auto r = run_barrier({"sm.scheduler=two_level", "sm.two_level_active=2"}, 256);
  EXPECT_EQ(r->sm0("warp_insts"), 8u * 18u);
  EXPECT_GT(r->sm0_stall("barrier"), 0u);
}

TEST(SmTiming, TwoLevelWithAPoolHoldingEveryWarpIsLrr) {
  // With room for every warp in the active pool nothing is ever demoted: two-level degenerates
  // to loose round robin, cycle for cycle.
  auto a = run_barrier({"sm.scheduler=two_level", "sm.two_level_active=8"}, 256);
  auto b = run_barrier({"sm.scheduler=lrr"}, 256);
  EXPECT_EQ(a->last.cycles, b->last.cycles);
  EXPECT_EQ(a->last.stats_json, b->last.stats_json);
}

namespace {
// One warp: lane t atomically adds 1 to word (t * stride / 4) of `out` (stride 0: all lanes on
// word 0; stride 4: the 32 words of one 128-byte line), then stores its old value. Both
// strides run the same instructions.
std::unique_ptr<TimingRunner> run_warp_atomic(uint32_t stride,
                                              const std::vector<std::string>& sets = {}) {
  const std::string ptx = fmt::format(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, {};
  add.s64 %rd4, %rd2, %rd3;
  atom.global.add.u32 %r2, [%rd4], 1;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6+128], %r2;
  ret;
}}
)",
                                      stride);
  std::vector<std::string> all = {"gpu.num_sms=1", "sm.l1i_perfect=true"};
  all.insert(all.end(), sets.begin(), sets.end());
  auto r = std::make_unique<TimingRunner>(timing_params(all));
  r->load(ptx);
  Addr out = r->upload(std::vector<uint32_t>(64, 0));
  EXPECT_EQ(out % 128, 0u);
  r->launch("k", {1, 1, 1}, {32, 1, 1}, out);
  const auto v = r->download<uint32_t>(out, 64);
  if (stride == 0) {
    EXPECT_EQ(v[0], 32u);
    std::vector<char> seen(32, 0);  // the old values are 0..31, each once
    for (uint32_t t = 0; t < 32; ++t)
      if (v[32 + t] < 32) seen[v[32 + t]] = 1;
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 32);
  }
  return r;
}

uint64_t partition_total(const TimingRunner& r, const std::string& name) {
  uint64_t sum = 0;
  for (const auto& [k, v] : r.stats["mem"].items())
    if (k.rfind("partition[", 0) == 0 && v.contains(name)) sum += v[name]["value"].get<uint64_t>();
  return sum;
}
}  // namespace

TEST(SmTiming, SameAddressAtomicsOfOneWarpAreSerialisedAtTheAtomicUnit) {
  // 32 lanes on one word: 31 of them wait one same-address interval (I) each behind the lane
  // before. Changing I from 1 to 9 (Fermi) or 4 adds exactly 31 * (I - 1) cycles (core and L2
  // clocks are equal, 700 MHz); nothing else moves.
  auto same1 = run_warp_atomic(0, {"mem.l2.atomic_same_addr_interval=1"});
  auto same9 = run_warp_atomic(0);
  auto same4 = run_warp_atomic(0, {"mem.l2.atomic_same_addr_interval=4"});
  EXPECT_EQ(same9->last.cycles - same1->last.cycles, 31u * 8);
  EXPECT_EQ(same4->last.cycles - same1->last.cycles, 31u * 3);
  EXPECT_EQ(partition_total(*same9, "atomics"), 1u);
  EXPECT_EQ(partition_total(*same9, "atomic_ops"), 32u);
  EXPECT_EQ(partition_total(*same9, "atomic_serialized_ops"), 31u);
  EXPECT_EQ(partition_total(*same9, "atomic_busy_cycles"), 31u * 9 + 1);
  // 32 lanes on the 32 words of one line: updated in one cycle whatever I is.
  auto distinct1 = run_warp_atomic(4, {"mem.l2.atomic_same_addr_interval=1"});
  auto distinct9 = run_warp_atomic(4);
  EXPECT_EQ(distinct9->last.cycles, distinct1->last.cycles);
  EXPECT_EQ(partition_total(*distinct9, "atomics"), 1u);
  EXPECT_EQ(partition_total(*distinct9, "atomic_ops"), 32u);
  EXPECT_EQ(partition_total(*distinct9, "atomic_serialized_ops"), 0u);
  EXPECT_EQ(partition_total(*distinct9, "atomic_busy_cycles"), 1u);
}

// Sub-cores (sm.sub_cores, Volta whitepaper): a warp uses only its sub-core's units. Five warps
// of independent adds on 4 schedulers and 4 SP units with an initiation interval of 2; 120 more
// adds per warp (long enough that the kernel's start and end overlap in both runs):
// - shared units (sub_cores=0): 600 extra adds over 4 units that each take one every 2 cycles
//   -> 2 per cycle -> 300 more cycles (scheduler 0's 240 adds at 1 per cycle are not the limit);
// - 4 sub-cores: warps 0 and 4 share sub-core 0 and its single unit -> 240 adds x 2 cycles =
//   480 more cycles, while sub-cores 1-3 finish their 120 in 240.
TEST(SmTiming, SubCoresPartitionTheExecutionUnits) {
  auto indep = [](uint32_t k) { return fmt::format("add.s32 %r{}, %r60, 1;", 3 + k % 8); };
  auto delta = [&](uint32_t sub_cores) {
    const auto sets = base_sets({"sm.num_schedulers=4", "sm.num_sp_units=4", "sm.num_sfu_units=4",
                                 "sm.collector_units=8", "sm.int_alu.interval=2",
                                 "sm.scheduler=lrr", fmt::format("sm.sub_cores={}", sub_cores)});
    return run_cycles(sets, kernel(240, indep), 160) - run_cycles(sets, kernel(120, indep), 160);
  };
  EXPECT_EQ(delta(0), 300u);
  EXPECT_EQ(delta(4), 480u);
}

// Sub-cores own a slice of the register banks: with 16 banks and 4 sub-cores a warp sees 4
// banks, so %r1 and %r5 now collide (they did not among 16) while %r1 and %r2 still do not.
TEST(SmTiming, SubCoresSliceTheRegisterBanks) {
  const auto sets = base_sets({"sm.num_reg_banks=16", "sm.int_alu.latency=4", "sm.num_schedulers=4",
                               "sm.num_sp_units=4", "sm.num_sfu_units=4", "sm.collector_units=8",
                               "sm.sub_cores=4"});
  auto no_conflict = [](uint32_t) { return std::string("add.s32 %r1, %r1, %r2;"); };
  auto conflict = [](uint32_t) { return std::string("add.s32 %r1, %r1, %r5;"); };
  const uint64_t a =
      run_cycles(sets, kernel(20, no_conflict)) - run_cycles(sets, kernel(10, no_conflict));
  const uint64_t b =
      run_cycles(sets, kernel(20, conflict)) - run_cycles(sets, kernel(10, conflict));
  EXPECT_EQ(a, 10u * 4);
  EXPECT_EQ(b, 10u * 5);
  // Without sub-cores the same pair is conflict-free.
  const auto flat = base_sets({"sm.num_reg_banks=16", "sm.int_alu.latency=4", "sm.num_schedulers=4",
                               "sm.num_sp_units=4", "sm.num_sfu_units=4", "sm.collector_units=8"});
  EXPECT_EQ(run_cycles(flat, kernel(20, conflict)) - run_cycles(flat, kernel(10, conflict)),
            10u * 4);
}

// A sub-core configuration whose counts do not divide is rejected with the key path.
TEST(SmTiming, SubCoresNeedDivisibleCounts) {
  try {
    timing_params({"sm.sub_cores=4", "sm.num_schedulers=4", "sm.num_sp_units=2"});
    FAIL() << "accepted 2 SP units over 4 sub-cores";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("sm.num_sp_units"), std::string::npos) << e.what();
  }
  try {
    timing_params({"sm.sub_cores=4"});
    FAIL() << "accepted 2 schedulers for 4 sub-cores";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("sm.num_schedulers"), std::string::npos) << e.what();
  }
}

}  // namespace simtlab::testing
