// Kernel decoding (IR -> DInst arrays) and module loading.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "base/bits.h"
#include "base/error.h"
#include "func/exec_common.h"
#include "func/executor.h"
#include "func/memory.h"
#include "func/module.h"
#include "ptx/cfg.h"
#include "ptx/layout.h"
#include "ptx/parser.h"

namespace simtlab::func {

using namespace ptx;

Handler select_mem_for(const Instruction& in, AddrSpace as);

namespace {

void h_unsupported(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  guest_fault(
      cx, w, d, unsigned(__builtin_ctz(e)),
      fmt::format("unsupported PTX instruction '{}' (simtlab does not implement this form yet)",
                  full_mnemonic(*d.in)));
}

CallDesc::Builtin builtin_of(std::string_view n) {
  if (n == "vprintf") return CallDesc::Builtin::vprintf;
  if (n == "malloc") return CallDesc::Builtin::malloc;
  if (n == "__nv_aligned_device_malloc") return CallDesc::Builtin::aligned_malloc;
  if (n == "free") return CallDesc::Builtin::free;
  if (n == "__assertfail") return CallDesc::Builtin::assertfail;
  return CallDesc::Builtin::other;
}

uint8_t d2ma_of(std::string_view n) {
  if (!n.starts_with("__d2ma_")) return CallDesc::d2ma_none;
  n.remove_prefix(7);
  if (n == "init") return CallDesc::d2ma_init;
  if (n == "set_datatype") return CallDesc::d2ma_set_datatype;
  if (n == "set_mode") return CallDesc::d2ma_set_mode;
  if (n == "configure") return CallDesc::d2ma_configure;
  if (n == "execute") return CallDesc::d2ma_execute;
  return CallDesc::d2ma_none;
}

class Decoder {
 public:
  Decoder(const LoadedModule& lm, uint32_t kernel) : lm_(lm), m_(lm.ir()), kernel_(kernel) {}

  std::unique_ptr<Program> run() {
    auto P = std::make_unique<Program>();
    P->module = &lm_;
    P->ir = &m_;
    P->kernel_func = kernel_;
    P->name = m_.funcs[kernel_].name;
    P->layout = layout_kernel(m_, kernel_);
    P->func_by_module_index.assign(m_.funcs.size(), -1);
    // Functions: the kernel first, then every defined function it may call.
    uint32_t pc = 0;
    for (uint32_t fi : P->layout.functions) {
      const Function& f = m_.funcs[fi];
      if (!f.defined) continue;
      ProgFunction pf;
      pf.module_func = fi;
      pf.name = f.name;
      pf.begin = pc;
      pf.end = pc + uint32_t(f.insts.size());
      pf.frame = layout_frame(m_, fi);
      if (!f.is_entry) {
        for (uint32_t v : f.params) {
          if (m_.vars[v].space != Space::param)
            throw UserError(fmt::format("function {}: .reg parameters are not supported", f.name));
          pf.param_vars.push_back(v);
        }
        for (uint32_t v : f.rets) {
          if (m_.vars[v].space != Space::param)
            throw UserError(
                fmt::format("function {}: .reg return values are not supported", f.name));
          pf.ret_vars.push_back(v);
        }
      }
      // Register slots: values and predicates numbered separately.
      std::vector<uint32_t> slot(f.regs.size());
      for (size_t r = 0; r < f.regs.size(); ++r)
        slot[r] = f.regs[r].is_pred() ? pf.npreds++ : pf.nregs++;
      pf.reg_slot = slot;
      slots_.push_back(std::move(slot));
      P->func_by_module_index[fi] = int32_t(P->funcs.size());
      P->funcs.push_back(std::move(pf));
      pc += uint32_t(f.insts.size()) + 1;  // + the function-end pseudo instruction
    }
    P->code.resize(pc);
    for (uint32_t k = 0; k < P->funcs.size(); ++k) decode_function(*P, k);
    for (const ProgFunction& pf : P->funcs) {
      P->max_regs = std::max(P->max_regs, pf.nregs);
      P->max_preds = std::max(P->max_preds, pf.npreds);
    }
    P->kernel_local_bytes = P->funcs[0].frame.bytes;
    P->has_calls = P->funcs.size() > 1 || !P->calls.empty();
    // Register estimate: PTX liveness (max live 32-bit slots over the kernel and callees)
    // plus a small fixed overhead for addresses/temporaries ptxas needs.
    uint32_t live = 0;
    for (const ProgFunction& pf : P->funcs)
      live = std::max(live, compute_liveness(m_.funcs[pf.module_func]).max_live_slots);
    P->estimated_regs = std::min<uint32_t>(255, live + 2);
    return P;
  }

