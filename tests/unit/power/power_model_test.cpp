// The power/area model (src/power): exact area and critical-path values of the analytical
// formulas on a small mock configuration, technology scaling, linearity of energy in repeated
// work and of leakage energy in idle time, coefficient-file checks, and the seed-004 calibration
// of the tesla preset (area and power within 10% of Table 5.2, Table 5.3's direction at every SP
// doubling, 32 SPs optimal, the clock limit).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/error.h"
#include "config/config.h"
#include "power/model.h"
#include "timing/gpu/power_arch.h"
#include "timing/gpu_params.h"

namespace simtlab::power {
namespace {

// Round numbers: every area below is computed by hand from the formulas of model.cpp.
const char* kMock = R"(
name: mock
node_nm: 65
vdd: 1.1
storage: flops
coefficients:
  a_bit_ff: {value: 1, source: test}
  a_bit_sram: {value: 0.25, source: test}
  a_fixed: {value: 100, source: test}
  a_lane: {value: 10, source: test}
  lane_split_mad: {value: 0.5, source: test}
  lane_split_rf: {value: 0.25, source: test}
  lane_split_smem: {value: 0.25, source: test}
  a_pair_bit: {value: 1, source: test}
  t_mad_ns: {value: 1.0, source: test}
  t_level_ps: {value: 100, source: test}
  t_levels_fixed: {value: 2, source: test}
  e_int_add: {value: 1, unit: pJ, source: test}
  e_int_mul: {value: 2, unit: pJ, source: test}
  e_fp_add: {value: 3, unit: pJ, source: test}
  e_fp_mul: {value: 4, unit: pJ, source: test}
  e_sram_32k: {value: 8, unit: pJ, source: test}
  e_dram_32b: {value: 100, unit: pJ, source: test}
  int_div_muls: {value: 8, source: test}
  sfu_fp_muls: {value: 4, source: test}
  fp64_factor: {value: 4, source: test}
  tensor_fmas: {value: 16, source: test}
  e_decode_adds: {value: 4, source: test}
  e_sched_adds: {value: 2, source: test}
  e_wire_bit_mm: {value: 0, unit: pJ/bit/mm, source: test}
  icnt_mm: {value: 1, source: test}
  e_dram_act: {value: 1000, unit: pJ, source: test}
  e_dram_ref: {value: 10000, unit: pJ, source: test}
  tag_bits: {value: 32, source: test}
  e_clk_bit: {value: 1, unit: fJ/bit/cycle, source: test}
  e_logic_um2: {value: 0.001, unit: pJ/um2/cycle, source: test}
  idle_clock_fraction: {value: 0.5, source: test}
  leak_mm2: {value: 1, unit: W/mm2, source: test}
  d2ma_area_um2: {value: 500, unit: um2, source: test}
  d2ma_power_mw: {value: 2, unit: mW, source: test}
)";

Arch mock_arch() {
  Arch a;
  a.num_sms = 2;
  a.lanes = 4;
  a.warp_width = 4;
  a.num_warps = 2;
  a.rf_partitions = 4;
  a.registers = 64;
  a.shared_words = 16;
  a.smem_banks = 4;
  a.addr_bits = 4;
  a.imem_words = 16;
  a.cmem_words = 8;
  a.core_mhz = 100;
  return a;
}

double area_of(const Model& m, const std::string& name) {
  for (const auto& c : m.components())
    if (c.name == name) return c.area_um2;
  ADD_FAILURE() << "no component " << name;
  return 0;
}

TEST(PowerModel, AreaFormulasExact) {
  const Model m(parse_coefficients(kMock, "mock"), mock_arch());
  EXPECT_DOUBLE_EQ(area_of(m, "fixed"), 100);
  // Warp state: PC = log2(16) = 4 bits, base register address = log2(64 / 4) = 4 bits;
  // 2 warps x (PC + mask 4 + base + 3 state) + 2 warps x 4 entries x (2 PC + 4 + 1) = 30 + 104.
  EXPECT_DOUBLE_EQ(area_of(m, "warp_state"), 134);
  EXPECT_DOUBLE_EQ(area_of(m, "icache"), 16 * 32);
  EXPECT_DOUBLE_EQ(area_of(m, "ccache"), 8 * 32);
  EXPECT_DOUBLE_EQ(area_of(m, "regfile"), 64 * 32 + 4 * 10 * 0.25);  // bits + partitions
  EXPECT_DOUBLE_EQ(area_of(m, "alu"), 4 * 10 * 0.5);                 // MAD per lane
  EXPECT_DOUBLE_EQ(area_of(m, "smem"), 16 * 32 + 4 * 10 * 0.25);     // bits + banks
  EXPECT_DOUBLE_EQ(area_of(m, "conflict"), 4 * 3 / 2 * 4);           // pairs x addr bits
  EXPECT_DOUBLE_EQ(area_of(m, "xbar"), 4 * 4 * (64 + 4));            // lanes x banks x bits
  const double sm = 100 + 134 + 512 + 256 + 2058 + 20 + 522 + 24 + 1088;
  EXPECT_DOUBLE_EQ(m.sm_area_mm2(), sm * 1e-6);
  EXPECT_DOUBLE_EQ(m.chip_area_mm2(), 2 * sm * 1e-6);
  EXPECT_DOUBLE_EQ(m.leakage_w(), 2 * sm * 1e-6);  // 1 W/mm^2
}

TEST(PowerModel, SramStorageAndQuadraticTerm) {
  CoefSet s = parse_coefficients(kMock, "mock");
  s.storage = "sram";
  Arch a = mock_arch();
  const Model m(s, a);
  EXPECT_DOUBLE_EQ(area_of(m, "regfile"), 64 * 32 * 0.25 + 10);
  // Doubling lanes (and banks): comparators 4*3/2 -> 8*7/2 pairs, crossbar 4x4 -> 8x8.
  a.lanes = a.smem_banks = a.rf_partitions = 8;
  const Model m2(parse_coefficients(kMock, "mock"), a);
  EXPECT_DOUBLE_EQ(area_of(m2, "conflict"), 8 * 7 / 2 * 4);
  EXPECT_DOUBLE_EQ(area_of(m2, "xbar"), 8 * 8 * 68);
}

TEST(PowerModel, D2maEngineIsAnAddOnWithItsPublishedPower) {
  Arch a = mock_arch();
  a.d2ma_engine = true;
  const Model m(parse_coefficients(kMock, "mock"), a);
  const Model base(parse_coefficients(kMock, "mock"), mock_arch());
  EXPECT_DOUBLE_EQ(area_of(m, "d2ma"), 500);
  EXPECT_NEAR(m.sm_area_mm2() - base.sm_area_mm2(), 500e-6, 1e-15);
  EXPECT_DOUBLE_EQ(m.leakage_w(), base.leakage_w());  // its 2 mW already include leakage
  Activity x;
  x.cycles = 1000;
  x.sm_active_cycles = 2000;  // both SMs busy: 2 mW each for 10 us
  const auto e = m.evaluate(x);
  EXPECT_NEAR(e["energy_j"]["dynamic"]["d2ma"].get<double>(), 2 * 2e-3 * 1e-5, 1e-18);
}

TEST(PowerModel, TechnologyScaling) {
  const Model m65(parse_coefficients(kMock, "mock"), mock_arch());
  const Model m32(parse_coefficients(kMock, "mock"), mock_arch(), 32);
  EXPECT_EQ(m32.node_nm(), 32u);
  EXPECT_DOUBLE_EQ(m32.vdd(), 0.9);  // technology.yaml nominal at 32 nm
  const double L = 32.0 / 65.0, V = 0.9 / 1.1;
  EXPECT_NEAR(m32.sm_area_mm2(), m65.sm_area_mm2() * L * L, 1e-15);
  EXPECT_NEAR(m32.coef("e_int_add"), 1e-12 * L * V * V, 1e-24);
  EXPECT_NEAR(m32.coef("t_mad_ns"), 1.0 * L / V, 1e-12);
  EXPECT_NEAR(m32.coef("leak_mm2"), 1.0 * V * 1.8, 1e-12);  // leak(32)/leak(65) = 1.8
  EXPECT_DOUBLE_EQ(m32.coef("e_dram_32b"), 100e-12);        // off chip: not scaled
}

TEST(PowerModel, CriticalPathLevels) {
  Arch a = mock_arch();
  a.core_mhz = 500;
  const Model m(parse_coefficients(kMock, "mock"), a);
  const auto p = m.critical_path();
  // Detect: 1 + log2(4 addr bits) + 2 log2(4 lanes) = 7 levels; smem: log2(4 banks) +
  // log2(16/4 words) + 2 fixed = 6 levels; 100 ps each -> 1.3 ns > MAD 1.0 ns.
  EXPECT_DOUBLE_EQ(p.t_detect_ns, 0.7);
  EXPECT_DOUBLE_EQ(p.t_smem_ns, 0.6);
  EXPECT_EQ(p.limiter, "detect+smem");
  EXPECT_NEAR(p.f_max_mhz, 1000 / 1.3, 1e-9);
  EXPECT_TRUE(p.closes);
  a.core_mhz = 770;
  EXPECT_FALSE(Model(parse_coefficients(kMock, "mock"), a).critical_path().closes);
}

Activity work() {
  Activity x;
  x.cycles = 1000;
  x.sm_active_cycles = 1500;
  x.sm_idle_cycles = 500;
  x.lane_ops = {{"int_alu", 300}, {"int_mul", 100}, {"fp32", 50}, {"sfu", 7}};
  x.rf_reads = 900;
  x.rf_writes = 400;
  x.warp_insts = 120;
  x.fetches = 60;
  x.sched_slots = 2000;
  x.smem_passes = 30;
  x.l1c_accesses = 11;
  return x;
}

Activity twice(Activity x) {
  x.cycles *= 2;
  x.sm_active_cycles *= 2;
  x.sm_idle_cycles *= 2;
  for (auto& [k, v] : x.lane_ops) v *= 2;
  x.rf_reads *= 2;
  x.rf_writes *= 2;
  x.warp_insts *= 2;
  x.fetches *= 2;
  x.sched_slots *= 2;
  x.smem_passes *= 2;
  x.l1c_accesses *= 2;
  return x;
}

TEST(PowerModel, EnergyLinearInRepeatedWork) {
  const Model m(parse_coefficients(kMock, "mock"), mock_arch());
  const auto e1 = m.evaluate(work()), e2 = m.evaluate(twice(work()));
  for (const char* part : {"dynamic", "static"})
    for (auto& [c, v] : e1["energy_j"][part].items())
      EXPECT_NEAR(e2["energy_j"][part][c].get<double>(), 2 * v.get<double>(),
                  1e-12 * std::abs(v.get<double>()))
          << part << " " << c;
  // Same average power for the same work rate.
  EXPECT_NEAR(e2["power_w"]["sum"].get<double>(), e1["power_w"]["sum"].get<double>(), 1e-9);
  // The ALU's action energy by hand: 300 adds x 1 + 100 muls x 2 + 50 FMAs x (3 + 4) +
  // 7 SFU ops x 4 muls x 4 pJ, plus its always-on logic (20 um^2 x 0.001 pJ) over
  // 1500 + 0.5 x 500 SM-cycles.
  EXPECT_NEAR(e1["energy_j"]["dynamic"]["alu"].get<double>(),
              (300 + 200 + 350 + 112) * 1e-12 + 20 * 0.001e-12 * 1750, 1e-20);
}

TEST(PowerModel, LeakageLinearInIdleTime) {
  const Model m(parse_coefficients(kMock, "mock"), mock_arch());
  for (double cycles : {1000.0, 2000.0, 4000.0}) {
    Activity idle;
    idle.cycles = cycles;
    idle.sm_idle_cycles = cycles * 2;  // 2 SMs, no work
    const auto e = m.evaluate(idle);
    const double seconds = cycles / 100e6;
    EXPECT_NEAR(e["energy_j"]["static"]["sum"].get<double>(), m.leakage_w() * seconds, 1e-18);
    // Dynamic energy of an idle GPU: clock only, idle_clock_fraction of every SM-cycle.
    double per_sm_cycle = 0;
    for (const auto& c : m.components())
      per_sm_cycle += 1e-15 * c.ff_bits + 0.001e-12 * c.logic_um2;
    EXPECT_NEAR(e["energy_j"]["dynamic"]["sum"].get<double>(), 0.5 * cycles * 2 * per_sm_cycle,
                1e-18);
  }
}

TEST(PowerModel, RunMergesKernelsAndChargesLeakageOverRunTime) {
  const Model m(parse_coefficients(kMock, "mock"), mock_arch());
  const auto k = m.evaluate(work());
  nlohmann::json run;
  merge_kernel(run, k);
  merge_kernel(run, k);
  finish_run(run, 3 * 1000 / 100e6);  // the run lasted three kernels' time
  EXPECT_NEAR(run["energy_j"]["dynamic"]["sum"].get<double>(),
              2 * k["energy_j"]["dynamic"]["sum"].get<double>(), 1e-18);
  EXPECT_NEAR(run["power_w"]["dynamic"]["sum"].get<double>() * 3e-5,
              2 * k["energy_j"]["dynamic"]["sum"].get<double>(), 1e-18);
  EXPECT_NEAR(run["energy_j"]["static"]["sum"].get<double>(), m.leakage_w() * 3e-5, 1e-18);
}

TEST(PowerCoefficients, EveryNumberNeedsASource) {
  EXPECT_THROW(parse_coefficients("coefficients:\n  a: {value: 1}\n", "x"), UserError);
  EXPECT_THROW(parse_coefficients("coefficients:\n  a: {value: z, source: s}\n", "x"), UserError);
  EXPECT_THROW(load_coefficients("no-such-set"), UserError);
  const CoefSet s = parse_coefficients(kMock, "mock");
  Model m(s, mock_arch());
  EXPECT_THROW(m.coef("nope"), UserError);
  for (const auto& name : builtin_coefficient_sets()) {
    const CoefSet b = load_coefficients(name);
    for (const auto& [k, c] : b.c) EXPECT_FALSE(c.source.empty()) << name << " " << k;
    // Every coefficient the model reads is present: a peak evaluation reads them all.
    Arch a = mock_arch();
    a.memory_hierarchy = true;
    a.l1d_bytes = a.l1t_bytes = 1024;
    a.l2_bytes = 4096;
    a.l2_slices = 2;
    EXPECT_NO_THROW(Model(b, a).evaluate(Model(b, a).peak_activity(100))) << name;
  }
}

// ---- the seed-004 calibration on the tesla preset -----------------------------------------

timing::GpuParams tesla(const std::vector<std::string>& sets = {}) {
  static const config::Schema schema = config::schema_of<timing::GpuParams>();
  return config::load<timing::GpuParams>(
      config::Config::resolve(schema, {SIMTLAB_CONFIGS_DIR}, "tesla", sets));
}

TEST(PowerTesla, AreaAndPeakPowerWithinTenPercentOfTable52) {
  const Model m = timing::power_model(tesla());
  EXPECT_EQ(m.node_nm(), 65u);
  EXPECT_NEAR(m.chip_area_mm2(), 25.41, 0.10 * 25.41);
  const auto peak = m.evaluate(m.peak_activity(300e6));  // one second
  EXPECT_NEAR(peak["power_w"]["sum"].get<double>(), 11.55, 0.10 * 11.55);
  const auto p = m.critical_path();
  EXPECT_EQ(p.limiter, "mad");
  EXPECT_TRUE(p.closes);  // 300 MHz
  EXPECT_NEAR(p.f_max_mhz, 700, 1);
  EXPECT_FALSE(timing::power_model(tesla({"gpu.core_mhz=710"})).critical_path().closes);
}

TEST(PowerTesla, SpScalingFollowsTable53) {
  struct Point {
    double n, area, watts;
  };
  std::vector<Point> pts;
  for (uint32_t n : {4u, 8u, 16u, 32u, 64u}) {
    const Model m =
        timing::power_model(tesla({"power.lanes=" + std::to_string(n),
                                   "power.warp_width=" + std::to_string(n == 64 ? 64 : 32)}));
    pts.push_back({double(n), m.sm_area_mm2(),
                   m.evaluate(m.peak_activity(300e6))["power_w"]["sum"].get<double>() / 16});
    EXPECT_EQ(m.critical_path().limiter, n == 64 ? "detect+smem" : "mad") << n;
  }
  // SPs per mm^2 rise at every doubling up to 32 and fall at 64 (seed: +83/+81/+32/-5%);
  // watts per SP fall at every doubling (seed: -49/-47/-32/-8%).
  const std::vector<double> seed_dens = {0.83, 0.81, 0.32, -0.05},
                            seed_w = {0.49, 0.47, 0.32, 0.08};
  for (size_t i = 1; i < pts.size(); ++i) {
    const double dens = (pts[i].n / pts[i].area) / (pts[i - 1].n / pts[i - 1].area) - 1;
    const double red = 1 - (pts[i].watts / pts[i].n) / (pts[i - 1].watts / pts[i - 1].n);
    EXPECT_EQ(dens > 0, seed_dens[i - 1] > 0) << pts[i].n;
    EXPECT_NEAR(dens, seed_dens[i - 1], 0.10) << pts[i].n;
    EXPECT_GT(red, 0) << pts[i].n;
    EXPECT_NEAR(red, seed_w[i - 1], 0.05) << pts[i].n;
  }
  EXPECT_GT(pts[4].area / pts[3].area, 2.0);  // more than doubles from 32 to 64
  size_t best = 0;
  for (size_t i = 0; i < pts.size(); ++i)
    if (pts[i].n / pts[i].area > pts[best].n / pts[best].area) best = i;
  EXPECT_EQ(pts[best].n, 32);
}

}  // namespace
}  // namespace simtlab::power
