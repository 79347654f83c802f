// Resource sharing (src/ext/sharing, thesis ch. 2): the allocation scheme against every entry of
// the thesis's Tables 2.6 and 2.8 and Example 2.2.4, and the SM-level mechanisms (gates, locks,
// ownership, OWF) on small kernels with exact outcomes.
#include <gtest/gtest.h>

#include <vector>

#include "ext/sharing/plan.h"

namespace simtlab::timing::sharing {
namespace {

// Table 2.3 (Fermi C2050-like): 32768 registers, 8 blocks, 1536 threads (48 warps); 48 KB of
// scratchpad in the register runs, 16 KB in the scratchpad runs.
SmLimits table23(uint32_t smem) { return {32768, smem, 8, 1536, 48, 32}; }

struct Kernel {
  const char* name;
  uint32_t threads, regs, smem;
  std::vector<uint32_t> blocks;  // resident blocks at 0/10/30/50/70/90% sharing
};

const double kT[] = {1.0, 0.9, 0.7, 0.5, 0.3, 0.1};

// Table 2.1 (threads, registers per thread) and Table 2.6.
const Kernel kSet1[] = {
    {"backprop", 256, 24, 0, {5, 5, 5, 5, 6, 6}}, {"b+tree", 508, 24, 0, {2, 2, 2, 3, 3, 3}},
    {"hotspot", 256, 36, 0, {3, 3, 3, 4, 4, 6}},  {"LIB", 192, 36, 0, {4, 4, 5, 5, 6, 8}},
    {"MUM", 256, 28, 0, {4, 4, 4, 5, 5, 6}},      {"mri-q", 256, 24, 0, {5, 5, 5, 5, 6, 6}},
    {"sgemm", 128, 48, 0, {5, 5, 5, 5, 6, 8}},    {"stencil", 512, 28, 0, {2, 2, 2, 2, 2, 3}},
};
// Table 2.2 (threads, scratchpad bytes per block) and Table 2.8.
const Kernel kSet2[] = {
    {"CONV1", 64, 0, 2560, {6, 6, 6, 6, 7, 8}},  {"CONV2", 128, 0, 5184, {3, 3, 3, 3, 3, 4}},
    {"lavaMD", 128, 0, 7200, {2, 2, 2, 2, 2, 4}}, {"NW1", 16, 0, 2180, {7, 7, 7, 8, 8, 8}},
    {"NW2", 16, 0, 2180, {7, 7, 7, 8, 8, 8}},    {"SRAD1", 256, 0, 6144, {2, 2, 2, 3, 4, 4}},
    {"SRAD2", 256, 0, 5120, {3, 3, 3, 3, 3, 5}},
};

TEST(SharingPlan, Table26RegisterSharingResidentBlocks) {
  for (const Kernel& k : kSet1)
    for (size_t i = 0; i < 6; ++i) {
      const Plan p = make_plan(Resource::reg, kT[i], table23(49152), k.threads, k.regs, 0);
      EXPECT_EQ(p.M, k.blocks[i]) << k.name << " t=" << kT[i];
      EXPECT_EQ(p.enabled, k.blocks[i] > k.blocks[0]) << k.name << " t=" << kT[i];
      EXPECT_EQ(p.unshared + 2 * p.pairs, p.M);
    }
}

TEST(SharingPlan, Table28ScratchpadSharingResidentBlocks) {
  for (const Kernel& k : kSet2)
    for (size_t i = 0; i < 6; ++i) {
      const Plan p = make_plan(Resource::smem, kT[i], table23(16384), k.threads, 10, k.smem);
      EXPECT_EQ(p.M, k.blocks[i]) << k.name << " t=" << kT[i];
      EXPECT_EQ(p.enabled, k.blocks[i] > k.blocks[0]) << k.name << " t=" << kT[i];
    }
}

TEST(SharingPlan, PairsAndUnsharedBlocksUnderACap) {
  // MUM at t = 0.1: F = 4, S = 4, capped to 6 by 1536 threads: 2 pairs and 2 unshared blocks.
  const Plan mum = make_plan(Resource::reg, 0.1, table23(49152), 256, 28, 0);
  EXPECT_EQ(mum.F, 4u);
  EXPECT_EQ(mum.S, 4u);
  EXPECT_EQ(mum.baseline, 4u);
  EXPECT_EQ(mum.pairs, 2u);
  EXPECT_EQ(mum.unshared, 2u);
  EXPECT_EQ(mum.private_units, 2u);  // floor(0.1 x 28) registers per thread
  // hotspot: 36 x 256 = 9216 registers per block, 3 fit with 5120 wasted (thesis 2.1).
  const Plan hs = make_plan(Resource::reg, 0.1, table23(49152), 256, 36, 0);
  EXPECT_EQ(hs.R_tb, 9216u);
  EXPECT_EQ(hs.F, 3u);
  EXPECT_EQ(hs.pairs, 3u);
  EXPECT_EQ(hs.unshared, 0u);
  // b+tree's 508 threads are padded to 512.
  EXPECT_EQ(make_plan(Resource::reg, 0.1, table23(49152), 508, 24, 0).R_tb, 24u * 512);
}

TEST(SharingPlan, Example224NeverFewerEffectiveBlocksThanTheBaseline) {
  // R = 36, R_tb = 10, t = 0.8: a naive scheme launches 2 pairs (2 blocks progress, 3 in the
  // baseline); the formula gives S = floor(0.6 / 0.8) = 0: no sharing.
  SmLimits lim{0, 36, 16, 4096, 128, 32};
  const Plan p = make_plan(Resource::smem, 0.8, lim, 32, 0, 10);
  EXPECT_EQ(p.F, 3u);
  EXPECT_EQ(p.S, 0u);
  EXPECT_FALSE(p.enabled);
  EXPECT_EQ(p.M, 3u);
  // t = 0.5: S = floor(0.6 / 0.5) = 1, M = 4 = 2 unshared + 1 pair: 3 progress at least.
  const Plan q = make_plan(Resource::smem, 0.5, lim, 32, 0, 10);
  EXPECT_TRUE(q.enabled);
  EXPECT_EQ(q.pairs, 1u);
  EXPECT_EQ(q.unshared, 2u);
}

TEST(SharingPlan, Set3KernelsLimitedByThreadsOrBlocksNeverShare) {
  // backprop bpnn_layerforward (threads: 256 x 6 = 1536), a 32-register 512-thread kernel.
  EXPECT_FALSE(make_plan(Resource::reg, 0.1, table23(49152), 256, 12, 0).enabled);
  EXPECT_FALSE(make_plan(Resource::reg, 0.1, table23(49152), 512, 16, 0).enabled);
  // Blocks: 8 small blocks already fit.
  EXPECT_FALSE(make_plan(Resource::smem, 0.1, table23(16384), 64, 10, 1024).enabled);
}

}  // namespace
}  // namespace simtlab::timing::sharing
