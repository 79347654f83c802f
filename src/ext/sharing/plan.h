// Resource sharing, chapter 2 of the Jatala thesis (seed 001): how many thread blocks an SM
// launches, the integer form of equations 2.1-2.4.
//
//   R      resource units per SM (registers, or scratchpad bytes)
//   R_tb   units one block needs (registers/thread x warp-padded threads, or scratchpad bytes)
//   t      private fraction; a shared pair gets (1+t) R_tb: t R_tb private each, (1-t) R_tb
//          used by one member at a time
//   F = floor(R / R_tb)                        blocks the baseline allocation fits
//   S = min(F, floor((R mod R_tb) / (t R_tb)))  shared pairs the waste pays for (2.1, 2.2)
//   M = F + S                                   blocks launched (2.3, 2.4)
// then capped by the blocks-per-SM and threads-per-SM limits (and the other resource):
//   M_final = min(M, caps); with F' = min(F, caps): S' = M_final - F', U' = F' - S'.
// Sharing is on for a kernel only when M_final exceeds the baseline occupancy, so every pair
// keeps one member progressing and the effective blocks never drop below the baseline
// (Example 2.2.4). Verified against every entry of the thesis's Tables 2.6 and 2.8
// (tests/unit/ext/sharing_test.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace simtlab::timing::sharing {

enum class Resource : uint8_t { reg, smem };

struct SmLimits {
  uint32_t registers = 0, shared_bytes = 0, max_ctas = 0, max_threads = 0, num_warps = 0;
  uint32_t warp_size = 32;
};

struct Plan {
  bool enabled = false;
  uint32_t baseline = 0;       // blocks without sharing (every limit)
  uint32_t F = 0, S = 0;       // equation 2.4 before the caps
  uint32_t M = 0;              // blocks launched (M_final)
  uint32_t pairs = 0;          // S'
  uint32_t unshared = 0;       // U'
  uint32_t R_tb = 0;           // units one block needs
  uint32_t private_units = 0;  // floor(t x per-thread registers) or floor(t x scratchpad bytes)
};

/// `regs_per_thread` and `smem_per_block` describe the kernel; `threads` its block size.
Plan make_plan(Resource res, double t, const SmLimits& lim, uint32_t threads,
               uint32_t regs_per_thread, uint32_t smem_per_block);

}  // namespace simtlab::timing::sharing
