// CTA-prioritising greedy-then-oldest (cta_gto): the warps of the CTA that issued last keep
// priority (oldest first among them), then the other warps oldest first. Thread block
// compaction synchronises a CTA's warps at divergent branches; scheduling a CTA's warps together
// lets them arrive together while other CTAs hide the wait (Fung & Aamodt HPCA 2011, the
// CTA-prioritising schedulers; GPGPU book 4.2, "Fung and Aamodt [2011] also propose three thread
// block prioritization mechanisms"). Without TBC it is a CTA-granular GTO.
#include "timing/sm/scheduler.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing {

namespace {
class CtaGto : public AgeOrderedScheduler {
 public:
  void remove(WarpSlot* w) override {
    AgeOrderedScheduler::remove(w);
    if (last_ == w->cta) {
      bool any = false;
      for (WarpSlot* x : warps_) any |= x->cta == last_;
      if (!any) last_ = nullptr;
    }
  }
  const std::vector<WarpSlot*>& order() override {
    out_.clear();
    if (last_)
      for (WarpSlot* w : warps_)
        if (w->cta == last_) out_.push_back(w);
    for (WarpSlot* w : warps_)
      if (!last_ || w->cta != last_) out_.push_back(w);
    return out_;
  }
  void issued(WarpSlot* w) override { last_ = w->cta; }

 private:
  std::vector<WarpSlot*> out_;
  const CtaSlot* last_ = nullptr;
};
}  // namespace

std::unique_ptr<WarpScheduler> make_cta_gto_scheduler() { return std::make_unique<CtaGto>(); }

}  // namespace simtlab::timing
