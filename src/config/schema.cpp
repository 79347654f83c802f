#include "config/schema.h"

#include "base/error.h"
#include "config/suggest.h"

#include <fmt/format.h>

namespace simtlab::config {

std::optional<std::string> ParamDecl::validate(const Value& v) const {
  for (const Rule& r : rules) {
    if (auto msg = r.check(v)) return msg;
  }
  return std::nullopt;
}

const ParamDecl* Schema::find(std::string_view path) const {
  auto i = index_of(path);
  return i ? &params_[*i] : nullptr;
}

std::optional<size_t> Schema::index_of(std::string_view path) const {
  auto it = param_index_.find(std::string(path));
  if (it == param_index_.end()) return std::nullopt;
  return it->second;
}

const GroupDecl* Schema::find_group(std::string_view path) const {
  auto it = group_index_.find(std::string(path));
  return it == group_index_.end() ? nullptr : &groups_[it->second];
}

ParamDecl& Schema::add_param(ParamDecl decl) {
  if (param_index_.contains(decl.path) || group_index_.contains(decl.path))
    panic(__FILE__, __LINE__, "config path declared twice: " + decl.path);
  param_index_.emplace(decl.path, params_.size());
  params_.push_back(std::move(decl));
  return params_.back();
}

void Schema::add_group(GroupDecl decl) {
  if (param_index_.contains(decl.path) || group_index_.contains(decl.path))
    panic(__FILE__, __LINE__, "config path declared twice: " + decl.path);
  group_index_.emplace(decl.path, groups_.size());
  groups_.push_back(std::move(decl));
}

std::string format_issues(std::string_view prefix, const std::vector<Issue>& issues) {
  std::string out;
  for (const Issue& i : issues) {
    if (!out.empty()) out += '\n';
    std::string key = prefix.empty()  ? i.key
                      : i.key.empty() ? std::string(prefix)
                                      : std::string(prefix) + "." + i.key;
    out += key.empty() ? i.message : key + ": " + i.message;
    if (i.got) out += ", got " + *i.got;
  }
  return out;
}

std::string unknown_key_message(const std::string& path, const Schema& schema) {
  std::vector<std::string> candidates;
  for (const auto& p : schema.params()) candidates.push_back(p.path);
  for (const auto& g : schema.groups()) candidates.push_back(g.path);
  auto near = nearest(path, candidates);
  if (near) return fmt::format("unknown config key '{}' (did you mean '{}'?)", path, *near);
  return fmt::format("unknown config key '{}'", path);
}

}  // namespace simtlab::config
