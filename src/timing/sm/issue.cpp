// Issue: the scoreboard check (pending register writes per warp) and the scheduler loop that
// picks, per scheduler, the first warp in policy order that can issue; every slot is charged
// to one stall reason.
#include <algorithm>

#include <fmt/format.h>

#include "base/error.h"
#include "ext/classify/classify.h"
#include "ext/d2ma/d2ma.h"
#include "ext/greener/greener.h"
#include "ext/its/its_stats.h"
#include "ext/its/simt_stats.h"
#include "ext/lpc/lpc_stats.h"
#include "ext/rfc/last_use.h"
#include "ext/rfc/rfc.h"
#include "ext/sharing/sharing.h"
#include "func/regcheck.h"
#include "timing/sm/sm.h"
#include "timing/trace.h"

namespace simtlab::timing {

bool Sm::hazard(const WarpSlot& w, const func::DInst& d) const {
  const func::Frame& fr = w.fw->frame();
  for (unsigned i = 0; i < d.nsrc; ++i) {
    const uint16_t s = d.src[i];
    if (s >= func::kPredSlotBase) {
      const uint32_t a = fr.pred_base + (s - func::kPredSlotBase);
      if (a < w.pend_pred.size() && w.pend_pred[a]) return true;
    } else {
      const uint32_t a = fr.reg_base + s;
      if (a < w.pend_reg.size() && w.pend_reg[a]) return true;
    }
  }
  for (unsigned i = 0; i < d.ndst; ++i) {
    const uint16_t s = d.dst[i];
    if (s >= func::kPredSlotBase) {
      const uint32_t a = fr.pred_base + (s - func::kPredSlotBase);
      if (a < w.pend_pred.size() && w.pend_pred[a]) return true;
    } else {
      const uint32_t a = fr.reg_base + s;
      if (a < w.pend_reg.size() && w.pend_reg[a]) return true;
    }
  }
  if (p_.scoreboard_entries && w.pending_writes + d.ndst > p_.scoreboard_entries) return true;
  // sm.max_inflight_per_warp (seed 004: no forwarding, one instruction per warp in flight).
  if (p_.max_inflight_per_warp && w.inflight >= p_.max_inflight_per_warp) return true;
  return false;
}

// The scoreboard check on architectural numbers (sm.register_numbering = architectural):
// every 32-bit register of each value operand; predicates keep their slots.
bool Sm::hazard_arch(const WarpSlot& w, const func::DInst& d, const func::ArchPc& ap) const {
  const func::Frame& fr = w.fw->frame();
  auto pend = [&](const func::ArchOperand& o) {
    for (uint32_t k = 0; k < o.width; ++k) {
      const uint32_t a = fr.reg_base + o.reg + k;
      if (a < w.pend_reg.size() && w.pend_reg[a]) return true;
    }
    return false;
  };
  for (unsigned i = 0; i < ap.nsrc; ++i)
    if (pend(ap.src[i])) return true;
  for (unsigned i = 0; i < ap.ndst; ++i)
    if (pend(ap.dst[i])) return true;
  auto pred = [&](uint16_t s) {
    if (s < func::kPredSlotBase) return false;
    const uint32_t a = fr.pred_base + (s - func::kPredSlotBase);
    return a < w.pend_pred.size() && w.pend_pred[a];
  };
  for (unsigned i = 0; i < d.nsrc; ++i)
    if (pred(d.src[i])) return true;
  for (unsigned i = 0; i < d.ndst; ++i)
    if (pred(d.dst[i])) return true;
  if (p_.scoreboard_entries && w.pending_writes + d.ndst > p_.scoreboard_entries) return true;
  return false;
}

// A spill reload before the instruction at `pc`, or the spill store owed after it, issued as
// a local-memory LD/ST warp instruction of its own (as ptxas's LDL/STL): it takes an issue
// slot, a collector and the LD/ST unit; the reload's registers are pending until the data
// returns, and the store reads its registers from the banks.
Stall Sm::issue_spill(WarpSlot& w, KernelCtx& kc, uint32_t pc, bool store, uint64_t now,
                      bool* issued) {
  const func::ArchPc& ap = kc.arch->pc[pc];
  const uint32_t base = store ? w.spill_reg_base : w.fw->frame().reg_base;
  const func::ArchOperand* ops = store ? ap.store : ap.reload;
  const unsigned n = store ? ap.nstore : ap.nreload;
  for (unsigned i = 0; i < n; ++i)
    for (uint32_t k = 0; k < ops[i].width; ++k) {
      const uint32_t a = base + ops[i].reg + k;
      if (a < w.pend_reg.size() && w.pend_reg[a]) return Stall::scoreboard;
    }
  if (collectors_full(part_of(w))) return Stall::collector_full;
  if (waiting(0, UnitKind::ldst) >= unit_cap(UnitKind::ldst)) return Stall::mem_pipeline;
  const func::DInst& d = kc.launch->prog->code[pc];
  InFlight f;
  f.w = &w;
  f.d = &d;
  f.unit = UnitKind::ldst;
  f.age = issue_seq_++;
  f.issue_cycle = now;
  f.local_bytes = kc.arch_local_bytes;
  f.lanes = store ? w.spill_lanes : w.fw->active();
  func::WarpInstRecord r;
  r.inst = &d;
  r.pc = pc;
  r.active = r.exec = f.lanes;
  r.space = func::MemSpace::local;
  (store ? r.is_store : r.is_load) = true;
  const uint32_t words = store ? ap.store_words : ap.reload_words;
  r.access_size = uint8_t(std::min<uint32_t>(16, 4 * words));
  const Addr a = kc.spill_area + (store ? ap.store_offset : ap.reload_offset);
  for (LaneMask m = f.lanes; m; m &= m - 1) r.addr[unsigned(__builtin_ctz(m))] = a;
  for (unsigned i = 0; i < n; ++i)
    for (uint32_t k = 0; k < ops[i].width; ++k) {
      const uint32_t reg = base + ops[i].reg + k;
      if (store) {
        if (f.nreads < 8) f.read_bank[f.nreads++] = uint8_t(bank_of(reg, w.slot));
        continue;
      }
      if (reg >= w.pend_reg.size()) w.pend_reg.resize(reg + 1, 0);
      ++w.pend_reg[reg];
    }
  if (!store)
    for (unsigned i = 0; i < n && f.ndst < 4; ++i) {
      f.dst[f.ndst] = base + ops[i].reg;
      f.dst_w[f.ndst] = ops[i].width;
      f.dst_pred[f.ndst] = false;
      ++f.ndst;
      ++w.pending_writes;
    }
  ++(store ? *spill_stores_ : *spill_reloads_);
  *spill_words_ += words;
  if (store)
    w.spill_store_pc = WarpSlot::kNoPc;
  else
    w.reloaded_pc = pc;
  ++w.inflight;
  for (size_t i = part_of(w); i < collectors_.size(); i += parts_) {
    if (collectors_[i].w) continue;
    collectors_[i] = f;
    mem_recs_[i] = r;
    ++collectors_busy_;
    ++coll_busy_part_[coll_part_[i]];
    ++waiting(0, UnitKind::ldst);
    break;
  }
  *issued = true;
  return Stall::issued;
}

template <bool kExt>
Stall Sm::try_issue(WarpSlot& w, uint64_t now, bool* issued) {
  *issued = false;
  if (!w.active || w.func_done) return Stall::idle;
  if constexpr (kExt)
    if (tbc_on_) {  // sim.divergence=tbc / dwf
      if (w.cta->tbc) return try_issue_tbc(w, now, issued);
      if (w.cta->dwf) return try_issue_dwf(w, now, issued);
    }
  func::Warp& fw = *w.fw;
  if (fw.at_barrier) {
    w.was_at_barrier = true;
    return Stall::barrier;
  }
  if (w.was_at_barrier) {
    w.was_at_barrier = false;
    w.ready_at = std::max(w.ready_at, now + p_.barrier_latency - 1);
  }
  if (now < w.ready_at) return Stall::barrier;
  KernelCtx& kc = *w.cta->k;
  const func::ArchPc* ap = nullptr;
  if constexpr (kExt)
    if (w.held) {  // a shared-memory instruction waiting for the scratchpad lock
      if (!sharing_->smem_retry(w)) return Stall::lock_wait;
      if (collectors_full(part_of(w))) return Stall::collector_full;
      auto& h = held_[w.slot];
      w.held = false;
      place_in_collector(h.first, h.second);
      return Stall::lock_wait;  // the slot went to moving it, not to a new instruction
    }
  if constexpr (kExt)
    if (kc.arch && w.spill_store_pc != WarpSlot::kNoPc)
      return issue_spill(w, kc, w.spill_store_pc, true, now, issued);
  if (w.ibuf == 0 || now < w.ibuf_ready) return w.redirect ? Stall::control : Stall::fetch;
  const uint32_t pc = fw.pc();
  const func::DInst& d = kc.launch->prog->code[pc];
  if (((d.async_wait >= 0 && !async_ready(w, d)) || (d.wgmma_wait >= 0 && !wgmma_ready(w, d, now))))
      [[unlikely]] {
    if (!w.async_waiting) {
      w.async_waiting = true;
      w.async_wait_since = now;
    }
    return Stall::barrier;  // cp.async.wait_group: a synchronization wait (sm.cpp)
  }
  if (d.bulk_wait >= 0 && w.bulk_groups.size() > size_t(d.bulk_wait)) [[unlikely]]
    return Stall::barrier;  // cp.async.bulk.wait_group: stores of older groups in flight
  if (d.mbar_try_wait && mbar_blocks(w, d, now)) [[unlikely]]
    return Stall::barrier;  // mbarrier.try_wait on an incomplete phase (sm.cpp)
  if constexpr (kExt) {
    if (kc.arch) {
      ap = &kc.arch->pc[pc];
      if (ap->reload_words && w.reloaded_pc != pc)
        return issue_spill(w, kc, pc, false, now, issued);
      if (hazard_arch(w, d, *ap)) return Stall::scoreboard;
      if (greener_) {  // GREENER: RAR/WAR reservations, operands ON (else wake them)
        const Stall g = greener_->check(w, pc, *ap, fw.frame().reg_base, now);
        if (g != Stall::issued) return g;
      }
    } else if (hazard(w, d)) {
      return Stall::scoreboard;
    }
  } else if (hazard(w, d)) {
    return Stall::scoreboard;
  }
  const uint32_t part = part_of(w);
  if (collectors_full(part)) return Stall::collector_full;
  const UnitKind uk = unit_for(d.exec);
  if (waiting(part, uk) >= unit_cap(uk))
    return uk == UnitKind::ldst ? Stall::mem_pipeline : Stall::unit_busy;
  if constexpr (kExt) {
    if (!policies_.empty() && !policies_allow(w, d)) return Stall::throttled;
    if (sharing_) {
      if (!sharing_->reg_gate(w, pc)) return Stall::lock_wait;
      if (!sharing_->dyn_allow(w, d)) return Stall::throttled;
    }
  }

  // Issue: compute destination registers in the frame the instruction executes in.
  InFlight f;
  f.w = &w;
  f.d = &d;
  f.unit = uk;
  f.age = issue_seq_++;
  f.issue_cycle = now;
  f.local_bytes = kExt && kc.arch ? kc.arch_local_bytes : kc.launch->local_bytes_per_thread;
  if constexpr (kExt)
    if (kc.pcs) f.pcc = &kc.pcs->pc[pc];
  const UnitTiming& t = timing_for(d.exec);
  const uint32_t passes = (uk == UnitKind::sp || uk == UnitKind::intu) ? passes_ : 1;
  f.latency = t.latency + passes - 1;
  f.occupancy = t.interval * passes;
  const func::Frame fr = fw.frame();
  if (kExt && ap) {
    for (unsigned i = 0; i < ap->nsrc; ++i)
      for (uint32_t k = 0; k < ap->src[i].width && f.nreads < 8; ++k)
        f.read_bank[f.nreads++] = uint8_t(bank_of(fr.reg_base + ap->src[i].reg + k, w.slot));
  } else if (kExt && rfc_) {
    // Register-file cache (src/ext/rfc): a hit needs no MRF bank; then the last-use bits.
    for (unsigned i = 0; i < d.nsrc && f.nreads < 8; ++i)
      if (d.src[i] < func::kPredSlotBase && !rfc_->read(w.slot, fr.reg_base + d.src[i]))
        f.read_bank[f.nreads++] = uint8_t(bank_of(fr.reg_base + d.src[i], w.slot));
    if (const uint8_t last = ext::last_use_masks(*kc.launch->prog)[pc])
      for (unsigned i = 0; i < d.nsrc; ++i)
        if ((last >> i & 1) && d.src[i] < func::kPredSlotBase)
          rfc_->kill(w.slot, fr.reg_base + d.src[i]);
  } else {
    for (unsigned i = 0; i < d.nsrc && f.nreads < 8; ++i)
      if (d.src[i] < func::kPredSlotBase)
        f.read_bank[f.nreads++] = uint8_t(bank_of(fr.reg_base + d.src[i], w.slot));
  }
  if (kExt && ap) {
    for (unsigned i = 0; i < ap->ndst; ++i) {
      const uint32_t a = fr.reg_base + ap->dst[i].reg;
      f.dst[f.ndst] = a;
      f.dst_w[f.ndst] = ap->dst[i].width;
      f.dst_pred[f.ndst] = false;
      ++f.ndst;
      if (a + ap->dst[i].width > w.pend_reg.size()) w.pend_reg.resize(a + ap->dst[i].width, 0);
      for (uint32_t k = 0; k < ap->dst[i].width; ++k) ++w.pend_reg[a + k];
      ++w.pending_writes;
    }
  }
  for (unsigned i = 0; i < d.ndst; ++i) {
    const bool pred = d.dst[i] >= func::kPredSlotBase;
    if (kExt && ap && !pred) continue;  // value registers: architectural, above
    const uint32_t a =
        pred ? fr.pred_base + (d.dst[i] - func::kPredSlotBase) : fr.reg_base + d.dst[i];
    f.dst[f.ndst] = a;
    f.dst_pred[f.ndst] = pred;
    ++f.ndst;
    auto& v = pred ? w.pend_pred : w.pend_reg;
    if (a >= v.size()) v.resize(a + 1, 0);
    ++v[a];
    ++w.pending_writes;
  }
  if constexpr (kExt)
    if (greener_ && ap) greener_->on_issue(w, pc, *ap, fr.reg_base, f.age, now);
  if (f.pcc && uk == UnitKind::ldst)
    for (unsigned i = 0; i < f.ndst; ++i) {
      if (f.dst_pred[i]) continue;
      if (f.dst[i] >= w.pend_mem.size()) w.pend_mem.resize(f.dst[i] + 1, 0);
      ++w.pend_mem[f.dst[i]];
    }
  // Execute functionally (execute-at-issue).
  kc.cx.cycle = now;
  kc.cx.cta = w.cta->cta.get();
  kc.cx.d2ma = d2ma_;        // D2MA intrinsic calls go to this SM's engine (null when off)
  kc.cx.bulk = &bulk_hook_;  // bulk / tensor copies: memory transfers (sm.cpp, tma.h)
  func::step(kc.cx, fw, &rec_);
  if constexpr (kExt) {
    for (auto& q : policies_) q->on_issue(w, d);
    if (ap) {
      w.reloaded_pc = WarpSlot::kNoPc;
      if (ap->store_words) {  // the spill store follows in this warp's next issue slot
        w.spill_store_pc = pc;
        w.spill_lanes = rec_.exec;
        w.spill_reg_base = fr.reg_base;
      }
    }
    if (classify_) classify_->on_issue(w.slot, fw, rec_, *kc.launch, fr.reg_base, fr.pred_base);
    if (simt_stats_) simt_stats_->on_issue(w.slot, fw);
  }
  f.lanes = rec_.exec;
  if (d.async_copy || d.async_commit || d.async_wait >= 0 || d.wgmma_n || d.wgmma_commit ||
      d.wgmma_wait >= 0) [[unlikely]]
    async_issue(w, d, f, now);
  if (d.bulk_commit) [[unlikely]] {  // cp.async.bulk.commit_group closes the open bulk group
    w.bulk_groups.push_back(w.bulk_open);
    w.bulk_open = 0;
    while (!w.bulk_groups.empty() && w.bulk_groups.front() == 0) {
      w.bulk_groups.pop_front();
      ++w.bulk_base;
    }
  }
  if (demote_long_only_ && uk == UnitKind::ldst && d.ndst &&
      (rec_.space == func::MemSpace::global || rec_.space == func::MemSpace::local ||
       rec_.space == func::MemSpace::tex)) {
    f.long_mem = true;
    ++w.pending_long;
  }
  ++w.inflight;
  ++w.insts;
  ++warp_insts_;
  thread_insts_ += uint64_t(__builtin_popcount(rec_.active));
  ++kc.warp_insts;
  kc.thread_insts += uint64_t(__builtin_popcount(rec_.active));
  ++inst_classes_[size_t(d.exec)];
  if (power_) {  // power.enable (src/power): register operands and lane operations
    unsigned writes = 0;
    for (unsigned i = 0; i < f.ndst; ++i) writes += !f.dst_pred[i];
    power_->on_issue(size_t(d.exec), unsigned(__builtin_popcount(rec_.exec)), f.nreads, writes);
  }
  if (f.pcc) {
    ++f.pcc->execs;
    ++f.pcc->stalls[size_t(Stall::issued)];
    f.pcc->thread_insts += uint64_t(__builtin_popcount(rec_.active));
    if (rec_.divergent) ++f.pcc->divergent;
  }
  if (trace_) trace_->warp_issue(id_, w.slot, now, pc);
  if (issue_log_) issue_log_->push_back({now, w.slot});
  // Instruction buffer and control flow.
  if (w.ibuf) --w.ibuf;
  if (rec_.warp_done) {
    w.func_done = true;
    if (its_stats_ && fw.its) its_stats_->add(*fw.its);
    if (lpc_stats_ && fw.lpc) lpc_stats_->add(*fw.lpc);
  } else if (rec_.next_pc != pc + 1) {
    w.ibuf = 0;
    w.redirect = true;
    w.fetch_pending = false;
    ++w.fetch_gen;
    if (rec_.branch && p_.branch_penalty) w.ready_at = now + 1 + p_.branch_penalty;
  }
  if (rec_.divergent) {
    ++divergent_branches_;
    if (p_.reconvergence_penalty)
      w.ready_at = std::max(w.ready_at, now + 1 + p_.reconvergence_penalty);
  }
  if (fw.at_barrier) w.was_at_barrier = true;
  if constexpr (kExt)
    if (sharing_) {
      if (w.share_class == 2) {
        sharing_->count_nonowner_issue();
        nonowner_issued_ = true;
      }
      if (rec_.relssp_release) sharing_->on_relssp_release(w);  // thesis ch. 3
      if (rec_.space == func::MemSpace::shared && !sharing_->smem_gate(w, rec_)) {
        // Executed, but it may not touch the shared scratchpad region yet: held until the
        // pair lock is free (the warp waits, Stall::lock_wait).
        held_[w.slot] = {f, rec_};
        w.held = true;
        *issued = true;
        return Stall::issued;
      }
    }
  place_in_collector(f, rec_);
  *issued = true;
  return Stall::issued;
}

void Sm::place_in_collector(const InFlight& f, const func::WarpInstRecord& rec) {
  const uint32_t part = part_of(*f.w);
  for (size_t i = part; i < collectors_.size(); i += parts_) {
    if (collectors_[i].w) continue;
    collectors_[i] = f;
    if (f.unit == UnitKind::ldst) mem_recs_[i] = rec;
    ++collectors_busy_;
    ++coll_busy_part_[part];
    ++waiting(part, f.unit);
    break;
  }
}

bool Sm::waits_on_memory(const WarpSlot& w, const func::DInst& d) const {
  const func::Frame& fr = w.fw->frame();
  auto mem = [&](uint16_t s) {
    if (s >= func::kPredSlotBase) return false;
    const uint32_t a = fr.reg_base + s;
    return a < w.pend_reg.size() && w.pend_reg[a] && a < w.pend_mem.size() && w.pend_mem[a];
  };
  for (unsigned i = 0; i < d.nsrc; ++i)
    if (mem(d.src[i])) return true;
  for (unsigned i = 0; i < d.ndst; ++i)
    if (mem(d.dst[i])) return true;
  return false;
}

void Sm::charge_pc(size_t sched, const WarpSlot* w, Stall r) {
  PcSlot& ps = last_pc_[sched];
  ps.c = nullptr;
  if (!w || r == Stall::issued || r == Stall::idle || !w->fw || !w->cta->k->pcs) return;
  KernelCtx& kc = *w->cta->k;
  const uint32_t pc = w->fw->pc();
  if (pc >= kc.pcs->pc.size()) return;
  ps.c = &kc.pcs->pc[pc];
  ps.r = r;
  ps.mem = r == Stall::scoreboard && waits_on_memory(*w, kc.launch->prog->code[pc]);
  charge_pc_slots(ps, 1);
}

void Sm::charge_pc_slots(const PcSlot& ps, uint64_t k) {
  if (!ps.c) return;
  ps.c->stalls[size_t(ps.r)] += k;
  if (ps.r == Stall::scoreboard) (ps.mem ? ps.c->sb_mem : ps.c->sb_alu) += k;
}

void Sm::issue(uint64_t now) {
  // The default path (no mechanism hooks, no per-instruction statistics) is compiled without
  // their bookkeeping: the hooks and the attribution cost it nothing when off.
  if (policies_.empty() && !pc_stats_ && !rfc_ && !arch_regs_ && !sharing_ && !classify_ &&
      !simt_stats_ && !tbc_on_)
    issue_impl<false>(now);
  else
    issue_impl<true>(now);
}

template <bool kExt>
void Sm::issue_impl(uint64_t now) {
  if constexpr (kExt) {
    for (auto& q : policies_) q->begin_issue(now, warps_);
    if (greener_) greener_->begin_cycle();
    if (sharing_) {
      sharing_->begin_cycle(now, stalls_[size_t(Stall::mem_pipeline)] +
                                     stalls_[size_t(Stall::collector_full)] +
                                     stalls_[size_t(Stall::unit_busy)]);
      nonowner_issued_ = false;
    }
  }
  bool any_issued = false;
  for (auto& s : scheds_) {
    Stall best = Stall::idle;
    unsigned best_rank = stall_rank(Stall::idle);
    const WarpSlot* best_w = nullptr;
    bool issued = false;
    for (WarpSlot* w : s->order()) {
      const Stall r = try_issue<kExt>(*w, now, &issued);
      if (issued) {
        s->issued(w);
        break;
      }
      if (s->wants_long_stalls() && ((r == Stall::scoreboard && w->pending_writes &&
                                      (!demote_long_only_ || w->pending_long)) ||
                                     (r == Stall::barrier && w->fw && w->fw->at_barrier))) {
        // A dependency on a pending load, or a wait at a CTA barrier (which only warps outside
        // the active pool can end), is a long stall for the two-level scheduler.
        s->long_stall(w);
      }
      if constexpr (kExt) {
        const unsigned rank = stall_rank(r);
        if (rank < best_rank) {
          best_rank = rank;
          best = r;
          best_w = w;
        }
      } else if (r < best) {
        // Without mechanisms there is no `throttled`: enum order is stall_rank order.
        best = r;
      }
    }
    const Stall r = issued ? Stall::issued : best;
    ++stalls_[size_t(r)];
    last_reasons_[size_t(&s - scheds_.data())] = r;
    if constexpr (kExt)
      if (pc_stats_) charge_pc(size_t(&s - scheds_.data()), best_w, r);
    if (issued) {
      last_progress_ = now;
      active_this_cycle_ = true;
      any_issued = true;
    }
  }
  if constexpr (kExt) {
    for (auto& q : policies_) q->end_issue(now, any_issued, last_reasons_);
    if (sharing_ && nonowner_issued_) sharing_->count_nonowner_cycle();
  }
}

}  // namespace simtlab::timing
