#include "ext/sharing/sharing.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.h"
#include "func/program.h"
#include "func/record.h"
#include "func/regcheck.h"
#include "func/warp.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing::sharing {

SmSharing::SmSharing(const SharingParams& p, uint32_t sm_id, uint32_t max_ctas, uint32_t max_regs,
                     stats::Group& sm)
    : p_(p),
      res_(p.mode == "smem" ? Resource::smem : Resource::reg),
      sm_id_(sm_id),
      max_regs_(std::min<uint32_t>(max_regs, 255)),
      rng_(p.dyn_seed * 0x9E3779B97F4A7C15ull + sm_id + 1),
      g_(sm.child("sharing")),
      shared_ctas_(g_.counter("shared_ctas", "CTAs", "CTAs launched into a shared pair")),
      unshared_ctas_(g_.counter("unshared_ctas", "CTAs",
                                "CTAs launched unshared while sharing was enabled for the kernel")),
      acquisitions_(g_.counter("lock_acquisitions", "locks",
                               "Pair locks taken (warp-pair register locks or block-pair "
                               "scratchpad locks)")),
      releases_(
          g_.counter("lock_releases", "locks", "Pair locks released (at warp exit / block exit)")),
      transfers_(g_.counter("ownership_transfers", "pairs",
                            "Owner blocks that exited while their partner stayed resident")),
      held_smem_(g_.counter("smem_waits", "warp instructions",
                            "Shared-memory instructions that waited for the scratchpad lock")),
      nonowner_insts_(g_.counter("nonowner_insts", "warp instructions",
                                 "Instructions issued by non-owner warps")),
      nonowner_cycles_(g_.counter("nonowner_active_cycles", "cycles",
                                  "Cycles in which a non-owner warp issued (the additional "
                                  "warps' progress)")),
      dyn_denied_(g_.counter("dyn_denied", "attempts",
                             "Non-owner memory instructions held back by dynamic warp "
                             "execution")),
      dyn_up_(g_.counter("dyn_up", "windows", "Windows after which P rose")),
      dyn_down_(g_.counter("dyn_down", "windows", "Windows after which P fell")),
      lock_waits_(g_.counter("lock_waits", "waits",
                             "Times a warp began waiting for a pair lock (register gate or "
                             "held shared-memory instruction)")),
      warp_wait_cycles_(g_.counter("lock_wait_warp_cycles", "warp-cycles",
                                   "Per warp, cycles from its first failed lock attempt to the "
                                   "acquisition, summed over warps")),
      block_wait_cycles_(g_.counter("lock_wait_block_cycles", "block-cycles",
                                    "Per block, cycles in which at least one of its warps waited "
                                    "for a pair lock, summed over blocks")),
      relssp_fires_(g_.counter("relssp_fires", "events",
                               "Blocks whose every live thread executed relssp (thesis ch. 3)")),
      relssp_releases_(
          g_.counter("relssp_releases", "locks", "Scratchpad pair locks released early by relssp")),
      phase_before_(g_.counter("phase_unshared_before_cycles", "block-cycles",
                               "Shared blocks: cycles from launch to the first scratchpad lock "
                               "acquisition (or exit), Fig. 3.12")),
      phase_shared_(g_.counter("phase_shared_cycles", "block-cycles",
                               "Shared blocks: cycles holding the scratchpad lock (acquisition "
                               "to relssp release or exit), Fig. 3.12")),
      phase_after_(g_.counter("phase_unshared_after_cycles", "block-cycles",
                              "Shared blocks: cycles from the relssp release to exit, Fig. 3.12")) {
  ctas_.resize(max_ctas);
  if (sm_id_ == p_.dyn_ref_sm) p_dyn_ = 0.0;
}

bool SmSharing::governs(const void* kernel, const Plan& plan, uint32_t sm_resident) const {
  if (!plan.enabled || sm_resident != resident_) return false;
  return resident_ == 0 || kernel == kernel_;
}

bool SmSharing::slot_free(const void* kernel, const Plan& plan) const {
  if (resident_ == 0 || kernel != kernel_) return plan.M > 0;  // a fresh layout
  if (resident_ >= plan_.M) return false;
  if (unshared_used_ < plan_.unshared) return true;
  for (const Pair& q : pairs_)
    if (q.member[0] < 0 || q.member[1] < 0) return true;
  return false;
}

