#include "timing/trace.h"

#include <algorithm>

namespace simtlab::timing {

using nlohmann::json;

void TraceSink::kernel(const std::string& name, uint64_t start, uint64_t end) {
  if (end < begin_ || start > end_) return;
  const uint64_t s = std::max(start, begin_), e = std::min(end, end_);
  events_.push_back({{"name", name},
                     {"cat", "kernel"},
                     {"ph", "X"},
                     {"pid", 0},
                     {"tid", 0},
                     {"ts", s},
                     {"dur", std::max<uint64_t>(1, e - s)}});
}

void TraceSink::cta_begin(uint32_t sm, uint32_t cta, uint64_t t) {
  if (ctas_.size() <= sm) ctas_.resize(sm + 1);
  ctas_[sm].push_back({cta, t});
}

void TraceSink::cta_end(uint32_t sm, uint32_t cta, uint64_t t) {
  if (ctas_.size() <= sm) return;
  auto& v = ctas_[sm];
  auto it = std::find_if(v.begin(), v.end(), [&](const auto& p) { return p.first == cta; });
  if (it == v.end()) return;
  const uint64_t s = std::max(it->second, begin_), e = std::min(t, end_);
  if (t >= begin_ && it->second <= end_)
    events_.push_back({{"name", "CTA " + std::to_string(cta)},
                       {"cat", "cta"},
                       {"ph", "X"},
                       {"pid", 1 + sm},
                       {"tid", 0},
                       {"ts", s},
                       {"dur", std::max<uint64_t>(1, e - s)},
                       {"args", {{"cta", cta}}}});
  v.erase(it);
}

void TraceSink::close(uint32_t sm, uint32_t warp, Open& o) {
  if (!o.open) return;
  o.open = false;
  if (o.last < begin_ || o.start > end_) return;
  const uint64_t s = std::max(o.start, begin_),
                 e = std::min(o.last + 1, end_ == UINT64_MAX ? end_ : end_ + 1);
  events_.push_back({{"name", "issue"},
                     {"cat", "warp"},
                     {"ph", "X"},
                     {"pid", 1 + sm},
                     {"tid", 1 + warp},
                     {"ts", s},
                     {"dur", std::max<uint64_t>(1, e - s)}});
  // The gap until the next issue is a stall interval (emitted when the next one starts).
}

void TraceSink::warp_issue(uint32_t sm, uint32_t warp, uint64_t t, uint32_t pc) {
  if (warps_.size() <= sm) warps_.resize(sm + 1);
  auto& v = warps_[sm];
  if (v.size() <= warp) v.resize(warp + 1);
  Open& o = v[warp];
  if (o.open && t == o.last + 1) {
    o.last = t;
    return;
  }
  if (o.open) {
    const uint64_t gap_s = o.last + 1;
    close(sm, warp, o);
    if (t > gap_s && t >= begin_ && gap_s <= end_) {
      const uint64_t s = std::max(gap_s, begin_), e = std::min(t, end_);
      events_.push_back({{"name", "stall"},
                         {"cat", "stall"},
                         {"ph", "X"},
                         {"pid", 1 + sm},
                         {"tid", 1 + warp},
                         {"ts", s},
                         {"dur", std::max<uint64_t>(1, e - s)}});
    }
  }
  o.open = true;
  o.start = o.last = t;
  (void)pc;
}

void TraceSink::mem_access(uint32_t sm, uint32_t warp, uint64_t start, uint64_t end,
                           const char* space, bool store, uint32_t transactions) {
  if (end < begin_ || start > end_) return;
  const uint64_t s = std::max(start, begin_), e = std::min(end, end_);
  events_.push_back({{"name", std::string(store ? "store " : "load ") + space},
                     {"cat", "mem"},
                     {"ph", "X"},
                     {"pid", 1 + sm},
                     {"tid", 10000 + warp},
                     {"ts", s},
                     {"dur", std::max<uint64_t>(1, e - s)},
                     {"args", {{"warp", warp}, {"transactions", transactions}}}});
}

void TraceSink::flush(uint64_t t) {
  for (uint32_t sm = 0; sm < warps_.size(); ++sm)
    for (uint32_t w = 0; w < warps_[sm].size(); ++w) close(sm, w, warps_[sm][w]);
  (void)t;
}

json TraceSink::take_events() {
  json e = std::move(events_);
  events_ = json::array();
  return e;
}

}  // namespace simtlab::timing
