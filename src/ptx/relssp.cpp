#include "ptx/relssp.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "ptx/layout.h"

namespace simtlab::ptx {

namespace {

bool is_shared_var(const Module& m, uint32_t v) { return m.vars[v].space == Space::shared; }

bool to_exit(const Function& f, const BasicBlock& b) {
  const Instruction& last = f.insts[b.last - 1];
  if (last.op == Op::ret || last.op == Op::exit || last.op == Op::trap || last.op == Op::brx)
    return true;
  return b.last == f.insts.size() && !(last.op == Op::bra && last.guard < 0);  // falls off the end
}

// Opcodes whose destination carries an address computed from their sources.
bool propagates_address(Op op) {
  switch (op) {
    case Op::mov:
    case Op::cvta:
    case Op::cvt:
    case Op::add:
    case Op::sub:
    case Op::mad:
    case Op::mad24:
    case Op::selp:
    case Op::and_:
    case Op::or_:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<SmemAccess> smem_accesses(const Module& m, const Function& f) {
  const size_t nr = f.regs.size();
  // Flow-insensitive points-to: the .shared variables a register's value may be the address of.
  std::vector<std::vector<uint32_t>> pts(nr);
  auto add_to = [](std::vector<uint32_t>& s, uint32_t v) {
    auto it = std::lower_bound(s.begin(), s.end(), v);
    if (it == s.end() || *it != v) {
      s.insert(it, v);
      return true;
    }
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const Instruction& in : f.insts) {
      if (!propagates_address(in.op) || in.ndst != 1 || in.ops.empty() ||
          in.ops[0].kind != OperandKind::reg)
        continue;
      const uint32_t d = in.ops[0].id;
      for (size_t i = 1; i < in.ops.size(); ++i) {
        const Operand& o = in.ops[i];
        if (o.kind == OperandKind::sym && is_shared_var(m, o.id)) changed |= add_to(pts[d], o.id);
        if (o.kind == OperandKind::reg && o.id != d)
          for (uint32_t v : std::vector<uint32_t>(pts[o.id])) changed |= add_to(pts[d], v);
      }
    }
  }
  bool shared_to_generic = false;  // cvta of a .shared address: generic pointers may be shared
  for (const Instruction& in : f.insts)
    if (in.op == Op::cvta && in.space == Space::shared && !in.has(IF_TO)) shared_to_generic = true;

  std::vector<SmemAccess> out(f.insts.size());
  for (size_t i = 0; i < f.insts.size(); ++i) {
    const Instruction& in = f.insts[i];
    SmemAccess& a = out[i];
    if (in.call) {
      if (in.call->target.kind == OperandKind::func && m.funcs[in.call->target.id].defined)
        a.unknown = true;  // the callee may touch scratchpad
      continue;
    }
    const bool memop = (in.info().flags & (OPF_LOAD | OPF_STORE | OPF_ATOMIC)) != 0 ||
                       in.op == Op::mbarrier || in.op == Op::wmma;
    if (!memop) continue;
    const bool sh = in.space == Space::shared || in.space2 == Space::shared;
    const bool gen = in.space == Space::generic;
    if (!sh && !gen) continue;
    const Operand* addr = nullptr;
    for (const Operand& o : in.ops)
      if (o.kind == OperandKind::addr) {
        addr = &o;
        if (in.op != Op::cp || in.space == Space::shared) break;  // cp.async: the shared side
      }
    if (!addr) {
      if (sh) a.unknown = true;
      continue;
    }
    if (addr->base == OperandKind::sym && is_shared_var(m, addr->id)) {
      a.vars.push_back(addr->id);
    } else if (addr->base == OperandKind::reg) {
      a.vars = pts[addr->id];
      if (a.vars.empty() && sh) a.unknown = true;
      if (a.vars.empty() && gen && shared_to_generic) a.unknown = true;
    } else if (sh) {
      a.unknown = true;
    }
  }
  return out;
}

std::vector<bool> shared_region_accesses(const Module& m, const std::vector<SmemAccess>& acc,
                                         const std::unordered_map<uint32_t, uint32_t>& offset,
                                         uint32_t boundary) {
  std::vector<bool> out(acc.size(), false);
  for (size_t i = 0; i < acc.size(); ++i) {
    const SmemAccess& a = acc[i];
    bool s = a.unknown;
    for (uint32_t v : a.vars) {
      auto it = offset.find(v);
      const Variable& var = m.vars[v];
      // A dynamic array, or any access into a variable that reaches the boundary (a constant
      // offset is not tracked: the whole variable counts).
      if (it == offset.end() || var.size == 0 || var.unsized || it->second + var.size > boundary)
        s = true;
    }
    out[i] = s;
  }
  return out;
}

AccessRanges access_ranges(const Function& f, const std::vector<SmemAccess>& acc,
                           const std::vector<uint32_t>& vars) {
  const size_t nb = f.blocks.size(), nv = vars.size();
  std::vector<BitSet> gen(nb, BitSet(nv));
  for (size_t b = 0; b < nb; ++b)
    for (uint32_t i = f.blocks[b].first; i < f.blocks[b].last; ++i)
      for (size_t k = 0; k < nv; ++k)
        if (acc[i].unknown || std::binary_search(acc[i].vars.begin(), acc[i].vars.end(), vars[k]))
          gen[b].set(k);
  AccessRanges r;
  r.pre_in.assign(nb, BitSet(nv));
  r.pre_out.assign(nb, BitSet(nv));
  r.post_in.assign(nb, BitSet(nv));
  r.post_out.assign(nb, BitSet(nv));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < nb; ++b) {
      BitSet in(nv);
      for (uint32_t p : f.blocks[b].preds) in |= r.pre_out[p];
      BitSet out = in;
      out |= gen[b];
      if (!(in == r.pre_in[b]) || !(out == r.pre_out[b])) changed = true;
      r.pre_in[b] = in;
      r.pre_out[b] = out;
    }
    for (size_t k = nb; k-- > 0;) {
      BitSet out(nv);
      for (uint32_t s : f.blocks[k].succs) out |= r.post_in[s];
      BitSet in = out;
      in |= gen[k];
      if (!(in == r.post_in[k]) || !(out == r.post_out[k])) changed = true;
      r.post_in[k] = in;
      r.post_out[k] = out;
    }
  }
  return r;
}

std::vector<bool> in_access_range(const Function& f, const std::vector<SmemAccess>& acc,
                                  const std::vector<uint32_t>& vars, uint64_t subset) {
  const AccessRanges r = access_ranges(f, acc, vars);
  auto touches = [&](uint32_t i) {
    if (acc[i].unknown) return true;
    for (size_t k = 0; k < vars.size(); ++k)
      if (((subset >> k) & 1) &&
          std::binary_search(acc[i].vars.begin(), acc[i].vars.end(), vars[k]))
        return true;
    return false;
  };
  auto any_of = [&](const BitSet& s) {
    for (size_t k = 0; k < vars.size(); ++k)
      if (((subset >> k) & 1) && s.test(k)) return true;
    return false;
  };
  std::vector<bool> out(f.insts.size(), false);
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    const BasicBlock& bb = f.blocks[b];
    if (!bb.reachable) continue;
    std::vector<bool> pre(bb.last - bb.first), post(bb.last - bb.first);
    bool p = any_of(r.pre_in[b]);
    for (uint32_t i = bb.first; i < bb.last; ++i) {
      p = p || touches(i);
      pre[i - bb.first] = p;
    }
    bool q = any_of(r.post_out[b]);
    for (uint32_t i = bb.last; i-- > bb.first;) {
      q = q || touches(i);
      post[i - bb.first] = q;
    }
    for (uint32_t i = bb.first; i < bb.last; ++i) out[i] = pre[i - bb.first] && post[i - bb.first];
  }
  return out;
}

