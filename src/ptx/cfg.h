// Control-flow analyses on a parsed Function.
//  - build_cfg(): basic blocks (leaders = entry, labels, instructions after control
//    transfers), successor/predecessor edges, reachability, and the post-dominator tree with
//    the immediate post-dominator (IPDOM) of every block. The IPDOM is the SIMT
//    reconvergence point (GPGPU book §3.1.1; Fung et al. 2007).
//    A virtual exit node post-dominates everything: blocks ending in ret/exit/trap and blocks
//    that fall off the end of the function flow into it. Blocks that cannot reach any exit
//    (infinite loops) get a virtual edge to the exit so every block has an IPDOM.
//  - reconvergence_pc(): the instruction index where threads diverging at a branch meet
//    again, or Function::insts.size() when they only meet at function exit.
//  - likely_convergence_pc(): the likely convergence point of a branch in a loop whose
//    reconvergence point lies past the loop (sim.lpc; src/ext/lpc/README.md).
//  - A generic bit-vector dataflow solver (forward/backward, union/intersection) and
//    register liveness built on it (used for register estimates, relssp and GREENER).
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.h"

namespace simtlab::ptx {

void build_cfg(Function& f);

/// Instruction index at which the paths of the branch at `inst_index` reconverge.
uint32_t reconvergence_pc(const Function& f, uint32_t inst_index);

/// Likely convergence point (Fung & Aamodt 2011; GPGPU book 3.4.2) of the branch at
/// `inst_index`: the first instruction of the block holding the backward branch of the closest
/// enclosing loop (the PC range [target, backward branch] with the branch strictly before the
/// latch block), when the branch's reconvergence PC lies outside that loop (a `break` or early
/// exit: threads that stay in the loop are likely to meet at the latch). ~0u when there is none.
uint32_t likely_convergence_pc(const Function& f, uint32_t inst_index);

/// Dense bit set sized at construction.
class BitSet {
 public:
  explicit BitSet(size_t n = 0) : n_(n), w_((n + 63) / 64, 0) {}
  void set(size_t i) { w_[i >> 6] |= uint64_t(1) << (i & 63); }
  void reset(size_t i) { w_[i >> 6] &= ~(uint64_t(1) << (i & 63)); }
  bool test(size_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  size_t size() const { return n_; }
  size_t count() const;
  bool operator==(const BitSet& o) const { return w_ == o.w_; }
  BitSet& operator|=(const BitSet& o);
  BitSet& operator&=(const BitSet& o);
  BitSet& minus(const BitSet& o);
  void fill();
  /// The 64-bit words, lowest bits first.
  template <typename F>
  void for_each_word(F f) const {
    for (uint64_t w : w_) f(w);
  }
  template <typename F>
  void for_each(F f) const {
    for (size_t wi = 0; wi < w_.size(); ++wi)
      for (uint64_t x = w_[wi]; x; x &= x - 1) f(wi * 64 + size_t(__builtin_ctzll(x)));
  }

 private:
  size_t n_;
  std::vector<uint64_t> w_;
};

/// A gen/kill dataflow problem over basic blocks.
struct DataflowProblem {
  enum class Dir { forward, backward } dir = Dir::backward;
  enum class Meet { union_, intersection } meet = Meet::union_;
  size_t bits = 0;
  std::vector<BitSet> gen, kill;  // per block
  BitSet boundary;                // value at entry (forward) / exit (backward)
};

struct DataflowResult {
  std::vector<BitSet> in, out;  // per block
};

DataflowResult solve_dataflow(const Function& f, const DataflowProblem& p);

/// Register liveness (backward, union). A guarded definition does not kill.
struct Liveness {
  DataflowResult blocks;
  /// Maximum over program points of the live 32-bit register slots (64-bit registers count
  /// 2, predicates are excluded): a register-pressure estimate for occupancy.
  uint32_t max_live_slots = 0;
  uint32_t max_live_preds = 0;
};
Liveness compute_liveness(const Function& f);

/// Compiler last-use bits: per instruction, the registers it reads that are live after it on
/// no path (so the value is dead once the instruction has read it). Sorted, no duplicates.
std::vector<std::vector<uint32_t>> last_uses(const Function& f);

}  // namespace simtlab::ptx
