// DramChannel: exact DRAM-cycle timing against mock neighbours and a command log.
#include "timing/mem/dram.h"

#include <gtest/gtest.h>

#include <memory>

#include "mem_mocks.h"
#include "stats/snapshot.h"
#include "timing/mem/address_map.h"

namespace simtlab::timing {
namespace {

using testing::Collector;
using testing::Feeder;

/// One channel, one slice: the channel-local address is the address, and the GTX480 layout
/// puts bank bits at {15 14 13 8} and the row at bits 16 and up.
Addr at(uint32_t bank, uint64_t row, uint32_t col_bytes = 0) {
  return (row << 16) | (Addr(bank >> 1) << 13) | (Addr(bank & 1) << 8) | col_bytes;
}

MemReq read(uint64_t id, Addr a, uint32_t bytes = 32) {
  MemReq r;
  r.id = id;
  r.addr = a;
  r.bytes = bytes;
  return r;
}

struct Rig {
  explicit Rig(DramParams p, bool keep_data = false) {
    AddressMapParams mp;
    mp.channels = 1;
    mp.sub_partitions = 1;
    map = std::make_unique<AddressMap>(mp);
    ch = std::make_unique<DramChannel>("dram", p, *map, root, keep_data);
    in = std::make_unique<sim::Port<MemReq>>(&src, ch.get(), 64);
    out = std::make_unique<sim::Port<MemResp>>(ch.get(), &sink, 256);
    src.out = in.get();
    sink.in = out.get();
    ch->connect(in.get(), out.get());
    ch->set_command_observer([this](const DramCommand& c) { cmds.push_back(c); });
    sim.add(sink, d);
    sim.add(*ch, d);
    sim.add(src, d);
  }
  void run(uint64_t cycles) {
    while (d.cycle() < cycles && sim.step()) {
    }
  }
  std::vector<uint64_t> order() const {
    std::vector<uint64_t> v;
    for (const auto& [c, r] : sink.got) v.push_back(r.req.id);
    return v;
  }
  std::vector<uint64_t> cycles_of(DramCmd c) const {
    std::vector<uint64_t> v;
    for (const DramCommand& x : cmds)
      if (x.cmd == c) v.push_back(x.cycle);
    return v;
  }
  uint64_t counter(const char* name) {
    return stats::snapshot(root).counter(std::string("dram.") + name);
  }

