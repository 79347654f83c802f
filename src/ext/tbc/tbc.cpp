// Thread block compaction: compaction, the CTA-wide stack and the synchronisation of the
// compacted warps (tbc.h).
#include "ext/tbc/tbc.h"

#include <algorithm>

namespace simtlab::ext::tbc {

std::vector<Formed> compact(std::span<const LaneMask> masks) {
  // rank[l]: threads of lane l placed so far; warp w's lane l goes to formed warp rank[l]++.
  uint32_t rank[kMaxWarpSize] = {};
  std::vector<Formed> out;
  for (uint32_t w = 0; w < masks.size(); ++w) {
    for (LaneMask m = masks[w]; m; m &= m - 1) {
      const unsigned l = unsigned(__builtin_ctz(m));
      const uint32_t k = rank[l]++;
      if (k >= out.size()) out.resize(k + 1);
      Formed& f = out[k];
      if (f.pieces.empty() || f.pieces.back().warp != w) f.pieces.push_back(Piece{w, 0});
      f.pieces.back().mask |= LaneMask(1) << l;
      f.lanes |= LaneMask(1) << l;
    }
  }
  return out;
}

std::vector<Formed> static_warps(std::span<const LaneMask> masks) {
  std::vector<Formed> out;
  for (uint32_t w = 0; w < masks.size(); ++w)
    if (masks[w]) out.push_back(Formed{{Piece{w, masks[w]}}, masks[w]});
  return out;
}

bool CtaStack::branch(uint32_t fallthrough, uint32_t target, uint32_t reconv,
                      const std::vector<LaneMask>& taken, const std::vector<LaneMask>& nt) {
  bool any_t = false, any_n = false;
  for (LaneMask m : taken) any_t |= m != 0;
  for (LaneMask m : nt) any_n |= m != 0;
  Entry& top = entries_.back();
  if (!any_n) {
    top.pc = target;
    return false;
  }
  if (!any_t) {
    top.pc = fallthrough;
    return false;
  }
  if (top.rpc == reconv && entries_.size() > 1)
    entries_.pop_back();  // the entry below already waits at `reconv` with these threads
  else
    top.pc = reconv;
  if (fallthrough != reconv) {
    entries_.push_back(Entry{fallthrough, reconv, nt});
    ++pushes;
  }
  if (target != reconv) {
    entries_.push_back(Entry{target, reconv, taken});
    ++pushes;
  }
  return true;
}

uint32_t CtaStack::reconverge() {
  uint32_t n = 0;
  while (!entries_.empty()) {
    const Entry& t = entries_.back();
    if (!t.empty() && t.pc != t.rpc) break;
    entries_.pop_back();
    ++n;
  }
  return n;
}

TbcCta::TbcCta(std::vector<LaneMask> live, uint32_t pc)
    : stack_(std::move(live), pc),
      taken_(stack_.top().mask.size(), 0),
      nt_(stack_.top().mask.size(), 0) {
  Settled s;
  stack_.reconverge();
  activate(true, false, 0, s);
}

void TbcCta::activate(bool compacted, bool sync_pass, uint64_t ready_at, Settled& s) {
  cws.clear();
  if (stack_.done()) return;
  const Entry& t = stack_.top();
  std::vector<Formed> f = compacted ? compact(t.mask) : static_warps(t.mask);
  s.formed = uint32_t(f.size());
  for (Formed& x : f) {
    if (x.pieces.size() > 1) ++s.compacted;
    Cw c;
    c.f = std::move(x);
    c.pc = t.pc;
    c.sync_pass = sync_pass;
    c.ready_at = ready_at;
    cws.push_back(std::move(c));
  }
}

void TbcCta::advance(size_t i, uint32_t next) {
  Cw& c = cws[i];
  c.pc = next;
  c.sync_pass = false;
  if (next == stack_.top().rpc) c.st = Cw::St::rpc;
}

void TbcCta::arrive_branch(size_t i, uint32_t pc, uint32_t target, uint32_t reconv,
                           std::span<const LaneMask> taken, std::span<const LaneMask> nt) {
  Cw& c = cws[i];
  br_pc_ = pc;
  br_target_ = target;
  br_reconv_ = reconv;
  for (size_t k = 0; k < c.f.pieces.size(); ++k) {
    taken_[c.f.pieces[k].warp] |= taken[k];
    nt_[c.f.pieces[k].warp] |= nt[k];
  }
  c.st = Cw::St::branch;
  c.sync_pass = false;
}

void TbcCta::arrive_sync(size_t i) { cws[i].st = Cw::St::sync; }

void TbcCta::exit(uint32_t warp, LaneMask m) {
  stack_.exit(warp, m);
  taken_[warp] &= ~m;
  nt_[warp] &= ~m;
  for (Cw& c : cws) {
    auto& p = c.f.pieces;
    for (Piece& x : p)
      if (x.warp == warp) x.mask &= ~m;
    p.erase(std::remove_if(p.begin(), p.end(), [](const Piece& x) { return x.mask == 0; }),
            p.end());
    c.f.lanes = 0;
    for (const Piece& x : p) c.f.lanes |= x.mask;
  }
}

Settled TbcCta::settle(uint64_t ready_at) {
  Settled s;
  if (stack_.done()) return s;
  bool any_branch = false, any_sync = false;
  uint32_t sync_pc = 0;
  for (const Cw& c : cws) {
    if (c.f.lanes == 0) continue;
    if (c.st == Cw::St::run) return s;
    any_branch |= c.st == Cw::St::branch;
    if (c.st == Cw::St::sync) {
      any_sync = true;
      sync_pc = c.pc;
    }
  }
  s.any = true;
  Entry& top = stack_.top();
  if (any_branch) {
    const bool div = stack_.branch(br_pc_ + 1, br_target_, br_reconv_, taken_, nt_);
    std::fill(taken_.begin(), taken_.end(), 0);
    std::fill(nt_.begin(), nt_.end(), 0);
    if (!div) {
      s.uniform = true;
      const Entry& t = stack_.top();
      if (t.pc != t.rpc) {  // the same warps go on together
        for (Cw& c : cws) {
          c.pc = t.pc;
          c.st = Cw::St::run;
          c.ready_at = ready_at;
        }
        return s;
      }
    } else {
      s.diverged = true;
    }
    s.pops = stack_.reconverge();
    activate(true, false, ready_at, s);
    return s;
  }
  if (any_sync) {
    top.pc = sync_pc;
    s.synced = true;
    activate(false, true, ready_at, s);
    return s;
  }
  top.pc = top.rpc;  // every compacted warp reached the reconvergence point (or exited)
  s.pops = stack_.reconverge();
  activate(true, false, ready_at, s);
  return s;
}

}  // namespace simtlab::ext::tbc
