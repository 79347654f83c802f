// cp.async in the timing model (sm.cpp "asynchronous copies"): with a fixed memory latency of
// 100 cycles and one warp, the issue log shows that the warp does not stall at cp.async, that
// cp.async.wait_group N issues only when all but the newest N committed groups returned, and
// the group `async` counts copies, bytes and the cycles spent at wait_group.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>

#include "func/tensor_map.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {

namespace {

constexpr uint64_t kMemLatency = 100;

/// setup (5 instructions, indices 0..4), then `body` lines, then a store and ret.
std::string kernel(const std::vector<std::string>& body) {
  std::string b;
  for (const auto& l : body) b += "  " + l + "\n";
  return fmt::format(R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {{
  .reg .b32 %r<64>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[2048];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, buf;
{}  st.global.u32 [%rd2], %r1;
  ret;
}}
)",
                     b);
}

struct AsyncRun {
  std::vector<uint64_t> issue;  // issue cycle of each warp instruction, program order
  std::unique_ptr<TimingRunner> r;
};

AsyncRun run(const std::string& ptx) {
  AsyncRun out;
  out.r = std::make_unique<TimingRunner>(
      timing_params({"gpu.num_sms=1", "sm.l1i_perfect=true",
                     fmt::format("sim.fixed_memory_latency={}", kMemLatency),
                     "sim.memory_model=fixed", "gpu.cc_major=8", "gpu.cc_minor=0"}));
  std::vector<std::pair<uint64_t, uint32_t>> log;
  out.r->gpu().sm(0).set_issue_log(&log);
  out.r->load(ptx);
  Addr data = out.r->upload(std::vector<uint32_t>(1024, 7));
  out.r->launch("k", {1, 1, 1}, {32, 1, 1}, data);
  for (auto& [c, w] : log) out.issue.push_back(c);
  return out;
}

// A 16-byte copy of this lane's slot: [buf + 16*tid] <- [out + 16*tid + off].
std::string copy(unsigned off) {
  return fmt::format(
      "{{ .reg .b64 %a; .reg .b32 %s; cvt.u64.u32 %a, %r2; add.u64 %a, %a, %rd2; add.u32 %s, %r3, "
      "%r2; cp.async.cg.shared.global [%s], [%a+{}], 16; }}",
      off);
}

}  // namespace

TEST(SmAsync, CpAsyncDoesNotStallTheWarp) {
  // copy (3 instructions + cp.async = index 8), commit, 20 independent adds, wait_all.
  std::vector<std::string> body = {copy(0), "cp.async.commit_group;"};
  for (int k = 0; k < 20; ++k) body.push_back(fmt::format("add.s32 %r{}, %r60, 1;", 10 + k % 8));
  body.push_back("cp.async.wait_all;");
  AsyncRun r = run(kernel(body));
  const size_t cp = 8, first_add = 10, wait = 30;
  ASSERT_EQ(r.issue.size(), 33u);  // 5 setup + 3 + cp + commit + 20 + wait + st + ret
  // The adds issue exactly as they do when the cp.async is replaced by a register move (same
  // PCs, same instruction count): nothing waits for the copy's data.
  std::vector<std::string> alu = body;
  alu[0] =
      "{ .reg .b64 %a; .reg .b32 %s; cvt.u64.u32 %a, %r2; add.u64 %a, %a, %rd2; add.u32 %s, "
      "%r3, %r2; mov.u32 %r20, %s; }";
  alu.back() = "mov.u32 %r21, %r60;";
  AsyncRun b = run(kernel(alu));
  ASSERT_EQ(b.issue.size(), r.issue.size());
  for (size_t i = first_add; i < first_add + 20; ++i)
    EXPECT_EQ(r.issue[i] - r.issue[cp], b.issue[i] - b.issue[cp]) << "add " << i - first_add;
  EXPECT_LT(r.issue[first_add + 19], r.issue[cp] + kMemLatency);
  // wait_all issues only after the copy's data returned.
  EXPECT_GE(r.issue[wait], r.issue[cp] + kMemLatency);
  const auto& a = r.r->stats["sm[0]"]["async"];
  EXPECT_EQ(a["cp_async_insts"]["value"].get<uint64_t>(), 1u);
  EXPECT_EQ(a["cp_async_bytes"]["value"].get<uint64_t>(), 32u * 16);
  EXPECT_EQ(a["wait_group_insts"]["value"].get<uint64_t>(), 1u);
  // The warp reached the wait right after the last add and waited until it issued.
  EXPECT_EQ(a["wait_group_cycles"]["value"].get<uint64_t>(),
            r.issue[wait] - r.issue[first_add + 19] - 1);
}

