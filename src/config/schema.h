// The schema: every declared parameter (path, kind, default, unit, docs, rules), every
// declared group and every cross-parameter check, in declaration order. Built by
// schema_of<T>() (describer.h), consumed by Config::resolve, the reference generators and
// `simtlab info`.
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

/// Reads the value of a declared parameter by full path (for checks that look at several
/// parameters, and for effective values).
using ValueLookup = std::function<const Value&(std::string_view path)>;

/// One problem a params struct's `validate()` found. `key` is relative to the struct
/// ("size", "dram.banks"; empty = the struct as a whole), `message` states the rule ("must be a
/// multiple of line x assoc (512)"). `got` replaces the value shown after the message (default:
/// the parameter's value) when the offending value is not the parameter's text (e.g. -1 that
/// stands for a timing set's value).
struct Issue {
  Issue(std::string k, std::string msg, std::optional<std::string> shown = std::nullopt)
      : key(std::move(k)), message(std::move(msg)), got(std::move(shown)) {}
  std::string key;
  std::string message;
  std::optional<std::string> got;
};

/// "<prefix>.<key>: <message>" for each issue, one per line (for constructors that check the
/// same rules as the config layer).
std::string format_issues(std::string_view prefix, const std::vector<Issue>& issues);

/// A struct-level check: the struct declared at `prefix` ("" = top level), loaded from the
/// values, checked by its validate(). Run after every parameter passed its own rules.
struct StructCheck {
  std::string prefix;
  std::function<std::vector<Issue>(const ValueLookup&)> check;
};

/// The value a parameter stands for when its own text is a placeholder (a DRAM timing
/// override of -1 means "the timing set's value"): shown by `simtlab info`.
struct Effective {
  std::string text;    // "12"
  std::string origin;  // "timing set gddr5_h5gq1h24afr"
  std::string source;  // citation of the effective value
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
  /// Set for placeholder values (ParamRules::effective): nullopt when the value is not one.
  std::function<std::optional<Effective>(const Value& v, const ValueLookup&)> effective;

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
  /// Struct-level checks, innermost struct first (declaration order of their ends).
  const std::vector<StructCheck>& checks() const { return checks_; }
  void add_check(StructCheck c) { checks_.push_back(std::move(c)); }

 private:
  std::deque<ParamDecl> params_;
  std::vector<GroupDecl> groups_;
  std::vector<StructCheck> checks_;
  std::unordered_map<std::string, size_t> param_index_;
  std::unordered_map<std::string, size_t> group_index_;
};

/// "unknown config key 'sm.num_warp' (did you mean 'sm.num_warps'?)": the suggestion is the
/// nearest parameter or group path (suggest.h) and is left out when nothing is close.
std::string unknown_key_message(const std::string& path, const Schema& schema);

}  // namespace simtlab::config
