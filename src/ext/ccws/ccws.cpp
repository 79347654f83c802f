#include "ext/ccws/ccws.h"

#include <algorithm>

#include "base/error.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing::ccws {

// ---- VictimTagArray -------------------------------------------------------------------------

VictimTagArray::VictimTagArray(uint32_t entries, uint32_t assoc)
    : sets_(std::max(entries / std::max(assoc, 1u), 1u)),
      assoc_(std::max(assoc, 1u)),
      tags_(size_t(sets_) * assoc_, 0),
      stamp_(size_t(sets_) * assoc_, 0) {}

uint32_t VictimTagArray::set_of(Addr line) const { return uint32_t((line >> 7) % sets_); }

void VictimTagArray::insert(Addr line) {
  const size_t b = size_t(set_of(line)) * assoc_;
  size_t victim = b;
  for (size_t i = b; i < b + assoc_; ++i) {
    if (stamp_[i] && tags_[i] == line) {  // already recorded: refresh
      stamp_[i] = ++clock_;
      return;
    }
    if (stamp_[i] < stamp_[victim]) victim = i;
  }
  tags_[victim] = line;
  stamp_[victim] = ++clock_;
}

bool VictimTagArray::contains(Addr line) const {
  const size_t b = size_t(set_of(line)) * assoc_;
  for (size_t i = b; i < b + assoc_; ++i)
    if (stamp_[i] && tags_[i] == line) return true;
  return false;
}

bool VictimTagArray::take(Addr line) {
  const size_t b = size_t(set_of(line)) * assoc_;
  for (size_t i = b; i < b + assoc_; ++i) {
    if (stamp_[i] && tags_[i] == line) {
      stamp_[i] = 0;
      return true;
    }
  }
  return false;
}

void VictimTagArray::clear() { std::fill(stamp_.begin(), stamp_.end(), 0); }

// ---- LostLocality ---------------------------------------------------------------------------

LostLocality::LostLocality(uint32_t warps, uint32_t base, uint32_t kthrottle, uint32_t decay)
    : base_(base), kthrottle_(kthrottle), decay_(decay), score_(warps, base) {}

void LostLocality::decay(uint64_t cycles) {
  if (!cycles || !decay_) return;
  const uint64_t d = cycles * decay_;
  for (uint64_t& s : score_) s = s > base_ + d ? s - d : std::min(s, base_);
}

uint32_t LostLocality::apply_cutoff(const std::vector<uint32_t>& active,
                                    std::vector<uint8_t>& throttled) {
  order_ = active;
  std::stable_sort(order_.begin(), order_.end(),
                   [&](uint32_t a, uint32_t b) { return score_[a] > score_[b]; });
  const uint64_t cut = cutoff(uint32_t(active.size()));
  uint64_t stacked = 0;
  uint32_t n = 0;
  for (size_t i = 0; i < order_.size(); ++i) {
    stacked += score_[order_[i]];
    const bool out = i > 0 && stacked > cut;
    throttled[order_[i]] = out;
    n += out;
  }
  return n;
}

// ---- CcwsPolicy -----------------------------------------------------------------------------

CcwsPolicy::CcwsPolicy(const CcwsParams& p, uint32_t num_warps, stats::Group& sm, LdstUnit& ldst)
    : ldst_(ldst),
      lls_(num_warps, p.base_score, p.kthrottle, p.decay),
      vta_(num_warps, VictimTagArray(p.vta_entries, p.vta_assoc)),
      age_(num_warps, 0),
      seen_(num_warps, 0),
      throttled_(num_warps, 0),
      g_(sm.child("ccws")),
      detections_(g_.counter("lost_locality", "detections",
                             "L1D load misses whose line was in the missing warp's victim tags")),
      vta_inserts_(g_.counter("vta_inserts", "tags",
                              "Evicted L1D lines recorded in their allocating warp's victim tags")),
      throttled_cycles_(g_.counter("throttled_cycles", "cycles",
                                   "Cycles in which at least one warp was past the cutoff")),
      throttled_warp_cycles_(g_.counter("throttled_warp_cycles", "warp-cycles",
                                        "Sum over cycles of the warps past the cutoff")) {
  ldst_.l1d().set_eviction_observer(this);
  ldst_.set_l1d_observer(this);
}