  sim::Simulation sim;
  sim::ClockDomain& d = sim.add_domain("dram", 1000.0);
  stats::Group root{""};
  std::unique_ptr<AddressMap> map;
  Collector<MemResp> sink{"sink"};
  Feeder<MemReq> src{"src"};
  std::unique_ptr<DramChannel> ch;
  std::unique_ptr<sim::Port<MemReq>> in;
  std::unique_ptr<sim::Port<MemResp>> out;
  std::vector<DramCommand> cmds;
};

/// Latency (request sent -> response seen) of a read to `row` of bank 0 at cycle 200, after
/// an earlier read opened row 1.
uint64_t second_read_latency(uint64_t row) {
  Rig r{DramParams{}};
  r.src.add(0, read(1, at(0, 1)));
  r.src.add(200, read(2, at(0, row)));
  r.run(400);
  EXPECT_EQ(r.sink.got.size(), 2u);
  return r.sink.got.at(1).first - 200;
}

TEST(Dram, RowHitBeatsRowMissByExactlyTrpPlusTrcd) {
  const DramTiming t = DramParams{}.resolve();
  const uint64_t hit = second_read_latency(1);
  const uint64_t miss = second_read_latency(2);
  // In port (1) + tCL + one burst (BL8 / QDR = 2) + out port (1).
  EXPECT_EQ(hit, 1 + t.tCL + t.tBURST() + 1);
  EXPECT_EQ(miss - hit, t.tRP + t.tRCD);
}

TEST(Dram, ClosedBankCostsTrcd) {
  const DramTiming t = DramParams{}.resolve();
  Rig r{DramParams{}};
  r.src.add(10, read(1, at(3, 7)));
  r.run(200);
  ASSERT_EQ(r.sink.got.size(), 1u);
  EXPECT_EQ(r.sink.got[0].first - 10, 1 + t.tRCD + t.tCL + t.tBURST() + 1);
  EXPECT_EQ(r.cycles_of(DramCmd::act), (std::vector<uint64_t>{11}));
  EXPECT_EQ(r.cycles_of(DramCmd::rd), (std::vector<uint64_t>{11 + t.tRCD}));
}

/// A (row 1) opens the row; then B (row 2, older) and C (row 1) arrive together.
std::vector<uint64_t> service_order(const char* scheduler, uint64_t* row_hits) {
  DramParams p;
  p.scheduler = scheduler;
  Rig r{p};
  r.src.add(0, read(1, at(0, 1)));
  r.src.add(100, read(2, at(0, 2)));
  r.src.add(100, read(3, at(0, 1)));
  r.run(400);
  *row_hits = r.counter("row_hits");
  return r.order();
}

TEST(Dram, FrFcfsServesAYoungerRowHitFirst) {
  uint64_t hits = 0;
  EXPECT_EQ(service_order("frfcfs", &hits), (std::vector<uint64_t>{1, 3, 2}));
  EXPECT_EQ(hits, 1u);
}

TEST(Dram, FcfsKeepsArrivalOrder) {
  uint64_t hits = 0;
  EXPECT_EQ(service_order("fcfs", &hits), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(hits, 0u);
}

TEST(Dram, RefreshBlocksTheBanksForTrfc) {
  DramParams p;
  p.tREFI = 200;
  p.tRFC = 50;
  Rig r{p};
  uint64_t id = 0;
  for (uint64_t c = 150; c < 400; c += 5, ++id) r.src.add(c, read(id + 1, at(0, 1 + id % 2)));
  r.run(2000);
  EXPECT_EQ(r.sink.got.size(), id);
  const auto refs = r.cycles_of(DramCmd::ref);
  ASSERT_FALSE(refs.empty());
  const uint64_t ref = refs[0];
  EXPECT_GE(ref, 200u);
  // Rows were closed before the refresh, and the next ACT waits exactly tRFC.
  uint64_t next_act = 0;
  bool open = false;
  for (const DramCommand& c : r.cmds) {
    if (c.cycle < ref) open = c.cmd == DramCmd::act ? true : c.cmd == DramCmd::pre ? false : open;
    if (c.cmd == DramCmd::act && c.cycle > ref && !next_act) next_act = c.cycle;
  }
  EXPECT_FALSE(open);
  EXPECT_EQ(next_act, ref + 50);
  EXPECT_GE(r.counter("refreshes"), 1u);
}

std::vector<uint64_t> five_activates(int32_t tfaw) {
  DramParams p;
  p.tRRD = 2;
  p.tFAW = tfaw;
  Rig r{p};
  for (uint32_t b = 0; b < 5; ++b) r.src.add(10, read(b + 1, at(b, 1)));
  r.run(300);
  EXPECT_EQ(r.sink.got.size(), 5u);
  return r.cycles_of(DramCmd::act);
}

TEST(Dram, TfawLimitsActivates) {
  const auto free_acts = five_activates(0);
  ASSERT_EQ(free_acts.size(), 5u);
  EXPECT_EQ(free_acts[1] - free_acts[0], 2u);  // tRRD
  EXPECT_EQ(free_acts[4] - free_acts[0], 8u);  // 4 x tRRD
  const auto faw_acts = five_activates(40);
  ASSERT_EQ(faw_acts.size(), 5u);
  EXPECT_EQ(faw_acts[3] - faw_acts[0], 6u);
  EXPECT_EQ(faw_acts[4] - faw_acts[0], 40u);  // the fifth waits for the window
}

TEST(Dram, BurstsAndBandwidthStats) {
  Rig r{DramParams{}};
  r.src.add(0, read(1, at(0, 1), 128));  // 128 B over an 8 B QDR bus: two 64 B bursts
  r.run(200);
  EXPECT_EQ(r.cycles_of(DramCmd::rd).size(), 2u);
  EXPECT_EQ(r.counter("busy_cycles"), 4u);
  EXPECT_EQ(r.ch->burst_bytes(), 64u);
  r.ch->update_stats();
  EXPECT_EQ(r.counter("cycles"), r.d.cycle());
}

TEST(Dram, ReadsNeverPassAWriteToTheSameBlock) {
  // R10 opens row 1 and reads; W then must wait tRTW after it while a read to W's block could
  // go after tCCD: the read waits for the write anyway.
  Rig r{DramParams{}, /*keep_data=*/true};
  MemReq w;
  w.id = 1;
  w.addr = at(0, 1);
  w.bytes = 32;
  w.kind = AccessKind::store;
  w.data = std::make_shared<std::vector<uint8_t>>(32, 0xab);
  r.src.add(0, read(10, at(0, 1, 128)));
  r.src.add(20, w);
  r.src.add(20, read(3, at(0, 1)));
  r.run(300);
  ASSERT_EQ(r.sink.got.size(), 3u);
  const auto wr = r.cycles_of(DramCmd::wr);
  const auto rd = r.cycles_of(DramCmd::rd);
  ASSERT_EQ(wr.size(), 1u);
  ASSERT_EQ(rd.size(), 2u);
  EXPECT_GT(rd[1], wr[0]);
  for (const auto& [c, resp] : r.sink.got)
    if (resp.req.id == 3) {
      ASSERT_TRUE(resp.req.data);
      EXPECT_EQ((*resp.req.data)[0], 0xab);
    }
}

TEST(Dram, WriteBacksAreNotAnswered) {
  Rig r{DramParams{}};
  MemReq w;
  w.id = 1;
  w.addr = at(1, 1);
  w.kind = AccessKind::store;
  w.writeback = true;
  r.src.add(0, w);
  r.run(200);
  EXPECT_TRUE(r.sink.got.empty());
  EXPECT_EQ(r.counter("writes"), 1u);
  EXPECT_TRUE(r.ch->idle());
}

/// A streaming pattern: `n` 128-byte requests to consecutive blocks of a 32 KB window (row 0
/// of the 8 banks that address bits {14 13 8} select), all queued at cycle 0; with `mix`,
/// every third one is a write (vectorAdd's two loads and one store). Returns the cycle the last
/// answer arrives, and the command log's REF count.
struct Stream {
  uint64_t last = 0, busy = 0, refs = 0, acts = 0;
};
Stream stream(const DramParams& p, uint32_t n, bool mix) {
  Rig r{p};
  for (uint32_t i = 0; i < n; ++i) {
    MemReq q = read(i + 1, Addr(i % 256) * 128, 128);
    if (mix && i % 3 == 2) q.kind = AccessKind::store;
    r.src.add(0, q);
  }
  r.run(1000000);
  EXPECT_EQ(r.sink.got.size(), n);
  return {r.sink.got.empty() ? 0 : r.sink.got.back().first, r.counter("busy_cycles"),
          r.cycles_of(DramCmd::ref).size(), r.counter("activates")};
}

/// The GDDR5 refresh and activate-window constraints of the fermi-gtx480 preset (configs/
/// fermi-gtx480.yaml: tREFI 3.9 us, tRFC 110 ns, tFAW 23 ns at the 700 MHz command clock).
DramParams gtx480_dram() {
  DramParams p;
  p.tREFI = 2730;
  p.tRFC = 77;
  p.tFAW = 16;
  return p;
}

TEST(Dram, StreamingReadsWithoutRefreshKeepTheBusBusy) {
  const Stream s = stream(DramParams{}, 4096, false);
  EXPECT_EQ(s.busy, 4096u * 4);  // two 64 B bursts of 2 cycles per 128 B
  EXPECT_EQ(s.refs, 0u);
  EXPECT_EQ(s.acts, 8u);  // one ACT per bank, then row hits only
  // 16384 data cycles in 16414: 99.8% of peak. Only the first ACT's tRCD + tCL and the last
  // answer's port hop are not overlapped; FR-FCFS interleaves bank groups, so the
  // same-group tCCDL does not show.
  EXPECT_EQ(s.last, 16414u);
}

TEST(Dram, RefreshCostsStreamingReadsTrfcPlusTheReopening) {
  const Stream s = stream(gtx480_dram(), 4096, false);
  EXPECT_EQ(s.busy, 4096u * 4);
  // One all-bank refresh every tREFI (2730 cycles) of the ~17000: six.
  EXPECT_EQ(s.refs, 6u);
  // Each refresh closes every row, so the rows are opened again after it: 54 ACTs instead of
  // 8, at most 8 per refresh (after a refresh late in the stream fewer banks are still needed).
  EXPECT_EQ(s.acts, 54u);
  // 658 cycles more than without refresh, ~110 per refresh: precharge-all (waiting out tRAS
  // and tRTP of the open banks), tRFC (77), then tRCD + tCL before data flows again, with the
  // queue's other banks unable to fill the gap. Efficiency 16384 / 17072 = 96.0%.
  EXPECT_EQ(s.last, 17072u);
}

TEST(Dram, ReadWriteMixPaysTheTurnarounds) {
  const Stream plain = stream(DramParams{}, 4096, true);
  EXPECT_EQ(plain.busy, 4096u * 4);
  // Read-to-write (tRTW) and write-to-read (tWL + tBURST + tWTR) turnarounds: 348 cycles
  // more than reads only; FR-FCFS batches row hits of one kind, so they stay rare (97.7%).
  EXPECT_EQ(plain.last, 16762u);
  const Stream refreshed = stream(gtx480_dram(), 4096, true);
  EXPECT_EQ(refreshed.refs, 6u);
  EXPECT_EQ(refreshed.last, 17399u);  // 94.2% of peak
}

TEST(Dram, TimingSetsAndOverrides) {
  DramParams p;
  EXPECT_EQ(p.resolve().tRCD, 12u);
  EXPECT_EQ(p.resolve().bank_groups, 4u);
  p.timing = "gddr3_thesis";
  EXPECT_EQ(p.resolve().data_rate, 2u);
  EXPECT_EQ(p.resolve().tRAS, 28u);
  p.tRAS = 30;
  EXPECT_EQ(p.resolve().tRAS, 30u);
}

}  // namespace
}  // namespace simtlab::timing
