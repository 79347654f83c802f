// MemoryPartition: one memory partition (book 1.15), a Component in the L2 clock domain. It
// holds the L2 slices of one DRAM channel (sub-partitions), an atomic unit and the queues
// between the interconnect, the slices and the channel. Cycle counts are L2 cycles.
//
// Per slice and cycle, in order:
//   1. a request arriving from the interconnect enters the slice's ROP pipeline, which delays
//      it rop_latency cycles (GPGPU-Sim's gpgpu_l2_rop_latency) and holds rop_queue entries;
//   2. the pipeline head accesses the slice (Cache); a reservation failure retries next cycle
//      and blocks the requests behind it (slices process requests in order, book 1.15);
//   3. one completed access leaves the slice: atomics go through the atomic unit, everything
//      else enters the response queue (response_queue entries) towards the interconnect.
// Per partition and cycle: one fill or forwarded answer from the channel goes to its slice;
// one slice miss-queue head (round robin over slices) enters the DRAM pipeline, which delays
// it dram_latency cycles (GPGPU-Sim's dram_latency) on the way to the channel.
//
// Atomic unit: atomics perform their read-modify-write in the slice (so they are ordered with
// the loads and stores to their line, and values are right whatever the timing); the unit
// times them. A transaction carries `ops` lane operations to `addrs` distinct addresses of
// one 128-byte block, at most `depth` of them to one address (MemReq::atomic_*). With
// I = atomic_same_addr_interval and W = atomic_addrs_per_cycle:
//   start  S = the first cycle >= now at which every 4-byte word it updates is free (an
//              earlier operation to that word was issued at least I cycles before) and no
//              other transaction starts (one transaction start per cycle);
//   last operation  L = S + max(ceil(addrs / W) - 1, (depth - 1) * I);
//   answer          L + atomic_latency;
//   its words are free again at S + depth * I (the depth of the deepest chain is used for all
//   the words of the transaction).
// Distinct addresses pipeline (W per cycle); operations to one address are I cycles apart
// (NVIDIA, Kepler GK110 whitepaper: same-address throughput one per clock on Kepler, 9x that
// of Fermi). Transactions to other words are not held up by a serialised one.
//
// Write-backs (MemReq::writeback) are performed and never answered. The partition sleeps when
// idle and wakes itself at its next internal event.
//
// Two L2 partitions (mem.l2.partitions = 2; A100 whitepaper: "each L2 partition localizes and
// caches data for memory accesses from SMs in the GPCs directly connected to the partition").
// Channels [0, C/2) form partition 0, [C/2, C) partition 1; SMs [0, N/2) use partition 0, the
// rest partition 1. A line's home is the slice the address map names. An SM's request for a
// line homed in the other partition goes to the mirror slice in its own partition (same
// sub-partition, channel +- C/2: MemorySystem::send), its near copy:
//   - reads (loads, constant/texture/instruction fetches) look the near slice up as usual; a
//     miss (and a write-back) goes over the partition link to the home slice instead of the
//     DRAM pipeline (MemReq::peer = 1); the home slice's answer fills the near slice;
//   - stores and atomics (the home slice is the point of coherence) are relayed over the link
//     to the home slice untouched (MemReq::peer = 2), whose answer the near slice passes on.
// The link, one per mirror pair and direction, delays each request or answer
// partition_link_latency L2 cycles (it stands for the crossing and the home slice's pipeline,
// so requests from the link skip rop_latency at the home slice), carries one per cycle and
// holds partition_link_queue entries. Not modelled: invalidation of near copies when the other
// partition writes the line (timing only: values come from the functional model).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/describer.h"
#include "sim/sim.h"
#include "stats/group.h"
#include "timing/icnt/interconnect.h"
#include "timing/mem/address_map.h"
#include "timing/mem/cache.h"
#include "timing/mem/request.h"
#include "timing/mem/ring.h"

namespace simtlab::timing {

/// The GTX480-class L2 slice: D2MA Table 1 capacity and associativity, GPGPU-Sim GTX480
/// policies (see the citations inside).
CacheParams l2_slice_defaults();

struct L2Params {
  CacheParams slice = l2_slice_defaults();
  Cycle rop_latency{120};
  Cycle dram_latency{100};
  Cycle atomic_latency{1};
  Cycle atomic_same_addr_interval{9};
  uint32_t atomic_addrs_per_cycle = 32;
  uint32_t rop_queue = 64;
  uint32_t dram_queue = 64;
  uint32_t dram_return_queue = 64;
  uint32_t response_queue = 64;
  bool memcpy_fills = true;
  // Two L2 partitions (A100/H100): see MemoryPartition. 1 = one L2 (every slice equally near).
  uint32_t partitions = 1;
  Cycle partition_link_latency{0};
  uint32_t partition_link_queue = 64;

