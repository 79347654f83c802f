#include "ptx/regalloc.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "ptx/cfg.h"

namespace simtlab::ptx {

namespace {

uint32_t width_of_bytes(uint32_t bytes) { return bytes <= 4 ? 1 : (bytes + 3) / 4; }

uint32_t align_of(uint32_t w) {
  uint32_t a = 1;
  while (a < w && a < 8) a <<= 1;
  return a;
}

bool needs_consecutive(Op op) {
  switch (op) {
    case Op::ld:
    case Op::ldu:
    case Op::st:
    case Op::tex:
    case Op::tld4:
    case Op::suld:
    case Op::sust:
    case Op::ldmatrix:
    case Op::stmatrix:
      return true;
    default:
      return false;
  }
}

struct Hint {
  uint32_t other;  // register whose base this one prefers
  int32_t off;     // preferred base = base(other) + off
};

}  // namespace

RegAlloc allocate_registers(const Function& f, const RegAllocOptions& opt) {
  const size_t nr = f.regs.size(), ni = f.insts.size();
  RegAlloc A;
  A.regs.resize(nr);
  A.live_in.assign(ni, 0);
  A.live_out.assign(ni, 0);
  for (size_t r = 0; r < nr; ++r) {
    const Register& reg = f.regs[r];
    A.regs[r].pred = reg.is_pred();
    A.regs[r].width =
        uint8_t(reg.is_pred() ? 1 : width_of_bytes(type_size(reg.type) * std::max(1u, reg.vec)));
  }
  auto width = [&](uint32_t r) { return uint32_t(A.regs[r].width); };
  auto slots = [&](const BitSet& s, uint32_t& preds) {
    uint32_t n = 0;
    preds = 0;
    s.for_each([&](size_t r) {
      if (A.regs[r].pred)
        ++preds;
      else
        n += width(uint32_t(r));
    });
    return n;
  };

  // ---- liveness, interference, first definitions ----
  const Liveness L = compute_liveness(f);
  // Adjacency lists (memory in the number of edges, not registers squared), deduplicated below.
  std::vector<std::vector<uint32_t>> adj(nr);
  auto edge = [&](uint32_t a, uint32_t b) {
    if (a == b || A.regs[a].pred != A.regs[b].pred) return;
    adj[a].push_back(b);
    adj[b].push_back(a);
  };
  std::vector<bool> used(nr, false);
  constexpr uint32_t kNoDef = UINT32_MAX;
  std::vector<uint32_t> first_def(nr, kNoDef);
  std::vector<uint32_t> uses, defs;
  for (size_t bi = 0; bi < f.blocks.size(); ++bi) {
    const BasicBlock& b = f.blocks[bi];
    BitSet live = L.blocks.out[bi];
    for (uint32_t i = b.last; i-- > b.first;) {
      const Instruction& in = f.insts[i];
      inst_defs(in, defs);
      inst_uses(in, uses);
      uint32_t pr = 0;
      A.live_out[i] = slots(live, pr);
      BitSet with_defs = live;
      for (uint32_t d : defs) with_defs.set(d);
      A.max_live = std::max(A.max_live, slots(with_defs, pr));
      A.max_live_preds = std::max(A.max_live_preds, pr);
      // A plain same-width copy may share its source's register.
      int64_t copy_src = -1;
      if (in.op == Op::mov && in.ops.size() == 2 && in.ops[0].kind == OperandKind::reg &&
          in.ops[1].kind == OperandKind::reg && width(in.ops[0].id) == width(in.ops[1].id))
        copy_src = in.ops[1].id;
      for (uint32_t d : defs) {
        used[d] = true;
        first_def[d] = std::min(first_def[d], i);
        live.for_each([&](size_t v) {
          if (int64_t(v) != copy_src) edge(d, uint32_t(v));
        });
        for (uint32_t d2 : defs) edge(d, d2);
      }
      if (in.guard < 0)
        for (uint32_t d : defs) live.reset(d);
      for (uint32_t u : uses) {
        used[u] = true;
        live.set(u);
      }
      A.live_in[i] = slots(live, pr);
      A.max_live = std::max(A.max_live, A.live_in[i]);
      A.max_live_preds = std::max(A.max_live_preds, pr);
    }
    // Values live into the entry (or a block nobody jumps to) were never defined on the way
    // there: they coexist. Block 0 is the entry even when a loop jumps back to it.
    if (bi == 0 || b.preds.empty()) {
      std::vector<uint32_t> in_regs;
      live.for_each([&](size_t r) { in_regs.push_back(uint32_t(r)); });
      for (uint32_t x : in_regs)
        for (uint32_t y : in_regs) edge(x, y);
    }
  }

  for (auto& l : adj) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
  }

