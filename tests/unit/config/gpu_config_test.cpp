// The simulated GPU's configuration (timing/gpu_params.h) against bad input: every rule a
// component constructor enforces is reported when the configuration is resolved (before a
// program runs, in timing and functional mode alike), naming the key path and the rule; every
// size/count parameter has an upper bound; presets report their sources; `simtlab info` shows
// the values DRAM placeholders stand for.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "config/config.h"
#include "config/reference.h"
#include "sim/sim.h"
#include "stats/group.h"
#include "timing/gpu_params.h"
#include "timing/mem/address_map.h"
#include "timing/mem/cache.h"
#include "timing/mem/memory_system.h"

namespace simtlab::timing {
namespace {

namespace fs = std::filesystem;

const config::Schema& gpu_schema() {
  static const config::Schema s = config::schema_of<GpuParams>();
  return s;
}

config::Config resolve(const std::vector<std::string>& sets,
                       const std::string& preset = "fermi-gtx480") {
  return config::Config::resolve(gpu_schema(), {SIMTLAB_CONFIGS_DIR}, preset, sets);
}

// The message of the UserError that `fn` throws ("" if none).
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

std::string set_error(const std::vector<std::string>& sets) {
  return error_of([&] { resolve(sets); });
}

// Builds the memory system from a resolved configuration (what the timing GPU does).
void build_memory(const config::Config& cfg) {
  sim::Simulation sim;
  auto& d = sim.add_domain("x", 700.0);
  stats::Group root("gpu");
  const auto p = config::load<GpuParams>(cfg);
  MemorySystem m(p.mem, sim, MemoryDomains{d, d, d}, p.gpu.num_sms, root);
}

struct Case {
  std::vector<std::string> sets;
  std::string error;
};

TEST(GpuConfig, EveryPresetResolvesAndBuilds) {
  for (const char* preset : {"fermi-gtx480", "fermi-c2050", "tesla"}) {
    SCOPED_TRACE(preset);
    config::Config cfg = resolve({}, preset);
    EXPECT_NO_THROW(build_memory(cfg));
  }
}

// Issue #10 item 9: rules the components enforced only when the timing GPU was built (an
// uncaught UserError, exit 134) are configuration errors now.
TEST(GpuConfig, DerivedRulesAreCheckedAtResolution) {
  const std::vector<Case> cases = {
      {{"sm.l1d.size=1000"},
       "sm.l1d.size: must be a multiple of line x assoc (128 x 4 = 512), got 1000"},
      {{"sm.l1d.size=12288"},
       "sm.l1d.index: the fermi set index needs 32 or 64 sets (size 12288 / (line 128 x assoc 4) "
       "= 24 sets), got 'fermi'"},
      {{"sm.l1d.line=32", "sm.l1d.sector=64", "sm.l1d.index=linear"},
       "sm.l1d.sector: must not exceed line (32), got 64"},
      {{"sm.l1i.size=3072", "sm.l1i.index=xor"},
       "sm.l1i.index: the xor set index needs a power-of-two set count (size 3072 / (line 128 x "
       "assoc 4) = 6 sets), got 'xor'"},
      {{"mem.l2.slice.allocate=on_fill"},
       "mem.l2.slice.allocate: on_fill needs a non-sectored cache (sectored is true), got "
       "'on_fill'"},
      {{"mem.l2.slice.global_write=write_through"},
       "mem.l2.slice.perform_atomics: needs global_write=write_back (global_write is "
       "write_through), got true"},
      {{"mem.map.layout=garbage"},
       "mem.map.layout: unexpected 'g' (use R, B, C, S and '.'), got 'garbage'"},
      {{"mem.map.layout="}, "mem.map.layout: needs at least one R and one C bit, got ''"},
      {{"mem.map.layout=" + std::string(60, 'R') + "BBBBC"},
       "mem.map.layout: has 65 bits, at most 63 allowed, got '" + std::string(60, 'R') + "BBBBC'"},
      {{"mem.map.layout=RRRRBBBBBBBCCC"},
       "mem.map.layout: has 7 B bits; at most 6 (64 banks) allowed, got 'RRRRBBBBBBBCCC'"},
      {{"mem.map.channels=6", "mem.map.hash=xor"},
       "mem.map.hash: xor needs a power-of-two channel count (channels is 6), got 'xor'"},
      {{"mem.map.interleave=64"},
       "mem.map.interleave: must be at least mem.l2.slice.line (128), got 64"},
      {{"mem.dram.banks=0"}, "mem.dram.banks: must be -1 or in [1, 64], got 0"},
      {{"mem.dram.bank_groups=0"}, "mem.dram.bank_groups: must be -1 or in [1, 64], got 0"},
      {{"mem.dram.bank_groups=3"},
       "mem.dram.bank_groups: must divide banks (16, from timing set gddr5_h5gq1h24afr), got 3"},
      {{"mem.dram.data_rate=3"},
       "mem.dram.burst_length: must be a positive multiple of data_rate (3), got 8 (timing set "
       "gddr5_h5gq1h24afr)"},
      {{"mem.dram.banks=8"},
       "mem.dram.banks: must equal the 16 banks mem.map.layout encodes (4 B bits), got 8"},
      {{"mem.map.layout=RRRRRRRRRRRR.BBBCCCCC.CCSSSSSS"},
       "mem.dram.banks: must equal the 8 banks mem.map.layout encodes (3 B bits), got 16 (timing "
       "set gddr5_h5gq1h24afr)"},
      // Latency plus SIMD passes must fit the SM's writeback wheel (an assertion before).
      {{"sm.int_div.latency=5000"}, "sm.int_div.latency: must be in [1, 4000], got 5000"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sets.back());
    EXPECT_EQ(set_error(c.sets), c.error);
  }
}

TEST(GpuConfig, SeveralBrokenStructsAreReportedTogether) {
  EXPECT_EQ(set_error({"sm.l1d.size=1000", "mem.map.layout=garbage"}),
            "sm.l1d.size: must be a multiple of line x assoc (128 x 4 = 512), got 1000\n"
            "mem.map.layout: unexpected 'g' (use R, B, C, S and '.'), got 'garbage'");
}

TEST(GpuConfig, FunctionalModeRejectsTheSameConfigurations) {
  EXPECT_EQ(set_error({"sim.mode=functional", "sm.l1d.size=1000"}),
            "sm.l1d.size: must be a multiple of line x assoc (128 x 4 = 512), got 1000");
  EXPECT_EQ(set_error({"sim.mode=functional", "sim.memory_model=fixed", "mem.dram.banks=0"}),
            "mem.dram.banks: must be -1 or in [1, 64], got 0");
}

// Absurd sizes used to hang building the memory system or die in bad_alloc.
TEST(GpuConfig, SizesAndCountsHaveUpperBounds) {
  const std::vector<Case> cases = {
      {{"mem.map.channels=100000"}, "mem.map.channels: must be in [1, 512], got 100000"},
      {{"mem.map.sub_partitions=1000"}, "mem.map.sub_partitions: must be in [1, 16], got 1000"},
      {{"mem.map.interleave=1G"}, "mem.map.interleave: must be in [32, 1048576], got 1073741824"},
      {{"mem.l2.slice.size=2147483648"},
       "mem.l2.slice.size: must be in [1, 67108864], got 2147483648"},
      {{"mem.l2.slice.mshrs=100000000"}, "mem.l2.slice.mshrs: must be in [1, 4096], got 100000000"},
      {{"sm.l1d.mshr_merge=100000"}, "sm.l1d.mshr_merge: must be in [1, 256], got 100000"},
      {{"sm.l1d.miss_queue=100000"}, "sm.l1d.miss_queue: must be in [1, 4096], got 100000"},
      {{"sm.l1d.hit_latency=1000000"}, "sm.l1d.hit_latency: must be <= 100000, got 1000000"},
      {{"mem.icnt.input_buffer=1000000"},
       "mem.icnt.input_buffer: must be in [1, 65536], got 1000000"},
      {{"mem.icnt.flit_size=100000"}, "mem.icnt.flit_size: must be in [1, 4096], got 100000"},
      {{"mem.icnt.latency=1000000"}, "mem.icnt.latency: must be in [1, 100000], got 1000000"},
      {{"mem.l2.rop_queue=1000000"}, "mem.l2.rop_queue: must be in [1, 65536], got 1000000"},
      {{"mem.l2.rop_latency=1000000"}, "mem.l2.rop_latency: must be <= 100000, got 1000000"},
      {{"mem.dram.return_queue_size=100000"},
       "mem.dram.return_queue_size: must be in [1, 4096], got 100000"},
      {{"mem.dram.bus_width=100000"}, "mem.dram.bus_width: must be in [1, 1024], got 100000"},
      {{"mem.dram.tRCD=200000"}, "mem.dram.tRCD: must be -1 or in [0, 100000], got 200000"},
      {{"mem.dram.burst_length=1000"}, "mem.dram.burst_length: must be -1 or in [1, 64], got 1000"},
      {{"gpu.global_mem_bytes=2199023255552"},
       "gpu.global_mem_bytes: must be in [1048576, 1099511627776], got 2199023255552"},
      {{"sim.watchdog_cycles=0xffffffffffffffff"},
       "sim.watchdog_cycles: must be in [100, 281474976710656], got 18446744073709551615"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sets.back());
    EXPECT_EQ(set_error(c.sets), c.error);
  }
}

TEST(GpuConfig, PresetFileErrorsNameFileLineAndKey) {
  const fs::path dir = fs::path(::testing::TempDir()) / "simtlab_gpu_config_preset";
  fs::create_directories(dir);
  const std::string f = (dir / "bad.yaml").string();
  std::ofstream(f) << "inherits: fermi-gtx480\nsm:\n  l1d:\n    size: 1000\nmem:\n  dram:\n"
                      "    bank_groups: 3\n";
  EXPECT_EQ(
      error_of([&] { resolve({}, f); }),
      f + ":4: sm.l1d.size: must be a multiple of line x assoc (128 x 4 = 512), got 1000\n" + f +
          ":7: mem.dram.bank_groups: must divide banks (16, from timing set gddr5_h5gq1h24afr), "
          "got 3");
  std::ofstream(f) << "inherits: fermi-gtx480\nmem:\n  map:\n    layout: garbage\n";
  EXPECT_EQ(error_of([&] { resolve({}, f); }),
            f + ":4: mem.map.layout: unexpected 'g' (use R, B, C, S and '.'), got 'garbage'");
  std::ofstream(f) << "inherits: fermi-gtx480\nmem:\n  dram:\n    banks: 0\n";
  EXPECT_EQ(error_of([&] { resolve({}, f); }),
            f + ":4: mem.dram.banks: must be -1 or in [1, 64], got 0");
  std::ofstream(f) << "inherits: fermi-gtx480\nsm:\n  l1d:\n    size: 8K\n    size: 16K\n";
  EXPECT_EQ(error_of([&] { resolve({}, f); }),
            f + ":5: duplicate key 'sm.l1d.size' (first given at line 4)");
  fs::remove_all(dir);
}

// Configurations the rules accept are ones the components accept.
TEST(GpuConfig, UnusualButConsistentConfigurationsResolveAndBuild) {
  const std::vector<std::vector<std::string>> ok = {
      {"mem.map.layout=RRRRRRRRRRRR.BBBCCCCC.CCSSSSSS", "mem.dram.banks=8",
       "mem.dram.bank_groups=2"},
      {"mem.map.hash=xor", "mem.map.channels=4"},
      {"mem.dram.timing=gddr3_thesis"},
      {"sm.l1d.size=48K", "sm.l1d.assoc=6"},  // 64 sets: the Fermi 48 KB L1
      {"sm.l1d.size=12288", "sm.l1d.index=linear"},
      {"mem.map.interleave=128"},
      {"sm.int_div.latency=4000", "sm.simd_width=1"},
  };
  for (const auto& sets : ok) {
    SCOPED_TRACE(sets.front());
    config::Config cfg = resolve(sets);
    EXPECT_NO_THROW(build_memory(cfg));
  }
}

// The constructors keep the same rules as a defence, through the same validate() functions.
TEST(GpuConfig, ComponentsCheckTheSameRules) {
  stats::Group root("gpu");
  CacheParams c;
  c.size = 1000;
  EXPECT_EQ(error_of([&] { Cache("l1d", c, root); }),
            "gpu.l1d.size: must be a multiple of line x assoc (128 x 4 = 512)");
  AddressMapParams m;
  m.layout = "garbage";
  EXPECT_EQ(error_of([&] { AddressMap{m}; }),
            "mem.map.layout: unexpected 'g' (use R, B, C, S and '.')");
  sim::Simulation sim;
  auto& d = sim.add_domain("x", 700.0);
  MemoryParams p;
  p.dram.banks = 8;
  EXPECT_EQ(error_of([&] {
              MemorySystem(p, sim, MemoryDomains{d, d, d}, 1, root);
            }),
            "mem.dram.banks: must equal the 16 banks mem.map.layout encodes (4 B bits), got 8");
}

// Issue #10 item 17.
TEST(GpuConfig, DramOverridesHaveTheirUnitsAndInfoShowsEffectiveValues) {
  const auto& s = gpu_schema();
  EXPECT_EQ(s.find("mem.dram.banks")->unit, "banks");
  EXPECT_EQ(s.find("mem.dram.bank_groups")->unit, "groups");
  EXPECT_EQ(s.find("mem.dram.burst_length")->unit, "beats");
  EXPECT_EQ(s.find("mem.dram.data_rate")->unit, "beats/cycle");
  EXPECT_EQ(s.find("mem.dram.tRCD")->unit, "cycles");
  config::Config cfg = resolve({"mem.dram.tCL=15"}, "fermi-c2050");
  const std::string t = config::reference_text(s, &cfg);
  for (const char* line : {
           "  mem.dram.banks = 16 banks  (int32; -1 or in [1, 64]; -1: the value of timing set "
           "gddr5_h5gq1h24afr)\n",
           "  mem.dram.data_rate = 4 beats/cycle  (int32; -1 or in [1, 16]; -1: the value of "
           "timing set gddr5_h5gq1h24afr)\n",
           "  mem.dram.tRCD = 12 cycles  (int32; -1 or in [0, 100000]; -1: the value of timing "
           "set gddr5_h5gq1h24afr)\n      ACT to RD/WR, same bank; -1 keeps the timing set's "
           "value. Source: GPGPU-Sim GTX480 and TeslaC2050 configs (Hynix H5GQ1H24AFR GDDR5)\n",
           "  mem.dram.tCL = 15 cycles  (int32; -1 or in [0, 100000]; default -1; from --set)\n",
       })
    EXPECT_NE(t.find(line), std::string::npos) << line;
  EXPECT_EQ(t.find("= -1 cycles"), std::string::npos);
}

TEST(GpuConfig, C2050PresetIsGddr5WithTheThesisTimings) {
  config::Config cfg = resolve({}, "fermi-c2050");
  EXPECT_EQ(cfg.text("mem.dram.timing"), "gddr5_h5gq1h24afr");
  EXPECT_NE(cfg.origin_of("mem.dram.timing").find("fermi-c2050.yaml:"), std::string::npos);
  EXPECT_NE(cfg.source_of("mem.dram.timing").find("TeslaC2050"), std::string::npos);
  const DramTiming t = config::load<GpuParams>(cfg).mem.dram.resolve();
  // Thesis Table 2.3: tRRD=6, tWR=12, tRCD=12, tRAS=28, tRP=12, tRC=40, tCDLR=5, tCL=12.
  EXPECT_EQ(t.tRRD, 6u);
  EXPECT_EQ(t.tWR, 12u);
  EXPECT_EQ(t.tRCD, 12u);
  EXPECT_EQ(t.tRAS, 28u);
  EXPECT_EQ(t.tRP, 12u);
  EXPECT_EQ(t.tRC, 40u);
  EXPECT_EQ(t.tWTR, 5u);
  EXPECT_EQ(t.tCL, 12u);
  // GDDR5 as GPGPU-Sim's TeslaC2050 config runs it: QDR, burst 8, 4 bank groups.
  EXPECT_EQ(t.data_rate, 4u);
  EXPECT_EQ(t.burst_length, 8u);
  EXPECT_EQ(t.bank_groups, 4u);
  // The header says the same.
  std::ifstream f(std::string(SIMTLAB_CONFIGS_DIR) + "/fermi-c2050.yaml");
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::string header = text.substr(0, text.find("\nname:"));
  EXPECT_NE(header.find("DRAM: GDDR5, the Hynix H5GQ1H24AFR timing set"), std::string::npos);
  EXPECT_EQ(header.find("with GDDR3 timings"), std::string::npos);
}

}  // namespace
}  // namespace simtlab::timing