  void describe(config::Describer& d);
};

class MemoryPartition : public sim::Component {
 public:
  /// Partition `id` serves channel `id`; its slices are global slices
  /// id * map.sub_partitions() + s. `map` must outlive the partition.
  MemoryPartition(uint32_t id, const L2Params& p, const IcntParams& icnt, const AddressMap& map,
                  stats::Group& parent, bool keep_data = false);
  ~MemoryPartition() override;

  /// icnt_in[s]: requests for slice s (receiver: this). icnt_out[s]: slice s's responses into
  /// the interconnect (sender: this). dram_out / dram_in: to and from the channel.
  void connect(std::vector<sim::Port<MemReq>*> icnt_in,
               std::vector<sim::Port<RespPacket>*> icnt_out, sim::Port<MemReq>* dram_out,
               sim::Port<MemResp>* dram_in);
  /// Two partitions: the link to and from the mirror partition (req_out / resp_out: this
  /// partition's forwarded requests and answers, receiver the mirror; req_in / resp_in: the
  /// mirror's, receiver this). `home_part` is the partition this one belongs to.
  void connect_peer(uint32_t home_part, sim::Port<MemReq>* req_out, sim::Port<MemReq>* req_in,
                    sim::Port<MemResp>* resp_out, sim::Port<MemResp>* resp_in);
  bool tick() override;
  bool idle() const;
  Cache& slice(uint32_t s) { return *slices_[s].cache; }
  uint32_t num_slices() const { return uint32_t(slices_.size()); }

 private:
  struct Timed {
    uint64_t ready = 0;
    MemReq req;
  };
  struct Slice {
    std::unique_ptr<Cache> cache;
    Ring<Timed> rop;
    Ring<MemResp> resp;
    sim::Port<MemReq>* in = nullptr;
    sim::Port<RespPacket>* out = nullptr;
  };
  struct AtomBlock {  // a block with words the atomic unit is still busy on
    Addr block = 0;
    uint64_t until = 0;                   // max of word[]
    uint64_t word[kBlockBytes / 4] = {};  // cycle from which each 4-byte word is free
  };
  struct Atomic {
    uint64_t done = 0;
    uint64_t seq = 0;
    uint32_t slice = 0;
    MemResp resp;
  };

  void start_atomic(uint32_t s, MemReq req, bool hit, uint64_t now);
  bool far(Addr a) const;                        // homed in the other partition
  bool peer_tick(uint64_t now, uint64_t* wake);  // the link's share of tick()
  struct TimedResp {
    uint64_t ready = 0;
    MemResp resp;
  };
  struct Peer {
    uint32_t part = 0;  // this partition's L2 partition
    uint32_t half = 1;  // channels per partition
    sim::Port<MemReq>* req_out = nullptr;
    sim::Port<MemReq>* req_in = nullptr;
    sim::Port<MemResp>* resp_out = nullptr;
    sim::Port<MemResp>* resp_in = nullptr;
    Ring<Timed> req_q;       // requests on the link towards the mirror
    Ring<TimedResp> resp_q;  // answers on the link towards the mirror
    stats::Counter* far_reads = nullptr;
    stats::Counter* far_writes = nullptr;
    stats::Counter* served = nullptr;
    stats::Counter* stalls = nullptr;
  };
  std::unique_ptr<Peer> peer_;  // null with one partition

  uint32_t id_;
  L2Params p_;
  IcntParams icnt_;
  const AddressMap& map_;
  std::vector<Slice> slices_;
  Ring<Timed> dram_q_;
  sim::Port<MemReq>* dram_out_ = nullptr;
  sim::Port<MemResp>* dram_in_ = nullptr;
  uint32_t rr_ = 0;
  std::vector<Atomic> atomics_;        // in flight, unordered
  std::vector<AtomBlock> atom_busy_;   // blocks with busy words (recent)
  uint64_t atom_unit_until_ = 0;       // end of the latest issue window
  std::vector<uint64_t> atom_starts_;  // booked start cycles (>= now)
  uint64_t atom_seq_ = 0;

  stats::Group g_;
  stats::Counter& requests_;
  stats::Counter& rop_stalls_;
  stats::Counter& atomics_stat_;
  stats::Counter& atomic_serialized_;
  stats::Counter& atomic_ops_;
  stats::Counter& atomic_serialized_ops_;
  stats::Counter& atomic_busy_;
  stats::Counter& dram_requests_;
};

}  // namespace simtlab::timing
