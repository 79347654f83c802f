// The SM's bulk-copy / TMA unit (tma.h).
#include "timing/sm/tma.h"

#include <map>

#include "func/executor.h"
#include "func/memory.h"
#include "stats/group.h"
#include "timing/sm/mem_port.h"

namespace simtlab::timing {

void TmaUnit::add(func::Cta* cta, bool to_shared, bool tensor,
                  const std::vector<std::pair<uint64_t, uint32_t>>& runs, uint64_t mbar,
                  uint32_t tx, uint64_t now, std::function<void()> done) {
  const uint64_t id = next_id_++;
  Xfer& x = xfers_[id];
  x.cta = cta;
  x.to_shared = to_shared;
  x.mbar = mbar;
  x.tx = tx;
  x.issued_at = now;
  x.done = std::move(done);
  ++*c_.insts;
  if (tensor) ++*c_.tensor;
  // The 128-byte blocks the runs touch, in address order, with their sectors (loads) or bytes
  // (stores).
  std::map<uint64_t, std::pair<uint32_t, ByteMask>> blocks;
  for (const auto& [a, n] : runs) {
    *c_.bytes += n;
    for (uint64_t p = a; p < a + n;) {
      const uint64_t b = block_of(p);
      const uint32_t lo = uint32_t(p - b),
                     hi = uint32_t(std::min<uint64_t>(a + n - b, kBlockBytes));
      auto it = blocks.try_emplace(b, 0u, ByteMask::none()).first;
      for (uint32_t s = lo / kSectorBytes; s <= (hi - 1) / kSectorBytes; ++s)
        it->second.first |= 1u << s;
      for (uint32_t i = lo; i < hi; ++i) it->second.second.set(i, true);
      p = b + hi;
    }
  }
  uint32_t seq = 0;
  for (const auto& [b, m] : blocks) {
    MemReq r;
    r.id = kTag | id << 20 | seq++;
    r.addr = b;
    r.bytes = kBlockBytes;
    r.sector_mask = m.first;
    r.kind = to_shared ? AccessKind::load : AccessKind::store;
    r.sm = sm_;
    r.l1_bypass = true;
    if (!to_shared) r.byte_mask = m.second;
    if (gmem_) r.addr = gmem_->timing_address(r.addr);
    x.to_send.push_back(r);
  }
  x.outstanding = uint32_t(x.to_send.size());
  if (x.to_send.empty()) {  // nothing in bounds: complete now
    if (to_shared && cta) func::mbarrier_complete_tx(*gmem_, *cta, mbar, tx);
    if (x.done) x.done();
    xfers_.erase(id);
    return;
  }
  send_q_.push_back(id);
}

bool TmaUnit::tick(uint64_t now) {
  while (!send_q_.empty()) {
    auto it = xfers_.find(send_q_.front());
    if (it == xfers_.end() || it->second.to_send.empty()) {
      send_q_.pop_front();
      continue;
    }
    if (!port_->can_send()) {
      ++*c_.port_full;
      return false;
    }
    MemReq r = it->second.to_send.front();
    it->second.to_send.pop_front();
    r.issue_cycle = now;
    port_->send(r);
    ++*c_.requests;
    if (it->second.to_send.empty()) send_q_.pop_front();
    return true;
  }
  return false;
}

void TmaUnit::on_response(const MemResp& r, uint64_t now) {
  auto it = xfers_.find((r.req.id & ~kTag) >> 20);
  if (it == xfers_.end()) return;
  Xfer& x = it->second;
  if (--x.outstanding) return;
  if (x.to_shared) {
    *c_.latency += now - x.issued_at;
    if (x.cta) func::mbarrier_complete_tx(*gmem_, *x.cta, x.mbar, x.tx);
  }
  if (x.done && x.cta) x.done();
  xfers_.erase(it);
}

void TmaUnit::cta_done(const func::Cta* cta) {
  // The requests still drain (the traffic happened); no completion is applied.
  for (auto& [id, x] : xfers_)
    if (x.cta == cta) x.cta = nullptr;
}

}  // namespace simtlab::timing
