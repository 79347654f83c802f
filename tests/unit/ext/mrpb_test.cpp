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

}  // namespace simtlab::testing
