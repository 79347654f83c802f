// The kernel IR produced by the PTX parser: Module -> Function -> Instruction (+ CFG blocks).
// Every operand is decoded and typed; opcodes and modifiers are enums. The functional
// executor (src/func) pre-decodes this further into handler tables, so nothing here is on
// the per-instruction execution path.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/types.h"
#include "ptx/types.h"

namespace simtlab::ptx {

// ---- opcode table --------------------------------------------------------------------------

enum OpFlags : uint32_t {
  OPF_DST = 1u << 0,     // writes a destination register
  OPF_LOAD = 1u << 1,    // reads memory
  OPF_STORE = 1u << 2,   // writes memory
  OPF_ATOMIC = 1u << 3,  // read-modify-write
  OPF_BRANCH = 1u << 4,
  OPF_CALL = 1u << 5,
  OPF_RET = 1u << 6,
  OPF_EXIT = 1u << 7,
  OPF_BARRIER = 1u << 8,
};

/// Default unit class of an opcode (before refinement by type).
enum class OpClass : uint8_t {
  alu,
  sfu,
  mem,
  atomic,
  branch,
  call,
  ret,
  exit,
  barrier,
  fence,
  warp,
  tex,
  tensor,
  misc
};

enum class Op : uint16_t {
#define OP(id, mn, cls, fl) id,
#include "ptx/opcodes.def"
#undef OP
  count_
};

struct OpInfo {
  std::string_view mnemonic;
  OpClass cls;
  uint32_t flags;
};
const OpInfo& op_info(Op op);
std::optional<Op> op_from_mnemonic(std::string_view m);
inline std::string_view op_name(Op op) { return op_info(op).mnemonic; }

/// Timing category of an instruction, refined from OpClass and type. The timing model maps
/// each to a functional unit with a latency and initiation interval from the GPU preset.
enum class ExecClass : uint8_t {
  int_alu,  // integer add/logic/shift/compare/move/convert
  int_mul,  // integer mul/mad
  int_div,  // integer div/rem (a long macro sequence in SASS)
  fp32,     // f32/f16 add/mul/fma/min/max/compare/convert
  fp64,     // f64 arithmetic
  sfu,      // transcendental and reciprocal approximations, sqrt, f32/f64 div
  mem,      // ld/st/atom/red/tex/surface/cp.async: goes to the LD/ST unit
  branch,   // bra/call/ret/exit
  barrier,  // bar/barrier/membar/fence
  warp,     // shfl/vote/match/redux/activemask
  tensor,   // wmma/mma
  nop,      // pmevent, nanosleep, prefetch hints...
  count_
};
std::string_view exec_class_name(ExecClass c);

// ---- instruction modifier flags ------------------------------------------------------------

enum InstFlags : uint32_t {
  IF_FTZ = 1u << 0,
  IF_SAT = 1u << 1,
  IF_APPROX = 1u << 2,
  IF_FULL = 1u << 3,
  IF_CC = 1u << 4,        // writes carry (add.cc ...)
  IF_UNI = 1u << 5,       // bra.uni / call.uni / ret.uni
  IF_NC = 1u << 6,        // ld.global.nc
  IF_TO = 1u << 7,        // cvta.to.*
  IF_SHIFTAMT = 1u << 8,  // bfind.shiftamt
  IF_CLAMP = 1u << 9,     // shf/bmsk/shfl? clamp
  IF_WRAP = 1u << 10,
  IF_LEFT = 1u << 11,   // shf.l
  IF_RIGHT = 1u << 12,  // shf.r
  IF_ABS = 1u << 13,    // min/max .abs
  IF_NAN = 1u << 14,    // min/max .NaN
  IF_XORSIGN = 1u << 15,
  IF_RELU = 1u << 16,
  IF_SYNC = 1u << 17,     // .sync
  IF_ALIGNED = 1u << 18,  // .aligned
  IF_ARRIVE = 1u << 19,   // bar.arrive / barrier.arrive
  IF_RED = 1u << 20,      // bar.red
  IF_WARP = 1u << 21,     // bar.warp.sync
  IF_TRAP = 1u << 22,     // suld/sust .trap (also .clamp/.zero via IF_CLAMP/IF_ZERO)
  IF_ZERO = 1u << 23,
  IF_VOLATILE = 1u << 24,
  IF_LEVEL = 1u << 25,   // tex.level
  IF_GRAD = 1u << 26,    // tex.grad
  IF_SURF_P = 1u << 27,  // suld.p (formatted) vs .b
  IF_PIPE2 = 1u << 28,   // destination written as `a|b`
  IF_OOB = 1u << 29,
  IF_NOUNROLL = 1u << 30,  // informational
};

// ---- operands ------------------------------------------------------------------------------

enum class OperandKind : uint8_t {
  none,
  reg,    // value register: id = register index in the function
  pred,   // predicate register: id = register index (negate for !%p)
  imm,    // immediate: imm holds the raw bits (ints sign-extended, floats as IEEE bits)
  sreg,   // special register: sreg + comp (x/y/z = 0/1/2; envreg number)
  sym,    // address of a variable: id = variable index in Module::vars, imm = offset
  func,   // a function symbol (call target or function address): id = function index
  addr,   // memory reference [base + imm]: base = reg/sym/none (absolute)
  vec,    // brace list {a, b, c, d}: elements in Instruction::elems[id .. id+count)
  label,  // branch target: id = label index in the function
  sink,   // `_`
};

struct Operand {
  OperandKind kind = OperandKind::none;
  OperandKind base = OperandKind::none;  // addr only: reg, sym or none
  bool negate = false;
  uint8_t comp = 0;
  Sreg sreg = Sreg::tid;
  uint8_t count = 0;  // vec element count
  uint32_t id = 0;
  int64_t imm = 0;
};

// ---- instructions --------------------------------------------------------------------------

struct CallInfo {
  std::vector<Operand> rets;      // return-value params (sym operands)
  Operand target;                 // func (direct) or reg (indirect)
  std::vector<Operand> args;      // argument params (sym/reg/imm operands)
  int32_t prototype = -1;         // index into Function::prototypes for indirect calls
  std::vector<uint32_t> targets;  // optional explicit target list for indirect calls
};

struct Instruction {
  Op op = Op::count_;
  Type type = Type::none;   // primary type (destination type for cvt/set)
  Type type2 = Type::none;  // second type (cvt/set/tex source type ...)
  Space space = Space::generic;
  Space space2 = Space::generic;  // cp.async source space, cvta ...
  Round rnd = Round::none;
  Cmp cmp = Cmp::none;
  BoolOp boolop = BoolOp::none;
  CacheOp cache = CacheOp::none;
  Sem sem = Sem::none;
  Scope scope = Scope::none;
  Geom geom = Geom::none;
  uint8_t sub = 0;   // MulMode / AtomOp / ShflMode / VoteMode / prmt mode ... depending on op
  uint8_t vec = 1;   // .v2/.v4/.v8 element count
  uint8_t ndst = 0;  // leading operands that are destinations
  ExecClass exec = ExecClass::int_alu;
  uint32_t flags = 0;
  int32_t guard = -1;          // predicate register guarding the instruction, -1 = always
  bool guard_neg = false;      // @!p
  std::vector<Operand> ops;    // in textual order; destinations first
  std::vector<Operand> elems;  // elements of vec operands
  std::unique_ptr<CallInfo> call;
  std::vector<std::string> extra;  // tensor/async modifiers kept verbatim (.m16n16k16 ...)
  uint32_t line = 0, col = 0;      // source position
  // CUDA source position from the last `.loc` before it (-lineinfo / -G builds): src_file
  // indexes Module::files (0 = unknown, then src_line/src_col are 0 too).
  uint32_t src_file = 0, src_line = 0, src_col = 0;
  std::string_view text;  // the instruction's source line (points into Module::source)

