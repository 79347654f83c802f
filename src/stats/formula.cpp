#include "stats/formula.h"

#include "base/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace simtlab::stats {

namespace {

[[noreturn]] void bad(const std::string& msg) { panic(__FILE__, __LINE__, msg); }

std::pair<const Group*, const Stat*> walk(const Group* g, std::string_view path) {
  for (;;) {
    size_t dot = path.find('.');
    if (dot == std::string_view::npos) {
      const Stat* s = g->find_stat(path);
      return s ? std::pair{g, s} : std::pair<const Group*, const Stat*>{nullptr, nullptr};
    }
    g = g->find_child(path.substr(0, dot));
    if (!g) return {nullptr, nullptr};
    path.remove_prefix(dot + 1);
  }
}

constexpr int kMaxDepth = 64;

std::optional<double> eval(const Group& owner, const Stat& f, const Snapshot& snap, int depth);

// Splits "stall::mem" into {"stall", "mem"}; no "::" gives an empty label.
std::pair<std::string_view, std::string_view> split_label(std::string_view path) {
  size_t sep = path.find("::");
  if (sep == std::string_view::npos) return {path, {}};
  return {path.substr(0, sep), path.substr(sep + 2)};
}

// Checks that `path` names a usable operand; returns the label's index for "vec::label".
std::optional<size_t> check_operand(const Group& owner, const Stat& f, const std::string& path,
                                    const Group*& g, const Stat*& s) {
  std::string where = owner.path_of(f.name);
  auto [base, label] = split_label(path);
  std::tie(g, s) = resolve_operand(owner, base);
  if (!s) bad(fmt::format("stat formula '{}': no stat '{}'", where, base));
  if (std::holds_alternative<const Histogram*>(s->what))
    bad(fmt::format("stat formula '{}': operand '{}' is a histogram", where, path));
  if (label.empty()) return std::nullopt;
  if (!std::holds_alternative<const Vector*>(s->what))
    bad(fmt::format("stat formula '{}': operand '{}' is not a vector", where, path));
  auto it = std::find(s->labels.begin(), s->labels.end(), label);
  if (it == s->labels.end())
    bad(fmt::format("stat formula '{}': vector '{}' has no label '{}'", where, base, label));
  return static_cast<size_t>(it - s->labels.begin());
}

std::optional<double> operand(const Group& owner, const Stat& f, const std::string& path,
                              const Snapshot& snap, int depth) {
  const Group* g = nullptr;
  const Stat* s = nullptr;
  std::optional<size_t> element = check_operand(owner, f, path, g, s);
  if (std::holds_alternative<Formula>(s->what)) return eval(*g, *s, snap, depth + 1);
  std::string full = g->path_of(s->name);
  if (!snap.contains(full))
    bad(fmt::format("stat formula '{}': operand '{}' is not in the snapshot", owner.path_of(f.name),
                    full));
  if (std::holds_alternative<const Counter*>(s->what)) return double(snap.counter(full));
  const std::vector<uint64_t>& v = snap.vector(full);
  if (element) return double(v[*element]);
  uint64_t total = 0;
  for (uint64_t x : v) total += x;
  return double(total);
}

std::optional<double> eval(const Group& owner, const Stat& f, const Snapshot& snap, int depth) {
  if (depth > kMaxDepth)
    bad(fmt::format("stat formula '{}' refers to itself", owner.path_of(f.name)));
  const Formula& fm = std::get<Formula>(f.what);
  auto n = operand(owner, f, fm.numer, snap, depth);
  auto d = operand(owner, f, fm.denom, snap, depth);
  if (!n || !d || *d == 0) return std::nullopt;
  return fm.scale * *n / *d;
}

}  // namespace

std::pair<const Group*, const Stat*> resolve_operand(const Group& owner, std::string_view path) {
  auto r = walk(&owner, path);
  if (r.second) return r;
  const Group* root = &owner;
  while (root->parent()) root = root->parent();
  if (root->name().empty()) return walk(root, path);
  std::string prefix = root->name() + ".";
  if (!path.starts_with(prefix)) return {nullptr, nullptr};
  return walk(root, path.substr(prefix.size()));
}

std::optional<double> evaluate(const Group& owner, const Stat& f, const Snapshot& snap) {
  return eval(owner, f, snap, 0);
}

void check_formulas(const Group& root) {
  for (const Stat& s : root.stats()) {
    const Formula* f = std::get_if<Formula>(&s.what);
    if (!f) continue;
    for (const std::string& p : {f->numer, f->denom}) {
      const Group* g = nullptr;
      const Stat* st = nullptr;
      check_operand(root, s, p, g, st);
    }
  }
  for (const Group* c : root.children()) check_formulas(*c);
}

std::string formula_text(const Formula& f) {
  if (f.scale == 1.0) return f.numer + " / " + f.denom;
  return fmt::format("{} * {} / {}", f.scale, f.numer, f.denom);
}

}  // namespace simtlab::stats
