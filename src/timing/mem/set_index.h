// Set-index functions: which set of a set-associative cache holds a line.
//
//  - linear: line number modulo the set count (any set count).
//  - xor:    (line mod S) XOR ((line / S) mod S), S a power of two: the "basic XOR" mapping of
//            Nugteren et al., "A Detailed GPU Cache Model Based on Reuse Distance Theory",
//            HPCA 2014 (their published model, src/model/associativity.cpp).
//  - fermi:  the Fermi L1 hash the same paper reverse-engineered: with l = line number,
//            set = (l[4:0] XOR {l12, l10, l8, l7, l6}) + 32 * l5, taken modulo the set count;
//            defined for 32 or 64 sets (the 16 KB and 48 KB Fermi L1 configurations).
//
// The "line number" is computed on a compacted address: when the cache is one of `slices`
// address-interleaved slices (an L2 slice among all slices of the chip), the interleave field
// is removed first so every set is reachable (SliceInterleave).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/types.h"

namespace simtlab::timing {

enum class SetIndexFn : uint8_t { linear, xor_fold, fermi };

/// The cache sees only addresses of one of `slices` slices interleaved every `granule` bytes.
struct SliceInterleave {
  uint64_t granule = 0;  // bytes; 0 = not interleaved
  uint32_t slices = 1;
  /// The address with the interleave field removed (identity when not interleaved).
  Addr compact(Addr a) const {
    if (slices <= 1 || granule == 0) return a;
    return (a / (granule * slices)) * granule + a % granule;
  }
};

/// Names accepted by parse_set_index ("linear", "xor", "fermi").
std::vector<std::string> set_index_names();
/// Panics on an unknown name (the config validated it).
SetIndexFn parse_set_index(const std::string& name);
/// Empty if `fn` supports `sets`, else the reason (for configuration errors).
std::string set_index_check(SetIndexFn fn, uint32_t sets);
/// The set of line number `line` (address / line size, after compaction).
uint32_t set_index(SetIndexFn fn, uint64_t line, uint32_t sets);

}  // namespace simtlab::timing
