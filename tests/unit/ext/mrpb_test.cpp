// MRPB (src/ext/mrpb): exact queueing and drain-order decisions of the buffer, and the L1
// bypass on an associativity stall in an SM running a small kernel.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "ext/mrpb/mrpb.h"
#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

ext::Mrpb::Item item(Addr a, uint32_t entry) {
  ext::Mrpb::Item it;
  it.req.addr = a;
  it.entry = entry;
  return it;
}

}  // namespace

TEST(Mrpb, DrainsTheLowestWarpFirstAndEachFifoInOrder) {
  stats::Group root("sm");
  ext::MrpbParams p;
  p.enable = true;
  p.queue_entries = 4;
  ext::Mrpb m(p, 70, root);
  EXPECT_EQ(m.pick(), -1);
  // Warp 65 queues first, then warp 3, then warp 64: fixed priority serves warp 3 first, then
  // 64, then 65, whatever the arrival order; each FIFO drains in its own order.
  m.push(65, item(0x100, 1));
  m.push(3, item(0x200, 2));
  m.push(3, item(0x280, 2));
  m.push(64, item(0x300, 3));
  std::vector<std::pair<int32_t, Addr>> order;
  while (!m.empty()) {
    const int32_t q = m.pick();
    order.push_back({q, m.front(uint32_t(q)).req.addr});
    m.pop(uint32_t(q));
  }
  EXPECT_EQ(order, (std::vector<std::pair<int32_t, Addr>>{
                       {3, 0x200}, {3, 0x280}, {64, 0x300}, {65, 0x100}}));
}

TEST(Mrpb, AnInstructionEntersWhenAllItsTransactionsFitOrTheFifoIsEmpty) {
  stats::Group root("sm");
  ext::MrpbParams p;
  p.queue_entries = 4;
  ext::Mrpb m(p, 2, root);
  EXPECT_TRUE(m.fits(0, 32));  // empty: an oversized group still enters (no deadlock)
  for (int i = 0; i < 3; ++i) m.push(0, item(0x80 * i, 0));
  EXPECT_TRUE(m.fits(0, 1));
  EXPECT_FALSE(m.fits(0, 2));
  EXPECT_TRUE(m.fits(1, 4));  // other warps have their own FIFO
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.size(0), 3u);
}

namespace {

// One warp: lane l loads the word at l * 128 (32 distinct blocks); then the sum is stored.
const char* kStride = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 128;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r2;
  ret;
}
)";

struct Res {
  uint64_t cycles, l1d_misses, bypassed, drain_fails;
  bool has_mrpb;
  std::vector<uint32_t> out;
};

Res run_stride(const std::vector<std::string>& more) {
  // A 2-way L1D with one set: two missing blocks reserve both ways, the third block of the
  // warp's load finds its set fully reserved (associativity stall).
  std::vector<std::string> s = {"gpu.num_sms=1",          "sm.l1i_perfect=true",
                                "sim.memory_model=fixed", "sim.fixed_memory_latency=100",
                                "sm.l1d.size=256",        "sm.l1d.assoc=2",
                                "sm.l1d.index=linear"};
  s.insert(s.end(), more.begin(), more.end());
  TimingRunner r(timing_params(s));
  r.load(kStride);
  std::vector<uint32_t> in(32 * 32);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i * 7 + 1;
  Addr a = r.upload(in), o = r.upload(std::vector<uint32_t>(32, 0));
  r.launch("k", {1, 1, 1}, {32, 1, 1}, a, o);
  Res x{r.last.cycles, 0, 0, 0, false, r.download<uint32_t>(o, 32)};
  x.l1d_misses = r.stats["sm[0]"]["l1d"]["misses"]["values"]["load"].get<uint64_t>();
  x.has_mrpb = r.stats["sm[0]"].contains("mrpb");
  if (x.has_mrpb) {
    x.bypassed = r.stats["sm[0]"]["mrpb"]["bypassed"]["value"].get<uint64_t>();
    x.drain_fails = r.stats["sm[0]"]["mrpb"]["drain_fails"]["value"].get<uint64_t>();
  }
  return x;
}

}  // namespace