uint64_t range_weight(const Function& f, const std::vector<bool>& in_range) {
  const uint32_t nb = uint32_t(f.blocks.size());
  if (nb == 0) return 0;
  // Tarjan's SCCs (iterative); components come out in reverse topological order.
  std::vector<int32_t> idx(nb, -1), low(nb, 0), comp(nb, -1);
  std::vector<uint32_t> st;
  std::vector<bool> on(nb, false);
  int32_t counter = 0, ncomp = 0;
  std::vector<std::pair<uint32_t, size_t>> call;
  for (uint32_t s0 = 0; s0 < nb; ++s0) {
    if (idx[s0] >= 0) continue;
    call.push_back({s0, 0});
    idx[s0] = low[s0] = counter++;
    st.push_back(s0);
    on[s0] = true;
    while (!call.empty()) {
      auto& [v, i] = call.back();
      if (i < f.blocks[v].succs.size()) {
        const uint32_t w = f.blocks[v].succs[i++];
        if (idx[w] < 0) {
          idx[w] = low[w] = counter++;
          st.push_back(w);
          on[w] = true;
          call.push_back({w, 0});
        } else if (on[w]) {
          low[v] = std::min(low[v], idx[w]);
        }
      } else {
        const uint32_t vv = v;
        call.pop_back();
        if (!call.empty()) low[call.back().first] = std::min(low[call.back().first], low[vv]);
        if (low[vv] == idx[vv]) {
          for (;;) {
            const uint32_t w = st.back();
            st.pop_back();
            on[w] = false;
            comp[w] = ncomp;
            if (w == vv) break;
          }
          ++ncomp;
        }
      }
    }
  }
  std::vector<uint64_t> cw(size_t(ncomp), 0);
  std::vector<uint32_t> csize(size_t(ncomp), 0);
  std::vector<bool> cyclic(size_t(ncomp), false);
  for (uint32_t b = 0; b < nb; ++b) {
    ++csize[size_t(comp[b])];
    for (uint32_t s : f.blocks[b].succs)
      if (s == b) cyclic[size_t(comp[b])] = true;
  }
  for (uint32_t b = 0; b < nb; ++b) {
    const size_t c = size_t(comp[b]);
    uint64_t n = 0;
    for (uint32_t i = f.blocks[b].first; i < f.blocks[b].last; ++i) n += in_range[i] ? 1 : 0;
    cw[c] += n * ((cyclic[c] || csize[c] > 1) ? 1024 : 1);
  }
  // Longest path over the condensation (components in reverse topological order: a successor
  // component has a smaller number).
  std::vector<uint64_t> best(size_t(ncomp), 0);
  for (int32_t c = 0; c < ncomp; ++c) {
    uint64_t m = 0;
    for (uint32_t b = 0; b < nb; ++b) {
      if (comp[b] != c) continue;
      for (uint32_t s : f.blocks[b].succs)
        if (comp[s] != c) m = std::max(m, best[size_t(comp[s])]);
    }
    best[size_t(c)] = cw[size_t(c)] + m;
  }
  return best[size_t(comp[0])];
}