TEST(SmAsync, WaitGroupLeavesTheNewestGroupsInFlight) {
  // Group A (cp at index 8), commit, 40 adds, group B (cp at 8 + 1 + 40 + 4 = 53), commit,
  // wait_group 1 (index 55): waits for A only; wait_group 0 (56): waits for B.
  std::vector<std::string> body = {copy(0), "cp.async.commit_group;"};
  for (int k = 0; k < 40; ++k) body.push_back(fmt::format("add.s32 %r{}, %r60, 1;", 10 + k % 8));
  body.push_back(copy(512));
  body.push_back("cp.async.commit_group;");
  body.push_back("cp.async.wait_group 1;");
  body.push_back("cp.async.wait_group 0;");
  AsyncRun r = run(kernel(body));
  ASSERT_EQ(r.issue.size(), 59u);
  const size_t cpa = 8, cpb = 53, w1 = 55, w0 = 56;
  EXPECT_GE(r.issue[w1], r.issue[cpa] + kMemLatency);
  EXPECT_LT(r.issue[w1], r.issue[cpb] + kMemLatency);  // B still in flight
  EXPECT_GE(r.issue[w0], r.issue[cpb] + kMemLatency);
  EXPECT_EQ(r.r->stats["sm[0]"]["async"]["wait_group_insts"]["value"].get<uint64_t>(), 2u);
}

TEST(SmAsync, WgmmaWaitGroupWaitsForTheTensorCore) {
  // One warp: a wgmma m64nNk16 takes N/8 steps of sm.tensor.interval on the warp's tensor core
  // from the cycle after its issue, and its accumulators are final sm.tensor.latency later;
  // wgmma.wait_group 0 issues exactly then. Two wgmma in one group queue on the tensor core.
  for (unsigned n : {8u, 16u}) {
    for (unsigned count : {1u, 2u}) {
      std::string body;
      for (unsigned i = 0; i < count; ++i)
        body += fmt::format(
            "  wgmma.mma_async.sync.aligned.m64n{}k16.f32.f16.f16 {{{}}}, %rd3, %rd3, %p1, 1, 1, "
            "0, 0;\n",
            n, n == 8 ? "%f0, %f1, %f2, %f3" : "%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7");
      const std::string ptx = fmt::format(R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out) {{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<8>;
  .reg .pred %p<2>;
  .shared .align 128 .b8 buf[4096];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u64 %rd3, 0;
  mov.u32 %r1, 0;
  setp.ne.b32 %p1, %r1, 0;
  wgmma.fence.sync.aligned;
{}  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  st.global.f32 [%rd2], %f0;
  ret;
}}
)",
                                          body);
      TimingRunner r(timing_params({"gpu.num_sms=1", "sm.l1i_perfect=true",
                                    "sim.fixed_memory_latency=100", "sim.memory_model=fixed",
                                    "sm.tensor.latency=64", "sm.tensor.interval=32"}));
      std::vector<std::pair<uint64_t, uint32_t>> log;
      r.gpu().sm(0).set_issue_log(&log);
      r.load(ptx);
      Addr out = r.upload(std::vector<uint32_t>(1, 0));
      r.launch("k", {1, 1, 1}, {32, 1, 1}, out);
      ASSERT_EQ(log.size(), 10u + count);
      const size_t first = 6, wait = 7 + count;
      const uint64_t steps = n / 8 * 32;
      EXPECT_EQ(log[wait].first - log[first].first, 1 + count * steps + 64)
          << "n " << n << " count " << count;
      const auto& a = r.stats["sm[0]"]["async"];
      EXPECT_EQ(a["wgmma_insts"]["value"].get<uint64_t>(), count);
      EXPECT_EQ(a["wgmma_tensor_cycles"]["value"].get<uint64_t>(), count * steps);
    }
  }
}

