// Compiler support for scratchpad sharing (Jatala thesis ch. 3, seed 001; spec
// resource-sharing-relssp-greener.md §2): which scratchpad variables an instruction may access,
// their Pre/Post access ranges, the layout that puts the variables with the shortest access
// range into the shared region (high offsets), critical-edge splitting, and the placement of
// `relssp` (the instruction that releases a block's shared scratchpad region):
//   - opt: the backward Safe analysis and the INS rules, equations 3.1/3.2:
//       SafeIN(B)  = false if B has a shared-region access, else SafeOUT(B)
//       SafeOUT(B) = true at Exit, else AND over successors X of SafeIN(X)
//       INS at OUT(B) = SafeOUT(B) && !SafeIN(B)   -> just after B's last shared-region access
//       INS at IN(B)  = SafeIN(B) && !AND_P SafeOUT(P)
//     computed on the original CFG; an IN insertion whose edge P->B is critical goes into a new
//     block on that edge (`relssp; bra B`, the branch is a real instruction and is counted, as
//     the thesis's GOTO). Only edges that receive a relssp are split (a split block without one
//     would be empty). Edges into the function's exit need nothing: exited threads count as
//     released (func executor).
//   - postdom: one relssp in the nearest common post-dominator D of the accessing blocks and
//     the entry block (so every thread passes it: it "dominates Exit"), walking further up the
//     post-dominator tree while an access can follow D or D lies on a cycle;
//     just after its last access if it has one, else at its start; before each `ret`/`exit`
//     when D is the exit.
// Which accesses are shared-region accesses: a .shared access whose variable range may reach
// the boundary floor(t x static scratchpad bytes); the variable of a register address comes from
// a flow-insensitive points-to pass (mov/cvta/add/... of a variable's address); an access whose
// variable is unknown (no points-to, dynamic shared memory, a call of a defined function) counts
// as shared. Generic accesses count only when their address derives from a .shared variable.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ptx/cfg.h"
#include "ptx/ir.h"

namespace simtlab::ptx {

/// The scratchpad variables one instruction may access.
struct SmemAccess {
  std::vector<uint32_t> vars;  // Module::vars indices of .shared variables, sorted
  bool unknown = false;        // a scratchpad access whose variable is not known
  bool any() const { return unknown || !vars.empty(); }
};

/// Per instruction of `f`: its scratchpad accesses (empty: none).
std::vector<SmemAccess> smem_accesses(const Module& m, const Function& f);

/// Per instruction: whether it may access the shared region [boundary, ...) under `offset`
/// (var -> byte offset; a variable missing from it is dynamic: counts as shared).
std::vector<bool> shared_region_accesses(const Module& m, const std::vector<SmemAccess>& acc,
                                         const std::unordered_map<uint32_t, uint32_t>& offset,
                                         uint32_t boundary);

/// Pre/Post access ranges per variable (bit k = vars[k]) at block granularity (§2.2):
/// PreOUT = acc || PreIN, PreIN = OR preds PreOUT (false at Entry); PostIN = acc || PostOUT,
/// PostOUT = OR succs PostIN (false at Exit).
struct AccessRanges {
  std::vector<BitSet> pre_in, pre_out, post_in, post_out;  // per block
};
AccessRanges access_ranges(const Function& f, const std::vector<SmemAccess>& acc,
                           const std::vector<uint32_t>& vars);
/// Per instruction: in the access range of the set `subset` (bit k = vars[k]): some variable of
/// the set is accessed on a path Entry -> the instruction and some on a path from it to Exit
/// (both inclusive of the instruction itself).
std::vector<bool> in_access_range(const Function& f, const std::vector<SmemAccess>& acc,
                                  const std::vector<uint32_t>& vars, uint64_t subset);
/// Selection weight of an access range: its instructions, each weighted 1024 per loop (cycle
/// in the CFG) it lies in (the thesis's bound where no constant trip count exists); at a
/// branch only the heavier side counts (the longest path, on the acyclic condensation).
uint64_t range_weight(const Function& f, const std::vector<bool>& in_range);

/// Edges (pred block, succ block) whose source has several successors and whose target has
/// several predecessors.
std::vector<std::pair<uint32_t, uint32_t>> critical_edges(const Function& f);

/// Where relssp goes (instruction indices and blocks of the function as it is).
struct RelsspPlacement {
  std::vector<uint32_t> after_inst;                  // just after this instruction
  std::vector<uint32_t> before_inst;                 // just before this instruction (labels
                                                     // on it then lead to the relssp)
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // on a new block splitting this edge
  bool empty() const { return after_inst.empty() && before_inst.empty() && edges.empty(); }
};
RelsspPlacement place_relssp_opt(const Function& f, const std::vector<bool>& shared_acc);
RelsspPlacement place_relssp_postdom(const Function& f, const std::vector<bool>& shared_acc);

/// Insert relssp where `p` says and split its edges (each split block: relssp; bra target),
/// then rebuild the CFG. Edges whose source ends in anything but a guarded `bra` are skipped
/// (counted in *skipped). Returns the number of split edges.
uint32_t apply_relssp(Function& f, const RelsspPlacement& p, uint32_t* skipped = nullptr);
/// Split edges with an empty block ending in `bra target` (no relssp): the generic
/// critical-edge splitting.
uint32_t split_edges(Function& f, const std::vector<std::pair<uint32_t, uint32_t>>& edges);

struct RelsspOptions {
  enum class Mode : uint8_t { none, opt, postdom } mode = Mode::none;
  bool minimize = false;  // choose the shared-region variables (Shared-OWF-Reorder)
  double t = 0.1;         // private fraction: boundary = floor(t x static scratchpad)
};

struct RelsspReport {
  std::string kernel;
  uint32_t static_shared = 0, boundary = 0;
  uint32_t accesses = 0, shared_accesses = 0;  // static scratchpad / shared-region accesses
  uint32_t inserted = 0, split = 0, skipped = 0;
  std::vector<uint32_t> high_vars;  // minimize: variables moved to the high offsets
};

/// Run the passes on every kernel of `m` (module load with sharing.relssp / smem_layout).
std::vector<RelsspReport> run_relssp_passes(Module& m, const RelsspOptions& o);
std::string format_relssp_reports(const Module& m, const std::vector<RelsspReport>& r);

}  // namespace simtlab::ptx