 private:
  uint64_t sym_value(const Program& P, uint32_t fi, uint32_t var, int64_t off, bool* frame,
                     AddrSpace* space) {
    const Variable& v = m_.vars[var];
    *frame = false;
    switch (v.space) {
      case Space::global:
      case Space::const_: {
        const Addr a = lm_.var_address(var);
        if (!a)
          throw UserError(fmt::format(
              "kernel {}: variable '{}' is declared .extern but never defined", P.name, v.name));
        if (space) *space = v.space == Space::global ? AddrSpace::global : AddrSpace::const_;
        return a + uint64_t(off);
      }
      case Space::shared: {
        auto it = P.layout.shared_offset.find(var);
        if (it == P.layout.shared_offset.end())
          throw UserError(
              fmt::format("kernel {}: shared variable '{}' has no layout", P.name, v.name));
        if (space) *space = AddrSpace::shared;
        return it->second + uint64_t(off);
      }
      case Space::local:
      case Space::param: {
        const Function& f = m_.funcs[fi];
        if (v.space == Space::param && f.is_entry && v.is_param) {
          for (const auto& p : P.layout.params)
            if (p.var == var) {
              if (space) *space = AddrSpace::kparam;
              return p.offset + uint64_t(off);
            }
        }
        const ProgFunction& pf = P.funcs[P.func_by_module_index[fi]];
        auto it = pf.frame.offset.find(var);
        if (it == pf.frame.offset.end())
          throw UserError(
              fmt::format("function {}: variable '{}' is not in its frame", f.name, v.name));
        *frame = true;
        if (space) *space = AddrSpace::local;
        return it->second + uint64_t(off);
      }
      default:
        throw UserError(fmt::format("unsupported use of variable '{}' (state space {})", v.name,
                                    space_name(v.space)));
    }
  }

  DOp convert(Program& P, uint32_t k, const Instruction& in, const Operand& o) {
    const uint32_t fi = P.funcs[k].module_func;
    const auto& slot = slots_[k];
    DOp d;
    switch (o.kind) {
      case OperandKind::reg:
        d.kind = DOp::k_reg;
        d.slot = slot[o.id];
        break;
      case OperandKind::pred:
        d.kind = DOp::k_pred;
        d.slot = slot[o.id];
        d.neg = o.negate;
        break;
      case OperandKind::imm:
        d.kind = DOp::k_imm;
        d.imm = uint64_t(o.imm);
        break;
      case OperandKind::sreg:
        d.kind = DOp::k_sreg;
        d.sreg = o.sreg;
        d.comp = o.comp;
        break;
      case OperandKind::sink:
        d.kind = DOp::k_sink;
        break;
      case OperandKind::func:
        d.kind = DOp::k_imm;
        d.imm = kFuncAddrBase + o.id;
        break;
      case OperandKind::sym: {
        bool frame;
        d.imm = sym_value(P, fi, o.id, o.imm, &frame, nullptr);
        d.kind = frame ? DOp::k_frame : DOp::k_imm;
        break;
      }
      case OperandKind::vec: {
        d.kind = DOp::k_vec;
        d.count = o.count;
        d.slot = uint32_t(P.elems.size());
        std::vector<DOp> el;
        for (unsigned i = 0; i < o.count; ++i) el.push_back(convert(P, k, in, in.elem(o, i)));
        for (auto& e : el) P.elems.push_back(e);
        break;
      }
      case OperandKind::addr:
        // Used as a value (texture/surface handle in [h, {...}]): the base register.
        if (o.base == OperandKind::reg) {
          d.kind = DOp::k_reg;
          d.slot = slot[o.id];
        } else if (o.base == OperandKind::sym) {
          bool frame;
          d.imm = sym_value(P, fi, o.id, o.imm, &frame, nullptr);
          d.kind = frame ? DOp::k_frame : DOp::k_imm;
        } else {
          d.kind = DOp::k_imm;
          d.imm = uint64_t(o.imm);
        }
        break;
      default:
        break;
    }
    return d;
  }

