// Crossbar: latency, per-port bandwidth, round-robin arbitration and back-pressure, with mock
// SMs and memory ports.
#include "timing/icnt/crossbar.h"

#include <gtest/gtest.h>

#include <memory>

#include "mem_mocks.h"
#include "stats/snapshot.h"

namespace simtlab::timing {
namespace {

using testing::Collector;
using testing::Feeder;

constexpr uint32_t kSms = 2;
constexpr uint32_t kMems = 2;

struct Rig {
  explicit Rig(IcntParams p) : p(p) {
    for (uint32_t i = 0; i < kMems; ++i)
      mem_sink.push_back(std::make_unique<Collector<MemReq>>("mem_sink" + std::to_string(i)));
    for (uint32_t i = 0; i < kSms; ++i)
      sm_sink.push_back(std::make_unique<Collector<MemResp>>("sm_sink" + std::to_string(i)));
    xbar = make_interconnect(p, kSms, kMems, root);
    for (uint32_t i = 0; i < kSms; ++i)
      sm_src.push_back(std::make_unique<Feeder<ReqPacket>>("sm_src" + std::to_string(i)));
    for (uint32_t i = 0; i < kMems; ++i)
      mem_src.push_back(std::make_unique<Feeder<RespPacket>>("mem_src" + std::to_string(i)));
    std::vector<sim::Port<ReqPacket>*> sm_in;
    std::vector<sim::Port<MemResp>*> sm_out;
    std::vector<sim::Port<MemReq>*> mem_out;
    std::vector<sim::Port<RespPacket>*> mem_in;
    for (uint32_t i = 0; i < kSms; ++i) {
      req_in.push_back(
          std::make_unique<sim::Port<ReqPacket>>(sm_src[i].get(), xbar.get(), p.input_buffer));
      resp_out.push_back(
          std::make_unique<sim::Port<MemResp>>(xbar.get(), sm_sink[i].get(), p.sm_ejection_buffer));
      sm_src[i]->out = req_in.back().get();
      sm_sink[i]->in = resp_out.back().get();
      sm_in.push_back(req_in.back().get());
      sm_out.push_back(resp_out.back().get());
    }
    for (uint32_t i = 0; i < kMems; ++i) {
      req_out.push_back(std::make_unique<sim::Port<MemReq>>(xbar.get(), mem_sink[i].get(),
                                                            p.mem_ejection_buffer));
      resp_in.push_back(
          std::make_unique<sim::Port<RespPacket>>(mem_src[i].get(), xbar.get(), p.input_buffer));
      mem_sink[i]->in = req_out.back().get();
      mem_src[i]->out = resp_in.back().get();
      mem_out.push_back(req_out.back().get());
      mem_in.push_back(resp_in.back().get());
    }
    xbar->connect(sm_in, mem_out, mem_in, sm_out);
    // Receivers first, then the crossbar, then the senders: every hop is one cycle.
    for (auto& c : mem_sink) sim.add(*c, d);
    for (auto& c : sm_sink) sim.add(*c, d);
    sim.add(*xbar, d);
    for (auto& c : sm_src) sim.add(*c, d);
    for (auto& c : mem_src) sim.add(*c, d);
  }
  void run(uint64_t cycles) {
    while (d.cycle() < cycles && sim.step()) {
    }
  }
  ReqPacket req(uint64_t id, uint32_t dest, AccessKind kind = AccessKind::load,
                uint32_t bytes = 32) {
    MemReq r;
    r.id = id;
    r.kind = kind;
    r.bytes = bytes;
    return make_request_packet(r, dest, p);
  }
  std::vector<uint64_t> arrivals(uint32_t mem) const {
    std::vector<uint64_t> v;
    for (const auto& [c, r] : mem_sink[mem]->got) v.push_back(c);
    return v;
  }
  uint64_t counter(const std::string& name) {
    return stats::snapshot(root).counter("icnt." + name);
  }

