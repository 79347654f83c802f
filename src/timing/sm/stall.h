// Why a scheduler slot did or did not issue in a cycle: exactly one reason per scheduler per
// cycle, so the reasons of an SM sum to num_schedulers x cycles (its issue slots).
// When several warps are blocked for different reasons, the slot is charged to the reason
// closest to issuing, in this order: mem_pipeline, collector_full, unit_busy, scoreboard,
// barrier, control, fetch, idle (GPGPU book 3.1-3.3 pipeline; cf. GPGPU-Sim's stall taxonomy).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simtlab::timing {

enum class Stall : uint8_t {
  issued,          // a warp instruction issued
  mem_pipeline,    // the next instruction is a memory op and the LD/ST queue is full
  collector_full,  // no free operand-collector unit
  unit_busy,       // the execution unit class it needs is saturated
  scoreboard,      // RAW/WAW on a pending register write
  barrier,         // waiting at a CTA barrier (or for its release latency)
  control,         // instruction buffer empty after a taken branch / divergence redirect
  fetch,           // instruction buffer empty, waiting for fetch (I-cache)
  idle,            // no resident warp on this scheduler can run
  throttled,       // ready, but a research mechanism (CCWS, SWL, DYNCTA) holds it back; the
                   // label exists only when one is on (closest to issuing: ranks after issued)
  lock_wait,       // resource sharing (src/ext/sharing): waiting for a shared register or
                   // scratchpad pair lock; the label exists only with sharing.mode != none
  wake_up,         // GREENER (src/ext/greener): an operand register is waking from SLEEP/OFF;
                   // the label exists only with greener.mode != none
  count_
};

inline std::vector<std::string> stall_labels(bool with_throttled = false, bool with_lock = false,
                                             bool with_wake = false) {
  std::vector<std::string> v = {"issued",    "mem_pipeline", "collector_full",
                                "unit_busy", "scoreboard",   "barrier",
                                "control",   "fetch",        "idle"};
  if (with_throttled || with_lock || with_wake) v.push_back("throttled");
  if (with_lock || with_wake) v.push_back("lock_wait");
  if (with_wake) v.push_back("wake_up");  // (labels are positional: the two above come along)
  return v;
}

/// Priority of a reason when a slot's warps are blocked for different ones (smaller = closer
/// to issuing): enum order, with throttled right after issued.
constexpr unsigned stall_rank(Stall s) {
  return s == Stall::throttled || s == Stall::lock_wait ? 1
         : s == Stall::issued                           ? 0
         : s == Stall::wake_up                          ? 2 * unsigned(Stall::scoreboard) - 1
                                                        : 2 * unsigned(s);
}

}  // namespace simtlab::timing
