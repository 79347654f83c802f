// Coefficient sets: parsed from YAML (coefficients/*.yaml, compiled in by CMake as text, or a
// user file given by path in power.coefficients).
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/error.h"
#include "power/builtin_coefficients.h"
#include "power/model.h"

namespace simtlab::power {

namespace {

double num(const YAML::Node& n, const std::string& what) {
  try {
    return n.as<double>();
  } catch (const YAML::Exception&) {
    throw UserError(fmt::format("{}: not a number", what));
  }
}

}  // namespace

CoefSet parse_coefficients(const std::string& text, const std::string& what) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw UserError(fmt::format("power coefficients {}: {}", what, e.what()));
  }
  if (!root.IsMap() || !root["coefficients"] || !root["coefficients"].IsMap())
    throw UserError(fmt::format("power coefficients {}: needs a `coefficients` map", what));
  CoefSet s;
  s.name = root["name"] ? root["name"].as<std::string>() : what;
  if (root["description"]) s.description = root["description"].as<std::string>();
  if (root["storage"]) s.storage = root["storage"].as<std::string>();
  if (s.storage != "flops" && s.storage != "sram")
    throw UserError(fmt::format("power coefficients {}: storage must be flops or sram", what));
  if (root["node_nm"]) s.node_nm = uint32_t(num(root["node_nm"], what + ": node_nm"));
  if (root["vdd"]) s.vdd = num(root["vdd"], what + ": vdd");
  for (const auto& kv : root["coefficients"]) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    const std::string w = fmt::format("power coefficients {}: {}", what, key);
    if (!v.IsMap() || !v["value"] || !v["source"])
      throw UserError(w + ": needs `value` and `source` (every number has its source)");
    Coef c;
    c.value = num(v["value"], w + ".value");
    c.source = v["source"].as<std::string>();
    if (c.source.empty()) throw UserError(w + ": empty source");
    if (v["unit"]) c.unit = v["unit"].as<std::string>();
    if (v["node_nm"]) c.node_nm = uint32_t(num(v["node_nm"], w + ".node_nm"));
    if (v["vdd"]) c.vdd = num(v["vdd"], w + ".vdd");
    s.c[key] = c;
  }
  return s;
}

CoefSet load_coefficients(const std::string& name_or_path) {
  for (const auto& [name, text] : builtin_coefficient_texts())
    if (name == name_or_path) return parse_coefficients(text, name);
  std::ifstream f(name_or_path);
  if (!f)
    throw UserError(
        fmt::format("power.coefficients: '{}' is neither a built-in set ({}) nor a readable file",
                    name_or_path, fmt::join(builtin_coefficient_sets(), ", ")));
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_coefficients(ss.str(), name_or_path);
}

std::vector<std::string> builtin_coefficient_sets() {
  std::vector<std::string> v;
  for (const auto& [name, text] : builtin_coefficient_texts()) v.push_back(name);
  return v;
}

const std::vector<TechNode>& technology() {
  static const std::vector<TechNode> t = [] {
    std::vector<TechNode> r;
    const YAML::Node root = YAML::Load(technology_text());
    for (const auto& kv : root["nodes"]) {
      TechNode n;
      n.nm = kv.first.as<uint32_t>();
      n.vdd = kv.second["vdd"].as<double>();
      n.leak = kv.second["leak"].as<double>();
      r.push_back(n);
    }
    return r;
  }();
  return t;
}

}  // namespace simtlab::power
