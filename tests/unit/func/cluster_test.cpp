// Thread-block clusters (sm_90) in the functional model: the shared::cluster address encoding
// of mapa / getctarank / cvta (func/memory.h kClusterSharedBit), cluster special registers,
// distributed shared memory through ld/st/atom .shared::cluster and generic addresses,
// barrier.cluster ordering, the launch checks, and the faults of bad peer accesses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "func/memory.h"
#include "tests/unit/func/ptx_harness.h"

namespace simtlab::testing {
namespace {

std::string sm90(const std::string& body) {
  return ".version 8.0\n.target sm_90a\n.address_size 64\n" + body;
}

/// Launch `kernel` of `r` with thread-block cluster dimensions `cluster` ({0,0,0}: none).
func::LaunchResult launch_cluster(PtxRunner& r, const std::string& kernel, Dim3 grid, Dim3 block,
                                  Dim3 cluster, Addr out) {
  const func::Program* k = r.mod().kernel(kernel);
  const void* args[] = {&out, nullptr};
  func::LaunchOptions opt;
  opt.cluster = cluster;
  return r.dev().launch(*k, grid, block, 0, r.dev().pack_params(*k, args), 0, opt);
}

std::string guest_error(PtxRunner& r, const std::string& kernel, Dim3 grid, Dim3 cluster,
                        Addr out) {
  try {
    launch_cluster(r, kernel, grid, Dim3{32, 1, 1}, cluster, out);
  } catch (const GuestError& e) {
    return e.what();
  }
  return "no error";
}

// Per thread: the mapped address of its word in the shared memory of CTA (tid % 4), the ranks
// getctarank reports for it and for the thread's own address, and the generic round trip.
const char* kMapaKernel = R"(
.visible .entry mapa_math(.param .u64 out) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b8 pad[16];
  .shared .align 4 .b8 sbuf[128];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;                      // target rank
  mov.u32 %r3, sbuf;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;                    // shared::cta address of word tid
  mapa.shared::cluster.u32 %r6, %r5, %r2;   // the same word in CTA rank tid % 4
  getctarank.shared::cluster.u32 %r7, %r6;
  getctarank.shared::cluster.u32 %r8, %r5;  // a shared::cta address: this CTA's rank
  cvt.u64.u32 %rd1, %r5;
  cvta.shared.u64 %rd2, %rd1;
  mapa.u64 %rd3, %rd2, %r2;                 // generic form
  getctarank.u64 %r9, %rd3;
  cvta.to.shared.u64 %rd4, %rd3;
  cvt.u32.u64 %r10, %rd4;
  sub.u64 %rd5, %rd3, %rd2;                 // generic mapped - generic own
  mov.u32 %r11, %cluster_ctarank;
  mov.u32 %r12, %ctaid.x;
  mad.lo.u32 %r13, %r12, 32, %r1;
  mul.wide.u32 %rd6, %r13, 32;
  ld.param.u64 %rd7, [out];
  add.u64 %rd8, %rd7, %rd6;
  st.global.v4.u32 [%rd8], {%r6, %r7, %r8, %r9};
  st.global.v2.u32 [%rd8+16], {%r10, %r11};
  st.global.u64 [%rd8+24], %rd5;
  st.shared.u32 [pad], %r1;
  ret;
}
)";

