// A kernel prepared for execution: every reachable function's instructions pre-decoded into
// DInsts (handler pointer + resolved operands), concatenated into one PC space.
//
// PC space: function f occupies [Function::begin, Function::end); `end` is a pseudo
// instruction "function end" where ret/fall-through reconverge (the CFG's virtual exit).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/types.h"
#include "ptx/ir.h"
#include "ptx/layout.h"

namespace simtlab::func {

struct Warp;
struct ExecContext;
struct DInst;

/// Executes one instruction on lanes `exec` of `w`. Control-flow handlers also update the
/// SIMT stack; all others leave the PC to the caller (pc + 1).
using Handler = void (*)(ExecContext& cx, Warp& w, const DInst& d, LaneMask exec);

/// A decoded operand.
struct DOp {
  enum Kind : uint8_t { k_none, k_reg, k_imm, k_pred, k_frame, k_sink, k_vec, k_sreg };
  Kind kind = k_none;
  bool neg = false;   // !%p
  uint8_t count = 0;  // vec: element count
  uint8_t comp = 0;   // sreg component / envreg index
  uint32_t slot = 0;  // value or predicate slot; vec: first index in Program::elems
  uint64_t imm = 0;   // immediate bits; frame: offset added to the frame's local base
  ptx::Sreg sreg = ptx::Sreg::tid;
};

/// A decoded memory reference [base + off]. `frame` means `off` is relative to the current
/// call frame's local base (symbols of .local/.param variables in functions).
struct DAddr {
  int32_t base_slot = -1;  // value register, -1 = none
  bool frame = false;
  uint64_t off = 0;
  // Applied to base + off: shared and local (state-space) addresses are 32 bits wide, so
  // `[%r + 68]` with %r = 0xffffffc0 is 4 (nvcc emits such sequences); all ones otherwise.
  uint64_t mask = ~uint64_t(0);
};

/// Address space of a memory instruction as decoded (generic is resolved per lane at run time;
/// `kparam` is the kernel parameter buffer; function parameters are frame-resident `local`).
enum class AddrSpace : uint8_t { global, shared, local, const_, kparam, generic };

struct DInst {
  Handler fn = nullptr;
  const ptx::Instruction* in = nullptr;
  uint32_t func = 0;   // index into Program::funcs
  int32_t guard = -1;  // predicate slot
  bool guard_neg = false;
  uint8_t nops = 0;
  DOp op[6];
  DAddr addr;  // the instruction's memory operand, if any
  AddrSpace aspace = AddrSpace::generic;
  uint8_t elem_size = 0;     // bytes per element for memory ops
  uint8_t vec = 1;           // elements per lane (ld/st .v2/.v4)
  bool sign_extend = false;  // ld.s8/.s16/.s32: sign-extend into the register
  uint32_t target = 0;       // branch target / callee begin PC
  uint32_t reconv = 0;       // reconvergence PC of a branch
  uint32_t lpc = ~0u;        // likely convergence PC of a branch (sim.lpc), ~0u = none
  uint32_t callee = 0;       // Program::funcs index of a direct callee
  uint32_t call = 0;         // Program::calls index (call instructions)
  ptx::ExecClass exec = ptx::ExecClass::int_alu;
  // Registers read/written (value slots and predicate slots, for scoreboards and operand
  // collectors). Predicate slots are offset by kPredSlotBase.
  uint8_t nsrc = 0, ndst = 0;
  uint16_t src[8] = {}, dst[4] = {};
  bool writes_mem = false;  // may change memory another warp can see (see write_epoch)
  bool xfer_mark = false;   // follows a __simtlab_xfer_begin label (include/simtlab/xfer.h)
  // cp.async (exec_async.cpp): a global->shared copy, commit_group, and wait_group N (N; 0 for
  // wait_all; -1 for every other instruction). The timing model keeps the copies asynchronous.
  bool async_copy = false, async_commit = false;
  int8_t async_wait = -1;
  // wgmma (exec_mma_sync.cpp): mma_async with its N (0 = not one), commit_group, and
  // wait_group N (N; -1 for every other instruction). Asynchronous in the timing model.
  uint16_t wgmma_n = 0;
  bool wgmma_commit = false;
  int8_t wgmma_wait = -1;
  // mbarrier.try_wait{.parity} (exec_async.cpp): the timing model holds the warp while the
  // phase it waits for is incomplete (a potentially blocking wait, PTX ISA 9.7.13.15.16).
  bool mbar_try_wait = false;
  // cp.async.bulk.commit_group / wait_group{.read} N (N; -1 otherwise): the timing model's
  // bulk groups of shared->global copies (sm.cpp).
  bool bulk_commit = false;
  int8_t bulk_wait = -1;
  mutable bool warned = false;  // a once-per-instruction warning (division by zero) was printed
};

inline constexpr uint16_t kPredSlotBase = 0x8000;

struct ProgFunction {
  uint32_t module_func = 0;  // index into ptx::Module::funcs
  uint32_t begin = 0, end = 0;
  uint32_t nregs = 0, npreds = 0;  // value and predicate slots
  std::vector<uint32_t> reg_slot;  // ptx register id -> its value or predicate slot
  ptx::FrameLayout frame;
  std::vector<uint32_t> param_vars, ret_vars;  // module var indices (frame-resident params)
  std::string name;
  bool builtin = false;  // device-runtime function implemented by the executor
};

class LoadedModule;

/// Operands of a call instruction: arguments and return destinations (frame-relative param
/// variables or registers) with their sizes in bytes.
struct CallDesc {
  enum class Builtin : uint8_t { none, vprintf, malloc, free, assertfail, aligned_malloc, other };
  Builtin builtin = Builtin::none;
  // D2MA intrinsic stub (include/simtlab/d2ma.h; 0 = not one): the D2MA engine, when the
  // timing model has one (ExecContext::d2ma), takes the call instead of the fallback body.
  enum D2ma : uint8_t {
    d2ma_none,
    d2ma_init,
    d2ma_set_datatype,
    d2ma_set_mode,
    d2ma_configure,
    d2ma_execute
  };
  uint8_t d2ma = d2ma_none;
  bool indirect = false;
  DOp target;  // indirect: register holding the function address
  std::vector<DOp> args, rets;
  std::vector<uint32_t> arg_size, ret_size;
  std::string name;  // callee name (diagnostics)
};

/// Generic "function address" of a module function (mov.u64 %rd, func; indirect calls).
inline constexpr uint64_t kFuncAddrBase = 0x0000'7e03'0000'0000ull;

/// A kernel ready to launch.
struct Program {
  const LoadedModule* module = nullptr;
  const ptx::Module* ir = nullptr;
  uint32_t kernel_func = 0;  // ptx::Module::funcs index of the entry
  std::string name;
  ptx::KernelLayout layout;
  std::vector<DInst> code;          // the PC space
  std::vector<DOp> elems;           // elements of vector operands
  std::vector<ProgFunction> funcs;  // funcs[0] is the kernel
  std::vector<CallDesc> calls;
  std::vector<int32_t> func_by_module_index;  // ptx func index -> Program::funcs index or -1
  uint32_t max_regs = 0, max_preds = 0;       // largest frame (value/pred slots)
  uint32_t kernel_local_bytes = 0;            // kernel frame
  uint32_t estimated_regs = 0;                // register estimate per thread from PTX liveness
  bool has_calls = false;
  // The register-allocation checker's alias copies (func/regcheck.h), built on first use by a
  // launch with DeviceOptions::regalloc_check.
  mutable std::shared_ptr<const struct RegAliases> reg_aliases;
  // Architectural register numbers for the timing model (func/regcheck.h build_arch_map),
  // built on first use by a timing launch with sm.register_numbering = architectural.
  mutable std::shared_ptr<const struct ArchRegMap> arch_map;
  // Compiler last-use bits per PC (bit k: DInst::src[k] is read for the last time), built on
  // first use by the register-file cache (ext/rfc/last_use.h).
  mutable std::shared_ptr<const std::vector<uint8_t>> last_use;

  const ptx::Instruction& inst(uint32_t pc) const { return *code[pc].in; }
  const ProgFunction& func_of(uint32_t pc) const { return funcs[code[pc].func]; }
  /// "kernel.ptx:123: ld.global.f32 %f1, [%rd4];" for reports.
  std::string where(uint32_t pc) const;
};

}  // namespace simtlab::func