std::vector<std::pair<uint32_t, uint32_t>> critical_edges(const Function& f) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    const BasicBlock& bb = f.blocks[b];
    const size_t nsucc = bb.succs.size() + (to_exit(f, bb) && bb.succs.size() ? 1 : 0);
    if (nsucc < 2) continue;
    for (uint32_t s : bb.succs)
      if (f.blocks[s].preds.size() + (s == 0 ? 1 : 0) >= 2) out.push_back({b, s});
  }
  return out;
}

namespace {

// Safe analysis: reach[b] = a shared-region access is reachable from the start of b
// (SafeIN = !reach_in, SafeOUT = !reach_out).
void safe_analysis(const Function& f, const std::vector<bool>& acc, std::vector<bool>& has,
                   std::vector<bool>& reach_in, std::vector<bool>& reach_out) {
  const size_t nb = f.blocks.size();
  has.assign(nb, false);
  for (size_t b = 0; b < nb; ++b)
    for (uint32_t i = f.blocks[b].first; i < f.blocks[b].last; ++i)
      if (acc[i]) has[b] = true;
  reach_in.assign(nb, false);
  reach_out.assign(nb, false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = nb; k-- > 0;) {
      bool out = false;
      for (uint32_t s : f.blocks[k].succs) out = out || reach_in[s];
      const bool in = has[k] || out;
      if (out != reach_out[k] || in != reach_in[k]) changed = true;
      reach_out[k] = out;
      reach_in[k] = in;
    }
  }
}

