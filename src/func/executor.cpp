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
  cta.relssp_count = cta.relssp_fires = 0;
  cta.cluster = nullptr;  // the engine joins clustered CTAs to their ClusterState
  cta.cluster_rank = 0;
  cta.solo.reset();
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
    w.relssp_r = w.relssp_done = 0;
    w.carry = 0;
    w.at_barrier = false;
    w.cluster_arrived = 0;
    w.cluster_phase = 0;
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
    if (L.its) {
      w.its = std::make_unique<ItsState>();
      w.its->splits.resize(1);
      w.its->yield_backedges = std::max<uint32_t>(1, L.its_yield_backedges);
    } else {
      w.its.reset();
    }
    if (L.lpc)
      w.lpc = std::make_unique<LpcState>();
    else
      w.lpc.reset();
  }
}

// ---- SIMT stack -----------------------------------------------------------------------------

static void its_diverge(Warp& w, uint32_t fallthrough, uint32_t target, uint32_t reconv,
                        LaneMask nt, LaneMask taken);

void simt_diverge(Warp& w, uint32_t fallthrough, uint32_t target, uint32_t reconv, LaneMask nt,
                  LaneMask taken) {
  if (w.its) [[unlikely]] {
    its_diverge(w, fallthrough, target, reconv, nt, taken);
    return;
  }
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

// Likely convergence points (sim.lpc; Fung & Aamodt 2011, GPGPU book 3.4.2;
// src/ext/lpc/README.md). At a divergent branch with a likely convergence PC (LPC, decoded:
// the closest enclosing loop's latch when the IPDOM lies past the loop), an LPC entry
// {pc = LPC, rpc = IPDOM, mask = 0} goes on the stack below the path entries, whose `lpc` and
// `lpos` name it. A path entry reaching its LPC pops and ORs its threads into the LPC entry
// (reconverge()); reaching the IPDOM it pops as usual. The LPC entry runs when it is on top (or
// pops if empty). When the branch replaces the top entry (it reconverges at the top's own
// rpc), the new entries inherit the replaced entry's LPC, and reuse its LPC entry when the
// branch's LPC is the same one (a second guarded break in the same loop body).
void simt_diverge_lpc(Warp& w, uint32_t fallthrough, uint32_t target, uint32_t reconv, uint32_t lpc,
                      LaneMask nt, LaneMask taken) {
  SimtEntry& top = w.stack.back();
  uint32_t in_lpc = ~0u;  // the LPC the new entries inherit
  uint16_t in_lpos = 0;
  if (top.rpc == reconv && !top.call_boundary && w.stack.size() > 1) {
    in_lpc = top.lpc;
    in_lpos = top.lpos;
    w.stack.pop_back();
  } else {
    top.pc = reconv;
  }
  uint32_t e_lpc = in_lpc;
  uint16_t e_lpos = in_lpos;
  if (lpc != ~0u && lpc != reconv && lpc != in_lpc) {
    e_lpc = lpc;
    e_lpos = uint16_t(w.stack.size());
    w.stack.push_back(SimtEntry{lpc, reconv, 0, false, 0, in_lpos, in_lpc});
    ++w.lpc->entries;
  }
  if (fallthrough != reconv)
    w.stack.push_back(SimtEntry{fallthrough, reconv, nt, false, 0, e_lpos, e_lpc});
  if (target != reconv)
    w.stack.push_back(SimtEntry{target, reconv, taken, false, 0, e_lpos, e_lpc});
}

static void return_from_call(ExecContext& cx, Warp& w, LaneMask m);

static inline void reconverge(ExecContext& cx, Warp& w) {
  while (!w.stack.empty()) {
    SimtEntry& t = w.stack.back();
    if (t.pc == t.lpc) [[unlikely]] {  // sim.lpc: a path reached its likely convergence point
      const LaneMask m = t.mask & ~w.exited;
      SimtEntry& l = w.stack[t.lpos];
      if (m) {
        if (l.mask & ~w.exited) ++w.lpc->joined;
        ++w.lpc->merges;
        w.lpc->merged_threads += uint64_t(__builtin_popcount(m));
      }
      l.mask |= m;
      w.stack.pop_back();
      continue;
    }
    if ((t.mask & ~w.exited) != 0 && t.pc != t.rpc) return;
    const bool boundary = t.call_boundary;
    const LaneMask m = t.mask & ~w.exited;
    w.stack.pop_back();
    if (boundary) return_from_call(cx, w, m);
  }
}

// ---- independent thread scheduling ---------------------------------------------------------
//
// Volta-style independent thread scheduling (LaunchState::its; GPGPU book 3.1.2, convergence
// barriers of Diamos et al. 2015). A warp is a set of thread groups (ItsSplit, "warp splits"),
// each with its own SIMT stack and call frames; the current one lives in Warp::stack/frames and
// step() executes it unchanged. At a divergent branch the taken path stays in the current
// group (the stack's order) and the not-taken path becomes a new group that joins the entry
// waiting at the immediate post-dominator (the convergence barrier, BSSY/BSYNC-like): that
// entry's `pending` counts groups still to arrive, and the group owning it cannot run it until
// they all have (their lanes are in its mask already). A group runs until it completes, waits
// at a convergence barrier or at bar.warp.sync, or yields: after `yield_backedges` back edges
// without reconverging, lanes waiting at a convergence barrier for it go on without it (the
// "yielded" thread state of the book's Figure 3.6; an intra-warp spin lock's holder can then
// release the lock) and the next group runs (round robin). bar.warp.sync (__syncwarp) waits
// until every lane of its mask waits there, then merges groups that can be merged.

static inline bool its_runnable(const ItsSplit& s, const std::vector<SimtEntry>& st) {
  return !st.empty() && st.back().pending == 0 && !s.wsync && !s.bwait;
}

bool its_bar_arrive(Warp& w, uint32_t pc, uint32_t id, uint32_t count) {
  ItsState& s = *w.its;
  s.bar_lanes |= w.active();
  s.bar_pc = pc;
  s.bar_id = id;
  s.bar_count = count;
  if ((w.valid & ~w.exited & ~s.bar_lanes) == 0) {
    s.bar_lanes = 0;
    for (ItsSplit& x : s.splits) x.bwait = false;
    return true;
  }
  s.splits[s.cur].bwait = true;
  return false;
}

static std::vector<SimtEntry>& its_stack(Warp& w, uint32_t i) {
  return i == w.its->cur ? w.stack : w.its->splits[i].stack;
}

static int its_index(const ItsState& s, uint32_t id) {
  for (size_t i = 0; i < s.splits.size(); ++i)
    if (s.splits[i].id == id) return int(i);
  return -1;
}

/// The stack entry a group joins (parent ~0u: none).
static SimtEntry* its_join_entry(Warp& w, uint32_t parent, uint32_t depth) {
  if (parent == ~0u) return nullptr;
  const int i = its_index(*w.its, parent);
  if (i < 0) return nullptr;
  auto& st = its_stack(w, uint32_t(i));
  return depth < st.size() ? &st[depth] : nullptr;
}

/// A new group joining (parent, depth), placed right after the current one.
static void its_add_split(Warp& w, ItsSplit&& c) {
  ItsState& s = *w.its;
  c.id = s.next_id++;
  if (SimtEntry* j = its_join_entry(w, c.parent, c.join_depth)) ++j->pending;
  s.splits.insert(s.splits.begin() + s.cur + 1, std::move(c));
  s.max_splits = std::max<uint32_t>(s.max_splits, uint32_t(s.splits.size()));
}

static void its_diverge(Warp& w, uint32_t fallthrough, uint32_t target, uint32_t reconv,
                        LaneMask nt, LaneMask taken) {
  ItsState& s = *w.its;
  SimtEntry& top = w.stack.back();
  struct Path {
    uint32_t pc;
    LaneMask m;
  } paths[2];
  int n = 0;
  if (target != reconv) paths[n++] = {target, taken};
  if (fallthrough != reconv) paths[n++] = {fallthrough, nt};
  if (n == 0) {
    top.pc = reconv;
    return;
  }
  uint32_t jparent, jdepth;
  const ItsSplit& me = s.splits[s.cur];
  if (top.rpc == reconv && !top.call_boundary) {
    // The entry ends at `reconv`: lanes that go there leave it (they wait where it joins).
    top.pc = paths[0].pc;
    top.mask = paths[0].m;
    if (w.stack.size() > 1) {
      jparent = me.id;
      jdepth = uint32_t(w.stack.size() - 2);
    } else {
      jparent = me.parent;
      jdepth = me.join_depth;
    }
  } else {
    top.pc = reconv;  // the convergence barrier
    jparent = me.id;
    jdepth = uint32_t(w.stack.size() - 1);
    w.stack.push_back(SimtEntry{paths[0].pc, reconv, paths[0].m, false});
  }
  if (n == 2) {
    ItsSplit c;
    c.parent = jparent;
    c.join_depth = jdepth;
    c.stack.push_back(SimtEntry{paths[1].pc, reconv, paths[1].m, false});
    c.frames = w.frames;
    ++s.forks;
    its_add_split(w, std::move(c));
  }
}

/// Lanes of group i (its top entry's lanes, the ones that execute).
static LaneMask its_lanes(Warp& w, uint32_t i) {
  auto& st = its_stack(w, i);
  return st.empty() ? 0 : st.back().mask & ~w.exited;
}

/// Lanes waiting at a convergence barrier for groups that have not arrived go on without them:
/// each such set becomes a new group (a copy of the entries up to the barrier's).
static void its_release_waiting(Warp& w) {
  ItsState& s = *w.its;
  for (uint32_t i = 0; i < s.splits.size(); ++i) {
    for (size_t d = 0; d < its_stack(w, i).size(); ++d) {
      auto& st = its_stack(w, i);
      const bool top = d + 1 == st.size();
      if (top && st[d].pending == 0) continue;  // runs (or waits at bar.warp.sync)
      LaneMask p = st[d].mask & ~w.exited;
      for (size_t k = d + 1; k < st.size(); ++k) p &= ~st[k].mask;
      const uint32_t id = s.splits[i].id;
      for (uint32_t c = 0; c < s.splits.size(); ++c)
        if (s.splits[c].parent == id && s.splits[c].join_depth == d) {
          const auto& cs = its_stack(w, c);
          for (const SimtEntry& e : cs) p &= ~e.mask;
        }
      if (!p) continue;
      ItsSplit n;
      n.parent = s.splits[i].parent;
      n.join_depth = s.splits[i].join_depth;
      uint32_t calls_above = 0;
      for (size_t k = d + 1; k < st.size(); ++k) calls_above += st[k].call_boundary;
      for (size_t k = 0; k <= d; ++k) {
        SimtEntry e = st[k];
        e.mask &= p;
        e.pending = 0;
        n.stack.push_back(e);
        st[k].mask &= ~p;
      }
      const auto& fr = i == s.cur ? w.frames : s.splits[i].frames;
      n.frames.assign(fr.begin(), fr.end() - calls_above);
      ++s.yields;
      s.released_lanes += uint32_t(__builtin_popcount(p));
      its_add_split(w, std::move(n));  // after the current group: it runs next
    }
  }
}

static void its_switch(Warp& w, uint32_t i) {
  ItsState& s = *w.its;
  if (i == s.cur) return;
  std::swap(w.stack, s.splits[s.cur].stack);
  std::swap(w.frames, s.splits[s.cur].frames);
  std::swap(w.stack, s.splits[i].stack);
  std::swap(w.frames, s.splits[i].frames);
  s.cur = i;
  ++s.switches;
  s.backedges = 0;
  w.rebase();
}

/// Release bar.warp.sync waits whose lanes all wait; merge released sibling groups at the same
/// point. `force`: release every wait (nothing else can run).
static void its_warp_sync_release(Warp& w, bool force) {
  ItsState& s = *w.its;
  LaneMask waiting = 0;
  for (uint32_t i = 0; i < s.splits.size(); ++i)
    if (s.splits[i].wsync) waiting |= its_lanes(w, i);
  bool any = false;
  for (uint32_t i = 0; i < s.splits.size(); ++i) {
    ItsSplit& x = s.splits[i];
    if (x.wsync && (force || (x.wsync_mask & ~w.exited & ~waiting) == 0)) {
      x.wsync = false;
      any = true;
    }
  }
  if (!any) return;
  // Merge groups that are the same point of the same region: one entry, same pc, same join.
  for (uint32_t i = 0; i < s.splits.size(); ++i)
    for (uint32_t j = i + 1; j < s.splits.size();) {
      auto& a = its_stack(w, i);
      auto& b = its_stack(w, j);
      const ItsSplit &x = s.splits[i], &y = s.splits[j];
      if (j != s.cur && a.size() == 1 && b.size() == 1 && x.parent == y.parent &&
          x.join_depth == y.join_depth && x.parent != ~0u && !x.wsync && !y.wsync &&
          a[0].pc == b[0].pc && a[0].rpc == b[0].rpc && a[0].pending == 0 && b[0].pending == 0) {
        a[0].mask |= b[0].mask;
        if (SimtEntry* e = its_join_entry(w, y.parent, y.join_depth)) --e->pending;
        s.splits.erase(s.splits.begin() + j);
        if (s.cur > j) --s.cur;
        continue;
      }
      ++j;
    }
}

void its_warp_sync(ExecContext& cx, Warp& w, LaneMask members) {
  if (!w.its) return;
  ItsState& s = *w.its;
  const LaneMask m = members & w.valid & ~w.exited;
  if ((m & ~w.active()) == 0) return;  // every member is here
  ItsSplit& me = s.splits[s.cur];
  me.wsync = true;
  me.wsync_mask = m;
  ++s.wsyncs;
}

static inline void reconverge_its(ExecContext& cx, Warp& w);

/// After a step under independent thread scheduling: joins, yields, and the next group.
static void its_after_step(ExecContext& cx, Warp& w, uint32_t pc) {
  ItsState& s = *w.its;
  if (s.bar_lanes && (w.valid & ~w.exited & ~s.bar_lanes) == 0) {
    // The lanes a CTA barrier still waited for exited: the warp arrives now.
    s.bar_lanes = 0;
    for (ItsSplit& x : s.splits) x.bwait = false;
    if (s.bar_id == kClusterBarrierId)  // barrier.cluster.wait (exec_cluster.cpp)
      cluster_wait(cx, w);
    else
      barrier_arrive(cx, w, cx.prog->code[s.bar_pc], s.bar_id, s.bar_count, true, nullptr);
  }
  // One group with one entry: converged, nobody waits.
  if (s.splits.size() == 1 && w.stack.size() == 1 && !s.splits[0].wsync) return;
  bool need_switch = false;
  int prefer = -1;
  if (w.stack.empty()) {
    // The group completed: it arrives at the convergence barrier it joins.
    ItsSplit& me = s.splits[s.cur];
    if (SimtEntry* e = its_join_entry(w, me.parent, me.join_depth)) {
      --e->pending;
      ++s.joins;
    }
    prefer = its_index(s, me.parent);
    const uint32_t dead = s.cur;
    // Put an empty placeholder in the warp, remove the group.
    std::swap(w.stack, me.stack);
    std::swap(w.frames, me.frames);
    s.splits.erase(s.splits.begin() + dead);
    if (prefer > int(dead)) --prefer;
    // No current group until the switch below.
    s.cur = s.splits.empty() ? 0 : dead % uint32_t(s.splits.size());
    if (s.splits.empty()) return;
    std::swap(w.stack, s.splits[s.cur].stack);
    std::swap(w.frames, s.splits[s.cur].frames);
    w.rebase();
    need_switch = true;
  } else if (w.stack.back().pending || s.splits[s.cur].wsync || s.splits[s.cur].bwait) {
    need_switch = true;
  } else if (w.stack.back().pc <= pc && ++s.backedges >= s.yield_backedges) {
    // Yield: whoever waits for this group goes on, and the next group gets a turn.
    s.backedges = 0;
    its_release_waiting(w);
    need_switch = s.splits.size() > 1;
  }
  if (s.splits[s.cur].wsync || need_switch) its_warp_sync_release(w, false);
  if (!need_switch) return;
  for (int round = 0; round < 2; ++round) {
    const uint32_t n = uint32_t(s.splits.size());
    if (prefer >= 0 && prefer < int(n) &&
        its_runnable(s.splits[uint32_t(prefer)], its_stack(w, uint32_t(prefer)))) {
      its_switch(w, uint32_t(prefer));
      reconverge_its(cx, w);
      if (w.stack.empty()) return its_after_step(cx, w, pc);
      return;
    }
    for (uint32_t k = 1; k <= n; ++k) {
      const uint32_t i = (s.cur + k) % n;
      if (its_runnable(s.splits[i], its_stack(w, i))) {
        its_switch(w, i);
        reconverge_its(cx, w);
        if (w.stack.empty()) return its_after_step(cx, w, pc);
        return;
      }
    }
    // Nothing can run: lanes waiting at convergence barriers and __syncwarp waits give way.
    its_release_waiting(w);
    its_warp_sync_release(w, true);
  }
  std::string groups;
  for (uint32_t i = 0; i < s.splits.size(); ++i) {
    const ItsSplit& x = s.splits[i];
    groups += fmt::format("\n      group {} (joins {} at entry {}){}{}:", x.id, int32_t(x.parent),
                          x.join_depth, x.wsync ? " at bar.warp.sync" : "",
                          x.bwait ? " at a CTA barrier" : "");
    for (const SimtEntry& e : its_stack(w, i))
      groups += fmt::format(" [pc {} rpc {} lanes {:#x} pending {}]", e.pc, int32_t(e.rpc),
                            e.mask & ~w.exited, e.pending);
  }
  guest_fault(
      cx, w, cx.prog->code[pc], unsigned(__builtin_ctz(w.valid)),
      "independent thread scheduling: no thread group of the warp can run; groups:" + groups);
}

static inline void reconverge_its(ExecContext& cx, Warp& w) {
  while (!w.stack.empty()) {
    SimtEntry& t = w.stack.back();
    if (t.pending) return;  // waits at its convergence barrier
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
  if (cx.cta->relssp_count) relssp_exit(cx, w, m);  // relssp: exited threads count as released
  if (w.done()) barrier_recheck(cx, *cx.cta);
  if (cx.cta->cluster) [[unlikely]]
    cluster_thread_exit(cx, w, m);  // exited threads no longer hold up barrier.cluster
}

// ---- relssp (thesis ch. 3) ------------------------------------------------------------------

static void relssp_check_fire(ExecContext& cx, Cta& cta) {
  if (cta.relssp_count == 0 || cta.relssp_count < cta.live_threads) return;
  for (auto& wp : cta.warps) wp->relssp_r = 0;  // the release fires: reset every R bit
  cta.relssp_count = 0;
  ++cta.relssp_fires;
  if (cx.rec) cx.rec->relssp_release = true;
}

void relssp_arrive(ExecContext& cx, Warp& w, LaneMask lanes) {
  const LaneMask add = lanes & ~w.relssp_r & ~w.exited;
  w.relssp_r |= add;
  w.relssp_done |= lanes;
  cx.cta->relssp_count += uint32_t(__builtin_popcount(add));
  relssp_check_fire(cx, *cx.cta);
}

void relssp_exit(ExecContext& cx, Warp& w, LaneMask m) {
  const LaneMask gone = m & w.relssp_r;
  w.relssp_r &= ~gone;
  cx.cta->relssp_count -= uint32_t(__builtin_popcount(gone));
  relssp_check_fire(cx, *cx.cta);
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

// ---- cluster barrier (barrier.cluster, PTX ISA 9.7.13.4) ------------------------------------
// Each thread arrives once per phase (barrier.cluster.arrive); barrier.cluster.wait blocks
// until every non-exited thread of every CTA of the cluster has arrived in the phase the
// waiting thread arrived in. Threads that exit stop counting (they are never waited for).

ClusterState& cluster_of(Cta& cta) {
  if (!cta.cluster) {
    cta.solo = std::make_unique<ClusterState>();
    cta.solo->ctas.push_back(&cta);
    cta.cluster = cta.solo.get();
    cta.cluster_rank = 0;
  }
  return *cta.cluster;
}

static void cluster_check(ClusterState& c) {
  uint32_t live = 0;
  for (const Cta* t : c.ctas)
    if (t) live += t->live_threads;
  if (c.arrived == 0 || c.arrived < live) return;
  c.arrived = 0;
  ++c.phase;
  for (Cta* t : c.ctas)
    if (t)
      for (auto& wp : t->warps) wp->cluster_arrived = 0;
  for (Warp* w : c.waiting) w->at_barrier = false;
  c.waiting.clear();
  if (c.on_release) c.on_release();
}

void cluster_arrive(ExecContext& cx, Warp& w, const DInst& d, LaneMask lanes) {
  ClusterState& c = cluster_of(*cx.cta);
  if (lanes & w.cluster_arrived)
    guest_fault(cx, w, d, unsigned(__builtin_ctz(lanes & w.cluster_arrived)),
                "barrier.cluster.arrive twice in one phase (no barrier.cluster.wait between)");
  w.cluster_arrived |= lanes;
  w.cluster_phase = c.phase;
  c.arrived += uint32_t(__builtin_popcount(lanes));
  cluster_check(c);
}

bool cluster_wait(ExecContext& cx, Warp& w) {
  ClusterState& c = cluster_of(*cx.cta);
  if (c.phase != w.cluster_phase) return true;  // the phase it arrived in has completed
  w.at_barrier = true;
  w.barrier_id = kClusterBarrierId;
  c.waiting.push_back(&w);
  return false;
}

void cluster_thread_exit(ExecContext& cx, Warp& w, LaneMask m) {
  ClusterState& c = *cx.cta->cluster;
  const LaneMask gone = m & w.cluster_arrived;
  w.cluster_arrived &= ~gone;
  c.arrived -= uint32_t(__builtin_popcount(gone));
  cluster_check(c);
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
template <bool kRegCheck, bool kIts = false>
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
    rec->dsmem = 0;
    rec->is_load = rec->is_store = rec->is_atomic = false;
    rec->branch = rec->divergent = rec->barrier = rec->mem_fence = rec->relssp_release = false;
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
  if constexpr (kIts) {
    reconverge_its(cx, w);
    its_after_step(cx, w, pc);
  } else {
    reconverge(cx, w);
  }
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
  if (w.its) [[unlikely]] {
    if (cx.reg_aliases)
      step_impl<true, true>(cx, w, rec);
    else
      step_impl<false, true>(cx, w, rec);
    return;
  }
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
          auto run = [&]<bool kCheck, bool kIts>() {
            while (!w.done() && !w.at_barrier && n < kQuantum) {
              const uint64_t lanes = uint64_t(__builtin_popcount(w.active()));
              step_impl<kCheck, kIts>(cx, w, nullptr);
              thread_total += lanes;
              ++n;
            }
          };
          if (w.its) [[unlikely]] {
            if (cx.reg_aliases)
              run.template operator()<true, true>();
            else
              run.template operator()<false, true>();
          } else if (cx.reg_aliases) [[unlikely]] {
            run.template operator()<true, false>();
          } else {
            run.template operator()<false, false>();
          }
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
          "blocks waiting for each other, or an mbarrier phase nobody can complete{})",
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
        if (w.barrier_id == kClusterBarrierId)
          s += fmt::format("\n    warp {}: waits at barrier.cluster.wait at {}", w.index,
                           cx.prog->where(w.pc() ? w.pc() - 1 : 0));
        else
          s += fmt::format("\n    warp {}: waits at barrier {} at {}", w.index, w.barrier_id,
                           cx.prog->where(w.pc() ? w.pc() - 1 : 0));
      }
      throw GuestDeadlock(s);
    }
  }
  add_counts();
}

}  // namespace simtlab::func