  DAddr convert_addr(Program& P, uint32_t k, const Operand& o, AddrSpace* sym_space) {
    DAddr a;
    *sym_space = AddrSpace::generic;
    const uint32_t fi = P.funcs[k].module_func;
    if (o.base == OperandKind::reg) {
      a.base_slot = int32_t(slots_[k][o.id]);
      a.off = uint64_t(o.imm);
    } else if (o.base == OperandKind::sym) {
      bool frame;
      a.off = sym_value(P, fi, o.id, o.imm, &frame, sym_space);
      a.frame = frame;
    } else if (o.base == OperandKind::func) {
      a.off = kFuncAddrBase + o.id + uint64_t(o.imm);
    } else {
      a.off = uint64_t(o.imm);
    }
    return a;
  }

  uint32_t pc_of_label(const Program& P, uint32_t k, uint32_t label) {
    const Function& f = m_.funcs[P.funcs[k].module_func];
    const int32_t t = f.label_target[label];
    return P.funcs[k].begin + uint32_t(t);  // == end when the label is at the end
  }

  void decode_function(Program& P, uint32_t k) {
    const ProgFunction pf = P.funcs[k];
    const Function& f = m_.funcs[pf.module_func];
    std::vector<uint32_t> uses, defs;
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const Instruction& in = f.insts[i];
      DInst& d = P.code[pf.begin + i];
      d.in = &in;
      d.func = k;
      d.exec = in.exec;
      if (in.guard >= 0) {
        d.guard = int32_t(slots_[k][uint32_t(in.guard)]);
        d.guard_neg = in.guard_neg;
      }
      // Operands (memory operands go to d.addr).
      AddrSpace sym_space = AddrSpace::generic;
      bool has_addr = false;
      const bool memop = in.op == Op::ld || in.op == Op::ldu || in.op == Op::st ||
                         in.op == Op::atom || in.op == Op::red || in.op == Op::prefetch ||
                         in.op == Op::prefetchu || in.op == Op::wmma;
      d.nops = uint8_t(std::min<size_t>(in.ops.size(), 6));
      for (size_t j = 0; j < in.ops.size() && j < 6; ++j) {
        const Operand& o = in.ops[j];
        if (o.kind == OperandKind::addr && memop && !has_addr) {
          d.addr = convert_addr(P, k, o, &sym_space);
          has_addr = true;
          continue;
        }
        if (o.kind == OperandKind::label) continue;
        d.op[j] = convert(P, k, in, o);
      }
      // Handler.
      Handler h = nullptr;
      if (in.op == Op::wmma) {
        d.aspace = resolve_space(P, k, in, d, sym_space);
        h = select_mma(in);
      } else if (memop && in.op != Op::prefetch && in.op != Op::prefetchu) {
        d.elem_size = uint8_t(type_size(in.type));
        d.vec = in.vec;
        d.sign_extend = is_signed(in.type);
        d.aspace = resolve_space(P, k, in, d, sym_space);
        h = select_mem_for(in, d.aspace);
      } else {
        for (auto sel : {select_cluster, select_ctrl, select_misc, select_int, select_float,
                         select_cvt, select_mem, select_warp, select_mma_sync, select_async}) {
          h = sel(in);
          if (h) break;
        }
      }
      d.fn = h ? h : &h_unsupported;
      if (in.op == Op::wgmma && h && !in.extra.empty()) {
        const std::string& k = in.extra[0];
        if (k == ".mma_async") d.wgmma_n = uint16_t(wgmma_n_of(in));
        d.wgmma_commit = k == ".commit_group";
        if (k == ".wait_group" && !in.ops.empty() && in.ops[0].kind == OperandKind::imm)
          d.wgmma_wait = int8_t(std::clamp<int64_t>(in.ops[0].imm, 0, 127));
      }
      if (in.op == Op::cp && h) {  // the timing model's asynchronous-copy bookkeeping
        d.async_copy = is_async_copy(in);
        d.async_commit = is_async_commit(in);
        d.async_wait = int8_t(std::clamp(async_wait_groups(in), -1, 127));
        bool bulk = false, commit = false, wait = false;
        for (const std::string& m : in.extra) {
          bulk |= m == ".bulk";
          commit |= m == ".commit_group";
          wait |= m == ".wait_group" || m == ".wait_group.read";
        }
        d.bulk_commit = bulk && commit;
        if (bulk && wait && !in.ops.empty() && in.ops[0].kind == OperandKind::imm)
          d.bulk_wait = int8_t(std::clamp<int64_t>(in.ops[0].imm, 0, 127));
      }
      if (in.op == Op::mbarrier && h)
        for (const std::string& m : in.extra) d.mbar_try_wait |= m == ".try_wait";
      // Livelock detection counts every instruction that may change memory others can see.
      // mbarrier.test_wait / try_wait / pending_count only read: a warp polling an mbarrier
      // that nobody can complete repeats its state like any other spin loop.
      bool mbar_reads_only = false;
      if (in.op == Op::mbarrier)
        for (const std::string& m : in.extra)
          mbar_reads_only |= m == ".test_wait" || m == ".try_wait" || m == ".pending_count";
      d.writes_mem = (in.info().flags & ptx::OPF_STORE) != 0 || in.op == Op::wmma ||
                     (in.op == Op::mbarrier && !mbar_reads_only) || in.op == Op::call;
      // Shared and local state-space addresses are 32-bit: register + offset wraps there.
      if (has_addr && (d.aspace == AddrSpace::shared || d.aspace == AddrSpace::local))
        d.addr.mask = 0xffff'ffffull;
      // Control flow targets.
      if (in.op == Op::bra) {
        d.target = pc_of_label(P, k, in.ops[0].id);
        d.reconv = pf.begin + reconvergence_pc(f, i);
        if (const uint32_t l = likely_convergence_pc(f, i); l != ~0u) d.lpc = pf.begin + l;
      } else if (in.op == Op::ret) {
        d.target = pf.end;
        d.reconv = pf.begin + reconvergence_pc(f, i);
      } else if (in.op == Op::call) {
        decode_call(P, k, in, d);
      }
      // Registers read/written (for the timing model).
      inst_uses(in, uses);
      inst_defs(in, defs);
      for (uint32_t r : uses) {
        if (d.nsrc >= 8) break;
        const uint32_t s = slots_[k][r];
        d.src[d.nsrc++] = uint16_t(f.regs[r].is_pred() ? kPredSlotBase + s : s);
      }
      for (uint32_t r : defs) {
        if (d.ndst >= 4) break;
        const uint32_t s = slots_[k][r];
        d.dst[d.ndst++] = uint16_t(f.regs[r].is_pred() ? kPredSlotBase + s : s);
      }
    }
    // wgmma.mma_async writes its accumulators asynchronously: no scoreboard entries (the
    // timing model's wgmma.wait_group orders the uses, as on hardware).
    for (uint32_t i = 0; i < f.insts.size(); ++i)
      if (f.insts[i].op == Op::wgmma) P.code[pf.begin + i].ndst = 0;
    // Transfer-region markers (include/simtlab/xfer.h): the instruction a label
    // __simtlab_xfer_begin* precedes.
    for (size_t l = 0; l < f.label_names.size(); ++l)
      if (f.label_names[l].rfind("__simtlab_xfer_begin", 0) == 0 && f.label_target[l] >= 0 &&
          size_t(f.label_target[l]) < f.insts.size())
        P.code[pf.begin + uint32_t(f.label_target[l])].xfer_mark = true;
    DInst& end = P.code[pf.end];
    end.fn = func_end_handler();
    end.func = k;
    end.exec = ExecClass::branch;
  }

