// Oldest first: strict priority by dispatch order.
#include <algorithm>

#include "timing/sm/scheduler.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing {

namespace {
class Oldest : public WarpScheduler {
 public:
  void add(WarpSlot* w) override {
    warps_.insert(std::upper_bound(warps_.begin(), warps_.end(), w,
                                   [](WarpSlot* a, WarpSlot* b) { return a->age < b->age; }),
                  w);
  }
  void remove(WarpSlot* w) override {
    warps_.erase(std::remove(warps_.begin(), warps_.end(), w), warps_.end());
  }
  const std::vector<WarpSlot*>& order() override { return warps_; }
  void issued(WarpSlot*) override {}

 private:
  std::vector<WarpSlot*> warps_;
};
}  // namespace

std::unique_ptr<WarpScheduler> make_oldest_scheduler() { return std::make_unique<Oldest>(); }

}  // namespace simtlab::timing
