// Crossbar: a single-stage crossbar for both networks (requests SM -> memory, responses
// memory -> SM), a Component in the interconnect clock domain.
//
// Per network and cycle: every output that is free and has a credit grants one input whose
// head packet (visible in its input port) targets it, round robin starting after the input it
// granted last. Inputs and outputs are busy for S = ceil(flits / flits_per_cycle) cycles per
// packet (per-port bandwidth), and an input's head packet blocks the ones behind it (FIFO
// input buffers). A packet granted at cycle t is visible to its receiver at
// t + latency + S - 1. An output grants only while (packets in flight to it + packets in its
// output port) < the port capacity, so a full receiver stalls the network (counted).
//
// Stats (group "icnt"): packets and flits per network, busy cycles per output port, credit
// stalls per network, and utilisation ratios after update_stats().
#pragma once

#include <memory>

#include "timing/icnt/interconnect.h"

namespace simtlab::timing {

class Crossbar final : public Interconnect {
 public:
  Crossbar(const IcntParams& p, uint32_t num_sms, uint32_t num_mem, stats::Group& parent);
  ~Crossbar() override;

  void connect(std::vector<sim::Port<ReqPacket>*> sm_in, std::vector<sim::Port<MemReq>*> mem_out,
               std::vector<sim::Port<RespPacket>*> mem_in,
               std::vector<sim::Port<MemResp>*> sm_out) override;
  bool tick() override;
  void update_stats() override;
  bool idle() const override;

 private:
  struct Nets;
  std::unique_ptr<Nets> nets_;
};

}  // namespace simtlab::timing
