// Owner warp first (Jatala thesis 2.3.2, for resource sharing): owner warps, then unshared
// warps, then non-owner warps (WarpSlot::share_class 0/1/2, kept by src/ext/sharing); greedy-
// then-oldest within a class. With nothing shared every warp is unshared and OWF is GTO.
#include <algorithm>

#include "timing/sm/scheduler.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing {

namespace {
class Owf : public AgeOrderedScheduler {
 public:
  void remove(WarpSlot* w) override {
    AgeOrderedScheduler::remove(w);
    if (last_ == w) last_ = nullptr;
  }
  const std::vector<WarpSlot*>& order() override {
    out_.clear();
    if (last_) out_.push_back(last_);
    for (WarpSlot* w : warps_)
      if (w != last_) out_.push_back(w);
    std::stable_sort(out_.begin(), out_.end(), [](const WarpSlot* a, const WarpSlot* b) {
      return a->share_class < b->share_class;
    });
    return out_;
  }
  void issued(WarpSlot* w) override { last_ = w; }

 private:
  std::vector<WarpSlot*> out_;
  WarpSlot* last_ = nullptr;
};
}  // namespace

std::unique_ptr<WarpScheduler> make_owf_scheduler() { return std::make_unique<Owf>(); }

}  // namespace simtlab::timing