  AddrSpace resolve_space(const Program& P, uint32_t k, const Instruction& in, const DInst& d,
                          AddrSpace sym_space) {
    const bool is_kernel = k == 0;
    switch (in.space) {
      case Space::global:
        return AddrSpace::global;
      case Space::shared:
      case Space::shared_cluster:
        return AddrSpace::shared;
      case Space::local:
        return AddrSpace::local;
      case Space::const_:
        return AddrSpace::const_;
      case Space::param:
        if (sym_space == AddrSpace::kparam) return AddrSpace::kparam;
        if (sym_space == AddrSpace::local || d.addr.frame) return AddrSpace::local;
        return is_kernel ? AddrSpace::kparam : AddrSpace::local;
      default:
        return AddrSpace::generic;
    }
  }

  void decode_call(Program& P, uint32_t k, const Instruction& in, DInst& d) {
    const CallInfo& ci = *in.call;
    CallDesc c;
    const Function* callee = nullptr;
    if (ci.target.kind == OperandKind::func) {
      callee = &m_.funcs[ci.target.id];
      c.name = callee->name;
      if (!callee->defined) {
        c.builtin = builtin_of(callee->name);
      } else {
        d.callee = uint32_t(P.func_by_module_index[ci.target.id]);
        c.d2ma = d2ma_of(callee->name);
        if (c.d2ma) {
          // The D2MA configure/execute instructions read their operands from registers: the
          // st.param of the call sequence are register moves for the timing model, not
          // local-memory stores (the functional store still passes the value).
          const size_t pc = size_t(&d - P.code.data());
          for (size_t j = pc; j-- > 0 && pc - j <= 24;) {
            DInst& a = P.code[j];
            if (!a.in || a.in->op == Op::call || a.func != d.func) break;
            if (a.in->op == Op::st && a.addr.frame) a.exec = ExecClass::int_alu;
          }
        }
      }
    } else {
      c.indirect = true;
      c.target = convert(P, k, in, ci.target);
      c.name = "<indirect>";
    }
    auto size_of = [&](const Operand& o, const std::vector<uint32_t>* callee_vars,
                       size_t idx) -> uint32_t {
      if (o.kind == OperandKind::sym) return uint32_t(m_.vars[o.id].size);
      if (callee_vars && idx < callee_vars->size())
        return uint32_t(m_.vars[(*callee_vars)[idx]].size);
      if (o.kind == OperandKind::reg)
        return type_size(m_.funcs[P.funcs[k].module_func].regs[o.id].type);
      return 8;
    };
    for (size_t j = 0; j < ci.args.size(); ++j) {
      c.args.push_back(convert(P, k, in, ci.args[j]));
      c.arg_size.push_back(size_of(ci.args[j], callee ? &callee->params : nullptr, j));
    }
    for (size_t j = 0; j < ci.rets.size(); ++j) {
      c.rets.push_back(convert(P, k, in, ci.rets[j]));
      c.ret_size.push_back(size_of(ci.rets[j], callee ? &callee->rets : nullptr, j));
    }
    d.call = uint32_t(P.calls.size());
    P.calls.push_back(std::move(c));
  }

