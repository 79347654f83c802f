// Register allocation: PTX virtual registers -> architectural register numbers, as ptxas would
// (issue #14; used by the functional allocation checker, func/regcheck.h; not by the timing
// model yet).
//
// Per function, independently (no calling convention yet: registers live across a `call` are
// not treated as clobbered and a callee's registers are not counted in its caller):
//  - Liveness over the CFG at instruction granularity (compute_liveness() in cfg.h, then a
//    backward walk of every block). A guarded definition does not kill.
//  - An interference graph: a definition interferes with everything live after it (except the
//    source of a plain same-width `mov`, which may share its register), the destinations of
//    one instruction interfere with each other, and the registers live into a block without
//    predecessors (the entry, unreachable code: values used before any definition) interfere
//    pairwise.
//  - Widths, in 32-bit registers: .b8/.b16/.f16/.b32/.f32 (and their signed/unsigned forms)
//    take one register (a 16-bit value gets a whole register, as ptxas does for scalar
//    16-bit values: no half-register packing), .b64/.f64 an even/odd pair (base % 2 == 0),
//    128-bit values four consecutive registers (base % 4 == 0). Predicates go to their own
//    file P0..P(pred_cap-1) and do not count in the register count.
//  - Vector operands of memory/texture instructions (ld/ldu/st .v2/.v4/.v8, tex, tld4,
//    suld, sust, ldmatrix, stmatrix) need consecutive registers aligned to the vector's size
//    rounded up to a power of two: their registers form one allocation unit with fixed
//    offsets (each member still only blocks its slot while it is live). When that is not
//    possible (a register in two different vectors, twice in one vector, or with the wrong
//    width) the instruction is listed in `vector_fixups`: ptxas would insert moves there;
//    the allocation ignores the constraint for it.
//  - Greedy colouring, each unit at the lowest aligned base free of its interfering
//    neighbours, preferring the register of a `mov` partner (including 64-bit pack/unpack
//    `mov.b64 %rd, {%r1, %r2}`), and a single register preferring the free half of a pair
//    whose other half is taken. Two orders are tried and the lower count kept (ties: the
//    first): first definition (registers live into the entry first), which is optimal for
//    SSA programs without pairs (count == max live), and the same with all 64-bit and wider
//    units first, which avoids single registers fragmenting the pairs.
//  - No spilling: a function that needs more than `cap` registers (or `pred_cap`
//    predicates) still gets its full allocation and `over_cap` says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptx/ir.h"

namespace simtlab::ptx {

struct RegAllocOptions {
  uint32_t cap = 255;     // architectural registers per thread (R255 is RZ)
  uint32_t pred_cap = 7;  // P0..P6 (P7 is PT)
  /// R registers never allocated and counted as used, e.g. {1}: ptxas keeps the stack pointer
  /// in R1 on sm_70+.
  std::vector<uint32_t> reserved;
};

struct ArchReg {
  int32_t base = -1;  // first architectural register (R or P), -1 = never referenced
  uint8_t width = 0;  // consecutive 32-bit registers (1 for predicates)
  bool pred = false;  // in the predicate file
};

struct RegAlloc {
  std::vector<ArchReg> regs;  // per Function::regs entry
  // Per instruction: live 32-bit registers before it and after it (predicates excluded).
  std::vector<uint32_t> live_in, live_out;
  /// Max over instructions of the registers live before it, or live after it together with
  /// the registers it writes (in 32-bit units). A lower bound on the count, except that two
  /// live values that are copies of each other (a coalesced `mov`) may share a register.
  uint32_t max_live = 0;
  uint32_t max_live_preds = 0;
  uint32_t count = 0;                   // allocated R registers: highest used number + 1
  uint32_t pred_count = 0;              // allocated P registers
  std::vector<uint32_t> vector_fixups;  // instructions whose vector operand was not placed
  bool over_cap = false;
  std::string note;  // "needs N > cap" (registers and/or predicates) when over_cap
};

/// Allocate `f` (which must have its CFG built, as the parser does).
RegAlloc allocate_registers(const Function& f, const RegAllocOptions& opt = {});

/// "R4", "R4:R5" (pair), "R4..R7" (wider), "P2", or "-" when unallocated.
std::string arch_reg_name(const ArchReg& r);

/// The `simtlab ptx regs` listing of one function: a summary line, then per instruction the
/// live counts, the source text and the architectural registers written/read; with `map`,
/// also every virtual register's assignment.
std::string format_allocation(const Function& f, const RegAlloc& a, bool map);

}  // namespace simtlab::ptx
