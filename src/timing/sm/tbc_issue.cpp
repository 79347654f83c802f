// Thread block compaction on the SM (sim.divergence=tbc; src/ext/tbc, Fung & Aamodt HPCA 2011),
// and the formed-warp issue path dynamic warp formation shares (dwf_issue.cpp).
//
// A formed warp (a compacted warp, or a DWF pool warp) is a list of pieces (home warp, lanes)
// at one PC, hosted by an SM slot of its CTA (formed_fetch: its first piece's home warp when
// free, else another warp with live threads): the host's instruction buffer fetches for it
// (the slot's resting PC is the formed warp's), and for TBC the existing schedulers order it
// through the host. It issues as ONE warp instruction: one issue slot, one operand-collector
// unit, one execution-unit occupancy, one memory request stream (the pieces' lanes are
// disjoint: their addresses merge into one 32-lane record). Each piece executes functionally on
// its home warp with its lanes (the warp's SIMT stack is replaced by one entry for the step), so
// each thread keeps its registers; each piece's destination registers are pending in its home
// warp's scoreboard and are released with the leader (InFlight::group). Operand reads of each
// home warp come from its own banks ((register + home slot) mod banks), so mixing warps adds
// bank conflicts. Simplified: at most 8 operand reads per warp instruction reach the
// collector's bank model (the statistic counts them all).
#include <algorithm>

#include "base/error.h"
#include "ext/dwf/dwf.h"
#include "ext/tbc/tbc.h"
#include "ext/tbc/tbc_stats.h"
#include "timing/sm/sm.h"
#include "timing/trace.h"

