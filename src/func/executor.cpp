#include "func/executor.h"
#include "func/regcheck.h"

#include <span>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include <fmt/format.h>

#include "base/bits.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "func/exec_common.h"
#include "func/heap.h"
#include "func/livelock.h"
#include "func/memory.h"
#include "func/printf.h"

namespace simtlab::func {

using namespace ptx;

// ---- reports ------------------------------------------------------------------------------

static std::string thread_desc(const ExecContext& cx, const Warp& w, unsigned lane) {
  const Dim3& b = cx.cta->ctaid;
  return fmt::format("block ({},{},{}), thread ({},{},{})", b.x, b.y, b.z, w.tid[0][lane],
                     w.tid[1][lane], w.tid[2][lane]);
}

std::string Program::where(uint32_t pc) const {
  if (pc >= code.size()) return fmt::format("pc {}", pc);
  const DInst& d = code[pc];
  const ProgFunction& f = funcs[d.func];
  if (!d.in) return fmt::format("end of {}", f.name);
  const ptx::Function& pf = ir->funcs[f.module_func];
  // -lineinfo / -G builds: the CUDA source line too (`.loc`).
  std::string src;
  if (d.in->src_file && d.in->src_file < ir->files.size())
    src = fmt::format("; {}:{}:{}", ir->files[d.in->src_file], d.in->src_line, d.in->src_col);
  return fmt::format("{}:{}: {} (in {}, pc {}{})",
                     pf.source_file.empty() ? ir->file : pf.source_file, d.in->line, d.in->text,
                     f.name, pc, src);
}

void guest_fault(const ExecContext& cx, const Warp& w, const DInst& d, unsigned lane,
                 const std::string& what) {
  const uint32_t pc = uint32_t(&d - cx.prog->code.data());
  throw GuestError(fmt::format("{}\n    in kernel {}, {}\n    at {}", what, cx.prog->name,
                               thread_desc(cx, w, lane), cx.prog->where(pc)));
}

void warn_div_zero(const ExecContext& cx, const Warp& w, const DInst& d, unsigned lane) {
  // Hardware does not trap on integer division by zero; report it once per instruction.
  // The flag lives in the decoded instruction: keying a global set by address would suppress
  // the warning for a later module whose instructions reuse freed memory.
  static std::mutex mu;
  std::lock_guard<std::mutex> g(mu);
  if (d.warned) return;
  d.warned = true;
  const uint32_t pc = uint32_t(&d - cx.prog->code.data());
  std::fprintf(
      stderr,
      "simtlab: warning: integer division by zero in kernel %s, %s at %s (result is undefined)\n",
      cx.prog->name.c_str(), thread_desc(cx, w, lane).c_str(), cx.prog->where(pc).c_str());
}

// ---- CTA setup ------------------------------------------------------------------------------

void init_cta(Cta& cta, const LaunchState& L, Dim3 ctaid, uint32_t linear_id, uint32_t sm) {
  const Program& P = *L.prog;
  cta.ctaid = ctaid;
  cta.linear_id = linear_id;
  cta.sm = sm;
  cta.shared.assign(L.shared_bytes, 0);
  for (auto& b : cta.barriers) b = BarrierState{};
  const uint32_t nthreads = uint32_t(L.block.count());
  const uint32_t ws = L.warp_size;
  const uint32_t nwarps = (nthreads + ws - 1) / ws;
  cta.threads = nthreads;
  cta.live_threads = nthreads;
  const uint32_t stride = uint32_t(align_up(L.local_bytes_per_thread, 16));
  cta.local.assign(size_t(stride) * nwarps * kMaxWarpSize, 0);
  cta.warps.resize(nwarps);
  const ProgFunction& k = P.funcs[0];
  for (uint32_t wi = 0; wi < nwarps; ++wi) {
    auto& wp = cta.warps[wi];
    if (!wp) wp = std::make_unique<Warp>();
    Warp& w = *wp;
    w.index = wi;
    w.cta = &cta;
    w.exited = 0;
    w.carry = 0;
    w.at_barrier = false;
    w.insts = 0;
    w.loop = LoopWatch{};
    w.hw_warp_id = wi;
    const uint32_t first = wi * ws;
    const uint32_t n = std::min(ws, nthreads - first);
    w.valid = n >= 32 ? kFullMask : ((1u << n) - 1);
    for (uint32_t l = 0; l < kMaxWarpSize; ++l) {
      const uint32_t t = first + l;
      w.tid[0][l] = t % L.block.x;
      w.tid[1][l] = (t / L.block.x) % L.block.y;
      w.tid[2][l] = t / (L.block.x * L.block.y);
    }
    w.regs.assign(size_t(std::max<uint32_t>(P.max_regs, k.nregs)) * kMaxWarpSize, 0);
    w.preds.assign(std::max<uint32_t>(P.max_preds, k.npreds) + 1, 0);
    w.frames.clear();
    w.frames.push_back(Frame{0, 0, 0, 0, nullptr});
    w.rebase();
    w.stack.clear();
    w.stack.push_back(SimtEntry{k.begin, ~0u, w.valid, false});
    w.local = cta.local.data() + size_t(wi) * stride * kMaxWarpSize;
    w.local_stride = stride;
  }
}

// ---- SIMT stack -----------------------------------------------------------------------------

void simt_diverge(Warp& w, uint32_t fallthrough, uint32_t target, uint32_t reconv, LaneMask nt,
                  LaneMask taken) {
  SimtEntry& top = w.stack.back();
  if (top.rpc == reconv && !top.call_boundary && w.stack.size() > 1) {
    // The entry below already waits at `reconv` with a superset of these lanes.
    w.stack.pop_back();
  } else {
    top.pc = reconv;
  }
  if (fallthrough != reconv) w.stack.push_back(SimtEntry{fallthrough, reconv, nt, false});
  if (target != reconv) w.stack.push_back(SimtEntry{target, reconv, taken, false});
}

static void return_from_call(ExecContext& cx, Warp& w, LaneMask m);

static inline void reconverge(ExecContext& cx, Warp& w) {
  while (!w.stack.empty()) {
    SimtEntry& t = w.stack.back();
    if ((t.mask & ~w.exited) != 0 && t.pc != t.rpc) return;
    const bool boundary = t.call_boundary;
    const LaneMask m = t.mask & ~w.exited;
    w.stack.pop_back();
    if (boundary) return_from_call(cx, w, m);
  }
}

void thread_exit(ExecContext& cx, Warp& w, LaneMask m) {
  m &= ~w.exited;
  w.exited |= m;
  cx.cta->live_threads -= uint32_t(__builtin_popcount(m));
  if (w.done()) barrier_recheck(cx, *cx.cta);
}

// ---- barriers ------------------------------------------------------------------------------

static uint32_t live_warps(const Cta& cta) {
  uint32_t n = 0;
  for (const auto& w : cta.warps)
    if (!w->done()) ++n;
  return n;
}

static void barrier_release(ExecContext& cx, Cta& cta, BarrierState& b) {
  const uint32_t popc = b.red_popc;
  const bool all = b.red_and, any = b.red_or;
  for (auto& wt : b.red_waiters) {
    Warp& w = *wt.w;
    // Write into the waiting warp's frame (its current frame is the one that executed bar).
    if (wt.dst_pred) {
      const bool v = wt.op == ptx::BoolOp::and_ ? all : any;
      uint32_t& p = w.P[wt.dst_slot];
      p = (p & ~wt.lanes) | (v ? wt.lanes : 0);
    } else {
      uint64_t* D = w.R + size_t(wt.dst_slot) * kMaxWarpSize;
      for_lanes(wt.lanes, [&](unsigned l) { D[l] = popc; });
    }
  }
  for (Warp* w : b.waiting) w->at_barrier = false;
  b = BarrierState{};
}

static void barrier_check(ExecContext& cx, Cta& cta, BarrierState& b) {
  if (b.arrived_warps == 0) return;
  const uint32_t ws = cx.launch->warp_size;
  const uint32_t expected =
      b.expected_threads ? (b.expected_threads + ws - 1) / ws : live_warps(cta);
  if (b.arrived_warps >= expected) barrier_release(cx, cta, b);
}

void barrier_arrive(ExecContext& cx, Warp& w, const DInst& d, uint32_t id, uint32_t count,
                    bool wait, const BarrierRed* red) {
  Cta& cta = *cx.cta;
  BarrierState& b = cta.barriers[id];
  const uint32_t ws = cx.launch->warp_size;
  if (count && count % ws)
    guest_fault(cx, w, d, unsigned(__builtin_ctz(w.active())),
                fmt::format("barrier thread count {} is not a multiple of the warp size", count));
  if (b.arrived_warps && b.expected_threads != count)
    guest_fault(cx, w, d, unsigned(__builtin_ctz(w.active())),
                fmt::format("barrier {} used with different thread counts ({} and {})", id,
                            b.expected_threads, count));
  b.expected_threads = count;
  ++b.arrived_warps;
  if (red) {
    b.red_popc += uint32_t(__builtin_popcount(red->pred));
    if ((red->pred & red->lanes) != red->lanes) b.red_and = false;
    if (red->pred) b.red_or = true;
    b.red_waiters.push_back(
        BarrierState::Waiter{&w, red->dst.slot, red->dst.kind == DOp::k_pred, red->op});
    b.red_waiters.back().lanes = red->lanes;
  }
  if (wait) {
    w.at_barrier = true;
    w.barrier_id = id;
    b.waiting.push_back(&w);
  }
  barrier_check(cx, cta, b);
}

void barrier_recheck(ExecContext& cx, Cta& cta) {
  for (auto& b : cta.barriers) barrier_check(cx, cta, b);
}

// ---- calls ---------------------------------------------------------------------------------

static inline uint8_t* frame_ptr(ExecContext& cx, Warp& w, const DInst& d, unsigned lane,
                                 uint64_t off, uint32_t size) {
  if (off + size > w.local_stride)
    guest_fault(
        cx, w, d, lane,
        fmt::format("call stack overflow: frame needs {} bytes of local memory, the thread has {}",
                    off + size, w.local_stride));
  return w.local + size_t(lane) * w.local_stride + off;
}

void call_enter(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c, uint32_t callee,
                LaneMask lanes) {
  const Program& P = *cx.prog;
  const Frame cur = w.frame();
  const ProgFunction& cf = P.funcs[cur.func];
  const ProgFunction& g = P.funcs[callee];
  Frame f;
  f.func = callee;
  f.reg_base = cur.reg_base + cf.nregs;
  f.pred_base = cur.pred_base + cf.npreds;
  f.local_base = uint32_t(align_up(cur.local_base + cf.frame.bytes, 16));
  f.call = &d;
  if (w.frames.size() > 100000)
    guest_fault(cx, w, d, unsigned(__builtin_ctz(lanes)),
                "call depth exceeds 100000 (runaway recursion)");
  if (uint64_t(f.local_base) + g.frame.bytes > w.local_stride)
    guest_fault(cx, w, d, unsigned(__builtin_ctz(lanes)),
                fmt::format("call stack overflow calling {}: needs {} bytes of local memory per "
                            "thread, the limit is {} "
                            "(raise it with cudaDeviceSetLimit(cudaLimitStackSize, ...))",
                            g.name, uint64_t(f.local_base) + g.frame.bytes, w.local_stride));
  const size_t need_regs = (size_t(f.reg_base) + g.nregs) * kMaxWarpSize;
  if (w.regs.size() < need_regs) w.regs.resize(std::max(need_regs, w.regs.size() * 2));
  const size_t need_preds = size_t(f.pred_base) + g.npreds + 1;
  if (w.preds.size() < need_preds) w.preds.resize(std::max(need_preds, w.preds.size() * 2));
  w.rebase();
  // Copy arguments into the callee's frame-resident parameters.
  const size_t nargs = std::min(c.args.size(), g.param_vars.size());
  for (size_t k = 0; k < nargs; ++k) {
    const DOp& a = c.args[k];
    const uint32_t size = c.arg_size[k];
    const uint64_t doff = f.local_base + g.frame.offset.at(g.param_vars[k]);
    if (a.kind == DOp::k_frame) {
      const uint64_t soff = cur.local_base + a.imm;
      for_lanes(lanes, [&](unsigned l) {
        std::memcpy(frame_ptr(cx, w, d, l, doff, size), frame_ptr(cx, w, d, l, soff, size), size);
      });
    } else {
      uint64_t t;
      Lanes v = src_lanes(w, a, t);
      for_lanes(lanes, [&](unsigned l) {
        const uint64_t x = v[l];
        std::memcpy(frame_ptr(cx, w, d, l, doff, size), &x, std::min<uint32_t>(size, 8));
      });
    }
  }
  w.frames.push_back(f);
  w.rebase();
  w.stack.push_back(SimtEntry{g.begin, g.end, lanes, true});
}

static void return_from_call(ExecContext& cx, Warp& w, LaneMask m) {
  const Program& P = *cx.prog;
  const Frame f = w.frames.back();
  const ProgFunction& g = P.funcs[f.func];
  w.frames.pop_back();
  w.rebase();
  const Frame& caller = w.frame();
  const DInst& d = *f.call;
  const CallDesc& c = P.calls[d.call];
  const size_t nret = std::min(c.rets.size(), g.ret_vars.size());
  for (size_t k = 0; k < nret; ++k) {
    const DOp& r = c.rets[k];
    const uint32_t size = c.ret_size[k];
    const uint64_t soff = f.local_base + g.frame.offset.at(g.ret_vars[k]);
    if (r.kind == DOp::k_frame) {
      const uint64_t doff = caller.local_base + r.imm;
      for_lanes(m, [&](unsigned l) {
        std::memcpy(frame_ptr(cx, w, d, l, doff, size), frame_ptr(cx, w, d, l, soff, size), size);
      });
    } else if (r.kind == DOp::k_reg) {
      uint64_t* D = dst_lanes(w, r);
      for_lanes(m, [&](unsigned l) {
        uint64_t x = 0;
        std::memcpy(&x, frame_ptr(cx, w, d, l, soff, size), std::min<uint32_t>(size, 8));
        D[l] = x;
      });
    }
  }
}

// ---- device-runtime builtins ---------------------------------------------------------------

/// Read `size` bytes at generic address `a` for lane `l` (printf arguments and strings).
static bool read_generic(ExecContext& cx, Warp& w, unsigned l, uint64_t a, void* out,
                         uint64_t size) {
  if (a - kSharedWindow < kWindowSize) {
    const uint64_t o = a - kSharedWindow;
    if (o + size > cx.cta->shared.size()) return false;
    std::memcpy(out, cx.cta->shared.data() + o, size);
    return true;
  }
  if (a - kLocalWindow < kWindowSize) {
    const uint64_t o = a - kLocalWindow;
    if (o + size > w.local_stride) return false;
    std::memcpy(out, w.local + size_t(l) * w.local_stride + o, size);
    return true;
  }
  if (a - kParamWindow < kWindowSize) {
    const uint64_t o = a - kParamWindow;
    if (o + size > cx.launch->params.size()) return false;
    std::memcpy(out, cx.launch->params.data() + o, size);
    return true;
  }
  const uint8_t* p = cx.gmem->translate(a, size);
  if (!p) return false;
  std::memcpy(out, p, size);
  return true;
}

static std::string read_cstring(ExecContext& cx, Warp& w, const DInst& d, unsigned l, uint64_t a,
                                const char* what) {
  std::string s;
  for (;;) {
    char c;
    if (!read_generic(cx, w, l, a + s.size(), &c, 1))
      guest_fault(cx, w, d, l,
                  fmt::format("{}: string at {:#x} is not readable device memory", what, a));
    if (!c) return s;
    s.push_back(c);
    if (s.size() > (1 << 20))
      guest_fault(cx, w, d, l, fmt::format("{}: unterminated string at {:#x}", what, a));
  }
}

uint64_t call_arg(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c, size_t k,
                  unsigned l);
static uint64_t arg_value(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c, size_t k,
                          unsigned l) {
  return call_arg(cx, w, d, c, k, l);
}

uint64_t call_arg(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c, size_t k,
                  unsigned l) {
  const DOp& a = c.args[k];
  if (a.kind == DOp::k_frame) {
    uint64_t x = 0;
    std::memcpy(&x, frame_ptr(cx, w, d, l, w.frame().local_base + a.imm, c.arg_size[k]),
                std::min<uint32_t>(c.arg_size[k], 8));
    return x;
  }
  uint64_t t;
  return src_lanes(w, a, t)[l];
}

static void set_ret(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c, unsigned l,
                    uint64_t v) {
  if (c.rets.empty()) return;
  const DOp& r = c.rets[0];
  if (r.kind == DOp::k_frame) {
    std::memcpy(frame_ptr(cx, w, d, l, w.frame().local_base + r.imm, c.ret_size[0]), &v,
                std::min<uint32_t>(c.ret_size[0], 8));
  } else if (r.kind == DOp::k_reg) {
    dst_lanes(w, r)[l] = v;
  }
}

void call_builtin(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c, LaneMask lanes) {
  switch (c.builtin) {
    case CallDesc::Builtin::vprintf:
      for_lanes(lanes, [&](unsigned l) {
        const uint64_t fa = arg_value(cx, w, d, c, 0, l);
        const uint64_t aa = c.args.size() > 1 ? arg_value(cx, w, d, c, 1, l) : 0;
        const std::string fmtstr = read_cstring(cx, w, d, l, fa, "printf format");
        int nargs = 0;
        std::string out = format_device_printf(
            fmtstr,
            [&](uint64_t off, void* dst, uint32_t size) {
              if (!read_generic(cx, w, l, aa + off, dst, size))
                guest_fault(
                    cx, w, d, l,
                    fmt::format("printf: argument buffer at {:#x} is not readable", aa + off));
            },
            [&](uint64_t ptr) {
              return ptr ? read_cstring(cx, w, d, l, ptr, "printf %s argument")
                         : std::string("(null)");
            },
            &nargs);
        if (cx.print) (*cx.print)(out);
        set_ret(cx, w, d, c, l, uint64_t(int64_t(nargs)));
      });
      return;
    case CallDesc::Builtin::malloc:
    case CallDesc::Builtin::aligned_malloc:
      for_lanes(lanes, [&](unsigned l) {
        const uint64_t size = arg_value(cx, w, d, c, 0, l);
        set_ret(cx, w, d, c, l, cx.heap ? cx.heap->malloc(size) : 0);
      });
      return;
    case CallDesc::Builtin::free:
      for_lanes(lanes, [&](unsigned l) {
        const uint64_t p = arg_value(cx, w, d, c, 0, l);
        if (p && (!cx.heap || !cx.heap->free(p)))
          guest_fault(cx, w, d, l,
                      fmt::format("free({:#x}): not a pointer returned by device malloc", p));
      });
      return;
    case CallDesc::Builtin::assertfail: {
      const unsigned l = unsigned(__builtin_ctz(lanes));
      const std::string msg =
          read_cstring(cx, w, d, l, arg_value(cx, w, d, c, 0, l), "assert message");
      const std::string file =
          read_cstring(cx, w, d, l, arg_value(cx, w, d, c, 1, l), "assert file");
      const uint32_t line = uint32_t(arg_value(cx, w, d, c, 2, l));
      const std::string func =
          read_cstring(cx, w, d, l, arg_value(cx, w, d, c, 3, l), "assert function");
      const Dim3& b = cx.cta->ctaid;
      // Same text as the CUDA device runtime prints.
      throw GuestAssert(
          fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.",
                      file, line, func, b.x, b.y, b.z, w.tid[0][l], w.tid[1][l], w.tid[2][l], msg));
    }
    default:
      guest_fault(
          cx, w, d, unsigned(__builtin_ctz(lanes)),
          fmt::format("call to device-runtime function '{}', which simtlab does not implement",
                      c.name));
  }
}

