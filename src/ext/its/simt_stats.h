// Divergence statistics of the SIMT stack (sim.divergence_stats; issue #22): per SM, the stack
// depth after every warp instruction (a histogram; under independent thread scheduling the
// running thread group's stack) and the stack entries popped (reconvergence events, including
// call returns). The group sm[i].simt exists only when on; sm/issue.cpp calls on_issue on the
// mechanism path.
#pragma once

#include <vector>

#include "func/warp.h"
#include "stats/group.h"

namespace simtlab::ext {

class SimtStats {
 public:
  SimtStats(uint32_t warps, stats::Group& sm)
      : g_(sm.child("simt")),
        depth_(g_.histogram("stack_depth", "entries",
                            "SIMT stack depth after each warp instruction (1 = converged)",
                            {1, 2, 3, 4, 6, 8, 16})),
        pops_(g_.counter("reconvergences", "stack entries",
                         "Stack entries popped (paths reaching their reconvergence point, call "
                         "returns)")),
        pushes_(
            g_.counter("pushes", "stack entries", "Stack entries pushed (divergent paths, calls)")),
        prev_(warps, 1) {}

  void on_issue(uint32_t slot, const func::Warp& fw) {
    const uint32_t d = uint32_t(fw.stack.size());
    if (fw.insts == 1) prev_[slot] = 1;
    if (d < prev_[slot]) pops_ += prev_[slot] - d;
    if (d > prev_[slot]) pushes_ += d - prev_[slot];
    prev_[slot] = d;
    if (d) depth_.sample(d);
  }

 private:
  stats::Group& g_;
  stats::Histogram& depth_;
  stats::Counter &pops_, &pushes_;
  std::vector<uint32_t> prev_;
};

}  // namespace simtlab::ext
