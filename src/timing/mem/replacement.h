// Cache replacement policies behind one interface, chosen by name (CacheParams::repl).
//
// Contract: the cache calls on_insert() when a way receives a new line (at reservation for
// allocate-on-miss, at fill for allocate-on-fill) and on_hit() when a valid line is accessed.
// victim() picks one way among `candidates` (bit w = way w may be evicted; never empty); the
// cache prefers invalid ways itself and asks the policy only when every candidate is valid.
// Policies are deterministic: `random` draws from its own seeded generator.
//
// Adding a policy: one file defining a factory (repl_stamp.cpp holds lru and fifo), plus one line
// in the table in replacement.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace simtlab::timing {

class ReplacementPolicy {
 public:
  virtual ~ReplacementPolicy() = default;
  virtual void on_hit(uint32_t set, uint32_t way) = 0;
  virtual void on_insert(uint32_t set, uint32_t way) = 0;
  virtual uint32_t victim(uint32_t set, uint64_t candidates) = 0;
};

/// `ways` <= 64. `seed` is used by randomised policies only.
using ReplacementFactory = std::unique_ptr<ReplacementPolicy> (*)(uint32_t sets, uint32_t ways,
                                                                  uint64_t seed);

/// The registered names, in registration order ("lru", "fifo", "random").
std::vector<std::string> replacement_names();
/// Builds the policy `name`; panics on an unknown name (the config validated it).
std::unique_ptr<ReplacementPolicy> make_replacement(std::string_view name, uint32_t sets,
                                                    uint32_t ways, uint64_t seed);

}  // namespace simtlab::timing
