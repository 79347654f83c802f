// Warp schedulers behind one interface. Each SM has num_schedulers of them; warps are
// assigned to scheduler (hw warp slot % num_schedulers). Every cycle the SM asks each
// scheduler for its warps in priority order and issues the first that can issue.
//
// Policies (one file each, registered in scheduler.cpp):
//   lrr       loose round robin: start after the warp that issued last (GPGPU book 3.1.3)
//   gto       greedy-then-oldest: keep the last warp while it can issue, then oldest first
//             (Rogers et al., MICRO 2012)
//   oldest    always oldest (earliest launched) first
//   two_level active pool of `two_level_active` warps scheduled LRR; a warp that stalls on a
//             long-latency operation leaves the pool and the oldest pending warp enters
//             (Gebhart et al., ISCA 2011; Narasiman et al., MICRO 2011)
//   cta_gto   the last-issuing CTA's warps first, then oldest first (thread block
//             compaction's CTA prioritisation; Fung & Aamodt HPCA 2011)
//   owf       owner warp first: owner > unshared > non-owner warps (resource sharing,
//             src/ext/sharing; Jatala thesis 2.3.2), GTO within a class
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace simtlab::timing {

struct WarpSlot;

/// Active-pool membership changes of a scheduler with an active pool (two_level).
enum class PoolEvent : uint8_t { enter, demote, exit };

class WarpScheduler {
 public:
  /// Called, when set, as warps enter the active pool, are demoted from it (long stall) or leave
  /// it for good (removed). Used by the register-file cache (ext/rfc).
  std::function<void(WarpSlot*, PoolEvent)> on_pool;

  virtual ~WarpScheduler() = default;
  virtual void add(WarpSlot* w) = 0;
  virtual void remove(WarpSlot* w) = 0;
  /// Warps in priority order for this cycle (the vector is reused; valid until next call).
  virtual const std::vector<WarpSlot*>& order() = 0;
  /// `w` issued an instruction this cycle.
  virtual void issued(WarpSlot* w) = 0;
  /// `w` could not issue because of a long-latency dependency (two-level demotes it).
  virtual void long_stall(WarpSlot* w) { (void)w; }
  /// Whether long_stall() does anything (only then does the SM call it).
  bool wants_long_stalls() const { return wants_long_stalls_; }

 protected:
  bool wants_long_stalls_ = false;
};

/// Base of the age-ordered policies (gto, oldest): keeps its warps sorted oldest first
/// (WarpSlot::age, dispatch order; equal ages keep insertion order).
class AgeOrderedScheduler : public WarpScheduler {
 public:
  void add(WarpSlot* w) override;
  void remove(WarpSlot* w) override;

 protected:
  std::vector<WarpSlot*> warps_;  // oldest first
};

/// Create a scheduler by policy name (throws UserError on an unknown name).
std::unique_ptr<WarpScheduler> make_scheduler(const std::string& policy, uint32_t two_level_active);

}  // namespace simtlab::timing