uint32_t last_access(const Function& f, const std::vector<bool>& acc, uint32_t b) {
  uint32_t last = f.blocks[b].first;
  for (uint32_t i = f.blocks[b].first; i < f.blocks[b].last; ++i)
    if (acc[i]) last = i;
  return last;
}

}  // namespace

RelsspPlacement place_relssp_opt(const Function& f, const std::vector<bool>& acc) {
  RelsspPlacement p;
  std::vector<bool> has, rin, rout;
  safe_analysis(f, acc, has, rin, rout);
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    const BasicBlock& bb = f.blocks[b];
    if (!bb.reachable) continue;
    const bool safe_in = !rin[b], safe_out = !rout[b];
    if (safe_out && !safe_in) p.after_inst.push_back(last_access(f, acc, b));  // eq. 3.1
    if (!safe_in || b == 0) continue;
    // eq. 3.2: SafeIN(B) and some predecessor is not SafeOUT.
    std::vector<uint32_t> unsafe_preds;
    for (uint32_t q : bb.preds)
      if (f.blocks[q].reachable && rout[q]) unsafe_preds.push_back(q);
    if (unsafe_preds.empty()) continue;
    size_t live_preds = 0;
    for (uint32_t q : bb.preds) live_preds += f.blocks[q].reachable ? 1 : 0;
    if (live_preds == 1) {
      p.before_inst.push_back(bb.first);
    } else {
      for (uint32_t q : unsafe_preds) p.edges.push_back({q, b});  // critical: split
    }
  }
  return p;
}

RelsspPlacement place_relssp_postdom(const Function& f, const std::vector<bool>& acc) {
  RelsspPlacement p;
  std::vector<bool> has, rin, rout;
  safe_analysis(f, acc, has, rin, rout);
  const int32_t X = -1;
  auto depth = [&](int32_t b) {
    int n = 0;
    while (b != X) {
      b = f.blocks[size_t(b)].ipdom;
      ++n;
    }
    return n;
  };
  auto meet = [&](int32_t a, int32_t b) {
    int da = depth(a), db = depth(b);
    while (da > db) a = f.blocks[size_t(a)].ipdom, --da;
    while (db > da) b = f.blocks[size_t(b)].ipdom, --db;
    while (a != b) a = f.blocks[size_t(a)].ipdom, b = f.blocks[size_t(b)].ipdom;
    return a;
  };
  bool first = true;
  int32_t d = X;
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    if (!has[b] || !f.blocks[b].reachable) continue;
    d = first ? int32_t(b) : meet(d, int32_t(b));
    first = false;
  }
  if (first) return p;  // no shared-region access
  d = meet(d, 0);       // and on every path: it post-dominates the entry (dominates Exit)
  auto on_cycle = [&](uint32_t b) {
    std::vector<bool> seen(f.blocks.size(), false);
    std::vector<uint32_t> st(f.blocks[b].succs.begin(), f.blocks[b].succs.end());
    while (!st.empty()) {
      const uint32_t v = st.back();
      st.pop_back();
      if (v == b) return true;
      if (seen[v]) continue;
      seen[v] = true;
      for (uint32_t s : f.blocks[v].succs) st.push_back(s);
    }
    return false;
  };
  while (d != X && (rout[size_t(d)] || on_cycle(uint32_t(d)))) d = f.blocks[size_t(d)].ipdom;
  if (d == X) {  // before every unguarded ret/exit (after the block's last access)
    for (uint32_t b = 0; b < f.blocks.size(); ++b) {
      const BasicBlock& bb = f.blocks[b];
      const Instruction& last = f.insts[bb.last - 1];
      if (bb.reachable && (last.op == Op::ret || last.op == Op::exit) && last.guard < 0)
        p.before_inst.push_back(bb.last - 1);
    }
    return p;
  }
  if (has[size_t(d)])
    p.after_inst.push_back(last_access(f, acc, uint32_t(d)));
  else
    p.before_inst.push_back(f.blocks[size_t(d)].first);
  return p;
}

