#include "ptx/ir.h"

#include <array>
#include <unordered_map>

#include <fmt/format.h>

namespace simtlab::ptx {

namespace {
constexpr std::array<OpInfo, size_t(Op::count_)> kOps = {{
#define OP(id, mn, cls, fl) OpInfo{mn, OpClass::cls, fl},
#include "ptx/opcodes.def"
#undef OP
}};
}  // namespace

const OpInfo& op_info(Op op) { return kOps[size_t(op)]; }

std::optional<Op> op_from_mnemonic(std::string_view m) {
  static const auto table = [] {
    std::unordered_map<std::string_view, Op> t;
    for (size_t i = 0; i < kOps.size(); ++i) t.emplace(kOps[i].mnemonic, Op(i));
    return t;
  }();
  auto it = table.find(m);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

std::string_view exec_class_name(ExecClass c) {
  static constexpr std::string_view names[] = {"int_alu", "int_mul", "int_div", "fp32",
                                               "fp64",    "sfu",     "mem",     "branch",
                                               "barrier", "warp",    "tensor",  "nop"};
  return names[size_t(c)];
}

static std::string_view round_name(Round r) {
  static constexpr std::string_view n[] = {"",    "rn",  "rz",  "rm",  "rp", "rna",
                                           "rni", "rzi", "rmi", "rpi", "rs"};
  return n[size_t(r)];
}
static std::string_view cmp_name(Cmp c) {
  static constexpr std::string_view n[] = {"",    "eq",  "ne",  "lt",  "le",  "gt",  "ge",
                                           "lo",  "ls",  "hi",  "hs",  "equ", "neu", "ltu",
                                           "leu", "gtu", "geu", "num", "nan"};
  return n[size_t(c)];
}

std::string full_mnemonic(const Instruction& in) {
  std::string s(op_name(in.op));
  auto add = [&](std::string_view x) {
    if (!x.empty()) {
      s += '.';
      s += x;
    }
  };
  switch (in.op) {
    case Op::atom:
    case Op::red:
    case Op::redux: {
      static constexpr std::string_view a[] = {"",    "add", "inc", "dec", "exch", "cas",
                                               "min", "max", "and", "or",  "xor"};
      if (in.space != Space::generic) add(space_name(in.space));
      add(a[in.sub]);
      break;
    }
    case Op::shfl: {
      static constexpr std::string_view m[] = {"", "up", "down", "bfly", "idx"};
      if (in.has(IF_SYNC)) add("sync");
      add(m[in.sub]);
      break;
    }
    case Op::vote:
    case Op::match: {
      static constexpr std::string_view m[] = {"", "all", "any", "uni", "ballot"};
      add(m[in.sub]);
      if (in.has(IF_SYNC)) add("sync");
      break;
    }
    case Op::mul:
    case Op::mad:
    case Op::mul24:
    case Op::mad24:
    case Op::madc: {
      static constexpr std::string_view m[] = {"", "lo", "hi", "wide"};
      add(m[in.sub]);
      break;
    }
    case Op::bar:
    case Op::barrier:
      if (in.has(IF_WARP)) add("warp");
      if (in.has(IF_RED)) add("red");
      if (in.has(IF_ARRIVE)) add("arrive");
      if (in.has(IF_SYNC) && !in.has(IF_RED)) add("sync");
      break;
    case Op::cvta:
      if (in.has(IF_TO)) add("to");
      add(space_name(in.space));
      break;
    default:
      if (in.space != Space::generic) add(space_name(in.space));
      break;
  }
  if (in.has(IF_NC)) add("nc");
  if (in.sem == Sem::volatile_) add("volatile");
  add(cmp_name(in.cmp));
  if (in.boolop == BoolOp::and_) add("and");
  if (in.boolop == BoolOp::or_) add("or");
  if (in.boolop == BoolOp::xor_) add("xor");
  if (in.boolop == BoolOp::popc) add("popc");
  add(round_name(in.rnd));
  if (in.has(IF_APPROX)) add("approx");
  if (in.has(IF_FULL)) add("full");
  if (in.has(IF_FTZ)) add("ftz");
  if (in.has(IF_SAT)) add("sat");
  if (in.has(IF_CC)) add("cc");
  if (in.has(IF_UNI)) add("uni");
  if (in.vec > 1) add(fmt::format("v{}", in.vec));
  add(type_name(in.type));
  add(type_name(in.type2));
  for (const auto& e : in.extra) s += e;
  return s;
}

ExecClass classify(const Instruction& in) {
  const OpClass c = in.info().cls;
  // wmma.load / wmma.store move a matrix tile through the LD/ST unit; wmma.mma is tensor math.
  if (in.op == Op::wmma && !in.extra.empty() && (in.extra[0] == ".load" || in.extra[0] == ".store"))
    return ExecClass::mem;
  // wgmma.fence / commit_group / wait_group only order the asynchronous tensor work: they do
  // not occupy the tensor unit (the timing model's wait_group waits for the groups itself).
  if (in.op == Op::wgmma && (in.extra.empty() || in.extra[0] != ".mma_async"))
    return ExecClass::warp;
  switch (c) {
    case OpClass::mem:
    case OpClass::atomic:
    case OpClass::tex:
      return ExecClass::mem;
    case OpClass::branch:
    case OpClass::call:
    case OpClass::ret:
    case OpClass::exit:
      return ExecClass::branch;
    case OpClass::barrier:
    case OpClass::fence:
      return ExecClass::barrier;
    case OpClass::warp:
      return ExecClass::warp;
    case OpClass::tensor:
      return ExecClass::tensor;
    case OpClass::misc:
      return ExecClass::nop;
    case OpClass::sfu:
      return in.type == Type::f64 && !in.has(IF_APPROX) ? ExecClass::fp64 : ExecClass::sfu;
    default:
      break;
  }
  if (in.op == Op::activemask) return ExecClass::warp;
  const Type t = in.op == Op::cvt && is_float(in.type2) && !is_float(in.type) ? in.type2 : in.type;
  const bool f64 = t == Type::f64 || (in.op == Op::cvt && in.type2 == Type::f64);
  const bool flt = is_float(t);
  switch (in.op) {
    case Op::div:
    case Op::rem:
      if (flt)
        return f64 ? ExecClass::fp64
                   : (in.has(IF_APPROX) || in.has(IF_FULL) ? ExecClass::sfu : ExecClass::sfu);
      return ExecClass::int_div;
    case Op::sqrt:
      return f64 ? ExecClass::fp64 : ExecClass::sfu;
    case Op::mul:
    case Op::mad:
    case Op::mul24:
    case Op::mad24:
    case Op::madc:
    case Op::sad:
    case Op::dp4a:
    case Op::dp2a:
      if (flt) return f64 ? ExecClass::fp64 : ExecClass::fp32;
      return ExecClass::int_mul;
    default:
      if (f64) return ExecClass::fp64;
      if (flt) return ExecClass::fp32;
      return ExecClass::int_alu;
  }
}

const Function* Module::find_function(std::string_view name) const {
  auto it = func_index.find(std::string(name));
  if (it != func_index.end()) return &funcs[it->second];
  for (const auto& f : funcs)
    if (f.name == name) return &f;
  return nullptr;
}

const Variable* Module::find_var(std::string_view name) const {
  auto it = var_index.find(std::string(name));
  if (it != var_index.end()) return &vars[it->second];
  for (const auto& v : vars)
    if (v.owner < 0 && v.name == name) return &v;
  return nullptr;
}

}  // namespace simtlab::ptx

namespace simtlab::ptx {

static void collect(const Instruction& in, const Operand& o, std::vector<uint32_t>& out) {
  switch (o.kind) {
    case OperandKind::reg:
    case OperandKind::pred:
      out.push_back(o.id);
      break;
    case OperandKind::addr:
      if (o.base == OperandKind::reg) out.push_back(o.id);
      break;
    case OperandKind::vec:
      for (unsigned k = 0; k < o.count; ++k) collect(in, in.elem(o, k), out);
      break;
    default:
      break;
  }
}

void inst_uses(const Instruction& in, std::vector<uint32_t>& out) {
  out.clear();
  if (in.guard >= 0) out.push_back(uint32_t(in.guard));
  for (size_t i = in.ndst; i < in.ops.size(); ++i) collect(in, in.ops[i], out);
  if (in.call) {
    if (in.call->target.kind == OperandKind::reg) out.push_back(in.call->target.id);
    for (const auto& a : in.call->args) collect(in, a, out);
  }
  // A destination that is an address (st/red) reads its base; vector stores read elements.
}

void inst_defs(const Instruction& in, std::vector<uint32_t>& out) {
  out.clear();
  for (size_t i = 0; i < in.ndst && i < in.ops.size(); ++i) collect(in, in.ops[i], out);
  if (in.call)
    for (const auto& r : in.call->rets)
      if (r.kind == OperandKind::reg) out.push_back(r.id);
}

}  // namespace simtlab::ptx
