// Oldest first: strict priority by dispatch order.
#include "timing/sm/scheduler.h"

namespace simtlab::timing {

namespace {
class Oldest : public AgeOrderedScheduler {
 public:
  const std::vector<WarpSlot*>& order() override { return warps_; }
  void issued(WarpSlot*) override {}
};
}  // namespace

std::unique_ptr<WarpScheduler> make_oldest_scheduler() { return std::make_unique<Oldest>(); }

}  // namespace simtlab::timing
