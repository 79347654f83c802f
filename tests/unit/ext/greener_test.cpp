// GREENER (src/ext/greener, thesis ch. 4): the compile-time analysis on small instruction
// graphs (Dist with threshold W, liveness, Table 4.1, the 1 dst + 2 src encoding).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "ext/greener/analysis.h"
#include "func/memory.h"
#include "func/module.h"
#include "func/regcheck.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::ext::greener {
namespace {

constexpr uint8_t INF = kDistInf;

// A straight-line graph of `n` nodes (i -> i + 1), the last one an exit.
Graph line(uint32_t n, uint32_t nregs) {
  Graph g;
  g.nregs = nregs;
  g.nodes.resize(n);
  for (uint32_t i = 0; i + 1 < n; ++i) g.nodes[i].succ = {i + 1};
  g.nodes[n - 1].exit = true;
  return g;
}

TEST(GreenerAnalysis, StraightLineDistanceSaturatesAtW) {
  // 0: R0 = ..; 1, 2: other; 3: .. = R0; 4: exit.
  Graph g = line(5, 2);
  g.nodes[0].dst = {{0, 1}};
  g.nodes[3].src = {{0, 1}};
  const Analysis a3 = analyze(g, 3);
  EXPECT_EQ(a3.dist(2, 0), 1);
  EXPECT_EQ(a3.dist(1, 0), 2);
  EXPECT_EQ(a3.dist(0, 0), 3);
  EXPECT_TRUE(a3.live(0, 0));
  EXPECT_EQ(a3.power(0, 0), PState::on);  // next access 3 instructions on, W = 3: ON
  EXPECT_EQ(a3.dist(3, 0), INF);          // no further access
  EXPECT_FALSE(a3.live(3, 0));
  EXPECT_EQ(a3.power(3, 0), PState::off);
  // R1 is never accessed: OFF everywhere.
  for (uint32_t n = 0; n < 5; ++n) EXPECT_EQ(a3.power(n, 1), PState::off);
  // W = 2: INC(2) = INF, so the read 3 instructions on is far: live and far -> SLEEP.
  const Analysis a2 = analyze(g, 2);
  EXPECT_EQ(a2.dist(1, 0), 2);
  EXPECT_EQ(a2.dist(0, 0), INF);
  EXPECT_EQ(a2.power(0, 0), PState::sleep);
  EXPECT_EQ(a2.power(1, 0), PState::on);
  // W = 1: only the very next instruction is near.
  const Analysis a1 = analyze(g, 1);
  EXPECT_EQ(a1.dist(2, 0), 1);
  EXPECT_EQ(a1.dist(1, 0), INF);
  EXPECT_EQ(a1.power(1, 0), PState::sleep);
}

TEST(GreenerAnalysis, FarNextWriteIsOffNearNextWriteIsOn) {
  // 0: R0 = ..; 1: .. = R0; 2..5: other; 6: R0 = ..; 7: .. = R0; 8: exit.
  Graph g = line(9, 1);
  g.nodes[0].dst = {{0, 1}};
  g.nodes[1].src = {{0, 1}};
  g.nodes[6].dst = {{0, 1}};
  g.nodes[7].src = {{0, 1}};
  const Analysis a = analyze(g, 3);
  EXPECT_EQ(a.dist(1, 0), INF);  // next access (the write at 6) is 5 instructions on
  EXPECT_FALSE(a.live(1, 0));    // ... and it is a write: dead
  EXPECT_EQ(a.power(1, 0), PState::off);
  EXPECT_EQ(a.dist(4, 0), 2);
  EXPECT_FALSE(a.live(4, 0));
  EXPECT_EQ(a.power(4, 0), PState::on);  // not live but near (Table 4.1 row 4)
  // A guarded write does not kill: the value read at 7 may come from before it.
  g.nodes[6].guarded = true;
  const Analysis b = analyze(g, 3);
  EXPECT_TRUE(b.live(1, 0));
  EXPECT_EQ(b.power(1, 0), PState::sleep);
}

// Thesis Fig. 4.4(a): S0 defines r0; along S10 the next use (S11) is at distance 2, along S1
// the next use is S9, far beyond W. The MAX at the branch makes OUT(S0) INF: SLEEP.
Graph fig44() {
  Graph g;
  g.nregs = 1;
  g.nodes.resize(13);
  g.nodes[0].dst = {{0, 1}};
  g.nodes[0].succ = {1, 10};
  for (uint32_t i = 1; i < 9; ++i) g.nodes[i].succ = {i + 1};
  g.nodes[9].src = {{0, 1}};
  g.nodes[9].succ = {12};
  g.nodes[10].succ = {11};
  g.nodes[11].src = {{0, 1}};
  g.nodes[11].succ = {12};
  g.nodes[12].exit = true;
  return g;
}

TEST(GreenerAnalysis, Fig44BranchTakesTheMaximum) {
  const Graph g = fig44();
  const Analysis a = analyze(g, 3);
  EXPECT_EQ(a.dist(10, 0), 1);
  EXPECT_EQ(a.dist(1, 0), INF);  // S2..S8 then S9: 8 instructions on
  EXPECT_EQ(a.dist(0, 0), INF);  // MAX(INF, 2)
  EXPECT_TRUE(a.live(0, 0));
  EXPECT_EQ(a.power(0, 0), PState::sleep);
  EXPECT_EQ(a.power(10, 0), PState::on);
  EXPECT_EQ(a.power(9, 0), PState::off);
  EXPECT_EQ(a.power(11, 0), PState::off);
  // With W = 9 the S1 path is near too (S9 is 9 instructions after S0): ON.
  const Analysis b = analyze(g, 9);
  EXPECT_EQ(b.dist(0, 0), 9);
  EXPECT_EQ(b.power(0, 0), PState::on);
}

TEST(GreenerAnalysis, LoopFixpoint) {
  // 0: R0 = ..; 1: .. = R0 (loop head); 2..5: other; 6: branch to 1 or fall to 7;
  // 7: .. = R0; 8: exit.
  Graph g = line(9, 1);
  g.nodes[0].dst = {{0, 1}};
  g.nodes[1].src = {{0, 1}};
  g.nodes[6].succ = {1, 7};
  g.nodes[7].src = {{0, 1}};
  const Analysis a7 = analyze(g, 7);
  EXPECT_EQ(a7.dist(6, 0), 1);
  EXPECT_EQ(a7.dist(1, 0), 6);  // around the loop: 2, 3, 4, 5, 6, then 1
  EXPECT_EQ(a7.power(1, 0), PState::on);
  const Analysis a5 = analyze(g, 5);
  EXPECT_EQ(a5.dist(1, 0), INF);
  EXPECT_EQ(a5.power(1, 0), PState::sleep);  // live (read again at 1 or 7) and far
  EXPECT_EQ(a5.power(0, 0), PState::on);
  // A loop whose body never touches R1: INF everywhere in it, OFF.
  Graph h = g;
  h.nregs = 2;
  const Analysis c = analyze(h, 21);
  for (uint32_t n = 0; n < 9; ++n) EXPECT_EQ(c.power(n, 1), PState::off) << n;
}

TEST(GreenerAnalysis, PairOperandTakesTheMostPoweredState) {
  // 0: R2:R3 = ..; 1: .. = R2; 2..6 other; 7: .. = R3; 8: exit.
  Graph g = line(9, 4);
  g.nodes[0].dst = {{2, 2}};
  g.nodes[1].src = {{2, 1}};
  g.nodes[7].src = {{3, 1}};
  const Analysis a = analyze(g, 3);
  EXPECT_EQ(a.power(0, 2), PState::on);
  EXPECT_EQ(a.power(0, 3), PState::sleep);
  const Encoded e = encode(g, a, 0, 2, 1);
  ASSERT_EQ(e.dst.size(), 1u);
  EXPECT_EQ(e.dst[0], PState::on);
}

TEST(GreenerAnalysis, EncodingOneDestinationTwoSources) {
  // 0: R0, R1 = R2, R3, R4, R2 (R2 twice); 1: .. = R0, R1, R2, R3, R4; 2: exit.
  Graph g = line(3, 5);
  g.nodes[0].dst = {{0, 1}, {1, 1}};
  g.nodes[0].src = {{2, 1}, {3, 1}, {4, 1}, {2, 1}};
  g.nodes[1].src = {{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}};
  const Analysis a = analyze(g, 3);
  for (uint32_t r = 0; r < 5; ++r) EXPECT_EQ(a.power(0, r), PState::on) << r;
  const Encoded e = encode(g, a, 0, 2, 1);
  ASSERT_EQ(e.dst.size(), 2u);
  EXPECT_EQ(e.dst[0], PState::on);
  EXPECT_EQ(e.dst[1], PState::sleep);  // second destination: not encoded
  ASSERT_EQ(e.src.size(), 4u);
  EXPECT_EQ(e.src[0], PState::on);
  EXPECT_EQ(e.src[1], PState::on);
  EXPECT_EQ(e.src[2], PState::sleep);  // third distinct source: not encoded
  EXPECT_EQ(e.src[3], PState::on);     // R2 again: the same encoded slot
  // Encoding everything: all ON; encoding nothing (Sleep-Reg-like): all SLEEP.
  const Encoded all = encode(g, a, 0, 8, 4);
  for (PState s : all.src) EXPECT_EQ(s, PState::on);
  const Encoded none = encode(g, a, 0, 0, 0);
  for (PState s : none.src) EXPECT_EQ(s, PState::sleep);
  for (PState s : none.dst) EXPECT_EQ(s, PState::sleep);
}

TEST(GreenerAnalysis, Table41) {
  EXPECT_EQ(table41(true, true), PState::sleep);
  EXPECT_EQ(table41(true, false), PState::on);
  EXPECT_EQ(table41(false, true), PState::off);
  EXPECT_EQ(table41(false, false), PState::on);
}

// ---- Timing (src/ext/greener/greener.cpp) on one warp of one SM, fixed-latency memory ----

/// `n` copies of line(k) between register setup and a store of %r1 + %r3.
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
  mov.u32 %r3, 3;
  mov.u32 %r4, 4;
{}  add.s32 %r1, %r1, %r3;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}}
)",
                     body);
}

