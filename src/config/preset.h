// Preset files: YAML documents of parameter values that may inherit another preset.
//
//   name: fermi-gtx480             # metadata (optional): name, description, inherits
//   description: GTX 480 as in GPGPU-Sim's tested configs
//   inherits: fermi-base           # a preset name (searched like any other) or a file path
//   sm:
//     num_warps: 48
//     l1d: {size: {value: 16K, source: "Fermi whitepaper, p. 8"}}
//   sm.l1d.assoc: 4                # dotted keys are equivalent to nesting
//
// Contract: nested maps flatten to dotted paths; every path must be a declared parameter or
// group (else UserError "file:line: unknown config key 'x' (did you mean 'y'?)"). A leaf is a
// scalar or a {value, source} map. Values stay text here; Config parses them by kind.
#pragma once

#include "config/schema.h"

#include <optional>
#include <string>
#include <vector>

namespace simtlab::config {

/// The GPU `simtlab run`, `suite`, `sweep` and the runtime (SIMTLAB_GPU unset) use: a part that
/// runs everything nvcc 13 builds by default (sm_75). The parameter defaults of the schema are
/// the fermi-gtx480 base every preset inherits from, not this.
inline constexpr const char* kDefaultGpu = "turing-t4";

/// One value given by a preset file.
struct PresetLeaf {
  std::string path;
  std::string text;
  std::optional<std::string> source;  // from a {value, source} leaf
  std::string where;                  // "file:line"
};

struct PresetFile {
  std::string file;
  std::string name;  // the `name:` metadata, else the file stem
  std::string description;
  std::string inherits;            // empty when the preset inherits nothing
  std::vector<PresetLeaf> leaves;  // in file order
};

struct PresetInfo {
  std::string name;  // file stem: what `--preset` takes
  std::string file;
  std::string description;
  std::string inherits;
};

/// Reads and flattens one preset file, checking every key against `schema`.
/// Throws UserError for unreadable files, YAML syntax errors and unknown keys.
PresetFile read_preset(const std::string& file, const Schema& schema);

/// Finds a preset file. `name_or_file` ending in .yaml/.yml or containing '/' is a path
/// (relative paths are tried in `near_dir` first, then the working directory); otherwise it is
/// a name looked up as <dir>/<name>.yaml (then .yml) in `near_dir` (if not empty) and then each
/// of `dirs` in order. Throws UserError naming the searched directories and the closest preset.
std::string find_preset(const std::string& name_or_file, const std::vector<std::string>& dirs,
                        const std::string& near_dir = "");

/// Reads `name_or_file` and its `inherits` ancestors; returns them root ancestor first.
/// Throws UserError on an inheritance cycle ("preset inheritance cycle: a -> b -> a").
std::vector<PresetFile> load_preset_chain(const std::string& name_or_file,
                                          const std::vector<std::string>& dirs,
                                          const Schema& schema);

/// Every *.yaml / *.yml preset in `dirs`, sorted by name; a name found in an earlier dir hides
/// later ones. Reads only the metadata keys.
std::vector<PresetInfo> list_presets(const std::vector<std::string>& dirs);

}  // namespace simtlab::config
