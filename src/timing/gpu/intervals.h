// Interval statistics (stats.interval = N > 0): per kernel, every N core cycles from its start,
// the change of a fixed set of stats, per SM and chip-wide, kept as compact arrays (one array
// per series, one element per interval). Each interval is the difference of two snapshots of
// the stat tree and the last one ends at the kernel's final snapshot, so the intervals of a
// series add up exactly to the kernel's total (docs/outputs.md, "Interval statistics").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/snapshot.h"

namespace simtlab::timing {

class IntervalRecorder {
 public:
  IntervalRecorder(uint64_t interval, uint32_t num_sms) : n_(interval), num_sms_(num_sms) {}
  /// The kernel starts at `now` with the stat tree in state `s`.
  void begin(const stats::Snapshot& s, uint64_t now);
  /// An interval ends at `now` (a boundary, or the kernel's end).
  void sample(const stats::Snapshot& s, uint64_t now);
  /// Absolute core cycle of the next boundary.
  uint64_t next() const { return next_; }
  nlohmann::json to_json() const;

 private:
  struct Column {
    std::string series;  // "warp_insts", "stall.scoreboard", "l2_hits"...
    int sm = -1;         // -1: chip-wide
    std::vector<uint64_t> v;
  };
  struct Source {
    std::string path;
    int elem = -1;  // vector element, -1 = counter value or vector total
    uint64_t prev = 0;
    std::vector<size_t> cols;
  };
  static uint64_t read(const stats::Snapshot& s, const Source& src);
  size_t column(const std::string& series, int sm);

  uint64_t n_;
  uint32_t num_sms_;
  uint64_t start_ = 0, next_ = 0;
  std::vector<uint64_t> ends_;  // kernel-relative end cycle of each interval
  std::vector<Column> cols_;
  std::vector<Source> srcs_;
};

}  // namespace simtlab::timing
