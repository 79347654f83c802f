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

}  // namespace simtlab::func