struct RunResult {
  uint64_t cycles = 0;
  uint32_t out = 0;
  nlohmann::json sm0;
  uint64_t gr(const std::string& s) const { return sm0["greener"][s]["value"].get<uint64_t>(); }
  uint64_t trans(const std::string& t) const {
    return sm0["greener"]["transitions"]["values"][t].get<uint64_t>();
  }
  uint64_t wake_slots() const { return sm0["stall"]["values"]["wake_up"].get<uint64_t>(); }
};

RunResult run(const std::string& mode, uint32_t n, const std::function<std::string(uint32_t)>& line,
              std::vector<std::string> more = {}) {
  std::vector<std::string> sets = {
      "gpu.num_sms=1",          "sm.l1i_perfect=true",  "sim.fixed_memory_latency=100",
      "sim.memory_model=fixed", "sm.int_alu.latency=4", "sm.register_numbering=architectural",
      "greener.mode=" + mode};
  sets.insert(sets.end(), more.begin(), more.end());
  testing::TimingRunner r(testing::timing_params(sets));
  r.load(kernel(n, line));
  const Addr out = r.upload(std::vector<uint32_t>(1, 0));
  r.launch("k", {1, 1, 1}, {32, 1, 1}, out);
  RunResult x;
  x.cycles = r.last.cycles;
  x.out = r.download<uint32_t>(out, 1)[0];
  x.sm0 = r.stats["sm[0]"];
  if (mode != "none") {  // the checker: no operand is ever read while not ON
    EXPECT_EQ(x.gr("off_reads"), 0u) << mode;
    EXPECT_EQ(x.gr("sleep_reads"), 0u) << mode;
  }
  return x;
}

