#include "timing/mem/replacement.h"

#include "base/error.h"

namespace simtlab::timing {

// Implementations (one file each).
std::unique_ptr<ReplacementPolicy> make_lru_policy(uint32_t sets, uint32_t ways, uint64_t seed);
std::unique_ptr<ReplacementPolicy> make_fifo_policy(uint32_t sets, uint32_t ways, uint64_t seed);
std::unique_ptr<ReplacementPolicy> make_random_policy(uint32_t sets, uint32_t ways, uint64_t seed);

namespace {

struct Entry {
  const char* name;
  ReplacementFactory make;
};

// The registry: one line per policy.
constexpr Entry kPolicies[] = {
    {"lru", &make_lru_policy},
    {"fifo", &make_fifo_policy},
    {"random", &make_random_policy},
};

}  // namespace

std::vector<std::string> replacement_names() {
  std::vector<std::string> v;
  for (const Entry& e : kPolicies) v.emplace_back(e.name);
  return v;
}

std::unique_ptr<ReplacementPolicy> make_replacement(std::string_view name, uint32_t sets,
                                                    uint32_t ways, uint64_t seed) {
  SIMTLAB_ASSERT(ways >= 1 && ways <= 64, "associativity must be in [1, 64]");
  for (const Entry& e : kPolicies)
    if (name == e.name) return e.make(sets, ways, seed);
  panic(__FILE__, __LINE__, "unknown replacement policy '" + std::string(name) + "'");
}

}  // namespace simtlab::timing
