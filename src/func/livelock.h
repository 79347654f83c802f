// Livelock detection: a kernel whose running warps all repeat the same architectural state
// forever (a spin on a flag nobody sets, blocks waiting for each other) is stopped with a
// per-warp report instead of running until a watchdog limit.
//
// Per warp (probe_loop, called by step() at backward jumps at most once every
// kLoopProbeInterval warp instructions): a 64-bit hash of the warp's whole state (PC, SIMT
// stack, call frames, every register and predicate of every lane, exit mask, carry) is compared
// with a saved sample (Brent's cycle finding: the saved sample is replaced at powers of two).
// A match with an unchanged device write epoch (GlobalMemory::write_epoch: no store, atomic,
// reduction or device-runtime call anywhere on the device in between) means the warp is in a
// loop that cannot end by itself: the same state with the same memory leads to the same state.
//
// Per kernel (LivelockMonitor::check, called by the engines periodically): the kernel is
// livelocked when every live warp either waits at a barrier or is in such a confirmed loop, at
// least one loops, and this still holds at the next check after every looping warp executed
// at least kConfirmInsts more instructions (a warp that left its loop in between would no
// longer be confirmed). Only a hash collision could give a false report; loops that write
// memory each iteration (even the same value) are never reported (they end at the per-kernel
// limits instead).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "func/warp.h"

namespace simtlab::func {

inline constexpr uint64_t kLoopProbeInterval = 4096;  // warp instructions between samples
inline constexpr uint64_t kConfirmInsts = 4 * kLoopProbeInterval;
static_assert(LoopWatch{}.next_probe == kLoopProbeInterval, "first sample after one interval");

void probe_loop(ExecContext& cx, Warp& w, uint32_t branch_pc);

/// Whether `w` is in a confirmed endless loop as of the device write epoch `epoch`.
bool warp_looping(const Warp& w, uint64_t epoch);

class LivelockMonitor {
 public:
  /// `warps`: every live (not done) warp of the kernel(s) being checked. Returns true when the
  /// kernel is livelocked (see above).
  bool check(const std::vector<const Warp*>& warps, uint64_t epoch);
  void reset() { armed_ = false; }

 private:
  bool armed_ = false;
  uint64_t epoch_ = 0;
  std::vector<std::pair<const Warp*, uint64_t>> seen_;  // looping warps and their insts
};

/// "    warp W of block (x,y,z): loops at <where> ..." lines for a livelock report.
std::string livelock_warp_line(const Program& prog, const Warp& w, uint64_t epoch);

}  // namespace simtlab::func
