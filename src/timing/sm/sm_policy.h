// Hook points the SM offers to research mechanisms (design/MECHANISMS.md), implemented by the
// classes under src/ext/. An SM owns a list of policies (src/ext/sm_policies.cpp builds it from
// the configuration); with every mechanism off the list is empty and the SM pays one emptiness
// test per hook site.
//
//   begin_issue    start of the issue stage of cycle `now` (policies refresh per-cycle state:
//                  score decay, the cutoff, paused CTAs)
//   may_issue      issue readiness: called for a warp whose next instruction passed every
//                  pipeline check; false charges the slot to Stall::throttled
//   on_issue       an instruction issued (after functional execution)
//   on_mem_done    a memory instruction completed in the LD/ST unit
//   end_issue      end of the issue stage: whether any scheduler issued, each one's reason
//   cta_limit      CTA allocation: the most CTAs the SM may hold for a kernel whose occupancy
//                  limit is `max_ctas` (Sm::fits)
//   begin_kernel   a kernel launch starts on the GPU
//   set_trace      the timeline trace (null: off) and the SM's index
#pragma once

#include <cstdint>
#include <vector>

#include "timing/sm/stall.h"

namespace simtlab::func {
struct DInst;
}

namespace simtlab::timing {

struct WarpSlot;
class TraceSink;

class SmPolicy {
 public:
  virtual ~SmPolicy() = default;
  virtual void begin_issue(uint64_t now, const std::vector<WarpSlot>& warps) {
    (void)now;
    (void)warps;
  }
  virtual bool may_issue(const WarpSlot& w, const func::DInst& d) const {
    (void)w;
    (void)d;
    return true;
  }
  virtual void on_issue(const WarpSlot& w, const func::DInst& d) {
    (void)w;
    (void)d;
  }
  virtual void on_mem_done(const WarpSlot& w, const func::DInst& d) {
    (void)w;
    (void)d;
  }
  virtual void end_issue(uint64_t now, bool issued, const std::vector<Stall>& reasons) {
    (void)now;
    (void)issued;
    (void)reasons;
  }
  virtual uint32_t cta_limit(uint32_t max_ctas) { return max_ctas; }
  virtual void begin_kernel() {}
  virtual void set_trace(TraceSink* t, uint32_t sm) {
    (void)t;
    (void)sm;
  }
};

/// A load that goes through the L1 data cache (ld/ldu of global, local or generic memory): the
/// requests CCWS throttles and DYNCTA counts as memory waits.
bool is_l1d_load(const func::DInst& d);

}  // namespace simtlab::timing
