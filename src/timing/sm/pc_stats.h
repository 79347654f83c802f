// Per-instruction statistics (opt-in: sim.per_pc_stats). One PcCounters per PC of a kernel
// launch's program; the SM pipeline and the LD/ST unit charge events to the instruction that
// caused them, and the kernel's stats JSON gets them per PTX instruction and aggregated per
// CUDA source line (`.loc` of -lineinfo / -G builds). Off by default: components then hold a
// null pointer and pay one pointer test per event site; every other stat is unchanged.
//
// Attribution rules (what "caused" means):
//  - execs / thread_insts: warp instructions issued at this PC and their active lanes.
//  - stalls[r]: scheduler issue slots (one per scheduler per cycle, see stall.h) charged to
//    reason r whose reason came from a warp waiting to issue this PC (the warp that decided
//    the slot's reason, i.e. the first warp in scheduler order with the slot's reason).
//    Slots with reason `idle` have no instruction and are never attributed; every other slot
//    is, so per reason the PCs sum to the kernel's totals (stalls[issued] == execs).
//  - sb_mem / sb_alu: of stalls[scoreboard], slots whose blocking register is written by a
//    pending memory instruction (LD/ST unit) vs by an ALU/SFU/DP result.
//  - rf_bank_conflicts: operand-collector cycles in which one of this instruction's register
//    reads lost its bank (sm.bank_conflicts, per instruction).
//  - smem_extra_passes: shared-memory passes beyond the first (bank conflicts).
//  - transactions / l1_misses: transactions this instruction sent into an L1 (D, C or T) and
//    how many missed there (including L1-bypassing ones, which always go below);
//  - l2_misses: responses to them that the L2 did not serve from its contents (the data came
//    from DRAM); a response merged into another instruction's L1 miss is charged to that one.
//  - divergent: executions of this (branch) instruction that split the warp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "timing/sm/stall.h"

namespace simtlab::func {
struct Program;
}

namespace simtlab::timing {

struct PcCounters {
  uint64_t execs = 0, thread_insts = 0;
  uint64_t stalls[size_t(Stall::count_)] = {};
  uint64_t sb_mem = 0, sb_alu = 0;
  uint64_t rf_bank_conflicts = 0;
  uint64_t smem_extra_passes = 0;
  uint64_t transactions = 0, l1_misses = 0, l2_misses = 0;
  uint64_t divergent = 0;
  bool any() const;
};

/// The counters of one kernel launch, indexed by Program PC.
struct PcStats {
  explicit PcStats(size_t pcs) : pc(pcs) {}
  std::vector<PcCounters> pc;
};

/// Column names of the counters, in the order pc_stats_json writes them: execs,
/// thread_insts, stall_<reason> for every reason but idle, stall_total (the non-issued ones),
/// sb_mem, sb_alu, rf_bank_conflicts, smem_extra_passes, transactions, l1_misses, l2_misses,
/// divergent.
std::vector<std::string> pc_stats_columns();

/// `attribution` section of a kernel's stats JSON (schema in docs/outputs.md): per PTX
/// instruction with any event and per CUDA source line, columns as compact arrays.
nlohmann::json pc_stats_json(const PcStats& s, const func::Program& prog);

}  // namespace simtlab::timing