TEST(SmAsync, NoAsyncGroupWithoutCpAsync) {
  AsyncRun r = run(kernel({"add.s32 %r10, %r60, 1;"}));
  EXPECT_FALSE(r.r->stats["sm[0]"].contains("async"));
}

// cp.async.bulk in the timing model (tma.h): with a fixed memory latency the 256-byte copy is
// two 128-byte-block requests sent in the two cycles after the copy issues; the mbarrier's
// complete_tx happens when the second response arrives, so a test_wait right after the copy
// sees the phase incomplete, and the try_wait loop's first try_wait is held (one issue, no
// spinning) until exactly then.
namespace {
struct BulkRun {
  std::vector<uint64_t> issue;
  std::vector<uint32_t> pcs;
  std::vector<uint32_t> out;
  std::unique_ptr<TimingRunner> r;
};
BulkRun run_bulk(uint32_t limit) {
  const std::string ptx = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .shared .align 128 .b8 buf[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [in];
  cvta.to.global.u64 %rd4, %rd3;
  mov.u32 %r1, bar;
  mov.u32 %r2, buf;
  mbarrier.init.shared::cta.b64 [%r1], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 256;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd4], 256, [%r1];
  mbarrier.test_wait.parity.shared::cta.b64 %p1, [%r1], 0;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd2], %r3;
LOOP:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], 0;
  @!%p2 bra LOOP;
  ld.shared.u32 %r4, [%r2+252];
  st.global.u32 [%rd2+4], %r4;
  ret;
}
)";
  BulkRun out;
  out.r = std::make_unique<TimingRunner>(timing_params(
      {"gpu.num_sms=1", "sm.l1i_perfect=true",
       fmt::format("sim.fixed_memory_latency={}", kMemLatency), "sim.memory_model=fixed",
       "gpu.cc_major=9", "gpu.cc_minor=0", fmt::format("sm.mbarrier_try_wait_limit={}", limit)}));
  std::vector<std::pair<uint64_t, uint32_t>> log;
  out.r->gpu().sm(0).set_issue_log(&log);
  out.r->load(ptx);
  Addr o = out.r->upload(std::vector<uint32_t>(2, 99));
  std::vector<uint32_t> src(64);
  for (uint32_t i = 0; i < 64; ++i) src[i] = 1000 + i;
  Addr in = out.r->upload(src);
  out.r->launch("k", {1, 1, 1}, {1, 1, 1}, o, in);  // one thread
  for (auto& [c, pc] : log) {
    out.issue.push_back(c);
    out.pcs.push_back(pc);
  }
  out.out = out.r->download<uint32_t>(o, 2);
  return out;
}
}  // namespace

TEST(SmAsync, BulkCopyCompletesTheMbarrierWhenTheLastByteArrives) {
  BulkRun r = run_bulk(2048);
  const size_t cp = 8, tw = 12;
  ASSERT_EQ(r.issue.size(), 17u);  // 6 setup, init, arrive, cp, test_wait, selp, st, try_wait,
                                   // bra, ld.shared, st, ret: the try_wait issued once
  EXPECT_EQ(r.out[0], 0u);         // test_wait right after the copy: phase incomplete
  EXPECT_EQ(r.out[1], 1063u);      // the copied data
  EXPECT_EQ(r.issue[tw], r.issue[cp] + 2 + kMemLatency);
  const auto& a = r.r->stats["sm[0]"]["async"];
  EXPECT_EQ(a["bulk_insts"]["value"].get<uint64_t>(), 1u);
  EXPECT_EQ(a["tma_insts"]["value"].get<uint64_t>(), 0u);
  EXPECT_EQ(a["bulk_bytes"]["value"].get<uint64_t>(), 256u);
  EXPECT_EQ(a["bulk_requests"]["value"].get<uint64_t>(), 2u);
  EXPECT_EQ(a["bulk_load_cycles"]["value"].get<uint64_t>(), 2 + kMemLatency);
  EXPECT_EQ(a["mbarrier_wait_insts"]["value"].get<uint64_t>(), 1u);
  EXPECT_EQ(a["mbarrier_wait_cycles"]["value"].get<uint64_t>(), r.issue[tw] - r.issue[tw - 1] - 1);
}

