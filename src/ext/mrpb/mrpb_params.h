// Parameters of the memory request prioritization buffer and L1 bypass (mrpb.*): Jia, Shaw,
// Martonosi, HPCA 2014, "MRPB: Memory request prioritization for massively parallel
// processors"; GPGPU book 4.4.3.
#pragma once

#include <cstdint>

#include "config/describer.h"

namespace simtlab::ext {

struct MrpbParams {
  bool enable = false;
  uint32_t queue_entries = 8;
  bool bypass = false;

  void describe(config::Describer& d) {
    d.param("enable", enable, "",
            "Per-warp FIFO queues between the coalescer and the L1D, drained by fixed priority "
            "(lowest warp slot first)",
            "Jia et al. HPCA 2014 (signature = warp id, fixed-priority drain: their best "
            "variant; off by default)");
    d.param("queue_entries", queue_entries, "transactions",
            "Depth of each per-warp FIFO (an instruction enters its FIFO only when all its L1D "
            "transactions fit)",
            "assumption: 8 holds two fully uncoalesced 4-block warp accesses; Jia et al. do not "
            "tie the benefit to the depth")
        .range(4, 1024);
    d.param("bypass", bypass, "",
            "A load the L1D refuses because every way of its set is reserved (associativity "
            "stall) goes to the L2 without allocating in the L1D",
            "Jia et al. HPCA 2014 (bypass on associativity stall); GPGPU book 4.4.3");
  }
};

}  // namespace simtlab::ext
