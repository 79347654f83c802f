// The LD/ST unit of an SM (GPGPU book 4.1): takes memory instructions after operand
// collection, turns each warp access into transactions and pushes them through the SM's
// caches one per cycle.
//
//  - Shared memory: 32 banks x 4 bytes (sm.smem_banks); lanes reading the same 32-bit word
//    share it (broadcast); an n-way bank conflict takes n passes. Latency sm.smem_latency.
//  - Distributed shared memory (thread-block clusters): lanes addressing another CTA's shared
//    memory (WarpInstRecord::dsmem) go over the SM-to-SM network: one cycle of the SM's
//    network port per distinct 32-byte segment (the Hopper tuning guide asks for DSMEM
//    accesses coalesced like global ones), data back sm.dsmem_latency later; the rest of the
//    lanes take the local bank passes. No contention inside the network is modelled.
//  - Global/local: coalesced per 128-byte block (Fermi rules, CUDA Programming Guide F.4.2):
//    cached loads fetch whole lines through the L1D; L1-bypassing loads (.cg/.cs/volatile,
//    or sm.l1d_global=false), stores and atomics send only the 32-byte sectors touched.
//    Local memory is interleaved so the same offset of consecutive lanes is contiguous.
//  - Constant and kernel-parameter loads go through the constant cache; each distinct
//    32-bit word in a warp costs one access (broadcast of equal addresses).
//  - Texture fetches go through the texture cache, one access per 128-byte block.
// One transaction enters a cache per cycle; a reservation failure (MSHRs full, ...) retries
// the next cycle. An instruction completes when its last transaction returns.
// With mrpb.enable, L1D transactions pass through per-warp FIFOs drained by priority
// (src/ext/mrpb); with mrpb.bypass, a load refused for an associativity stall (every way of its
// set reserved) is resent as an L1-bypassing load.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "func/memory.h"
#include "func/record.h"
#include "stats/group.h"
#include "timing/mem/cache.h"
#include "timing/sm/inflight.h"
#include "timing/sm/mem_port.h"

namespace simtlab::ext {
class Mrpb;
}

namespace simtlab::timing {

struct SmParams;
class TraceSink;
class TmaUnit;

/// Told about every L1D access of a global/local load the LD/ST unit makes (research
/// mechanisms: CCWS lost-locality detection).
class L1dAccessObserver {
 public:
  virtual ~L1dAccessObserver() = default;
  virtual void l1d_access(uint32_t warp_slot, Addr line, AccessStatus st) = 0;
};

class LdstUnit {
 public:
  using Complete = std::function<void(const InFlight&, uint64_t cycle)>;

  LdstUnit(const SmParams& p, uint32_t sm_id, stats::Group& sm_stats, SmMemPort* port,
           Complete on_complete);
  ~LdstUnit();

  bool can_accept() const { return queue_.size() < queue_cap_; }
  /// Queue a memory instruction (after its operands were collected) with its access record.
  void accept(const InFlight& f, const func::WarpInstRecord& rec, uint64_t now);
  /// One cycle: memory responses, cache completions, misses downward, next transaction.
  /// Returns whether anything happened.
  bool tick(uint64_t now);
  /// Nothing queued or in flight.
  bool idle() const;
  /// Memory instructions accepted and not yet completed (trace counter).
  size_t in_flight() const { return live_.size(); }
  /// Earliest cycle > now at which the unit can do something without an outside event (a
  /// memory response wakes the SM separately); UINT64_MAX if none.
  uint64_t next_event(uint64_t now) const;
  /// Route an instruction-fetch miss response (the SM owns the I-cache).
  std::function<void(const MemResp&, uint64_t)> on_ifetch_response;

