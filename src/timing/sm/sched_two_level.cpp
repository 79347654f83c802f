// Two-level scheduler: a small active pool scheduled round robin; a warp that stalls on a
// long-latency dependency (a pending memory load) is moved to the pending pool and the oldest
// pending warp takes its place (Gebhart et al., ISCA 2011: "Energy-efficient mechanisms for
// managing thread context in throughput processors"; Narasiman et al., MICRO 2011).
#include <algorithm>
#include <deque>

#include "timing/sm/scheduler.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing {

namespace {
class TwoLevel : public WarpScheduler {
 public:
  explicit TwoLevel(uint32_t active) : cap_(std::max(1u, active)) { wants_long_stalls_ = true; }
  void add(WarpSlot* w) override {
    if (active_.size() < cap_) {
      active_.push_back(w);
      if (on_pool) on_pool(w, PoolEvent::enter);
    } else
      pending_.push_back(w);
  }
  void remove(WarpSlot* w) override {
    auto it = std::find(active_.begin(), active_.end(), w);
    if (it != active_.end()) {
      const size_t i = size_t(it - active_.begin());
      active_.erase(it);
      if (next_ > i) --next_;
      if (on_pool) on_pool(w, PoolEvent::exit);
      refill();
      return;
    }
    pending_.erase(std::remove(pending_.begin(), pending_.end(), w), pending_.end());
  }
  const std::vector<WarpSlot*>& order() override {
    out_.clear();
    const size_t n = active_.size();
    for (size_t k = 0; k < n; ++k) out_.push_back(active_[(next_ + k) % n]);
    return out_;
  }
  void issued(WarpSlot* w) override {
    auto it = std::find(active_.begin(), active_.end(), w);
    if (it != active_.end()) next_ = (size_t(it - active_.begin()) + 1) % active_.size();
  }
  void long_stall(WarpSlot* w) override {
    if (pending_.empty()) return;
    auto it = std::find(active_.begin(), active_.end(), w);
    if (it == active_.end()) return;
    const size_t i = size_t(it - active_.begin());
    active_.erase(it);
    if (next_ > i) --next_;
    pending_.push_back(w);
    if (on_pool) on_pool(w, PoolEvent::demote);
    refill();
  }

 private:
  void refill() {
    while (active_.size() < cap_ && !pending_.empty()) {
      active_.push_back(pending_.front());
      pending_.pop_front();
      if (on_pool) on_pool(active_.back(), PoolEvent::enter);
    }
    if (!active_.empty())
      next_ %= active_.size();
    else
      next_ = 0;
  }
  uint32_t cap_;
  std::vector<WarpSlot*> active_, out_;
  std::deque<WarpSlot*> pending_;
  size_t next_ = 0;
};
}  // namespace

std::unique_ptr<WarpScheduler> make_two_level_scheduler(uint32_t active) {
  return std::make_unique<TwoLevel>(active);
}

}  // namespace simtlab::timing