const std::vector<uint16_t>& SmSharing::regnos(const func::Program& prog) {
  auto it = regno_cache_.find(&prog);
  if (it != regno_cache_.end()) return it->second;
  if (!prog.arch_map || prog.arch_map->cap != max_regs_)
    prog.arch_map = func::build_arch_map(prog, max_regs_);
  const func::ArchRegMap& am = *prog.arch_map;
  std::vector<uint16_t> out(prog.code.size(), 0);
  for (const func::ProgFunction& pf : prog.funcs) {
    // Unroll-and-reorder: number registers by first static use (each 32-bit register apart).
    std::vector<int32_t> renum(256, -1);
    uint16_t next = 0;
    for (uint32_t pc = pf.begin; pc < pf.end && pc < prog.code.size(); ++pc) {
      const func::ArchPc& a = am.pc[pc];
      uint16_t hi = 0;
      auto see = [&](const func::ArchOperand& o) {
        for (uint32_t k = 0; k < o.width; ++k) {
          const uint32_t r = o.reg + k;
          uint32_t n = r;
          if (p_.reorder && r < renum.size()) {
            if (renum[r] < 0) renum[r] = next++;
            n = uint32_t(renum[r]);
          }
          hi = std::max<uint16_t>(hi, uint16_t(n + 1));  // 1-based register number
        }
      };
      for (unsigned i = 0; i < a.nsrc; ++i) see(a.src[i]);
      for (unsigned i = 0; i < a.ndst; ++i) see(a.dst[i]);
      out[pc] = hi;
    }
  }
  return regno_cache_.emplace(&prog, std::move(out)).first->second;
}

void SmSharing::on_cta_launch(const void* kernel, const Plan& plan, const func::Program* prog,
                              uint32_t regs_per_thread, uint32_t cta,
                              const std::vector<WarpSlot*>& warps) {
  if (resident_ == 0) {  // a fresh layout (a new kernel may reuse the last one's address)
    kernel_ = kernel;
    plan_ = plan;
    pairs_.assign(plan.pairs, Pair{});
    unshared_used_ = 0;
    private_ = res_ == Resource::reg ? uint32_t(double(regs_per_thread) * p_.threshold + 1e-9)
                                     : plan.private_units;
    regno_ = res_ != Resource::reg ? nullptr : prog ? &regnos(*prog) : &test_regno_;
  }
  Cta& c = ctas_[cta];
  c = Cta{};
  c.active = true;
  c.launched = now_;
  c.warps = warps;
  c.wait_since.assign(warps.size(), kNotWaiting);
  ++resident_;
  for (size_t j = 0; j < warps.size(); ++j) {
    if (!warps[j]) continue;
    warps[j]->share_class = 1;
    warps[j]->cta_warp = uint16_t(j);
  }
  // A pair with one resident member first (the newcomer is its non-owner), then an unshared
  // slot, then an empty pair (the newcomer owns it until a partner arrives).
  int32_t pick = -1;
  for (size_t i = 0; i < pairs_.size() && pick < 0; ++i)
    if ((pairs_[i].member[0] < 0) != (pairs_[i].member[1] < 0)) pick = int32_t(i);
  if (pick < 0 && unshared_used_ < plan_.unshared) {
    ++unshared_used_;
    ++unshared_ctas_;
    return;
  }
  for (size_t i = 0; i < pairs_.size() && pick < 0; ++i)
    if (pairs_[i].member[0] < 0 && pairs_[i].member[1] < 0) pick = int32_t(i);
  if (pick < 0) {  // no slot (the SM admitted it for another reason): unshared
    ++unshared_ctas_;
    return;
  }
  Pair& q = pairs_[size_t(pick)];
  const int side = q.member[0] < 0 ? 0 : 1;
  const bool alone = q.member[1 - side] < 0;
  q.member[side] = int32_t(cta);
  if (alone) q.owner = side;  // first in: owns (the older block)
  if (q.reg_holder.size() < warps.size()) q.reg_holder.resize(warps.size(), -1);
  c.pair = pick;
  c.side = side;
  ++shared_ctas_;
  set_classes(pick);
}

