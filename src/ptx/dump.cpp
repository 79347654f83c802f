#include "ptx/dump.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "base/bits.h"
#include "ptx/cfg.h"
#include "ptx/layout.h"

namespace simtlab::ptx {

std::string dump_operand(const Module& m, const Function& f, const Instruction& in,
                         const Operand& o) {
  switch (o.kind) {
    case OperandKind::none:
      return "<none>";
    case OperandKind::reg:
      return f.regs[o.id].name;
    case OperandKind::pred:
      return (o.negate ? "!" : "") + f.regs[o.id].name;
    case OperandKind::imm:
      return fmt::format("{:#x}", uint64_t(o.imm));
    case OperandKind::sreg: {
      std::string s(sreg_name(o.sreg));
      if (o.sreg == Sreg::envreg) return s + std::to_string(o.comp);
      if (o.sreg == Sreg::tid || o.sreg == Sreg::ntid || o.sreg == Sreg::ctaid ||
          o.sreg == Sreg::nctaid || o.sreg == Sreg::clusterid || o.sreg == Sreg::nclusterid ||
          o.sreg == Sreg::cluster_ctaid || o.sreg == Sreg::cluster_nctaid)
        s += std::string(".") + char('x' + o.comp);
      return s;
    }
    case OperandKind::sym:
      return o.imm ? fmt::format("{}+{}", m.vars[o.id].name, o.imm) : m.vars[o.id].name;
    case OperandKind::func:
      return m.funcs[o.id].name;
    case OperandKind::label:
      return f.label_names[o.id];
    case OperandKind::sink:
      return "_";
    case OperandKind::vec: {
      std::string s = "{";
      for (unsigned k = 0; k < o.count; ++k) {
        if (k) s += ", ";
        s += dump_operand(m, f, in, in.elem(o, k));
      }
      return s + "}";
    }
    case OperandKind::addr: {
      std::string base;
      if (o.base == OperandKind::reg)
        base = f.regs[o.id].name;
      else if (o.base == OperandKind::sym)
        base = m.vars[o.id].name;
      else if (o.base == OperandKind::func)
        base = m.funcs[o.id].name;
      if (base.empty()) return fmt::format("[{:#x}]", uint64_t(o.imm));
      if (o.imm) return fmt::format("[{}{:+d}]", base, o.imm);
      return "[" + base + "]";
    }
  }
  return "?";
}

std::string dump_instruction(const Module& m, const Function& f, const Instruction& in) {
  std::string s;
  if (in.guard >= 0)
    s += fmt::format("@{}{} ", in.guard_neg ? "!" : "", f.regs[size_t(in.guard)].name);
  s += full_mnemonic(in);
  if (in.call) {
    s += " ";
    if (!in.call->rets.empty()) {
      s += "(";
      for (size_t i = 0; i < in.call->rets.size(); ++i)
        s += (i ? ", " : "") + dump_operand(m, f, in, in.call->rets[i]);
      s += "), ";
    }
    s += dump_operand(m, f, in, in.call->target);
    s += ", (";
    for (size_t i = 0; i < in.call->args.size(); ++i)
      s += (i ? ", " : "") + dump_operand(m, f, in, in.call->args[i]);
    s += ")";
  }
  for (size_t i = 0; i < in.ops.size(); ++i) {
    s += i == 0 ? " " : (i == 1 && in.has(IF_PIPE2) && in.ndst == 2 ? "|" : ", ");
    s += dump_operand(m, f, in, in.ops[i]);
  }
  s += fmt::format("  ; {}", exec_class_name(in.exec));
  return s;
}

std::string dump_function(const Module& m, const Function& f) {
  std::string s = fmt::format("{} {}\n", f.is_entry ? ".entry" : ".func", f.name);
  for (size_t i = 0; i < f.insts.size(); ++i) {
    for (size_t l = 0; l < f.label_target.size(); ++l)
      if (f.label_target[l] == int32_t(i)) s += f.label_names[l] + ":\n";
    s += fmt::format("  {:4}: {}\n", i, dump_instruction(m, f, f.insts[i]));
  }
  return s;
}

std::string describe_module(const Module& m) {
  std::string s =
      fmt::format("module {}: PTX ISA {}.{}, target {}, address size {}\n", m.file, m.version_major,
                  m.version_minor, m.target.empty() ? "?" : m.target[0], m.address_size);
  size_t nglobal = 0, nconst = 0;
  uint64_t gbytes = 0, cbytes = 0;
  for (const Variable& v : m.vars) {
    if (v.owner >= 0 || v.linkage == Linkage::extern_) continue;
    if (v.space == Space::global) {
      ++nglobal;
      gbytes += v.size;
    }
    if (v.space == Space::const_) {
      ++nconst;
      cbytes += v.size;
    }
  }
  s += fmt::format("  globals: {} ({} bytes), constants: {} ({} bytes)\n", nglobal, gbytes, nconst,
                   cbytes);
  for (uint32_t fi = 0; fi < m.funcs.size(); ++fi) {
    const Function& f = m.funcs[fi];
    if (!f.defined) continue;
    const bool entry = f.is_entry;
    s += fmt::format("{} {}\n", entry ? "kernel" : "function", f.name);
    uint32_t pbytes = 0;
    auto params = layout_params(m, f.params, &pbytes);
    s += fmt::format("  params ({} bytes):\n", pbytes);
    for (const auto& p : params) {
      const Variable& v = m.vars[p.var];
      const uint64_t elems = type_size(v.type) ? v.size / type_size(v.type) : 0;
      s += fmt::format("    {:>4}  {:<6} {}{}  size {} align {}\n", p.offset,
                       std::string(".") + std::string(type_name(v.type)), v.name,
                       elems > 1 || v.unsized ? fmt::format("[{}]", elems) : "", p.size, p.align);
    }
    if (!f.rets.empty()) {
      uint32_t rb = 0;
      auto rets = layout_params(m, f.rets, &rb);
      s += fmt::format("  returns ({} bytes):", rb);
      for (const auto& r : rets) s += " " + r.name;
      s += "\n";
    }
    if (entry) {
      KernelLayout k = layout_kernel(m, fi);
      s += fmt::format("  shared memory: {} bytes static{}\n", k.static_shared,
                       k.dynamic_shared_align
                           ? fmt::format(", dynamic (aligned to {})", k.dynamic_shared_align)
                           : "");
    }
    FrameLayout fr = layout_frame(m, fi);
    uint64_t local = 0;
    for (uint32_t vi : f.locals)
      if (m.vars[vi].space == Space::local) local += m.vars[vi].size;
    s += fmt::format("  local memory: {} bytes declared, frame {} bytes\n", local, fr.bytes);
    std::map<std::string, uint32_t> by;
    for (const Register& r : f.regs) ++by[std::string(type_name(r.type))];
    s += "  registers:";
    for (auto& [t, n] : by) s += fmt::format(" .{}={}", t, n);
    Liveness L = compute_liveness(f);
    s += fmt::format("  (max live: {} x 32-bit, {} predicates)\n", L.max_live_slots,
                     L.max_live_preds);
    s += fmt::format("  instructions: {}, basic blocks: {}\n", f.insts.size(), f.blocks.size());
    if (f.maxntid.x)
      s += fmt::format("  .maxntid {}, {}, {}\n", f.maxntid.x, f.maxntid.y, f.maxntid.z);
    if (f.reqntid.x)
      s += fmt::format("  .reqntid {}, {}, {}\n", f.reqntid.x, f.reqntid.y, f.reqntid.z);
    if (f.minnctapersm) s += fmt::format("  .minnctapersm {}\n", f.minnctapersm);
    if (f.maxnreg) s += fmt::format("  .maxnreg {}\n", f.maxnreg);
    std::vector<std::string> calls;
    for (const Instruction& in : f.insts) {
      if (!in.call) continue;
      std::string n = in.call->target.kind == OperandKind::func ? m.funcs[in.call->target.id].name
                                                                : "<indirect>";
      if (std::find(calls.begin(), calls.end(), n) == calls.end()) calls.push_back(n);
    }
    if (!calls.empty()) {
      s += "  calls:";
      for (auto& c : calls) s += " " + c;
      s += "\n";
    }
  }
  return s;
}

// Whether control can leave the function from the end of block `bb` (as build_cfg models it):
// ret/exit/trap/brx, or falling off the end of the body.
static bool flows_to_exit(const Function& f, const BasicBlock& bb) {
  const Instruction& last = f.insts[bb.last - 1];
  const bool leaves =
      last.op == Op::ret || last.op == Op::exit || last.op == Op::trap || last.op == Op::brx;
  if (leaves) return true;
  const bool falls = last.op != Op::bra || last.guard >= 0;
  return falls && bb.last == f.insts.size();
}

std::string dump_cfg(const Module& m, const Function& f, bool dot) {
  std::string s;
  auto bname = [&](int32_t b) { return b < 0 ? std::string("EXIT") : fmt::format("B{}", b); };
  if (dot) {
    s += fmt::format("digraph \"{}\" {{\n  node [shape=box, fontname=monospace];\n", f.name);
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      const BasicBlock& bb = f.blocks[b];
      std::string label = fmt::format("B{} [{}..{})\\l", b, bb.first, bb.last);
      for (uint32_t i = bb.first; i < bb.last; ++i) {
        std::string t = dump_instruction(m, f, f.insts[i]);
        std::string esc;
        for (char c : t) {
          if (c == '"' || c == '\\' || c == '{' || c == '}' || c == '<' || c == '>' || c == '|')
            esc += '\\';
          esc += c;
        }
        label += esc + "\\l";
      }
      s += fmt::format("  B{} [label=\"{}\"{}];\n", b, label, bb.reachable ? "" : ", style=dashed");
      for (uint32_t t : bb.succs) s += fmt::format("  B{} -> B{};\n", b, t);
      if (flows_to_exit(f, bb)) s += fmt::format("  B{} -> EXIT;\n", b);
    }
    s += "  EXIT [shape=oval];\n}\n";
    return s;
  }
  s += fmt::format("function {}: {} blocks\n", f.name, f.blocks.size());
  // Labels per instruction, in label order (one pass, not one per block).
  std::vector<std::vector<uint32_t>> labels_at(f.insts.size() + 1);
  for (size_t l = 0; l < f.label_target.size(); ++l)
    if (f.label_target[l] >= 0 && size_t(f.label_target[l]) <= f.insts.size())
      labels_at[size_t(f.label_target[l])].push_back(uint32_t(l));
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    const BasicBlock& bb = f.blocks[b];
    std::string labels;
    for (uint32_t l : labels_at[bb.first]) labels += " " + f.label_names[l];
    s += fmt::format("B{}: insts [{}, {}){}{}\n", b, bb.first, bb.last,
                     labels.empty() ? "" : " labels:" + labels,
                     bb.reachable ? "" : " (unreachable)");
    std::string succ;
    for (uint32_t t : bb.succs) succ += " " + bname(int32_t(t));
    const Instruction& last = f.insts[bb.last - 1];
    if (flows_to_exit(f, bb)) succ += " EXIT";
    s += fmt::format("  succ:{}\n  ipdom: {}\n", succ.empty() ? " none" : succ, bname(bb.ipdom));
    if (last.op == Op::bra && (last.guard >= 0)) {
      const uint32_t r = reconvergence_pc(f, bb.last - 1);
      s += fmt::format(
          "  branch at {} (line {}): reconverges at {}\n", bb.last - 1, last.line,
          r >= f.insts.size() ? std::string("function exit") : fmt::format("inst {}", r));
    }
  }
  return s;
}

}  // namespace simtlab::ptx
