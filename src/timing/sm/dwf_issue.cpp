// Dynamic warp formation on the SM (sim.divergence=dwf; src/ext/dwf, Fung et al. MICRO 2007).
//
// A CTA under DWF has a warp pool (ext::dwf::DwfCta). Any SM slot of the CTA can issue any warp
// of its pool (the pool feeds the schedulers: one issue per scheduler per cycle as for static
// warps), in the Majority policy's order. A pool warp issues as one warp instruction through the
// same path as thread block compaction's compacted warps (Sm::formed_exec in tbc_issue.cpp:
// pieces executed on their home warps, one collector entry, one memory request stream).
// Each pool warp fetches through its host slot (formed_fetch). Simplified: the pool is per CTA
// (threads of different CTAs never merge); threads merge only after branches (the paper's LUT).
#include <algorithm>

#include "ext/dwf/dwf.h"
#include "ext/dwf/dwf_stats.h"
#include "timing/sm/sm.h"

namespace simtlab::timing {

namespace {
bool dwf_sync_point(const func::DInst& d) {
  if (d.exec == ptx::ExecClass::warp) return true;
  const ptx::Op op = d.in->op;
  return op == ptx::Op::bar || op == ptx::Op::barrier;
}
}  // namespace

Stall Sm::try_issue_dwf(WarpSlot& w, uint64_t now, bool* issued) {
  using ext::dwf::Dw;
  using ext::tbc::Piece;
  CtaSlot& c = *w.cta;
  ext::dwf::DwfCta& t = *c.dwf;
  const func::Program& prog = *c.k->launch->prog;
  Stall best = Stall::idle;
  auto note = [&](Stall r) {
    if (stall_rank(r) < stall_rank(best)) best = r;
  };
  if (t.pool.size() && t.pool.front().host == ext::tbc::kNoHost) formed_fetch(c, t.pool);
  t.order(dwf_policy_, dwf_order_);
  for (const uint32_t idx : dwf_order_) {
    Dw& x = t.pool[idx];
    if (x.sync) {
      note(Stall::barrier);
      continue;
    }
    if (now < x.ready_at) {
      note(Stall::control);
      continue;
    }
    const uint32_t pc = x.pc;
    const func::DInst& d = prog.code[pc];
    if (!x.sync_pass && dwf_sync_point(d)) {
      dwf_stats_->on_sync(t.arrive_sync(idx, now + 1));
      formed_fetch(c, t.pool);
      w.ready_at = std::max(w.ready_at, now + 1);  // the SM wakes for re-formed warps
      return Stall::barrier;                       // the pool changed
    }
    if (const Stall r = formed_fetched(c, t.pool, x, now); r != Stall::issued) {
      note(r);
      continue;
    }
    if (const Stall r = formed_ready(w, c, x.f.pieces, d); r != Stall::issued) {
      note(r);
      continue;
    }
    formed_issued(c, x.host, pc);
    const std::vector<Piece> pieces = x.f.pieces;
    const size_t np = pieces.size();
    LaneMask taken[kMaxWarpSize], nt[kMaxWarpSize], gone[kMaxWarpSize];
    dwf_stats_->on_issue(np, formed_exec(w, c, pieces, pc, now, taken, nt, gone));

    // Control flow: after a jump or branch the threads go to the pool warps at their PCs.
    const uint64_t after_branch = now + 1 + p_.branch_penalty;
    std::vector<Piece> tk, nk;
    for (size_t k = 0; k < np; ++k) {
      if (taken[k] & ~gone[k]) tk.push_back(Piece{pieces[k].warp, taken[k] & ~gone[k]});
      if (nt[k] & ~gone[k]) nk.push_back(Piece{pieces[k].warp, nt[k] & ~gone[k]});
    }
    if (d.in->op == ptx::Op::bra) {
      // Post-dominator priority: both paths of a divergent branch carry its IPDOM; otherwise the
      // warp's own, until it passes it.
      const bool div = !tk.empty() && !nk.empty();
      const uint32_t rpc = div ? d.reconv : x.rpc == pc ? ~0u : x.rpc;
      t.remove(idx);
      uint32_t formed = 0;
      if (!tk.empty()) formed += t.insert(d.target, tk, after_branch, rpc);
      if (!nk.empty()) formed += t.insert(pc + 1, nk, after_branch, rpc);
      dwf_stats_->on_branch(!tk.empty() && !nk.empty(), formed, t.pool.size());
      if (!tk.empty() && !nk.empty()) ++divergent_branches_;
    } else {
      if (x.rpc == pc) x.rpc = ~0u;  // past its reconvergence point
      x.pc = pc + 1;
      x.sync_pass = false;
      x.ready_at = std::max(x.ready_at, now + 1);  // one issue per warp per cycle
    }
    for (size_t k = 0; k < np; ++k)
      if (gone[k]) t.exit(pieces[k].warp, gone[k]);
    formed_fetch(c, t.pool);
    uint64_t wake = UINT64_MAX;  // the SM wakes for the pool's next ready warp
    for (const Dw& y : t.pool)
      if (y.ready_at > now) wake = std::min(wake, y.ready_at);
    if (wake != UINT64_MAX) w.ready_at = std::max(w.ready_at, wake);
    *issued = true;
    return Stall::issued;
  }
  return best;
}

}  // namespace simtlab::timing
