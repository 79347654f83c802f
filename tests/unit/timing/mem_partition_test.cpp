// MemoryPartition: exact L2-cycle latencies of the ROP pipeline, the slice and the atomic unit.
#include "timing/mem/partition.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "mem_mocks.h"
#include "stats/snapshot.h"
#include "timing/mem/dram.h"

namespace simtlab::timing {
namespace {

using testing::Collector;
using testing::Feeder;

struct Rig {
  explicit Rig(L2Params p, bool keep_data = true) {
    AddressMapParams mp;
    mp.channels = 1;
    mp.sub_partitions = 1;
    map = std::make_unique<AddressMap>(mp);
    part = std::make_unique<MemoryPartition>(0, p, IcntParams{}, *map, root, keep_data);
    dram = std::make_unique<DramChannel>("dram", DramParams{}, *map, root, true);
    in = std::make_unique<sim::Port<MemReq>>(&src, part.get(), 64);
    out = std::make_unique<sim::Port<RespPacket>>(part.get(), &sink, 64);
    to_dram = std::make_unique<sim::Port<MemReq>>(part.get(), dram.get(), 2);
    from_dram = std::make_unique<sim::Port<MemResp>>(dram.get(), part.get(), 64);
    part->connect({in.get()}, {out.get()}, to_dram.get(), from_dram.get());
    dram->connect(to_dram.get(), from_dram.get());
    src.out = in.get();
    sink.in = out.get();
    sim.add(sink, d);
    sim.add(*dram, d);
    sim.add(*part, d);
    sim.add(src, d);
  }
  void run(uint64_t cycles) {
    while (d.cycle() < cycles && sim.step()) {
    }
  }
  sim::Simulation sim;
  sim::ClockDomain& d = sim.add_domain("l2", 1000.0);
  stats::Group root{""};
  std::unique_ptr<AddressMap> map;
  Collector<RespPacket> sink{"sink"};
  Feeder<MemReq> src{"src"};
  std::unique_ptr<MemoryPartition> part;
  std::unique_ptr<DramChannel> dram;
  std::unique_ptr<sim::Port<MemReq>> in, to_dram;
  std::unique_ptr<sim::Port<RespPacket>> out;
  std::unique_ptr<sim::Port<MemResp>> from_dram;
};

MemReq load(uint64_t id, Addr a) {
  MemReq r;
  r.id = id;
  r.addr = a;
  r.bytes = 32;
  return r;
}

MemReq atomic(uint64_t id, Addr a, uint64_t operand) {
  MemReq r;
  r.id = id;
  r.addr = a;
  r.bytes = 8;
  r.kind = AccessKind::atomic;
  r.atomic_operand = operand;
  return r;
}

TEST(Partition, L2HitTakesRopLatencyPlusHitLatency) {
  L2Params p;  // rop 120, hit 1
  Rig r{p};
  r.src.add(0, load(1, 0x100));     // miss: fetched from DRAM
  r.src.add(1000, load(2, 0x100));  // hit
  r.run(2000);
  ASSERT_EQ(r.sink.got.size(), 2u);
  EXPECT_EQ(r.sink.got[0].second.msg.l2_hit, 0u);
  EXPECT_EQ(r.sink.got[1].second.msg.l2_hit, 1u);
  EXPECT_EQ(r.sink.got[1].second.dest, 0u);
  // In port (1) + ROP (120) + hit (1) + out port (1).
  EXPECT_EQ(r.sink.got[1].first - 1000, 1 + p.rop_latency.v + p.slice.hit_latency.v + 1);
  // The miss adds the DRAM pipeline (dram_latency) and the channel's own latency.
  EXPECT_GT(r.sink.got[0].first, 1 + p.rop_latency.v + p.dram_latency.v);
}

/// Data-bus cycles and RD commands the DRAM spends on one L2 miss of `bytes` at `a`.
struct MissCost {
  uint64_t rd_commands = 0, busy = 0, done = 0;
};
MissCost miss_cost(Addr a, uint32_t bytes) {
  Rig r{L2Params{}};
  MemReq q = load(1, a);
  q.bytes = bytes;
  uint64_t rds = 0;
  r.dram->set_command_observer([&](const DramCommand& c) { rds += c.cmd == DramCmd::rd; });
  r.src.add(0, q);
  r.run(2000);
  EXPECT_EQ(r.sink.got.size(), 1u);
  return {rds, stats::snapshot(r.root).counter("dram.busy_cycles"),
          r.sink.got.empty() ? 0 : r.sink.got[0].first};
}

TEST(Partition, SectorMissFetchesOneSectorNotTheLine) {
  // The L2 slice is sectored (4 x 32 B): a miss on one sector asks the DRAM for 32 B, which
  // is one column command, i.e. one BL8 burst of the 8 B channel (2 QDR command cycles).
  const MissCost sector = miss_cost(0x120, 32);
  EXPECT_EQ(sector.rd_commands, 1u);
  EXPECT_EQ(sector.busy, 2u);
  // A whole-line miss fetches all four sectors: two bursts, 4 data-bus cycles.
  const MissCost line = miss_cost(0x100, 128);
  EXPECT_EQ(line.rd_commands, 2u);
  EXPECT_EQ(line.busy, 4u);
  // Same row and bank, so the line costs exactly its second burst more: tCCDL (both bursts
  // go to one bank group) before the second RD; the data ends tCCDL cycles later.
  const DramTiming t = DramParams{}.resolve();
  EXPECT_EQ(line.done - sector.done, t.tCCDL);
  // The sector miss itself: in port, ROP pipeline, slice lookup, L2-to-DRAM pipeline, ACT to a
  // closed bank (tRCD), tCL, one burst, and two more port hops = 250 cycles.
  const L2Params l2;
  EXPECT_EQ(sector.done, 1 + l2.rop_latency.v + l2.slice.hit_latency.v + l2.dram_latency.v +
                             t.tRCD + t.tCL + t.tBURST() + 2);
  EXPECT_EQ(sector.done, 250u);
}

TEST(Partition, AtomicsToOneAddressAreSerialised) {
  L2Params p;
  p.atomic_latency = Cycle(10);
  p.atomic_same_addr_interval = Cycle(7);
  Rig r{p};
  r.src.add(0, load(1, 0x200));  // warm the line
  for (uint64_t i = 0; i < 3; ++i) r.src.add(1000, atomic(10 + i, 0x208, 1));
  r.src.add(1000, atomic(20, 0x210, 1));  // another address in the same line: not serialised
  r.run(3000);
  ASSERT_EQ(r.sink.got.size(), 5u);
  std::vector<uint64_t> same;
  uint64_t other = 0;
  for (const auto& [c, pk] : r.sink.got) {
    if (pk.msg.req.id >= 10 && pk.msg.req.id < 20) same.push_back(c);
    if (pk.msg.req.id == 20) other = c;
  }
  ASSERT_EQ(same.size(), 3u);
  // One ROP entry per cycle, so accesses finish at 1000+1+120+1, +1, +2; atomic i starts
  // atomic_same_addr_interval after atomic i-1 started, and answers atomic_latency later:
  // the answers are exactly the interval apart.
  EXPECT_EQ(same[0] - 1000, 1 + 120 + 1 + 10 + 1);
  EXPECT_EQ(same[1] - same[0], 7u);
  EXPECT_EQ(same[2] - same[1], 7u);
  EXPECT_LT(other, same[1]);
  // The values: 0, 1, 2 (fetch-and-add of 1 on a zeroed word).
  for (const auto& [c, pk] : r.sink.got) {
    if (pk.msg.req.id < 10 || pk.msg.req.id >= 20) continue;
    uint64_t old = 0;
    std::memcpy(&old, pk.msg.req.data->data(), 8);
    EXPECT_EQ(old, pk.msg.req.id - 10);
  }
}

uint64_t counter(Rig& r, const std::string& name) {
  return stats::snapshot(r.root).counter("partition[0]." + name);
}

MemReq load_line(uint64_t id, Addr a) {
  MemReq r = load(id, a);
  r.bytes = kBlockBytes;
  return r;
}

// One warp's atomic to one 4-byte word of a warm line, as the LD/ST unit sends it: `ops` lane
// operations to `addrs` distinct words, at most `depth` of them to one word.
MemReq warp_atomic(uint64_t id, Addr block, std::vector<uint32_t> words, uint8_t ops,
                   uint8_t depth) {
  MemReq r;
  r.id = id;
  r.addr = block;
  r.bytes = kBlockBytes;
  r.kind = AccessKind::atomic;
  r.byte_mask = ByteMask::none();
  for (uint32_t w : words)
    for (uint32_t k = 0; k < 4; ++k) r.byte_mask.set(w * 4 + k, true);
  for (uint32_t w : words) r.sector_mask |= 1u << (w * 4 / kSectorBytes);
  r.atomic_ops = ops;
  r.atomic_addrs = uint8_t(words.size());
  r.atomic_depth = depth;
  return r;
}

TEST(Partition, WarpOfSameAddressAtomicsCostsOneIntervalPerOperation) {
  L2Params p;  // atomic_same_addr_interval 9 (Fermi), atomic_latency 1
  ASSERT_EQ(p.atomic_same_addr_interval.v, 9u);
  Rig r{p, false};
  r.src.add(0, load_line(1, 0x400));  // warm the line
  // Two warps, each with all 32 lanes on word 2 of the line, arriving back to back.
  r.src.add(1000, warp_atomic(10, 0x400, {2}, 32, 32));
  r.src.add(1000, warp_atomic(11, 0x400, {2}, 32, 32));
  r.run(3000);
  ASSERT_EQ(r.sink.got.size(), 3u);
  // In port 1 + ROP 120 + hit 1; the 32 operations are 9 cycles apart, the answer leaves
  // atomic_latency after the last, then the out port (1).
  EXPECT_EQ(r.sink.got[1].first - 1000, 1 + 120 + 1 + 31 * 9 + 1 + 1);
  // The second warp's first operation follows the first warp's last by one interval.
  EXPECT_EQ(r.sink.got[2].first - r.sink.got[1].first, 32u * 9);
  EXPECT_EQ(counter(r, "atomics"), 2u);
  EXPECT_EQ(counter(r, "atomic_ops"), 64u);
  // 31 lanes of each warp wait behind another lane; the second warp's first one waits too.
  EXPECT_EQ(counter(r, "atomic_serialized_ops"), 31u + 31u + 1u);
  // The second reaches the unit one cycle after the first and starts 32 * 9 after it.
  EXPECT_EQ(counter(r, "atomic_serialized"), 32u * 9 - 1);
  // Each warp keeps the unit issuing from its first to its last operation: 31 * 9 + 1 cycles.
  EXPECT_EQ(counter(r, "atomic_busy_cycles"), 2u * (31 * 9 + 1));
}

TEST(Partition, DistinctAddressesInOneLineAreNotSerialised) {
  L2Params p;
  p.atomic_latency = Cycle(4);
  Rig r{p, false};
  r.src.add(0, load_line(1, 0x400));
  std::vector<uint32_t> all(32);
  for (uint32_t w = 0; w < 32; ++w) all[w] = w;
  // A warp updating the 32 words of the line, one lane each: W = 32 per cycle, so it costs
  // what one atomic costs.
  r.src.add(1000, warp_atomic(10, 0x400, all, 32, 1));
  r.run(3000);
  ASSERT_EQ(r.sink.got.size(), 2u);
  EXPECT_EQ(r.sink.got[1].first - 1000, 1 + 120 + 1 + 4 + 1);
  EXPECT_EQ(counter(r, "atomic_serialized_ops"), 0u);
  EXPECT_EQ(counter(r, "atomic_serialized"), 0u);
  EXPECT_EQ(counter(r, "atomic_busy_cycles"), 1u);

  // With 8 addresses per cycle the same warp takes 4 issue cycles; a second warp on other
  // words of the line (8 of them) is not held up by the first: it starts the next cycle.
  L2Params q = p;
  q.atomic_addrs_per_cycle = 8;
  Rig r8{q, false};
  r8.src.add(0, load_line(1, 0x400));
  std::vector<uint32_t> low(all.begin(), all.begin() + 24), high(all.begin() + 24, all.end());
  r8.src.add(1000, warp_atomic(10, 0x400, low, 24, 1));
  r8.src.add(1000, warp_atomic(11, 0x400, high, 8, 1));
  r8.run(3000);
  ASSERT_EQ(r8.sink.got.size(), 3u);
  uint64_t first = 0, second = 0;
  for (const auto& [c, pk] : r8.sink.got) {
    if (pk.msg.req.id == 10) first = c;
    if (pk.msg.req.id == 11) second = c;
  }
  EXPECT_EQ(first - 1000, 1 + 120 + 1 + 2 + 4 + 1);  // 24 / 8 = 3 issue cycles
  EXPECT_EQ(second - 1000, 1 + 120 + 1 + 1 + 0 + 4 + 1);
  EXPECT_EQ(counter(r8, "atomic_serialized"), 0u);
  EXPECT_EQ(counter(r8, "atomic_serialized_ops"), 0u);
  EXPECT_EQ(counter(r8, "atomic_busy_cycles"), 3u);  // [S, S+2] and [S+1, S+1]
}

}  // namespace
}  // namespace simtlab::timing