  // ---- allocation units: one per register, merged for consecutive vector operands ----
  std::vector<uint32_t> unit_of(nr), offset(nr, 0);
  std::iota(unit_of.begin(), unit_of.end(), 0u);
  std::vector<std::vector<uint32_t>> members(nr);
  std::vector<uint32_t> unit_width(nr);
  for (uint32_t r = 0; r < nr; ++r) {
    members[r] = {r};
    unit_width[r] = width(r);
  }
  std::vector<std::vector<Hint>> hints(nr);
  for (uint32_t i = 0; i < ni; ++i) {
    const Instruction& in = f.insts[i];
    if (in.op == Op::mov && in.ops.size() == 2) {
      const Operand &a = in.ops[0], &b = in.ops[1];
      if (a.kind == OperandKind::reg && b.kind == OperandKind::reg && width(a.id) == width(b.id)) {
        hints[a.id].push_back({b.id, 0});
        hints[b.id].push_back({a.id, 0});
      }
      // 64-bit pack/unpack: mov.b64 %rd, {%r1, %r2} / mov.b64 {%r1, %r2}, %rd.
      const Operand* whole = a.kind == OperandKind::reg ? &a : &b;
      const Operand* parts = a.kind == OperandKind::vec ? &a : &b;
      if (whole->kind == OperandKind::reg && parts->kind == OperandKind::vec) {
        int32_t off = 0;
        bool ok = true;
        for (unsigned k = 0; k < parts->count; ++k) {
          const Operand& e = in.elem(*parts, k);
          if (e.kind != OperandKind::reg) {
            ok = false;
            break;
          }
          off += int32_t(width(e.id));
        }
        if (ok && uint32_t(off) == width(whole->id)) {
          off = 0;
          for (unsigned k = 0; k < parts->count; ++k) {
            const uint32_t e = in.elem(*parts, k).id;
            hints[e].push_back({whole->id, off});
            hints[whole->id].push_back({e, -off});
            off += int32_t(width(e));
          }
        }
      }
      continue;
    }
    if (!needs_consecutive(in.op)) continue;
    for (const Operand& o : in.ops) {
      if (o.kind != OperandKind::vec || o.count < 2) continue;
      const uint32_t ew = width_of_bytes(type_size(in.type));
      const uint32_t total = ew * o.count;
      bool ok = true;
      uint32_t singles = 0;
      int64_t same_unit = -1;
      std::vector<uint32_t> regs;
      for (unsigned k = 0; k < o.count && ok; ++k) {
        const Operand& e = in.elem(o, k);
        if (e.kind != OperandKind::reg) continue;
        if (A.regs[e.id].pred || width(e.id) != ew ||
            std::find(regs.begin(), regs.end(), e.id) != regs.end()) {
          ok = false;
          break;
        }
        regs.push_back(e.id);
        const uint32_t u = unit_of[e.id];
        if (u == e.id && members[u].size() == 1 && unit_width[u] == ew) {
          ++singles;
        } else {
          if (same_unit == -1) same_unit = u;
          if (int64_t(u) != same_unit || offset[e.id] != k * ew || unit_width[u] != total)
            ok = false;
        }
      }
      const bool any_reg = !regs.empty();
      const bool all_single = singles == regs.size();
      if (!any_reg) continue;
      if (ok && all_single) {
        // A new unit owned by the first member.
        const uint32_t owner = regs.front();
        members[owner].clear();
        for (unsigned k = 0; k < o.count; ++k) {
          const Operand& e = in.elem(o, k);
          if (e.kind != OperandKind::reg) continue;
          unit_of[e.id] = owner;
          offset[e.id] = k * ew;
          members[owner].push_back(e.id);
          if (e.id != owner) members[e.id].clear();
        }
        unit_width[owner] = total;
      } else if (ok && singles == 0 && members[size_t(same_unit)].size() == regs.size()) {
        // The same vector again (e.g. loaded, then stored).
      } else {
        A.vector_fixups.push_back(i);
      }
    }
  }

