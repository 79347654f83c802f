// An issued warp instruction travelling through the back end (operand collector -> execution
// unit or LD/ST unit -> writeback).
#pragma once

#include <cstdint>

#include "func/program.h"

namespace simtlab::timing {

struct WarpSlot;
struct PcCounters;

/// Execution resources an instruction can go to.
enum class UnitKind : uint8_t { sp, intu, sfu, dp, ldst, count_ };

struct InFlight {
  WarpSlot* w = nullptr;
  const func::DInst* d = nullptr;
  UnitKind unit = UnitKind::sp;
  uint64_t age = 0;  // issue order (oldest-first arbitration)
  uint64_t issue_cycle = 0;
  uint32_t latency = 1;    // execution latency (cycles) of its class
  uint32_t occupancy = 1;  // cycles the unit stays busy (initiation interval x passes)
  uint8_t nreads = 0;      // register-bank reads still needed
  uint8_t read_bank[8] = {};
  uint8_t ndst = 0;  // registers released at writeback (absolute indices)
  uint32_t dst[4] = {};
  uint8_t dst_w[4] = {1, 1, 1, 1};  // consecutive registers from dst[i] (architectural pairs)
  bool dst_pred[4] = {};
  uint32_t lanes = 0;         // active lanes (thread instructions)
  uint32_t local_bytes = 0;   // per-thread local memory of its kernel (address interleaving)
  PcCounters* pcc = nullptr;  // its instruction's counters (sim.per_pc_stats), null when off
  bool long_mem = false;      // a global/local/texture load with a result (two_level_demote)
  uint32_t async_group =
      0;  // cp.async: its warp's commit-group id (WarpSlot::async_base), 0 = none
  // sim.divergence=tbc: the other home warps of a formed warp, released with this one (0 =
  // none; Sm::tbc_groups_).
  uint32_t group = 0;
};

}  // namespace simtlab::timing
