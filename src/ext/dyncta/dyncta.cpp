#include "ext/dyncta/dyncta.h"

#include <algorithm>

#include <fmt/format.h>

#include "timing/sm/sm.h"

namespace simtlab::timing::dyncta {

// ---- DynctaController -----------------------------------------------------------------------

void DynctaController::start(uint32_t max_ctas) {
  max_ = std::max(max_ctas, 1u);
  limit_ = std::max(max_ / 2, 1u);
}

int DynctaController::end_period(uint64_t c_idle, uint64_t c_mem) {
  int step = 0;
  if (c_idle >= p_.t_idle || c_mem < p_.t_mem_low)
    step = 1;
  else if (c_mem >= p_.t_mem_high)
    step = -1;
  if (step > 0 && limit_ < max_) {
    ++limit_;
    return 1;
  }
  if (step < 0 && limit_ > 1) {
    --limit_;
    return -1;
  }
  return 0;
}

// ---- DynctaPolicy ---------------------------------------------------------------------------

namespace {
std::vector<std::string> numbered(const char* prefix, uint32_t first, uint32_t n) {
  std::vector<std::string> v;
  for (uint32_t i = 0; i < n; ++i) v.push_back(fmt::format("{}{}", prefix, first + i));
  return v;
}
}  // namespace

DynctaPolicy::DynctaPolicy(const DynctaParams& p, uint32_t num_warps, uint32_t max_ctas,
                           stats::Group& sm)
    : p_(p),
      ctl_(p),
      wait_metric_(p.c_mem == "wait"),
      loads_(num_warps, 0),
      paused_(num_warps, 0),
      g_(sm.child("dyncta")),
      periods_stat_(g_.counter("periods", "periods", "Sampling periods completed")),
      increments_(g_.counter("increments", "periods", "Periods that raised the CTA limit")),
      decrements_(g_.counter("decrements", "periods", "Periods that lowered the CTA limit")),
      idle_cycles_(g_.counter("c_idle", "cycles",
                              "Cycles nothing issued and no runnable warp waited for a load")),
      mem_cycles_(g_.counter("c_mem", "cycles",
                             "Cycles nothing issued and every runnable warp waited for a load")),
      paused_cta_cycles_(g_.counter("paused_cta_cycles", "CTA-cycles",
                                    "Sum over cycles of resident CTAs paused above the limit")),
      at_limit_(g_.vector("periods_at_limit", "periods",
                          "Sampling periods ended with each CTA limit (n1 = limit 1)",
                          numbered("n", 1, max_ctas))),
      trace_(g_.vector("limit_trace", "CTAs",
                       "CTA limit after each of the first 64 sampling periods (0: no period)",
                       numbered("p", 0, kTrace))) {}

uint32_t DynctaPolicy::cta_limit(uint32_t max_ctas) {
  if (restart_ || max_ctas != ctl_.max()) {
    restart_ = false;
    ctl_.start(max_ctas);
  }
  return ctl_.limit();
}

void DynctaPolicy::begin_issue(uint64_t now, const std::vector<WarpSlot>& warps) {
  (void)now;
  warps_ = &warps;
  std::fill(paused_.begin(), paused_.end(), 0);
  if (!ctl_.limit()) return;
  cta_ptrs_.clear();
  for (const WarpSlot& w : warps)
    if (w.active && w.cta &&
        std::find(cta_ptrs_.begin(), cta_ptrs_.end(), w.cta) == cta_ptrs_.end())
      cta_ptrs_.push_back(w.cta);
  if (cta_ptrs_.size() <= ctl_.limit()) return;
  // Pause the newest CTAs above the limit.
  std::sort(cta_ptrs_.begin(), cta_ptrs_.end(), [](const void* a, const void* b) {
    const CtaSlot& x = *static_cast<const CtaSlot*>(a);
    const CtaSlot& y = *static_cast<const CtaSlot*>(b);
    if (x.start_cycle != y.start_cycle) return x.start_cycle < y.start_cycle;
    return x.cta->linear_id < y.cta->linear_id;
  });
  const size_t first_paused = ctl_.limit();
  paused_cta_cycles_ += cta_ptrs_.size() - first_paused;
  for (const WarpSlot& w : warps) {
    if (!w.active) continue;
    const auto it = std::find(cta_ptrs_.begin(), cta_ptrs_.end(), w.cta);
    if (size_t(it - cta_ptrs_.begin()) >= first_paused) paused_[w.slot] = 1;
  }
}

bool DynctaPolicy::may_issue(const WarpSlot& w, const func::DInst& d) const {
  (void)d;
  return !paused_[w.slot];
}

void DynctaPolicy::on_issue(const WarpSlot& w, const func::DInst& d) {
  if (is_l1d_load(d)) ++loads_[w.slot];
}

void DynctaPolicy::on_mem_done(const WarpSlot& w, const func::DInst& d) {
  if (is_l1d_load(d) && loads_[w.slot]) --loads_[w.slot];
}

void DynctaPolicy::end_issue(uint64_t now, bool issued, const std::vector<Stall>& reasons) {
  if (!started_ || now < period_start_) {
    started_ = true;
    period_start_ = now;
  }
  if (!issued && warps_) {
    uint32_t runnable = 0, waiting = 0;
    for (const WarpSlot& w : *warps_) {
      if (!w.active || w.func_done || paused_[w.slot] || (w.fw && w.fw->at_barrier)) continue;
      ++runnable;
      if (loads_[w.slot]) ++waiting;
    }
    const bool mem = wait_metric_ ? (runnable && waiting == runnable)
                                  : std::find(reasons.begin(), reasons.end(),
                                              Stall::mem_pipeline) != reasons.end();
    if (mem) {
      ++c_mem_;
      ++mem_cycles_;
    } else if (!waiting) {
      ++c_idle_;
      ++idle_cycles_;
    }
  }
  if (now + 1 - period_start_ < p_.period) return;
  const int step = ctl_.max() ? ctl_.end_period(c_idle_, c_mem_) : 0;
  if (step > 0) ++increments_;
  if (step < 0) ++decrements_;
  if (ctl_.limit()) ++at_limit_[std::min<size_t>(ctl_.limit() - 1, at_limit_.size() - 1)];
  if (periods_ < kTrace) trace_[periods_] = ctl_.limit();
  ++periods_;
  ++periods_stat_;
  c_idle_ = c_mem_ = 0;
  period_start_ = now + 1;
}

}  // namespace simtlab::timing::dyncta