namespace simtlab::timing {

CtaSlot::CtaSlot() = default;
CtaSlot::~CtaSlot() = default;  // (complete TbcCta, DwfCta here)
CtaSlot::CtaSlot(CtaSlot&&) noexcept = default;

namespace {

/// Kernels whose code calls a non-builtin function keep the per-warp stack (call frames are
/// per warp: the pieces of a warp could not be in different functions).
bool tbc_eligible(const func::Program& prog) {
  for (const func::CallDesc& c : prog.calls)
    if (c.builtin == func::CallDesc::Builtin::none) return false;
  return true;
}

/// Instructions at which the CTA synchronises and returns to its static warps: CTA barriers and
/// warp-collective instructions (they read the lanes the IPDOM stack keeps together).
bool tbc_sync_point(const func::DInst& d) {
  if (d.exec == ptx::ExecClass::warp) return true;
  const ptx::Op op = d.in->op;
  return op == ptx::Op::bar || op == ptx::Op::barrier;
}

/// A CTA barrier between a divergent branch and its reconvergence point: the CTA-wide stack
/// runs the paths one after the other, so warps of one path waiting there for warps of the
/// other (warp-specialised producer/consumer code, named barriers) would never be released.
bool tbc_region_has_barrier(const func::Program& prog, uint32_t pc, uint32_t target,
                            uint32_t reconv) {
  auto scan = [&](uint32_t from) {
    for (uint32_t i = from; i < reconv && i < prog.code.size(); ++i) {
      const ptx::Instruction& in = *prog.code[i].in;
      if ((in.op == ptx::Op::bar || in.op == ptx::Op::barrier) && !in.has(ptx::IF_WARP))
        return true;
    }
    return false;
  };
  return scan(pc + 1) || (target < reconv && scan(target));
}

/// A formed warp that cannot issue for a while and does not fetch: it waits for the CTA's
/// other warps (TBC), for the rest of its home warps (DWF sync), or its home warp waits at a CTA
/// barrier.
bool home_at_barrier(const CtaSlot& c, const ext::tbc::Formed& f) {
  for (const ext::tbc::Piece& p : f.pieces)
    if (c.cta->warps[p.warp]->at_barrier) return true;
  return false;
}
bool formed_waiting(const CtaSlot& c, const ext::tbc::Cw& x) {
  return x.st != ext::tbc::Cw::St::run || home_at_barrier(c, x.f);
}
bool formed_waiting(const CtaSlot& c, const ext::dwf::Dw& x) {
  return x.sync || home_at_barrier(c, x.f);
}

uint32_t bank_cycles(const uint8_t* banks, unsigned n, uint32_t nbanks, std::vector<uint8_t>& c) {
  c.assign(nbanks, 0);
  uint32_t m = 0;
  for (unsigned i = 0; i < n; ++i) m = std::max<uint32_t>(m, ++c[banks[i]]);
  return m;
}

}  // namespace

void Sm::tbc_launch(CtaSlot& c) {
  c.tbc.reset();
  c.dwf.reset();
  if (!tbc_eligible(*c.k->launch->prog)) return;
  const size_t n = c.cta->warps.size();
  std::vector<LaneMask> live(n, 0);
  c.tbc_slots.assign(n, 0);
  uint32_t pc = 0;
  for (size_t i = 0; i < n; ++i) {
    const func::Warp& fw = *c.cta->warps[i];
    live[i] = fw.valid & ~fw.exited;
    c.tbc_slots[i] = fw.hw_warp_id;
    if (!fw.stack.empty()) pc = fw.stack.back().pc;
  }
  if (dwf_on_)
    c.dwf = std::make_unique<ext::dwf::DwfCta>(std::move(live), pc);
  else
    c.tbc = std::make_unique<ext::tbc::TbcCta>(std::move(live), pc);
}

Stall Sm::formed_ready(const WarpSlot& w, const CtaSlot& c,
                       const std::vector<ext::tbc::Piece>& pieces, const func::DInst& d) const {
  Stall r = Stall::issued;
  for (const ext::tbc::Piece& p : pieces) {
    const WarpSlot& hs = warps_[c.tbc_slots[p.warp]];
    if (hs.fw->at_barrier) {
      r = Stall::barrier;
      break;
    }
    if (hazard(hs, d)) {
      r = Stall::scoreboard;
      break;
    }
  }
  if (r != Stall::issued) return r;
  if (collectors_full(part_of(w))) return Stall::collector_full;
  const UnitKind uk = unit_for(d.exec);
  if (waiting(part_of(w), uk) >= unit_cap(uk))
    return uk == UnitKind::ldst ? Stall::mem_pipeline : Stall::unit_busy;
  if (!policies_.empty() && !policies_allow(w, d)) return Stall::throttled;
  return Stall::issued;
}

/// Issue the formed warp `pieces` at `pc` through slot `w`: execute every piece, one collector
/// entry, one warp instruction. Per piece: lanes that took a branch / fell through / exited.
/// Returns the extra register-bank conflict cycles of mixing home warps.
uint32_t Sm::formed_exec(WarpSlot& w, CtaSlot& c, const std::vector<ext::tbc::Piece>& pieces,
                         uint32_t pc, uint64_t now, LaneMask* taken, LaneMask* nt, LaneMask* gone) {
  KernelCtx& kc = *c.k;
  const func::DInst& d = kc.launch->prog->code[pc];
  const UnitKind uk = unit_for(d.exec);
  // Issue: one warp instruction for every piece.
  InFlight f;
  f.w = &warps_[c.tbc_slots[pieces.front().warp]];
  f.d = &d;
  f.unit = uk;
  f.age = issue_seq_++;
  f.issue_cycle = now;
  f.local_bytes = kc.launch->local_bytes_per_thread;
  if (kc.pcs) f.pcc = &kc.pcs->pc[pc];
  const UnitTiming& tm = timing_for(d.exec);
  const uint32_t passes = (uk == UnitKind::sp || uk == UnitKind::intu) ? passes_ : 1;
  f.latency = tm.latency + passes - 1;
  f.occupancy = tm.interval * passes;
  const size_t np = pieces.size();
  uint8_t banks[8 * kMaxWarpSize];
  unsigned nb = 0, nb_first = 0;
  std::vector<Writeback> followers;
  kc.cx.cycle = now;
  kc.cx.cta = c.cta.get();
  kc.cx.d2ma = nullptr;      // (D2MA intrinsics are calls: such kernels keep the per-warp stack)
  kc.cx.bulk = &bulk_hook_;  // bulk / tensor copies: this SM's unit (sm.cpp, tma.h)
  rec_.inst = &d;
  rec_.pc = pc;
  rec_.active = rec_.exec = 0;
  rec_.space = func::MemSpace::none;
  rec_.is_load = rec_.is_store = rec_.is_atomic = false;
  rec_.branch = rec_.divergent = rec_.barrier = rec_.mem_fence = rec_.relssp_release = false;
  rec_.warp_done = false;
  rec_.texels.clear();
  for (size_t k = 0; k < np; ++k) {
    const ext::tbc::Piece p = pieces[k];
    WarpSlot& hs = warps_[c.tbc_slots[p.warp]];
    func::Warp& fw = *hs.fw;
    const func::Frame fr = fw.frame();
    for (unsigned s = 0; s < d.nsrc; ++s)
      if (d.src[s] < func::kPredSlotBase) {
        const uint8_t b = uint8_t(bank_of(fr.reg_base + d.src[s], hs.slot));
        banks[nb++] = b;
        if (f.nreads < 8) f.read_bank[f.nreads++] = b;
      }
    if (k == 0) nb_first = nb;
    Writeback wb;
    wb.warp = hs.slot;
    wb.ndst = 0;
    for (unsigned s = 0; s < d.ndst; ++s) {
      const bool pred = d.dst[s] >= func::kPredSlotBase;
      const uint32_t a =
          pred ? fr.pred_base + (d.dst[s] - func::kPredSlotBase) : fr.reg_base + d.dst[s];
      auto& v = pred ? hs.pend_pred : hs.pend_reg;
      if (a >= v.size()) v.resize(a + 1, 0);
      ++v[a];
      ++hs.pending_writes;
      if (k == 0) {
        f.dst[f.ndst] = a;
        f.dst_pred[f.ndst] = pred;
        ++f.ndst;
      } else {
        wb.dst[wb.ndst] = a;
        wb.dst_w[wb.ndst] = 1;
        wb.dst_pred[wb.ndst] = pred;
        ++wb.ndst;
      }
    }
    ++hs.inflight;
    if (k > 0) followers.push_back(wb);
    // Execute the piece: the warp's stack is one entry with the piece's lanes for the step.
    const LaneMask exited_before = fw.exited;
    tbc_stack_.assign(1, func::SimtEntry{pc, ext::tbc::CtaStack::kNoRpc, p.mask, false, 0});
    std::swap(fw.stack, tbc_stack_);
    func::step(kc.cx, fw, &tbc_rec_);
    std::swap(fw.stack, tbc_stack_);
    const func::WarpInstRecord& pr = tbc_rec_;
    taken[k] = pr.exec;
    nt[k] = pr.active & ~pr.exec;
    gone[k] = fw.exited & ~exited_before;
    if ((fw.valid & ~fw.exited) == 0) hs.func_done = true;
    rec_.active |= pr.active;
    rec_.exec |= pr.exec;
    if (pr.space != func::MemSpace::none && rec_.space == func::MemSpace::none) {
      rec_.space = pr.space;
      rec_.is_load = pr.is_load;
      rec_.is_store = pr.is_store;
      rec_.is_atomic = pr.is_atomic;
      rec_.access_size = pr.access_size;
    }
    for (LaneMask m = pr.exec; m; m &= m - 1) {
      const unsigned l = unsigned(__builtin_ctz(m));
      rec_.addr[l] = pr.addr[l];
    }
    rec_.texels.insert(rec_.texels.end(), pr.texels.begin(), pr.texels.end());
    rec_.branch |= pr.branch;
    rec_.barrier |= pr.barrier;
    rec_.mem_fence |= pr.mem_fence;
    rec_.relssp_release |= pr.relssp_release;
  }
  if (!followers.empty()) {
    uint32_t g;
    if (!tbc_free_groups_.empty()) {
      g = tbc_free_groups_.back();
      tbc_free_groups_.pop_back();
    } else {
      if (tbc_groups_.empty()) tbc_groups_.emplace_back();  // id 0 = no group
      g = uint32_t(tbc_groups_.size());
      tbc_groups_.emplace_back();
    }
    tbc_groups_[g] = std::move(followers);
    f.group = g;
  }
  const uint32_t extra = np > 1 ? bank_cycles(banks, nb, p_.num_reg_banks, bank_scratch_) -
                                      bank_cycles(banks, nb_first, p_.num_reg_banks, bank_scratch_)
                                : 0;
  for (auto& q : policies_) q->on_issue(w, d);
  f.lanes = rec_.exec;
  ++w.insts;
  ++warp_insts_;
  const uint64_t lanes = uint64_t(__builtin_popcount(rec_.active));
  thread_insts_ += lanes;
  ++kc.warp_insts;
  kc.thread_insts += lanes;
  ++inst_classes_[size_t(d.exec)];
  if (power_) {
    unsigned writes = 0;
    for (unsigned s = 0; s < f.ndst; ++s) writes += !f.dst_pred[s];
    power_->on_issue(size_t(d.exec), unsigned(__builtin_popcount(rec_.exec)), f.nreads, writes);
  }
  if (f.pcc) {
    ++f.pcc->execs;
    ++f.pcc->stalls[size_t(Stall::issued)];
    f.pcc->thread_insts += lanes;
  }
  if (trace_) trace_->warp_issue(id_, w.slot, now, pc);
  if (issue_log_) issue_log_->push_back({now, w.slot});

  place_in_collector(f, rec_);
  return extra;
}

void Sm::tbc_release_group(uint32_t g, uint64_t cycle) {
  std::vector<Writeback> v;
  v.swap(tbc_groups_[g]);
  tbc_free_groups_.push_back(g);
  for (const Writeback& wb : v) schedule_wb(wb, cycle);
}

void Sm::formed_redirect(CtaSlot& c, uint32_t host, uint32_t pc) {
  WarpSlot& h = warps_[c.tbc_slots[host]];
  h.fw->stack.back().pc = pc;  // the PC the slot's instruction buffer fetches from
  h.ibuf = 0;
  h.redirect = true;
  h.fetch_pending = false;
  ++h.fetch_gen;
}

template <class W>
void Sm::formed_fetch(CtaSlot& c, std::vector<W>& ws) {
  // Every formed warp needs a host with live threads (its slot stays scheduled) that is not
  // waiting at a CTA barrier (its slot fetches); a new host, or a host whose buffer holds
  // another PC's instructions, refetches at the warp's PC. The first piece's home warp is
  // always usable (its threads are here, so it has not executed a barrier).
  const size_t n = c.tbc_slots.size();
  auto live = [&](uint32_t i) {  // (the fetch stage skips warps waiting at a CTA barrier)
    const func::Warp& fw = *c.cta->warps[i];
    return (fw.valid & ~fw.exited) != 0 && !fw.at_barrier;
  };
  tbc_used_.assign(n, 0);
  for (W& x : ws)  // (a waiting warp keeps its host)
    if (x.f.lanes && x.host != ext::tbc::kNoHost && (live(x.host) || formed_waiting(c, x)) &&
        !tbc_used_[x.host])
      tbc_used_[x.host] = 1;
    else
      x.host = ext::tbc::kNoHost;
  for (W& x : ws) {
    if (!x.f.lanes || x.host != ext::tbc::kNoHost) continue;
    uint32_t h = x.f.pieces.front().warp;
    if (tbc_used_[h])
      for (uint32_t i = 0; i < n; ++i)
        if (!tbc_used_[i] && live(i)) {
          h = i;
          break;
        }
    tbc_used_[h] = 1;
    x.host = h;
  }
  for (W& x : ws)  // (warps waiting for the CTA or their home warps do not fetch)
    if (x.f.lanes && !formed_waiting(c, x)) formed_claim(c, ws, x);
}

// Point x's host's instruction buffer at x's PC, unless another runnable formed warp sharing
// the host is at the buffer's PC (it keeps the buffer until it leaves: no ping-pong). True when
// the buffer is x's.
template <class W>
bool Sm::formed_claim(CtaSlot& c, const std::vector<W>& ws, const W& x) {
  const uint32_t rest = warps_[c.tbc_slots[x.host]].fw->stack.back().pc;
  if (rest == x.pc) return true;
  for (const W& y : ws)
    if (&y != &x && y.f.lanes && y.host == x.host && !formed_waiting(c, y) && y.pc == rest)
      return false;
  formed_redirect(c, x.host, x.pc);
  return true;
}

template void Sm::formed_fetch<ext::dwf::Dw>(CtaSlot& c, std::vector<ext::dwf::Dw>& ws);

/// The host's instruction buffer holds the formed warp's next instruction (else the stall).
template <class W>
Stall Sm::formed_fetched(CtaSlot& c, const std::vector<W>& ws, const W& x, uint64_t now) {
  if (!formed_claim(c, ws, x)) return Stall::fetch;  // a shared host busy for another warp
  const WarpSlot& h = warps_[c.tbc_slots[x.host]];
  if (h.ibuf == 0 || now < h.ibuf_ready) return h.redirect ? Stall::control : Stall::fetch;
  return Stall::issued;
}
template Stall Sm::formed_fetched<ext::dwf::Dw>(CtaSlot&, const std::vector<ext::dwf::Dw>&,
                                                const ext::dwf::Dw&, uint64_t);

void Sm::formed_issued(CtaSlot& c, uint32_t host, uint32_t pc) {
  WarpSlot& h = warps_[c.tbc_slots[host]];
  if (h.ibuf) --h.ibuf;
  h.fw->stack.back().pc = pc + 1;  // sequential: the buffer's next instruction
}

// The CTA leaves TBC: each warp's SIMT stack becomes its projection of the CTA-wide stack (its
// lanes of every entry, in order), which is the state the per-warp IPDOM stack would have.
void Sm::tbc_to_ipdom(CtaSlot& c, uint64_t ready_at) {
  const ext::tbc::CtaStack& st = c.tbc->stack();
  for (size_t i = 0; i < c.tbc_slots.size(); ++i) {
    WarpSlot& h = warps_[c.tbc_slots[i]];
    func::Warp& fw = *h.fw;
    if (!h.active || h.func_done) continue;
    fw.stack.clear();
    for (const ext::tbc::Entry& e : st.entries())
      if (e.mask[i] & ~fw.exited) fw.stack.push_back(func::SimtEntry{e.pc, e.rpc, e.mask[i]});
    h.ibuf = 0;  // refetch at the warp's own PC
    h.redirect = true;
    h.fetch_pending = false;
    ++h.fetch_gen;
    h.ready_at = std::max(h.ready_at, ready_at);
  }
  c.tbc.reset();
  tbc_stats_->on_fallback();
}

Stall Sm::try_issue_tbc(WarpSlot& w, uint64_t now, bool* issued) {
  using ext::tbc::Cw;
  CtaSlot& c = *w.cta;
  ext::tbc::TbcCta& t = *c.tbc;
  KernelCtx& kc = *c.k;
  const func::Program& prog = *kc.launch->prog;
  Stall best = Stall::idle;
  auto note = [&](Stall r) {
    if (stall_rank(r) < stall_rank(best)) best = r;
  };
  if (t.cws.size() && t.cws.front().host == ext::tbc::kNoHost) formed_fetch(c, t.cws);  // start
  for (size_t i = 0; i < t.cws.size(); ++i) {
    Cw& cw = t.cws[i];
    if (cw.f.lanes == 0 || c.tbc_slots[cw.host] != w.slot) continue;
    if (cw.st != Cw::St::run) {
      note(Stall::barrier);  // waits for the CTA's other warps
      continue;
    }
    if (now < cw.ready_at) {
      note(Stall::control);
      continue;
    }
    const uint32_t pc = cw.pc;
    const func::DInst& d = prog.code[pc];
    if (!cw.sync_pass && tbc_sync_point(d)) {
      t.arrive_sync(i);
      const ext::tbc::Settled s = t.settle(now + 1);
      tbc_stats_->on_settle(s, t.stack().depth());
      formed_fetch(c, t.cws);
      w.ready_at = std::max(w.ready_at, now + 1);  // the SM wakes for re-formed warps
      return Stall::barrier;                       // the compacted warps may have been replaced
    }
    if (const Stall r = formed_fetched(c, t.cws, cw, now); r != Stall::issued) {
      note(r);
      continue;
    }
    if (const Stall r = formed_ready(w, c, cw.f.pieces, d); r != Stall::issued) {
      note(r);
      continue;
    }
    formed_issued(c, cw.host, pc);
    const std::vector<ext::tbc::Piece> pieces = cw.f.pieces;  // exits may shrink cw's
    const size_t np = pieces.size();
    LaneMask taken[kMaxWarpSize], nt[kMaxWarpSize], gone[kMaxWarpSize];
    tbc_stats_->on_issue(np, formed_exec(w, c, pieces, pc, now, taken, nt, gone));

    // Control flow of the compacted warp.
    for (size_t k = 0; k < np; ++k)
      if (gone[k]) t.exit(pieces[k].warp, gone[k]);
    const ptx::Op op = d.in->op;
    const uint64_t after_branch = now + 1 + p_.branch_penalty;
    bool settle = false;
    if (op == ptx::Op::bra) {
      if (d.guard < 0 || d.in->has(ptx::IF_UNI)) {
        t.advance(i, rec_.exec ? d.target : pc + 1);
        t.cws[i].ready_at = after_branch;
        settle = t.cws[i].st == Cw::St::rpc;
      } else {
        for (size_t k = 0; k < np; ++k) taken[k] &= ~gone[k], nt[k] &= ~gone[k];
        // Pieces whose lanes all exited were dropped by exit(): re-map by warp.
        LaneMask tk[kMaxWarpSize], nk[kMaxWarpSize];
        size_t j = 0;
        for (size_t k = 0; k < np && j < t.cws[i].f.pieces.size(); ++k)
          if (t.cws[i].f.pieces[j].warp == pieces[k].warp) {
            tk[j] = taken[k];
            nk[j] = nt[k];
            ++j;
          }
        t.arrive_branch(i, pc, d.target, d.reconv, std::span<const LaneMask>(tk, j),
                        std::span<const LaneMask>(nk, j));
        settle = true;
      }
    } else {
      t.advance(i, pc + 1);
      settle = t.cws[i].st == Cw::St::rpc || t.cws[i].f.lanes == 0;
    }
    if (settle) {
      const uint64_t pushes = t.stack().pushes;
      const ext::tbc::Settled s = t.settle(after_branch);
      tbc_stats_->on_settle(s, t.stack().depth());
      tbc_stats_->on_push(t.stack().pushes - pushes);
      if (s.diverged) {
        ++divergent_branches_;
        if (p_.reconvergence_penalty)
          for (Cw& x : t.cws) x.ready_at = std::max(x.ready_at, now + 1 + p_.reconvergence_penalty);
        if (op == ptx::Op::bra && tbc_region_has_barrier(prog, pc, d.target, d.reconv)) {
          tbc_to_ipdom(c, after_branch);  // the paths must run concurrently: per-warp stacks
          *issued = true;
          return Stall::issued;
        }
      }
    }
    formed_fetch(c, t.cws);
    for (const Cw& x : t.cws)  // the SM wakes for the compacted warps' first issue
      if (x.f.lanes) {
        WarpSlot& hs = warps_[c.tbc_slots[x.host]];
        hs.ready_at = std::max(hs.ready_at, x.ready_at);
      }
    *issued = true;
    return Stall::issued;
  }
  return best;
}

}  // namespace simtlab::timing
