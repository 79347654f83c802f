#include "ptx/cfg.h"

#include <algorithm>

namespace simtlab::ptx {

// ---- BitSet ---------------------------------------------------------------------------------

size_t BitSet::count() const {
  size_t c = 0;
  for (uint64_t x : w_) c += size_t(__builtin_popcountll(x));
  return c;
}
BitSet& BitSet::operator|=(const BitSet& o) {
  for (size_t i = 0; i < w_.size(); ++i) w_[i] |= o.w_[i];
  return *this;
}
BitSet& BitSet::operator&=(const BitSet& o) {
  for (size_t i = 0; i < w_.size(); ++i) w_[i] &= o.w_[i];
  return *this;
}
BitSet& BitSet::minus(const BitSet& o) {
  for (size_t i = 0; i < w_.size(); ++i) w_[i] &= ~o.w_[i];
  return *this;
}
void BitSet::fill() {
  for (auto& w : w_) w = ~uint64_t(0);
  if (n_ % 64) w_.back() &= (uint64_t(1) << (n_ % 64)) - 1;
}

// ---- CFG ------------------------------------------------------------------------------------

namespace {

bool ends_block(const Instruction& in) {
  return in.op == Op::bra || in.op == Op::brx || in.op == Op::ret || in.op == Op::exit ||
         in.op == Op::trap;
}

}  // namespace

void build_cfg(Function& f) {
  const uint32_t n = uint32_t(f.insts.size());
  f.blocks.clear();
  f.block_of.assign(n, 0);
  if (n == 0) return;
  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  for (int32_t t : f.label_target)
    if (t >= 0 && uint32_t(t) <= n) leader[uint32_t(t)] = true;
  for (uint32_t i = 0; i < n; ++i)
    if (ends_block(f.insts[i])) leader[i + 1] = true;
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i + 1;
    while (j < n && !leader[j]) ++j;
    BasicBlock b;
    b.first = i;
    b.last = j;
    for (uint32_t k = i; k < j; ++k) f.block_of[k] = uint32_t(f.blocks.size());
    f.blocks.push_back(b);
    i = j;
  }
  const uint32_t nb = uint32_t(f.blocks.size());
  const uint32_t X = nb;  // virtual exit
  auto block_at = [&](uint32_t inst) -> uint32_t { return inst >= n ? X : f.block_of[inst]; };
  std::vector<std::vector<uint32_t>> succ(nb);  // may contain X
  for (uint32_t b = 0; b < nb; ++b) {
    const Instruction& last = f.insts[f.blocks[b].last - 1];
    auto add = [&](uint32_t s) {
      if (std::find(succ[b].begin(), succ[b].end(), s) == succ[b].end()) succ[b].push_back(s);
    };
    const uint32_t fall = block_at(f.blocks[b].last);
    if (last.op == Op::bra) {
      const int32_t t = f.label_target[last.ops[0].id];
      add(block_at(uint32_t(t)));
      if (last.guard >= 0) add(fall);
    } else if (last.op == Op::ret || last.op == Op::exit || last.op == Op::trap ||
               last.op == Op::brx) {
      add(X);
      if (last.guard >= 0) add(fall);
    } else {
      add(fall);
    }
  }
  for (uint32_t b = 0; b < nb; ++b) {
    for (uint32_t s : succ[b]) {
      if (s == X) continue;
      f.blocks[b].succs.push_back(s);
      f.blocks[s].preds.push_back(b);
    }
  }
  // Reachability from entry.
  {
    std::vector<uint32_t> stack{0};
    f.blocks[0].reachable = true;
    while (!stack.empty()) {
      uint32_t b = stack.back();
      stack.pop_back();
      for (uint32_t s : f.blocks[b].succs)
        if (!f.blocks[s].reachable) {
          f.blocks[s].reachable = true;
          stack.push_back(s);
        }
    }
  }
  // Reverse graph: rpred[x] = CFG successors of x; rsucc[x] = CFG predecessors (incl. X).
  std::vector<std::vector<uint32_t>> rsucc(nb + 1);
  for (uint32_t b = 0; b < nb; ++b)
    for (uint32_t s : succ[b]) rsucc[s].push_back(b);
  // Ensure every block reaches X: add virtual edges from blocks in exit-less regions.
  std::vector<uint32_t> order;  // postorder of the reverse graph from X
  std::vector<uint8_t> seen(nb + 1, 0);
  // Depth-first from `root` over unseen blocks, appending the postorder.
  auto dfs = [&](uint32_t root) {
    std::vector<std::pair<uint32_t, size_t>> st{{root, 0}};
    seen[root] = 1;
    while (!st.empty()) {
      auto& [v, i] = st.back();
      if (i < rsucc[v].size()) {
        uint32_t w = rsucc[v][i++];
        if (!seen[w]) {
          seen[w] = 1;
          st.push_back({w, 0});
        }
      } else {
        order.push_back(v);
        st.pop_back();
      }
    }
  };
  dfs(X);
  // The highest unseen block gets a virtual edge to X. A search from X again would repeat the
  // same walk of X's earlier children and then visit the new one last (X's children are
  // visited in order), so only the new child's search runs, before X's postorder entry.
  for (uint32_t cursor = nb; order.size() < nb + 1;) {
    while (seen[cursor - 1]) --cursor;
    const uint32_t pick = cursor - 1;
    succ[pick].push_back(X);
    rsucc[X].push_back(pick);
    order.pop_back();  // X
    dfs(pick);
    order.push_back(X);
  }
  // Cooper-Harvey-Kennedy iterative dominators on the reverse graph.
  std::vector<uint32_t> po_num(nb + 1);
  for (uint32_t i = 0; i < order.size(); ++i) po_num[order[i]] = i;
  constexpr uint32_t UNDEF = ~0u;
  std::vector<uint32_t> idom(nb + 1, UNDEF);
  idom[X] = X;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (po_num[a] < po_num[b]) a = idom[a];
      while (po_num[b] < po_num[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const uint32_t v = *it;
      if (v == X) continue;
      uint32_t nd = UNDEF;
      for (uint32_t p : succ[v]) {  // predecessors in the reverse graph
        if (idom[p] == UNDEF) continue;
        nd = nd == UNDEF ? p : intersect(p, nd);
      }
      if (nd != UNDEF && idom[v] != nd) {
        idom[v] = nd;
        changed = true;
      }
    }
  }
  for (uint32_t b = 0; b < nb; ++b)
    f.blocks[b].ipdom = idom[b] == X || idom[b] == UNDEF ? -1 : int32_t(idom[b]);
}

