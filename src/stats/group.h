// Group: one node of the stat tree. Each component owns a Group named after it and registers
// it under its parent's, so every stat has a hierarchical path: gpu.sm[3].l1d.misses.
//
//   class L1Cache {
//     stats::Group stats_;
//     stats::Counter& hits_;
//     stats::Counter& misses_;
//    public:
//     L1Cache(stats::Group& parent)
//         : stats_("l1d", &parent),
//           hits_(stats_.counter("hits", "accesses", "Accesses that hit")),
//           misses_(stats_.counter("misses", "accesses", "Accesses that missed")) {
//       stats_.ratio("miss_rate", "", "Misses per access", "misses", "accesses");
//     }
//   };
//
// Contract:
//  - Names: stats [A-Za-z0-9_]+; groups the same, optionally followed by an index "[3]". Names
//    are unique within a group across stats and child groups. Breaking this is a simtlab bug
//    (panic).
//  - Returned Counter/Vector/Histogram references and child Group references stay valid for
//    the Group's lifetime (std::deque storage). A Group is neither copyable nor movable.
//  - A Group registers with its parent on construction and unregisters on destruction; either
//    may be destroyed first.
//  - Order: stats in declaration order, then child groups in registration order. Text and CSV
//    output follow this order.
//  - No globals: the tree is whatever the owner builds; two trees may coexist in a process.
#pragma once

#include "stats/stat.h"

#include <deque>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace simtlab::stats {

/// A derived stat: scale * value(numer) / value(denom), evaluated on a snapshot. Operands are
/// stat paths resolved first relative to the owning group ("misses", "l1d.misses") and then
/// as absolute paths from the tree root ("gpu.cycles"). An operand may be a counter, a vector
/// (its total), one vector element ("stall::mem") or another formula. Division by zero yields
/// no value (JSON null).
struct Formula {
  std::string numer;
  std::string denom;
  double scale = 1.0;
};

/// One declared stat: its metadata and the live object (or formula) behind it.
struct Stat {
  std::string name;
  std::string unit;
  std::string desc;
  std::variant<const Counter*, const Vector*, const Histogram*, Formula> what;
  std::vector<std::string> labels;  // vectors only: one per element
};

class Group {
 public:
  /// Registers with `parent` (if any); the path is "<parent path>.<name>" or just `name` for a
  /// root. A root may have an empty name; then its children's paths start with their names.
  explicit Group(std::string name, Group* parent = nullptr);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  Counter& counter(std::string name, std::string unit, std::string desc);
  /// One element per label; index it with an enum whose values are 0..labels.size()-1.
  /// Labels are unique [A-Za-z0-9_]+ names other than "total".
  Vector& vector(std::string name, std::string unit, std::string desc,
                 std::vector<std::string> labels);
  Histogram& histogram(std::string name, std::string unit, std::string desc,
                       std::vector<uint64_t> bucket_upper_bounds);
  /// Declares scale * numer / denom (see Formula). Operands are resolved when evaluated, so
  /// they may be declared later or elsewhere in the tree; check_formulas() checks them early.
  void ratio(std::string name, std::string unit, std::string desc, std::string numer_path,
             std::string denom_path, double scale = 1.0);
  /// The owned child group `name`, created on first use (for parts without their own object).
  Group& child(std::string name);

  const std::string& name() const { return name_; }
  /// Full dotted path from the tree root ("gpu.sm[3].l1d").
  const std::string& path() const { return path_; }
  /// "<path>.<stat>" (or just `stat` under an unnamed root).
  std::string path_of(std::string_view stat) const;
  const Group* parent() const { return parent_; }
  const std::vector<Stat>& stats() const { return stats_; }
  const std::vector<Group*>& children() const { return children_; }
  const Stat* find_stat(std::string_view name) const;
  const Group* find_child(std::string_view name) const;

 private:
  Stat& add_stat(std::string name, std::string unit, std::string desc);
  void check_new_name(std::string_view name) const;

  std::string name_;
  std::string path_;
  Group* parent_;
  std::vector<Stat> stats_;
  std::vector<Group*> children_;
  std::deque<Counter> counters_;
  std::deque<Vector> vectors_;
  std::deque<Histogram> histograms_;
  std::deque<Group> owned_;
};

}  // namespace simtlab::stats