void SmSharing::set_classes(int32_t pair) {
  const Pair& q = pairs_[size_t(pair)];
  for (int s = 0; s < 2; ++s) {
    if (q.member[s] < 0) continue;
    const Cta& c = ctas_[size_t(q.member[s])];
    for (size_t j = 0; j < c.warps.size(); ++j) {
      if (!c.warps[j]) continue;
      const bool holds = j < q.reg_holder.size() && q.reg_holder[j] == s;
      c.warps[j]->share_class = (s == q.owner || holds) ? 0 : 2;
    }
  }
}

void SmSharing::wait_begin(Cta& c, size_t j) {
  if (c.wait_since[j] != kNotWaiting) return;
  c.wait_since[j] = now_;
  ++lock_waits_;
  if (c.waiting++ == 0) c.block_wait_since = now_;
}

void SmSharing::wait_end(Cta& c, size_t j) {
  if (c.wait_since[j] == kNotWaiting) return;
  warp_wait_cycles_ += now_ - c.wait_since[j];
  c.wait_since[j] = kNotWaiting;
  if (--c.waiting == 0) block_wait_cycles_ += now_ - c.block_wait_since;
}

void SmSharing::on_warp_exit(WarpSlot& w) {
  for (size_t ci = 0; ci < ctas_.size(); ++ci) {
    Cta& c = ctas_[ci];
    if (!c.active || w.cta_warp >= c.warps.size() || c.warps[w.cta_warp] != &w) continue;
    c.warps[w.cta_warp] = nullptr;  // its slot may host another CTA's warp later
    if (c.pair < 0) return;
    Pair& q = pairs_[size_t(c.pair)];
    if (w.cta_warp < q.reg_holder.size() && q.reg_holder[w.cta_warp] == c.side) {
      q.reg_holder[w.cta_warp] = -1;
      --q.holders[c.side];
      ++releases_;
    }
    return;
  }
}

void SmSharing::on_cta_exit(uint32_t cta) {
  Cta& c = ctas_[cta];
  if (!c.active) return;
  c.active = false;
  --resident_;
  if (c.pair < 0) {
    if (unshared_used_) --unshared_used_;
    return;
  }
  Pair& q = pairs_[size_t(c.pair)];
  if (q.smem_holder == c.side) {
    q.smem_holder = -1;
    ++releases_;
  }
  if (res_ == Resource::smem) {  // Fig. 3.12 phases of this shared block
    const uint64_t end = std::max(now_, c.launched);
    const uint64_t acq =
        std::min(std::max(c.acquired == kNever ? end : c.acquired, c.launched), end);
    const uint64_t rel = std::min(std::max(c.released == kNever ? end : c.released, acq), end);
    phase_before_ += acq - c.launched;
    phase_shared_ += rel - acq;
    phase_after_ += end - rel;
  }
  for (auto& h : q.reg_holder)
    if (h == c.side) h = -1;  // (released at warp exit already)
  q.holders[c.side] = 0;
  q.member[c.side] = -1;
  const int other = 1 - c.side;
  if (q.member[other] >= 0) {
    if (q.owner != other) ++transfers_;
    q.owner = other;
    set_classes(c.pair);
  }
  c.warps.clear();
}

bool SmSharing::reg_gate(WarpSlot& w, uint32_t pc) {
  if (res_ != Resource::reg || !regno_ || pc >= regno_->size() || (*regno_)[pc] <= private_)
    return true;
  // Which CTA is `w` in (warps remember their index; the CTA by scanning the few slots).
  for (Cta& c : ctas_) {
    if (!c.active || w.cta_warp >= c.warps.size() || c.warps[w.cta_warp] != &w) continue;
    if (c.pair < 0) return true;
    Pair& q = pairs_[size_t(c.pair)];
    const int other = 1 - c.side;
    int8_t& h = q.reg_holder[w.cta_warp];
    if (h == c.side) return true;
    if (h < 0 && q.holders[other] == 0) {  // Fig. 2.8 rule: one block of a pair holds locks
      h = int8_t(c.side);
      ++q.holders[c.side];
      ++acquisitions_;
      q.owner = c.side;
      set_classes(c.pair);
      wait_end(c, w.cta_warp);
      return true;
    }
    wait_begin(c, w.cta_warp);
    return false;
  }
  return true;
}