TEST(MrpbSm, BypassSendsAssociativityStallsToTheL2) {
  const Res base = run_stride({});
  const Res byp = run_stride({"mrpb.bypass=true"});
  const Res queues = run_stride({"mrpb.enable=true"});
  const Res both = run_stride({"mrpb.enable=true", "mrpb.bypass=true"});
  for (const Res* r : {&base, &byp, &queues, &both})
    for (uint32_t l = 0; l < 32; ++l) ASSERT_EQ(r->out[l], l * 32 * 7 + 1) << "lane " << l;
  EXPECT_FALSE(base.has_mrpb);
  // Without bypass every block allocates: 32 misses, the warp waits for fills to free ways.
  EXPECT_EQ(base.l1d_misses, 32u);
  EXPECT_EQ(queues.l1d_misses, 32u);
  EXPECT_EQ(queues.bypassed, 0u);
  EXPECT_GT(queues.drain_fails, 0u);
  // With bypass the first two blocks allocate and the other 30 go to the L2 at once.
  for (const Res* r : {&byp, &both}) {
    EXPECT_EQ(r->l1d_misses, 2u);
    EXPECT_EQ(r->bypassed, 30u);
  }
  EXPECT_EQ(both.drain_fails, 0u);
  // 16 serialised rounds of two fills (100 cycles each) become one round.
  EXPECT_LT(byp.cycles + 1000, base.cycles);
}

namespace {

// Two warps. Warp 0 first runs a chain of 3 dependent adds, so warp 1's load reaches the LD/ST
// unit first and warp 0's arrives while warp 1's 32 transactions are still being sent; each
// load touches 32 distinct blocks (lane l reads word l * 128 of its warp's region; .cg: no L1D
// allocation, so no MSHR or set limit interferes); then each warp stores its value. Returns the
// issue cycle of each warp's store (the first instruction that needs the load's result; slots 0 and
// 1).
const char* kTwoWarps = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  shr.u32 %r3, %r1, 5;
  setp.ne.u32 %p1, %r3, 0;
  mov.u32 %r4, 0;
  @%p1 bra LOAD;
  add.s32 %r4, %r4, 1;
  add.s32 %r4, %r4, 1;
  add.s32 %r4, %r4, 1;
LOAD:
  mul.wide.u32 %rd3, %r1, 128;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.cg.u32 %r2, [%rd4];
  add.s32 %r2, %r2, %r4;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r2;
  ret;
}
)";

std::pair<uint64_t, uint64_t> store_issue(const std::vector<std::string>& more) {
  std::vector<std::string> s = {"gpu.num_sms=1", "sm.l1i_perfect=true", "sim.memory_model=fixed",
                                "sim.fixed_memory_latency=100", "mrpb.queue_entries=32"};
  s.insert(s.end(), more.begin(), more.end());
  TimingRunner r(timing_params(s));
  std::vector<std::pair<uint64_t, uint32_t>> log;
  r.gpu().sm(0).set_issue_log(&log);
  r.load(kTwoWarps);
  std::vector<uint32_t> in(64 * 32, 5);
  Addr a = r.upload(in), o = r.upload(std::vector<uint32_t>(64, 0));
  r.launch("k", {1, 1, 1}, {64, 1, 1}, a, o);
  const auto out = r.download<uint32_t>(o, 64);
  for (uint32_t l = 0; l < 64; ++l) EXPECT_EQ(out[l], l < 32 ? 8u : 5u) << "lane " << l;
  // The store is each warp's last instruction but one (ret): the second-to-last issue.
  std::vector<uint64_t> per[2];
  for (auto& [c, w] : log) per[w].push_back(c);
  return {per[0][per[0].size() - 2], per[1][per[1].size() - 2]};
}

}  // namespace

TEST(MrpbSm, FixedPriorityServesTheLowerWarpFirst) {
  // Without MRPB the LD/ST unit sends transactions in instruction order: warp 1's load
  // (first to arrive) completes first. With MRPB, once warp 0's load is queued, the drain serves
  // warp 0's FIFO before the rest of warp 1's: warp 0's load completes first.
  const auto base = store_issue({});
  const auto mrpb = store_issue({"mrpb.enable=true"});
  EXPECT_LT(base.second, base.first);
  EXPECT_LT(mrpb.first, mrpb.second);
  // Warp 0 completes earlier than without MRPB. Warp 1's remaining transactions wait behind all
  // 32 of warp 0 (sent back to back), plus the one cycle a transaction spends entering its FIFO:
  // warp 1 completes exactly 33 cycles later than without MRPB.
  EXPECT_LT(mrpb.first, base.first);
  EXPECT_EQ(mrpb.second, base.second + 32 + 1);
}

}  // namespace simtlab::testing
