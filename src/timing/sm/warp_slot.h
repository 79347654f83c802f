// Timing state of one resident warp (a hardware warp slot of an SM). The architectural state
// (registers, SIMT stack) lives in the functional func::Warp it points to.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "func/warp.h"

namespace simtlab::timing {

struct CtaSlot;

struct WarpSlot {
  func::Warp* fw = nullptr;
  CtaSlot* cta = nullptr;
  uint32_t slot = 0;       // hardware warp slot in the SM (%warpid)
  uint32_t sched = 0;      // scheduler it belongs to
  uint64_t age = 0;        // dispatch order (smaller = older)
  bool active = false;     // slot holds a warp
  bool func_done = false;  // every thread exited
  // Instruction buffer: number of decoded instructions available from the warp's PC, valid
  // from `ibuf_ready` on. A control-flow change flushes it (`redirect` marks the stall as a
  // control hazard until the refetch completes).
  uint32_t ibuf = 0;
  uint64_t ibuf_ready = 0;
  bool fetch_pending = false;
  uint64_t fetch_done_at = 0;  // perfect I-cache: when the pending fetch completes
  uint64_t fetch_gen = 0;
  bool redirect = false;
  uint64_t ready_at = 0;  // earliest cycle of the next issue (branch penalty, barrier latency)
  bool was_at_barrier = false;
  uint32_t inflight = 0;  // issued instructions not yet written back
  // Scoreboard: pending writes per absolute register index (values, then predicates).
  std::vector<uint16_t> pend_reg, pend_pred;
  // Per-instruction statistics only: of pend_reg, the writes a memory instruction will make
  // (scoreboard stalls split into memory vs ALU producers). Empty when sim.per_pc_stats is off.
  std::vector<uint16_t> pend_mem;
  // sm.register_numbering = architectural: the PC whose spill reload has issued (its
  // instruction issues next), and a spill store owed after the instruction at spill_store_pc
  // (lanes and frame it executed with).
  static constexpr uint32_t kNoPc = UINT32_MAX;
  uint32_t reloaded_pc = kNoPc, spill_store_pc = kNoPc;
  uint32_t spill_lanes = 0, spill_reg_base = 0;
  // Resource sharing (src/ext/sharing): OWF class (0 owner, 1 unshared, 2 non-owner), the
  // warp's index in its CTA (warp pairs), and a shared-memory instruction held for the lock.
  uint8_t share_class = 1;
  uint16_t cta_warp = 0;
  bool held = false;
  uint32_t pending_writes = 0;
  uint32_t pending_long = 0;  // global/local/texture loads in flight (two_level_demote)
  uint64_t insts = 0;
  // cp.async (sm.cpp "asynchronous copies"): copies in flight in the open (uncommitted) group,
  // per committed group oldest first (completed groups leave the front; async_base is the id of
  // the front group), and since when the warp waits at a cp.async.wait_group.
  uint32_t async_open = 0;
  uint32_t async_base = 1;
  std::deque<uint32_t> async_groups;
  bool async_waiting = false;
  uint64_t async_wait_since = 0;
  // Held at an mbarrier.try_wait whose phase is incomplete (sm.cpp, Sm::mbar_blocks), since.
  bool mb_waiting = false;
  uint64_t mb_wait_since = 0;
  // cp.async.mbarrier.arrive issued while cp.async copies were in flight: the mbarriers
  // (shared offsets) to arrive on when the warp has none left (Sm::async_complete).
  std::vector<uint64_t> cp_arrives;
  // Bulk groups of shared->global bulk / tensor copies (cp.async.bulk.commit_group /
  // wait_group; sm.cpp): stores in the open group, per committed group oldest first, the id of
  // the front group.
  uint32_t bulk_open = 0;
  uint32_t bulk_base = 1;
  std::deque<uint32_t> bulk_groups;
  // wgmma: when the warp's tensor core is free, the completion cycle of the open group, and
  // per committed group (oldest first) its completion cycle.
  uint64_t wg_busy_until = 0, wg_open_done = 0;
  std::deque<uint64_t> wg_groups;
};

}  // namespace simtlab::timing
