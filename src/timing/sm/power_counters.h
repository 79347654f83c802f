// Activity counters the power model (src/power) needs and the SM does not otherwise keep:
// thread-level register operand reads/writes and lane operations by execution class. They
// exist only with power.enable (Sm::enable_power_counters), as the group sm[i].activity, so
// with power off the stats are unchanged and issue pays one null-pointer test.
#pragma once

#include <string>
#include <vector>

#include "stats/group.h"

namespace simtlab::timing {

struct PowerCounters {
  stats::Group g;
  stats::Counter& rf_reads;
  stats::Counter& rf_writes;
  stats::Vector& lane_ops;
  PowerCounters(stats::Group& sm, std::vector<std::string> classes)
      : g("activity", &sm),
        rf_reads(g.counter("rf_reads", "lane operands",
                           "Register-file operand reads, one per source register per executing "
                           "lane (power model)")),
        rf_writes(g.counter("rf_writes", "lane operands",
                            "Register-file result writes, one per destination register per "
                            "executing lane (power model)")),
        lane_ops(g.vector("lane_ops", "lane operations",
                          "Executing lanes of issued instructions by execution class (power "
                          "model)",
                          std::move(classes))) {}
  void on_issue(size_t exec_class, unsigned lanes, unsigned reads, unsigned writes) {
    lane_ops[exec_class] += lanes;
    rf_reads += uint64_t(lanes) * reads;
    rf_writes += uint64_t(lanes) * writes;
  }
};

}  // namespace simtlab::timing
