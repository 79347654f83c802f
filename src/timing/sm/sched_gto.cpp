// Greedy-then-oldest: the warp that issued last keeps priority while it can issue; the rest
// follow oldest first (Rogers, O'Connor, Aamodt, MICRO 2012).
#include "timing/sm/scheduler.h"

namespace simtlab::timing {

namespace {
class Gto : public AgeOrderedScheduler {
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
    return out_;
  }
  void issued(WarpSlot* w) override { last_ = w; }

 private:
  std::vector<WarpSlot*> out_;
  WarpSlot* last_ = nullptr;
};
}  // namespace

std::unique_ptr<WarpScheduler> make_gto_scheduler() { return std::make_unique<Gto>(); }

}  // namespace simtlab::timing