TEST(Cluster, MapaGetctarankAndCvtaAddressMath) {
  PtxRunner r;
  r.load(sm90(kMapaKernel));
  const Addr out = r.upload(std::vector<uint32_t>(8 * 32 * 8, 0xdead));
  launch_cluster(r, "mapa_math", Dim3{8, 1, 1}, Dim3{32, 1, 1}, Dim3{4, 1, 1}, out);
  const auto v = r.download<uint32_t>(out, 8 * 32 * 8);
  for (uint32_t cta = 0; cta < 8; ++cta)
    for (uint32_t t = 0; t < 32; ++t) {
      const uint32_t* o = &v[(cta * 32 + t) * 8];
      const uint32_t rank = t % 4, own = cta % 4;
      const uint32_t off = 16 + 4 * t;  // sbuf follows the 16-byte pad
      const uint32_t mapped = 0x8000'0000u | rank << 24 | off;
      SCOPED_TRACE(::testing::Message() << "cta " << cta << " thread " << t);
      EXPECT_EQ(o[0], mapped);
      EXPECT_EQ(o[1], rank);
      EXPECT_EQ(o[2], own);
      EXPECT_EQ(o[3], rank);
      EXPECT_EQ(o[4], mapped);  // cvta.to.shared of the generic mapped address
      EXPECT_EQ(o[5], own);
      const uint64_t diff = uint64_t(o[6]) | uint64_t(o[7]) << 32;
      EXPECT_EQ(diff, uint64_t(mapped) - off);  // generic = kSharedWindow + shared address
    }
}

// Rank r writes 1000 * r + tid into its shared array, the cluster synchronises, then every
// thread reads the word of the next rank (ld.shared::cluster), adds one to rank 0's counter
// (atom.shared::cluster) and to its peer's counter through a generic address (red), and after
// a second barrier rank 0 reports its counter.
const char* kExchangeKernel = R"(
.visible .entry exchange(.param .u64 out) {
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b8 words[128];
  .shared .align 4 .b32 counter;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mad.lo.u32 %r4, %r2, 1000, %r1;
  mov.u32 %r5, words;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  st.shared.u32 [%r7], %r4;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [counter], 0;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  add.u32 %r8, %r2, 1;
  rem.u32 %r9, %r8, %r3;                    // next rank
  mapa.shared::cluster.u32 %r10, %r7, %r9;
  ld.shared::cluster.u32 %r11, [%r10];
  mov.u32 %r12, counter;
  mapa.shared::cluster.u32 %r13, %r12, 0;
  atom.shared::cluster.add.u32 %r14, [%r13], 1;
  cvt.u64.u32 %rd1, %r12;
  cvta.shared.u64 %rd2, %rd1;
  mapa.u64 %rd3, %rd2, %r9;
  red.add.u32 [%rd3], 10;
  fence.acq_rel.cluster;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ld.shared.u32 %r15, [counter];
  mov.u32 %r16, %ctaid.x;
  mad.lo.u32 %r17, %r16, 33, %r1;
  mul.wide.u32 %rd4, %r17, 4;
  ld.param.u64 %rd5, [out];
  add.u64 %rd6, %rd5, %rd4;
  st.global.u32 [%rd6], %r11;
  @%p1 st.global.u32 [%rd6+128], %r15;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

TEST(Cluster, DistributedSharedMemoryExchangeAfterClusterBarrier) {
  PtxRunner r;
  r.load(sm90(kExchangeKernel));
  const Addr out = r.upload(std::vector<uint32_t>(6 * 33, 0));
  launch_cluster(r, "exchange", Dim3{6, 1, 1}, Dim3{32, 1, 1}, Dim3{3, 1, 1}, out);
  const auto v = r.download<uint32_t>(out, 6 * 33);
  for (uint32_t cta = 0; cta < 6; ++cta) {
    const uint32_t rank = cta % 3, next = (rank + 1) % 3;
    for (uint32_t t = 0; t < 32; ++t)
      EXPECT_EQ(v[cta * 33 + t], 1000 * next + t) << "cta " << cta << " thread " << t;
    // Rank 0: 96 atomic increments of the whole cluster + 32 x 10 from the previous rank.
    EXPECT_EQ(v[cta * 33 + 32], rank == 0 ? 96u + 320u : 320u) << "cta " << cta;
  }
}

TEST(Cluster, WithoutTheBarrierAPeerIsReadBeforeItWrites) {
  // The exchange without its first barrier: the functional engine runs rank 0 first, so it
  // reads rank 1's words before rank 1 wrote them (shows the barrier above orders them).
  std::string k = kExchangeKernel;
  const std::string first =
      "  barrier.cluster.arrive.release.aligned;\n"
      "  barrier.cluster.wait.acquire.aligned;\n";
  k.erase(k.find(first), first.size());
  PtxRunner r;
  r.load(sm90(k));
  const Addr out = r.upload(std::vector<uint32_t>(2 * 33, 0xffff));
  launch_cluster(r, "exchange", Dim3{2, 1, 1}, Dim3{32, 1, 1}, Dim3{2, 1, 1}, out);
  const auto v = r.download<uint32_t>(out, 2 * 33);
  EXPECT_EQ(v[0], 0u);   // rank 0 read rank 1's zero-initialised word
  EXPECT_EQ(v[33], 0u);  // rank 1 read rank 0's word 0 = 1000 * 0 + 0
  EXPECT_EQ(v[33 + 5], 5u);
}

const char* kSregKernel = R"(
.visible .entry cregs(.param .u64 out) {
  .reg .pred %p<2>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %clusterid.x;
  mov.u32 %r2, %clusterid.y;
  mov.u32 %r3, %nclusterid.x;
  mov.u32 %r4, %nclusterid.y;
  mov.u32 %r5, %cluster_ctaid.x;
  mov.u32 %r6, %cluster_ctaid.y;
  mov.u32 %r7, %cluster_nctaid.x;
  mov.u32 %r8, %cluster_nctaid.y;
  mov.u32 %r9, %cluster_ctarank;
  mov.u32 %r10, %cluster_nctarank;
  mov.pred %p1, %is_explicit_cluster;
  selp.u32 %r11, 1, 0, %p1;
  mov.u32 %r12, %ctaid.x;
  mov.u32 %r13, %ctaid.y;
  mov.u32 %r14, %nctaid.x;
  mad.lo.u32 %r15, %r13, %r14, %r12;
  mul.wide.u32 %rd1, %r15, 48;
  ld.param.u64 %rd2, [out];
  add.u64 %rd3, %rd2, %rd1;
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};
  ret;
}
.visible .entry cregs_static(.param .u64 out) .reqnctapercluster 2, 3, 1 {
  ret;
}
)";

