// Operand collector (register-bank arbitration) and dispatch to the execution units.
#include <algorithm>

#include <fmt/format.h>

#include "base/error.h"
#include "ext/greener/greener.h"
#include "timing/sm/sm.h"
#include "timing/trace.h"

namespace simtlab::timing {

void Sm::collect(uint64_t now) {
  if (!collectors_busy_) return;
  // Oldest first; one read per bank per cycle; banks written back this cycle are blocked.
  std::vector<uint8_t>& used = bank_scratch_;
  used.assign(p_.num_reg_banks, 0);
  for (uint32_t b = 0; b < p_.num_reg_banks; ++b) used[b] = bank_busy_[b];
  order_scratch_.clear();
  for (uint32_t i = 0; i < collectors_.size(); ++i)
    if (collectors_[i].w && collectors_[i].nreads) order_scratch_.push_back(i);
  std::sort(order_scratch_.begin(), order_scratch_.end(),
            [&](uint32_t a, uint32_t b) { return collectors_[a].age < collectors_[b].age; });
  for (uint32_t i : order_scratch_) {
    InFlight& f = collectors_[i];
    uint8_t left = 0;
    bool blocked = false;
    for (uint8_t k = 0; k < f.nreads; ++k) {
      const uint8_t b = f.read_bank[k];
      if (!used[b]) {
        used[b] = 1;
      } else {
        f.read_bank[left++] = b;
        blocked = true;
      }
    }
    f.nreads = left;
    if (greener_ && !left) greener_->on_read(f.w->slot, f.age, now);  // GREENER: source states
    if (blocked) {
      ++bank_conflicts_;
      if (f.pcc) ++f.pcc->rf_bank_conflicts;
    }
  }
}

void Sm::dispatch(uint64_t now) {
  if (!collectors_busy_) return;
  order_scratch_.clear();
  for (uint32_t i = 0; i < collectors_.size(); ++i)
    if (collectors_[i].w && collectors_[i].nreads == 0) order_scratch_.push_back(i);
  std::sort(order_scratch_.begin(), order_scratch_.end(),
            [&](uint32_t a, uint32_t b) { return collectors_[a].age < collectors_[b].age; });
  for (uint32_t i : order_scratch_) {
    InFlight& f = collectors_[i];
    if (f.unit == UnitKind::ldst) {
      if (!ldst_->can_accept()) continue;
      ldst_->accept(f, mem_recs_[i], now);
    } else {
      Unit* u = nullptr;
      const uint32_t part = i % parts_;  // collectors belong to their warp's sub-core
      for (Unit& c : units_)
        if (c.kind == f.unit && c.part == part && c.free_at <= now) {
          u = &c;
          break;
        }
      if (!u) continue;
      u->free_at = now + f.occupancy;
      // Issue at t, operands read at t+1 (dispatch), result at t + latency.
      schedule_writeback(f, now + f.latency - 1);
    }
    --waiting(i % parts_, f.unit);
    --collectors_busy_;
    --coll_busy_part_[i % parts_];
    f.w = nullptr;
  }
}

}  // namespace simtlab::timing
