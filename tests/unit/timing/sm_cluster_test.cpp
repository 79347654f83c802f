// Thread-block clusters in the timing model: clusters placed on SMs of one GPC (gpu.gpcs), a
// cluster too large for any GPC refused, distributed shared memory latency (sm.dsmem_latency)
// per dependent remote load, the 32-byte segments a warp's remote accesses send, the cluster
// barrier waking warps on other SMs, and the sm[i].cluster stats group that only exists when
// a kernel uses clusters.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "base/error.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

const char* kPtx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry where(.param .u64 out, .param .u32 n) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %smid;
  mov.u32 %r2, %ctaid.x;
  mul.wide.u32 %rd1, %r2, 4;
  ld.param.u64 %rd2, [out];
  add.u64 %rd3, %rd2, %rd1;
  st.global.u32 [%rd3], %r1;
  ret;
}
// Every thread loads `n` times from the shared memory of the next rank, each load's address
// depending on the previous value (the words are zero); `stride` bytes between lanes. The
// cluster synchronises before and after.
.visible .entry chain(.param .u64 out, .param .u32 n, .param .u32 stride) {
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .shared .align 4 .b8 words[4096];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  add.u32 %r4, %r2, 1;
  rem.u32 %r4, %r4, %r3;
  ld.param.u32 %r13, [stride];
  mov.u32 %r5, words;
  mad.lo.u32 %r6, %r1, %r13, %r5;
  mapa.shared::cluster.u32 %r8, %r6, %r4;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ld.param.u32 %r9, [n];
  mov.u32 %r10, 0;
  mov.u32 %r12, 0;
LOOP:
  setp.ge.u32 %p1, %r10, %r9;
  @%p1 bra DONE;
  add.u32 %r11, %r8, %r12;
  ld.shared::cluster.u32 %r12, [%r11];
  add.u32 %r10, %r10, 1;
  bra LOOP;
DONE:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

std::vector<std::string> sets(std::vector<std::string> more) {
  std::vector<std::string> s = {"gpu.cc_major=9", "gpu.cc_minor=0", "sm.l1i_perfect=true",
                                "sim.fixed_memory_latency=100", "sim.memory_model=fixed"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

struct ClusterRun {
  std::unique_ptr<TimingRunner> r;
  std::vector<uint32_t> out;
};

ClusterRun run(const std::vector<std::string>& s, const std::string& kernel, Dim3 grid,
               Dim3 cluster, uint32_t n = 0, uint32_t stride = 4) {
  ClusterRun x;
  x.r = std::make_unique<TimingRunner>(timing_params(s));
  x.r->load(kPtx);
  x.r->options.cluster = cluster;
  const Addr out = x.r->upload(std::vector<uint32_t>(grid.count(), 0xdead));
  if (kernel == "where")
    x.r->launch(kernel, grid, Dim3{32, 1, 1}, out, n);
  else
    x.r->launch(kernel, grid, Dim3{32, 1, 1}, out, n, stride);
  x.out = x.r->download<uint32_t>(out, grid.count());
  return x;
}

TEST(SmCluster, ClustersArePlacedOnSmsOfOneGpc) {
  // 8 SMs in 2 GPCs of 4: cluster 0 (CTAs 0..3) fills GPC 0 in rank order, cluster 1 GPC 1.
  const ClusterRun x =
      run(sets({"gpu.num_sms=8", "gpu.gpcs=2"}), "where", Dim3{8, 1, 1}, Dim3{4, 1, 1});
  EXPECT_EQ(x.out, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // GPCs of 3 and 2 SMs (5 SMs, 2 GPCs): clusters of 2 go to SMs {0,1} and {3,4}, then the
  // SMs left in GPC 0 ({2} alone) cannot take a cluster in that cycle.
  const ClusterRun y =
      run(sets({"gpu.num_sms=5", "gpu.gpcs=2"}), "where", Dim3{4, 1, 1}, Dim3{2, 1, 1});
  EXPECT_EQ(y.out, (std::vector<uint32_t>{0, 1, 3, 4}));
}

TEST(SmCluster, AClusterLargerThanEveryGpcIsRefused) {
  try {
    run(sets({"gpu.num_sms=8", "gpu.gpcs=4"}), "where", Dim3{4, 1, 1}, Dim3{4, 1, 1});
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("thread-block clusters of 4 CTAs need 4 SMs of one GPC, "
                                         "and the smallest of the 4 GPCs (gpu.gpcs) has 2 SMs"),
              std::string::npos)
        << e.what();
  }
}

TEST(SmCluster, EachDependentRemoteLoadCostsTheDsmemLatency) {
  for (uint32_t lat : {100u, 250u}) {
    const auto s = sets({"gpu.num_sms=2", fmt::format("sm.dsmem_latency={}", lat)});
    const uint64_t c4 = run(s, "chain", Dim3{2, 1, 1}, Dim3{2, 1, 1}, 4).r->last.cycles;
    const uint64_t c12 = run(s, "chain", Dim3{2, 1, 1}, Dim3{2, 1, 1}, 12).r->last.cycles;
    const uint64_t per = (c12 - c4) / 8;
    // The loop's other instructions (add, setp, bra, add) take the same cycles at any latency.
    EXPECT_EQ((c12 - c4) % 8, 0u) << "latency " << lat;
    EXPECT_GE(per, lat) << "latency " << lat;
    EXPECT_LT(per, lat + 40) << "latency " << lat;
  }
  const auto a = sets({"gpu.num_sms=2", "sm.dsmem_latency=100"});
  const auto b = sets({"gpu.num_sms=2", "sm.dsmem_latency=250"});
  const uint64_t d = run(b, "chain", Dim3{2, 1, 1}, Dim3{2, 1, 1}, 10).r->last.cycles -
                     run(a, "chain", Dim3{2, 1, 1}, Dim3{2, 1, 1}, 10).r->last.cycles;
  EXPECT_EQ(d, 10u * 150u);  // exactly the latency difference per dependent load
}

TEST(SmCluster, RemoteSegmentsAndStatsGroup) {
  // 32 lanes x 4-byte stride = 4 segments of 32 bytes; x 32-byte stride = 32 segments.
  const auto s = sets({"gpu.num_sms=2"});
  ClusterRun a = run(s, "chain", Dim3{2, 1, 1}, Dim3{2, 1, 1}, 3, 4);
  const auto& g = a.r->stats["sm[0]"]["cluster"];
  EXPECT_EQ(g["dsmem_insts"]["value"].get<uint64_t>(), 3u);
  EXPECT_EQ(g["dsmem_segments"]["value"].get<uint64_t>(), 3u * 4u);
  ClusterRun b = run(s, "chain", Dim3{2, 1, 1}, Dim3{2, 1, 1}, 3, 32);
  EXPECT_EQ(b.r->stats["sm[1]"]["cluster"]["dsmem_segments"]["value"].get<uint64_t>(), 3u * 32u);
  // 32 segments leave one per cycle: 28 cycles more per load than 4 segments.
  EXPECT_EQ(b.r->last.cycles - a.r->last.cycles, 3u * 28u);
  // No clusters: no group.
  ClusterRun c = run(s, "where", Dim3{2, 1, 1}, Dim3{0, 0, 0});
  EXPECT_FALSE(c.r->stats["sm[0]"].contains("cluster"));
}

TEST(SmCluster, ClusterBarrierReleasesWarpsOnOtherSms) {
  // Ranks on different SMs meet at barrier.cluster twice; the kernel finishes (the releasing
  // SM wakes the other, whose warps all slept at the barrier), with the remote data read.
  const ClusterRun x = run(sets({"gpu.num_sms=4"}), "chain", Dim3{4, 1, 1}, Dim3{4, 1, 1}, 2);
  EXPECT_EQ(x.r->last.ctas, 4u);
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(
        x.r->stats[fmt::format("sm[{}]", i)]["cluster"]["dsmem_insts"]["value"].get<uint64_t>(),
        2u);
}

}  // namespace
}  // namespace simtlab::testing