TEST(Cluster, SpecialRegistersOfA2x3ClusterIn4x6Grid) {
  PtxRunner r;
  r.load(sm90(kSregKernel));
  const Addr out = r.upload(std::vector<uint32_t>(24 * 12, 0xdead));
  launch_cluster(r, "cregs", Dim3{4, 6, 1}, Dim3{32, 1, 1}, Dim3{2, 3, 1}, out);
  const auto v = r.download<uint32_t>(out, 24 * 12);
  for (uint32_t y = 0; y < 6; ++y)
    for (uint32_t x = 0; x < 4; ++x) {
      const uint32_t* o = &v[(y * 4 + x) * 12];
      const std::vector<uint32_t> got(o, o + 11);
      const std::vector<uint32_t> want = {
          x / 2, y / 3, 2, 2, x % 2, y % 3, 2, 3, x % 2 + 2 * (y % 3), 6, 1};
      EXPECT_EQ(got, want) << "block " << x << "," << y;
    }
}

TEST(Cluster, WithoutAClusterEveryBlockIsAClusterOfOne) {
  PtxRunner r;
  r.load(sm90(kSregKernel));
  const Addr out = r.upload(std::vector<uint32_t>(6 * 12, 0xdead));
  launch_cluster(r, "cregs", Dim3{3, 2, 1}, Dim3{32, 1, 1}, Dim3{0, 0, 0}, out);
  const auto v = r.download<uint32_t>(out, 6 * 12);
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t x = 0; x < 3; ++x) {
      const uint32_t* o = &v[(y * 3 + x) * 12];
      const std::vector<uint32_t> got(o, o + 11);
      const std::vector<uint32_t> want = {x, y, 3, 2, 0, 0, 1, 1, 0, 1, 0};
      EXPECT_EQ(got, want) << "block " << x << "," << y;
    }
}

