// Stat writers. Models never print stats; tools call these on a snapshot (or a delta).
// `schema_root` supplies names, units, descriptions and order; `snap` supplies values and must
// contain every raw stat under `schema_root` (take it with snapshot() of the same tree or an
// ancestor). Formulas are evaluated from `snap` (formula.h).
//
// Determinism: output depends only on the tree's declarations and the snapshot's values.
//  - JSON objects are key-sorted (nlohmann::json's std::map), so member order is alphabetical
//    ("sm[10]" sorts before "sm[2]"); dump() of the same tree and values is byte-identical.
//  - Text and CSV follow declaration order: a group's stats, then its children in
//    registration order, depth first.
// Numbers: counters, vector elements and histogram count/sum/min/max/bucket counts are
// integers; formulas and histogram means are doubles. A formula dividing by zero, a histogram
// mean/min/max without samples, and a delta's underivable histogram min/max have no value:
// JSON null, text "nan", CSV empty cell.
#pragma once

#include "stats/group.h"
#include "stats/snapshot.h"

#include <nlohmann/json.hpp>

#include <string>

namespace simtlab::stats {

/// The tree under `schema_root` (not wrapped in its name): child groups are nested objects
/// keyed by group name ("sm[3]"), stats are leaves keyed by stat name:
///   counter   {"value": 12, "unit": "...", "desc": "..."}
///   vector    {"values": {"label": 3, ...}, "total": 12, "unit", "desc"}
///   histogram {"count", "sum", "min", "max", "mean",
///              "buckets": [{"le": 4, "count": 1}, ..., {"le": "+inf", "count": 0}],
///              "unit", "desc"}                 (bucket counts are per bucket, not cumulative)
///   formula   {"value": 0.25, "formula": "misses / accesses", "unit", "desc"}
nlohmann::json to_json(const Group& schema_root, const Snapshot& snap);

/// One line per value, "path value unit", columns aligned with spaces. Vector elements are
/// "path::label" plus "path::total"; histograms give "path::count", "::sum", "::min", "::max",
/// "::mean" and one "path::le_<bound>" per bucket ending with "path::le_inf". Doubles are
/// printed with 6 significant digits.
std::string to_text(const Group& schema_root, const Snapshot& snap);

/// Comma-separated column names (the flattened paths of to_text) ending in "\n".
std::string csv_header(const Group& schema_root);
/// The matching values ending in "\n"; doubles in shortest round-trip form.
std::string csv_row(const Group& schema_root, const Snapshot& snap);

}  // namespace simtlab::stats
