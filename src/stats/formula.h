// Evaluation of Formula stats (group.h) over a Snapshot.
#pragma once

#include "stats/group.h"
#include "stats/snapshot.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace simtlab::stats {

/// Finds the stat an operand path names, seen from `owner`: first relative to `owner`
/// ("misses", "l1d.misses"), then absolute from the tree root ("gpu.cycles"; under an unnamed
/// root, paths start below it). Returns {group, stat} or {nullptr, nullptr}.
std::pair<const Group*, const Stat*> resolve_operand(const Group& owner, std::string_view path);

/// The value of formula `f` (a Stat of `owner` holding a Formula) in `snap`: scale * numer /
/// denom, or nullopt when denom is 0 or an operand formula has no value. Operands: a counter
/// (its count), a vector (its total), "vector::label" (one element), another formula (its
/// value). Panics (a simtlab bug) when an operand does not resolve, is a histogram, is missing
/// from `snap`, or formulas form a cycle.
std::optional<double> evaluate(const Group& owner, const Stat& f, const Snapshot& snap);

/// Panics naming the first formula under `root` with an operand that does not resolve, is a
/// histogram, or names a missing vector label. Call after building the tree so a typo fails at
/// startup, not at the end.
void check_formulas(const Group& root);

/// "misses / accesses" or "100 * misses / accesses".
std::string formula_text(const Formula& f);

}  // namespace simtlab::stats