  IcntParams p;
  sim::Simulation sim;
  sim::ClockDomain& d = sim.add_domain("icnt", 1000.0);
  stats::Group root{""};
  std::vector<std::unique_ptr<Collector<MemReq>>> mem_sink;
  std::vector<std::unique_ptr<Collector<MemResp>>> sm_sink;
  std::unique_ptr<Interconnect> xbar;
  std::vector<std::unique_ptr<Feeder<ReqPacket>>> sm_src;
  std::vector<std::unique_ptr<Feeder<RespPacket>>> mem_src;
  std::vector<std::unique_ptr<sim::Port<ReqPacket>>> req_in;
  std::vector<std::unique_ptr<sim::Port<MemReq>>> req_out;
  std::vector<std::unique_ptr<sim::Port<RespPacket>>> resp_in;
  std::vector<std::unique_ptr<sim::Port<MemResp>>> resp_out;
};

TEST(Crossbar, OneFlitPacketTakesTheConfiguredLatency) {
  IcntParams p;  // latency 3
  Rig r{p};
  r.sm_src[0]->add(10, r.req(1, 1));
  r.run(100);
  // Sent at 10, visible to the crossbar at 11, granted at 11, visible at 11 + latency.
  EXPECT_EQ(r.arrivals(1), (std::vector<uint64_t>{14}));
  EXPECT_TRUE(r.arrivals(0).empty());
  EXPECT_EQ(r.counter("req_packets"), 1u);
  EXPECT_EQ(r.counter("req_flits"), 1u);
}

TEST(Crossbar, PacketsAreSplitIntoFlits) {
  IcntParams p;  // 40 B flits, 8 B header
  Rig r{p};
  EXPECT_EQ(r.req(1, 0, AccessKind::load).flits, 1u);        // 8 B
  EXPECT_EQ(r.req(1, 0, AccessKind::store, 32).flits, 1u);   // 40 B
  EXPECT_EQ(r.req(1, 0, AccessKind::store, 64).flits, 2u);   // 72 B
  EXPECT_EQ(r.req(1, 0, AccessKind::store, 128).flits, 4u);  // 136 B
  MemReq ld;
  ld.bytes = 128;
  EXPECT_EQ(make_response_packet(MemResp{ld, 0}, p).flits, 4u);  // 8 + 128 B of data
}

std::vector<uint64_t> gaps(uint32_t flits_per_cycle, uint32_t store_bytes) {
  IcntParams p;
  p.flits_per_cycle = flits_per_cycle;
  Rig r{p};
  for (uint64_t i = 0; i < 10; ++i)
    r.sm_src[0]->add(0, r.req(i, 0, AccessKind::store, store_bytes));
  r.run(200);
  const auto a = r.arrivals(0);
  EXPECT_EQ(a.size(), 10u);
  std::vector<uint64_t> g;
  for (size_t i = 1; i < a.size(); ++i) g.push_back(a[i] - a[i - 1]);
  return g;
}

TEST(Crossbar, DeliversAtTheConfiguredBandwidth) {
  EXPECT_EQ(gaps(1, 128), std::vector<uint64_t>(9, 4));  // 4 flits at 1 flit/cycle
  EXPECT_EQ(gaps(2, 128), std::vector<uint64_t>(9, 2));  // 4 flits at 2 flits/cycle
  EXPECT_EQ(gaps(1, 32), std::vector<uint64_t>(9, 1));   // 1 flit
  // The first of the 4-flit packets: granted at 1, visible at 1 + latency + 4 - 1.
  IcntParams p;
  Rig r{p};
  r.sm_src[0]->add(0, r.req(0, 0, AccessKind::store, 128));
  r.run(50);
  EXPECT_EQ(r.arrivals(0), (std::vector<uint64_t>{7}));
  EXPECT_EQ(r.counter("req_flits"), 4u);
}

TEST(Crossbar, RoundRobinBetweenInputs) {
  Rig r{IcntParams{}};
  for (uint64_t i = 0; i < 4; ++i) {
    r.sm_src[0]->add(0, r.req(100 + i, 0));
    r.sm_src[1]->add(0, r.req(200 + i, 0));
  }
  r.run(100);
  std::vector<uint64_t> ids;
  for (const auto& [c, req] : r.mem_sink[0]->got) ids.push_back(req.id);
  EXPECT_EQ(ids, (std::vector<uint64_t>{100, 200, 101, 201, 102, 202, 103, 203}));
}

TEST(Crossbar, FullReceiverBackPressures) {
  IcntParams p;
  p.mem_ejection_buffer = 2;
  p.input_buffer = 4;
  Rig r{p};
  r.mem_sink[0]->hold = true;
  for (uint64_t i = 0; i < 10; ++i) r.sm_src[0]->add(0, r.req(i, 0));
  r.run(100);
  EXPECT_EQ(r.req_out[0]->size(), 2u);  // the receiver's buffer is full
  EXPECT_EQ(r.counter("req_packets"), 2u);
  EXPECT_GT(r.counter("req_stalls"), 0u);
  EXPECT_EQ(r.req_in[0]->size(), 4u);  // the input buffer filled up behind it
  EXPECT_FALSE(r.sm_src[0]->done());   // and the sender is held back
  r.mem_sink[0]->hold = false;
  r.mem_sink[0]->wake();
  r.run(200);
  EXPECT_EQ(r.mem_sink[0]->got.size(), 10u);
}

TEST(Crossbar, ResponsesRouteToTheRequestingSm) {
  Rig r{IcntParams{}};
  MemReq q;
  q.id = 7;
  q.sm = 1;
  r.mem_src[0]->add(5, make_response_packet(MemResp{q, 0}, r.p));
  r.run(100);
  ASSERT_EQ(r.sm_sink[1]->got.size(), 1u);
  EXPECT_TRUE(r.sm_sink[0]->got.empty());
  EXPECT_EQ(r.sm_sink[1]->got[0].second.req.id, 7u);
  EXPECT_EQ(r.sm_sink[1]->got[0].first, 5u + 1 + 3);  // 8 + 32 B = one flit
  EXPECT_TRUE(r.xbar->idle());
}

}  // namespace
}  // namespace simtlab::timing
