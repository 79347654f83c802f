// Instruction addresses across launches: each loaded function keeps one code address range, so
// a relaunch of the same kernel finds its code in the I-cache (no per-kernel I-cache flush),
// and different functions occupy different, non-overlapping ranges. Fixed-latency memory, one
// SM, the real (non-perfect) I-cache.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {

namespace {

/// Two kernels in one module: `a` with `na` independent adds, `b` with `nb` (different code,
/// different length), each ending in a store of %r1.
std::string module(uint32_t na, uint32_t nb) {
  auto body = [](uint32_t n) {
    std::string s;
    for (uint32_t k = 0; k < n; ++k) s += fmt::format("  add.s32 %r{}, %r60, {};\n", 3 + k % 8, k);
    return s;
  };
  auto entry = [&](const char* name, uint32_t n) {
    return fmt::format(R"(.visible .entry {}(.param .u64 out) {{
  .reg .b32 %r<64>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, 1;
{}  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}}
)",
                       name, body(n));
  };
  return ".version 9.0\n.target sm_75\n.address_size 64\n" + entry("a", na) + entry("b", nb);
}

std::vector<std::string> sets(std::vector<std::string> more = {}) {
  std::vector<std::string> s = {"gpu.num_sms=1", "sim.fixed_memory_latency=100",
                                "sim.memory_model=fixed"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

struct LaunchStats {
  uint64_t cycles, stall_fetches, fetches;
};

LaunchStats launch(TimingRunner& r, const char* kernel, Addr out) {
  r.launch(kernel, {1, 1, 1}, {64, 1, 1}, out);
  return {r.last.cycles, r.sm0("icache_stall_fetches"), r.sm0("fetches")};
}

}  // namespace

TEST(SmICache, RelaunchOfSameKernelHitsInICache) {
  // 40 adds + 6 other instructions = 46 x 8 B = 368 B of code: three 128-byte lines, well
  // inside the 2 KB GTX480 I-cache.
  const std::string ptx = module(40, 70);
  TimingRunner r(timing_params(sets()));
  r.load(ptx);
  const Addr out = r.upload(std::vector<uint32_t>(1, 0));
  const LaunchStats first = launch(r, "a", out);
  const LaunchStats second = launch(r, "a", out);
  // The first launch misses on its cold lines; the relaunch never waits for a fetch.
  EXPECT_GT(first.stall_fetches, 0u);
  EXPECT_EQ(second.stall_fetches, 0u);
  EXPECT_EQ(second.fetches, first.fetches);
  // A relaunch with a warm I-cache takes exactly the cycles of the same launch with a perfect
  // I-cache (a hit and a perfect fetch both take l1i.hit_latency).
  TimingRunner perfect(timing_params(sets({"sm.l1i_perfect=true"})));
  perfect.load(ptx);
  const Addr pout = perfect.upload(std::vector<uint32_t>(1, 0));
  const LaunchStats ideal = launch(perfect, "a", pout);
  EXPECT_EQ(second.cycles, ideal.cycles);
  EXPECT_LT(second.cycles, first.cycles);
  // The L1D/constant/texture flush at kernel start (default on) leaves the I-cache alone: with
  // it off the relaunch is just as warm (and faster still: its parameter load then hits in
  // the constant cache).
  TimingRunner noflush(timing_params(sets({"sm.flush_l1_per_kernel=false"})));
  noflush.load(ptx);
  const Addr nout = noflush.upload(std::vector<uint32_t>(1, 0));
  const LaunchStats n1 = launch(noflush, "a", nout), n2 = launch(noflush, "a", nout);
  EXPECT_EQ(n1.cycles, first.cycles);
  EXPECT_EQ(n1.stall_fetches, first.stall_fetches);
  EXPECT_EQ(n2.stall_fetches, 0u);
  EXPECT_LT(n2.cycles, second.cycles);
}

TEST(SmICache, DistinctKernelsHaveDistinctCodeRanges) {
  const std::string ptx = module(40, 70);
  // Reference: `b` on a fresh GPU (all of its lines cold).
  TimingRunner fresh(timing_params(sets()));
  fresh.load(ptx);
  const LaunchStats b_cold = launch(fresh, "b", fresh.upload(std::vector<uint32_t>(1, 0)));
  EXPECT_GT(b_cold.stall_fetches, 0u);

  TimingRunner r(timing_params(sets()));
  r.load(ptx);
  const Addr out = r.upload(std::vector<uint32_t>(1, 0));
  const LaunchStats a1 = launch(r, "a", out);
  // `b` after `a`: none of its lines were fetched by `a` (non-overlapping ranges), so it runs
  // exactly as cold as on a fresh GPU.
  const LaunchStats b1 = launch(r, "b", out);
  EXPECT_EQ(b1.cycles, b_cold.cycles);
  EXPECT_EQ(b1.stall_fetches, b_cold.stall_fetches);
  // Both fit in the 2 KB I-cache together (368 B + 608 B): each relaunch is warm.
  const LaunchStats a2 = launch(r, "a", out);
  const LaunchStats b2 = launch(r, "b", out);
  EXPECT_EQ(a2.stall_fetches, 0u);
  EXPECT_EQ(b2.stall_fetches, 0u);
  EXPECT_LT(a2.cycles, a1.cycles);
  EXPECT_LT(b2.cycles, b1.cycles);
}

}  // namespace simtlab::testing
