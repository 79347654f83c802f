// Statistics of likely convergence points (sim.lpc; the mechanism itself is in the functional
// model's SIMT stack, src/func/executor.cpp simt_diverge_lpc / reconverge, since it decides
// which threads execute together): per SM, summed over the warps that finished on it. The group
// sm[i].lpc exists only with sim.lpc.
#pragma once

#include "func/warp.h"
#include "stats/group.h"

namespace simtlab::ext {

class LpcStats {
 public:
  explicit LpcStats(stats::Group& sm)
      : g_(sm.child("lpc")),
        entries_(g_.counter("lpc_entries", "stack entries",
                            "LPC entries pushed at divergent branches with a likely convergence "
                            "point (a loop's latch before the branch's IPDOM)")),
        merges_(g_.counter("lpc_merges", "stack entries",
                           "Path entries that reached their likely convergence point and merged "
                           "into the LPC entry")),
        threads_(g_.counter("lpc_threads", "threads", "Threads those path entries carried")),
        joined_(g_.counter("lpc_joins", "stack entries",
                           "Merges into an LPC entry that already held threads (paths that met "
                           "before the IPDOM)")) {}

  void add(const func::LpcState& s) {
    entries_ += s.entries;
    merges_ += s.merges;
    threads_ += s.merged_threads;
    joined_ += s.joined;
  }

 private:
  stats::Group& g_;
  stats::Counter &entries_, &merges_, &threads_, &joined_;
};

}  // namespace simtlab::ext
