// Writeback: results leave the latency wheel (or arrive from the LD/ST unit) and release
// their scoreboard entries; a warp that finished and drained retires.
#include <algorithm>

#include <fmt/format.h>

#include "base/error.h"
#include "ext/greener/greener.h"
#include "ext/rfc/rfc.h"
#include "timing/sm/sm.h"
#include "timing/trace.h"

namespace simtlab::timing {

void Sm::schedule_writeback(const InFlight& f, uint64_t cycle) {
  Writeback wb;
  wb.warp = f.w->slot;
  wb.ndst = f.ndst;
  for (unsigned i = 0; i < f.ndst; ++i) {
    wb.dst[i] = f.dst[i];
    wb.dst_w[i] = f.dst_w[i];
    wb.dst_pred[i] = f.dst_pred[i];
  }
  schedule_wb(wb, cycle);
  if (f.group) tbc_release_group(f.group, cycle);  // thread block compaction: other home warps
}

void Sm::schedule_wb(const Writeback& wb, uint64_t cycle) {
  if (cycle <= cycle_now_) {
    release(wb, cycle_now_);
    return;
  }
  SIMTLAB_ASSERT(cycle - cycle_now_ < kWheel, "latency exceeds the writeback wheel");
  wheel_[cycle % kWheel].push_back(wb);
  ++wheel_pending_;
  wb_times_.push(cycle);
}

void Sm::complete(const InFlight& f, uint64_t now) {
  // Memory results write back in the cycle they return.
  if (f.pcc) {
    WarpSlot& w = *f.w;
    for (unsigned i = 0; i < f.ndst; ++i)
      if (!f.dst_pred[i] && f.dst[i] < w.pend_mem.size() && w.pend_mem[f.dst[i]])
        --w.pend_mem[f.dst[i]];
  }
  if (f.long_mem && f.w->pending_long) --f.w->pending_long;
  if (f.async_group) async_complete(f);
  Writeback wb;
  wb.warp = f.w->slot;
  wb.ndst = f.ndst;
  for (unsigned i = 0; i < f.ndst; ++i) {
    wb.dst[i] = f.dst[i];
    wb.dst_w[i] = f.dst_w[i];
    wb.dst_pred[i] = f.dst_pred[i];
  }
  release(wb, now);
  if (f.group) tbc_release_group(f.group, now);  // thread block compaction: other home warps
}

void Sm::release(const Writeback& wb, uint64_t now) {
  WarpSlot& w = warps_[wb.warp];
  for (unsigned i = 0; i < wb.ndst; ++i) {
    auto& v = wb.dst_pred[i] ? w.pend_pred : w.pend_reg;
    if (v[wb.dst[i]]) --v[wb.dst[i]];
    if (w.pending_writes) --w.pending_writes;
    if (wb.dst_pred[i]) continue;
    if (greener_) greener_->on_write(wb.warp, wb.dst[i], wb.dst_w[i], now);  // GREENER
    if (rfc_) {  // register-file cache: only an MRF write (direct or live eviction) takes a bank
      const int64_t mrf = rfc_->write(w.slot, wb.dst[i]);
      if (mrf >= 0) bank_busy_[bank_of(uint32_t(mrf), w.slot)] = 1;
    } else {
      bank_busy_[bank_of(wb.dst[i], w.slot)] = 1;
    }
    for (uint32_t k = 1; k < wb.dst_w[i]; ++k) {  // the rest of an architectural pair/quad
      if (v[wb.dst[i] + k]) --v[wb.dst[i] + k];
      bank_busy_[bank_of(wb.dst[i] + k, w.slot)] = 1;
    }
  }
  --w.inflight;
  last_progress_ = now;
  if (w.func_done && w.inflight == 0 && w.active) retire_warp(w);
}

void Sm::writeback(uint64_t now) {
  std::fill(bank_busy_.begin(), bank_busy_.end(), 0);
  while (!wb_times_.empty() && wb_times_.top() <= now) wb_times_.pop();
  if (!wheel_pending_) return;
  auto& slot = wheel_[now % kWheel];
  if (slot.empty()) return;
  std::vector<Writeback> due;
  due.swap(slot);
  wheel_pending_ -= uint32_t(due.size());
  for (const Writeback& wb : due) release(wb, now);
  active_this_cycle_ = true;
}

}  // namespace simtlab::timing