uint32_t reconvergence_pc(const Function& f, uint32_t inst_index) {
  const int32_t ip = f.blocks[f.block_of[inst_index]].ipdom;
  return ip < 0 ? uint32_t(f.insts.size()) : f.blocks[uint32_t(ip)].first;
}

uint32_t likely_convergence_pc(const Function& f, uint32_t inst_index) {
  const uint32_t n = uint32_t(f.insts.size());
  const uint32_t r = reconvergence_pc(f, inst_index);
  uint32_t best_lo = 0, best_hi = ~0u;
  for (const BasicBlock& b : f.blocks) {
    const uint32_t j = b.last - 1;
    const Instruction& in = f.insts[j];
    if (in.op != Op::bra || in.ops.empty()) continue;
    const int32_t t = f.label_target[in.ops[0].id];
    if (t < 0 || uint32_t(t) > j) continue;  // not a backward branch
    const uint32_t lo = uint32_t(t);
    if (inst_index < lo || inst_index >= b.first) continue;  // not strictly inside this loop
    if (r >= lo && r <= j) continue;  // reconverges inside the loop: the IPDOM is early enough
    if (j - lo < best_hi - best_lo) {
      best_lo = lo;
      best_hi = j;
    }
  }
  if (best_hi == ~0u) return ~0u;
  const uint32_t lpc = f.blocks[f.block_of[best_hi]].first;
  return lpc == r || lpc >= n ? ~0u : lpc;
}

// ---- dataflow -------------------------------------------------------------------------------

DataflowResult solve_dataflow(const Function& f, const DataflowProblem& p) {
  const size_t nb = f.blocks.size();
  DataflowResult r;
  BitSet init(p.bits);
  if (p.meet == DataflowProblem::Meet::intersection) init.fill();
  r.in.assign(nb, init);
  r.out.assign(nb, init);
  const bool bwd = p.dir == DataflowProblem::Dir::backward;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < nb; ++k) {
      const size_t b = bwd ? nb - 1 - k : k;
      const auto& edges = bwd ? f.blocks[b].succs : f.blocks[b].preds;
      BitSet meet(p.bits);
      if (edges.empty()) {
        meet = p.boundary.size() ? p.boundary : BitSet(p.bits);
      } else {
        bool first = true;
        for (uint32_t e : edges) {
          const BitSet& v = bwd ? r.in[e] : r.out[e];
          if (first) {
            meet = v;
            first = false;
          } else if (p.meet == DataflowProblem::Meet::union_) {
            meet |= v;
          } else {
            meet &= v;
          }
        }
        // Blocks that also flow to the virtual exit/entry see the boundary value too.
        if (bwd) {
          const Instruction& last = f.insts[f.blocks[b].last - 1];
          const bool to_exit =
              last.op == Op::ret || last.op == Op::exit || f.blocks[b].last == f.insts.size();
          if (to_exit && p.boundary.size()) {
            if (p.meet == DataflowProblem::Meet::union_)
              meet |= p.boundary;
            else
              meet &= p.boundary;
          }
        }
      }
      BitSet x = meet;
      x.minus(p.kill[b]);
      x |= p.gen[b];
      BitSet& edge_val = bwd ? r.out[b] : r.in[b];
      BitSet& blk_val = bwd ? r.in[b] : r.out[b];
      if (!(edge_val == meet)) edge_val = meet;
      if (!(blk_val == x)) {
        blk_val = std::move(x);
        changed = true;
      }
    }
  }
  return r;
}

