#include "stats/writers.h"

#include "stats/formula.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace simtlab::stats {

namespace {

using Json = nlohmann::json;

std::optional<double> mean_of(const HistogramValue& h) {
  if (h.count == 0) return std::nullopt;
  return double(h.sum) / double(h.count);
}

template <typename T>
Json opt_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json leaf_json(const Group& g, const Stat& s, const Snapshot& snap) {
  std::string path = g.path_of(s.name);
  Json j = Json::object();
  if (std::holds_alternative<const Counter*>(s.what)) {
    j["value"] = snap.counter(path);
  } else if (std::holds_alternative<const Vector*>(s.what)) {
    const auto& v = snap.vector(path);
    Json values = Json::object();
    for (size_t i = 0; i < v.size(); ++i) values[s.labels[i]] = v[i];
    j["values"] = std::move(values);
    j["total"] = std::accumulate(v.begin(), v.end(), uint64_t(0));
  } else if (auto* h = std::get_if<const Histogram*>(&s.what)) {
    const HistogramValue& hv = snap.histogram(path);
    const auto& bounds = (*h)->upper_bounds();
    j["count"] = hv.count;
    j["sum"] = hv.sum;
    j["min"] = opt_json(hv.min);
    j["max"] = opt_json(hv.max);
    j["mean"] = opt_json(mean_of(hv));
    Json buckets = Json::array();
    for (size_t i = 0; i < hv.buckets.size(); ++i) {
      Json le = i < bounds.size() ? Json(bounds[i]) : Json("+inf");
      buckets.push_back(Json{{"le", std::move(le)}, {"count", hv.buckets[i]}});
    }
    j["buckets"] = std::move(buckets);
  } else {
    j["value"] = opt_json(evaluate(g, s, snap));
    j["formula"] = formula_text(std::get<Formula>(s.what));
  }
  j["unit"] = s.unit;
  j["desc"] = s.desc;
  return j;
}

Json group_json(const Group& g, const Snapshot& snap) {
  Json j = Json::object();
  for (const Stat& s : g.stats()) j[s.name] = leaf_json(g, s, snap);
  for (const Group* c : g.children()) j[c->name()] = group_json(*c, snap);
  return j;
}

// One flattened column: name, value (nullopt = no value) and unit.
struct Cell {
  std::string column;
  std::optional<std::variant<uint64_t, double>> value;
  std::string unit;
};

void flatten(const Group& g, const Snapshot* snap, std::vector<Cell>& out) {
  for (const Stat& s : g.stats()) {
    std::string path = g.path_of(s.name);
    if (std::holds_alternative<const Counter*>(s.what)) {
      out.push_back({path, snap ? std::optional(snap->counter(path)) : std::nullopt, s.unit});
    } else if (std::holds_alternative<const Vector*>(s.what)) {
      const std::vector<uint64_t>* v = snap ? &snap->vector(path) : nullptr;
      uint64_t total = 0;
      for (size_t i = 0; i < s.labels.size(); ++i) {
        if (v) total += (*v)[i];
        out.push_back(
            {path + "::" + s.labels[i], v ? std::optional((*v)[i]) : std::nullopt, s.unit});
      }
      out.push_back({path + "::total", v ? std::optional(total) : std::nullopt, s.unit});
    } else if (auto* h = std::get_if<const Histogram*>(&s.what)) {
      const HistogramValue* hv = snap ? &snap->histogram(path) : nullptr;
      auto u = [&](std::optional<uint64_t> x) {
        return x ? std::optional<std::variant<uint64_t, double>>(*x) : std::nullopt;
      };
      out.push_back({path + "::count", hv ? u(hv->count) : std::nullopt, "samples"});
      out.push_back({path + "::sum", hv ? u(hv->sum) : std::nullopt, s.unit});
      out.push_back({path + "::min", hv ? u(hv->min) : std::nullopt, s.unit});
      out.push_back({path + "::max", hv ? u(hv->max) : std::nullopt, s.unit});
      auto mean = hv ? mean_of(*hv) : std::nullopt;
      out.push_back({path + "::mean",
                     mean ? std::optional<std::variant<uint64_t, double>>(*mean) : std::nullopt,
                     s.unit});
      const auto& bounds = (*h)->upper_bounds();
      for (size_t i = 0; i <= bounds.size(); ++i) {
        std::string le = i < bounds.size() ? std::to_string(bounds[i]) : "inf";
        out.push_back({path + "::le_" + le, hv ? u(hv->buckets[i]) : std::nullopt, "samples"});
      }
    } else {
      auto v = snap ? evaluate(g, s, *snap) : std::nullopt;
      out.push_back(
          {path, v ? std::optional<std::variant<uint64_t, double>>(*v) : std::nullopt, s.unit});
    }
  }
  for (const Group* c : g.children()) flatten(*c, snap, out);
}

std::string format_cell(const Cell& c, bool csv) {
  if (!c.value) return csv ? "" : "nan";
  if (auto* i = std::get_if<uint64_t>(&*c.value)) return std::to_string(*i);
  double d = std::get<double>(*c.value);
  return csv ? fmt::format("{}", d) : fmt::format("{:.6g}", d);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char c : s) r += c == '"' ? std::string("\"\"") : std::string(1, c);
  return r + "\"";
}

}  // namespace

nlohmann::json to_json(const Group& schema_root, const Snapshot& snap) {
  return group_json(schema_root, snap);
}

std::string to_text(const Group& schema_root, const Snapshot& snap) {
  std::vector<Cell> cells;
  flatten(schema_root, &snap, cells);
  std::vector<std::string> values;
  size_t wcol = 0, wval = 0;
  for (const Cell& c : cells) {
    values.push_back(format_cell(c, false));
    wcol = std::max(wcol, c.column.size());
    wval = std::max(wval, values.back().size());
  }
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) {
    std::string line =
        fmt::format("{:<{}} {:>{}} {}", cells[i].column, wcol, values[i], wval, cells[i].unit);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string csv_header(const Group& schema_root) {
  std::vector<Cell> cells;
  flatten(schema_root, nullptr, cells);
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv_field(cells[i].column);
  return out + "\n";
}

std::string csv_row(const Group& schema_root, const Snapshot& snap) {
  std::vector<Cell> cells;
  flatten(schema_root, &snap, cells);
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + format_cell(cells[i], true);
  return out + "\n";
}

}  // namespace simtlab::stats