TEST(SmAsync, TryWaitReturnsFalseAfterTheLimit) {
  // sm.mbarrier_try_wait_limit=0: try_wait never holds the warp; it spins, returning false,
  // until the same completion cycle. With 40 the warp is held 40 cycles per try_wait.
  BulkRun spin = run_bulk(0), held = run_bulk(2048), lim = run_bulk(40);
  EXPECT_EQ(spin.out[1], 1063u);
  EXPECT_GT(spin.issue.size(), held.issue.size() + 2);  // extra try_wait / bra pairs
  EXPECT_FALSE(spin.r->stats["sm[0]"]["async"].contains("mbarrier_wait_insts"));
  // Held 40 cycles from the cycle after the st (index 11), then issued (false); the bra and
  // the refetch after it take the warp past the completion (cycle issue[8] + 2 + latency), so
  // the second try_wait (index 14) is not held and succeeds.
  ASSERT_EQ(lim.issue.size(), held.issue.size() + 2);
  EXPECT_EQ(lim.issue[12], lim.issue[11] + 1 + 40);
  EXPECT_GE(lim.issue[14], lim.issue[8] + 2 + kMemLatency);
  const auto& a = lim.r->stats["sm[0]"]["async"];
  EXPECT_EQ(a["mbarrier_wait_insts"]["value"].get<uint64_t>(), 1u);
  EXPECT_EQ(a["mbarrier_wait_cycles"]["value"].get<uint64_t>(), 40u);
}

TEST(SmAsync, CpAsyncMbarrierArriveFiresWhenTheCopiesComplete) {
  // 32 lanes each copy 16 bytes with cp.async, then cp.async.mbarrier.arrive.noinc on a barrier
  // expecting 32 arrivals: in timing mode the arrivals happen when the warp's copies returned,
  // so the try_wait is held (issued once) until at least the memory latency after the copy.
  const std::string ptx = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .shared .align 16 .b8 buf[512];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  cvt.u64.u32 %rd3, %r2;
  add.u64 %rd4, %rd2, %rd3;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  mov.u32 %r5, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r5], 32;
  bar.sync 0;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r5];
LOOP:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], 0;
  @!%p2 bra LOOP;
  ld.shared.u32 %r6, [%r4];
  st.global.u32 [%rd4], %r6;
  ret;
}
)";
  TimingRunner r(timing_params({"gpu.num_sms=1", "sm.l1i_perfect=true",
                                fmt::format("sim.fixed_memory_latency={}", kMemLatency),
                                "sim.memory_model=fixed", "gpu.cc_major=9", "gpu.cc_minor=0"}));
  std::vector<std::pair<uint64_t, uint32_t>> log;
  r.gpu().sm(0).set_issue_log(&log);
  r.load(ptx);
  Addr out = r.upload(std::vector<uint32_t>(128, 5));
  r.launch("k", {1, 1, 1}, {32, 1, 1}, out);
  const size_t cp = 12, tw = 14;
  ASSERT_EQ(log.size(), 19u);  // 10 setup, init, bar, cp, arrive, try_wait (once), bra, ld, st, ret
  EXPECT_GE(log[tw].first, log[cp].first + kMemLatency);
  const auto& a = r.stats["sm[0]"]["async"];
  EXPECT_EQ(a["mbarrier_wait_insts"]["value"].get<uint64_t>(), 1u);
  EXPECT_EQ(r.download<uint32_t>(out, 1)[0], 5u);
}

TEST(SmAsync, TensorCopySendsOnlyTheInBoundsBlocks) {
  // A 2D tensor of 128 x 8 floats (rows of 512 bytes), box 32 x 4 at x = -16: each box row has
  // 16 out-of-bounds elements (zero-filled, no traffic) and 16 in bounds (64 bytes = 2 sectors
  // of one block): 4 requests, one per cycle, complete_tx(512 box bytes) when the 4th returns.
  struct alignas(64) Map {
    uint8_t b[128] = {};
  } map;
  TimingRunner r(timing_params({"gpu.num_sms=1", "sm.l1i_perfect=true",
                                fmt::format("sim.fixed_memory_latency={}", kMemLatency),
                                "sim.memory_model=fixed", "gpu.cc_major=9", "gpu.cc_minor=0"}));
  std::vector<float> t(128 * 8);
  for (size_t i = 0; i < t.size(); ++i) t[i] = float(i);
  const Addr ta = r.upload(t);
  func::TensorMapBits m;
  const uint64_t dims[2] = {128, 8}, strides[1] = {512};
  const uint32_t box[2] = {32, 4}, es[2] = {1, 1};
  ASSERT_EQ(func::encode_tensor_map(m, 7, 2, ta, dims, strides, box, es, 0, 0, 0, 0), "");
  std::memcpy(map.b, &m, sizeof m);
  const std::string ptx = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .shared .align 128 .b8 buf[512];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.b64 %rd3, tm;
  cvta.param.u64 %rd4, %rd3;
  mov.u32 %r1, bar;
  mov.u32 %r2, buf;
  mov.u32 %r3, -16;
  mov.u32 %r4, 2;
  mbarrier.init.shared::cta.b64 [%r1], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 512;
  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd4, {%r3, %r4}], [%r1];
