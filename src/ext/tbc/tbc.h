// Thread block compaction (sim.divergence=tbc): Fung & Aamodt, "Thread block compaction for
// efficient SIMT control flow", HPCA 2011; GPGPU architecture book 3.4.2. Issue #22.
//
// The logic of the mechanism, independent of the timing model (unit-tested alone,
// tests/unit/ext/tbc_test.cpp):
//  - compact(): lane-aware compaction. Lane l of the k-th compacted warp holds the k-th thread
//    (in home-warp order) that is active in lane l; a thread keeps its home lane, so its
//    registers stay in its home register-file lane (the paper's per-lane priority encoders).
//  - CtaStack: the CTA-wide reconvergence stack. An entry holds one PC, one reconvergence PC and
//    the active mask of every warp of the CTA; its rules are the per-warp IPDOM stack's
//    (src/func/exec_ctrl.cpp): a divergent branch turns the top entry into the reconvergence
//    entry and pushes one entry per path (not one whose PC is already the reconvergence PC);
//    a branch reconverging at the top entry's own reconvergence PC replaces the top entry.
//  - TbcCta: the compacted warps of the top entry and the CTA-wide synchronisation. A compacted
//    warp runs until it reaches a potentially divergent branch (a guarded, non-.uni bra), a
//    warp-collective instruction or CTA barrier (a sync point), or the entry's reconvergence
//    PC; when every compacted warp of the entry waits, the branch is resolved for the whole
//    CTA (its outcomes accumulated as the warps executed it) and the new top entry is compacted;
//    a sync point re-forms the entry's static warps (each thread's home warp, so collectives see
//    the lanes the IPDOM stack would have together) which then execute it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/types.h"

namespace simtlab::ext::tbc {

/// Threads of one home warp in a formed warp.
struct Piece {
  uint32_t warp = 0;  // warp index in the CTA
  LaneMask mask = 0;
  bool operator==(const Piece&) const = default;
};

/// A dynamically formed (compacted) warp: pieces in home-warp order, lanes disjoint.
struct Formed {
  std::vector<Piece> pieces;
  LaneMask lanes = 0;
};

/// Lane-aware compaction of the active masks of a CTA's warps: the fewest warps (the most
/// threads any one lane has), lane l of warp k = the k-th warp (ascending) active in lane l.
std::vector<Formed> compact(std::span<const LaneMask> masks);
/// The static warps: one formed warp per warp with active lanes.
std::vector<Formed> static_warps(std::span<const LaneMask> masks);

struct Entry {
  uint32_t pc = 0;
  uint32_t rpc = 0;  // reconvergence PC (~0u: the bottom entry, never reached)
  std::vector<LaneMask> mask;
  bool empty() const {
    for (LaneMask m : mask)
      if (m) return false;
    return true;
  }
};

class CtaStack {
 public:
  static constexpr uint32_t kNoRpc = ~0u;
  CtaStack() = default;
  CtaStack(std::vector<LaneMask> live, uint32_t pc) {
    entries_.push_back(Entry{pc, kNoRpc, std::move(live)});
  }
  Entry& top() { return entries_.back(); }
  const Entry& top() const { return entries_.back(); }
  size_t depth() const { return entries_.size(); }
  bool done() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }
  /// The top entry's threads branched: `taken` lanes go to `target`, `nt` lanes to
  /// `fallthrough`, both meet at `reconv`. Returns true when the CTA diverged (pushes).
  bool branch(uint32_t fallthrough, uint32_t target, uint32_t reconv,
              const std::vector<LaneMask>& taken, const std::vector<LaneMask>& nt);
  /// Threads exited: removed from every entry.
  void exit(uint32_t warp, LaneMask m) {
    for (Entry& e : entries_) e.mask[warp] &= ~m;
  }
  /// Pop entries that reached their reconvergence PC or hold no thread; returns the pops.
  uint32_t reconverge();
  /// Pushes so far (divergent paths).
  uint64_t pushes = 0;

 private:
  std::vector<Entry> entries_;
};

/// A formed warp's host: the warp of the CTA (index) whose SM slot schedules it and whose
/// instruction buffer fetches for it (the timing model assigns it; kNoHost until then).
constexpr uint32_t kNoHost = ~0u;

/// State of one compacted warp of the top entry.
struct Cw {
  enum class St : uint8_t { run, branch, sync, rpc };
  Formed f;
  uint32_t pc = 0;
  St st = St::run;
  bool sync_pass = false;  // re-formed at a sync point: executes it without waiting again
  uint64_t ready_at = 0;
  uint32_t host = kNoHost;
};

/// What the resolution of a CTA-wide wait did (for statistics).
struct Settled {
  bool any = false;        // the entry's warps changed
  bool diverged = false;   // a divergent branch pushed entries
  bool uniform = false;    // a branch every thread of the CTA took the same way
  bool synced = false;     // a sync point re-formed the static warps
  uint32_t pops = 0;       // entries popped (reconvergence events)
  uint32_t formed = 0;     // warps formed for the new top entry
  uint32_t compacted = 0;  // of them, formed with threads of more than one home warp
};

class TbcCta {
 public:
  /// `live[i]`: live lanes of warp i; every thread starts at `pc`.
  TbcCta(std::vector<LaneMask> live, uint32_t pc);

  std::vector<Cw> cws;
  const CtaStack& stack() const { return stack_; }
  bool done() const { return stack_.done(); }

  /// Compacted warp `i` executed a non-synchronising instruction and goes on at `next`.
  void advance(size_t i, uint32_t next);
  /// Compacted warp `i` executed the potentially divergent branch at `pc` (target, reconv):
  /// `taken[k]` / `nt[k]` are the lanes of its piece k that go to the target / fall through.
  void arrive_branch(size_t i, uint32_t pc, uint32_t target, uint32_t reconv,
                     std::span<const LaneMask> taken, std::span<const LaneMask> nt);
  /// Compacted warp `i` reached a sync point (not executed yet).
  void arrive_sync(size_t i);
  /// Threads of warp `warp` exited.
  void exit(uint32_t warp, LaneMask m);
  /// Resolve the wait when every compacted warp of the top entry waits; the compacted warps
  /// may be replaced (indices change). `ready_at` becomes the new warps' earliest issue.
  Settled settle(uint64_t ready_at);

 private:
  void activate(bool compacted, bool sync_pass, uint64_t ready_at, Settled& s);
  CtaStack stack_;
  std::vector<LaneMask> taken_, nt_;
  uint32_t br_pc_ = 0, br_target_ = 0, br_reconv_ = 0;
};

}  // namespace simtlab::ext::tbc