// ---- the step -----------------------------------------------------------------------------

namespace {

// The step, compiled twice: with the register-allocation checker (func/regcheck.h) and without,
// so the default path carries no test for it per instruction.
template <bool kRegCheck>
inline void step_impl(ExecContext& cx, Warp& w, WarpInstRecord* rec) {
  SimtEntry& top = w.stack.back();
  const uint32_t pc = top.pc;
  const DInst& d = cx.prog->code[pc];
  const LaneMask active = top.mask & ~w.exited;
  LaneMask exec = active;
  if (d.guard >= 0) {
    const LaneMask p = w.P[d.guard];
    exec &= d.guard_neg ? ~p : p;
  }
  top.pc = pc + 1;
  cx.rec = rec;
  if (rec) {
    rec->inst = &d;
    rec->pc = pc;
    rec->active = active;
    rec->exec = exec;
    rec->space = MemSpace::none;
    rec->is_load = rec->is_store = rec->is_atomic = false;
    rec->branch = rec->divergent = rec->barrier = rec->mem_fence = false;
    rec->texels.clear();
  }
  if (exec) {
    if constexpr (kRegCheck) {
      // Allocation checker: writes reach the values sharing their architectural registers
      // (not across a call or return: the frame changed).
      const size_t frames = w.frames.size();
      d.fn(cx, w, d, exec);
      if (w.frames.size() == frames && !w.frames.empty())
        apply_reg_aliases(*cx.reg_aliases, w, pc, exec);
    } else {
      d.fn(cx, w, d, exec);
    }
    if (d.writes_mem) ++cx.gmem->write_epoch;
  }
  ++w.insts;
  reconverge(cx, w);
  // A jump backwards (loop back edge, or a call) may start a repeat of an earlier state.
  if (!w.stack.empty() && w.stack.back().pc <= pc && w.insts >= w.loop.next_probe) [[unlikely]]
    probe_loop(cx, w, pc);
  if (rec) {
    rec->next_pc = w.stack.empty() ? 0 : w.stack.back().pc;
    rec->warp_done = w.done();
  }
}

}  // namespace