  const LoadedModule& lm_;
  const Module& m_;
  uint32_t kernel_;
  std::vector<std::vector<uint32_t>> slots_;  // per Program function: reg id -> slot
};

}  // namespace

std::unique_ptr<Program> decode_kernel(const LoadedModule& m, uint32_t func_index) {
  return Decoder(m, func_index).run();
}

// ---- LoadedModule ------------------------------------------------------------------------------

LoadedModule::LoadedModule(GlobalMemory& mem, const std::vector<PtxSource>& sources,
                           const std::function<void(ptx::Module&)>& pass)
    : mem_(mem) {
  for (const auto& s : sources) add_translation_unit(ir_, s.text, s.name);
  finalize_module(ir_);
  if (pass) pass(ir_);
  // Allocate module-scope .global and .const variables.
  for (uint32_t vi = 0; vi < ir_.vars.size(); ++vi) {
    const Variable& v = ir_.vars[vi];
    if (v.owner >= 0 || (v.space != Space::global && v.space != Space::const_)) continue;
    if (v.linkage == Linkage::extern_) continue;
    const uint64_t size = std::max<uint64_t>(v.size, 1);
    const Addr a = mem_.allocate(
        size, v.space == Space::global ? AllocKind::module_global : AllocKind::module_const,
        v.name);
    if (!a)
      throw UserError(fmt::format("out of device memory allocating module variable '{}' ({} bytes)",
                                  v.name, size));
    allocations_.push_back(a);
    var_addr_[vi] = a;
    if (!v.init.empty())
      std::memcpy(mem_.translate(a, v.init.size()), v.init.data(), v.init.size());
  }
  // Apply relocations (addresses of variables/functions inside initializers).
  for (uint32_t vi = 0; vi < ir_.vars.size(); ++vi) {
    auto it = var_addr_.find(vi);
    if (it == var_addr_.end()) continue;
    for (const Reloc& r : ir_.vars[vi].relocs) {
      uint64_t val;
      if (r.is_func) {
        val = kFuncAddrBase + r.target;
      } else {
        auto t = var_addr_.find(r.target);
        if (t == var_addr_.end())
          throw UserError(
              fmt::format("initializer of '{}' refers to '{}', which has no global address",
                          ir_.vars[vi].name, ir_.vars[r.target].name));
        val = t->second;
      }
      val += uint64_t(r.addend);
      std::memcpy(mem_.translate(it->second + r.offset, r.size), &val, r.size);
    }
  }
}

