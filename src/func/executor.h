// The functional executor: one warp instruction at a time.
//
// step() executes the instruction at the warp's PC on its active lanes (guard predicate
// applied), advances the SIMT stack and, when given a record, fills a WarpInstRecord for the
// timing model. run_cta() runs a whole CTA to completion (functional-only mode), switching
// warps at barriers and every `quantum` instructions so intra-CTA producer/consumer patterns
// make progress.
#pragma once

#include <cstdint>
#include <span>

#include "func/program.h"
#include "func/record.h"
#include "func/warp.h"

namespace simtlab::func {

/// Set up the warps, shared and local memory of a CTA.
void init_cta(Cta& cta, const LaunchState& launch, Dim3 ctaid, uint32_t linear_id, uint32_t sm);

/// Execute one instruction of `w` (which must be runnable: not done, not at a barrier).
void step(ExecContext& cx, Warp& w, WarpInstRecord* rec);

/// Run every warp of `cta` to completion. Throws GuestError on a fault, a deadlock
/// (all live warps blocked) or when `max_insts` warp instructions are exceeded.
void run_cta(ExecContext& cx, Cta& cta, uint64_t max_insts, uint64_t* insts_out = nullptr,
             uint64_t* thread_insts_out = nullptr);
/// Run several CTAs to completion together, switching between them like between warps (a
/// cooperative launch: blocks may wait for each other through global memory). `max_insts`
/// applies per CTA.
void run_ctas(ExecContext& cx, std::span<Cta*> ctas, uint64_t max_insts,
              uint64_t* insts_out = nullptr, uint64_t* thread_insts_out = nullptr);

// ---- used by handlers ------------------------------------------------------------------------

/// simt_diverge with likely convergence points (sim.lpc): `lpc` is the branch's likely
/// convergence PC (~0u: none).
void simt_diverge_lpc(Warp& w, uint32_t fallthrough, uint32_t target, uint32_t reconv, uint32_t lpc,
                      LaneMask nt, LaneMask taken);
/// Split the top entry: `nt` lanes continue at `fallthrough`, `taken` lanes at `target`; both
/// meet again at `reconv`.
void simt_diverge(Warp& w, uint32_t fallthrough, uint32_t target, uint32_t reconv, LaneMask nt,
                  LaneMask taken);
/// bar.warp.sync under independent thread scheduling: the current thread group waits until
/// every lane of `members` waits there (no-op under the SIMT stack).
void its_warp_sync(ExecContext& cx, Warp& w, LaneMask members);
/// A CTA barrier under independent thread scheduling: the current thread group arrives; true
/// when every live lane of the warp has (the warp then arrives at the CTA barrier), else the
/// group waits for the others.
bool its_bar_arrive(Warp& w, uint32_t pc, uint32_t id, uint32_t count);
/// Lanes `m` of `w` exit (exit / ret in the kernel).
void thread_exit(ExecContext& cx, Warp& w, LaneMask m);
/// relssp on lanes `lanes` of `w`: sets their release bits; when every live thread of the CTA
/// has its bit set the release fires (bits reset, Cta::relssp_fires, record flag).
void relssp_arrive(ExecContext& cx, Warp& w, LaneMask lanes);
/// Threads `m` of `w` exited: they no longer hold release bits; the rest may now be complete.
void relssp_exit(ExecContext& cx, Warp& w, LaneMask m);

struct BarrierRed {
  DOp dst;
  ptx::BoolOp op;
  LaneMask pred;   // lanes whose predicate is true
  LaneMask lanes;  // participating lanes
};

/// Warp `w` arrives at barrier `id` (count = expected threads, 0 = whole CTA).
void barrier_arrive(ExecContext& cx, Warp& w, const DInst& d, uint32_t id, uint32_t count,
                    bool wait, const BarrierRed* red);
/// A warp left the CTA: complete barriers that were only waiting for it.
void barrier_recheck(ExecContext& cx, Cta& cta);

/// The cluster of `cta` (a cluster of one, created on demand, when it has none).
ClusterState& cluster_of(Cta& cta);
/// barrier.cluster.arrive by lanes `lanes` of `w` (a fault if one already arrived this phase).
void cluster_arrive(ExecContext& cx, Warp& w, const DInst& d, LaneMask lanes);
/// barrier.cluster.wait: true when the phase `w` arrived in has completed, else the warp
/// blocks (at_barrier, barrier_id == kClusterBarrierId) until it does.
bool cluster_wait(ExecContext& cx, Warp& w);
/// Lanes `m` of `w` exited: they no longer hold up the cluster barrier.
void cluster_thread_exit(ExecContext& cx, Warp& w, LaneMask m);

void call_enter(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c, uint32_t callee,
                LaneMask lanes);
void call_builtin(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c, LaneMask lanes);

/// Argument `k` of call `c` in lane `lane` (its low 8 bytes).
uint64_t call_arg(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c, size_t k,
                  unsigned lane);

/// The D2MA engine (src/ext/d2ma) as the executor sees it: takes a call of a __d2ma_* stub
/// (CallDesc::d2ma) on lanes `e`; false = not accepted now (the warp re-executes the call).
class D2maHook {
 public:
  virtual ~D2maHook() = default;
  virtual bool d2ma_call(ExecContext& cx, Warp& w, const DInst& d, const CallDesc& c,
                         LaneMask e) = 0;
};

Handler func_end_handler();

/// complete_tx(bytes) on the mbarrier at shared offset `off` of `cta` (exec_async.cpp): the
/// timing model's deferred completion of a bulk / tensor copy (BulkCopyHook). False when the
/// offset is out of range (the barrier is then left alone).
bool mbarrier_complete_tx(GlobalMemory& gmem, Cta& cta, uint64_t off, uint32_t bytes);

/// The deferred arrive-on of a cp.async.mbarrier.arrive (BulkCopyHook::cp_async_arrive): the
/// pending count of the mbarrier at shared offset `off` drops by one.
bool mbarrier_arrive_deferred(GlobalMemory& gmem, Cta& cta, uint64_t off);

/// An mbarrier object as simtlab encodes it (exec_async.cpp): the current phase's pending
/// arrivals, the expected arrival count per phase, the pending transaction bytes (tx-count)
/// and the parity of the current (incomplete) phase.
struct MbarrierState {
  uint32_t pending = 0, expected = 0;
  int32_t tx = 0;
  bool phase = false;
};
/// The mbarrier at shared offset `off` of `cta`; false when `off` is not an 8-byte aligned
/// offset inside the CTA's shared memory.
bool read_mbarrier(const Cta& cta, uint64_t off, MbarrierState* out);

/// Would the mbarrier test_wait / try_wait `d` return false for every lane of `lanes` of `w`
/// now? (No side effects; false when `d` is not such a wait or an operand is not readable.)
bool mbarrier_wait_blocks(const Cta& cta, const Warp& w, const DInst& d, LaneMask lanes);

}  // namespace simtlab::func