namespace {

Instruction make_inst(Op op, const Instruction& near) {
  Instruction in;
  in.op = op;
  in.flags = 0;
  in.exec = classify(in);
  in.line = near.line;
  in.col = near.col;
  in.src_file = near.src_file;
  in.src_line = near.src_line;
  in.src_col = near.src_col;
  in.text = op == Op::relssp ? std::string_view("relssp;") : std::string_view("bra (split edge);");
  return in;
}

// Inserts relssp per `p` (when with_relssp) or empty split blocks, and splits `p.edges`.
uint32_t transform(Function& f, const RelsspPlacement& p, bool with_relssp, uint32_t* skipped) {
  const uint32_t n = uint32_t(f.insts.size());
  std::vector<uint32_t> after_count(n + 1, 0), start_count(n + 1, 0);
  if (with_relssp) {
    for (uint32_t i : p.after_inst)
      if (i < n) ++after_count[i];
    for (uint32_t i : p.before_inst)
      if (i < n) ++start_count[i];
  }
  // Edges: fall-through edges get a block right after the source; taken edges a block at the
  // end of the function. Every split block ends with `bra <target>`.
  struct Split {
    uint32_t from, to;
    bool fall;
    uint32_t label = 0;  // new label of a taken-edge block
  };
  std::vector<Split> splits;
  uint32_t skip = 0;
  for (auto [a, b] : p.edges) {
    const BasicBlock& ba = f.blocks[a];
    const Instruction& last = f.insts[ba.last - 1];
    const bool guarded_bra = last.op == Op::bra && last.guard >= 0;
    const uint32_t target_inst =
        guarded_bra ? uint32_t(f.label_target[last.ops[0].id]) : UINT32_MAX;
    const bool taken = guarded_bra && target_inst == f.blocks[b].first;
    const bool fall = guarded_bra && ba.last == f.blocks[b].first && !taken;
    // B needs a label for the split block's branch.
    bool has_label = false;
    for (int32_t t : f.label_target) has_label |= t == int32_t(f.blocks[b].first);
    if ((!taken && !fall) || !has_label) {
      ++skip;
      continue;
    }
    splits.push_back({a, b, fall});
  }
  // The last instruction must not fall off the end if blocks are appended there.
  const bool appends =
      std::any_of(splits.begin(), splits.end(), [](const Split& s) { return !s.fall; });
  if (appends) {
    const Instruction& last = f.insts[n - 1];
    const bool terminal =
        (last.op == Op::ret || last.op == Op::exit || last.op == Op::bra) && last.guard < 0;
    bool end_label = false;
    for (int32_t t : f.label_target) end_label |= t == int32_t(n);
    if (!terminal || end_label) {
      for (auto it = splits.begin(); it != splits.end();)
        if (!it->fall) {
          ++skip;
          it = splits.erase(it);
        } else {
          ++it;
        }
    }
  }
  auto label_of = [&](uint32_t inst) -> uint32_t {
    for (uint32_t l = 0; l < f.label_target.size(); ++l)
      if (f.label_target[l] == int32_t(inst)) return l;
    return UINT32_MAX;
  };
  auto bra_to = [&](uint32_t label, const Instruction& near) {
    Instruction in = make_inst(Op::bra, near);
    in.exec = ExecClass::branch;
    Operand o;
    o.kind = OperandKind::label;
    o.id = label;
    in.ops.push_back(o);
    return in;
  };
  std::vector<std::vector<uint32_t>> fall_after(n);  // split blocks after inst i (fall edges)
  std::vector<uint32_t> taken_splits;
  for (uint32_t k = 0; k < splits.size(); ++k) {
    if (splits[k].fall)
      fall_after[f.blocks[splits[k].from].last - 1].push_back(k);
    else
      taken_splits.push_back(k);
  }
  for (uint32_t k : taken_splits) {
    splits[k].label = uint32_t(f.label_names.size());
    f.label_names.push_back(fmt::format("$__relssp_split{}", k));
    f.label_target.push_back(-1);
  }
  const uint32_t old_labels = uint32_t(f.label_target.size());
  std::vector<Instruction> out;
  out.reserve(n + p.after_inst.size() + 3 * splits.size() + 4);
  std::vector<int32_t> new_index(n + 1, 0);
  uint32_t inserted = 0;
  for (uint32_t i = 0; i <= n; ++i) {
    if (i > 0) {
      const Instruction& prev = f.insts[i - 1];
      for (uint32_t c = 0; c < after_count[i - 1]; ++c, ++inserted)
        out.push_back(make_inst(Op::relssp, prev));
      for (uint32_t k : fall_after[i - 1]) {
        if (with_relssp) {
          out.push_back(make_inst(Op::relssp, prev));
          ++inserted;
        }
        out.push_back(bra_to(label_of(f.blocks[splits[k].to].first), prev));
      }
    }
    new_index[i] = int32_t(out.size());
    if (i == n) break;
    for (uint32_t c = 0; c < start_count[i]; ++c, ++inserted)
      out.push_back(make_inst(Op::relssp, f.insts[i]));
    out.push_back(std::move(f.insts[i]));
  }
  for (uint32_t l = 0; l < old_labels; ++l)
    if (f.label_target[l] >= 0) f.label_target[l] = new_index[uint32_t(f.label_target[l])];
  for (uint32_t k : taken_splits) {
    const Split& s = splits[k];
    // Retarget the source's branch (now at its new index) to the split block.
    const uint32_t src_last = uint32_t(new_index[f.blocks[s.from].last - 1]);
    const uint32_t to_label = out[src_last].ops[0].id;
    out[src_last].ops[0].id = s.label;
    f.label_target[s.label] = int32_t(out.size());
    Instruction rel = make_inst(Op::relssp, out[src_last]);
    Instruction bra = bra_to(to_label, out[src_last]);
    if (with_relssp) {
      out.push_back(std::move(rel));
      ++inserted;
    }
    out.push_back(std::move(bra));
  }
  (void)inserted;
  f.insts = std::move(out);
  build_cfg(f);
  if (skipped) *skipped = skip;
  return uint32_t(splits.size());
}

}  // namespace