const std::function<std::string(uint32_t)> kChain = [](uint32_t) {
  return std::string("add.s32 %r1, %r1, %r2;");
};

TEST(GreenerTiming, OffMeansAbsentAndBaselineKeepsTiming) {
  const RunResult none = run("none", 10, kChain);
  EXPECT_FALSE(none.sm0.contains("greener"));
  EXPECT_FALSE(none.sm0["stall"]["values"].contains("wake_up"));
  const RunResult base = run("baseline", 10, kChain);
  EXPECT_EQ(base.cycles, none.cycles);
  EXPECT_EQ(base.wake_slots(), 0u);
  EXPECT_EQ(base.sm0["greener"]["transitions"]["total"].get<uint64_t>(), 0u);
  // Functional results are the same in every mode: 1 + 10 x 2 + 3.
  for (const char* m : {"none", "baseline", "sleep_reg", "comp_opt", "greener"})
    EXPECT_EQ(run(m, 10, kChain).out, 24u) << m;
}

// Sleep-Reg puts every register to SLEEP after each access: each add of the dependent chain
// finds %r1 (written back, then SLEEP) and %r2 (read, then SLEEP) asleep when its RAW hazard
// clears and waits wake_sleep more cycles, both waking together. The analysis keeps them ON
// (next access at distance 1), so comp_opt/greener run the chain at the ALU latency.
TEST(GreenerTiming, SleepWakeUpStallIsExact) {
  for (uint32_t x : {1u, 3u}) {
    const std::vector<std::string> lat = {fmt::format("greener.wake_sleep={}", x),
                                          fmt::format("greener.wake_off={}", 2 * x)};
    const RunResult a = run("sleep_reg", 10, kChain, lat), b = run("sleep_reg", 20, kChain, lat);
    EXPECT_EQ(b.cycles - a.cycles, 10u * (4 + x)) << x;
    EXPECT_EQ(b.wake_slots() - a.wake_slots(), 10u * x) << x;   // one scheduler slot per cycle
    EXPECT_EQ(b.trans("sleep_on") - a.trans("sleep_on"), 20u);  // %r1 and %r2 per add
    for (const char* m : {"baseline", "comp_opt", "greener"}) {
      const RunResult c = run(m, 10, kChain, lat), d = run(m, 20, kChain, lat);
      EXPECT_EQ(d.cycles - c.cycles, 10u * 4) << m;
    }
  }
}