bool SmSharing::smem_retry(WarpSlot& w) {
  for (Cta& c : ctas_) {
    if (!c.active || w.cta_warp >= c.warps.size() || c.warps[w.cta_warp] != &w) continue;
    if (c.pair < 0) return true;
    Pair& q = pairs_[size_t(c.pair)];
    if (q.smem_holder == c.side) {  // (another warp of the block took it)
      wait_end(c, w.cta_warp);
      return true;
    }
    if (q.smem_holder < 0) {
      q.smem_holder = c.side;
      if (c.acquired == kNever) c.acquired = now_;
      ++acquisitions_;
      q.owner = c.side;
      set_classes(c.pair);
      wait_end(c, w.cta_warp);
      return true;
    }
    wait_begin(c, w.cta_warp);
    return false;
  }
  return true;
}

SmSharing::Cta* SmSharing::cta_of(const WarpSlot& w) {
  for (Cta& c : ctas_)
    if (c.active && w.cta_warp < c.warps.size() && c.warps[w.cta_warp] == &w) return &c;
  return nullptr;
}

void SmSharing::on_relssp_release(WarpSlot& w) {
  if (res_ != Resource::smem) return;
  ++relssp_fires_;
  Cta* c = cta_of(w);
  if (!c || c->pair < 0) return;
  Pair& q = pairs_[size_t(c->pair)];
  if (q.smem_holder != c->side) return;  // holds no lock: no effect
  q.smem_holder = -1;
  ++releases_;
  ++relssp_releases_;
  if (c->released == kNever) c->released = now_;
  const int other = 1 - c->side;
  if (q.member[other] >= 0) {  // the partner becomes the owner (acquires at its next access)
    if (q.owner != other) ++transfers_;
    q.owner = other;
    set_classes(c->pair);
  }
}

bool SmSharing::smem_gate(WarpSlot& w, const func::WarpInstRecord& rec) {
  if (res_ != Resource::smem) return true;
  bool shared_region = false;
  LaneMask late = 0;  // lanes touching the shared region after their own relssp
  for (uint32_t m = rec.exec; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    if (rec.addr[l] >= private_) {
      shared_region = true;
      late |= w.fw ? (w.fw->relssp_done & (LaneMask(1) << l)) : 0;
    }
  }
  if (late && p_.relssp_check) {
    const unsigned l = unsigned(__builtin_ctz(late));
    throw UserError(fmt::format(
        "sharing.relssp_check: thread {} of warp {} (SM {}) accesses shared-region offset {:#x} "
        "at pc {} after executing relssp",
        l, w.fw->index, sm_id_, rec.addr[l], rec.pc));
  }
  if (!shared_region) return true;
  if (smem_retry(w)) return true;
  ++held_smem_;
  return false;
}

bool SmSharing::dyn_allow(const WarpSlot& w, const func::DInst& d) {
  if (!p_.dyn || w.share_class != 2) return true;
  if (d.exec != ptx::ExecClass::mem ||
      (d.aspace != func::AddrSpace::global && d.aspace != func::AddrSpace::local &&
       d.aspace != func::AddrSpace::generic))
    return true;
  // xorshift64*: deterministic per SM.
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  const double u = double((rng_ * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
  if (u < p_dyn_) return true;
  ++dyn_denied_;
  return false;
}

void SmSharing::begin_cycle(uint64_t now, uint64_t stall_slots) {
  now_ = now;
  if (!p_.dyn || !board_) return;
  const uint64_t win = now / p_.dyn_period;
  if (win == window_) return;
  const uint64_t stalls = stall_slots - window_start_stalls_;
  window_start_stalls_ = stall_slots;
  if (sm_id_ == p_.dyn_ref_sm) {
    board_->ref_window = window_;
    board_->ref_stalls = stalls;
  } else if (board_->ref_window != UINT64_MAX) {
    if (stalls > board_->ref_stalls) {
      p_dyn_ = std::max(0.0, p_dyn_ - p_.dyn_step);
      ++dyn_down_;
    } else if (stalls < board_->ref_stalls) {
      p_dyn_ = std::min(1.0, p_dyn_ + p_.dyn_step);
      ++dyn_up_;
    }
  }
  p_trace_.emplace_back(now, p_dyn_);
  window_ = win;
}

}  // namespace simtlab::timing::sharing
