// Dynamic warp formation: the per-CTA warp pool (dwf.h).
#include "ext/dwf/dwf.h"

#include <algorithm>

namespace simtlab::ext::dwf {

namespace {
void add_lanes(Formed& f, uint32_t warp, LaneMask m) {
  auto it = std::lower_bound(f.pieces.begin(), f.pieces.end(), warp,
                             [](const Piece& p, uint32_t w) { return p.warp < w; });
  if (it != f.pieces.end() && it->warp == warp)
    it->mask |= m;
  else
    f.pieces.insert(it, Piece{warp, m});
  f.lanes |= m;
}
}  // namespace

DwfCta::DwfCta(std::vector<LaneMask> live, uint32_t pc) : live_(std::move(live)) {
  for (const Formed& f : tbc::static_warps(live_))
    pool.push_back(Dw{f, pc, false, false, 0, tbc::kNoHost});
  max_pool = pool.size();
}

Policy policy_of(const std::string& name) {
  if (name == "time") return Policy::time;
  if (name == "pc") return Policy::pc;
  if (name == "minority") return Policy::minority;
  if (name == "pdom") return Policy::pdom;
  return Policy::majority;
}

uint32_t DwfCta::insert(uint32_t pc, std::span<const Piece> part, uint64_t ready_at, uint32_t rpc) {
  uint32_t formed = 0;
  for (const Piece& p : part) {
    LaneMask left = p.mask;
    for (Dw& d : pool) {
      if (!left) break;
      if (d.pc != pc || d.sync || d.sync_pass) continue;
      const LaneMask fit = left & ~d.f.lanes;
      if (!fit) continue;
      add_lanes(d.f, p.warp, fit);
      d.ready_at = std::max(d.ready_at, ready_at);
      if (d.rpc == ~0u) d.rpc = rpc;
      left &= ~fit;
    }
    if (left) {
      Dw d;
      d.pc = pc;
      d.ready_at = ready_at;
      d.rpc = rpc;
      add_lanes(d.f, p.warp, left);
      pool.push_back(std::move(d));
      ++formed;
    }
  }
  max_pool = std::max(max_pool, pool.size());
  return formed;
}

void DwfCta::exit(uint32_t warp, LaneMask m) {
  live_[warp] &= ~m;
  for (Dw& d : pool) {
    auto& p = d.f.pieces;
    for (Piece& x : p)
      if (x.warp == warp) x.mask &= ~m;
    p.erase(std::remove_if(p.begin(), p.end(), [](const Piece& x) { return x.mask == 0; }),
            p.end());
    d.f.lanes = 0;
    for (const Piece& x : p) d.f.lanes |= x.mask;
  }
  pool.erase(std::remove_if(pool.begin(), pool.end(), [](const Dw& d) { return d.f.lanes == 0; }),
             pool.end());
}

void DwfCta::by_threads(std::vector<uint32_t>& out, bool most) const {
  out.clear();
  std::vector<std::pair<uint32_t, uint32_t>> threads;  // (pc, threads at pc)
  for (const Dw& d : pool) {
    const uint32_t n = uint32_t(__builtin_popcount(d.f.lanes));
    auto it = std::find_if(threads.begin(), threads.end(),
                           [&](const auto& t) { return t.first == d.pc; });
    if (it == threads.end())
      threads.push_back({d.pc, n});
    else
      it->second += n;
  }
  std::sort(threads.begin(), threads.end(), [most](const auto& a, const auto& b) {
    if (a.second != b.second) return most ? a.second > b.second : a.second < b.second;
    return a.first < b.first;
  });
  for (const auto& t : threads)
    for (uint32_t i = 0; i < pool.size(); ++i)
      if (pool[i].pc == t.first) out.push_back(i);
}

void DwfCta::order(Policy p, std::vector<uint32_t>& out) const {
  switch (p) {
    case Policy::majority:
      by_threads(out, true);
      return;
    case Policy::minority:
      by_threads(out, false);
      return;
    case Policy::time:
    case Policy::pc:
      out.clear();
      for (uint32_t i = 0; i < pool.size(); ++i) out.push_back(i);
      if (p == Policy::pc)
        std::stable_sort(out.begin(), out.end(),
                         [&](uint32_t a, uint32_t b) { return pool[a].pc < pool[b].pc; });
      return;
    case Policy::pdom: {
      by_threads(out, true);
      // A warp at a PC that another warp still has to reach as its reconvergence point waits.
      auto waits = [&](uint32_t i) {
        for (uint32_t j = 0; j < pool.size(); ++j)
          if (j != i && pool[j].rpc == pool[i].pc && pool[j].pc != pool[j].rpc) return true;
        return false;
      };
      std::stable_partition(out.begin(), out.end(), [&](uint32_t i) { return !waits(i); });
      return;
    }
  }
}

uint32_t DwfCta::arrive_sync(size_t i, uint64_t ready_at) {
  pool[i].sync = true;
  uint32_t formed = 0;
  for (uint32_t w = 0; w < live_.size(); ++w) {
    if (!live_[w]) continue;
    LaneMask waiting = 0;
    uint32_t low = ~0u;
    for (const Dw& d : pool)
      if (d.sync)
        for (const Piece& p : d.f.pieces)
          if (p.warp == w) {
            waiting |= p.mask;
            low = std::min(low, d.pc);
          }
    if (waiting != live_[w]) continue;
    // Every live thread of warp w waits: those at the lowest sync PC form the static warp.
    LaneMask mine = 0;
    for (Dw& d : pool)
      if (d.sync && d.pc == low)
        for (Piece& p : d.f.pieces)
          if (p.warp == w) {
            mine |= p.mask;
            p.mask = 0;
          }
    for (Dw& d : pool) {
      auto& p = d.f.pieces;
      p.erase(std::remove_if(p.begin(), p.end(), [](const Piece& x) { return x.mask == 0; }),
              p.end());
      d.f.lanes = 0;
      for (const Piece& x : p) d.f.lanes |= x.mask;
    }
    pool.erase(std::remove_if(pool.begin(), pool.end(), [](const Dw& d) { return d.f.lanes == 0; }),
               pool.end());
    Dw s;
    s.pc = low;
    s.sync_pass = true;
    s.ready_at = ready_at;
    add_lanes(s.f, w, mine);
    pool.push_back(std::move(s));
    ++formed;
  }
  max_pool = std::max(max_pool, pool.size());
  return formed;
}

}  // namespace simtlab::ext::dwf