  MulMode mul_mode() const { return static_cast<MulMode>(sub); }
  AtomOp atom_op() const { return static_cast<AtomOp>(sub); }
  ShflMode shfl_mode() const { return static_cast<ShflMode>(sub); }
  VoteMode vote_mode() const { return static_cast<VoteMode>(sub); }
  bool has(uint32_t f) const { return (flags & f) != 0; }
  const OpInfo& info() const { return op_info(op); }
  /// Operand i of a vec operand.
  const Operand& elem(const Operand& v, unsigned i) const { return elems[v.id + i]; }
};

/// Full mnemonic with modifiers, e.g. "ld.global.v4.f32" (for reports and dumps).
std::string full_mnemonic(const Instruction& in);

// ---- variables, registers, functions ------------------------------------------------------

enum class Linkage : uint8_t { none, visible, extern_, weak, common };

/// A relocation inside a variable's initializer: bytes at `offset` hold the address of
/// variable/function `target` (+ addend), as a generic address when `generic` is set.
struct Reloc {
  uint32_t offset = 0;
  bool is_func = false;
  uint32_t target = 0;
  int64_t addend = 0;
  bool generic = false;
  uint8_t size = 8;
};

struct Variable {
  std::string name;
  Space space = Space::global;
  Type type = Type::b8;  // element type
  uint32_t vec = 1;      // .v2/.v4 element vector
  uint32_t align = 0;    // bytes (0 = natural)
  uint64_t size = 0;     // total bytes (0 for unsized extern arrays)
  bool unsized = false;  // `name[]`
  Linkage linkage = Linkage::none;
  int32_t owner = -1;     // function index for function-scope variables, -1 = module
  bool is_param = false;  // a function/kernel formal parameter
  bool is_ptr = false;    // kernel param with .ptr attribute
  Space ptr_space = Space::generic;
  std::vector<uint8_t> init;  // initial bytes (empty = zero)
  std::vector<Reloc> relocs;
  uint32_t line = 0, col = 0;
  uint32_t natural_align() const { return align ? align : type_size(type) * vec; }
};

struct Register {
  std::string name;
  Type type = Type::b32;
  uint32_t vec = 1;
  bool is_pred() const { return type == Type::pred; }
};

/// Indirect-call prototype (`proto: .callprototype (.param .b32 _) _ (.param .b64 _);`).
struct Prototype {
  std::string name;
  std::vector<Variable> rets, params;
};

struct BasicBlock {
  uint32_t first = 0, last = 0;  // instruction index range [first, last)
  std::vector<uint32_t> succs, preds;
  int32_t ipdom = -1;  // immediate post-dominator block (-1 = the virtual exit)
  bool reachable = false;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool defined = false;  // has a body (otherwise a declaration, e.g. vprintf)
  Linkage linkage = Linkage::none;
  std::vector<uint32_t> params;  // variable indices (Module::vars), in order
  std::vector<uint32_t> rets;    // return params
  std::vector<Register> regs;    // all registers (value and predicate) incl. scoped ones
  std::vector<Instruction> insts;
  std::vector<std::string> label_names;
  std::vector<int32_t> label_target;  // label index -> instruction index (== insts.size() for end)
  std::vector<Prototype> prototypes;
  std::vector<uint32_t> locals;  // function-scope variables (shared/local/param/const)
  // Kernels: static .shared variables a layout pass moved to the high offsets (after every
  // other one, in this order; ptx/relssp.h smem_layout=minimize). Empty = ptxas's order.
  std::vector<uint32_t> shared_high;
  // Performance directives (0 = absent).
  Dim3 maxntid{0, 0, 0}, reqntid{0, 0, 0};
  uint32_t minnctapersm = 0, maxnreg = 0, maxclusterrank = 0;
  // Thread-block clusters (sm_90): .reqnctapercluster dimensions (0 = absent) and
  // .explicitcluster (the kernel must be launched with a cluster).
  Dim3 reqnctapercluster{0, 0, 0};
  bool explicitcluster = false;
  bool noreturn = false;
  std::vector<std::string> pragmas;
  uint32_t line = 0, col = 0;
  std::string source_file;  // PTX file the body came from (diagnostics)
  // Filled by analyses (cfg.h).
  std::vector<BasicBlock> blocks;
  std::vector<uint32_t> block_of;  // instruction index -> block index
};

struct Module {
  std::string file;  // source name for diagnostics (first translation unit)
  std::vector<std::shared_ptr<std::string>> sources;  // PTX texts; Instruction::text points here
  uint32_t num_units = 0;                             // translation units parsed into this module
  uint32_t version_major = 0, version_minor = 0;
  std::vector<std::string> target;  // e.g. {"sm_75"}
  uint32_t address_size = 64;
  std::vector<Variable> vars;
  std::vector<Function> funcs;
  std::unordered_map<std::string, uint32_t> func_index;
  std::unordered_map<std::string, uint32_t> var_index;  // module-scope variables only
  // Source files named by `.file` in every unit (index 0 = "" = unknown; a unit's own .file
  // numbers are mapped into this table). Instruction::src_file indexes it.
  std::vector<std::string> files;

  const Function* find_function(std::string_view name) const;
  const Variable* find_var(std::string_view name) const;
};

/// Refine the timing class of an instruction from its opcode, type and modifiers.
ExecClass classify(const Instruction& in);

}  // namespace simtlab::ptx

namespace simtlab::ptx {

/// Registers an instruction reads (including the guard predicate, address bases, vector
/// elements and register call arguments) and writes. Register ids index Function::regs.
void inst_uses(const Instruction& in, std::vector<uint32_t>& out);
void inst_defs(const Instruction& in, std::vector<uint32_t>& out);

}  // namespace simtlab::ptx
