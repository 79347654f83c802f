#include "func/livelock.h"

#include <algorithm>

#include <fmt/format.h>

#include "func/memory.h"
#include "func/program.h"

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
