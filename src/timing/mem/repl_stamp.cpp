// The two age-ordered policies. Each way keeps a stamp; the victim is the candidate with the
// oldest stamp (ties: lowest way).
// - lru (least recently used): inserts and hits restamp the way.
// - fifo (first in, first out): only inserts stamp it; hits do not refresh it.
#include <bit>
#include <vector>

#include "timing/mem/replacement.h"

namespace simtlab::timing {
namespace {

template <bool kRefreshOnHit>
class StampPolicy final : public ReplacementPolicy {
 public:
  StampPolicy(uint32_t sets, uint32_t ways) : ways_(ways), stamp_(size_t(sets) * ways, 0) {}
  void on_hit(uint32_t set, uint32_t way) override {
    if constexpr (kRefreshOnHit) stamp(set, way);
  }
  void on_insert(uint32_t set, uint32_t way) override { stamp(set, way); }
  uint32_t victim(uint32_t set, uint64_t candidates) override {
    const uint64_t* s = &stamp_[size_t(set) * ways_];
    uint32_t best = uint32_t(std::countr_zero(candidates));
    for (uint64_t c = candidates & (candidates - 1); c; c &= c - 1) {
      const uint32_t w = uint32_t(std::countr_zero(c));
      if (s[w] < s[best]) best = w;
    }
    return best;
  }

 private:
  void stamp(uint32_t set, uint32_t way) { stamp_[size_t(set) * ways_ + way] = ++now_; }

  uint32_t ways_;
  uint64_t now_ = 0;
  std::vector<uint64_t> stamp_;
};

}  // namespace

std::unique_ptr<ReplacementPolicy> make_lru_policy(uint32_t sets, uint32_t ways, uint64_t) {
  return std::make_unique<StampPolicy<true>>(sets, ways);
}

std::unique_ptr<ReplacementPolicy> make_fifo_policy(uint32_t sets, uint32_t ways, uint64_t) {
  return std::make_unique<StampPolicy<false>>(sets, ways);
}

}  // namespace simtlab::timing
