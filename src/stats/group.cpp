#include "stats/group.h"

#include "base/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace simtlab::stats {

namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool valid_stat_name(std::string_view n) {
  return !n.empty() && std::all_of(n.begin(), n.end(), is_word_char);
}

// word or word[digits]
bool valid_group_name(std::string_view n) {
  size_t open = n.find('[');
  if (open == std::string_view::npos) return valid_stat_name(n);
  if (!valid_stat_name(n.substr(0, open)) || n.back() != ']') return false;
  std::string_view idx = n.substr(open + 1, n.size() - open - 2);
  return !idx.empty() &&
         std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; });
}

[[noreturn]] void bad(const std::string& msg) { panic(__FILE__, __LINE__, msg); }

}  // namespace

Group::Group(std::string name, Group* parent) : name_(std::move(name)), parent_(parent) {
  if (parent_) {
    if (!valid_group_name(name_)) bad(fmt::format("bad stat group name '{}'", name_));
    parent_->check_new_name(name_);
    path_ = parent_->path_of(name_);
    parent_->children_.push_back(this);
  } else {
    if (!name_.empty() && !valid_group_name(name_))
      bad(fmt::format("bad stat group name '{}'", name_));
    path_ = name_;
  }
}

Group::~Group() {
  for (Group* c : children_) c->parent_ = nullptr;
  if (parent_) std::erase(parent_->children_, this);
}

std::string Group::path_of(std::string_view stat) const {
  return path_.empty() ? std::string(stat) : path_ + "." + std::string(stat);
}

void Group::check_new_name(std::string_view name) const {
  if (find_stat(name) || find_child(name))
    bad(fmt::format("stat name '{}' declared twice in group '{}'", name, path_));
}

Stat& Group::add_stat(std::string name, std::string unit, std::string desc) {
  if (!valid_stat_name(name)) bad(fmt::format("bad stat name '{}' in group '{}'", name, path_));
  check_new_name(name);
  stats_.push_back(Stat{std::move(name), std::move(unit), std::move(desc), Formula{}, {}});
  return stats_.back();
}

Counter& Group::counter(std::string name, std::string unit, std::string desc) {
  Stat& s = add_stat(std::move(name), std::move(unit), std::move(desc));
  s.what = &counters_.emplace_back();
  return counters_.back();
}

Vector& Group::vector(std::string name, std::string unit, std::string desc,
                      std::vector<std::string> labels) {
  for (size_t i = 0; i < labels.size(); ++i) {
    if (!valid_stat_name(labels[i]) || labels[i] == "total" ||
        std::find(labels.begin(), labels.begin() + i, labels[i]) != labels.begin() + i)
      bad(fmt::format("bad or repeated label '{}' in stat vector '{}'", labels[i], path_of(name)));
  }
  Stat& s = add_stat(std::move(name), std::move(unit), std::move(desc));
  Vector& v = vectors_.emplace_back(labels.size());
  s.what = &v;
  s.labels = std::move(labels);
  return v;
}

Histogram& Group::histogram(std::string name, std::string unit, std::string desc,
                            std::vector<uint64_t> bucket_upper_bounds) {
  Stat& s = add_stat(std::move(name), std::move(unit), std::move(desc));
  Histogram& h = histograms_.emplace_back(std::move(bucket_upper_bounds));
  s.what = &h;
  return h;
}

void Group::ratio(std::string name, std::string unit, std::string desc, std::string numer_path,
                  std::string denom_path, double scale) {
  Stat& s = add_stat(std::move(name), std::move(unit), std::move(desc));
  s.what = Formula{std::move(numer_path), std::move(denom_path), scale};
}

Group& Group::child(std::string name) {
  for (Group& g : owned_)
    if (g.name_ == name) return g;
  return owned_.emplace_back(std::move(name), this);
}

const Stat* Group::find_stat(std::string_view name) const {
  for (const Stat& s : stats_)
    if (s.name == name) return &s;
  return nullptr;
}

const Group* Group::find_child(std::string_view name) const {
  for (const Group* g : children_)
    if (g->name_ == name) return g;
  return nullptr;
}

}  // namespace simtlab::stats
