#include "config/config.h"

#include "base/error.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <memory>

namespace simtlab::config {

namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

nlohmann::json to_json_value(const Value& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

// Parameters arranged as a tree in first-declaration order, for nested output.
struct PathTree {
  struct Node {
    std::vector<std::pair<std::string, std::unique_ptr<Node>>> kids;
    std::optional<size_t> param;
  };
  Node root;

  explicit PathTree(const Schema& s) {
    for (size_t i = 0; i < s.params().size(); ++i) {
      Node* n = &root;
      for (const auto& part : split_path(s.params()[i].path)) {
        auto it = std::find_if(n->kids.begin(), n->kids.end(),
                               [&](const auto& k) { return k.first == part; });
        if (it == n->kids.end()) {
          n->kids.emplace_back(part, std::make_unique<Node>());
          it = std::prev(n->kids.end());
        }
        n = it->second.get();
      }
      n->param = i;
    }
  }
};

}  // namespace

ParamDecl* ConfigLoader::on_param(const std::string& path, FieldRef field, std::string_view,
                                  std::string_view, std::string_view) {
  const ParamDecl* d = cfg_.schema().find(path);
  if (!d)
    panic(__FILE__, __LINE__,
          fmt::format("config has no parameter '{}' (resolved from another schema?)", path));
  if (d->kind != static_cast<Kind>(field.index()))
    panic(__FILE__, __LINE__,
          fmt::format("config parameter '{}' is {}, the field is {}", path, kind_name(d->kind),
                      kind_name(static_cast<Kind>(field.index()))));
  const Value& v = cfg_.value(path);
  std::visit(
      [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        *p = from_value<T>(v);
      },
      field);
  return nullptr;
}

Config::Config() : schema_(std::make_shared<Schema>()) {}

Config Config::defaults(const Schema& schema) { return resolve(schema, {}, "", {}); }

Config Config::resolve(const Schema& schema, const std::vector<std::string>& preset_dirs,
                       const std::string& preset, const std::vector<std::string>& overrides,
                       const std::vector<std::string>& origins) {
  Config c;
  c.schema_ = std::make_shared<Schema>(schema);
  for (const ParamDecl& d : c.schema_->params())
    c.entries_.push_back(Entry{d.default_value, d.source, "default", false});
  if (!preset.empty()) {
    std::vector<PresetFile> chain = load_preset_chain(preset, preset_dirs, *c.schema_);
    for (const PresetFile& f : chain) {
      for (const PresetLeaf& l : f.leaves)
        c.set_text(l.path, l.text, l.source.value_or(""), l.where, true);
      c.preset_files_.push_back(f.file);
    }
    c.preset_name_ = chain.back().name;
    c.preset_description_ = chain.back().description;
  }
  c.apply_overrides(overrides, "--set", origins);
  c.validate();
  return c;
}

Config Config::with_overrides(const std::vector<std::string>& overrides,
                              const std::string& origin) const {
  Config c = *this;
  c.apply_overrides(overrides, origin);
  c.validate();
  return c;
}

void Config::set_text(const std::string& path, const std::string& text, std::string source,
                      std::string origin, bool from_file) {
  size_t i = *schema_->index_of(path);
  const ParamDecl& d = schema_->params()[i];
  Value v;
  if (auto err = parse_value(d.kind, text, v)) {
    if (from_file) fatal("{}: {}: {}", origin, path, *err);
    fatal("{}: {}", path, *err);
  }
  entries_[i] = Entry{std::move(v), std::move(source), std::move(origin), from_file};
}

void Config::apply_overrides(const std::vector<std::string>& overrides, const std::string& origin,
                             const std::vector<std::string>& file_origins) {
  for (size_t i = 0; i < overrides.size(); ++i) {
    const std::string& o = overrides[i];
    const std::string file = i < file_origins.size() ? file_origins[i] : "";
    const std::string at = file.empty() ? "" : file + ": ";
    size_t eq = o.find('=');
    if (eq == std::string::npos) fatal("{}override '{}' must be key=value", at, o);
    std::string key = trim(std::string_view(o).substr(0, eq));
    std::string text = trim(std::string_view(o).substr(eq + 1));
    if (!schema_->find(key)) {
      if (schema_->find_group(key))
        fatal("{}'{}' is a group, not a parameter; set one of its keys", at, key);
      throw UserError(at + unknown_key_message(key, *schema_));
    }
    if (file.empty())
      set_text(key, text, "", origin, false);
    else
      set_text(key, text, "", file, true);
  }
}

void Config::validate() const {
  std::string errors;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const ParamDecl& d = schema_->params()[i];
    const Entry& e = entries_[i];
    if (auto msg = d.validate(e.value)) {
      if (!errors.empty()) errors += '\n';
      if (e.from_file) errors += e.origin + ": ";
      errors += fmt::format("{}: {}, got {}", d.path, *msg, display_text(e.value));
    }
  }
  if (!errors.empty()) throw UserError(errors);
  // Rules between parameters, innermost struct first. A struct whose part failed is not
  // checked itself (its rules may assume the parts are consistent).
  const ValueLookup lookup = [this](std::string_view path) -> const Value& { return value(path); };
  std::vector<std::string> failed;
  for (const StructCheck& c : schema_->checks()) {
    const bool inside_failed = std::any_of(failed.begin(), failed.end(), [&](const auto& f) {
      return c.prefix.empty() || f.starts_with(c.prefix + ".");
    });
    if (inside_failed) continue;
    const std::vector<Issue> issues = c.check(lookup);
    if (issues.empty()) continue;
    failed.push_back(c.prefix);
    for (const Issue& i : issues) {
      const std::string key = c.prefix.empty() ? i.key
                              : i.key.empty()  ? c.prefix
                                               : c.prefix + "." + i.key;
      if (!errors.empty()) errors += '\n';
      std::optional<std::string> got = i.got;
      if (auto idx = schema_->index_of(key)) {
        const Entry& e = entries_[*idx];
        if (e.from_file) errors += e.origin + ": ";
        if (!got) got = display_text(e.value);
      }
      errors += key.empty() ? i.message : key + ": " + i.message;
      if (got) errors += ", got " + *got;
    }
  }
  if (!errors.empty()) throw UserError(errors);
}

