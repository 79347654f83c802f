#include "tools/manifest.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "base/error.h"

namespace simtlab::tools {

namespace {

/// Walks a YAML tree remembering the key path, so every error names where it is.
class Reader {
 public:
  Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw UserError(fmt::format("{}: {}: {}", file_, path.empty() ? "(top level)" : path, what));
  }

  void only_keys(const YAML::Node& n, const std::string& path,
                 std::initializer_list<const char*> allowed) const {
    if (!n.IsMap()) fail(path, "expected a mapping");
    for (const auto& kv : n) {
      const std::string k = kv.first.as<std::string>();
      if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; }) ==
          allowed.end()) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(join(path, k), fmt::format("unknown key (expected one of: {})", list));
      }
    }
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  std::string str(const YAML::Node& m, const std::string& path, const char* key, bool required,
                  bool null_ok = false) const {
    const YAML::Node n = m[key];
    if (!n || n.IsNull()) {
      if (required && !(n && null_ok)) fail(join(path, key), "missing");
      return "";
    }
    if (!n.IsScalar()) fail(join(path, key), "expected a string");
    return n.as<std::string>();
  }

  std::optional<uint32_t> uint(const YAML::Node& m, const std::string& path, const char* key,
                               bool required) const {
    const YAML::Node n = m[key];
    if (!n) {
      if (required) fail(join(path, key), "missing");
      return std::nullopt;
    }
    if (n.IsNull()) {
      if (required) fail(join(path, key), "must be a number, not null");
      return std::nullopt;
    }
    if (!n.IsScalar()) fail(join(path, key), "expected a non-negative integer");
    const std::string s = n.as<std::string>();
    if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        }))
      fail(join(path, key), fmt::format("expected a non-negative integer, got '{}'", s));
    return uint32_t(std::stoul(s));
  }

  std::vector<std::string> strings(const YAML::Node& m, const std::string& path, const char* key,
                                   bool required) const {
    const YAML::Node n = m[key];
    std::vector<std::string> out;
    if (!n || n.IsNull()) {
      if (required) fail(join(path, key), "missing");
      return out;
    }
    if (!n.IsSequence()) fail(join(path, key), "expected a list of strings");
    for (size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar()) fail(fmt::format("{}[{}]", join(path, key), i), "expected a string");
      out.push_back(n[i].as<std::string>());
    }
    return out;
  }

 private:
  std::string file_;
};

bool valid_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

std::vector<std::string> Workload::sets() const {
  std::vector<std::string> out;
  for (const auto& k : kernels)
    for (const auto& s : k.sets)
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return out;
}

bool Workload::in_set(const std::string& set) const {
  for (const auto& k : kernels)
    if (std::find(k.sets.begin(), k.sets.end(), set) != k.sets.end()) return true;
  return false;
}

const Workload* Manifest::find(const std::string& name) const {
  for (const auto& w : workloads)
    if (w.name == name) return &w;
  return nullptr;
}

