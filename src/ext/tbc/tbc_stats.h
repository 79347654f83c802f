// Statistics of thread block compaction (sim.divergence=tbc): the SM's group `tbc`, present
// only when on. The quantities Fung & Aamodt (HPCA 2011) report: SIMD efficiency (the SM's
// simd_efficiency), warps formed by compaction, CTA-wide stack depth, reconvergences, and the
// costs of mixing threads of different home warps (register-bank conflicts; the memory
// requests show in the L1 statistics).
#pragma once

#include "ext/tbc/tbc.h"
#include "stats/group.h"

namespace simtlab::ext::tbc {

class TbcStats {
 public:
  explicit TbcStats(stats::Group& sm)
      : g_(sm.child("tbc")),
        divergent_(g_.counter("divergent_branches", "branches",
                              "Potentially divergent branches that split a CTA (entries pushed)")),
        uniform_(g_.counter("uniform_branches", "branches",
                            "Potentially divergent branches every thread of the CTA took the "
                            "same way (the CTA still synchronised)")),
        syncs_(g_.counter("sync_points", "events",
                          "Barriers and warp-collective instructions at which the CTA's warps "
                          "synchronised and returned to their static warps")),
        pops_(g_.counter("reconvergences", "stack entries",
                         "CTA-wide stack entries popped (paths reaching their reconvergence "
                         "point)")),
        pushes_(g_.counter("pushes", "stack entries", "CTA-wide stack entries pushed")),
        formed_(g_.counter("warps_formed", "warps",
                           "Warps formed at compaction (each new top entry of a CTA-wide stack)")),
        compacted_(g_.counter("compacted_warps", "warps",
                              "Of warps_formed, those holding threads of more than one home warp")),
        mixed_(g_.counter("mixed_warp_insts", "warp instructions",
                          "Warp instructions issued by warps holding threads of more than one "
                          "home warp")),
        bank_(g_.counter("extra_bank_conflicts", "cycles",
                         "Register-bank conflict cycles of formed warps beyond their first home "
                         "warp's own (the operand of each home warp is in its own bank)")),
        fallback_(g_.counter("ipdom_fallbacks", "CTAs",
                             "CTAs that returned to per-warp stacks: a divergent branch's paths "
                             "hold a CTA barrier (warp-specialised code needs them concurrent)")),
        depth_(g_.histogram("stack_depth", "entries",
                            "CTA-wide stack depth at every synchronisation (1 = converged)",
                            {1, 2, 3, 4, 6, 8, 16})) {}

  void on_settle(const Settled& s, size_t depth) {
    if (!s.any) return;
    divergent_ += s.diverged;
    uniform_ += s.uniform;
    syncs_ += s.synced;
    pops_ += s.pops;
    if (!s.synced) {
      formed_ += s.formed;
      compacted_ += s.compacted;
    }
    if (depth) depth_.sample(depth);
  }
  void on_issue(size_t pieces, uint32_t extra_bank) {
    mixed_ += pieces > 1;
    bank_ += extra_bank;
  }
  void on_push(uint64_t n) { pushes_ += n; }
  void on_fallback() { ++fallback_; }

 private:
  stats::Group& g_;
  stats::Counter &divergent_, &uniform_, &syncs_, &pops_, &pushes_, &formed_, &compacted_, &mixed_,
      &bank_, &fallback_;
  stats::Histogram& depth_;
};

}  // namespace simtlab::ext::tbc
