#include "stats/snapshot.h"

#include "base/error.h"

#include <fmt/format.h>

namespace simtlab::stats {

namespace {

[[noreturn]] void bad(const std::string& msg) { panic(__FILE__, __LINE__, msg); }

void collect(const Group& g, Snapshot& out) {
  for (const Stat& s : g.stats()) {
    std::string path = g.path_of(s.name);
    if (auto* c = std::get_if<const Counter*>(&s.what)) {
      out.values.emplace(path, (*c)->value);
    } else if (auto* v = std::get_if<const Vector*>(&s.what)) {
      out.values.emplace(path, (*v)->values());
    } else if (auto* h = std::get_if<const Histogram*>(&s.what)) {
      const Histogram& x = **h;
      HistogramValue hv{x.count(), x.sum(), std::nullopt, std::nullopt, x.buckets()};
      if (x.count() > 0) {
        hv.min = x.min();
        hv.max = x.max();
      }
      out.values.emplace(path, std::move(hv));
    }
  }
  for (const Group* c : g.children()) collect(*c, out);
}

uint64_t sub(uint64_t end, uint64_t begin, const std::string& path) {
  if (end < begin) bad(fmt::format("stat '{}' went down between snapshots", path));
  return end - begin;
}

HistogramValue sub_hist(const HistogramValue& e, const HistogramValue& b, const std::string& p) {
  if (e.buckets.size() != b.buckets.size()) bad(fmt::format("histogram '{}' changed shape", p));
  HistogramValue d{sub(e.count, b.count, p), sub(e.sum, b.sum, p), std::nullopt, std::nullopt, {}};
  for (size_t i = 0; i < e.buckets.size(); ++i)
    d.buckets.push_back(sub(e.buckets[i], b.buckets[i], p));
  if (d.count == 0) return d;
  if (b.count == 0 || (e.min && b.min && *e.min < *b.min)) d.min = e.min;
  if (b.count == 0 || (e.max && b.max && *e.max > *b.max)) d.max = e.max;
  return d;
}

template <typename T>
const T& get(const Snapshot& s, std::string_view path) {
  auto it = s.values.find(std::string(path));
  if (it == s.values.end()) bad(fmt::format("snapshot has no stat '{}'", path));
  const T* v = std::get_if<T>(&it->second);
  if (!v) bad(fmt::format("snapshot stat '{}' has another type", path));
  return *v;
}

}  // namespace

bool Snapshot::contains(std::string_view path) const {
  return values.find(std::string(path)) != values.end();
}
uint64_t Snapshot::counter(std::string_view path) const { return get<uint64_t>(*this, path); }
const std::vector<uint64_t>& Snapshot::vector(std::string_view path) const {
  return get<std::vector<uint64_t>>(*this, path);
}
const HistogramValue& Snapshot::histogram(std::string_view path) const {
  return get<HistogramValue>(*this, path);
}

Snapshot snapshot(const Group& root) {
  Snapshot s;
  collect(root, s);
  return s;
}

Snapshot delta(const Snapshot& end, const Snapshot& begin) {
  for (const auto& [path, v] : begin.values)
    if (!end.contains(path)) bad(fmt::format("stat '{}' disappeared between snapshots", path));
  Snapshot d;
  for (const auto& [path, ev] : end.values) {
    auto it = begin.values.find(path);
    if (it == begin.values.end()) {
      d.values.emplace(path, ev);
      continue;
    }
    const StatValue& bv = it->second;
    if (ev.index() != bv.index()) bad(fmt::format("stat '{}' changed type", path));
    if (auto* e = std::get_if<uint64_t>(&ev)) {
      d.values.emplace(path, sub(*e, std::get<uint64_t>(bv), path));
    } else if (auto* ve = std::get_if<std::vector<uint64_t>>(&ev)) {
      const auto& vb = std::get<std::vector<uint64_t>>(bv);
      if (ve->size() != vb.size()) bad(fmt::format("vector '{}' changed size", path));
      std::vector<uint64_t> r;
      for (size_t i = 0; i < ve->size(); ++i) r.push_back(sub((*ve)[i], vb[i], path));
      d.values.emplace(path, std::move(r));
    } else {
      d.values.emplace(path,
                       sub_hist(std::get<HistogramValue>(ev), std::get<HistogramValue>(bv), path));
    }
  }
  return d;
}

}  // namespace simtlab::stats