Manifest load_manifest(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw UserError(fmt::format("{}: cannot read the workload manifest", path));
  } catch (const YAML::Exception& e) {
    throw UserError(fmt::format("{}:{}:{}: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  Reader r(path);
  Manifest m;
  m.path = path;
  r.only_keys(root, "", {"sets", "workloads"});
  const YAML::Node sets = root["sets"];
  if (!sets || !sets.IsMap()) r.fail("sets", "missing or not a mapping of set name -> {...}");
  for (const auto& kv : sets) {
    WorkloadSet s;
    s.name = kv.first.as<std::string>();
    const std::string p = "sets." + s.name;
    r.only_keys(kv.second, p, {"description", "gpu", "set"});
    s.description = r.str(kv.second, p, "description", true);
    s.gpu = r.str(kv.second, p, "gpu", true);
    s.sets = r.strings(kv.second, p, "set", false);
    m.sets[s.name] = std::move(s);
  }
  const YAML::Node wls = root["workloads"];
  if (!wls || !wls.IsSequence()) r.fail("workloads", "missing or not a list");
  std::set<std::string> names;
  for (size_t i = 0; i < wls.size(); ++i) {
    const YAML::Node n = wls[i];
    const std::string p = fmt::format("workloads[{}]", i);
    r.only_keys(
        n, p,
        {"name", "binary", "args", "scaled_args", "analog", "source", "check", "notes", "kernels"});
    Workload w;
    w.name = r.str(n, p, "name", true);
    const std::string wp = fmt::format("workloads[{}] ({})", i, w.name);
    if (!valid_name(w.name)) r.fail(p + ".name", fmt::format("'{}' is not [a-z0-9_]+", w.name));
    if (!names.insert(w.name).second)
      r.fail(p + ".name", fmt::format("duplicate workload name '{}'", w.name));
    w.binary = r.str(n, wp, "binary", true);
    if (!valid_name(w.binary))
      r.fail(wp + ".binary", fmt::format("'{}' is not [a-z0-9_]+", w.binary));
    w.args = r.strings(n, wp, "args", false);
    w.scaled_args = r.strings(n, wp, "scaled_args", false);
    const YAML::Node an = n["analog"];
    if (!an) r.fail(wp + ".analog", "missing");
    r.only_keys(an, wp + ".analog", {"suite", "app"});
    w.suite = r.str(an, wp + ".analog", "suite", true);
    w.app = r.str(an, wp + ".analog", "app", true);
    w.source = r.str(n, wp, "source", true);
    w.check = r.str(n, wp, "check", true);
    w.notes = r.str(n, wp, "notes", false);
    const YAML::Node ks = n["kernels"];
    if (!ks || !ks.IsSequence() || ks.size() == 0)
      r.fail(wp + ".kernels", "missing or not a non-empty list");
    for (size_t j = 0; j < ks.size(); ++j) {
      const YAML::Node kn = ks[j];
      const std::string kp = fmt::format("{}.kernels[{}]", wp, j);
      r.only_keys(kn, kp,
                  {"kernel", "analog_of", "label", "sets", "threads", "shared_bytes", "regs",
                   "regs_measured", "resident_blocks", "limited_by"});
      ManifestKernel k;
      k.kernel = r.str(kn, kp, "kernel", true);
      k.analog_of = r.str(kn, kp, "analog_of", true);
      k.label = r.str(kn, kp, "label", false);
      k.sets = r.strings(kn, kp, "sets", true);
      for (size_t s = 0; s < k.sets.size(); ++s)
        if (!m.sets.count(k.sets[s]))
          r.fail(fmt::format("{}.sets[{}]", kp, s),
                 fmt::format("unknown set '{}' (define it under `sets`)", k.sets[s]));
      k.threads = *r.uint(kn, kp, "threads", true);
      if (k.threads == 0) r.fail(kp + ".threads", "must be at least 1");
      k.shared_bytes = *r.uint(kn, kp, "shared_bytes", true);
      k.regs = r.uint(kn, kp, "regs", false);
      k.regs_measured = r.uint(kn, kp, "regs_measured", false);
      k.resident_blocks = r.uint(kn, kp, "resident_blocks", false);
      if (k.resident_blocks && k.sets.empty())
        r.fail(kp + ".resident_blocks", "needs a set (its configuration) in `sets`");
      k.limited_by = r.str(kn, kp, "limited_by", false);
      if (!k.limited_by.empty() && k.limited_by != "registers" && k.limited_by != "scratchpad" &&
          k.limited_by != "threads" && k.limited_by != "blocks" &&
          k.limited_by != "threads,registers")
        r.fail(kp + ".limited_by",
               fmt::format("'{}' is not one of registers, scratchpad, threads, blocks, "
                           "threads,registers",
                           k.limited_by));
      w.kernels.push_back(std::move(k));
    }
    m.workloads.push_back(std::move(w));
  }
  return m;
}

std::string kernel_base_name(const std::string& sym) {
  if (sym.size() < 3 || sym[0] != '_' || sym[1] != 'Z') return sym;
  size_t i = 2;
  auto read_id = [&](std::string* out) {
    size_t len = 0, j = i;
    while (j < sym.size() && std::isdigit(static_cast<unsigned char>(sym[j])))
      len = len * 10 + size_t(sym[j++] - '0');
    if (j == i || j + len > sym.size()) return false;
    *out = sym.substr(j, len);
    i = j + len;
    return true;
  };
  std::string name;
  if (sym[i] == 'N') {  // nested: N <prefix ids> E; skip CV qualifiers
    ++i;
    while (i < sym.size() && (sym[i] == 'K' || sym[i] == 'V' || sym[i] == 'r')) ++i;
    std::string part;
    while (i < sym.size() && sym[i] != 'E' && sym[i] != 'I') {
      if (!read_id(&part)) return sym;
      name = part;
    }
    return name.empty() ? sym : name;
  }
  if (sym.compare(i, 2, "L_") == 0)
    i += 2;  // internal linkage
  else if (sym[i] == 'L')
    ++i;
  return read_id(&name) ? name : sym;
}

}  // namespace simtlab::tools