  Cache& l1d() { return *l1d_; }
  Cache& l1c() { return *l1c_; }
  Cache& l1t() { return *l1t_; }
  void set_trace(TraceSink* t) { trace_ = t; }
  void set_l1d_observer(L1dAccessObserver* o) { l1d_obs_ = o; }
  /// Device memory, for timing addresses of host-mapped allocations.
  void set_memory(const func::GlobalMemory* m) { gmem_ = m; }
  /// The SM's bulk-copy unit (tma.h): responses tagged TmaUnit::kTag go to it.
  void set_tma(TmaUnit* t) { tma_ = t; }
  /// Thread-block clusters: count distributed shared memory accesses in `g` (the SM's
  /// `cluster` stats group, created when a kernel with clusters starts).
  void enable_dsmem_stats(stats::Group& g);

 private:
  struct Entry {
    InFlight f;
    func::MemSpace space = func::MemSpace::none;
    std::vector<MemReq> txns;  // transactions still to send into a cache
    size_t next = 0;
    uint32_t outstanding = 0;     // sent, not yet answered
    uint32_t passes = 0;          // shared memory: remaining passes
    uint64_t done_at = 0;         // shared memory completion cycle
    uint32_t dsmem_segments = 0;  // distributed shared memory: 32-byte segments to peers
    bool generated = false;
    bool waits_for_data = true;  // loads/atomics complete on responses; stores when sent
    bool live = false;
    bool queued = false;   // still in queue_ (sending transactions)
    uint32_t in_mrpb = 0;  // transactions waiting in the MRPB FIFOs
  };

  void generate(Entry& e, const func::WarpInstRecord& rec, uint64_t now);
  void finish_txn(uint64_t id, uint64_t now);
  bool send_txn(Entry& e, uint64_t now);
  /// Presents `r` (its id set) to cache `c`; with mrpb.bypass an associativity stall of a
  /// cached load is resent as a bypassing load.
  AccessResult access_cache(Cache& c, MemReq& r, uint64_t now);
  /// MRPB: one transaction from the highest-priority FIFO into the L1D. Returns whether an
  /// access was attempted.
  bool drain_mrpb(uint64_t now);
  MemReq stamp(const Entry& e, MemReq r, uint64_t now);
  /// Atomics: the lane operations, distinct addresses and deepest same-address chain of the
  /// lanes of `rec` that fall in r's block (MemReq::atomic_*).
  void count_atomic_ops(MemReq& r, const func::WarpInstRecord& rec, LaneMask lanes) const;

  const SmParams& p_;
  uint32_t sm_;
  SmMemPort* port_;
  Complete complete_;
  std::unique_ptr<Cache> l1d_, l1c_, l1t_;
  std::unique_ptr<ext::Mrpb> mrpb_;  // mrpb.enable or mrpb.bypass (src/ext/mrpb)
  bool mrpb_queues_ = false, bypass_ = false;
  std::vector<Entry> table_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> live_;  // entries in flight (accepted, not completed)
  std::deque<uint32_t> queue_;  // accepted, in order; head is being sent
  size_t queue_cap_ = 2;
  uint64_t next_id_ = 1;
  uint64_t smem_busy_until_ = 0;
  uint64_t dsmem_busy_until_ = 0;          // the SM's port onto the SM-to-SM network
  stats::Counter* dsmem_insts_ = nullptr;  // (null until enable_dsmem_stats)
  stats::Counter* dsmem_segments_ = nullptr;
  TraceSink* trace_ = nullptr;
  L1dAccessObserver* l1d_obs_ = nullptr;
  const func::GlobalMemory* gmem_ = nullptr;
  TmaUnit* tma_ = nullptr;

  stats::Group& g_;
  stats::Counter& mem_insts_;
  stats::Counter& transactions_;
  stats::Counter& shared_accesses_;
  stats::Counter& shared_passes_;
  stats::Counter& shared_conflict_cycles_;
  stats::Counter& reservation_stalls_;
  stats::Counter& port_stalls_;
  stats::Histogram& load_latency_;
};

}  // namespace simtlab::timing
