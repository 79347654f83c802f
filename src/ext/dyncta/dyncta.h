// DYNCTA (Kayiran, Jog, Kandemir, Das, PACT 2013): per-SM dynamic CTA limit. See README.md.
//
//  DynctaController  the decision rule: start at max(1, floor(max/2)); at the end of every
//                    sampling period, with C_idle and C_mem counted over it:
//                      C_idle >= t_idle          -> limit + 1  (too little parallelism)
//                      else C_mem < t_mem_low    -> limit + 1  (memory is not the bottleneck)
//                      else C_mem >= t_mem_high  -> limit - 1  (memory contention)
//                    the limit stays in [1, max]
//  DynctaPolicy      the SM hook: CTA allocation stops at the limit; CTAs above the limit are
//                    paused (newest first: their warps may not issue) until the limit rises or
//                    older CTAs finish; counts per cycle in which nothing issued
//                      C_mem  every runnable warp waits for an L1D load it issued
//                      C_idle no runnable warp waits for a load (nothing to overlap)
#pragma once

#include <cstdint>
#include <vector>

#include "ext/dyncta/dyncta_params.h"
#include "stats/group.h"
#include "timing/sm/sm_policy.h"

namespace simtlab::timing::dyncta {

class DynctaController {
 public:
  explicit DynctaController(const DynctaParams& p) : p_(p) {}
  /// A new occupancy limit `max_ctas` (a kernel starts): limit = max(1, max_ctas / 2).
  void start(uint32_t max_ctas);
  /// End of a sampling period: applies the rule; returns +1, -1 or 0.
  int end_period(uint64_t c_idle, uint64_t c_mem);
  uint32_t limit() const { return limit_; }
  uint32_t max() const { return max_; }

 private:
  DynctaParams p_;
  uint32_t max_ = 0, limit_ = 0;
};

class DynctaPolicy final : public SmPolicy {
 public:
  static constexpr uint32_t kTrace = 64;  // sampling periods recorded in limit_trace
  DynctaPolicy(const DynctaParams& p, uint32_t num_warps, uint32_t max_ctas, stats::Group& sm);
  void begin_issue(uint64_t now, const std::vector<WarpSlot>& warps) override;
  bool may_issue(const WarpSlot& w, const func::DInst& d) const override;
  void on_issue(const WarpSlot& w, const func::DInst& d) override;
  void on_mem_done(const WarpSlot& w, const func::DInst& d) override;
  void end_issue(uint64_t now, bool issued, const std::vector<Stall>& reasons) override;
  uint32_t cta_limit(uint32_t max_ctas) override;
  void begin_kernel() override { restart_ = true; }

  const DynctaController& controller() const { return ctl_; }
  uint64_t c_idle() const { return c_idle_; }
  uint64_t c_mem() const { return c_mem_; }

 private:
  DynctaParams p_;
  DynctaController ctl_;
  bool restart_ = true;
  bool wait_metric_ = false;     // dyncta.c_mem == "wait"
  std::vector<uint16_t> loads_;  // L1D loads in flight per warp slot
  std::vector<uint8_t> paused_;
  const std::vector<WarpSlot>* warps_ = nullptr;
  std::vector<std::pair<uint64_t, uint32_t>> ctas_;  // (start cycle, linear id) scratch
  std::vector<const void*> cta_ptrs_;
  uint64_t period_start_ = 0;
  bool started_ = false;
  uint64_t c_idle_ = 0, c_mem_ = 0;
  uint64_t periods_ = 0;
  stats::Group& g_;
  stats::Counter& periods_stat_;
  stats::Counter& increments_;
  stats::Counter& decrements_;
  stats::Counter& idle_cycles_;
  stats::Counter& mem_cycles_;
  stats::Counter& paused_cta_cycles_;
  stats::Vector& at_limit_;
  stats::Vector& trace_;
};

}  // namespace simtlab::timing::dyncta
