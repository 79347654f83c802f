#include "ptx/regalloc.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
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

// Instructions whose register operands SASS cannot take from the constant bank.
bool needs_register_operands(Op op) {
  switch (op) {
    case Op::ld:
    case Op::ldu:
    case Op::st:
    case Op::atom:
    case Op::red:
    case Op::tex:
    case Op::tld4:
    case Op::suld:
    case Op::sust:
    case Op::cp:
    case Op::prefetch:
    case Op::prefetchu:
    case Op::ldmatrix:
    case Op::stmatrix:
    case Op::mbarrier:
    case Op::wmma:
    case Op::wgmma:
    case Op::mma:
    case Op::call:
    case Op::shfl:
    case Op::match:
    case Op::redux:
    case Op::vote:
      return true;
    default:
      return false;
  }
}

bool hoistable_load(const Function& f, const Instruction& in) {
  if (in.ndst == 0) return false;
  switch (in.op) {
    case Op::ld:
      return in.space != Space::param && !in.has(IF_VOLATILE) &&
             (in.sem == Sem::none || in.sem == Sem::weak);
    case Op::ldu:
    case Op::tex:
    case Op::tld4:
    case Op::suld:
      return true;
    default:
      (void)f;
      return false;
  }
}

bool read_only_load(const Instruction& in) {
  return in.op == Op::ldu || in.op == Op::tex || in.op == Op::tld4 || in.has(IF_NC) ||
         (in.op == Op::ld && in.space == Space::const_);
}

// May `p` not move below `load` (in a schedule that issues the load earlier)?
bool blocks_hoist(const Instruction& p, const Instruction& load) {
  switch (p.op) {
    case Op::bar:
    case Op::barrier:
    case Op::membar:
    case Op::fence:
    case Op::atom:
    case Op::red:
    case Op::call:
    case Op::ret:
    case Op::exit:
    case Op::mbarrier:
    case Op::cp:
    case Op::griddepcontrol:
    case Op::nanosleep:
    case Op::trap:
    case Op::brkpt:
      return true;
    case Op::st:
      if (read_only_load(load)) return false;
      return p.space == load.space || p.space == Space::generic || load.space == Space::generic;
    case Op::sust:
    case Op::stmatrix:
    case Op::wmma:
      return !read_only_load(load);
    default:
      return false;
  }
}

// Per instruction, the off-register values that need a (temporary) register there: every
// use and definition of a spilled value; a constant-bank value used by an instruction that
// cannot read the bank, or beyond the first bank operand of an ALU instruction.
std::vector<std::vector<uint32_t>> temp_needs(const Function& f, const std::vector<RegHome>& home) {
  const size_t ni = f.insts.size();
  std::vector<std::vector<uint32_t>> temps(ni);
  std::vector<uint32_t> uses, defs;
  for (uint32_t i = 0; i < ni; ++i) {
    const Instruction& in = f.insts[i];
    inst_uses(in, uses);
    inst_defs(in, defs);
    auto add = [&](uint32_t r) {
      if (std::find(temps[i].begin(), temps[i].end(), r) == temps[i].end()) temps[i].push_back(r);
    };
    bool const_copy = !defs.empty();  // a copy between constant-bank values: no instruction
    for (uint32_t d : defs) const_copy = const_copy && home[d] == RegHome::constant;
    uint32_t free_const = needs_register_operands(in.op) || const_copy ? 0 : 1;
    for (uint32_t u : uses) {
      if (home[u] == RegHome::spill) add(u);
      if (home[u] != RegHome::constant || const_copy) continue;
      if (std::find(temps[i].begin(), temps[i].end(), u) != temps[i].end()) continue;
      if (free_const) {
        --free_const;
        continue;
      }
      add(u);
    }
    for (uint32_t d : defs)
      if (home[d] == RegHome::spill) add(d);
  }
  return temps;
}

// Transpose a 64x64 bit block in place: bit c of word r <-> bit r of word c (bit 0 = LSB).
void transpose64(uint64_t a[64]) {
  uint64_t m = 0x00000000FFFFFFFFull;
  for (unsigned j = 32; j; j >>= 1, m ^= m << j)
    for (unsigned k = 0; k < 64; k = ((k | j) + 1) & ~j) {
      const uint64_t t = ((a[k] >> j) ^ a[k | j]) & m;
      a[k] ^= t << j;
      a[k | j] ^= t;
    }
}

