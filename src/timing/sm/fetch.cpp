// Instruction fetch: the I-cache (or a perfect one, sm.l1i_perfect) refills each warp's
// instruction buffer; sm.fetch_width fetches per cycle, warps served round robin.
#include <algorithm>

#include <fmt/format.h>

#include "base/error.h"
#include "timing/sm/sm.h"
#include "timing/trace.h"

namespace simtlab::timing {

void Sm::fetch(uint64_t now) {
  // Completed fetches refill instruction buffers.
  if (p_.l1i_perfect) {
    for (WarpSlot& w : warps_)
      if (w.active && w.fetch_pending && w.fetch_done_at <= now) {
        active_this_cycle_ = true;
        w.fetch_pending = false;
        w.ibuf = p_.ibuffer_entries;
        w.ibuf_ready = now;
        w.redirect = false;
      }
  }
  while (l1i_->has_ready(now)) {
    const MemReq r = l1i_->pop_ready(now);
    WarpSlot& w = warps_[uint32_t(r.id >> 32)];
    active_this_cycle_ = true;
    if (w.active && w.fetch_pending && (r.id & 0xffffffffu) == (w.fetch_gen & 0xffffffffu)) {
      w.fetch_pending = false;
      w.ibuf = p_.ibuffer_entries;
      w.ibuf_ready = now;
      w.redirect = false;
    }
  }
  if (l1i_->has_miss() && port_->can_send()) {
    port_->send(l1i_->pop_miss());
    active_this_cycle_ = true;
  }
  // Start fetches (round robin over warp slots).
  uint32_t started = 0;
  const uint32_t n = uint32_t(warps_.size());
  for (uint32_t k = 0; k < n && started < p_.fetch_width; ++k) {
    WarpSlot& w = warps_[(fetch_rr_ + k) % n];
    if (!w.active || w.func_done || w.fetch_pending || w.ibuf > 1 || w.fw->at_barrier) continue;
    if (w.ibuf == 1 && now < w.ibuf_ready) continue;
    MemReq r;
    r.id = (uint64_t(w.slot) << 32) | (w.fetch_gen & 0xffffffffu);
    const uint32_t pc = w.fw->pc() + w.ibuf;
    const Addr a = w.cta->k->code_base + uint64_t(pc) * p_.ifetch_bytes;
    r.addr = a & ~Addr(p_.l1i.line - 1);
    r.bytes = p_.l1i.line;
    r.kind = AccessKind::inst_fetch;
    r.sm = uint16_t(id_);
    r.issue_cycle = now;
    ++fetches_;
    if (p_.l1i_perfect) {
      w.fetch_pending = true;
      w.fetch_done_at = now + p_.l1i.hit_latency.v;
      active_this_cycle_ = true;
      ++started;
      fetch_rr_ = (w.slot + 1) % n;
      continue;
    }
    const AccessResult res = l1i_->access(r, now);
    active_this_cycle_ = true;
    if (!res.accepted()) {
      ++icache_misses_;
      continue;
    }
    if (res.status != AccessStatus::hit) ++icache_misses_;
    w.fetch_pending = true;
    ++started;
    fetch_rr_ = (w.slot + 1) % n;
  }
}

}  // namespace simtlab::timing
