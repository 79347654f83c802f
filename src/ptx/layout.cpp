#include "ptx/layout.h"

#include <algorithm>
#include <unordered_set>

#include "base/bits.h"
#include "base/error.h"

namespace simtlab::ptx {

std::vector<ParamField> layout_params(const Module& m, const std::vector<uint32_t>& vars,
                                      uint32_t* total_bytes) {
  std::vector<ParamField> out;
  // The parser bounds every parameter and a kernel's total (kMaxStaticBytes,
  // kMaxKernelParamBytes); sum in 64 bits anyway and refuse what would not fit.
  uint64_t off = 0;
  for (uint32_t vi : vars) {
    const Variable& v = m.vars[vi];
    ParamField p;
    p.name = v.name;
    p.var = vi;
    p.size = uint32_t(v.size);
    p.align = std::max<uint32_t>(1, v.natural_align());
    p.type = v.type;
    p.is_pointer_like =
        v.size == 8 && (v.type == Type::u64 || v.type == Type::b64 || v.type == Type::s64);
    off = align_up(off, p.align);
    if (v.size > kMaxStaticBytes || off + v.size > UINT32_MAX)
      throw UserError(fmt::format("parameter '{}' at offset {} of {} bytes does not fit in 32 bits",
                                  v.name, off, v.size));
    p.offset = uint32_t(off);
    off += p.size;
    out.push_back(p);
  }
  if (total_bytes) *total_bytes = uint32_t(off);
  return out;
}

// Depth-first preorder over the call graph from `root` (direct calls and function addresses
// taken). Iterative: a call chain of any length must not overflow the stack.
static void collect_callees(const Module& m, uint32_t root, std::vector<uint32_t>& order,
                            std::unordered_set<uint32_t>& seen, bool& indirect) {
  struct Frame {
    uint32_t f;
    size_t inst = 0, op = 0;
  };
  std::vector<Frame> stack;
  auto enter = [&](uint32_t f) {
    if (!seen.insert(f).second) return;
    order.push_back(f);
    stack.push_back(Frame{f});
  };
  enter(root);
  while (!stack.empty()) {
    Frame& fr = stack.back();
    const std::vector<Instruction>& insts = m.funcs[fr.f].insts;
    if (fr.inst >= insts.size()) {
      stack.pop_back();
      continue;
    }
    const Instruction& in = insts[fr.inst];
    if (!in.call) {
      // function addresses taken (mov.u64 %rd, func) make indirect calls possible
      if (fr.op >= in.ops.size()) {
        ++fr.inst;
        fr.op = 0;
        continue;
      }
      const Operand& o = in.ops[fr.op++];
      if (o.kind == OperandKind::func && m.funcs[o.id].defined) enter(o.id);  // may move `fr`
      continue;
    }
    ++fr.inst;
    fr.op = 0;
    if (in.call->target.kind == OperandKind::func) {
      if (m.funcs[in.call->target.id].defined) enter(in.call->target.id);
    } else {
      indirect = true;
    }
  }
}

KernelLayout layout_kernel(const Module& m, uint32_t fi) {
  KernelLayout k;
  const Function& f = m.funcs[fi];
  k.params = layout_params(m, f.params, &k.param_bytes);
  std::unordered_set<uint32_t> seen;
  collect_callees(m, fi, k.functions, seen, k.has_indirect_calls);
  if (k.has_indirect_calls) {
    // Any defined function whose address is taken in the module may be a target.
    for (uint32_t g = 0; g < m.funcs.size(); ++g)
      if (m.funcs[g].defined && !m.funcs[g].is_entry)
        collect_callees(m, g, k.functions, seen, k.has_indirect_calls);
  }
  // Recursion: a call back into a function already on the path.
  // (A cheap over-approximation: any call to a function in the set from itself or a cycle.)
  for (uint32_t g : k.functions)
    for (const Instruction& in : m.funcs[g].insts)
      if (in.call && in.call->target.kind == OperandKind::func && in.call->target.id == g)
        k.recursive = true;

  // Static shared memory, laid out the way ptxas does it (measured against `ptxas -v`, see
  // tests/scripts/ptx_smem_vs_ptxas.py and tests/data/ptx/smem_order.ptx):
  //  1. the kernel's own (demoted) .shared variables that its body references, in declaration
  //     order;
  //  2. module-scope .shared variables referenced by the kernel or any function it can call,
  //     in module declaration order;
  //  3. referenced function-scope .shared variables of those callees, by function, in
  //     declaration order;
  //  4. unreferenced function-scope .shared variables: the kernel's, then the callees'.
  // Each variable is aligned to its own alignment. Module variables nobody reachable
  // references take no space. A reference is any textual use (ptxas keeps dead ones too).
  // When the module declares `.extern .shared` (dynamic) arrays, a non-zero static size is
  // rounded up to max(16, largest extern alignment), and dynamic shared memory starts there.
  std::unordered_set<uint32_t> referenced;  // shared vars used by any reachable function
  for (uint32_t g : k.functions) {
    for (const Instruction& in : m.funcs[g].insts) {
      auto visit = [&](const Operand& o) {
        if ((o.kind == OperandKind::sym ||
             (o.kind == OperandKind::addr && o.base == OperandKind::sym)) &&
            m.vars[o.id].space == Space::shared)
          referenced.insert(o.id);
      };
      for (const Operand& o : in.ops) visit(o);
      for (const Operand& o : in.elems) visit(o);
      if (in.call)
        for (const Operand& o : in.call->args) visit(o);
    }
  }
  auto is_dynamic = [&](const Variable& v) {
    return v.unsized || (v.linkage == Linkage::extern_ && v.size == 0);
  };
  std::vector<uint32_t> order;  // static shared variables in allocation order
  auto add_locals = [&](uint32_t g, bool want_referenced) {
    for (uint32_t vi : m.funcs[g].locals)
      if (m.vars[vi].space == Space::shared && !is_dynamic(m.vars[vi]) &&
          referenced.count(vi) == size_t(want_referenced))
        order.push_back(vi);
  };
  std::vector<uint32_t> callees;  // reachable functions other than the kernel, by index
  for (uint32_t g : k.functions)
    if (g != fi) callees.push_back(g);
  std::sort(callees.begin(), callees.end());
  add_locals(fi, true);
  uint32_t extern_align = 0;  // largest alignment of any `.extern .shared` in the module
  for (uint32_t vi = 0; vi < m.vars.size(); ++vi) {
    const Variable& v = m.vars[vi];
    if (v.space != Space::shared || v.owner >= 0) continue;
    if (is_dynamic(v)) {
      extern_align = std::max<uint32_t>(extern_align, std::max<uint32_t>(1, v.natural_align()));
      if (referenced.count(vi))
        k.dynamic_shared_align =
            std::max<uint32_t>(k.dynamic_shared_align, std::max<uint32_t>(1, v.natural_align()));
      continue;
    }
    if (referenced.count(vi)) order.push_back(vi);
  }
  for (uint32_t g : callees) add_locals(g, true);
  add_locals(fi, false);
  for (uint32_t g : callees) add_locals(g, false);

  if (!f.shared_high.empty()) {  // a layout pass's choice: these go last (ptx/relssp.h)
    auto high = [&](uint32_t vi) {
      return std::find(f.shared_high.begin(), f.shared_high.end(), vi) != f.shared_high.end();
    };
    std::stable_partition(order.begin(), order.end(), [&](uint32_t vi) { return !high(vi); });
  }
  // 64-bit sums: each variable is at most kMaxStaticBytes (parser), so this cannot wrap.
  uint64_t off = 0;
  for (uint32_t vi : order) {
    const Variable& v = m.vars[vi];
    off = align_up(off, std::max<uint32_t>(1, v.natural_align()));
    k.shared_offset[vi] = uint32_t(std::min<uint64_t>(off, UINT32_MAX));
    off += v.size;
  }
  if (extern_align && off) off = align_up(off, std::max<uint32_t>(16, extern_align));
  if (off > kMaxStaticBytes)
    throw DiagError(SourceLoc{f.source_file, f.line, f.col},
                    fmt::format("kernel '{}' uses {} bytes of static shared memory, more than the "
                                "{}-byte limit",
                                f.name, off, kMaxStaticBytes),
                    "");
  k.static_shared = uint32_t(off);
  for (uint32_t vi : referenced)
    if (is_dynamic(m.vars[vi])) k.shared_offset[vi] = k.static_shared;
  return k;
}

FrameLayout layout_frame(const Module& m, uint32_t fi) {
  FrameLayout fl;
  const Function& f = m.funcs[fi];
  uint64_t off = 0;  // 64-bit: each variable is at most kMaxStaticBytes (parser)
  auto place = [&](uint32_t vi) {
    const Variable& v = m.vars[vi];
    const uint32_t a = std::max<uint32_t>(1, v.natural_align());
    fl.align = std::max(fl.align, a);
    off = align_up(off, a);
    fl.offset[vi] = uint32_t(std::min<uint64_t>(off, UINT32_MAX));
    off += std::max<uint64_t>(v.size, 1);
  };
  if (!f.is_entry) {
    for (uint32_t vi : f.params)
      if (m.vars[vi].space == Space::param) place(vi);
    for (uint32_t vi : f.rets)
      if (m.vars[vi].space == Space::param) place(vi);
  }
  for (uint32_t vi : f.locals) {
    const Variable& v = m.vars[vi];
    if (v.space == Space::local || v.space == Space::param) place(vi);
  }
  off = align_up(off, 16);
  if (off > kMaxStaticBytes)
    throw DiagError(SourceLoc{f.source_file, f.line, f.col},
                    fmt::format("the local frame of '{}' (.local and .param variables) is {} "
                                "bytes, more than the {}-byte limit",
                                f.name, off, kMaxStaticBytes),
                    "");
  fl.bytes = uint32_t(off);
  return fl;
}

}  // namespace simtlab::ptx
