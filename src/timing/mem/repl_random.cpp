// Random: a uniformly chosen candidate, drawn from a per-cache xorshift64* generator seeded
// from CacheParams::seed, so runs are reproducible.
#include <bit>

#include "timing/mem/replacement.h"

namespace simtlab::timing {
namespace {

class Random final : public ReplacementPolicy {
 public:
  explicit Random(uint64_t seed) : state_(seed ? seed : 0x9e3779b97f4a7c15ull) {}
  void on_hit(uint32_t, uint32_t) override {}
  void on_insert(uint32_t, uint32_t) override {}
  uint32_t victim(uint32_t, uint64_t candidates) override {
    uint32_t k = uint32_t(next() % uint64_t(std::popcount(candidates)));
    uint64_t c = candidates;
    while (k--) c &= c - 1;
    return uint32_t(std::countr_zero(c));
  }

 private:
  uint64_t next() {  // xorshift64* (Vigna, "An experimental exploration of Marsaglia's
                     // xorshift generators, scrambled", 2016)
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545f4914f6cdd1dull;
  }
  uint64_t state_;
};

}  // namespace

std::unique_ptr<ReplacementPolicy> make_random_policy(uint32_t, uint32_t, uint64_t seed) {
  return std::make_unique<Random>(seed);
}

}  // namespace simtlab::timing