  // ---- greedy colouring: in order of first definition, and with the 64-bit and wider units
  // first (pairs placed before single registers fragment the file); the lower count wins ----
  std::vector<uint32_t> order;
  for (uint32_t u = 0; u < nr; ++u) {
    if (members[u].empty()) continue;
    bool any = false;
    for (uint32_t m : members[u]) any = any || used[m];
    if (any) order.push_back(u);
  }
  auto unit_first_def = [&](uint32_t u) {
    uint32_t d = kNoDef;
    bool entry = false;
    for (uint32_t m : members[u]) {
      if (first_def[m] == kNoDef) entry = true;
      d = std::min(d, first_def[m]);
    }
    return entry ? 0u : d + 1;  // live-in values first
  };
  std::vector<uint32_t> key(nr, 0);
  for (uint32_t u : order) key[u] = unit_first_def(u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    if (key[x] != key[y]) return key[x] < key[y];
    return unit_width[x] > unit_width[y];
  });
  const std::vector<ArchReg> unassigned = A.regs;
  auto colour = [&](const std::vector<uint32_t>& ord) {
    A.regs = unassigned;
    A.count = A.pred_count = 0;
    for (uint32_t u : ord) {
      const uint32_t uw = unit_width[u], al = align_of(uw);
      const bool pred = A.regs[members[u].front()].pred;
      // Slots each member may not use: those of its allocated neighbours.
      std::vector<std::vector<bool>> busy(members[u].size());
      uint32_t top = 0;
      for (size_t k = 0; k < members[u].size(); ++k) {
        const uint32_t m = members[u][k];
        if (!pred)
          for (const uint32_t r : opt.reserved) {
            if (busy[k].size() <= r) busy[k].resize(r + 1, false);
            busy[k][r] = true;
            top = std::max(top, r + 1);
          }
        for (const uint32_t v : adj[m]) {
          const ArchReg& n = A.regs[v];
          if (n.base < 0) continue;
          const uint32_t e = uint32_t(n.base) + n.width;
          if (busy[k].size() < e) busy[k].resize(e, false);
          for (uint32_t s = uint32_t(n.base); s < e; ++s) busy[k][s] = true;
          top = std::max(top, e);
        }
      }
      auto fits = [&](int64_t b) {
        if (b < 0 || b % al) return false;
        for (size_t k = 0; k < members[u].size(); ++k) {
          const uint32_t m = members[u][k];
          for (uint32_t s = uint32_t(b) + offset[m], e = s + width(m); s < e; ++s)
            if (s < busy[k].size() && busy[k][s]) return false;
        }
        return true;
      };
      int64_t base = -1;
      for (uint32_t m : members[u])
        for (const Hint& h : hints[m]) {
          const ArchReg& o = A.regs[h.other];
          if (base < 0 && o.base >= 0 && o.pred == pred) {
            const int64_t b = int64_t(o.base) + h.off - int64_t(offset[m]);
            if (fits(b)) base = b;
          }
        }
      // A single register first fills the free half of a pair whose other half is taken, so
      // that whole pairs stay free for 64-bit values.
      if (base < 0 && uw == 1 && !pred)
        for (uint32_t b = 0; b < top && base < 0; ++b)
          if ((b ^ 1) < busy[0].size() && busy[0][b ^ 1] && fits(b)) base = b;
      for (int64_t b = 0; base < 0; b += al)
        if (fits(b) || b > int64_t(top)) base = b;
      for (uint32_t m : members[u]) {
        A.regs[m].base = int32_t(base + offset[m]);
        uint32_t& cnt = pred ? A.pred_count : A.count;
        cnt = std::max(cnt, uint32_t(A.regs[m].base) + width(m));
      }
    }
  };
  colour(order);
  std::vector<uint32_t> wide_first = order;
  std::stable_partition(wide_first.begin(), wide_first.end(),
                        [&](uint32_t u) { return unit_width[u] > 1; });
  if (wide_first != order) {
    const std::vector<ArchReg> best = A.regs;
    const uint32_t best_count = A.count, best_preds = A.pred_count;
    colour(wide_first);
    if (A.count > best_count || (A.count == best_count && A.pred_count >= best_preds)) {
      A.regs = best;
      A.count = best_count;
      A.pred_count = best_preds;
    }
  }
  // Unreferenced registers stay unallocated.
  for (uint32_t r = 0; r < nr; ++r)
    if (!used[r]) A.regs[r].base = -1;

  for (const uint32_t r : opt.reserved) A.count = std::max(A.count, r + 1);
  if (A.count > opt.cap) A.note = fmt::format("needs {} > cap {} registers", A.count, opt.cap);
  if (A.pred_count > opt.pred_cap)
    A.note += fmt::format("{}needs {} > cap {} predicates", A.note.empty() ? "" : "; ",
                          A.pred_count, opt.pred_cap);
  A.over_cap = !A.note.empty();
  return A;
}

