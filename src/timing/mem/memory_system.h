// MemorySystem: everything below the SMs' LD/ST units: the interconnect, one MemoryPartition
// (L2 slices + atomic unit) and one DramChannel per channel, wired together and registered
// with a Simulation. Wiring lives here and nowhere else.
//
// Clock domains are created by the caller and passed in (MemoryDomains): "icnt" for the
// interconnect, "l2" for the partitions, "dram" for the channels (gpu.icnt_mhz, gpu.l2_mhz,
// gpu.dram_mhz). Components are registered in the order: interconnect, partitions,
// channels.
//
// SM side (core clock): each SM is a sim::Component attached with attach_sm() before the
// simulation runs. From its own tick the SM calls
//   can_send(sm) / send(sm, req)   request into the interconnect's bounded input buffer
//                                  (mem.icnt.input_buffer packets); req.sm is set to `sm`
//   peek(sm) / pop(sm)             responses, visible one cycle after the interconnect
//                                  delivers them into the SM's ejection buffer
//                                  (mem.icnt.sm_ejection_buffer); a response arriving wakes
//                                  the SM component
// Every request gets exactly one response except MemReq::writeback requests (none). The SM
// matches responses by MemReq::id.
//
// Ordering guarantees (the random-traffic checker tests them):
//   - Requests from one SM to one L2 slice are performed at the slice in the order the SM sent
//     them (FIFO ports, FIFO crossbar inputs, in-order slices, per-line ordering in the Cache,
//     per-block ordering in the DRAM queue). So one SM sees its own stores, and its loads and
//     atomics to one address follow its program order.
//   - The L2 is the point of coherence: every load, store and atomic to an address is
//     performed at its one slice, in a single order all SMs observe (per-location
//     coherence). Atomics to one address are serialised.
//   - There is no ordering across different addresses and no ordering of responses.
// Deterministic: the same inputs give the same cycles and stats.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/describer.h"
#include "sim/sim.h"
#include "stats/group.h"
#include "timing/icnt/interconnect.h"
#include "timing/mem/address_map.h"
#include "timing/mem/dram.h"
#include "timing/mem/memory_params.h"
#include "timing/mem/partition.h"
#include "timing/mem/request.h"

namespace simtlab::timing {

struct MemoryDomains {
  sim::ClockDomain& icnt;
  sim::ClockDomain& l2;
  sim::ClockDomain& dram;
};

struct MemoryOptions {
  bool keep_data = false;  // checker mode: L2 slices and DRAM keep bytes
};

class MemorySystem {
 public:
  /// Builds and registers everything; stats under group "mem" of `parent`. Throws UserError
  /// for inconsistent parameters (naming the mem.* key).
  MemorySystem(const MemoryParams& p, sim::Simulation& sim, const MemoryDomains& d,
               uint32_t num_sms, stats::Group& parent, MemoryOptions opts = {});
  ~MemorySystem();
  MemorySystem(const MemorySystem&) = delete;
  MemorySystem& operator=(const MemorySystem&) = delete;

  /// Connects SM `sm`'s component (already added to the Simulation, in the core domain). Every
  /// SM must be attached before the first send.
  void attach_sm(uint32_t sm, sim::Component& sm_component);

  bool can_send(uint32_t sm) const;
  void send(uint32_t sm, MemReq req);
  const MemResp* peek(uint32_t sm) const;
  MemResp pop(uint32_t sm);

  /// Brings time-integrated stats (DRAM and interconnect cycles, occupancy) up to date.
  void update_stats();
  /// The copy engine wrote [a, a + n) of device memory: with mem.l2.memcpy_fills, each 128-byte
  /// block's fully written 32-byte sectors are written into its L2 slice
  /// (Cache::external_write), in address order. Instantaneous (between or beside kernels).
  void copy_engine_write(Addr a, uint64_t n);
  /// Nothing buffered or in flight anywhere below the SMs (responses not yet popped count).
  bool idle() const;

  const MemoryParams& params() const { return p_; }
  const AddressMap& address_map() const { return map_; }
  uint32_t num_sms() const { return num_sms_; }
  uint32_t num_partitions() const { return uint32_t(parts_.size()); }
  MemoryPartition& partition(uint32_t i) { return *parts_[i]; }
  DramChannel& dram(uint32_t i) { return *drams_[i]; }
  Interconnect& icnt() { return *icnt_; }

 private:
  MemoryParams p_;
  uint32_t num_sms_;
  AddressMap map_;
  stats::Group g_;
  std::unique_ptr<Interconnect> icnt_;
  std::vector<std::unique_ptr<MemoryPartition>> parts_;
  std::vector<std::unique_ptr<DramChannel>> drams_;
  // Ports (owned here).
  std::vector<std::unique_ptr<sim::Port<ReqPacket>>> sm_in_;
  std::vector<std::unique_ptr<sim::Port<MemResp>>> sm_out_;
  std::vector<std::unique_ptr<sim::Port<MemReq>>> slice_in_;
  std::vector<std::unique_ptr<sim::Port<RespPacket>>> slice_out_;
  std::vector<std::unique_ptr<sim::Port<MemReq>>> dram_in_;
  // Two L2 partitions: the links between mirror partitions (partition.h).
  std::vector<std::unique_ptr<sim::Port<MemReq>>> link_req_;
  std::vector<std::unique_ptr<sim::Port<MemResp>>> link_resp_;
  std::vector<std::unique_ptr<sim::Port<MemResp>>> dram_out_;
  uint32_t attached_ = 0;
};

}  // namespace simtlab::timing
