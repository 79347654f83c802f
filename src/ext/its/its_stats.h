// Statistics of independent thread scheduling (sim.its; the mechanism itself is in the
// functional model, src/func/executor.cpp, since it decides which threads execute): per SM,
// summed over the warps that finished on it. The group sm[i].its exists only with sim.its.
#pragma once

#include <algorithm>

#include "func/warp.h"
#include "stats/group.h"

namespace simtlab::ext {

class ItsStats {
 public:
  explicit ItsStats(stats::Group& sm)
      : g_(sm.child("its")),
        forks_(g_.counter("forks", "thread groups",
                          "Thread groups split off at divergent branches (both paths "
                          "independently schedulable)")),
        joins_(g_.counter("joins", "thread groups",
                          "Thread groups that reached their convergence barrier (reconvergence "
                          "events between groups)")),
        yields_(g_.counter("yields", "events",
                           "Yields that let threads waiting at a convergence barrier go on "
                           "without the groups still looping (sim.its_yield_backedges)")),
        released_(g_.counter("released_lanes", "threads",
                             "Threads that went on past a convergence barrier at a yield")),
        switches_(g_.counter("switches", "events", "Switches between thread groups of a warp")),
        wsyncs_(g_.counter("warp_sync_waits", "events",
                           "bar.warp.sync (__syncwarp) executions that waited for other groups")),
        max_(g_.counter("max_groups", "thread groups", "Most thread groups one warp had at once")) {
  }

  void add(const func::ItsState& s) {
    forks_ += s.forks;
    joins_ += s.joins;
    yields_ += s.yields;
    released_ += s.released_lanes;
    switches_ += s.switches;
    wsyncs_ += s.wsyncs;
    max_.value = std::max<uint64_t>(max_.value, s.max_splits);
  }

 private:
  stats::Group& g_;
  stats::Counter &forks_, &joins_, &yields_, &released_, &switches_, &wsyncs_, &max_;
};

}  // namespace simtlab::ext