// comp_opt starts a warp's registers OFF (not live, no access yet): each of the four setup
// movs writes an OFF register and waits wake_off cycles for it (one warp: nothing overlaps).
TEST(GreenerTiming, OffWakeUpStallIsExact) {
  const RunResult a = run("comp_opt", 10, kChain, {"greener.wake_off=2"});
  const RunResult b = run("comp_opt", 10, kChain, {"greener.wake_off=6"});
  EXPECT_EQ(a.trans("off_on"), 4u);
  EXPECT_EQ(b.trans("off_on"), 4u);
  EXPECT_EQ(b.cycles - a.cycles, 4u * (6 - 2));
}

// The run-time lookup table. Two interleaved chains with immediate sources: add %r1 and add
// %r3 alternate, so each register's next access is 2 instructions on. With W = 1 that is far:
// the analysis puts the destination to SLEEP after write-back, and comp_opt pays a 1-cycle
// wake-up per add on the %r1 chain's critical path (latency 4 + 1 per pair of adds). GREENER
// finds the next add of the same chain already decoded in the instruction buffer when the
// result is written back and keeps the register ON: exactly the baseline timing, one table
// hit per add.
TEST(GreenerTiming, LookupTableKeepsRegisterOn) {
  const std::function<std::string(uint32_t)> alt = [](uint32_t k) {
    return std::string(k % 2 ? "add.s32 %r3, %r3, 1;" : "add.s32 %r1, %r1, 1;");
  };
  const std::vector<std::string> w1 = {"greener.window=1"};
  const RunResult c10 = run("comp_opt", 10, alt, w1), c20 = run("comp_opt", 20, alt, w1);
  const RunResult g10 = run("greener", 10, alt, w1), g20 = run("greener", 20, alt, w1);
  const RunResult b10 = run("baseline", 10, alt, w1), b20 = run("baseline", 20, alt, w1);
  EXPECT_EQ(b20.cycles - b10.cycles, 5u * 4);
  EXPECT_EQ(c20.cycles - c10.cycles, 5u * (4 + 1));
  EXPECT_EQ(g20.cycles - g10.cycles, 5u * 4);
  EXPECT_EQ(g20.gr("lut_hits") - g10.gr("lut_hits"), 10u);
  EXPECT_EQ(c20.gr("lut_hits"), 0u);  // comp_opt has no table
  EXPECT_EQ(c20.trans("on_sleep") - c10.trans("on_sleep"), 10u);
  EXPECT_EQ(g20.trans("on_sleep") - g10.trans("on_sleep"), 0u);
  // With W = 3 the analysis already says ON: no lookups are needed.
  const RunResult h10 = run("greener", 10, alt), h20 = run("greener", 20, alt);
  EXPECT_EQ(h20.cycles - h10.cycles, 5u * 4);
  EXPECT_EQ(h20.gr("lut_lookups"), h10.gr("lut_lookups"));
}

