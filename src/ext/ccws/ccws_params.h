// Parameters of cache-conscious wavefront scheduling (`ccws.*`) and of its baseline, static
// warp limiting (`swl.*`). Rogers, O'Connor, Aamodt, "Cache-Conscious Wavefront Scheduling",
// MICRO 2012; GPGPU book section 5.1.2 (seed 000, Figure 5.1). See src/ext/ccws/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/describer.h"

namespace simtlab::timing {

struct CcwsParams {
  bool enable = false;
  uint32_t vta_entries = 16;
  uint32_t vta_assoc = 8;
  uint32_t base_score = 100;
  uint32_t kthrottle = 100;
  uint32_t decay = 1;

  void describe(config::Describer& d) {
    d.param("enable", enable, "",
            "Cache-conscious wavefront scheduling: per-warp victim tag arrays detect lost "
            "intra-warp locality; warps whose stacked lost-locality scores pass the cutoff may "
            "not issue L1D loads (they still issue other instructions)",
            "Rogers et al., MICRO 2012; GPGPU book 5.1.2");
    d.param("vta_entries", vta_entries, "tags",
            "Victim tags per warp (tags of L1D lines the warp allocated and lost to eviction)",
            "assumption: 16 tags per warp, the order of the paper's per-wavefront VTA (its "
            "configuration table could not be checked here)")
        .range(1, 1024);
    d.param("vta_assoc", vta_assoc, "ways",
            "Associativity of each warp's victim tag array (LRU within a set)",
            "assumption: 8-way, as the paper's per-wavefront VTA (not checked against its table)")
        .range(1, 1024);
    d.param("base_score", base_score, "points",
            "Lost-locality score every warp starts from and decays back to; the cutoff is active "
            "warps x base_score",
            "Rogers et al. 2012 scoring system (cutoff = active warps x base score); the value "
            "100 is an assumption (only ratios to kthrottle and decay matter)")
        .range(1, 1u << 20);
    d.param("kthrottle", kthrottle, "points",
            "Score added to a warp per lost-locality detection (a miss that hits its victim tags)",
            "assumption: one detection pushes about one base-score warp past the cutoff "
            "(the paper scales its increment with a constant K_THROTTLE)")
        .range(0, 1u << 20);
    d.param("decay", decay, "points/cycle", "Points a score above base_score loses per cycle",
            "assumption: 1 point/cycle, so one detection throttles for kthrottle cycles, about "
            "one L2 round trip (the paper decays scores over time)")
        .range(0, 1u << 20);
  }
  std::vector<config::Issue> validate() const {
    std::vector<config::Issue> r;
    if (vta_entries % vta_assoc != 0)
      r.push_back({"vta_entries", "must be a multiple of vta_assoc"});
    return r;
  }
};

struct SwlParams {
  uint32_t warps = 0;

  void describe(config::Describer& d) {
    d.param("warps", warps, "warps",
            "Static warp limiting: only the `warps` oldest runnable warps of an SM (not finished, "
            "not waiting at a barrier) may issue; 0 = off. The baseline of CCWS (best-SWL: the "
            "best limit per benchmark)",
            "Rogers et al., MICRO 2012 (static wavefront limiting)")
        .range(0, 2048);
  }
};

}  // namespace simtlab::timing
