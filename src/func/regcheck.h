// Register-allocation checker (issue #14): executes kernels as if every PTX virtual register
// lived in the architectural register(s) ptx::allocate_registers() assigned it.
//
// The executor keeps one value slot per virtual register. With the checker on, every write to
// a register is also copied into every other virtual register of the same function that shares
// one of its architectural registers (the overlapping 32-bit words; predicates likewise within
// the predicate file), for the lanes that executed. A correct allocation only ever shares a
// register between values that are not live at the same time on the same thread, so the copies
// land in dead values and the program's output is unchanged; an allocation bug clobbers a live
// value and changes the output, so every self-checking test program doubles as a test of the
// allocator. Spilled values are reloaded before each use, so they are never a copy's target
// (their temporary register is: a spilled definition must not clobber a live value).
// Functional mode only (sim.regalloc_check); values wider than 64 bits (.b128) are
// not aliased; a call's return registers are written when the callee returns and are not
// propagated then (their aliases are dead at the call, so this only misses checks).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "func/program.h"
#include "func/warp.h"
#include "ptx/regalloc.h"

namespace simtlab::func {

struct AliasCopy {
  uint32_t from = 0, to = 0;                      // value or predicate slots of the current frame
  uint8_t from_word = 0, to_word = 0, words = 0;  // 32-bit words (values)
  bool pred = false;
};

/// Per PC, the copies that follow a write of that instruction's destinations.
struct RegAliases {
  std::vector<uint32_t> begin;  // copies[begin[pc] .. begin[pc + 1])
  std::vector<AliasCopy> copies;
  uint64_t shared_pairs = 0;  // pairs of virtual registers that share an architectural one
};

/// The sm_XY number of a module's `.target` (75 when it names none).
uint32_t ptx_target_sm(const ptx::Module& m);

/// Allocate every function of `p` (ptx::allocate_module with RegAllocOptions::sass() for the
/// module's target: the allocation the timing model's architectural numbering uses) and derive the
/// alias copies of every instruction. `tweak`, for tests, may change a function's allocation
/// (e.g. put two live values in one register) before the copies are derived.
std::unique_ptr<RegAliases> build_reg_aliases(
    const Program& p, const std::function<void(const ptx::Function&, ptx::RegAlloc&)>& tweak = {});

/// After the instruction at `pc` wrote its destinations on `lanes` of `w`'s current frame.
void apply_reg_aliases(const RegAliases& a, Warp& w, uint32_t pc, LaneMask lanes);

// ---- Architectural register numbers per instruction (the timing model's
// sm.register_numbering = architectural). No timing here: which registers each decoded
// instruction reads and writes under the allocation, and the spill traffic around it.

struct ArchOperand {
  uint16_t reg = 0;   // first architectural R register
  uint8_t width = 1;  // consecutive 32-bit registers
};

struct ArchPc {
  // In DInst::src / DInst::dst order, value operands only (predicates keep their slots):
  // registers read and written (a spilled value: its temporary).
  uint8_t nsrc = 0, ndst = 0;
  ArchOperand src[8], dst[4];
  // Spill traffic: a reload (local load) before the instruction writes `reload`, a store
  // after it reads `store`; words per thread, from/to the spill slot at `*_offset` bytes.
  uint8_t nreload = 0, nstore = 0;
  ArchOperand reload[4], store[4];
  uint8_t reload_words = 0, store_words = 0;
  uint32_t reload_offset = 0, store_offset = 0;
};

struct ArchRegMap {
  std::vector<ArchPc> pc;         // per Program::code PC
  std::vector<uint32_t> count;    // per Program::funcs: allocated R registers
  std::vector<uint32_t> spilled;  // per Program::funcs: virtual registers spilled
  uint32_t max_spill_bytes = 0;   // largest spill area of a function (bytes per thread)
  uint32_t cap = 0;
};

/// The SASS-model allocation (as build_reg_aliases) of every function with at most `cap`
/// registers (a function's .maxnreg when lower), as per-PC architectural operands.
std::shared_ptr<const ArchRegMap> build_arch_map(const Program& p, uint32_t cap);

}  // namespace simtlab::func
