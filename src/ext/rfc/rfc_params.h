// Parameters of the register-file cache (rfc.*): Gebhart et al., ISCA 2011, "Energy-efficient
// mechanisms for managing thread context in throughput processors"; GPGPU book 3.6.1.
#pragma once

#include <cstdint>

#include "config/describer.h"

namespace simtlab::ext {

struct RfcParams {
  bool enable = false;
  uint32_t entries = 6;
  bool last_use = true;

  void describe(config::Describer& d) {
    d.param("enable", enable, "",
            "Register-file cache in front of the main register file (needs "
            "sm.scheduler=two_level: entries exist only for active-pool warps)",
            "Gebhart et al. ISCA 2011 (off by default: the baseline has no RFC)");
    d.param("entries", entries, "registers/thread",
            "RFC entries per active warp (each a 32-lane register), FIFO replaced",
            "Gebhart et al. ISCA 2011: 6 entries per thread is the evaluated design point")
        .range(1, 64);
    d.param("last_use", last_use, "",
            "Compiler last-use bits: a value read for the last time is dead in the RFC and is "
            "not written back to the main register file when evicted or flushed",
            "Gebhart et al. ISCA 2011 (static liveness); GPGPU book 3.6.1");
  }
};

}  // namespace simtlab::ext
