// Dynamic warp formation (sim.divergence=dwf): Fung, Sham, Yuan, Aamodt, "Dynamic warp
// formation and scheduling for efficient GPU control flow", MICRO 2007; GPGPU architecture book
// 3.4.1. Issue #22.
//
// The logic of the mechanism, independent of the timing model (tests/unit/ext/dwf_test.cpp):
// a per-CTA warp pool. There is no reconvergence stack: every warp in the pool has one PC, and
// after a branch the threads of the warp that executed it go, per outcome, to the pool warp
// waiting at their next PC (lane-aware: a thread keeps its home lane, so it joins the first
// pool warp at that PC whose lane is free, else a new warp is formed). Threads of different
// warps that reach the same PC therefore merge, and threads of one warp that part never have
// to wait for each other. Issue priority among the pool's warps is the paper's Majority policy:
// the warps at the PC with the most threads first. Warp-collective instructions and CTA
// barriers need a home warp's threads together: threads arriving at one wait until every live
// thread of their home warp waits at one, then the home warp's threads at the lowest such PC
// form their static warp again and execute it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ext/tbc/tbc.h"

namespace simtlab::ext::dwf {

using tbc::Formed;
using tbc::Piece;

/// A warp of the pool.
struct Dw {
  Formed f;
  uint32_t pc = 0;
  bool sync = false;       // waits at a sync point for the rest of its home warps' threads
  bool sync_pass = false;  // re-formed at a sync point: executes it without waiting again
  uint64_t ready_at = 0;
  uint32_t host = tbc::kNoHost;
};

class DwfCta {
 public:
  /// `live[i]`: live lanes of warp i; the static warps start at `pc`.
  DwfCta(std::vector<LaneMask> live, uint32_t pc);

  std::vector<Dw> pool;

  /// Threads `part` arrive at `pc`: each joins the first pool warp at `pc` (not waiting at a
  /// sync point) whose lane is free, else a new warp. Returns the warps formed.
  uint32_t insert(uint32_t pc, std::span<const Piece> part, uint64_t ready_at);
  /// Remove pool warp `i` (its threads are re-inserted by the caller).
  void remove(size_t i) { pool.erase(pool.begin() + std::ptrdiff_t(i)); }
  /// Threads of warp `warp` exited (empty pool warps are dropped).
  void exit(uint32_t warp, LaneMask m);
  /// Majority: pool indices in issue priority, the PC with the most threads first (ties: the
  /// lower PC), pool order within a PC.
  void majority_order(std::vector<uint32_t>& out) const;
  /// Pool warp `i` reached a sync point; releases home warps whose live threads all wait.
  /// Returns the static warps re-formed.
  uint32_t arrive_sync(size_t i, uint64_t ready_at);
  bool done() const { return pool.empty(); }
  size_t max_pool = 0;

 private:
  std::vector<LaneMask> live_;
};

}  // namespace simtlab::ext::dwf
