// Parameter declarations. A params struct declares each field once, beside its use:
//
//   struct CacheParams {
//     uint32_t size = 16384;
//     std::string repl = "lru";
//     void describe(config::Describer& d) {
//       d.param("size", size, "bytes", "Capacity", "D2MA paper, Table 1").min(1).pow2();
//       d.param("repl", repl, "", "Replacement policy", "GPGPU-Sim default")
//           .one_of({"lru", "fifo", "random"});
//     }
//   };
//
// `describe` is visited in two modes by two Describer subclasses:
//  - declare (SchemaBuilder, via schema_of<T>()): records path, kind, the field's current value
//    as the default, unit, docs and rules into a Schema;
//  - load (Config::apply, config.h): writes the resolved value of each path into the field.
// So defaults, schema, docs and loading all come from the same lines. Rules are recorded in
// declare mode and ignored in load mode (the Config was validated when it was resolved).
//
// Rules between parameters live in the struct: `std::vector<config::Issue> validate() const`
// (keys relative to the struct). A struct that has one gets it registered as a StructCheck for
// every place it is declared (group() and schema_of<T>()), so Config::resolve rejects what the
// component's constructor would, and the constructor calls the same function as its defence.
//
// Contract: names are [A-Za-z0-9_]+; `group` nests a struct under "<prefix>.<name>.". Top-level
// names `name`, `description` and `inherits` are reserved for preset metadata. Breaking either
// rule, or declaring a path twice, is a simtlab bug (panic).
#pragma once

#include "base/types.h"
#include "config/schema.h"
#include "config/value.h"

#include <fmt/format.h>

#include <concepts>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace simtlab::config {

class Describer;

/// A params struct: has `void describe(config::Describer&)`.
template <typename T>
concept Describable = requires(T& t, Describer& d) {
  t.describe(d);
};

/// A params struct with cross-parameter rules: `std::vector<config::Issue> validate() const`.
template <typename T>
concept SelfChecking = requires(const T& t) {
  { t.validate() } -> std::same_as<std::vector<Issue>>;
};

/// Chainable rules for one parameter. In load mode every call is a no-op.
template <ParamType T>
class ParamRules {
 public:
  explicit ParamRules(ParamDecl* decl) : decl_(decl) {}

  /// value >= lo. Message: "must be >= 1".
  ParamRules& min(T lo) requires NumericParam<T> {
    std::string t = canonical_text(to_value(lo));
    return add(">= " + t, [lo, t](const T& v) -> std::optional<std::string> {
      if (v >= lo) return std::nullopt;
      return "must be >= " + t;
    });
  }

  /// value <= hi. Message: "must be <= 64".
  ParamRules& max(T hi) requires NumericParam<T> {
    std::string t = canonical_text(to_value(hi));
    return add("<= " + t, [hi, t](const T& v) -> std::optional<std::string> {
      if (v <= hi) return std::nullopt;
      return "must be <= " + t;
    });
  }

  /// lo <= value <= hi. Message: "must be in [1, 64]".
  ParamRules& range(T lo, T hi) requires NumericParam<T> {
    std::string t =
        fmt::format("[{}, {}]", canonical_text(to_value(lo)), canonical_text(to_value(hi)));
    return add("in " + t, [lo, hi, t](const T& v) -> std::optional<std::string> {
      if (v >= lo && v <= hi) return std::nullopt;
      return "must be in " + t;
    });
  }

  /// value is a positive power of two. Message: "must be a power of 2".
  ParamRules& pow2() requires IntegerParam<T> {
    return add("power of 2", [](const T& v) -> std::optional<std::string> {
      if (v > 0 && (v & (v - 1)) == 0) return std::nullopt;
      return "must be a power of 2";
    });
  }

  /// value is one of `choices`. Message: "must be one of lru, fifo, random".
  ParamRules& one_of(std::vector<T> choices) requires(kind_of<T>() != Kind::kBool) {
    std::string list;
    std::vector<std::string> texts;
    for (const T& c : choices) {
      texts.push_back(canonical_text(to_value(c)));
      list += (list.empty() ? "" : ", ") + texts.back();
    }
    if (decl_) decl_->choices = texts;
    return add("one of " + list,
               [choices = std::move(choices), list](const T& v) -> std::optional<std::string> {
                 for (const T& c : choices)
                   if (c == v) return std::nullopt;
                 return "must be one of " + list;
               });
  }

  /// Marks placeholder values: `fn` returns the value the parameter stands for (and where it
  /// comes from) when `v` is a placeholder, else nullopt. `lookup` reads other parameters by
  /// full path. Shown by `simtlab info` next to the placeholder.
  ParamRules& effective(
      std::function<std::optional<Effective>(const T& v, const ValueLookup& lookup)> fn) {
    if (decl_)
      decl_->effective = [fn = std::move(fn)](const Value& v, const ValueLookup& lookup) {
        return fn(from_value<T>(v), lookup);
      };
    return *this;
  }