std::string arch_reg_name(const ArchReg& r) {
  if (r.base < 0) return "-";
  if (r.pred) return fmt::format("P{}", r.base);
  if (r.width == 1) return fmt::format("R{}", r.base);
  if (r.width == 2) return fmt::format("R{}:R{}", r.base, r.base + 1);
  return fmt::format("R{}..R{}", r.base, r.base + r.width - 1);
}

std::string format_allocation(const Function& f, const RegAlloc& a, bool map) {
  std::string s = fmt::format(
      "function {}: {} registers, {} predicates (max live {} registers, {} predicates){}{}\n",
      f.name, a.count, a.pred_count, a.max_live, a.max_live_preds, a.note.empty() ? "" : "; ",
      a.note);
  if (!a.vector_fixups.empty())
    s += fmt::format("  {} vector operands need moves (not consecutive)\n", a.vector_fixups.size());
  std::vector<uint32_t> regs;
  auto names = [&](const std::vector<uint32_t>& rs) {
    std::string out;
    for (uint32_t r : rs) {
      if (!out.empty()) out += ' ';
      out += arch_reg_name(a.regs[r]);
    }
    return out.empty() ? std::string("-") : out;
  };
  for (size_t i = 0; i < f.insts.size(); ++i) {
    const Instruction& in = f.insts[i];
    std::string text(in.text);
    const size_t b = text.find_first_not_of(" \t");
    text = b == std::string::npos ? std::string() : text.substr(b);
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
    inst_defs(in, regs);
    const std::string w = names(regs);
    inst_uses(in, regs);
    const std::string r = names(regs);
    const bool fix =
        std::find(a.vector_fixups.begin(), a.vector_fixups.end(), i) != a.vector_fixups.end();
    s += fmt::format("  {:5} live {:3} -> {:3}  {:<48}  W: {}  R: {}{}\n", i, a.live_in[i],
                     a.live_out[i], text, w, r, fix ? "  (vector needs moves)" : "");
  }
  if (map) {
    s += "  registers:\n";
    for (size_t r = 0; r < f.regs.size(); ++r)
      if (a.regs[r].base >= 0)
        s += fmt::format("    {:<12} {}\n", f.regs[r].name, arch_reg_name(a.regs[r]));
  }
  return s;
}

}  // namespace simtlab::ptx
