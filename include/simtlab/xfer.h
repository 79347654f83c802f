// Transfer-region markers for software-tiling baselines (D2MA reproduction, issue #19; spec
// shared/spec/d2ma-and-configurable-ppa.md section 1.11: the paper's per-tile transfer time of
// the baseline, "first address instruction to barrier release", split into AGEN and MEM).
//
//   #include "simtlab/xfer.h"
//   simtlab_xfer_begin();                 // before the copy loop's first address instruction
//   tile[ty][tx] = in[...];               // the software transfer (global -> register -> shared)
//   __syncthreads();                      // the barrier that ends the transfer
//
// The marker is a PTX label in its own { } scope: it emits no instruction, so natively (stock
// nvcc, a real GPU) it is nothing, and under simtlab the program runs the same instructions.
// simtlab marks the instruction that follows the label; with d2ma.xfer_regions=true (timing
// mode) the SM measures, per CTA and region: begin = the first warp issuing the marked
// instruction; AGEN end = the last global load issued by a warp of the CTA inside the region;
// MEM end = the barrier's release (the first issue of a warp after the first barrier it reached
// inside the region). See src/ext/d2ma/README.md (transfer regions).
#pragma once

static __device__ __forceinline__ void simtlab_xfer_begin() {
  asm volatile("{\n__simtlab_xfer_begin:\n}");
}
