#include "config/preset.h"

#include "base/error.h"
#include "config/suggest.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace simtlab::config {

namespace {

bool is_metadata_key(const std::string& k) {
  return k == "name" || k == "description" || k == "inherits";
}

YAML::Node load_yaml(const std::string& file) {
  if (!fs::is_regular_file(file)) fatal("cannot read preset file '{}'", file);
  try {
    return YAML::LoadFile(file);
  } catch (const YAML::ParserException& e) {
    fatal("{}:{}:{}: YAML syntax error: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg);
  } catch (const YAML::Exception& e) {
    fatal("{}: cannot read preset file: {}", file, e.what());
  }
}

class Flattener {
 public:
  Flattener(const std::string& file, const Schema& schema, PresetFile& out)
      : file_(file), schema_(schema), out_(out) {}

  void top(const YAML::Node& root) {
    // An empty (or comment-only) file is almost certainly a mistake: a preset names its base
    // (`inherits:`) or sets parameters.
    if (root.IsNull())
      fatal(
          "{}: empty preset file (no keys; a preset names its base with `inherits: PRESET` "
          "and/or sets parameters)",
          file_);
    if (!root.IsMap()) fatal("{}: a preset must be a YAML map of keys to values", where(root));
    Keys keys;
    for (auto it = root.begin(); it != root.end(); ++it) {
      std::string key = key_of(it->first);
      unique(keys, key, key, it->first);
      if (is_metadata_key(key)) {
        metadata(key, it->second);
      } else {
        entry(key, it->first, it->second);
      }
    }
  }

 private:
  std::string where(const YAML::Node& n) const {
    return fmt::format("{}:{}", file_, n.Mark().line + 1);
  }

  std::string key_of(const YAML::Node& k) const {
    if (!k.IsScalar()) fatal("{}: keys must be plain names", where(k));
    return k.Scalar();
  }

  // Keys of one YAML map -> line of their first appearance. yaml-cpp keeps duplicate keys (a
  // lookup sees the first, iteration both), so they are rejected here.
  using Keys = std::map<std::string, int>;

  void unique(Keys& keys, const std::string& key, const std::string& path,
              const YAML::Node& k) const {
    auto [it, fresh] = keys.emplace(key, k.Mark().line + 1);
    if (!fresh)
      fatal("{}: duplicate key '{}' (first given at line {})", where(k), path, it->second);
  }

  void metadata(const std::string& key, const YAML::Node& v) {
    if (!v.IsScalar()) fatal("{}: '{}' must be a single value", where(v), key);
    if (key == "name") out_.name = v.Scalar();
    if (key == "description") out_.description = v.Scalar();
    if (key == "inherits") out_.inherits = v.Scalar();
  }

  void map(const std::string& prefix, const YAML::Node& node) {
    Keys keys;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = key_of(it->first);
      unique(keys, key, prefix + "." + key, it->first);
      entry(prefix + "." + key, it->first, it->second);
    }
  }

  void entry(const std::string& path, const YAML::Node& key, const YAML::Node& v) {
    if (schema_.find(path)) return leaf(path, v);
    if (schema_.find_group(path)) {
      if (v.IsMap()) return map(path, v);
      if (v.IsNull()) return;
      fatal("{}: '{}' is a group; expected a map of its keys", where(v), path);
    }
    fatal("{}: {}", where(key), unknown_key_message(path, schema_));
  }

  void leaf(const std::string& path, const YAML::Node& v) {
    // One parameter set twice in a file, e.g. as `sm.l1d.size` and nested under `sm: l1d:`.
    if (auto [it, fresh] = leaves_.emplace(path, v.Mark().line + 1); !fresh)
      fatal("{}: duplicate key '{}' (first given at line {})", where(v), path, it->second);
    PresetLeaf l{path, "", std::nullopt, where(v)};
    if (v.IsScalar()) {
      l.text = v.Scalar();
    } else if (v.IsMap()) {
      bool has_value = false;
      Keys keys;
      for (auto it = v.begin(); it != v.end(); ++it) {
        std::string k = key_of(it->first);
        unique(keys, k, path + "." + k, it->first);
        YAML::Node x = it->second;  // a handle: the iterator's pair is a temporary
        if (k != "value" && k != "source")
          fatal("{}: {}: unexpected key '{}' (a leaf map has only 'value' and 'source')",
                where(it->first), path, k);
        if (!x.IsScalar()) fatal("{}: {}: '{}' must be a single value", where(x), path, k);
        if (k == "value") {
          l.text = x.Scalar();
          has_value = true;
        } else {
          l.source = x.Scalar();
        }
      }
      if (!has_value) fatal("{}: {}: a leaf map needs a 'value'", where(v), path);
    } else if (v.IsSequence()) {
      fatal("{}: {}: expected a single value, got a list", where(v), path);
    } else {
      fatal("{}: {}: missing value", where(v), path);
    }
    out_.leaves.push_back(std::move(l));
  }

  const std::string& file_;
  const Schema& schema_;
  PresetFile& out_;
  Keys leaves_;  // parameter paths set in this file -> line
};

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || s.ends_with(".yaml") || s.ends_with(".yml");
}