uint32_t apply_relssp(Function& f, const RelsspPlacement& p, uint32_t* skipped) {
  return transform(f, p, true, skipped);
}

uint32_t split_edges(Function& f, const std::vector<std::pair<uint32_t, uint32_t>>& edges) {
  RelsspPlacement p;
  p.edges = edges;
  return transform(f, p, false, nullptr);
}

std::vector<RelsspReport> run_relssp_passes(Module& m, const RelsspOptions& o) {
  std::vector<RelsspReport> reps;
  for (uint32_t fi = 0; fi < m.funcs.size(); ++fi) {
    Function& f = m.funcs[fi];
    if (!f.is_entry || !f.defined || f.insts.empty()) continue;
    RelsspReport r;
    r.kernel = f.name;
    KernelLayout lay = layout_kernel(m, fi);
    r.static_shared = lay.static_shared;
    r.boundary = uint32_t(std::floor(o.t * double(lay.static_shared) + 1e-9));
    const std::vector<SmemAccess> acc = smem_accesses(m, f);
    if (o.minimize) {
      // The kernel's static .shared variables it accesses, in layout order.
      std::vector<uint32_t> vars;
      for (const SmemAccess& a : acc)
        for (uint32_t v : a.vars)
          if (lay.shared_offset.count(v) && m.vars[v].size && !m.vars[v].unsized &&
              std::find(vars.begin(), vars.end(), v) == vars.end())
            vars.push_back(v);
      std::sort(vars.begin(), vars.end(), [&](uint32_t a, uint32_t b) {
        return lay.shared_offset[a] < lay.shared_offset[b];
      });
      const uint64_t need = lay.static_shared - r.boundary;  // bytes of the shared region
      if (vars.size() >= 2 && vars.size() <= 16) {
        uint64_t best_mask = 0, best_w = UINT64_MAX;
        // The default layout's high-offset set first, so ties keep it.
        uint64_t def = 0, sum = 0;
        for (size_t k = vars.size(); k-- > 0 && sum < need;) {
          def |= uint64_t(1) << k;
          sum += m.vars[vars[k]].size;
        }
        auto consider = [&](uint64_t mask) {
          uint64_t s = 0;
          for (size_t k = 0; k < vars.size(); ++k)
            if ((mask >> k) & 1) s += m.vars[vars[k]].size;
          if (s < need) return;
          // Minimal sets only: no proper subset also covers the region.
          for (size_t k = 0; k < vars.size(); ++k)
            if (((mask >> k) & 1) && s - m.vars[vars[k]].size >= need) return;
          const uint64_t w = range_weight(f, in_access_range(f, acc, vars, mask));
          if (w < best_w) best_w = w, best_mask = mask;
        };
        consider(def);
        for (uint64_t mask = 1; mask < (uint64_t(1) << vars.size()); ++mask)
          if (mask != def) consider(mask);
        if (best_mask && best_mask != def) {
          for (size_t k = 0; k < vars.size(); ++k)
            if ((best_mask >> k) & 1) r.high_vars.push_back(vars[k]);
          f.shared_high = r.high_vars;
          lay = layout_kernel(m, fi);
        }
      }
    }
    const std::vector<bool> sh = shared_region_accesses(m, acc, lay.shared_offset, r.boundary);
    for (size_t i = 0; i < acc.size(); ++i) {
      r.accesses += acc[i].any() ? 1 : 0;
      r.shared_accesses += sh[i] ? 1 : 0;
    }
    if (o.mode != RelsspOptions::Mode::none && r.shared_accesses) {
      const RelsspPlacement p = o.mode == RelsspOptions::Mode::opt ? place_relssp_opt(f, sh)
                                                                   : place_relssp_postdom(f, sh);
      const size_t before = f.insts.size();
      r.split = apply_relssp(f, p, &r.skipped);
      r.inserted = uint32_t(f.insts.size() - before) - r.split;
    }
    reps.push_back(std::move(r));
  }
  return reps;
}

std::string format_relssp_reports(const Module& m, const std::vector<RelsspReport>& reps) {
  std::string s;
  for (const RelsspReport& r : reps) {
    s += fmt::format(
        "// relssp: kernel {}: static scratchpad {} B, shared region from offset {}; {} "
        "scratchpad accesses, {} may touch the shared region; {} relssp inserted, {} edges split",
        r.kernel, r.static_shared, r.boundary, r.accesses, r.shared_accesses, r.inserted, r.split);
    if (r.skipped) s += fmt::format(", {} edges not splittable (left without relssp)", r.skipped);
    if (!r.high_vars.empty()) {
      s += "; minimize: high offsets:";
      for (uint32_t v : r.high_vars) s += " " + m.vars[v].name;
    }
    s += "\n";
  }
  return s;
}

}  // namespace simtlab::ptx
