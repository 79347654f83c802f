// Resource sharing at run time (thesis ch. 2, seed 001): the per-SM state behind
// sharing.mode = reg | smem. The SM (src/timing/sm) calls it at CTA launch and exit, warp exit,
// issue (the register gate, dynamic warp execution) and after a shared-memory instruction
// executed (the scratchpad gate). See README.md in this folder.
//
// Slots. A kernel's plan (plan.h) gives U unshared slots and S pairs. A launching block joins
// a pair whose other member is resident (as its non-owner; the resident block owns), else an
// unshared slot, else an empty pair (as its owner: at kernel start the lower block id owns).
// When a block exits, its partner owns the pair and the next block joins as non-owner.
//
// Register sharing (warp pairs: warp j of one block with warp j of the other). An instruction
// whose architectural registers (1-based numbers, optionally renumbered by first use:
// sharing.reorder) go above floor(regs_per_thread x t) needs its warp pair's lock. It takes a
// free lock only if no warp of the partner block holds one (the deadlock-avoidance rule of
// Fig. 2.8: at any moment one block of a pair holds register locks); else the warp is not
// ready (Stall::lock_wait). A warp's lock is released when the warp exits.
//
// Scratchpad sharing (block pairs). A shared-memory access with an offset >= floor(smem x t)
// needs the pair's lock; a block that cannot take it waits (the instruction, already executed
// functionally, is held by the SM until the lock is free); the lock is released when the
// holding block exits.
//
// Classes for OWF (WarpSlot::share_class): 0 owner, 1 unshared, 2 non-owner. A warp is an owner
// when its block owns its pair or it holds its warp pair's register lock.
//
// Dynamic warp execution (register sharing): every dyn_period cycles an SM compares its
// pipeline-stall slots of the window with the reference SM's and moves its probability P by
// dyn_step (more stalls: down; fewer: up; equal: unchanged; P in [0, 1]; the reference SM has
// P = 0). A non-owner warp's global/local memory instruction issues only with probability P.
//
// Functional results never change (the thesis's own argument, spec 1.4): the gates are timing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "ext/sharing/plan.h"
#include "ext/sharing/sharing_params.h"
#include "stats/group.h"

namespace simtlab::func {
struct DInst;
struct Program;
struct WarpInstRecord;
}  // namespace simtlab::func

namespace simtlab::timing {

struct WarpSlot;

namespace sharing {

/// Dynamic warp execution: the reference SM's stall count of its last window, shared by the
/// SMs of a GPU.
struct DynBoard {
  uint64_t ref_window = UINT64_MAX;  // window index of ref_stalls
  uint64_t ref_stalls = 0;
};

class SmSharing {
 public:
  SmSharing(const SharingParams& p, uint32_t sm_id, uint32_t max_ctas, uint32_t max_regs,
            stats::Group& sm);

  Resource resource() const { return res_; }
  /// Whether `plan` governs this SM's next CTA of kernel `kernel`: sharing is enabled for it
  /// and every CTA resident on the SM (`sm_resident`) is one of its tracked CTAs.
  bool governs(const void* kernel, const Plan& plan, uint32_t sm_resident) const;
  bool slot_free(const void* kernel, const Plan& plan) const;
  /// `prog` null: the register-number table set by set_regnos (tests).
  void on_cta_launch(const void* kernel, const Plan& plan, const func::Program* prog,
                     uint32_t regs_per_thread, uint32_t cta, const std::vector<WarpSlot*>& warps);
  void on_warp_exit(WarpSlot& w);
  void on_cta_exit(uint32_t cta);