CcwsPolicy::~CcwsPolicy() {
  ldst_.l1d().set_eviction_observer(nullptr);
  ldst_.set_l1d_observer(nullptr);
}

void CcwsPolicy::begin_issue(uint64_t now, const std::vector<WarpSlot>& warps) {
  if (started_) lls_.decay(now - last_now_);
  started_ = true;
  last_now_ = now;
  active_.clear();
  for (const WarpSlot& w : warps) {
    if (!w.active) continue;
    if (!seen_[w.slot] || age_[w.slot] != w.age) {  // a new warp in this slot
      seen_[w.slot] = 1;
      age_[w.slot] = w.age;
      lls_.reset(w.slot);
      vta_[w.slot].clear();
    }
    throttled_[w.slot] = 0;
    if (w.func_done || (w.fw && w.fw->at_barrier)) continue;
    active_.push_back(w.slot);
  }
  std::sort(active_.begin(), active_.end(),
            [&](uint32_t a, uint32_t b) { return warps[a].age < warps[b].age; });
  const uint32_t n = lls_.apply_cutoff(active_, throttled_);
  if (n) {
    ++throttled_cycles_;
    throttled_warp_cycles_ += n;
  }
}

bool CcwsPolicy::may_issue(const WarpSlot& w, const func::DInst& d) const {
  return !throttled_[w.slot] || !is_l1d_load(d);
}

void CcwsPolicy::begin_kernel() { owner_.clear(); }

void CcwsPolicy::evicted(Addr line) {
  auto it = owner_.find(line);
  if (it == owner_.end()) return;
  const Owner o = it->second;
  owner_.erase(it);
  if (!seen_[o.slot] || age_[o.slot] != o.age) return;  // that warp has left the SM
  vta_[o.slot].insert(line);
  ++vta_inserts_;
}

void CcwsPolicy::l1d_access(uint32_t slot, Addr line, AccessStatus st) {
  if (st != AccessStatus::miss || slot >= vta_.size()) return;
  if (vta_[slot].take(line)) {
    ++detections_;
    lls_.detected(slot);
  }
  owner_[line] = Owner{slot, age_[slot]};
}

// ---- SwlPolicy ------------------------------------------------------------------------------

SwlPolicy::SwlPolicy(const SwlParams& p, uint32_t num_warps, stats::Group& sm)
    : limit_(p.warps),
      allowed_(num_warps, 0),
      g_(sm.child("swl")),
      limited_cycles_(
          g_.counter("limited_cycles", "cycles", "Cycles with more runnable warps than the limit")),
      limited_warp_cycles_(g_.counter("limited_warp_cycles", "warp-cycles",
                                      "Sum over cycles of runnable warps beyond the limit")) {}

void SwlPolicy::begin_issue(uint64_t now, const std::vector<WarpSlot>& warps) {
  (void)now;
  active_.clear();
  for (const WarpSlot& w : warps) {
    allowed_[w.slot] = 0;
    if (w.active && !w.func_done && !(w.fw && w.fw->at_barrier)) active_.push_back(&w);
  }
  std::sort(active_.begin(), active_.end(),
            [](const WarpSlot* a, const WarpSlot* b) { return a->age < b->age; });
  for (size_t i = 0; i < active_.size() && i < limit_; ++i) allowed_[active_[i]->slot] = 1;
  if (active_.size() > limit_) {
    ++limited_cycles_;
    limited_warp_cycles_ += active_.size() - limit_;
  }
}

bool SwlPolicy::may_issue(const WarpSlot& w, const func::DInst& d) const {
  (void)d;
  return allowed_[w.slot] != 0;
}

}  // namespace simtlab::timing::ccws
