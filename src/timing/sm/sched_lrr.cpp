// Loose round robin: warps in slot order, starting after the one that issued last.
#include <algorithm>

#include "timing/sm/scheduler.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing {

namespace {
class Lrr : public WarpScheduler {
 public:
  void add(WarpSlot* w) override {
    warps_.insert(std::upper_bound(warps_.begin(), warps_.end(), w,
                                   [](WarpSlot* a, WarpSlot* b) { return a->slot < b->slot; }),
                  w);
  }
  void remove(WarpSlot* w) override {
    auto it = std::find(warps_.begin(), warps_.end(), w);
    if (it == warps_.end()) return;
    const size_t i = size_t(it - warps_.begin());
    warps_.erase(it);
    if (next_ > i) --next_;
  }
  const std::vector<WarpSlot*>& order() override {
    out_.clear();
    const size_t n = warps_.size();
    for (size_t k = 0; k < n; ++k) out_.push_back(warps_[(next_ + k) % n]);
    return out_;
  }
  void issued(WarpSlot* w) override {
    auto it = std::find(warps_.begin(), warps_.end(), w);
    if (it != warps_.end()) next_ = (size_t(it - warps_.begin()) + 1) % warps_.size();
  }

 private:
  std::vector<WarpSlot*> warps_, out_;
  size_t next_ = 0;
};
}  // namespace

std::unique_ptr<WarpScheduler> make_lrr_scheduler() { return std::make_unique<Lrr>(); }

}  // namespace simtlab::timing