TEST(Cluster, LaunchChecksNameWhatIsWrong) {
  PtxRunner r;
  r.load(sm90(kSregKernel));
  const func::Program& k = *r.mod().kernel("cregs");
  const func::Program& ks = *r.mod().kernel("cregs_static");
  EXPECT_EQ(r.dev().check_cluster(k, Dim3{8, 2, 1}, Dim3{4, 2, 1}), "");
  EXPECT_EQ(r.dev().check_cluster(k, Dim3{6, 1, 1}, Dim3{4, 1, 1}),
            "grid (6,1,1) is not a multiple of the cluster dimensions (4,1,1)");
  EXPECT_EQ(r.dev().check_cluster(k, Dim3{16, 1, 1}, Dim3{16, 1, 1}),
            "16 blocks per cluster (16,1,1) exceed the limit of 8");
  r.dev().max_cluster_size = 16;
  EXPECT_EQ(r.dev().check_cluster(k, Dim3{16, 1, 1}, Dim3{16, 1, 1}), "");
  EXPECT_EQ(r.dev().check_cluster(ks, Dim3{4, 6, 1}, Dim3{2, 3, 1}), "");
  EXPECT_EQ(r.dev().check_cluster(ks, Dim3{4, 6, 1}, Dim3{2, 1, 1}),
            "cluster dimensions (2,1,1) differ from the kernel's __cluster_dims__ "
            "(.reqnctapercluster 2,3,1)");
  // The compile-time dimensions apply to a launch that names none.
  const Addr out = r.upload(std::vector<uint32_t>(1, 0));
  EXPECT_THROW(launch_cluster(r, "cregs_static", Dim3{3, 3, 1}, Dim3{32, 1, 1}, Dim3{0, 0, 0}, out),
               UserError);
}

const char* kFaultKernels = R"(
.visible .entry bad_rank(.param .u64 out) {
  .reg .b32 %r<8>;
  .shared .align 4 .b32 w;
  mov.u32 %r1, w;
  mapa.shared::cluster.u32 %r2, %r1, 4;
  ret;
}
.visible .entry bad_address(.param .u64 out) {
  .reg .b32 %r<8>;
  mov.u32 %r1, 0x85000000;                  // rank 5 of a cluster of 2
  ld.shared::cluster.u32 %r2, [%r1];
  ret;
}
.visible .entry peer_gone(.param .u64 out) {
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .shared .align 4 .b32 w;
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 ret;                                 // rank 0 exits at once
  mov.u32 %r2, w;
  mapa.shared::cluster.u32 %r3, %r2, 0;
  ld.shared::cluster.u32 %r4, [%r3];
  ret;
}
.visible .entry past_end(.param .u64 out) {
  .reg .b32 %r<8>;
  .shared .align 4 .b32 w;
  mov.u32 %r1, w;
  mapa.shared::cluster.u32 %r2, %r1, 1;
  st.shared::cluster.u32 [%r2+4], %r1;
  ret;
}
)";

TEST(Cluster, BadPeerAccessesAreGuestFaults) {
  PtxRunner r;
  r.load(sm90(kFaultKernels));
  const Addr out = r.upload(std::vector<uint32_t>(1, 0));
  EXPECT_NE(guest_error(r, "bad_rank", Dim3{4, 1, 1}, Dim3{4, 1, 1}, out)
                .find("mapa: CTA rank 4 is outside the cluster of 4 CTAs"),
            std::string::npos);
  EXPECT_NE(guest_error(r, "bad_address", Dim3{2, 1, 1}, Dim3{2, 1, 1}, out)
                .find("invalid distributed shared memory read of 4 bytes at shared::cluster "
                      "address 0x85000000: CTA rank 5 is outside the cluster of 2 CTAs"),
            std::string::npos);
  EXPECT_NE(guest_error(r, "peer_gone", Dim3{2, 1, 1}, Dim3{2, 1, 1}, out)
                .find("CTA rank 0 of the cluster has exited"),
            std::string::npos);
  EXPECT_NE(guest_error(r, "past_end", Dim3{2, 1, 1}, Dim3{2, 1, 1}, out)
                .find("offset 0x4 is outside CTA rank 1's 4 bytes of shared memory"),
            std::string::npos);
  // Without a cluster the CTA is a cluster of one: rank 1 does not exist.
  EXPECT_NE(guest_error(r, "past_end", Dim3{2, 1, 1}, Dim3{0, 0, 0}, out)
                .find("mapa: CTA rank 1 is outside the cluster of 1 CTAs"),
            std::string::npos);
}

