// Parameters of the D2MA engine (`d2ma.*`). Jamshidi, Samadi, Mahlke, "D2MA: Accelerating
// Coarse-Grained Data Transfer for GPUs", PACT 2014 (seed 002; spec
// shared/spec/d2ma-and-configurable-ppa.md section 1). See src/ext/d2ma/README.md.
#pragma once

#include <cstdint>
#include <string>

#include "config/describer.h"

namespace simtlab::timing {

struct D2maParams {
  bool enable = false;
  uint32_t buffers_per_cta = 4;
  uint32_t segment_bytes = 128;
  uint32_t reqs_per_cycle = 1;
  std::string ignite_policy = "all_warps";
  std::string raw_range = "footprint";
  bool check_stores = true;
  bool infinite_mshrs = false;
  std::string agen_arbitration = "fifo";
  bool xfer_regions = false;

  void describe(config::Describer& d) {
    d.param("enable", enable, "",
            "Per-SM data-parallel DMA engine: calls of the __d2ma_* intrinsics "
            "(include/simtlab/d2ma.h) configure and ignite global->shared transfers generated "
            "by one AGEN; a RAW check on shared accesses replaces the barrier. Off: the "
            "intrinsics run their software fallback bodies",
            "Jamshidi et al., PACT 2014, section 3");
    d.param("buffers_per_cta", buffers_per_cta, "entries",
            "Buffer-management-table entries per DMA controller (transfers a CTA may have in "
            "flight)",
            "D2MA section 3.1 (4 BMT entries per controller)")
        .range(1, 16);
    d.param("segment_bytes", segment_bytes, "bytes",
            "Global segment the AGEN requests per cycle in unit-stride mode",
            "D2MA section 3.2 (the hardware masks the low 7 address bits: 128 B)")
        .one_of({32, 64, 128});
    d.param("reqs_per_cycle", reqs_per_cycle, "requests/cycle",
            "Requests the AGEN may issue per cycle", "D2MA section 3.1 (at most one per cycle)")
        .one_of({1});
    d.param("ignite_policy", ignite_policy, "",
            "first_warp: the first warp of a CTA to execute a buffer's k-th dma_execute ignites "
            "it (paper); all_warps: ignition waits until every live warp of the CTA arrived "
            "(guards against WAR overwrites the paper does not discuss)",
            "assumption: all_warps. The paper's rule is first_warp, but with it a fast warp's "
            "dma_execute overwrites a buffer slower warps still read (WAR): the paper's own "
            "Fig. 8 sgemv (workloads d2ma_sgemv) then computes wrong results")
        .one_of({"first_warp", "all_warps"});
    d.param("raw_range", raw_range, "",
            "Range the RAW check compares shared addresses with: paper = [sbase, sbase + "
            "nelem x esize); footprint = the shared bytes the transfer really writes (halo "
            "frame, bank padding)",
            "assumption: footprint, because the paper's range misses halo and padding cells")
        .one_of({"paper", "footprint"});
    d.param("check_stores", check_stores, "",
            "The RAW check also holds shared stores/atomics to a buffer in flight",
            "assumption: checked (the paper checks loads only and leaves stores open)");
    d.param("agen_arbitration", agen_arbitration, "",
            "Which ignited buffer the AGEN serves: fifo = one buffer at a time in ignition "
            "order (the paper: a buffer starts once the AGEN is available); round_robin = one "
            "request per ready buffer in turn (interleaves CTAs' tiles, as warps' own loads "
            "interleave in the baseline)",
            "D2MA section 3.2 (fifo); round_robin is a sensitivity variant (spec 1.5: the "
            "arbitration order is a gap)")
        .one_of({"fifo", "round_robin"});
    d.param("infinite_mshrs", infinite_mshrs, "",
            "The engine never waits for an L1D MSHR (with sm.l1d.mshrs raised and unbounded "
            "queues this is the paper's infinite-resources experiment, Fig. 1)",
            "assumption: off (the paper's engine shares the 32 L1D MSHRs)");
    d.param("xfer_regions", xfer_regions, "",
            "Measure the transfer regions software-tiling kernels mark with "
            "simtlab_xfer_begin() (include/simtlab/xfer.h): per CTA and region AGEN (marker "
            "-> last global load issued) and MEM (-> barrier release) cycles, and cycles with "
            "every live warp inside a region (stats group sm[i].xfer). Independent of enable",
            "D2MA section 5 (Fig. 11: the baseline's transfer time, first address instruction "
            "to barrier release, split into AGEN and MEM; the 7% all-warps-waiting share)");
  }
};

}  // namespace simtlab::timing
