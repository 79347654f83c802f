// The schema: every declared parameter (path, kind, default, unit, docs, rules) and every
// declared group, in declaration order. Built by schema_of<T>() (describer.h), consumed by
// Config::resolve, the reference generators and `simtlab info`.
#pragma once

#include "config/value.h"

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace simtlab::config {

/// One validation rule. `check` returns nullopt when the value is acceptable, else the failure
/// message without the key path and value ("must be >= 1").
struct Rule {
  std::string text;  // for docs: ">= 1", "power of 2", "one of lru, fifo, random"
  std::function<std::optional<std::string>(const Value&)> check;
};

struct ParamDecl {
  std::string path;  // full dotted path, "sm.l1d.size"
  Kind kind = Kind::kString;
  std::string default_text;  // canonical_text(default_value)
  Value default_value;
  std::string unit;
  std::string description;
  std::string source;                // where the default comes from (paper, table, vendor doc)
  std::string rules_text;            // all rule texts joined with ", "
  std::vector<std::string> choices;  // set by one_of (canonical texts)
  std::vector<Rule> rules;

  /// The first failing rule's message, or nullopt if `v` passes every rule.
  std::optional<std::string> validate(const Value& v) const;
};

struct GroupDecl {
  std::string path;  // "sm.l1d"
  std::string description;
};

/// Declaration-ordered parameters and groups with lookup by path. ParamDecl addresses are
/// stable while the Schema lives (std::deque).
class Schema {
 public:
  const std::deque<ParamDecl>& params() const { return params_; }
  const std::vector<GroupDecl>& groups() const { return groups_; }
  /// nullptr if `path` is not a parameter.
  const ParamDecl* find(std::string_view path) const;
  /// Index of `path` in params(), or nullopt.
  std::optional<size_t> index_of(std::string_view path) const;
  /// nullptr if `path` is not a group.
  const GroupDecl* find_group(std::string_view path) const;

  /// Adds a parameter; its path must be new (else panic: a declaration bug).
  ParamDecl& add_param(ParamDecl decl);
  /// Adds a group; its path must be new (else panic).
  void add_group(GroupDecl decl);

 private:
  std::deque<ParamDecl> params_;
  std::vector<GroupDecl> groups_;
  std::unordered_map<std::string, size_t> param_index_;
  std::unordered_map<std::string, size_t> group_index_;
};

/// "unknown config key 'sm.num_warp' (did you mean 'sm.num_warps'?)": the suggestion is the
/// nearest parameter or group path (suggest.h) and is left out when nothing is close.
std::string unknown_key_message(const std::string& path, const Schema& schema);

}  // namespace simtlab::config