  /// A custom rule: `fn` returns nullopt if the value is fine, else the failure message
  /// (reported as "<path>: <message>, got <value>"). `rule_text` documents the rule.
  ParamRules& check(std::function<std::optional<std::string>(const T&)> fn, std::string rule_text) {
    return add(std::move(rule_text), std::move(fn));
  }

 private:
  ParamRules& add(std::string text, std::function<std::optional<std::string>(const T&)> fn) {
    if (!decl_) return *this;
    decl_->rules_text += (decl_->rules_text.empty() ? "" : ", ") + text;
    decl_->rules.push_back(Rule{
        std::move(text), [fn = std::move(fn)](const Value& v) { return fn(from_value<T>(v)); }});
    return *this;
  }

  ParamDecl* decl_;
};

/// A pointer to a params-struct field of one of the supported types.
using FieldRef =
    std::variant<bool*, int32_t*, int64_t*, uint32_t*, uint64_t*, double*, std::string*>;

class Describer {
 public:
  virtual ~Describer() = default;

  /// Declares (or, in load mode, fills) one parameter at "<prefix>.<name>".
  /// `unit` may be empty; `source` names where the default comes from (may be empty).
  template <ParamType T>
  ParamRules<T> param(std::string_view name, T& field, std::string_view unit,
                      std::string_view description, std::string_view source) {
    return ParamRules<T>(on_param(child_path(name), FieldRef(&field), unit, description, source));
  }

  /// Strong-typed fields (Cycle, Bytes, ...) are parameters of their underlying type.
  template <typename Tag, ParamType U>
  ParamRules<U> param(std::string_view name, Strong<Tag, U>& field, std::string_view unit,
                      std::string_view description, std::string_view source) {
    return param(name, field.v, unit, description, source);
  }

  /// Nests `sub`'s parameters under "<prefix>.<name>".
  template <Describable G>
  void group(std::string_view name, G& sub, std::string_view description) {
    std::string path = child_path(name);
    on_group(path, description);
    std::string saved = std::exchange(prefix_, path);
    sub.describe(*this);
    prefix_ = std::move(saved);
    if constexpr (SelfChecking<G>) on_check(checker_for<G>(path));
  }

  /// The StructCheck of a SelfChecking struct declared at `prefix`.
  template <SelfChecking G>
  static StructCheck checker_for(const std::string& prefix);

  /// The current dotted prefix ("" at the top level, "sm.l1d" inside that group).
  const std::string& prefix() const { return prefix_; }

 protected:
  explicit Describer(std::string prefix = "") : prefix_(std::move(prefix)) {}
  /// Returns the declaration to attach rules to (declare mode) or nullptr (load mode).
  virtual ParamDecl* on_param(const std::string& path, FieldRef field, std::string_view unit,
                              std::string_view description, std::string_view source) = 0;
  virtual void on_group(const std::string& path, std::string_view description) = 0;
  /// A struct-level check (declare mode records it; load mode ignores it).
  virtual void on_check(StructCheck) {}

 private:
  std::string child_path(std::string_view name) const;
  std::string prefix_;
};

/// Load mode from a lookup: fills a struct's fields from values by full path (a struct-level
/// check loads its struct this way). Panics if a path is missing or has another kind.
class LookupLoader final : public Describer {
 public:
  LookupLoader(const ValueLookup& lookup, std::string prefix)
      : Describer(std::move(prefix)), lookup_(lookup) {}

 protected:
  ParamDecl* on_param(const std::string& path, FieldRef field, std::string_view unit,
                      std::string_view description, std::string_view source) override;
  void on_group(const std::string&, std::string_view) override {}

 private:
  const ValueLookup& lookup_;
};

template <SelfChecking G>
StructCheck Describer::checker_for(const std::string& prefix) {
  return StructCheck{prefix, [prefix](const ValueLookup& lookup) {
                       G g{};
                       LookupLoader loader(lookup, prefix);
                       g.describe(loader);
                       return g.validate();
                     }};
}

/// Declare mode: collects a Schema.
class SchemaBuilder final : public Describer {
 public:
  SchemaBuilder() = default;
  Schema take() { return std::move(schema_); }

 protected:
  ParamDecl* on_param(const std::string& path, FieldRef field, std::string_view unit,
                      std::string_view description, std::string_view source) override;
  void on_group(const std::string& path, std::string_view description) override;
  void on_check(StructCheck c) override { schema_.add_check(std::move(c)); }

 private:
  Schema schema_;
};

/// The schema of T, with the field values of `defaults` as defaults.
template <Describable T>
Schema schema_of(T& defaults) {
  SchemaBuilder b;
  defaults.describe(b);
  Schema s = b.take();
  if constexpr (SelfChecking<T>) s.add_check(Describer::checker_for<T>(""));
  return s;
}

/// The schema of T, with T's default member initializers as defaults.
template <Describable T>
Schema schema_of() {
  T t{};
  return schema_of(t);
}

}  // namespace simtlab::config