// The interference graph, in one of two forms:
//  - a bit matrix (when n^2 / 8 bytes is less than the edge lists could take): a definition's
//    edges to everything live go into its row as words (one per 64 registers), one direction
//    only; finish() adds the other direction by 64x64 block transposes. A clique of N values
//    live at once (N^2 / 2 edges) costs O(N^2 / 64) word operations.
//  - per register a list while it is sparse, a bit row once it is dense (huge functions with
//    few values live at once: memory proportional to the edges), both directions added.
class Interference {
 public:
  Interference(size_t n, bool matrix)
      : n_(n), words_((n + 63) / 64), matrix_(matrix), rows_(matrix ? 0 : n) {
    if (matrix_) bits_.assign(words_ * 64 * words_, 0);  // rows padded to 64 (transposes)
  }
  void add(uint32_t a, uint32_t b) {
    if (matrix_) {
      row(a)[b >> 6] |= uint64_t(1) << (b & 63);
      return;
    }
    add_one(a, b);
    add_one(b, a);
  }
  /// Edges from `a` to the members of `s` except `a` and `except` (-1: none; an edge to it
  /// from elsewhere stays). The members must be of `a`'s register file.
  void add_set(uint32_t a, const BitSet& s, int64_t except) {
    if (matrix_) {
      uint64_t* r = row(a);
      const bool had = except >= 0 && ((r[size_t(except) >> 6] >> (except & 63)) & 1);
      size_t w = 0;
      s.for_each_word([&](uint64_t x) { r[w++] |= x; });
      r[a >> 6] &= ~(uint64_t(1) << (a & 63));
      if (except >= 0 && !had) r[size_t(except) >> 6] &= ~(uint64_t(1) << (except & 63));
      return;
    }
    Row& r = rows_[a];
    if (r.dense) {
      const bool had = except >= 0 && r.bits.test(size_t(except));
      r.bits |= s;
      r.bits.reset(a);
      if (except >= 0 && !had) r.bits.reset(size_t(except));
    } else {
      s.for_each([&](size_t v) {
        if (v != a && int64_t(v) != except) add_one(a, uint32_t(v));
      });
    }
    s.for_each([&](size_t v) {
      if (v != a && int64_t(v) != except) add_one(uint32_t(v), a);
    });
  }
  /// Make the graph symmetric (matrix) or sort and deduplicate the lists, before for_each.
  void finish() {
    if (matrix_) {
      uint64_t x[64], y[64];
      for (size_t bi = 0; bi < words_; ++bi)
        for (size_t bj = bi; bj < words_; ++bj) {
          uint64_t any = 0;
          for (size_t r = 0; r < 64; ++r) {
            x[r] = bits_[(bi * 64 + r) * words_ + bj];
            y[r] = bits_[(bj * 64 + r) * words_ + bi];
            any |= x[r] | y[r];
          }
          if (!any) continue;
          transpose64(x);
          transpose64(y);
          for (size_t r = 0; r < 64; ++r) {
            bits_[(bj * 64 + r) * words_ + bi] |= x[r];
            bits_[(bi * 64 + r) * words_ + bj] |= y[r];
          }
        }
      return;
    }
    for (Row& r : rows_)
      if (!r.dense) {
        std::sort(r.list.begin(), r.list.end());
        r.list.erase(std::unique(r.list.begin(), r.list.end()), r.list.end());
      }
  }
  /// The neighbours of `a` that are members of `only` (a bit set over the registers).
  template <typename F>
  void for_each_in(uint32_t a, const std::vector<uint64_t>& only, F f) const {
    if (matrix_) {
      const uint64_t* r = bits_.data() + size_t(a) * words_;
      for (size_t w = 0; w < words_; ++w)
        for (uint64_t x = r[w] & only[w]; x; x &= x - 1)
          f(uint32_t(w * 64 + size_t(__builtin_ctzll(x))));
      return;
    }
    for_each(a, [&](uint32_t v) {
      if ((only[v >> 6] >> (v & 63)) & 1) f(v);
    });
  }
  template <typename F>
  void for_each(uint32_t a, F f) const {
    if (matrix_) {
      const uint64_t* r = bits_.data() + size_t(a) * words_;
      for (size_t w = 0; w < words_; ++w)
        for (uint64_t x = r[w]; x; x &= x - 1) f(uint32_t(w * 64 + size_t(__builtin_ctzll(x))));
      return;
    }
    const Row& r = rows_[a];
    if (r.dense)
      r.bits.for_each([&](size_t v) { f(uint32_t(v)); });
    else
      for (uint32_t v : r.list) f(v);
  }

 private:
  struct Row {
    std::vector<uint32_t> list;  // unsorted, with duplicates, until compacted
    BitSet bits;
    size_t compacted = 0;
    bool dense = false;
  };
  uint64_t* row(uint32_t a) { return bits_.data() + size_t(a) * words_; }
  void add_one(uint32_t a, uint32_t b) {
    Row& r = rows_[a];
    if (r.dense) {
      r.bits.set(b);
      return;
    }
    r.list.push_back(b);
    if (r.list.size() >= 2 * r.compacted + 256) compact(r);
  }
  void compact(Row& r) {
    std::sort(r.list.begin(), r.list.end());
    r.list.erase(std::unique(r.list.begin(), r.list.end()), r.list.end());
    r.compacted = r.list.size();
    if (r.list.size() * 32 >= n_) {  // the list is as big as a bit row: switch
      r.bits = BitSet(n_);
      for (uint32_t v : r.list) r.bits.set(v);
      r.list = {};
      r.dense = true;
    }
  }
  size_t n_, words_;
  bool matrix_;
  std::vector<uint64_t> bits_;  // matrix: row a at a * words_
  std::vector<Row> rows_;       // lists
};

