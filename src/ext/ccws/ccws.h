// Cache-conscious wavefront scheduling (Rogers, O'Connor, Aamodt, MICRO 2012) and its baseline,
// static warp limiting. See README.md in this folder.
//
//  VictimTagArray   one warp's victim tags: set-associative, LRU; a tag is taken out when it
//                   hits (the lost line has been detected once)
//  LostLocality     per-warp lost-locality scores (start at base, +kthrottle per detection,
//                   -decay per cycle down to base) and the cutoff: active warps sorted by score
//                   (ties: oldest first) are stacked; a warp whose stack top passes
//                   active x base may not issue L1D loads (the first warp never is)
//  CcwsPolicy       the SM hook (sm_policy.h): tags each L1D line with the warp that allocated
//                   it, fills that warp's VTA when the line is evicted, probes the missing warp's
//                   VTA on every L1D load miss, and gates L1D loads of warps past the cutoff
//  SwlPolicy        only the `swl.warps` oldest runnable warps may issue
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "base/types.h"
#include "ext/ccws/ccws_params.h"
#include "stats/group.h"
#include "timing/mem/cache.h"
#include "timing/sm/ldst.h"
#include "timing/sm/sm_policy.h"

namespace simtlab::timing::ccws {

class VictimTagArray {
 public:
  VictimTagArray(uint32_t entries, uint32_t assoc);
  /// Records the tag of a lost line (replaces the set's least recently inserted tag when full).
  void insert(Addr line);
  /// Whether `line` is in the array; a hit removes it.
  bool take(Addr line);
  void clear();
  bool contains(Addr line) const;

 private:
  uint32_t set_of(Addr line) const;
  uint32_t sets_, assoc_;
  std::vector<Addr> tags_;
  std::vector<uint64_t> stamp_;  // insertion order, 0 = empty
  uint64_t clock_ = 0;
};

class LostLocality {
 public:
  LostLocality(uint32_t warps, uint32_t base, uint32_t kthrottle, uint32_t decay);
  void reset(uint32_t slot) { score_[slot] = base_; }
  /// A lost-locality detection by warp `slot`.
  void detected(uint32_t slot) { score_[slot] += kthrottle_; }
  /// `cycles` cycles pass: every score above base loses decay points per cycle.
  void decay(uint64_t cycles);
  uint64_t score(uint32_t slot) const { return score_[slot]; }
  uint64_t cutoff(uint32_t active) const { return uint64_t(active) * base_; }
  /// `active`: warp slots that compete (oldest first). Sets throttled[slot] = 1 for the warps
  /// past the cutoff, 0 for the others; returns how many are throttled.
  uint32_t apply_cutoff(const std::vector<uint32_t>& active, std::vector<uint8_t>& throttled);

 private:
  uint64_t base_, kthrottle_, decay_;
  std::vector<uint64_t> score_;
  std::vector<uint32_t> order_;
};

class CcwsPolicy final : public SmPolicy, public EvictionObserver, public L1dAccessObserver {
 public:
  CcwsPolicy(const CcwsParams& p, uint32_t num_warps, stats::Group& sm, LdstUnit& ldst);
  ~CcwsPolicy() override;
  void begin_issue(uint64_t now, const std::vector<WarpSlot>& warps) override;
  bool may_issue(const WarpSlot& w, const func::DInst& d) const override;
  void begin_kernel() override;
  void evicted(Addr line) override;
  void l1d_access(uint32_t warp_slot, Addr line, AccessStatus st) override;

  const LostLocality& scores() const { return lls_; }
  const VictimTagArray& vta(uint32_t slot) const { return vta_[slot]; }

 private:
  struct Owner {
    uint32_t slot;
    uint64_t age;
  };
  LdstUnit& ldst_;
  LostLocality lls_;
  std::vector<VictimTagArray> vta_;
  std::vector<uint64_t> age_;  // age of the warp in each slot (a new warp resets its state)
  std::vector<uint8_t> seen_;
  std::vector<uint8_t> throttled_;
  std::vector<uint32_t> active_;
  std::unordered_map<Addr, Owner> owner_;  // L1D line -> warp that allocated it
  uint64_t last_now_ = 0;
  bool started_ = false;
  stats::Group& g_;
  stats::Counter& detections_;
  stats::Counter& vta_inserts_;
  stats::Counter& throttled_cycles_;
  stats::Counter& throttled_warp_cycles_;
};

class SwlPolicy final : public SmPolicy {
 public:
  SwlPolicy(const SwlParams& p, uint32_t num_warps, stats::Group& sm);
  void begin_issue(uint64_t now, const std::vector<WarpSlot>& warps) override;
  bool may_issue(const WarpSlot& w, const func::DInst& d) const override;

 private:
  uint32_t limit_;
  std::vector<uint8_t> allowed_;
  std::vector<const WarpSlot*> active_;
  stats::Group& g_;
  stats::Counter& limited_cycles_;
  stats::Counter& limited_warp_cycles_;
};

}  // namespace simtlab::timing::ccws
