// The occupancy calculator (timing::cta_needs / ctas_per_sm) under the resource-management
// thesis's Table 2.3 configuration (the fermi-c2050 preset) reproduces the baseline resident
// thread blocks per SM the thesis reports for every Set-1 and Set-2 kernel, from the profiles
// the thesis lists (Tables 2.1 and 2.2; resident blocks at 0% sharing in Tables 2.6 and 2.8).
// The workloads' own cubins are checked against the same numbers by `simtlab suite profile`.
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace simtlab::timing