const char* kDeadlockKernel = R"(
.visible .entry half_wait(.param .u64 out) {
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra DONE;                            // rank 1 never arrives but stays alive
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
DONE:
  bar.sync 0;
  bar.sync 0;
  ret;
}
)";

TEST(Cluster, ExitedThreadsDoNotHoldUpTheClusterBarrier) {
  // Rank 1's threads pass two CTA barriers and exit without arriving: rank 0's wait completes
  // once they have exited (they are no longer waited for).
  PtxRunner r;
  r.load(sm90(kDeadlockKernel));
  const Addr out = r.upload(std::vector<uint32_t>(1, 0));
  const func::LaunchResult res =
      launch_cluster(r, "half_wait", Dim3{2, 1, 1}, Dim3{64, 1, 1}, Dim3{2, 1, 1}, out);
  EXPECT_EQ(res.ctas, 2u);
}

// Rank 0 initialises an mbarrier expecting 33 arrivals (its own 32 threads + rank 1's thread 0
// on the remote form), the cluster synchronises, rank 1's thread 0 writes a flag word into rank
// 0's shared memory and arrives remotely; rank 0 spins on try_wait and then reads the flag.
const char* kRemoteArriveKernel = R"(
.visible .entry remote_arrive(.param .u64 out) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 flag;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, bar;
  mov.u32 %r4, flag;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r2, 0;
  @%p2 bra RANK0_INIT;
  bra SYNC;
RANK0_INIT:
  @%p1 mbarrier.init.shared::cta.b64 [%r3], 33;
  @%p1 st.shared.u32 [%r4], 0;
SYNC:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  @%p2 bra RANK0;
  @%p1 bra WORK;                            // lane 0 of rank 1 does the remote work
  bra END;
WORK:
  mov.u32 %r8, 0;
DELAY:                                      // 200 back edges: ITS yields to the other group
  add.u32 %r8, %r8, 1;
  setp.lt.u32 %p3, %r8, 200;
  @%p3 bra DELAY;
  mapa.shared::cluster.u32 %r5, %r4, 0;
  st.shared::cluster.u32 [%r5], 77;
  mapa.shared::cluster.u32 %r6, %r3, 0;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
  bra END;
RANK0:
  mbarrier.arrive.shared::cta.b64 %rd1, [%r3];
WAIT:
  mbarrier.try_wait.shared::cta.b64 %p3, [%r3], %rd1;
  @!%p3 bra WAIT;
  ld.shared.u32 %r7, [%r4];
  mul.wide.u32 %rd2, %r1, 4;
  ld.param.u64 %rd3, [out];
  add.u64 %rd4, %rd3, %rd2;
  st.global.u32 [%rd4], %r7;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

TEST(Cluster, MbarrierArriveOnAPeerCta) {
  // Also under independent thread scheduling: rank 1's lanes 1..31 reach the last
  // barrier.cluster.wait while lane 0 still has its remote store and arrive to do (they wait
  // for it as a thread group instead of blocking the whole warp).
  for (bool its : {false, true}) {
    func::DeviceOptions o;
    o.its = its;
    PtxRunner r(o);
    r.load(sm90(kRemoteArriveKernel));
    const Addr out = r.upload(std::vector<uint32_t>(32, 0));
    launch_cluster(r, "remote_arrive", Dim3{2, 1, 1}, Dim3{32, 1, 1}, Dim3{2, 1, 1}, out);
    EXPECT_EQ(r.download<uint32_t>(out, 32), std::vector<uint32_t>(32, 77u)) << "its " << its;
  }
}

}  // namespace
}  // namespace simtlab::testing