struct Walk {
  std::vector<uint32_t> range_len;  // instructions each register is live before (spill cost)
  std::vector<uint32_t> occurrences;
  std::vector<bool> in_vector;  // member of a multi-register vector unit
};

RegAlloc allocate_with_homes(const Function& f, const RegAllocOptions& opt, const Liveness& L,
                             const std::vector<RegHome>& home, Walk* walk) {
  const size_t nr = f.regs.size(), ni = f.insts.size();
  RegAlloc A;
  A.regs.resize(nr);
  A.live_in.assign(ni, 0);
  A.live_out.assign(ni, 0);
  for (size_t r = 0; r < nr; ++r) {
    const Register& reg = f.regs[r];
    A.regs[r].pred = reg.is_pred();
    A.regs[r].home = home[r];
    A.regs[r].width =
        uint8_t(reg.is_pred() ? 1 : width_of_bytes(type_size(reg.type) * std::max(1u, reg.vec)));
  }
  auto width = [&](uint32_t r) { return uint32_t(A.regs[r].width); };
  auto in_reg = [&](uint32_t r) { return home[r] == RegHome::reg; };
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
  BitSet off_reg(nr);  // values not kept in a register between uses
  for (uint32_t r = 0; r < nr; ++r)
    if (!in_reg(r)) off_reg.set(r);

  const std::vector<std::vector<uint32_t>> temps = temp_needs(f, home);
  std::vector<uint32_t> uses, defs;

  // ---- liveness, interference, first definitions ----
  // Every step below costs O(1) per live value it touches or less: the live counts are kept
  // as running sums, live ranges are measured when values leave the live set, and a
  // definition's edges to everything live go into its row at once (bit rows: a word per 64).
  // The bit matrix when it is smaller than the edge lists could grow: up to max-live edges per
  // instruction, 8 bytes each (both directions).
  const bool matrix = opt.graph == RegAllocOptions::Graph::automatic
                          ? double(nr) * double(nr) / 8 <
                                double(ni) * double(L.max_live_slots + L.max_live_preds) * 8
                          : opt.graph == RegAllocOptions::Graph::matrix;
  Interference adj(nr, matrix);
  BitSet pred_class(nr), reg_class(nr);  // registers of each file
  for (uint32_t r = 0; r < nr; ++r) (A.regs[r].pred ? pred_class : reg_class).set(r);
  auto edge = [&](uint32_t a, uint32_t b) {
    if (a == b || A.regs[a].pred != A.regs[b].pred) return;
    adj.add(a, b);  // (both directions: finish() or the lists)
  };
  // `a` interferes with every member of `s` of its own file (except `except`): one row
  // operation (Interference::add_set).
  BitSet same(nr);
  auto edges_to = [&](uint32_t a, const BitSet& s, int64_t except) {
    same = s;
    same &= A.regs[a].pred ? pred_class : reg_class;
    adj.add_set(a, same, except);
  };
  std::vector<bool> used(nr, false);
  constexpr uint32_t kNoDef = UINT32_MAX;
  std::vector<uint32_t> first_def(nr, kNoDef);
  std::vector<uint32_t> min_base(nr, 0);  // calls: registers a value live across may not use
  // Hoisting: live before each hoistable load of a block.
  std::vector<BitSet> before;
  if (walk) {
    walk->range_len.assign(nr, 0);
    walk->occurrences.assign(nr, 0);
  }
  auto call_clobber = [&](const Instruction& in) -> uint32_t {
    if (!in.call || opt.callee_clobber.empty()) return 0;
    const auto& cc = opt.callee_clobber;
    if (in.call->target.kind == OperandKind::func)
      return in.call->target.id < cc.size() ? cc[in.call->target.id] : 0;
    uint32_t c = 0;
    if (!in.call->targets.empty()) {
      for (uint32_t t : in.call->targets)
        if (t < cc.size()) c = std::max(c, cc[t]);
    } else {
      for (uint32_t x : cc) c = std::max(c, x);
    }
    return c;
  };
  // Never hoist into spilling: the budget is at most the cap.
  const uint32_t pressure = std::min(opt.hoist_pressure, opt.cap);
  // The live set with its register and predicate counts (slots() of it), and per value the
  // step at which it last entered (range_len: the instructions it is live before).
  BitSet live(nr);
  uint32_t live_slots = 0, live_preds = 0;
  uint64_t step = 0;
  std::vector<uint64_t> entered(walk ? nr : 0, 0);
  auto count = [&](uint32_t v, int sign) {
    if (A.regs[v].pred)
      live_preds = uint32_t(int64_t(live_preds) + sign);
    else
      live_slots = uint32_t(int64_t(live_slots) + sign * int64_t(width(v)));
  };
  auto enter = [&](uint32_t v) {
    if (live.test(v)) return;
    live.set(v);
    count(v, 1);
    if (walk) entered[v] = step;
  };
  auto leave = [&](uint32_t v) {
    if (!live.test(v)) return;
    live.reset(v);
    count(v, -1);
    if (walk) walk->range_len[v] += uint32_t(step - entered[v]);
  };
  std::vector<uint32_t> new_defs;
  for (size_t bi = 0; bi < f.blocks.size(); ++bi) {
    const BasicBlock& b = f.blocks[bi];
    live = L.blocks.out[bi];
    live.minus(off_reg);
    live_slots = slots(live, live_preds);
    if (walk) live.for_each([&](size_t v) { entered[v] = step; });
    if (opt.hoist_loads) before.assign(b.last - b.first, BitSet());
    for (uint32_t i = b.last; i-- > b.first;) {
      const Instruction& in = f.insts[i];
      inst_defs(in, defs);
      inst_uses(in, uses);
      if (walk) {
        for (uint32_t d : defs) ++walk->occurrences[d];
        for (uint32_t u : uses) ++walk->occurrences[u];
      }
      A.live_out[i] = live_slots;
      // Live after it together with the registers it writes.
      uint32_t wd_slots = live_slots, wd_preds = live_preds;
      new_defs.clear();
      for (uint32_t d : defs)
        if (in_reg(d) && !live.test(d) &&
            std::find(new_defs.begin(), new_defs.end(), d) == new_defs.end()) {
          new_defs.push_back(d);
          if (A.regs[d].pred)
            ++wd_preds;
          else
            wd_slots += width(d);
        }
      A.max_live = std::max(A.max_live, wd_slots);
      A.max_live_preds = std::max(A.max_live_preds, wd_preds);
      if (const uint32_t clob = call_clobber(in)) {
        A.call_clobber = std::max(A.call_clobber, clob);
        BitSet across = live;
        for (uint32_t d : defs) across.reset(d);
        across.for_each([&](size_t v) {
          if (!A.regs[v].pred) min_base[v] = std::max(min_base[v], clob);
        });
      }
      // A plain same-width copy may share its source's register.
      int64_t copy_src = -1;
      if (in.op == Op::mov && in.ops.size() == 2 && in.ops[0].kind == OperandKind::reg &&
          in.ops[1].kind == OperandKind::reg && width(in.ops[0].id) == width(in.ops[1].id))
        copy_src = in.ops[1].id;
      for (uint32_t d : defs) {
        if (!in_reg(d)) continue;
        used[d] = true;
        first_def[d] = std::min(first_def[d], i);
        edges_to(d, live, copy_src);
        for (uint32_t d2 : defs)
          if (in_reg(d2)) edge(d, d2);
      }
      // Temporaries written here (spilled definitions) interfere with what is live after.
      for (uint32_t t : temps[i]) {
        used[t] = true;
        first_def[t] = std::min(first_def[t], i);
        edges_to(t, live, -1);
        for (uint32_t d : defs)
          if (in_reg(d)) edge(t, d);
        for (uint32_t t2 : temps[i]) edge(t, t2);
      }
      if (in.guard < 0)
        for (uint32_t d : defs) leave(d);
      for (uint32_t u : uses)
        if (in_reg(u)) {
          used[u] = true;
          enter(u);
        }
      uint32_t tw = 0;
      for (uint32_t t : temps[i]) {
        edges_to(t, live, -1);
        if (!A.regs[t].pred) tw += width(t);
      }
      A.live_in[i] = live_slots + tw;
      if (opt.hoist_loads && hoistable_load(f, in)) before[i - b.first] = live;
      A.max_live = std::max(A.max_live, A.live_in[i]);
      A.max_live_preds = std::max(A.max_live_preds, live_preds);
      ++step;
    }
    if (walk) live.for_each([&](size_t v) { walk->range_len[v] += uint32_t(step - entered[v]); });
    // Values live into the entry (or a block nobody jumps to) were never defined on the way
    // there: they coexist.  Block 0 is the entry even when a loop jumps back to it.
    if (bi == 0 || b.preds.empty())
      live.for_each([&](size_t x) { edges_to(uint32_t(x), live, -1); });
    // Load hoisting: the destination is live from the hoist point on.
    if (opt.hoist_loads) {
      struct Range {
        uint32_t from, to;
        std::vector<uint32_t> dsts;
      };
      std::vector<Range> ranges;
      for (uint32_t i = b.first; i < b.last; ++i) {
        const Instruction& ld = f.insts[i];
        if (!hoistable_load(f, ld)) continue;
        std::vector<uint32_t> ldefs, luses, pd, pu;
        inst_defs(ld, ldefs);
        inst_uses(ld, luses);
        bool ok = !ldefs.empty();
        for (uint32_t d : ldefs) ok = ok && in_reg(d) && !A.regs[d].pred;
        if (!ok) continue;
        uint32_t w = 0;
        for (uint32_t d : ldefs) w += width(d);
        uint32_t h = i;
        while (h > b.first) {
          const Instruction& p = f.insts[h - 1];
          if (blocks_hoist(p, ld) || A.live_in[h - 1] + w > pressure) break;
          inst_defs(p, pd);
          inst_uses(p, pu);
          bool dep = false;
          for (uint32_t x : pd)
            dep = dep || std::find(luses.begin(), luses.end(), x) != luses.end() ||
                  std::find(ldefs.begin(), ldefs.end(), x) != ldefs.end();
          for (uint32_t x : pu)
            dep = dep || std::find(ldefs.begin(), ldefs.end(), x) != ldefs.end();
          if (dep) break;
          --h;
        }
        if (h == i) continue;
        ++A.hoisted_loads;
        // Placed before instruction h: live before h..i and after h..i-1. What is live before
        // some p in h..i is what is live before i plus what h..i-1 read (walking back from i,
        // the live set only loses definitions and gains uses).
        for (uint32_t d : ldefs) edges_to(d, before[i - b.first], -1);
        for (uint32_t p = h; p < i; ++p) {
          inst_uses(f.insts[p], pu);
          for (uint32_t u : pu)
            if (in_reg(u))
              for (uint32_t d : ldefs) edge(d, u);
        }
        for (uint32_t p = h; p <= i; ++p) {
          for (uint32_t t : temps[p])
            for (uint32_t d : ldefs) edge(d, t);
          A.live_in[p] += w;
          if (p < i) A.live_out[p] += w;
        }
        // Earlier hoisted loads whose range overlaps [h, i]: `ranges` is ordered by `to` (< i,
        // so `from <= i` holds), the overlapping ones are those with to >= h, a suffix.
        for (auto o = std::partition_point(ranges.begin(), ranges.end(),
                                           [&](const Range& r) { return r.to < h; });
             o != ranges.end(); ++o)
          for (uint32_t d : ldefs)
            for (uint32_t e : o->dsts) edge(d, e);
        for (uint32_t d : ldefs) first_def[d] = std::min(first_def[d], h);
        ranges.push_back({h, i, ldefs});
      }
      for (uint32_t i = b.first; i < b.last; ++i)
        A.max_live = std::max({A.max_live, A.live_in[i], A.live_out[i]});
    }
  }

  adj.finish();

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
        if (A.regs[e.id].pred || width(e.id) != ew || !in_reg(e.id) ||
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
  if (walk) {
    walk->in_vector.assign(nr, false);
    for (uint32_t u = 0; u < nr; ++u)
      if (members[u].size() > 1)
        for (uint32_t m : members[u]) walk->in_vector[m] = true;
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
  uint32_t reserved_end = 0;
  for (const uint32_t r : opt.reserved) reserved_end = std::max(reserved_end, r + 1);
  // Per member of the unit being placed: the slots its allocated neighbours take, as bits
  // (every allocated register of the file ends at or below the file's count so far, and the
  // words past it stay zero: slots there read as free).
  std::vector<std::vector<uint64_t>> busy;
  auto busy_at = [&](size_t k, uint64_t slot) {
    return (slot >> 6) < busy[k].size() && ((busy[k][slot >> 6] >> (slot & 63)) & 1);
  };
  // The registers placed so far (bits) with their base and width: what the neighbour scans
  // read (compact, and the matrix rows are masked with `placed` a word at a time).
  std::vector<uint64_t> placed;
  std::vector<int32_t> placed_base(nr);
  std::vector<uint8_t> placed_width(nr);
  auto colour = [&](const std::vector<uint32_t>& ord) {
    A.regs = unassigned;
    A.count = A.pred_count = 0;
    placed.assign(nr / 64 + 1, 0);
    for (uint32_t u : ord) {
      const uint32_t uw = unit_width[u], al = align_of(uw);
      const bool pred = A.regs[members[u].front()].pred;
      // Slots each member may not use: those of its allocated neighbours.
      const uint32_t span = std::max(pred ? A.pred_count : A.count, pred ? 0u : reserved_end);
      const size_t words = size_t(span) / 64 + 2;  // one more: pair partners, the free slot
      busy.resize(std::max(busy.size(), members[u].size()));
      uint32_t top = 0, lo = 0;
      for (size_t k = 0; k < members[u].size(); ++k) {
        const uint32_t m = members[u][k];
        std::vector<uint64_t>& bk = busy[k];
        bk.assign(words, 0);
        if (min_base[m] > offset[m]) lo = std::max(lo, min_base[m] - offset[m]);
        if (!pred)
          for (const uint32_t r : opt.reserved) {
            bk[r >> 6] |= uint64_t(1) << (r & 63);
            top = std::max(top, r + 1);
          }
        // (Bits are gathered per word in a register: neighbours' slots come in runs.)
        size_t cur = 0;
        uint64_t acc = 0;
        adj.for_each_in(m, placed, [&](uint32_t v) {
          const uint32_t b = uint32_t(placed_base[v]), e = b + placed_width[v];
          for (uint32_t s = b; s < e; ++s) {
            if ((s >> 6) != cur) {
              bk[cur] |= acc;
              cur = s >> 6;
              acc = 0;
            }
            acc |= uint64_t(1) << (s & 63);
          }
          top = std::max(top, e);
        });
        bk[cur] |= acc;
      }
      lo = (lo + al - 1) / al * al;
      auto fits = [&](int64_t b) {
        if (b < int64_t(lo) || b % al) return false;
        for (size_t k = 0; k < members[u].size(); ++k) {
          const uint32_t m = members[u][k];
          for (uint64_t s = uint64_t(b) + offset[m], e = s + width(m); s < e; ++s)
            if (busy_at(k, s)) return false;
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
      const bool single = members[u].size() == 1 && uw == 1 && offset[members[u][0]] == 0;
      // A single register first fills the free half of a pair whose other half is taken, so
      // that whole pairs stay free for 64-bit values: the lowest b in [lo, top) that is free
      // with b ^ 1 taken.
      if (base < 0 && uw == 1 && !pred) {
        if (single) {
          const std::vector<uint64_t>& bk = busy[0];
          constexpr uint64_t kEven = 0x5555555555555555ull;
          for (uint32_t w = lo >> 6; base < 0 && uint64_t(w) * 64 < top; ++w) {
            const uint64_t x = bk[w];
            uint64_t c = ~x & (((x >> 1) & kEven) | ((x & kEven) << 1));
            if (w == lo >> 6) c &= ~uint64_t(0) << (lo & 63);
            if (c) {
              const uint64_t b = uint64_t(w) * 64 + uint64_t(__builtin_ctzll(c));
              if (b < top) base = int64_t(b);
            }
          }
        } else {
          for (uint32_t b = lo; b < top && base < 0; ++b)
            if (busy_at(0, b ^ 1) && fits(b)) base = b;
        }
      }
      // The lowest aligned base at or above lo where the unit fits (past `top` everything
      // is free). A single register: the lowest free slot at or above lo.
      if (base < 0 && single) {
        const std::vector<uint64_t>& bk = busy[0];
        for (size_t w = lo >> 6; base < 0; ++w) {
          uint64_t c = w < bk.size() ? ~bk[w] : ~uint64_t(0);
          if (w == lo >> 6) c &= ~uint64_t(0) << (lo & 63);
          if (c) base = int64_t(w * 64 + size_t(__builtin_ctzll(c)));
        }
      }
      for (int64_t b = lo; base < 0; b += al)
        if (fits(b) || b > int64_t(top)) base = b;
      for (uint32_t m : members[u]) {
        A.regs[m].base = int32_t(base + offset[m]);
        uint32_t& cnt = pred ? A.pred_count : A.count;
        cnt = std::max(cnt, uint32_t(A.regs[m].base) + width(m));
        placed[m >> 6] |= uint64_t(1) << (m & 63);
        placed_base[m] = A.regs[m].base;
        placed_width[m] = A.regs[m].width;
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
  A.count = std::max(A.count, A.call_clobber);
  return A;
}

// Constant-bank values (RegAllocOptions::constant_operands).
std::vector<RegHome> constant_homes(const Function& f) {
  const size_t nr = f.regs.size();
  std::vector<RegHome> home(nr, RegHome::reg);
  std::vector<uint32_t> ndefs(nr, 0), defs;
  std::vector<int32_t> def_at(nr, -1);
  for (uint32_t i = 0; i < f.insts.size(); ++i) {
    inst_defs(f.insts[i], defs);
    for (uint32_t d : defs) {
      ++ndefs[d];
      def_at[d] = int32_t(i);
    }
  }
  auto wid = [&](uint32_t r) { return type_size(f.regs[r].type) * std::max(1u, f.regs[r].vec); };
  auto constant_def = [&](const Instruction& in) {
    if (in.guard >= 0 || in.ndst != 1 || in.ops.size() != 2 || in.ops[0].kind != OperandKind::reg)
      return false;
    const Operand &d = in.ops[0], &s = in.ops[1];
    if (f.regs[d.id].is_pred()) return false;
    switch (in.op) {
      case Op::ld:
        return f.is_entry && in.space == Space::param && in.vec == 1 &&
               s.kind == OperandKind::addr && s.base == OperandKind::sym;
      case Op::mov:
        return s.kind == OperandKind::imm || s.kind == OperandKind::sym ||
               (s.kind == OperandKind::sreg && (s.sreg == Sreg::ntid || s.sreg == Sreg::nctaid)) ||
               (s.kind == OperandKind::reg && home[s.id] == RegHome::constant &&
                wid(s.id) == wid(d.id));
      case Op::cvta:
        return in.space == Space::global &&
               (s.kind == OperandKind::sym ||
                (s.kind == OperandKind::reg && home[s.id] == RegHome::constant));
      default:
        return false;
    }
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t r = 0; r < nr; ++r)
      if (home[r] == RegHome::reg && ndefs[r] == 1 && constant_def(f.insts[size_t(def_at[r])])) {
        home[r] = RegHome::constant;
        changed = true;
      }
  }
  // A value that some instruction needs in a register is loaded into one once and kept there
  // (as ptxas does), and so is what it was copied from; only values every use reads straight
  // from the bank stay there.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& t : temp_needs(f, home))
      for (uint32_t r : t)
        if (home[r] == RegHome::constant) {
          home[r] = RegHome::reg;
          changed = true;
        }
    for (uint32_t r = 0; r < nr; ++r) {
      if (home[r] != RegHome::constant) continue;
      const Instruction& in = f.insts[size_t(def_at[r])];
      const Operand& src = in.ops[1];
      if (src.kind == OperandKind::reg && home[src.id] != RegHome::constant) {
        home[r] = RegHome::reg;
        changed = true;
      }
    }
  }
  return home;
}

}  // namespace

RegAllocOptions RegAllocOptions::sass(uint32_t sm, uint32_t cap) {
  RegAllocOptions o;
  o.cap = cap;
  if (sm >= 70) o.reserved = {1};
  o.constant_operands = false;  // measured: lowers agreement with ptxas (docs/registers.md)
  o.hoist_loads = true;
  // Full occupancy's register budget: 64K registers per SM over the most resident threads
  // (sm_75: 1024; sm_70/80/90: 2048; sm_86/89: 1536). CUDA C Programming Guide, "Technical
  // Specifications per Compute Capability".
  const uint32_t threads = sm == 75 ? 1024 : (sm == 86 || sm == 87 || sm == 89) ? 1536 : 2048;
  o.hoist_pressure = sm >= 70 ? 65536 / threads : 63;
  o.spill = true;
  return o;
}

RegAlloc allocate_registers(const Function& f, const RegAllocOptions& opt) {
  const size_t nr = f.regs.size();
  std::vector<RegHome> home =
      opt.constant_operands ? constant_homes(f) : std::vector<RegHome>(nr, RegHome::reg);
  Walk walk;
  const Liveness L = compute_liveness(f);  // of the PTX registers: the same every round
  RegAlloc A = allocate_with_homes(f, opt, L, home, opt.spill ? &walk : nullptr);
  // Spill the cheapest values (fewest definitions and uses per instruction live) until the
  // count fits, a round at a time.
  uint32_t best = A.count, stuck = 0;
  for (int round = 0; opt.spill && A.count > opt.cap && round < 256 && stuck < 3; ++round) {
    std::vector<std::pair<double, uint32_t>> cand;
    for (uint32_t r = 0; r < nr; ++r) {
      if (home[r] != RegHome::reg || A.regs[r].pred || A.regs[r].base < 0 || A.regs[r].width > 2 ||
          walk.in_vector[r] || walk.range_len[r] < 2)
        continue;
      cand.push_back({double(walk.occurrences[r]) / double(walk.range_len[r]), r});
    }
    if (cand.empty()) break;
    std::sort(cand.begin(), cand.end());
    uint32_t freed = 0;
    for (const auto& c : cand) {
      home[c.second] = RegHome::spill;
      freed += A.regs[c.second].width;
      if (freed >= (A.count - opt.cap + 1) / 2) break;
    }
    A = allocate_with_homes(f, opt, L, home, &walk);
    // Temporaries can keep a function above a very small cap: stop when rounds stop helping.
    if (A.count < best) {
      best = A.count;
      stuck = 0;
    } else {
      ++stuck;
    }
  }
  // Spill slots and per-instruction traffic.
  std::vector<uint32_t> uses, defs;
  for (uint32_t r = 0; r < nr; ++r) {
    if (home[r] == RegHome::constant && A.regs[r].base >= -1) ++A.constants;
    if (home[r] != RegHome::spill) continue;
    ++A.spilled;
    const uint32_t bytes = A.regs[r].width * 4;
    A.spill_bytes = (A.spill_bytes + bytes - 1) / bytes * bytes;
    A.regs[r].spill_offset = int32_t(A.spill_bytes);
    A.spill_bytes += bytes;
  }
  if (A.spilled) {
    A.spill_loads.assign(f.insts.size(), 0);
    A.spill_stores.assign(f.insts.size(), 0);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      inst_uses(f.insts[i], uses);
      inst_defs(f.insts[i], defs);
      std::sort(uses.begin(), uses.end());
      uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
      for (uint32_t u : uses)
        if (home[u] == RegHome::spill) A.spill_loads[i] += A.regs[u].width;
      for (uint32_t d : defs)
        if (home[d] == RegHome::spill) A.spill_stores[i] += A.regs[d].width;
    }
  }
  if (A.count > opt.cap) A.note = fmt::format("needs {} > cap {} registers", A.count, opt.cap);
  if (A.pred_count > opt.pred_cap)
    A.note += fmt::format("{}needs {} > cap {} predicates", A.note.empty() ? "" : "; ",
                          A.pred_count, opt.pred_cap);
  A.over_cap = !A.note.empty();
  return A;
}

std::vector<RegAlloc> allocate_module(const Module& m, const RegAllocOptions& opt,
                                      const std::vector<uint32_t>& roots) {
  const size_t nf = m.funcs.size();
  std::vector<RegAlloc> out(nf);
  RegAllocOptions o = opt;
  o.callee_clobber.assign(nf, 0);
  for (size_t i = 0; i < nf; ++i)
    if (!m.funcs[i].defined) o.callee_clobber[i] = opt.extern_clobber;
  // Callees first (depth-first post-order); a call back into a function being allocated (a
  // recursive cycle) clobbers nothing.
  std::vector<uint8_t> state(nf, 0);  // 0 new, 1 in progress, 2 done
  std::function<void(uint32_t)> visit = [&](uint32_t fi) {
    state[fi] = 1;
    const Function& f = m.funcs[fi];
    std::vector<uint32_t> callees;
    for (const Instruction& in : f.insts)
      if (in.call) {
        if (in.call->target.kind == OperandKind::func) callees.push_back(in.call->target.id);
        for (uint32_t t : in.call->targets) callees.push_back(t);
      }
    for (uint32_t c : callees)
      if (c < nf && m.funcs[c].defined && state[c] == 0) visit(c);
    RegAllocOptions mine = o;
    for (uint32_t c : callees)
      if (c < nf && state[c] == 1) mine.callee_clobber[c] = 0;
    out[fi] = allocate_registers(f, mine);
    o.callee_clobber[fi] = out[fi].count;
    state[fi] = 2;
  };
  if (roots.empty()) {
    for (uint32_t i = 0; i < nf; ++i)
      if (m.funcs[i].defined && state[i] == 0) visit(i);
  } else {
    for (uint32_t i : roots)
      if (i < nf && m.funcs[i].defined && state[i] == 0) visit(i);
  }
  return out;
}

std::string arch_reg_name(const ArchReg& r) {
  std::string reg;
  if (r.base < 0)
    reg = "-";
  else if (r.pred)
    reg = fmt::format("P{}", r.base);
  else if (r.width == 1)
    reg = fmt::format("R{}", r.base);
  else if (r.width == 2)
    reg = fmt::format("R{}:R{}", r.base, r.base + 1);
  else
    reg = fmt::format("R{}..R{}", r.base, r.base + r.width - 1);
  if (r.home == RegHome::constant) return r.base < 0 ? "c" : "c>" + reg;
  if (r.home == RegHome::spill) return fmt::format("L{}>{}", r.spill_offset, reg);
  return reg;
}

std::string format_allocation(const Function& f, const RegAlloc& a, bool map) {
  std::string s = fmt::format(
      "function {}: {} registers, {} predicates (max live {} registers, {} predicates){}{}\n",
      f.name, a.count, a.pred_count, a.max_live, a.max_live_preds, a.note.empty() ? "" : "; ",
      a.note);
  if (a.constants || a.hoisted_loads || a.call_clobber || a.spilled)
    s += fmt::format(
        "  {} constant-bank values, {} hoisted loads, calls clobber {}, {} spilled ({} bytes)\n",
        a.constants, a.hoisted_loads, a.call_clobber, a.spilled, a.spill_bytes);
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
  std::vector<bool> fixup(f.insts.size(), false);
  for (uint32_t i : a.vector_fixups) fixup[i] = true;
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
    const bool fix = fixup[i];
    std::string spill;
    if (!a.spill_loads.empty() && (a.spill_loads[i] || a.spill_stores[i]))
      spill = fmt::format("  (spill: {} words reloaded, {} stored)", a.spill_loads[i],
                          a.spill_stores[i]);
    s += fmt::format("  {:5} live {:3} -> {:3}  {:<48}  W: {}  R: {}{}{}\n", i, a.live_in[i],
                     a.live_out[i], text, w, r, fix ? "  (vector needs moves)" : "", spill);
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
