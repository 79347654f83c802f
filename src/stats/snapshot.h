// Snapshots: a copy of every raw stat value in a tree at one moment, keyed by full path.
// Per-kernel stats are delta(after_kernel, before_kernel); whole-run stats are a snapshot at
// the end. Formulas are not stored; writers evaluate them from a snapshot's raw values, so a
// delta's ratios are ratios of the deltas.
#pragma once

#include "stats/group.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace simtlab::stats {

struct HistogramValue {
  uint64_t count = 0;
  uint64_t sum = 0;
  /// Absent when there are no samples, and in a delta when they cannot be derived (see delta).
  std::optional<uint64_t> min;
  std::optional<uint64_t> max;
  std::vector<uint64_t> buckets;  // as Histogram::buckets()
  bool operator==(const HistogramValue&) const = default;
};

/// Counter -> uint64_t, Vector -> its elements, Histogram -> HistogramValue.
using StatValue = std::variant<uint64_t, std::vector<uint64_t>, HistogramValue>;

struct Snapshot {
  std::map<std::string, StatValue> values;  // by full stat path

  bool contains(std::string_view path) const;
  /// Typed accessors; panic if the path is missing or has another type.
  uint64_t counter(std::string_view path) const;
  const std::vector<uint64_t>& vector(std::string_view path) const;
  const HistogramValue& histogram(std::string_view path) const;
  bool operator==(const Snapshot&) const = default;
};

/// Copies every counter, vector and histogram under `root` (inclusive).
Snapshot snapshot(const Group& root);

/// end - begin, per stat. Paths missing from `begin` count as zero (stats registered later);
/// paths missing from `end` are a bug (panic), as is a counter that went down. Histogram
/// min/max are exact when derivable (begin had no samples, or end's min/max moved past
/// begin's); otherwise they are absent.
Snapshot delta(const Snapshot& end, const Snapshot& begin);

}  // namespace simtlab::stats