const Config::Entry& Config::entry(std::string_view path) const {
  auto i = schema_->index_of(path);
  if (!i) panic(__FILE__, __LINE__, fmt::format("no config parameter '{}'", path));
  return entries_[*i];
}

bool Config::contains(std::string_view path) const { return schema_->index_of(path).has_value(); }
const Value& Config::value(std::string_view path) const { return entry(path).value; }
std::string Config::text(std::string_view path) const {
  return config::canonical_text(value(path));
}
const std::string& Config::source_of(std::string_view path) const { return entry(path).source; }
const std::string& Config::origin_of(std::string_view path) const { return entry(path).origin; }
bool Config::is_default(std::string_view path) const {
  return entry(path).value == schema_->find(path)->default_value;
}

nlohmann::json Config::to_json() const {
  nlohmann::json root = nlohmann::json::object();
  for (size_t i = 0; i < entries_.size(); ++i) {
    std::vector<std::string> parts = split_path(schema_->params()[i].path);
    nlohmann::json* n = &root;
    for (size_t k = 0; k + 1 < parts.size(); ++k) n = &(*n)[parts[k]];
    (*n)[parts.back()] = to_json_value(entries_[i].value);
  }
  return root;
}

std::string Config::canonical_text() const {
  std::vector<std::pair<std::string, std::string>> lines;
  for (size_t i = 0; i < entries_.size(); ++i)
    lines.emplace_back(schema_->params()[i].path, config::canonical_text(entries_[i].value));
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& [k, v] : lines) out += k + "=" + v + "\n";
  return out;
}

std::string Config::hash() const {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  for (unsigned char c : canonical_text()) {
    h ^= c;
    h *= 0x100000001b3ull;  // FNV-1a 64 prime
  }
  return fmt::format("{:016x}", h);
}

std::string Config::dump_yaml() const {
  PathTree tree(*schema_);
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << preset_name_;
  auto emit = [&](auto& self, const PathTree::Node& n) -> void {
    for (const auto& [name, kid] : n.kids) {
      out << YAML::Key << name << YAML::Value;
      if (!kid->param) {
        out << YAML::BeginMap;
        self(self, *kid);
        out << YAML::EndMap;
        continue;
      }
      const Entry& e = entries_[*kid->param];
      if (std::holds_alternative<std::string>(e.value)) {
        out << YAML::DoubleQuoted << std::get<std::string>(e.value);
      } else {
        out << config::canonical_text(e.value);
      }
      if (!e.source.empty()) out << YAML::Comment(e.source);
    }
  };
  emit(emit, tree.root);
  out << YAML::EndMap;
  return fmt::format("# simtlab resolved configuration\n# preset: {}\n# hash: {}\n{}\n",
                     preset_name_, hash(), out.c_str());
}

std::vector<std::string> to_overrides(const std::map<std::string, std::string>& kv) {
  std::vector<std::string> r;
  for (const auto& [k, v] : kv) r.push_back(k + "=" + v);
  return r;
}

}  // namespace simtlab::config
