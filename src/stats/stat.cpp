#include "stats/stat.h"

#include "base/error.h"

#include <algorithm>
#include <numeric>

namespace simtlab::stats {

uint64_t Vector::total() const {
  return std::accumulate(values_.begin(), values_.end(), uint64_t(0));
}

Histogram::Histogram(std::vector<uint64_t> upper_bounds) : bounds_(std::move(upper_bounds)) {
  SIMTLAB_ASSERT(!bounds_.empty(), "(histogram needs at least one bucket bound)");
  SIMTLAB_ASSERT(
      std::adjacent_find(bounds_.begin(), bounds_.end(), std::greater_equal<>()) == bounds_.end(),
      "(histogram bounds must be strictly increasing)");
  buckets_.assign(bounds_.size() + 1, 0);
}

void Histogram::sample(uint64_t x, uint64_t times) {
  size_t i =
      static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), x) - bounds_.begin());
  buckets_[i] += times;
  count_ += times;
  sum_ += x * times;
  if (times == 0) return;
  min_ = std::min(min_, x);
  max_ = std::max(max_, x);
}

std::vector<uint64_t> linear_bounds(uint64_t first, uint64_t step, size_t n) {
  std::vector<uint64_t> r;
  for (size_t i = 0; i < n; ++i) r.push_back(first + i * step);
  return r;
}

std::vector<uint64_t> pow2_bounds(uint64_t max) {
  std::vector<uint64_t> r{1};
  while (r.back() < max && r.back() <= (uint64_t(1) << 62)) r.push_back(r.back() * 2);
  return r;
}

}  // namespace simtlab::stats
