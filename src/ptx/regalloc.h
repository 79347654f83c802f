// Register allocation: PTX virtual registers -> architectural register numbers, as ptxas would
// (issue #14). Used by `simtlab ptx regs`, the functional allocation checker (func/regcheck.h)
// and the timing model's architectural register numbering (sm.register_numbering).
//
// Per function (allocate_registers) or per module with a calling convention (allocate_module):
//  - Liveness over the CFG at instruction granularity (compute_liveness() in cfg.h, then a
//    backward walk of every block). A guarded definition does not kill.
//  Cost: linear in the instructions plus the interference edges (a word operation per 64 of a
//  definition's edges to the live set; a clique of N values live at once is N^2 / 2 edges),
//  times the spilling rounds (each halves the excess over the cap).
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
//
// The SASS model (RegAllocOptions::sass(), what the checker and the timing model use) adds
// what ptxas does that the PTX does not show (docs/registers.md measures each against ptxas;
// constant operands are an option, not part of sass()):
//  - Constant-bank operands (`constant_operands`): a kernel parameter (`ld.param` in an
//    entry), `%ntid`/`%nctaid`, a variable's address, an immediate `mov`, and `mov`/
//    `cvta.global`/`cvta.to.global` copies of those live in the constant bank in SASS
//    (`c[0x0][0x160]`, folded immediates) and take no register between uses. One such
//    operand of an ALU instruction is read from the bank directly; every further one, and any
//    operand of a memory, call, shuffle or tensor instruction, needs a register at that
//    instruction only (the temporary `base`, shared by all its uses). Home RegHome::constant.
//  - Load hoisting (`hoist_loads`): ptxas's scheduler issues loads as early as their operands
//    allow to hide latency. A load's destination is live from the earliest point of its block
//    after the definitions of its operands and the last instruction it may not pass
//    (barriers, fences, atomics, calls, stores that may alias, a read or write of the
//    destination), as long as the live registers stay within `hoist_pressure` (the
//    full-occupancy budget); the allocation stays valid for the PTX order (ranges only grow).
//  - The stack pointer R1 on sm_70+ (`reserved`).
//  - Calls (`callee_clobber`, allocate_module): a callee may overwrite registers
//    0..clobber-1 (its own count, transitively; `extern_clobber` for declarations such as
//    vprintf); values live across a call take registers at or above it, and the caller's
//    count includes it. Recursive calls clobber nothing (the callee saves what it uses).
//  - Spilling (`spill`): while the count exceeds `cap`, the values with the fewest
//    definitions and uses per instruction of live range go to local memory (RegHome::spill):
//    reloaded before each use and stored after each definition (`spill_loads`,
//    `spill_stores`, in 32-bit words per thread per instruction), needing a register only
//    there. Without `spill`, a function over the cap keeps its allocation and `over_cap`
//    says so.
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
  bool constant_operands = false;  // see the header comment
  bool hoist_loads = false;
  /// Hoisting stops where the live registers would exceed this: ptxas schedules for latency
  /// without giving up occupancy, so it spends registers up to the count at which the SM
  /// still holds its most threads (sass() sets it per target).
  uint32_t hoist_pressure = 255;
  bool spill = false;  // spill above `cap` instead of only reporting it
  /// Per Module::funcs index: registers a call to that function may overwrite (empty: calls
  /// clobber nothing). allocate_module fills it.
  std::vector<uint32_t> callee_clobber;
  /// What a call to a declared-only function (vprintf, malloc, __assertfail) may overwrite.
  /// Assumption: 16, a scratch set of R0..R15 for ABI calls (not published; docs/registers.md
  /// shows the printf kernels' counts with it).
  uint32_t extern_clobber = 16;
  /// How the interference graph is stored: a bit matrix (a clique of N values live at once
  /// costs N^2 / 64 words) or per-register lists (memory proportional to the edges), chosen
  /// by size when automatic. Only speed and memory differ, never the allocation (tests
  /// compare the two).
  enum class Graph : uint8_t { automatic, matrix, lists };
  Graph graph = Graph::automatic;

  /// The SASS model for a target sm_XY: R1 reserved on sm_70+, load hoisting up to the
  /// target's full-occupancy budget, spilling above `cap`. Constant-bank operands stay off:
  /// against ptxas they lower the agreement (docs/registers.md).
  static RegAllocOptions sass(uint32_t sm, uint32_t cap = 255);
};

/// Where a virtual register lives between its uses.
enum class RegHome : uint8_t { reg, constant, spill };

struct ArchReg {
  int32_t base = -1;  // first architectural register (R or P), -1 = never referenced
  uint8_t width = 0;  // consecutive 32-bit registers (1 for predicates)
  bool pred = false;  // in the predicate file
  /// constant/spill: `base` is the temporary register it occupies only at the instructions
  /// that need it in a register (-1 when none does).
  RegHome home = RegHome::reg;
  int32_t spill_offset = -1;  // spill: byte offset of its local-memory slot (per thread)
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
  // Per instruction (empty when nothing was spilled): 32-bit words reloaded from the spill
  // area before it / stored to it after it, per thread.
  std::vector<uint8_t> spill_loads, spill_stores;
  uint32_t spill_bytes = 0;    // spill area per thread
  uint32_t spilled = 0;        // virtual registers spilled
  uint32_t constants = 0;      // virtual registers kept in the constant bank
  uint32_t hoisted_loads = 0;  // loads whose destination's live range was extended
  uint32_t call_clobber = 0;   // the most registers one of its calls clobbers
};

/// Allocate `f` (which must have its CFG built, as the parser does).
RegAlloc allocate_registers(const Function& f, const RegAllocOptions& opt = {});

/// Allocate every defined function of `m` callees first, each call clobbering its callee's
/// count (opt.callee_clobber is computed here). Result indexed like Module::funcs (empty
/// RegAlloc for declarations).
/// `roots` (Module::funcs indices), when given, limits it to those and their callees.
std::vector<RegAlloc> allocate_module(const Module& m, const RegAllocOptions& opt = {},
                                      const std::vector<uint32_t>& roots = {});

/// "R4", "R4:R5" (pair), "R4..R7" (wider), "P2", or "-" when unallocated.
std::string arch_reg_name(const ArchReg& r);

/// The `simtlab ptx regs` listing of one function: a summary line, then per instruction the
/// live counts, the source text and the architectural registers written/read; with `map`,
/// also every virtual register's assignment.
std::string format_allocation(const Function& f, const RegAlloc& a, bool map);

}  // namespace simtlab::ptx
