// Greedy-then-oldest: the warp that issued last keeps priority while it can issue; the rest
// follow oldest first (Rogers, O'Connor, Aamodt, MICRO 2012).
#include <algorithm>

#include "timing/sm/scheduler.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing {

namespace {
class Gto : public WarpScheduler {
 public:
  void add(WarpSlot* w) override {
    warps_.insert(std::upper_bound(warps_.begin(), warps_.end(), w,
                                   [](WarpSlot* a, WarpSlot* b) { return a->age < b->age; }),
                  w);
  }
  void remove(WarpSlot* w) override {
    warps_.erase(std::remove(warps_.begin(), warps_.end(), w), warps_.end());
    if (last_ == w) last_ = nullptr;
  }
  const std::vector<WarpSlot*>& order() override {
    out_.clear();
    if (last_) out_.push_back(last_);
    for (WarpSlot* w : warps_)
      if (w != last_) out_.push_back(w);
    return out_;
  }
  void issued(WarpSlot* w) override { last_ = w; }

 private:
  std::vector<WarpSlot*> warps_, out_;  // warps_ sorted oldest first
  WarpSlot* last_ = nullptr;
};
}  // namespace

std::unique_ptr<WarpScheduler> make_gto_scheduler() { return std::make_unique<Gto>(); }

}  // namespace simtlab::timing
