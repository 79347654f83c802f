#include "timing/sm/scheduler.h"

#include <algorithm>

#include "base/error.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing {

void AgeOrderedScheduler::add(WarpSlot* w) {
  warps_.insert(std::upper_bound(warps_.begin(), warps_.end(), w,
                                 [](WarpSlot* a, WarpSlot* b) { return a->age < b->age; }),
                w);
}

void AgeOrderedScheduler::remove(WarpSlot* w) {
  warps_.erase(std::remove(warps_.begin(), warps_.end(), w), warps_.end());
}

std::unique_ptr<WarpScheduler> make_lrr_scheduler();
std::unique_ptr<WarpScheduler> make_gto_scheduler();
std::unique_ptr<WarpScheduler> make_oldest_scheduler();
std::unique_ptr<WarpScheduler> make_two_level_scheduler(uint32_t active);
std::unique_ptr<WarpScheduler> make_owf_scheduler();
std::unique_ptr<WarpScheduler> make_cta_gto_scheduler();

std::unique_ptr<WarpScheduler> make_scheduler(const std::string& policy,
                                              uint32_t two_level_active) {
  if (policy == "lrr") return make_lrr_scheduler();
  if (policy == "gto") return make_gto_scheduler();
  if (policy == "oldest") return make_oldest_scheduler();
  if (policy == "two_level") return make_two_level_scheduler(two_level_active);
  if (policy == "owf") return make_owf_scheduler();
  if (policy == "cta_gto") return make_cta_gto_scheduler();  // CTA-prioritising (TBC)
  fatal("sm.scheduler: unknown warp scheduling policy '{}'", policy);
}

}  // namespace simtlab::timing