  /// Register gate: may `w` issue the instruction at `pc` (takes the lock if it needs one)?
  bool reg_gate(WarpSlot& w, uint32_t pc);
  /// Scratchpad gate for an executed shared-memory access of `w` (takes the lock if needed).
  bool smem_gate(WarpSlot& w, const func::WarpInstRecord& rec);
  /// A held shared-memory instruction: may it proceed now (takes the lock)?
  bool smem_retry(WarpSlot& w);
  /// relssp (thesis ch. 3): every live thread of `w`'s block has executed relssp. Releases the
  /// block's scratchpad lock if it holds it (its partner becomes the owner and takes the lock
  /// at its next shared-region access); no effect otherwise.
  void on_relssp_release(WarpSlot& w);
  /// Dynamic warp execution: may `w` issue memory instruction `d` now?
  bool dyn_allow(const WarpSlot& w, const func::DInst& d);
  /// Start of a cycle: close dynamic-warp-execution windows (`stall_slots`: the SM's cumulative
  /// pipeline-stall issue slots).
  void begin_cycle(uint64_t now, uint64_t stall_slots);
  void set_board(std::shared_ptr<DynBoard> b) { board_ = std::move(b); }
  void count_nonowner_issue() { ++nonowner_insts_; }
  void count_nonowner_cycle() { ++nonowner_cycles_; }

  double probability() const { return p_dyn_; }
  /// Dynamic warp execution's P_i trace: (cycle a window closed, P for the next window), one
  /// entry per closed window (empty unless sharing.dyn).
  const std::vector<std::pair<uint64_t, double>>& p_trace() const { return p_trace_; }
  /// Tests: the highest (1-based) register number each PC touches.
  void set_regnos(std::vector<uint16_t> r) { test_regno_ = std::move(r); }

 private:
  struct Pair {
    int32_t member[2] = {-1, -1};    // CTA slots
    int owner = 0;                   // side that owns
    int smem_holder = -1;            // side holding the scratchpad lock
    std::vector<int8_t> reg_holder;  // per warp index: side holding that warp pair's lock
    uint32_t holders[2] = {0, 0};    // warps of each side holding a register lock
  };
  struct Cta {
    bool active = false;
    int32_t pair = -1;  // -1: unshared
    int side = 0;
    std::vector<WarpSlot*> warps;
    std::vector<uint64_t> wait_since;  // per warp: cycle its lock wait began (kNotWaiting)
    uint32_t waiting = 0;              // warps of the block waiting for a lock
    uint64_t block_wait_since = 0;     // cycle the first of them began waiting
    // Scratchpad phases of a shared block (Fig. 3.12): launch, first lock acquisition, relssp
    // release (kNever: not yet).
    uint64_t launched = 0, acquired = kNever, released = kNever;
  };
  static constexpr uint64_t kNotWaiting = UINT64_MAX;
  static constexpr uint64_t kNever = ~uint64_t(0);
  Cta* cta_of(const WarpSlot& w);
  void set_classes(int32_t pair);
  // Lock-wait accounting: warp `j` of `c` failed a gate / took its lock.
  void wait_begin(Cta& c, size_t j);
  void wait_end(Cta& c, size_t j);
  const std::vector<uint16_t>& regnos(const func::Program& prog);

  SharingParams p_;
  Resource res_;
  uint32_t sm_id_, max_regs_;
  const void* kernel_ = nullptr;
  Plan plan_;
  uint32_t private_ = 0;  // floor(t x regs per thread) or floor(t x scratchpad bytes)
  const std::vector<uint16_t>* regno_ = nullptr;  // per PC: highest register number it touches
  std::map<const func::Program*, std::vector<uint16_t>> regno_cache_;
  std::vector<uint16_t> test_regno_;
  std::vector<Pair> pairs_;
  std::vector<Cta> ctas_;
  uint32_t unshared_used_ = 0, resident_ = 0;
  // dynamic warp execution
  std::shared_ptr<DynBoard> board_;
  double p_dyn_ = 1.0;
  uint64_t window_ = 0, window_start_stalls_ = 0;
  uint64_t rng_;
  std::vector<std::pair<uint64_t, double>> p_trace_;
  uint64_t now_ = 0;  // the SM's cycle (begin_cycle)

  stats::Group& g_;
  stats::Counter &shared_ctas_, &unshared_ctas_, &acquisitions_, &releases_, &transfers_,
      &held_smem_, &nonowner_insts_, &nonowner_cycles_, &dyn_denied_, &dyn_up_, &dyn_down_,
      &lock_waits_, &warp_wait_cycles_, &block_wait_cycles_, &relssp_fires_, &relssp_releases_,
      &phase_before_, &phase_shared_, &phase_after_;
};

}  // namespace sharing
}  // namespace simtlab::timing
