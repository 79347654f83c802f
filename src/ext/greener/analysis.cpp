#include "ext/greener/analysis.h"

#include <algorithm>

#include <fmt/format.h>

#include "func/program.h"
#include "func/regcheck.h"
#include "ptx/ir.h"

namespace simtlab::ext::greener {

const char* pstate_name(PState s) {
  switch (s) {
    case PState::on:
      return "ON";
    case PState::sleep:
      return "SLEEP";
    case PState::off:
      return "OFF";
  }
  return "?";
}

Analysis analyze(const Graph& g, uint32_t W) {
  Analysis a;
  a.W = std::clamp<uint32_t>(W, 1, 254);
  a.nregs = g.nregs;
  const size_t n = g.nodes.size(), R = g.nregs;
  const uint8_t w = uint8_t(a.W);
  auto inc = [w](uint8_t x) -> uint8_t { return x == w || x == kDistInf ? kDistInf : x + 1; };
  // Dist: least fixpoint from 1 (MAX confluence). Liveness: least fixpoint from false (union).
  a.dist_out.assign(n * R, 1);
  a.live_out.assign(n * R, 0);
  std::vector<uint8_t> dist_in(n * R, 1), live_in(n * R, 0);
  std::vector<uint8_t> row_d(R), row_l(R);
  bool changed = true;
  while (changed) {
    changed = false;
    ++a.iterations;
    for (size_t i = n; i-- > 0;) {
      const Node& s = g.nodes[i];
      // OUT(S).
      if (s.exit) {
        std::fill(row_d.begin(), row_d.end(), kDistInf);
      } else {
        std::fill(row_d.begin(), row_d.end(), s.succ.empty() ? kDistInf : 1);
      }
      std::fill(row_l.begin(), row_l.end(), 0);
      for (uint32_t ss : s.succ) {
        if (ss >= n) continue;
        const uint8_t* di = &dist_in[ss * R];
        const uint8_t* li = &live_in[ss * R];
        for (size_t r = 0; r < R; ++r) {
          if (!s.exit) row_d[r] = std::max(row_d[r], di[r]);  // kDistInf (255) is the max
          row_l[r] |= li[r];
        }
      }
      uint8_t* dout = &a.dist_out[i * R];
      uint8_t* lout = &a.live_out[i * R];
      for (size_t r = 0; r < R; ++r) {
        if (dout[r] != row_d[r] || lout[r] != row_l[r]) changed = true;
        dout[r] = row_d[r];
        lout[r] = row_l[r];
      }
      // IN(S).
      uint8_t* din = &dist_in[i * R];
      uint8_t* lin = &live_in[i * R];
      for (size_t r = 0; r < R; ++r) {
        din[r] = inc(dout[r]);
        lin[r] = lout[r];
      }
      if (!s.guarded)
        for (const Operand& o : s.dst)
          for (uint32_t k = 0; k < o.width && o.reg + k < R; ++k) lin[o.reg + k] = 0;
      for (const Operand& o : s.dst)
        for (uint32_t k = 0; k < o.width && o.reg + k < R; ++k) din[o.reg + k] = 1;
      for (const Operand& o : s.src)
        for (uint32_t k = 0; k < o.width && o.reg + k < R; ++k) {
          din[o.reg + k] = 1;
          lin[o.reg + k] = 1;
        }
    }
  }
  a.power_out.resize(n * R);
  for (size_t k = 0; k < n * R; ++k)
    a.power_out[k] = table41(a.live_out[k] != 0, a.dist_out[k] == kDistInf);
  return a;
}

namespace {
// The most powered of an operand's registers (ON > SLEEP > OFF).
PState operand_state(const Analysis& a, uint32_t n, const Operand& o) {
  PState s = PState::off;
  for (uint32_t k = 0; k < o.width && o.reg + k < a.nregs; ++k)
    s = std::min(s, a.power(n, o.reg + k));  // enum order on < sleep < off
  return s;
}
}  // namespace

Encoded encode(const Graph& g, const Analysis& a, uint32_t n, uint32_t enc_src, uint32_t enc_dst) {
  const Node& s = g.nodes[n];
  Encoded e;
  e.dst.assign(s.dst.size(), PState::sleep);
  e.src.assign(s.src.size(), PState::sleep);
  for (size_t i = 0; i < s.dst.size() && i < enc_dst; ++i) e.dst[i] = operand_state(a, n, s.dst[i]);
  // Distinct source operands: a register named twice (add r1, r2, r2) takes one slot.
  uint32_t used = 0;
  for (size_t i = 0; i < s.src.size(); ++i) {
    bool dup = false;
    for (size_t j = 0; j < i && !dup; ++j) {
      if (s.src[j].reg == s.src[i].reg && s.src[j].width == s.src[i].width) {
        e.src[i] = e.src[j];
        dup = true;
      }
    }
    if (dup) continue;
    if (used < enc_src) {
      e.src[i] = operand_state(a, n, s.src[i]);
      ++used;
    }
  }
  // A register both read and written keeps the destination's state at write-back; at read
  // operands it takes the source's state (both are Power(OUT(S),R) when encoded).
  return e;
}

Graph program_graph(const func::Program& p, const func::ArchRegMap& am) {
  Graph g;
  g.nodes.resize(p.code.size());
  uint32_t nregs = 0;
  for (uint32_t c : am.count) nregs = std::max(nregs, c);
  for (size_t pc = 0; pc < p.code.size() && pc < am.pc.size(); ++pc) {
    const func::ArchPc& ap = am.pc[pc];
    for (unsigned i = 0; i < ap.nsrc; ++i)
      nregs = std::max<uint32_t>(nregs, ap.src[i].reg + ap.src[i].width);
    for (unsigned i = 0; i < ap.ndst; ++i)
      nregs = std::max<uint32_t>(nregs, ap.dst[i].reg + ap.dst[i].width);
  }
  g.nregs = nregs;
  for (const func::ProgFunction& pf : p.funcs) {
    if (pf.builtin) continue;
    for (uint32_t pc = pf.begin; pc <= pf.end && pc < p.code.size(); ++pc) {
      Node& nd = g.nodes[pc];
      const func::DInst& d = p.code[pc];
      if (pc == pf.end || !d.in) {  // the function-end pseudo instruction
        nd.exit = true;
        continue;
      }
      const func::ArchPc& ap = am.pc[pc];
      for (unsigned i = 0; i < ap.nsrc; ++i) nd.src.push_back({ap.src[i].reg, ap.src[i].width});
      for (unsigned i = 0; i < ap.ndst; ++i) nd.dst.push_back({ap.dst[i].reg, ap.dst[i].width});
      nd.guarded = d.guard >= 0;
      const ptx::Op op = d.in->op;
      if (op == ptx::Op::bra) {
        nd.succ.push_back(d.target);
        if (d.guard >= 0 && d.target != pc + 1) nd.succ.push_back(pc + 1);
      } else if (op == ptx::Op::ret || op == ptx::Op::exit || op == ptx::Op::trap ||
                 op == ptx::Op::brx) {
        nd.exit = true;
        if (d.guard >= 0) nd.succ.push_back(pc + 1);  // liveness of the fall-through
      } else {
        nd.succ.push_back(pc + 1);
      }
    }
  }
  return g;
}

std::shared_ptr<const PcStates> program_states(const func::Program& p, const func::ArchRegMap& am,
                                               uint32_t W, uint32_t enc_src, uint32_t enc_dst) {
  const Graph g = program_graph(p, am);
  const Analysis a = analyze(g, W);
  auto out = std::make_shared<PcStates>();
  const size_t n = g.nodes.size();
  out->nsrc.assign(n, 0);
  out->ndst.assign(n, 0);
  out->src.assign(n * 8, PState::sleep);
  out->dst.assign(n * 4, PState::sleep);
  for (uint32_t pc = 0; pc < n; ++pc) {
    const Encoded e = encode(g, a, pc, enc_src, enc_dst);
    out->nsrc[pc] = uint8_t(std::min<size_t>(8, e.src.size()));
    out->ndst[pc] = uint8_t(std::min<size_t>(4, e.dst.size()));
    for (size_t i = 0; i < out->nsrc[pc]; ++i) out->src[pc * 8 + i] = e.src[i];
    for (size_t i = 0; i < out->ndst[pc]; ++i) out->dst[pc * 4 + i] = e.dst[i];
  }
  return out;
}

std::string annotate(const func::Program& p, const func::ArchRegMap& am, uint32_t W,
                     uint32_t enc_src, uint32_t enc_dst) {
  const Graph g = program_graph(p, am);
  const Analysis a = analyze(g, W);
  std::string s = fmt::format(
      "// GREENER states (W = {}, {} source + {} destination operands encoded, others SLEEP; "
      "{} fixpoint passes)\n",
      a.W, enc_src, enc_dst, a.iterations);
  auto name = [](const Operand& o) {
    return o.width == 1   ? fmt::format("R{}", o.reg)
           : o.width == 2 ? fmt::format("R{}:R{}", o.reg, o.reg + 1)
                          : fmt::format("R{}..R{}", o.reg, o.reg + o.width - 1);
  };
  uint64_t counts[3] = {};
  for (const func::ProgFunction& pf : p.funcs) {
    if (pf.builtin) continue;
    const size_t fi = size_t(&pf - p.funcs.data());
    s +=
        fmt::format(".func {} ({} registers)\n", pf.name, fi < am.count.size() ? am.count[fi] : 0u);
    for (uint32_t pc = pf.begin; pc < pf.end && pc < p.code.size(); ++pc) {
      const func::DInst& d = p.code[pc];
      if (!d.in) continue;
      const Encoded e = encode(g, a, pc, enc_src, enc_dst);
      std::string text(d.in->text);
      while (!text.empty() && (text.back() == ';' || text.back() == ' ')) text.pop_back();
      std::string st;
      const Node& nd = g.nodes[pc];
      for (size_t i = 0; i < nd.dst.size(); ++i) {
        st += fmt::format("{}{}={}", st.empty() ? "" : " ", name(nd.dst[i]), pstate_name(e.dst[i]));
        ++counts[size_t(e.dst[i])];
      }
      for (size_t i = 0; i < nd.src.size(); ++i) {
        st += fmt::format("{}{}={}", st.empty() ? "" : " ", name(nd.src[i]), pstate_name(e.src[i]));
        ++counts[size_t(e.src[i])];
      }
      s += fmt::format("{:5}  {:<48} // {}\n", pc - pf.begin, text, st.empty() ? "-" : st);
    }
  }
  s += fmt::format("// operand states: ON {}, SLEEP {}, OFF {}\n", counts[0], counts[1], counts[2]);
  return s;
}

}  // namespace simtlab::ext::greener
