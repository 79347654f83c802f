#include "timing/gpu/intervals.h"

#include <algorithm>
#include <regex>
#include <variant>

#include "timing/sm/stall.h"

namespace simtlab::timing {

using nlohmann::json;

size_t IntervalRecorder::column(const std::string& series, int sm) {
  for (size_t i = 0; i < cols_.size(); ++i)
    if (cols_[i].series == series && cols_[i].sm == sm) return i;
  cols_.push_back({series, sm, {}});
  return cols_.size() - 1;
}

uint64_t IntervalRecorder::read(const stats::Snapshot& s, const Source& src) {
  auto it = s.values.find(src.path);
  if (it == s.values.end()) return 0;
  if (const auto* c = std::get_if<uint64_t>(&it->second)) return *c;
  if (const auto* v = std::get_if<std::vector<uint64_t>>(&it->second)) {
    if (src.elem >= 0) return size_t(src.elem) < v->size() ? (*v)[size_t(src.elem)] : 0;
    uint64_t t = 0;
    for (uint64_t x : *v) t += x;
    return t;
  }
  return 0;
}

void IntervalRecorder::begin(const stats::Snapshot& s, uint64_t now) {
  start_ = now;
  next_ = now + n_;
  ends_.clear();
  cols_.clear();
  srcs_.clear();
  static const std::regex sm_counter(
      R"(gpu\.sm\[(\d+)\]\.(cycles|active_cycles|warp_insts|thread_insts|issue_slots|resident_warp_cycles))");
  static const std::regex sm_stall(R"(gpu\.sm\[(\d+)\]\.stall)");
  static const std::regex sm_l1d(R"(gpu\.sm\[(\d+)\]\.l1d\.(accesses|hits))");
  static const std::regex l2(R"(gpu\.mem\.partition\[\d+\]\.slice\[\d+\]\.(accesses|hits))");
  static const std::regex dram(
      R"(gpu\.mem\.dram\[\d+\]\.(reads|writes|requests|row_hits|busy_cycles))");
  // Chip-wide columns first, in a fixed order, so the JSON lists them predictably.
  std::smatch m;
  for (const auto& [path, value] : s.values) {
    (void)value;
    auto add = [&](int elem, const std::string& series, int sm) {
      Source src{path, elem, 0, {}};
      src.cols.push_back(column(series, -1));
      if (sm >= 0) src.cols.push_back(column(series, sm));
      src.prev = read(s, src);
      srcs_.push_back(std::move(src));
    };
    if (std::regex_match(path, m, sm_counter)) {
      add(-1, m[2].str(), std::stoi(m[1].str()));
    } else if (std::regex_match(path, m, sm_stall)) {
      const auto labels = stall_labels();
      for (size_t i = 0; i < labels.size(); ++i)
        add(int(i), "stall." + labels[i], std::stoi(m[1].str()));
    } else if (std::regex_match(path, m, sm_l1d)) {
      add(-1, "l1d_" + m[2].str(), std::stoi(m[1].str()));
    } else if (std::regex_match(path, m, l2)) {
      add(-1, "l2_" + m[1].str(), -1);
    } else if (std::regex_match(path, m, dram)) {
      add(-1, "dram_" + m[1].str(), -1);
    }
  }
}

void IntervalRecorder::sample(const stats::Snapshot& s, uint64_t now) {
  for (Column& c : cols_) c.v.push_back(0);
  for (Source& src : srcs_) {
    const uint64_t cur = read(s, src);
    const uint64_t d = cur - src.prev;
    src.prev = cur;
    for (size_t c : src.cols) cols_[c].v.back() += d;
  }
  ends_.push_back(now - start_);
  next_ = start_ + ((now - start_) / n_ + 1) * n_;
}

json IntervalRecorder::to_json() const {
  json j;
  j["interval"] = n_;
  json cycles = json::array();
  for (size_t i = 0; i < ends_.size(); ++i) cycles.push_back(ends_[i] - (i ? ends_[i - 1] : 0));
  j["end"] = ends_;
  j["cycles"] = cycles;
  json gpu = json::object(), sm = json::object();
  auto put = [](json& into, const std::string& series, json v) {
    const size_t dot = series.find('.');
    if (dot == std::string::npos)
      into[series] = std::move(v);
    else
      into[series.substr(0, dot)][series.substr(dot + 1)] = std::move(v);
  };
  for (const Column& c : cols_)
    if (c.sm < 0) put(gpu, c.series, c.v);
  // Per SM: series -> [sm][interval].
  std::vector<std::string> order;
  for (const Column& c : cols_)
    if (c.sm >= 0 && std::find(order.begin(), order.end(), c.series) == order.end())
      order.push_back(c.series);
  for (const std::string& series : order) {
    json rows = json::array();
    for (uint32_t i = 0; i < num_sms_; ++i) {
      json row = json::array();
      for (const Column& c : cols_)
        if (c.sm == int(i) && c.series == series) row = c.v;
      rows.push_back(std::move(row));
    }
    put(sm, series, std::move(rows));
  }
  j["gpu"] = std::move(gpu);
  j["sm"] = std::move(sm);
  return j;
}

}  // namespace simtlab::timing
