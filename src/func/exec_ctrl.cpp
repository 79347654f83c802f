// Control flow: bra, call (direct, indirect, device-runtime builtins), ret, exit, trap,
// barriers (bar/barrier .sync/.arrive/.red, bar.warp.sync), fences, nanosleep.
//
// SIMT stack (GPGPU book §3.1.1): entries {pc, rpc, mask}. A divergent branch turns the top
// entry into the reconvergence entry (pc = IPDOM) and pushes one entry per path; an entry is
// popped when its pc reaches its rpc. Two refinements keep loops from growing the stack:
// an entry whose pc already equals its rpc is never pushed, and when the branch reconverges
// at the top entry's own rpc the top entry is replaced instead of kept.
#include <fmt/format.h>

#include "func/exec_common.h"
#include "func/executor.h"
#include "func/memory.h"

namespace simtlab::func {

using namespace ptx;

namespace {

inline uint32_t pc_of(const ExecContext& cx, const DInst& d) {
  return uint32_t(&d - cx.prog->code.data());
}

void h_bra(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const uint32_t pc = pc_of(cx, d);
  const LaneMask active = w.active();
  const LaneMask taken = e, nt = active & ~e;
  if (cx.rec) cx.rec->branch = true;
  if (nt == 0) {
    w.stack.back().pc = d.target;
    return;
  }
  if (w.lpc) [[unlikely]]  // likely convergence points (sim.lpc)
    simt_diverge_lpc(w, pc + 1, d.target, d.reconv, d.lpc, nt, taken);
  else
    simt_diverge(w, pc + 1, d.target, d.reconv, nt, taken);
  if (cx.rec) {
    cx.rec->divergent = true;
    cx.rec->reconv_pc = d.reconv;
  }
}

void h_exit(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  if (cx.rec) cx.rec->branch = true;
  thread_exit(cx, w, e);
}

/// `ret`: in the kernel it ends the threads; in a called function it jumps to the function's
/// end (where the call entry pops and the frame returns).
void h_ret(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  if (cx.rec) cx.rec->branch = true;
  if (d.func == 0) {
    thread_exit(cx, w, e);
    return;
  }
  const uint32_t pc = pc_of(cx, d);
  const uint32_t end = cx.prog->funcs[d.func].end;
  const LaneMask active = w.active();
  const LaneMask nt = active & ~e;
  if (nt == 0) {
    w.stack.back().pc = end;
    return;
  }
  simt_diverge(w, pc + 1, end, d.reconv, nt, e);
}

void h_func_end(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  // Only reachable in the kernel (called functions pop at their end): falling off the end.
  thread_exit(cx, w, e);
}

void h_trap(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  guest_fault(cx, w, d, unsigned(__builtin_ctz(e)), "trap instruction executed (kernel aborted)");
}

void h_nop(ExecContext&, Warp&, const DInst&, LaneMask) {}

/// relssp (thesis ch. 3): release bits per lane; the CTA's release fires when all are set.
void h_relssp(ExecContext& cx, Warp& w, const DInst&, LaneMask e) { relssp_arrive(cx, w, e); }

/// bar.warp.sync membermask: a no-op under the SIMT stack (the warp runs in lockstep); under
/// independent thread scheduling the thread group waits for the other members.
void h_bar_warp(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  if (!w.its) return;
  uint64_t t;
  const LaneMask m = LaneMask(src_lanes(w, d.op[0], t)[unsigned(__builtin_ctz(e))]);
  its_warp_sync(cx, w, m);
}

void h_fence(ExecContext& cx, Warp&, const DInst&, LaneMask) {
  if (cx.rec) cx.rec->mem_fence = true;
}

// ---- barriers -------------------------------------------------------------------------------

/// bar.sync / barrier.sync / bar.arrive: operands a (barrier id) and optional b (thread count).
template <bool Wait>
void h_bar(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  const unsigned lane = unsigned(__builtin_ctz(e));
  Lanes a = src_lanes(w, d.op[0], t1);
  uint32_t count = 0;
  if (d.nops > 1) count = uint32_t(src_lanes(w, d.op[1], t2)[lane]);
  const uint32_t id = uint32_t(a[lane]);
  if (id >= 16) guest_fault(cx, w, d, lane, fmt::format("barrier id {} out of range (0..15)", id));
  if (cx.rec) cx.rec->barrier = true;
  if (Wait && w.its && !its_bar_arrive(w, pc_of(cx, d), id, count)) return;
  barrier_arrive(cx, w, d, id, count, Wait, nullptr);
}

/// bar.red.{popc,and,or} d, a{, b}, {!}c
void h_bar_red(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  const unsigned lane = unsigned(__builtin_ctz(e));
  const uint32_t id = uint32_t(src_lanes(w, d.op[1], t1)[lane]);
  uint32_t count = 0;
  const bool has_count = d.nops > 3;
  if (has_count) count = uint32_t(src_lanes(w, d.op[2], t2)[lane]);
  if (id >= 16) guest_fault(cx, w, d, lane, fmt::format("barrier id {} out of range (0..15)", id));
  const LaneMask c = pred_value(w, d.op[has_count ? 3 : 2]) & e;
  BarrierRed red{d.op[0], d.in->boolop, c, e};
  if (cx.rec) cx.rec->barrier = true;
  if (w.its && !its_bar_arrive(w, pc_of(cx, d), id, count)) return;
  barrier_arrive(cx, w, d, id, count, true, &red);
}

// ---- calls ----------------------------------------------------------------------------------

void h_call(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const CallDesc& c = cx.prog->calls[d.call];
  if (cx.rec) cx.rec->branch = true;
  if (c.builtin != CallDesc::Builtin::none) {
    call_builtin(cx, w, d, c, e);
    return;
  }
  const uint32_t pc = pc_of(cx, d);
  if (c.d2ma && cx.d2ma) {  // D2MA intrinsic taken by the engine (src/ext/d2ma)
    if (!cx.d2ma->d2ma_call(cx, w, d, c, e)) w.stack.back().pc = pc;
    return;
  }
  if (!c.indirect) {
    call_enter(cx, w, d, c, d.callee, e);
    return;
  }
  // Indirect: group lanes by target; the first group calls now, the rest re-execute the call.
  uint64_t t;
  Lanes tgt = src_lanes(w, c.target, t);
  const unsigned first = unsigned(__builtin_ctz(e));
  const uint64_t fa = tgt[first];
  LaneMask group = 0;
  for_lanes(e, [&](unsigned l) {
    if (tgt[l] == fa) group |= 1u << l;
  });
  const uint64_t fidx = fa - kFuncAddrBase;
  int32_t pf =
      fidx < cx.prog->func_by_module_index.size() ? cx.prog->func_by_module_index[fidx] : -1;
  if (pf < 0 || cx.prog->funcs[uint32_t(pf)].builtin)
    guest_fault(cx, w, d, first,
                fmt::format("indirect call to {:#x}, which is not a function of this kernel", fa));
  const LaneMask rest = e & ~group;
  if (rest) w.stack.push_back(SimtEntry{pc, pc + 1, rest, false});
  call_enter(cx, w, d, c, uint32_t(pf), group);
}

}  // namespace

Handler select_ctrl(const Instruction& in) {
  switch (in.op) {
    case Op::bra:
      return &h_bra;
    case Op::exit:
      return &h_exit;
    case Op::ret:
      return &h_ret;
    case Op::trap:
      return &h_trap;
    case Op::brkpt:
    case Op::nanosleep:
    case Op::pmevent:
      return &h_nop;
    case Op::relssp:
      return &h_relssp;
    case Op::membar:
    case Op::fence:
      return &h_fence;
    case Op::call:
      return &h_call;
    case Op::bar:
    case Op::barrier:
      if (in.has(IF_WARP)) return &h_bar_warp;  // bar.warp.sync
      if (in.has(IF_RED)) return &h_bar_red;
      if (in.has(IF_ARRIVE)) return &h_bar<false>;
      return &h_bar<true>;
    default:
      return nullptr;
  }
}

Handler func_end_handler() { return &h_func_end; }

}  // namespace simtlab::func