Liveness compute_liveness(const Function& f) {
  const size_t nr = f.regs.size();
  DataflowProblem p;
  p.dir = DataflowProblem::Dir::backward;
  p.meet = DataflowProblem::Meet::union_;
  p.bits = nr;
  p.boundary = BitSet(nr);
  std::vector<uint32_t> uses, defs;
  for (const BasicBlock& b : f.blocks) {
    BitSet gen(nr), kill(nr);
    for (uint32_t i = b.last; i-- > b.first;) {
      const Instruction& in = f.insts[i];
      inst_defs(in, defs);
      inst_uses(in, uses);
      if (in.guard < 0)
        for (uint32_t d : defs) {
          kill.set(d);
          gen.reset(d);
        }
      for (uint32_t u : uses) gen.set(u);
    }
    p.gen.push_back(std::move(gen));
    p.kill.push_back(std::move(kill));
  }
  Liveness L;
  L.blocks = solve_dataflow(f, p);
  auto slots = [&](const BitSet& s, uint32_t& preds) {
    uint32_t n = 0;
    preds = 0;
    s.for_each([&](size_t r) {
      const Register& reg = f.regs[r];
      if (reg.is_pred())
        ++preds;
      else
        n += type_size(reg.type) > 4 ? 2 : 1;
    });
    return n;
  };
  // The counts are kept as the walk changes the set (not recounted per instruction: that
  // would be quadratic in a function with thousands of values live at once).
  std::vector<uint8_t> width(nr);
  for (size_t r = 0; r < nr; ++r)
    width[r] = f.regs[r].is_pred() ? 0 : type_size(f.regs[r].type) > 4 ? 2 : 1;
  for (size_t bi = 0; bi < f.blocks.size(); ++bi) {
    const BasicBlock& b = f.blocks[bi];
    BitSet live = L.blocks.out[bi];
    uint32_t preds = 0;
    uint32_t n = slots(live, preds);
    auto change = [&](uint32_t r, bool in) {
      if (live.test(r) == in) return;
      in ? live.set(r) : live.reset(r);
      const int d = in ? 1 : -1;
      if (width[r])
        n = uint32_t(int64_t(n) + d * width[r]);
      else
        preds = uint32_t(int64_t(preds) + d);
    };
    for (uint32_t i = b.last; i-- > b.first;) {
      const Instruction& in = f.insts[i];
      inst_defs(in, defs);
      inst_uses(in, uses);
      L.max_live_slots = std::max(L.max_live_slots, n);
      L.max_live_preds = std::max(L.max_live_preds, preds);
      if (in.guard < 0)
        for (uint32_t d : defs) change(d, false);
      for (uint32_t u : uses) change(u, true);
    }
    L.max_live_slots = std::max(L.max_live_slots, n);
    L.max_live_preds = std::max(L.max_live_preds, preds);
  }
  return L;
}

std::vector<std::vector<uint32_t>> last_uses(const Function& f) {
  const Liveness L = compute_liveness(f);
  std::vector<std::vector<uint32_t>> out(f.insts.size());
  std::vector<uint32_t> uses, defs;
  for (size_t bi = 0; bi < f.blocks.size(); ++bi) {
    const BasicBlock& b = f.blocks[bi];
    BitSet live = L.blocks.out[bi];  // live after instruction i in the walk below
    for (uint32_t i = b.last; i-- > b.first;) {
      const Instruction& in = f.insts[i];
      inst_defs(in, defs);
      inst_uses(in, uses);
      for (uint32_t u : uses)
        if (!live.test(u)) out[i].push_back(u);
      std::sort(out[i].begin(), out[i].end());
      out[i].erase(std::unique(out[i].begin(), out[i].end()), out[i].end());
      if (in.guard < 0)
        for (uint32_t d : defs) live.reset(d);
      for (uint32_t u : uses) live.set(u);
    }
  }
  return out;
}

}  // namespace simtlab::ptx
