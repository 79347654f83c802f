// Config: the resolved, validated value of every declared parameter.
//
// Resolution order (later wins): declared defaults < preset ancestors (root first) < the preset
// itself < overrides ("key=value", in order). Every value is parsed by its kind when it is
// read (type errors name the preset file:line or the override), and every rule of every
// parameter, then every struct-level check (the params structs' validate(), describer.h), is
// checked on the final values before resolve returns, so a Config that exists is valid: the
// components built from it do not reject it.
//
// Error messages (UserError), each optionally prefixed by "file:line: " when the value or key
// came from a preset file:
//   unknown config key 'sm.num_warp' (did you mean 'sm.num_warps'?)
//   sm.l1d.size: expected an unsigned integer, got 'abc'
//   sm.num_warps: must be >= 1, got 0
//   sm.l1d.repl: must be one of lru, fifo, random, got 'plru'
//   sm.l1d.size: must be a multiple of line x assoc (512), got 1000     (struct-level check)
// Several rule violations are reported together, one per line.
//
// Determinism: hash() is FNV-1a 64 over canonical_text() (every parameter, sorted by path,
// "path=value\n" with canonical value spellings), printed as 16 lowercase hex digits. It depends
// only on values (not on the preset's name or sources); adding a parameter changes it.
#pragma once

#include "config/describer.h"
#include "config/preset.h"
#include "config/schema.h"
#include "config/value.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace simtlab::config {

class Config;

/// Load mode: writes a Config's values into a params struct's fields.
class ConfigLoader final : public Describer {
 public:
  ConfigLoader(const Config& cfg, std::string prefix) : Describer(std::move(prefix)), cfg_(cfg) {}

 protected:
  /// Panics if `path` is not in the Config or has another kind (the Config was resolved from
  /// a schema that does not match this struct: a simtlab bug).
  ParamDecl* on_param(const std::string& path, FieldRef field, std::string_view unit,
                      std::string_view description, std::string_view source) override;
  void on_group(const std::string&, std::string_view) override {}

 private:
  const Config& cfg_;
};

class Config {
 public:
  /// An empty config (no parameters). Use resolve() or defaults() for a real one.
  Config();

  /// Resolves `schema` against the preset `preset` (a name searched in `preset_dirs`, or a
  /// file path; empty = defaults only) and `overrides` ("key=value"; whitespace around key and
  /// value is dropped). `origins`, if given, is parallel to `overrides`: a non-empty entry says
  /// where in a file the override came from ("gpgpusim.config:12: -gpgpu_n_mem" for an imported
  /// configuration), reported with its errors and by origin_of; an empty one is a --set.
  /// Throws UserError.
  static Config resolve(const Schema& schema, const std::vector<std::string>& preset_dirs,
                        const std::string& preset, const std::vector<std::string>& overrides,
                        const std::vector<std::string>& origins = {});

  /// All declared defaults (still validated: a default that breaks its own rule is reported).
  static Config defaults(const Schema& schema);

  /// A copy with more overrides applied and everything revalidated. `origin` labels where
  /// they came from (origin_of); e.g. an importer passes "gpgpusim.config".
  Config with_overrides(const std::vector<std::string>& overrides,
                        const std::string& origin = "--set") const;

  /// Fills `params` (load mode); its paths are "<prefix>.<name>" (prefix "" = top level).
  template <Describable T>
  void apply(T& params, std::string_view prefix = "") const {
    ConfigLoader loader(*this, std::string(prefix));
    params.describe(loader);
  }

  bool contains(std::string_view path) const;
  /// The typed value; panics if `path` is not a parameter.
  const Value& value(std::string_view path) const;
  template <ParamType T>
  T get(std::string_view path) const {
    return from_value<T>(value(path));
  }
  /// canonical_text(value(path)).
  std::string text(std::string_view path) const;
  /// The citation for the value: the {value, source} text of the preset leaf that set it, the
  /// declaration's source if it is the default, else "" (set without a citation).
  const std::string& source_of(std::string_view path) const;
  /// Where the value came from: "default", "<preset file>:<line>", or the overrides' origin.
  const std::string& origin_of(std::string_view path) const;
  bool is_default(std::string_view path) const;

  /// The preset's `name:` (else its file stem); "default" when no preset was given.
  const std::string& preset_name() const { return preset_name_; }
  const std::string& preset_description() const { return preset_description_; }
  /// The preset files that were read, root ancestor first.
  const std::vector<std::string>& preset_files() const { return preset_files_; }
  const Schema& schema() const { return *schema_; }

  /// {"sm": {"l1d": {"size": 16384, "repl": "lru"}}}: nested by path, values typed.
  nlohmann::json to_json() const;
  /// "path=value\n" for every parameter, sorted by path.
  std::string canonical_text() const;
  /// FNV-1a 64 of canonical_text() as 16 lowercase hex digits.
  std::string hash() const;
  /// A YAML preset (loadable by resolve) holding every value, nested in declaration order,
  /// strings double-quoted, sources as trailing comments, preset name and hash in a header.
  std::string dump_yaml() const;

 private:
  struct Entry {
    Value value;
    std::string source;
    std::string origin;
    bool from_file = false;  // origin is a preset "file:line"
  };

  const Entry& entry(std::string_view path) const;
  void set_text(const std::string& path, const std::string& text, std::string source,
                std::string origin, bool from_file);
  void apply_overrides(const std::vector<std::string>& overrides, const std::string& origin,
                       const std::vector<std::string>& file_origins = {});
  void validate() const;

  std::shared_ptr<const Schema> schema_;
  std::vector<Entry> entries_;  // parallel to schema_->params()
  std::string preset_name_ = "default";
  std::string preset_description_;
  std::vector<std::string> preset_files_;
};

/// A params struct filled from `cfg` (see Config::apply).
template <Describable T>
T load(const Config& cfg, std::string_view prefix = "") {
  T t{};
  cfg.apply(t, prefix);
  return t;
}

/// {"a": "1", "b": "x"} -> {"a=1", "b=x"}, for callers that hold overrides as a map.
std::vector<std::string> to_overrides(const std::map<std::string, std::string>& kv);

}  // namespace simtlab::config
