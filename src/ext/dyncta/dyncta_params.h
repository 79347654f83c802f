// Parameters of DYNCTA (`dyncta.*`): Kayiran, Jog, Kandemir, Das, "Neither More Nor Less:
// Optimizing Thread-level Parallelism for GPGPUs", PACT 2013; GPGPU book 5.1. See
// src/ext/dyncta/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/describer.h"

namespace simtlab::timing {

struct DynctaParams {
  bool enable = false;
  uint32_t period = 2048;
  uint32_t t_idle = 16;
  uint32_t t_mem_low = 128;
  uint32_t t_mem_high = 384;
  std::string c_mem = "stall";

  void describe(config::Describer& d) {
    const char* src =
        "Kayiran et al., PACT 2013, DYNCTA algorithm and parameter choice (values as recalled "
        "from the paper; not checked against its text here)";
    d.param("enable", enable, "",
            "DYNCTA: per SM, start at floor(max CTAs / 2) and move the CTA limit by one each "
            "sampling period from idle and memory-wait cycle counts; CTAs above the limit are "
            "paused (newest first), no new CTA is placed while the SM is at its limit",
            "Kayiran et al., PACT 2013; GPGPU book 5.1");
    d.param("period", period, "cycles", "Sampling period", src).range(1, 1u << 30);
    d.param("t_idle", t_idle, "cycles",
            "C_idle at or above this raises the limit (too little parallelism)", src)
        .range(0, 1u << 30);
    d.param("t_mem_low", t_mem_low, "cycles",
            "C_mem below this raises the limit (memory is not the bottleneck)", src)
        .range(0, 1u << 30);
    d.param("t_mem_high", t_mem_high, "cycles",
            "C_mem at or above this lowers the limit (memory contention)", src)
        .range(0, 1u << 30);
    d.param("c_mem", c_mem, "",
            "What a memory-delay cycle (C_mem) is, counted in cycles no scheduler issued: "
            "stall = a scheduler's next ready instruction was a memory op the full LD/ST unit "
            "refused (back-pressure from the memory system); wait = every runnable warp had an "
            "L1D load outstanding (latency, not necessarily contention)",
            "our reading of Kayiran et al. 2013 (C_mem: cycles the core stalls on the memory "
            "pipeline); `wait` is the alternative reading, kept for comparison")
        .one_of({"stall", "wait"});
  }
  std::vector<config::Issue> validate() const {
    std::vector<config::Issue> r;
    if (t_mem_low > t_mem_high) r.push_back({"t_mem_low", "must not exceed t_mem_high"});
    return r;
  }
};

}  // namespace simtlab::timing