LOOP:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], 0;
  @!%p2 bra LOOP;
  ld.shared.f32 %r5, [%r2+8];
  ld.shared.f32 %r6, [%r2+64];
  st.global.u32 [%rd2], %r5;
  st.global.u32 [%rd2+4], %r6;
  ret;
}
)";
  std::vector<std::pair<uint64_t, uint32_t>> log;
  r.gpu().sm(0).set_issue_log(&log);
  r.load(ptx);
  Addr out = r.upload(std::vector<float>(2, -1.f));
  r.launch("k", {1, 1, 1}, {1, 1, 1}, map, out);
  const size_t cp = 10, tw = 11;
  ASSERT_EQ(log.size(), 18u);  // 10 setup, cp, try_wait (once), bra, 2 ld, 2 st, ret
  EXPECT_EQ(log[tw].first, log[cp].first + 4 + kMemLatency);
  const std::vector<float> o = r.download<float>(out, 2);
  EXPECT_EQ(o[0], 0.f);              // box (2, 0): x = -14, out of bounds
  EXPECT_EQ(o[1], 2.f * 128 + 0.f);  // box (16, 0): x = 0, row 2
  const auto& a = r.stats["sm[0]"]["async"];
  EXPECT_EQ(a["tma_insts"]["value"].get<uint64_t>(), 1u);
  EXPECT_EQ(a["bulk_bytes"]["value"].get<uint64_t>(), 4u * 64);
  EXPECT_EQ(a["bulk_requests"]["value"].get<uint64_t>(), 4u);
  EXPECT_EQ(a["bulk_load_cycles"]["value"].get<uint64_t>(), 4 + kMemLatency);
}

TEST(SmAsync, BulkWaitGroupWaitsForTheStores) {
  // A 256-byte shared->global bulk copy (two 128-byte-block writes sent in the two cycles after
  // it issues), commit_group, wait_group 0: the wait issues when the second write is
  // acknowledged; wait_group.read 1 right after the commit does not wait (one group allowed).
  const std::string ptx = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 128 .b8 buf[256];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, buf;
  mov.u32 %r3, 77;
  st.shared.u32 [%r2+252], %r3;
  fence.proxy.async.shared::cta;
  cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r2], 256;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 1;
  cp.async.bulk.wait_group 0;
  ret;
}
)";
  TimingRunner r(timing_params({"gpu.num_sms=1", "sm.l1i_perfect=true",
                                fmt::format("sim.fixed_memory_latency={}", kMemLatency),
                                "sim.memory_model=fixed", "gpu.cc_major=9", "gpu.cc_minor=0"}));
  std::vector<std::pair<uint64_t, uint32_t>> log;
  r.gpu().sm(0).set_issue_log(&log);
  r.load(ptx);
  Addr out = r.upload(std::vector<uint32_t>(64, 0));
  r.launch("k", {1, 1, 1}, {1, 1, 1}, out);
  const size_t cp = 6, w1 = 8, w0 = 9;
  ASSERT_EQ(log.size(), 11u);
  EXPECT_LT(log[w1].first, log[cp].first + kMemLatency);
  EXPECT_EQ(log[w0].first, log[cp].first + 2 + kMemLatency);
  EXPECT_EQ(r.download<uint32_t>(out, 64)[63], 77u);
  EXPECT_EQ(r.stats["sm[0]"]["async"]["bulk_requests"]["value"].get<uint64_t>(), 2u);
}

}  // namespace simtlab::testing
