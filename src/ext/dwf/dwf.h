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
#include <string>
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
  // Reconvergence PC (IPDOM) of the divergent branch its threads last took, ~0u once they are
  // past it (or never diverged): the post-dominator priority policy's state.
  uint32_t rpc = ~0u;
};

/// Issue order among the pool's warps (sim.dwf_policy; Fung et al. MICRO 2007, section 4.2):
/// time stamp (oldest arrival in the pool first), program counter (smallest PC first), majority
/// (the PC with the most threads first), minority (the PC with the fewest threads first), and
/// post-dominator priority (warps waiting at a reconvergence point that other warps still have
/// to reach go last; majority otherwise).
enum class Policy : uint8_t { time, pc, majority, minority, pdom };
Policy policy_of(const std::string& name);

class DwfCta {
 public:
  /// `live[i]`: live lanes of warp i; the static warps start at `pc`.
  DwfCta(std::vector<LaneMask> live, uint32_t pc);

  std::vector<Dw> pool;

  /// Threads `part` arrive at `pc`: each joins the first pool warp at `pc` (not waiting at a
  /// sync point) whose lane is free, else a new warp. Returns the warps formed.
  /// `rpc`: the reconvergence PC the threads carry (Dw::rpc; a warp they join that has none
  /// takes it).
  uint32_t insert(uint32_t pc, std::span<const Piece> part, uint64_t ready_at, uint32_t rpc = ~0u);
  /// Remove pool warp `i` (its threads are re-inserted by the caller).
  void remove(size_t i) { pool.erase(pool.begin() + std::ptrdiff_t(i)); }
  /// Threads of warp `warp` exited (empty pool warps are dropped).
  void exit(uint32_t warp, LaneMask m);
  /// Majority: pool indices in issue priority, the PC with the most threads first (ties: the
  /// lower PC), pool order within a PC.
  void majority_order(std::vector<uint32_t>& out) const { by_threads(out, true); }
  /// Pool indices in the issue priority of `p`. The pool keeps arrival order (new warps are
  /// appended, removals keep the order), so time stamp order is pool order.
  void order(Policy p, std::vector<uint32_t>& out) const;
  /// Pool warp `i` reached a sync point; releases home warps whose live threads all wait.
  /// Returns the static warps re-formed.
  uint32_t arrive_sync(size_t i, uint64_t ready_at);
  bool done() const { return pool.empty(); }
  size_t max_pool = 0;

 private:
  void by_threads(std::vector<uint32_t>& out, bool most) const;
  std::vector<LaneMask> live_;
};

}  // namespace simtlab::ext::dwf
