// The occupancy calculator (timing::cta_needs / ctas_per_sm) under the resource-management
// thesis's Table 2.3 configuration (the fermi-c2050 preset) reproduces the baseline resident
// thread blocks per SM the thesis reports for every Set-1 and Set-2 kernel, from the profiles
// the thesis lists (Tables 2.1 and 2.2; resident blocks at 0% sharing in Tables 2.6 and 2.8).
// The workloads' own cubins are checked against the same numbers by `simtlab suite profile`.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.h"
#include "config/config.h"
#include "timing/gpu/gpu.h"
#include "timing/gpu_params.h"

namespace simtlab::timing {
namespace {

GpuParams c2050(const std::vector<std::string>& sets = {}) {
  const config::Config cfg = config::Config::resolve(config::schema_of<GpuParams>(),
                                                     {SIMTLAB_CONFIGS_DIR}, "fermi-c2050", sets);
  return config::load<GpuParams>(cfg);
}

struct Case {
  const char* kernel;
  uint32_t threads, regs, shared, ctas;
};

TEST(Occupancy, ThesisSet1RegisterLimitedBaseline) {
  // Table 2.1 (threads per block, registers per thread) -> Table 2.6 at 0%: resident blocks.
  const GpuParams p = c2050();
  ASSERT_EQ(p.sm.registers, 32768u);
  for (const Case& c : std::vector<Case>{{"backprop", 256, 24, 0, 5},
                                         {"b+tree", 508, 24, 0, 2},
                                         {"hotspot", 256, 36, 0, 3},
                                         {"LIB", 192, 36, 0, 4},
                                         {"MUM", 256, 28, 0, 4},
                                         {"mri-q", 256, 24, 0, 5},
                                         {"sgemm", 128, 48, 0, 5},
                                         {"stencil", 512, 28, 0, 2}}) {
    SCOPED_TRACE(c.kernel);
    const CtaNeeds n = cta_needs(p.sm, Dim3{c.threads, 1, 1}, c.regs, c.shared);
    EXPECT_EQ(ctas_per_sm(p.sm, n), c.ctas);
    // Registers are the limit: with twice the registers, more blocks fit.
    GpuParams more = p;
    more.sm.registers *= 2;
    EXPECT_GT(ctas_per_sm(more.sm, n), c.ctas);
  }
}

TEST(Occupancy, ThesisSet2ScratchpadLimitedBaseline) {
  // Table 2.2 (threads, scratchpad bytes per block) with 16 KB -> Table 2.8 at 0%.
  const GpuParams p = c2050({"sm.shared_bytes=16K"});
  for (const Case& c : std::vector<Case>{{"CONV1", 64, 16, 2560, 6},
                                         {"CONV2", 128, 16, 5184, 3},
                                         {"lavaMD", 128, 16, 7200, 2},
                                         {"NW1", 16, 16, 2180, 7},
                                         {"NW2", 16, 16, 2180, 7},
                                         {"SRAD1", 256, 16, 6144, 2},
                                         {"SRAD2", 256, 16, 5120, 3}}) {
    SCOPED_TRACE(c.kernel);
    const CtaNeeds n = cta_needs(p.sm, Dim3{c.threads, 1, 1}, c.regs, c.shared);
    EXPECT_EQ(ctas_per_sm(p.sm, n), c.ctas);
    GpuParams more = p;
    more.sm.shared_bytes *= 2;  // scratchpad is the limit
    EXPECT_GT(ctas_per_sm(more.sm, n), c.ctas);
  }
}

TEST(Occupancy, WholeWarpsAndAllocationUnits) {
  const GpuParams p = c2050();
  // 508 threads occupy 16 whole warps: 3 blocks by threads (1536 / 512), registers per warp
  // rounded up to 64: 24 regs x 32 = 768 per warp, 12288 per block -> 2 blocks.
  const CtaNeeds n = cta_needs(p.sm, Dim3{508, 1, 1}, 24, 0);
  EXPECT_EQ(n.warps, 16u);
  EXPECT_EQ(n.threads, 512u);
  EXPECT_EQ(n.regs, 12288u);
  // 2180 B of scratchpad is allocated as 2304 (128-B units).
  EXPECT_EQ(cta_needs(p.sm, Dim3{16, 1, 1}, 16, 2180).shared, 2304u);
  // 21 regs x 32 = 672 -> 704 per warp.
  EXPECT_EQ(cta_needs(p.sm, Dim3{32, 1, 1}, 21, 0).regs, 704u);
}

GpuParams preset(const char* name, const std::vector<std::string>& sets = {}) {
  const config::Config cfg =
      config::Config::resolve(config::schema_of<GpuParams>(), {SIMTLAB_CONFIGS_DIR}, name, sets);
  return config::load<GpuParams>(cfg);
}

// The driver's carve-out (choose_carveout, CUDA C Programming Guide cc 7.0: 0, 8, 16, 32, 64
// or 96 KB on V100). Without a preference the smallest capacity that keeps the occupancy the
// largest gives; with one, the hint rounded up, raised to fit one CTA.
TEST(Occupancy, VoltaCarveoutPerKernel) {
  const GpuParams p = preset("volta-v100");
  ASSERT_TRUE(p.sm.l1_shared_unified);
  auto pick = [&](uint32_t threads, uint32_t regs, uint32_t shared, int pref) {
    return choose_carveout(p.sm, cta_needs(p.sm, Dim3{threads, 1, 1}, regs, shared), pref);
  };
  constexpr uint32_t K = 1024;
  // No shared memory: all 128 KB to the L1.
  EXPECT_EQ(pick(256, 32, 0, -1), 0u);
  // 4 KB per CTA, 8 CTAs by registers/threads: 32 KB keeps all 8.
  EXPECT_EQ(pick(256, 32, 4 * K, -1), 32 * K);
  // 10 KB per CTA: 8 CTAs need 80 KB -> 96 KB (64 KB would hold only 6).
  EXPECT_EQ(pick(256, 32, 10 * K, -1), 96 * K);
  // 40 KB per CTA: the largest gives 2, 64 KB gives 1 -> 96 KB.
  EXPECT_EQ(pick(256, 32, 40 * K, -1), 96 * K);
  // 20 KB per CTA of 1024 threads x 64 registers: registers allow 1 CTA -> 32 KB suffices.
  EXPECT_EQ(pick(1024, 64, 20 * K, -1), 32 * K);
  // Preferences (percent of 96 KB): 50% -> 48 KB -> 64 KB; 0% -> 0 KB for a kernel without
  // shared memory, raised to 64 KB for one with 40 KB; 100% -> 96 KB.
  EXPECT_EQ(pick(256, 32, 4 * K, 50), 64 * K);
  EXPECT_EQ(pick(256, 32, 0, 0), 0u);
  EXPECT_EQ(pick(256, 32, 40 * K, 0), 64 * K);
  EXPECT_EQ(pick(256, 32, 4 * K, 100), 96 * K);
  // Occupancy at the chosen carve-out.
  const CtaNeeds n = cta_needs(p.sm, Dim3{256, 1, 1}, 32, 10 * K);
  EXPECT_EQ(ctas_per_sm(p.sm, n, 64 * K), 6u);
  EXPECT_EQ(ctas_per_sm(p.sm, n), 8u);
}

// The default GPU (turing-t4) runs what nvcc 13 builds for sm_75: 1024 threads x 64 registers,
// 64 KB of shared memory in one CTA; the Fermi GTX480 cannot hold either.
TEST(Occupancy, TuringT4HoldsSm75SizedBlocks) {
  const GpuParams t4 = preset("turing-t4");
  EXPECT_EQ(t4.gpu.cc_major * 10 + t4.gpu.cc_minor, 75u);
  EXPECT_EQ(ctas_per_sm(t4.sm, cta_needs(t4.sm, Dim3{1024, 1, 1}, 64, 0)), 1u);
  EXPECT_EQ(ctas_per_sm(t4.sm, cta_needs(t4.sm, Dim3{256, 1, 1}, 32, 64 * 1024)), 1u);
  EXPECT_EQ(choose_carveout(t4.sm, cta_needs(t4.sm, Dim3{256, 1, 1}, 32, 16 * 1024), -1),
            64u * 1024);  // 4 CTAs x 16 KB need the 64 KB carve-out
  EXPECT_EQ(choose_carveout(t4.sm, cta_needs(t4.sm, Dim3{256, 1, 1}, 32, 0), -1), 32u * 1024);
  const GpuParams fermi = preset("fermi-gtx480");
  EXPECT_EQ(ctas_per_sm(fermi.sm, cta_needs(fermi.sm, Dim3{1024, 1, 1}, 44, 0)), 0u);
}

// A carve-out list that does not leave the L1 whole ways is rejected, naming the key.
TEST(Occupancy, CarveoutsMustLeaveWholeWays) {
  try {
    preset("volta-v100", {"sm.shared_carveouts=0,8,17,96"});
    FAIL() << "accepted a 17 KB carve-out";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("sm.shared_carveouts"), std::string::npos) << e.what();
  }
  try {
    preset("volta-v100", {"sm.shared_bytes=65536"});
    FAIL() << "accepted shared_bytes below the largest carve-out";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("sm.shared_bytes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simtlab::timing
