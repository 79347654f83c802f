// Memory request prioritization buffer (MRPB; Jia, Shaw, Martonosi, HPCA 2014; GPGPU book
// 4.4.3): per-warp FIFO queues between the coalescer and the L1 data cache. The LD/ST unit
// moves the L1D transactions of each memory instruction (global/local loads, stores, atomics)
// into the FIFO of its warp (signature = warp slot) as one group, when they fit (or the FIFO is
// empty); every cycle the drain sends one transaction to the L1D from the non-empty FIFO of
// highest fixed priority (the lowest warp slot), so one warp's requests reach the cache back to
// back. A refused transaction stays at its FIFO's head and is retried.
//
// The bypass (mrpb.bypass, usable without the queues) is in ldst.cpp: a load the L1D refuses
// because every way of its set is reserved is resent as an L1-bypassing load (to the L2, no
// allocation).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "ext/mrpb/mrpb_params.h"
#include "stats/group.h"
#include "timing/mem/request.h"

namespace simtlab::ext {

class Mrpb {
 public:
  struct Item {
    timing::MemReq req;
    uint32_t entry = 0;  // the LD/ST unit's instruction entry
  };

  Mrpb(const MrpbParams& p, uint32_t warps, stats::Group& sm_stats);

  /// Can a group of `n` transactions of warp slot `w` enter (all fit, or the FIFO is empty)?
  bool fits(uint32_t w, size_t n) const;
  void push(uint32_t w, const Item& it);
  /// The FIFO the drain serves now (lowest non-empty warp slot), -1 if all are empty.
  int32_t pick() const;
  const Item& front(uint32_t w) const { return q_[w].front(); }
  void pop(uint32_t w);
  bool empty() const { return total_ == 0; }
  size_t size() const { return total_; }
  size_t size(uint32_t w) const { return q_[w].size(); }

  /// Statistics hooks (the LD/ST unit calls them).
  void sample_cycle();
  void count_drain_fail() { ++drain_fails_; }
  void count_full_stall() { ++full_stalls_; }
  void count_bypass() { ++bypassed_; }

 private:
  MrpbParams p_;
  std::vector<std::deque<Item>> q_;
  std::vector<uint64_t> nonempty_;  // bit per warp slot
  size_t total_ = 0;

  stats::Group& g_;
  stats::Counter& queued_;
  stats::Counter& drained_;
  stats::Counter& drain_fails_;
  stats::Counter& full_stalls_;
  stats::Counter& bypassed_;
  stats::Counter& occupancy_sum_;
  stats::Counter& busy_cycles_;
};

}  // namespace simtlab::ext
