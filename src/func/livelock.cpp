#include "func/livelock.h"

#include <algorithm>

#include <fmt/format.h>

#include "func/executor.h"
#include "func/memory.h"
#include "func/program.h"
#include "ptx/ir.h"

namespace simtlab::func {

namespace {

struct Hasher {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  void add(uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
  }
};

uint64_t state_hash(const Warp& w) {
  Hasher x;
  x.add(w.exited);
  x.add(w.carry);
  x.add(w.at_barrier);
  for (const SimtEntry& e : w.stack) {
    x.add(e.pc);
    x.add(e.mask);
    x.add(e.rpc);
    x.add(e.call_boundary);
    if (e.lpc != ~0u) {  // sim.lpc only (off: the hash is unchanged)
      x.add(e.lpc);
      x.add(e.lpos);
    }
  }
  for (const Frame& f : w.frames) {
    x.add(f.reg_base);
    x.add(f.pred_base);
  }
  if (w.its) {  // independent thread scheduling: the other thread groups too
    x.add(w.its->cur);
    for (const ItsSplit& s : w.its->splits) {
      x.add(s.wsync);
      for (const SimtEntry& e : s.stack) {
        x.add(e.pc);
        x.add(e.mask);
        x.add(e.pending);
      }
    }
  }
  for (uint64_t r : w.regs) x.add(r);
  for (uint32_t p : w.preds) x.add(p);
  return x.h;
}

/// "_ZZ4hangiPiE3bar" (a `.shared` variable of the kernel at shared offset `off`, "+N" inside
/// it), "dynamic shared memory +0x10", or "" when no variable covers it.
std::string shared_symbol(const Program& prog, uint32_t off) {
  for (const auto& [var, base] : prog.layout.shared_offset) {
    if (!prog.ir || var >= prog.ir->vars.size()) continue;
    const ptx::Variable& v = prog.ir->vars[var];
    if (off >= base && off - base < std::max<uint64_t>(v.size, 1))
      return off == base ? v.name : fmt::format("{}+{}", v.name, off - base);
  }
  if (prog.layout.dynamic_shared_align && off >= prog.layout.static_shared)
    return fmt::format("dynamic shared memory +{:#x}", off - prog.layout.static_shared);
  return {};
}

/// The mbarrier a looping warp polls, when its last failed test_wait / try_wait lies inside
/// the loop: "waits for phase parity P of mbarrier SYM (shared address A): ..." and the PTX
/// line. Empty otherwise.
std::string mbarrier_line(const Program& prog, const Warp& w) {
  const MbarPoll& m = w.mbar_poll;
  // In the loop: polled within the last period (the loop is still running).
  if (!m.valid || !w.cta || w.insts - m.insts > std::max<uint64_t>(w.loop.period, 1)) return {};
  MbarrierState st;
  if (!read_mbarrier(*w.cta, m.addr, &st)) return {};
  const std::string sym = shared_symbol(prog, m.addr);
  std::string what;
  if (st.phase != bool(m.parity))
    what = fmt::format("the phase with parity {} already completed (the wait sees a later one)",
                       m.parity);
  else
    what = fmt::format("{} of {} arrivals pending, tx-count {}{}", st.pending, st.expected, st.tx,
                       st.tx > 0 ? " bytes still expected" : "");
  return fmt::format(
      "\n      polls mbarrier {}(shared address {:#x}) for the completion of the phase with "
      "parity {}: {}; no running warp or copy can complete it\n      at {}",
      sym.empty() ? "" : sym + " ", m.addr, m.parity, what, prog.where(m.pc));
}

}  // namespace

void probe_loop(ExecContext& cx, Warp& w, uint32_t branch_pc) {
  LoopWatch& L = w.loop;
  L.next_probe = w.insts + kLoopProbeInterval;
  const uint64_t h = state_hash(w);
  const uint64_t epoch = cx.gmem->write_epoch;
  const uint32_t pc = w.pc();
  if (L.has_saved && L.saved_epoch == epoch) {
    if (L.saved_hash == h && L.saved_pc == pc) {
      L.confirmed_at = w.insts;
      L.confirmed_epoch = epoch;
      L.period = w.insts - L.saved_insts;
      L.loop_pc = pc;
      L.branch_pc = branch_pc;
      return;
    }
  } else {
    L.has_saved = false;  // memory changed: history says nothing about the future
  }
  if (!L.has_saved || L.lam >= L.power) {
    L.saved_hash = h;
    L.saved_pc = pc;
    L.saved_epoch = epoch;
    L.saved_insts = w.insts;
    L.power = L.has_saved ? L.power * 2 : 1;
    L.lam = 0;
    L.has_saved = true;
  }
  ++L.lam;
}

bool warp_looping(const Warp& w, uint64_t epoch) {
  const LoopWatch& L = w.loop;
  if (!L.confirmed_at || L.confirmed_epoch != epoch) return false;
  // Still in the loop: confirmed within about one sampling gap.
  const uint64_t gap = std::max(L.period, kLoopProbeInterval);
  return w.insts - L.confirmed_at <= 2 * gap;
}

bool LivelockMonitor::check(const std::vector<const Warp*>& warps, uint64_t epoch) {
  bool any = false;
  for (const Warp* w : warps) {
    if (w->at_barrier) continue;
    if (!warp_looping(*w, epoch)) {
      armed_ = false;
      return false;
    }
    any = true;
  }
  if (!any) {
    armed_ = false;
    return false;
  }
  if (armed_ && epoch == epoch_) {
    bool enough = true;
    for (const auto& [w, insts] : seen_) {
      if (std::find(warps.begin(), warps.end(), w) == warps.end()) continue;
      if (!w->at_barrier && w->insts < insts + kConfirmInsts) enough = false;
    }
    if (enough) return true;
    return false;  // keep the first sighting until every looping warp ran long enough
  }
  armed_ = true;
  epoch_ = epoch;
  seen_.clear();
  for (const Warp* w : warps) seen_.push_back({w, w->insts});
  return false;
}

std::string livelock_warp_line(const Program& prog, const Warp& w, uint64_t epoch) {
  if (w.at_barrier)
    return fmt::format("    warp {}: waits at barrier {} at {}", w.index, w.barrier_id,
                       prog.where(w.pc() ? w.pc() - 1 : 0));
  const LoopWatch& L = w.loop;
  std::string s = fmt::format("    warp {}: back in the same state after {} warp instructions{}",
                              w.index, L.period, warp_looping(w, epoch) ? "" : " (not confirmed)");
  s += fmt::format("\n      loop from {}", prog.where(L.loop_pc));
  s += fmt::format("\n      back to it from {}", prog.where(L.branch_pc));
  s += mbarrier_line(prog, w);
  // SIMT deadlock (GPGPU book 3.1.2): lanes that left the loop wait on the stack at its
  // reconvergence point for the lanes that loop (the nearest such entry is reported).
  if (!w.its && w.stack.size() > 1) {
    LaneMask above = 0;
    for (size_t d = w.stack.size(); d-- > 0;) {
      const SimtEntry& e = w.stack[d];
      const LaneMask parked = e.mask & ~w.exited & ~above;
      if (d + 1 < w.stack.size() && parked && !e.call_boundary) {
        s += fmt::format(
            "\n      SIMT deadlock: lanes {:#010x} wait at the reconvergence point {} for the "
            "looping lanes {:#010x} (an intra-warp lock or flag?); independent thread "
            "scheduling (sim.its=true) lets them run",
            parked, prog.where(e.pc), above & ~w.exited);
        break;
      }
      above |= e.mask;
    }
  }
  return s;
}

}  // namespace simtlab::func
