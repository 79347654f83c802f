// "Did you mean" suggestions for misspelled names (config keys, preset names).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simtlab::config {

/// Levenshtein distance (insert, delete, substitute each cost 1).
size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word`, if close enough to be a plausible typo: case-insensitive
/// edit distance <= max(2, len(word) / 3), or the only candidate whose last dotted components
/// equal `word` ("num_warps" -> "sm.num_warps"). Ties go to the earliest candidate.
std::optional<std::string> nearest(std::string_view word,
                                   const std::vector<std::string>& candidates);

}  // namespace simtlab::config