// greener.trans_unit: Table 4.4's energies charged per warp-register transition (the literal
// reading) or as the SM register file's value shared over its warp registers (32768 registers
// = 1024 warp registers here). Sleep-Reg's chain makes SLEEP <-> ON changes, comp_opt's OFF <->
// ON ones (setup writes, last reads); the energy is exactly count x Table 4.4 (fJ), or that
// over 1024; timing and leakage do not change.
TEST(GreenerTiming, TransitionEnergyUnitIsExact) {
  const std::vector<std::string> regs = {"sm.registers=32768"};
  std::vector<std::string> rf = regs;
  rf.push_back("greener.trans_unit=register_file");
  for (const char* m : {"sleep_reg", "comp_opt"}) {
    const RunResult a = run(m, 10, kChain, regs);
    const RunResult b = run(m, 10, kChain, rf);
    const uint64_t n_sleep = a.trans("on_sleep") + a.trans("sleep_on");
    const uint64_t n_other =
        a.trans("on_off") + a.trans("off_on") + a.trans("sleep_off") + a.trans("off_sleep");
    if (std::string(m) == "sleep_reg")
      EXPECT_GE(n_sleep, 20u);  // %r1 and %r2 wake at every add
    else
      EXPECT_GE(n_other, 4u);  // the four setup writes wake OFF registers
    EXPECT_EQ(a.sm0["greener"]["transitions"]["total"].get<uint64_t>(), n_sleep + n_other) << m;
    EXPECT_EQ(a.gr("transition_fj"), n_sleep * 37300u + n_other * 117740u) << m;
    // 37300 / 1024 and 117740 / 1024 are exact in binary: the sum rounds once.
    EXPECT_EQ(
        b.gr("transition_fj"),
        uint64_t(std::llround((double(n_sleep) * 37300.0 + double(n_other) * 117740.0) / 1024.0)))
        << m;
    EXPECT_EQ(b.sm0["greener"]["transitions"], a.sm0["greener"]["transitions"]) << m;
    EXPECT_EQ(b.cycles, a.cycles) << m;
    EXPECT_EQ(b.gr("leakage_fj"), a.gr("leakage_fj")) << m;
    EXPECT_EQ(b.gr("energy_fj"), b.gr("leakage_fj") + b.gr("transition_fj")) << m;
  }
}

// The analysis on a decoded program (SASS-model registers): the states `simtlab ptx greener`
// prints and the timing model applies.
TEST(GreenerAnalysis, ProgramStatesOnDecodedKernel) {
  const std::function<std::string(uint32_t)> alt = [](uint32_t k) {
    return std::string(k % 2 ? "add.s32 %r3, %r3, 1;" : "add.s32 %r1, %r1, 1;");
  };
  func::GlobalMemory mem;
  func::LoadedModule lm(mem, {{kernel(4, alt), "greener_test.ptx"}});
  const func::Program* p = lm.kernel("k");
  ASSERT_NE(p, nullptr);
  const auto am = func::build_arch_map(*p, 255);
  const uint32_t body = p->funcs[0].begin + 4;  // after the four setup movs
  ASSERT_EQ(am->pc[body].ndst, 1u);
  ASSERT_EQ(am->pc[body].nsrc, 1u);  // %r1 (the immediate needs no register)
  const auto w1 = program_states(*p, *am, 1, 2, 1);
  const auto w3 = program_states(*p, *am, 3, 2, 1);
  // Next access of %r1 two instructions on: far with W = 1 (live: SLEEP), near with W = 3.
  EXPECT_EQ(w1->dst_state(body, 0), PState::sleep);
  EXPECT_EQ(w3->dst_state(body, 0), PState::on);
  EXPECT_EQ(w1->src_state(body, 0), PState::sleep);
  // The final store reads %r1 for the last time: OFF.
  const uint32_t st = p->funcs[0].end - 2;  // st.global, then ret
  ASSERT_EQ(p->code[st].in->op, ptx::Op::st);
  for (unsigned i = 0; i < am->pc[st].nsrc; ++i) EXPECT_EQ(w3->src_state(st, i), PState::off);
  const std::string text = annotate(*p, *am, 3);
  EXPECT_NE(text.find("W = 3"), std::string::npos);
  EXPECT_NE(text.find("=OFF"), std::string::npos);
}

TEST(GreenerTiming, NeedsArchitecturalRegisters) {
  try {
    testing::TimingRunner r(testing::timing_params({"greener.mode=greener"}));
    ADD_FAILURE() << "greener.mode without architectural numbering was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("sm.register_numbering=architectural"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace simtlab::ext::greener
