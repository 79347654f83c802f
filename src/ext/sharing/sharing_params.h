// Parameters of resource sharing (`sharing.*`): Jatala, "Hardware and Software Optimizations
// for GPU Resource Management", PhD thesis, IIT Kanpur 2018, chapter 2 (seed 001; also Jatala,
// Anantpur, Karkare, HPDC'16 / arXiv 1503.05694). See src/ext/sharing/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/describer.h"

namespace simtlab::timing {

struct SharingParams {
  std::string mode = "none";
  double threshold = 0.1;
  bool reorder = false;
  bool dyn = false;
  uint32_t dyn_period = 1000;
  double dyn_step = 0.1;
  uint32_t dyn_ref_sm = 0;
  uint64_t dyn_seed = 1;
  std::string relssp = "none";
  std::string smem_layout = "default";
  bool relssp_check = false;

  bool on() const { return mode != "none"; }
  /// Whether the ch. 3 PTX passes run at module load (src/ptx/relssp.h).
  bool passes_on() const { return relssp != "none" || smem_layout != "default"; }

  void describe(config::Describer& d) {
    d.param("mode", mode, "",
            "Resource sharing: none; reg = pairs of thread blocks share (1-t) of their register "
            "file per warp pair; smem = pairs share (1-t) of their scratchpad per block pair. "
            "Extra blocks launch only when the thesis's allocation launches more than the "
            "baseline (equations 2.1-2.4)",
            "Jatala thesis ch. 2 (seed 001), sections 2.2-2.3")
        .one_of({"none", "reg", "smem"});
    d.param("threshold", threshold, "fraction",
            "t: the private fraction of each block's registers/scratchpad (percent sharing = "
            "(1-t) x 100)",
            "thesis ch. 2: t = 0.1 (90% sharing) for the main results, Tables 2.5-2.8 sweep "
            "0.9..0.1")
        .range(0.01, 1.0);
    d.param("reorder", reorder, "",
            "Unroll-and-reorder: renumber architectural registers by first static use, so the "
            "registers a warp needs first are private (register sharing)",
            "thesis 2.3.3 (Shared-LRR-Unrolled)");
    d.param("dyn", dyn, "",
            "Dynamic warp execution: non-owner warps issue global/local memory instructions "
            "with a per-SM probability adjusted against the reference SM (register sharing)",
            "thesis 2.3.4 (Shared-LRR-Unrolled-Dyn), after Kayiran et al. PACT 2013");
    d.param("dyn_period", dyn_period, "cycles", "Window after which each SM's probability moves",
            "thesis 2.3.4: 1000 cycles")
        .range(1, 1u << 30);
    d.param("dyn_step", dyn_step, "", "Probability step per window", "thesis 2.3.4: 0.1")
        .range(0.0, 1.0);
    d.param("dyn_ref_sm", dyn_ref_sm, "SM",
            "Reference SM: never issues non-owner memory instructions (probability 0)",
            "thesis 2.3.4: SM 0")
        .range(0, 1023);
    d.param("dyn_seed", dyn_seed, "", "Seed of the per-SM random draws (deterministic)",
            "assumption: any fixed seed; runs are reproducible")
        .range(0, ~uint64_t(0));
    d.param("relssp", relssp, "",
            "Compiler pass at module load (thesis ch. 3): none; opt = relssp placed by the "
            "backward Safe/INS analysis (eq. 3.1/3.2, critical edges split with a real bra, moved "
            "to just after the last shared-region access in a block); postdom = one relssp at "
            "the nearest common post-dominator of the last-access blocks. The release frees the "
            "block's scratchpad pair lock early (with sharing.mode=smem). Off by default",
            "Jatala thesis ch. 3, sections 3.3-3.4 (Shared-OWF-OPT / Shared-OWF-PostDom)")
        .one_of({"none", "opt", "postdom"});
    d.param("smem_layout", smem_layout, "",
            "Scratchpad variable layout: default = ptxas order; minimize = the subset of .shared "
            "variables whose access range is smallest is placed at the high offsets (the "
            "shared region)",
            "Jatala thesis ch. 3, section 3.2 (Shared-OWF-Reorder, 'Minimize')")
        .one_of({"default", "minimize"});
    d.param("relssp_check", relssp_check, "",
            "Safety checker: a shared-region scratchpad access by a thread after its own relssp "
            "is an error (sharing.mode=smem)",
            "assumption: a debugging aid (spec 1.4 asks for an optional checker); on in tests");
  }
  std::vector<config::Issue> validate() const { return {}; }
};

}  // namespace simtlab::timing