std::vector<std::string> search_dirs(const std::vector<std::string>& dirs,
                                     const std::string& near_dir) {
  std::vector<std::string> r;
  if (!near_dir.empty()) r.push_back(near_dir);
  for (const auto& d : dirs)
    if (std::find(r.begin(), r.end(), d) == r.end()) r.push_back(d);
  return r;
}

std::string display_chain(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : " -> ") + n;
  return s;
}

}  // namespace

PresetFile read_preset(const std::string& file, const Schema& schema) {
  PresetFile out;
  out.file = file;
  Flattener(file, schema, out).top(load_yaml(file));
  if (out.name.empty()) out.name = fs::path(file).stem().string();
  return out;
}

std::string find_preset(const std::string& name_or_file, const std::vector<std::string>& dirs,
                        const std::string& near_dir) {
  if (looks_like_path(name_or_file)) {
    fs::path p(name_or_file);
    if (p.is_relative() && !near_dir.empty() && fs::is_regular_file(fs::path(near_dir) / p))
      return (fs::path(near_dir) / p).string();
    if (fs::is_regular_file(p)) return p.string();
    fatal("preset file '{}' not found", name_or_file);
  }
  std::vector<std::string> searched = search_dirs(dirs, near_dir);
  for (const auto& d : searched) {
    for (const char* ext : {".yaml", ".yml"}) {
      fs::path p = fs::path(d) / (name_or_file + ext);
      if (fs::is_regular_file(p)) return p.string();
    }
  }
  std::vector<std::string> names;
  for (const auto& info : list_presets(searched)) names.push_back(info.name);
  std::string msg = fmt::format("unknown preset '{}'", name_or_file);
  if (auto near = nearest(name_or_file, names)) msg += fmt::format(" (did you mean '{}'?)", *near);
  std::string dir_list;
  for (const auto& d : searched) dir_list += (dir_list.empty() ? "" : ", ") + d;
  msg += fmt::format("; searched: {}", dir_list.empty() ? "(no preset directories)" : dir_list);
  if (!names.empty()) {
    std::string avail;
    for (const auto& n : names) avail += (avail.empty() ? "" : ", ") + n;
    msg += "; available: " + avail;
  }
  throw UserError(msg);
}

std::vector<PresetFile> load_preset_chain(const std::string& name_or_file,
                                          const std::vector<std::string>& dirs,
                                          const Schema& schema) {
  std::vector<PresetFile> chain;
  std::vector<std::string> seen_paths;
  std::vector<std::string> seen_names;
  std::string file = find_preset(name_or_file, dirs);
  std::string requested = name_or_file;
  for (;;) {
    std::string canon = fs::weakly_canonical(fs::path(file)).string();
    seen_names.push_back(requested);
    if (std::find(seen_paths.begin(), seen_paths.end(), canon) != seen_paths.end())
      fatal("preset inheritance cycle: {}", display_chain(seen_names));
    seen_paths.push_back(canon);
    chain.push_back(read_preset(file, schema));
    const std::string& parent = chain.back().inherits;
    if (parent.empty()) break;
    requested = parent;
    file = find_preset(parent, dirs, fs::path(file).parent_path().string());
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::vector<PresetInfo> list_presets(const std::vector<std::string>& dirs) {
  std::map<std::string, PresetInfo> by_name;
  for (const auto& d : dirs) {
    if (!fs::is_directory(d)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(d)) {
      auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::string name = f.stem().string();
      if (by_name.contains(name)) continue;
      const YAML::Node root = load_yaml(f.string());
      PresetInfo info{name, f.string(), "", ""};
      if (root.IsMap()) {
        if (root["description"] && root["description"].IsScalar())
          info.description = root["description"].Scalar();
        if (root["inherits"] && root["inherits"].IsScalar())
          info.inherits = root["inherits"].Scalar();
      }
      by_name.emplace(name, std::move(info));
    }
  }
  std::vector<PresetInfo> r;
  for (auto& [n, info] : by_name) r.push_back(std::move(info));
  return r;
}

}  // namespace simtlab::config