void step(ExecContext& cx, Warp& w, WarpInstRecord* rec) {
  if (cx.reg_aliases) [[unlikely]]
    step_impl<true>(cx, w, rec);
  else
    step_impl<false>(cx, w, rec);
}

void run_cta(ExecContext& cx, Cta& cta, uint64_t max_insts, uint64_t* insts_out,
             uint64_t* thread_insts_out) {
  Cta* one = &cta;
  run_ctas(cx, std::span<Cta*>(&one, 1), max_insts, insts_out, thread_insts_out);
}

void run_ctas(ExecContext& cx, std::span<Cta*> ctas, uint64_t max_insts, uint64_t* insts_out,
              uint64_t* thread_insts_out) {
  constexpr uint64_t kQuantum = 4096;
  uint64_t total = 0, thread_total = 0;
  const uint64_t limit = max_insts * ctas.size();
  LivelockMonitor livelock;
  std::vector<const Warp*> live_warps;
  auto add_counts = [&] {
    if (insts_out) *insts_out += total;
    if (thread_insts_out) *thread_insts_out += thread_total;
    total = thread_total = 0;
  };
  for (;;) {
    bool progress = false;
    bool all_done = true;
    for (Cta* cp : ctas) {
      Cta& cta = *cp;
      cx.cta = &cta;
      for (auto& wp : cta.warps) {
        Warp& w = *wp;
        if (w.done()) continue;
        all_done = false;
        uint64_t n = 0;
        try {
          auto run = [&]<bool kCheck>() {
            while (!w.done() && !w.at_barrier && n < kQuantum) {
              const uint64_t lanes = uint64_t(__builtin_popcount(w.active()));
              step_impl<kCheck>(cx, w, nullptr);
              thread_total += lanes;
              ++n;
            }
          };
          if (cx.reg_aliases) [[unlikely]]
            run.template operator()<true>();
          else
            run.template operator()<false>();
        } catch (...) {
          // A fault (or assert, trap...): the launch's counts include what ran before the
          // faulting instruction, as the timing model's do.
          total += n;
          add_counts();
          throw;
        }
        if (n) progress = true;
        total += n;
      }
    }
    if (all_done) break;
    const Cta* live = nullptr;
    live_warps.clear();
    for (Cta* cp : ctas)
      for (auto& wp : cp->warps)
        if (!wp->done()) {
          if (!live) live = cp;
          live_warps.push_back(wp.get());
        }
    if (const int sig = interrupt_pending()) {
      add_counts();
      throw Interrupted(sig);
    }
    if (cx.livelock_check && livelock.check(live_warps, cx.gmem->write_epoch)) {
      add_counts();
      std::string s = fmt::format(
          "livelock in kernel {}: every running warp repeats the same state with no memory "
          "write anywhere on the device, so it can never finish (a spin on a flag nobody sets, "
          "or blocks waiting for each other{})",
          cx.prog->name,
          ctas.size() == 1 && cx.launch && cx.launch->grid.count() > 1
              ? "; functional mode runs one block at a time, so blocks that wait for each other "
                "need a cooperative launch or --mode timing"
              : "");
      for (Cta* cp : ctas) {
        bool header = false;
        for (auto& wp : cp->warps) {
          if (wp->done()) continue;
          if (!header)
            s += fmt::format("\n  block ({},{},{}):", cp->ctaid.x, cp->ctaid.y, cp->ctaid.z);
          header = true;
          s += "\n" + livelock_warp_line(*cx.prog, *wp, cx.gmem->write_epoch);
        }
      }
      throw GuestTimeout(s);
    }
    if (total > limit) {
      add_counts();
      throw GuestTimeout(fmt::format(
          "kernel {} block ({},{},{}) did not finish within {} warp instructions (an endless loop, "
          "or a spin lock between threads of one warp, which deadlocks under SIMT-stack "
          "reconvergence{})",
          cx.prog->name, live->ctaid.x, live->ctaid.y, live->ctaid.z, max_insts,
          ctas.size() > 1 ? ", or a grid-wide barrier some blocks never reach" : ""));
    }
    if (!progress) {
      add_counts();
      std::string s = fmt::format(
          "deadlock in kernel {} block ({},{},{}): every live warp waits at a barrier that can "
          "never complete (barrier inside divergent code?)",
          cx.prog->name, live->ctaid.x, live->ctaid.y, live->ctaid.z);
      for (auto& wp : live->warps) {
        const Warp& w = *wp;
        if (w.done()) continue;
        s += fmt::format("\n    warp {}: waits at barrier {} at {}", w.index, w.barrier_id,
                         cx.prog->where(w.pc() ? w.pc() - 1 : 0));
      }
      throw GuestDeadlock(s);
    }
  }
  add_counts();
}

}  // namespace simtlab::func
