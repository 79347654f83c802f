#include "ext/d2ma/xfer.h"

#include "func/program.h"
#include "func/warp.h"
#include "timing/sm/sm.h"
#include "timing/sm/warp_slot.h"
#include "timing/trace.h"

namespace simtlab::ext::d2ma {

namespace {
bool is_cta_barrier(const func::DInst& d) {
  if (!d.in) return false;
  if (d.in->op != ptx::Op::bar && d.in->op != ptx::Op::barrier) return false;
  return !d.in->has(ptx::IF_WARP) && !d.in->has(ptx::IF_ARRIVE);
}
}  // namespace

XferRegions::XferRegions(uint32_t num_warps, stats::Group& sm)
    : state_(num_warps, kOut),
      owner_(num_warps),
      g_(sm.child("xfer")),
      regions_stat_(g_.counter("regions", "regions",
                               "Transfer regions completed (marker to barrier release, per CTA)")),
      agen_(g_.counter("agen_cycles", "cycles",
                       "Sum over regions of first marker issue -> last global load issued")),
      mem_(g_.counter("mem_cycles", "cycles",
                      "Sum over regions of last global load issued -> barrier release")),
      total_(g_.counter("transfer_cycles", "cycles",
                        "Sum over regions of first marker issue -> barrier release")),
      no_load_(g_.counter("regions_without_loads", "regions",
                          "Regions in which no warp issued a global load")),
      all_wait_(g_.counter("all_wait_cycles", "cycles",
                           "Cycles nothing issued and every live warp was inside a region")) {
  g_.ratio("agen_cycles_per_region", "cycles", "AGEN time per region", "agen_cycles", "regions");
  g_.ratio("mem_cycles_per_region", "cycles", "MEM time per region", "mem_cycles", "regions");
}

uint8_t& XferRegions::state(const timing::WarpSlot& w) {
  Owner& o = owner_[w.slot];
  const uint64_t cs = w.cta ? w.cta->start_cycle : 0;
  if (o.warp != w.fw || o.cta_start != cs) {
    o = Owner{w.fw, cs};
    state_[w.slot] = kOut;
  }
  return state_[w.slot];
}

void XferRegions::close(const timing::WarpSlot& w, Region& r) {
  ++regions_stat_;
  total_ += now_ - r.begin;
  if (r.has_load) {
    agen_ += r.last_load - r.begin;
    mem_ += now_ - r.last_load;
  } else {
    ++no_load_;
    mem_ += now_ - r.begin;
  }
  r.open = false;
  if (trace_) {
    const uint32_t cta = w.cta->cta ? w.cta->cta->linear_id : 0;
    const uint64_t split = r.has_load ? r.last_load : r.begin;
    trace_->xfer_phase(sm_, r.slot, cta, "agen", r.begin, split);
    trace_->xfer_phase(sm_, r.slot, cta, "mem", split, now_);
  }
  r.released = true;
  r.release = now_;
  // Every warp of the CTA left the barrier: the ones that have not issued since are out too.
  for (const timing::WarpSlot& o : *warps_)
    if (o.active && o.cta == w.cta && state(o) == kAtBar) state_[o.slot] = kOut;
}

void XferRegions::begin_issue(uint64_t now, const std::vector<timing::WarpSlot>& warps) {
  now_ = now;
  warps_ = &warps;
}

void XferRegions::on_issue(const timing::WarpSlot& w, const func::DInst& d) {
  uint8_t& st = state(w);
  auto [it, fresh] = regions_.try_emplace(w.cta);
  Region& r = it->second;
  if (fresh) r.slot = uint32_t(regions_.size() - 1);
  if (r.cta_start != w.cta->start_cycle) {  // a new CTA in the slot
    const uint32_t slot = r.slot;
    r = Region{};
    r.slot = slot;
    r.cta_start = w.cta->start_cycle;
  }
  if (st == kAtBar) {  // the first issue after the region's barrier: it was released
    st = kOut;
    if (r.open) close(w, r);
  }
  if (d.xfer_mark) {
    st = kIn;
    if (!r.open) {
      if (trace_ && r.released)
        trace_->xfer_phase(sm_, r.slot, w.cta->cta ? w.cta->cta->linear_id : 0, "compute",
                           r.release, now_);
      r.open = true;
      r.has_load = false;
      r.begin = now_;
      r.last_load = 0;
    }
  }
  if (st != kIn || !r.open) return;
  if (timing::is_l1d_load(d)) {
    r.last_load = now_;
    r.has_load = true;
  } else if (is_cta_barrier(d)) {
    st = kAtBar;
  }
}

void XferRegions::end_issue(uint64_t now, bool issued, const std::vector<timing::Stall>& reasons) {
  (void)now;
  (void)reasons;
  if (issued || !warps_) return;
  uint32_t live = 0, in = 0;
  for (const timing::WarpSlot& w : *warps_) {
    if (!w.active || w.func_done) continue;
    ++live;
    in += state(w) != kOut;
  }
  if (live && in == live) ++all_wait_;
}

}  // namespace simtlab::ext::d2ma
