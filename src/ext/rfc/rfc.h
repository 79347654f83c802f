// Register-file cache (RFC) with two-level scheduling (Gebhart et al., ISCA 2011; GPGPU book
// 3.6.1). One small FIFO-replaced cache of register values per warp of the two-level
// scheduler's active pool, in front of the main register file (MRF):
//  - every result of an active-pool warp is written into its RFC (an entry already holding the
//    register is overwritten in place; otherwise a new entry is allocated, evicting the oldest
//    when full); an evicted entry is written back to the MRF only if its value is still live;
//  - a source operand that hits is read from the RFC; a miss reads the MRF and allocates
//    nothing;
//  - compiler last-use bits (static liveness, last_use.h) mark the value dead after its last
//    read, so its eventual eviction or flush writes nothing back;
//  - when the warp leaves the active pool (a long-latency stall), its live entries are flushed
//    to the MRF and the RFC is emptied; a result that arrives for a warp outside the active pool
//    goes to the MRF directly; a retiring warp's entries are dropped (every value is dead).
// Predicate registers are not cached. Registers are the functional model's absolute value slots
// (one per PTX register of the current call frame), not SASS registers.
//
// Timing (sm/opcoll.cpp, sm/writeback.cpp): an RFC hit needs no MRF bank in the operand
// collector; a miss does. A result written into the RFC blocks no MRF bank; an MRF write (direct
// result or live eviction) blocks the bank of the register written, as every writeback does
// without the RFC.
//
// Counters, under sm[i].rfc and sm[i].mrf, are by level so the power model can price them.
#pragma once

#include <cstdint>
#include <vector>

#include "ext/rfc/rfc_params.h"
#include "stats/group.h"

namespace simtlab::ext {

class RegFileCache {
 public:
  RegFileCache(const RfcParams& p, uint32_t warps, stats::Group& sm_stats);

  /// Active-pool membership of warp slot `w`.
  void enter(uint32_t w);
  /// `w` leaves the active pool: live entries are written back to the MRF (flush), all dropped.
  /// Returns the registers written to the MRF (the caller charges their banks).
  const std::vector<uint32_t>& leave(uint32_t w);
  /// `w` retires: its entries are dropped without write-back.
  void retire(uint32_t w);
  bool active(uint32_t w) const { return warps_[w].active; }

  /// A source operand read of register `reg`. Returns true on an RFC hit (no MRF access).
  bool read(uint32_t w, uint32_t reg);
  /// The value in `reg` was read for the last time (compiler last-use bit): its entry, if any,
  /// becomes dead. Applied after all operand reads of the instruction.
  void kill(uint32_t w, uint32_t reg);
  /// A result is written to `reg`. Returns the register written to the MRF by it (`reg` itself
  /// when `w` is not in the active pool, the evicted register when a live entry was evicted),
  /// or -1 when the MRF is not written.
  int64_t write(uint32_t w, uint32_t reg);

  /// Entries of `w` oldest first (tests): register and whether live.
  std::vector<std::pair<uint32_t, bool>> entries(uint32_t w) const;
  const RfcParams& params() const { return p_; }

 private:
  struct Entry {
    uint32_t reg = 0;
    bool live = false;
  };
  struct WarpRfc {
    std::vector<Entry> fifo;  // ring of p_.entries
    uint32_t head = 0, n = 0;
    bool active = false;
  };
  int32_t find(const WarpRfc& c, uint32_t reg) const;

  RfcParams p_;
  std::vector<WarpRfc> warps_;
  std::vector<uint32_t> flushed_;

  stats::Group& g_;
  stats::Group& mg_;
  stats::Counter& operand_reads_;
  stats::Counter& results_;
  stats::Counter& hits_;
  stats::Counter& writes_;
  stats::Counter& evict_live_;
  stats::Counter& evict_dead_;
  stats::Counter& flush_live_;
  stats::Counter& flush_dead_;
  stats::Counter& direct_;
  stats::Counter& kills_;
  stats::Counter& mrf_reads_;
  stats::Counter& mrf_writes_;
};

}  // namespace simtlab::ext