LoadedModule::~LoadedModule() {
  for (Addr a : allocations_) mem_.release(a);
}

const Program* LoadedModule::kernel(const std::string& name) {
  auto it = kernels_.find(name);
  if (it != kernels_.end()) return it->second.get();
  auto f = ir_.func_index.find(name);
  uint32_t fi = 0;
  bool found = false;
  if (f != ir_.func_index.end()) {
    fi = f->second;
    found = true;
  } else {
    for (uint32_t i = 0; i < ir_.funcs.size(); ++i)
      if (ir_.funcs[i].name == name) {
        fi = i;
        found = true;
        break;
      }
  }
  if (!found || !ir_.funcs[fi].is_entry || !ir_.funcs[fi].defined) return nullptr;
  auto P = decode_kernel(*this, fi);
  const Program* p = P.get();
  kernels_[name] = std::move(P);
  return p;
}

std::vector<std::string> LoadedModule::kernel_names() const {
  std::vector<std::string> n;
  for (const auto& f : ir_.funcs)
    if (f.is_entry && f.defined) n.push_back(f.name);
  return n;
}

std::pair<Addr, uint64_t> LoadedModule::symbol(const std::string& name) const {
  for (const auto& [vi, a] : var_addr_)
    if (ir_.vars[vi].name == name) return {a, ir_.vars[vi].size};
  return {0, 0};
}

bool LoadedModule::rebind(const std::string& name, Addr addr) {
  for (auto& [vi, a] : var_addr_) {
    if (ir_.vars[vi].name != name) continue;
    const uint64_t size = std::max<uint64_t>(ir_.vars[vi].size, 1);
    const uint8_t* src = mem_.translate(a, size);
    uint8_t* dst = mem_.translate(addr, size);
    if (!src || !dst) return false;
    std::memcpy(dst, src, size);
    a = addr;
    kernels_.clear();
    return true;
  }
  return false;
}

Addr LoadedModule::var_address(uint32_t var) const {
  auto it = var_addr_.find(var);
  return it == var_addr_.end() ? 0 : it->second;
}

}  // namespace simtlab::func
