// The stat types components update on the hot path. Each is a plain value type with no
// virtual calls, strings or allocation per update; names, units and descriptions live in the
// owning Group (group.h). References returned by Group stay valid for the Group's lifetime.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace simtlab::stats {

/// A monotonically increasing event count (`hits += 1`, `++misses`).
struct Counter {
  uint64_t value = 0;
  void operator+=(uint64_t n) { value += n; }
  void operator++() { ++value; }
};

/// An enum or integer usable as a Vector index.
template <typename I>
concept StatIndex = std::is_enum_v<I> || std::is_integral_v<I>;

/// A fixed-size array of counts indexed by an enum (or integer) whose labels are given at
/// declaration: `stall[StallReason::kScoreboard] += 1`. Index must be < size() (asserted in
/// debug builds).
class Vector {
 public:
  explicit Vector(size_t size) : values_(size, 0) {}

  template <StatIndex I>
  uint64_t& operator[](I i) {
    size_t k = static_cast<size_t>(i);
    assert(k < values_.size());
    return values_[k];
  }
  template <StatIndex I>
  uint64_t operator[](I i) const {
    size_t k = static_cast<size_t>(i);
    assert(k < values_.size());
    return values_[k];
  }
  size_t size() const { return values_.size(); }
  uint64_t total() const;
  const std::vector<uint64_t>& values() const { return values_; }

 private:
  std::vector<uint64_t> values_;
};

/// A distribution of integer samples (latencies, occupancies). Bucket i counts samples x with
/// bounds[i-1] < x <= bounds[i] (bucket 0: x <= bounds[0]); one extra last bucket counts
/// x > bounds.back(). Also keeps count, sum, min and max.
class Histogram {
 public:
  /// `upper_bounds` must be non-empty and strictly increasing (else panic).
  explicit Histogram(std::vector<uint64_t> upper_bounds);

  /// Records `times` samples of value `x`.
  void sample(uint64_t x, uint64_t times = 1);

  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  /// Smallest / largest sample; meaningless when count() == 0.
  uint64_t min() const { return min_; }
  uint64_t max() const { return max_; }
  const std::vector<uint64_t>& upper_bounds() const { return bounds_; }
  /// upper_bounds().size() + 1 counts; the last is the overflow bucket.
  const std::vector<uint64_t>& buckets() const { return buckets_; }

 private:
  std::vector<uint64_t> bounds_;
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = std::numeric_limits<uint64_t>::max();
  uint64_t max_ = 0;
};

/// {first, first + step, ..., first + (n - 1) * step}.
std::vector<uint64_t> linear_bounds(uint64_t first, uint64_t step, size_t n);
/// {1, 2, 4, ..., max}; `max` is rounded up to a power of two.
std::vector<uint64_t> pow2_bounds(uint64_t max);

}  // namespace simtlab::stats
