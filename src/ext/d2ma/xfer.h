// Transfer regions of software-tiling baselines (D2MA reproduction, issue #19): the baseline's
// per-tile transfer time split into AGEN and MEM, and its "all warps waiting for buffering"
// share, for comparison with the engine's own agen/mem counters (spec §1.11, the paper's
// Fig. 11 and its 7% baseline stall share). Kernels mark a region with simtlab_xfer_begin()
// (include/simtlab/xfer.h, a PTX label: no instruction); the decoder flags the instruction
// after it (DInst::xfer_mark). On when d2ma.xfer_regions is set; absent otherwise.
//
// Per CTA, one region at a time:
//   begin    the first warp of the CTA issues a marked instruction;
//   AGEN end the last global/generic load issued by a warp of the CTA between its marker and
//            the first CTA barrier it reaches after it (the transfer's last request);
//   MEM end  the barrier's release: the first issue of a warp that reached that barrier.
// AGEN = last load - begin, MEM = release - last load (a region without a load: AGEN 0).
// all_wait_cycles: cycles in which nothing issued and every live warp of the SM is inside a
// region (between its marker and the release).
// With a trace, each region becomes an "agen" and a "mem" slice on the track "Xfer CTA slot k",
// and the time from a region's release to the CTA's next region a "compute" slice (Fig. 12).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "stats/group.h"
#include "timing/sm/sm_policy.h"

namespace simtlab::timing {
struct CtaSlot;
class TraceSink;
}  // namespace simtlab::timing

namespace simtlab::ext::d2ma {

class XferRegions final : public timing::SmPolicy {
 public:
  XferRegions(uint32_t num_warps, stats::Group& sm);
  void begin_issue(uint64_t now, const std::vector<timing::WarpSlot>& warps) override;
  void on_issue(const timing::WarpSlot& w, const func::DInst& d) override;
  void end_issue(uint64_t now, bool issued, const std::vector<timing::Stall>& reasons) override;
  void set_trace(timing::TraceSink* t, uint32_t sm) override {
    trace_ = t;
    sm_ = sm;
  }

 private:
  enum : uint8_t { kOut, kIn, kAtBar };
  struct Region {
    bool open = false, has_load = false;
    uint64_t cta_start = 0, begin = 0, last_load = 0;
    bool released = false;  // a region of this CTA closed at `release` (trace: compute slice)
    uint64_t release = 0;
    uint32_t slot = 0;  // the CTA slot's index on this SM (trace track)
  };
  struct Owner {
    const void* warp = nullptr;
    uint64_t cta_start = 0;
  };
  uint8_t& state(const timing::WarpSlot& w);
  void close(const timing::WarpSlot& w, Region& r);

  std::vector<uint8_t> state_;  // per hardware warp slot
  std::vector<Owner> owner_;    // the warp a slot's state belongs to (slots are reused)
  std::unordered_map<const timing::CtaSlot*, Region> regions_;
  const std::vector<timing::WarpSlot>* warps_ = nullptr;
  uint64_t now_ = 0;
  timing::TraceSink* trace_ = nullptr;
  uint32_t sm_ = 0;
  stats::Group& g_;
  stats::Counter& regions_stat_;
  stats::Counter& agen_;
  stats::Counter& mem_;
  stats::Counter& total_;
  stats::Counter& no_load_;
  stats::Counter& all_wait_;
};

}  // namespace simtlab::ext::d2ma
