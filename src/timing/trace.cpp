#include "timing/trace.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "timing/sm/stall.h"

namespace simtlab::timing {

using nlohmann::json;

namespace {
// Track ids inside an SM process.
constexpr uint32_t kCtaTid = 1, kWarpTid = 10000, kMemTid = 20000, kD2maTid = 30000,
                   kXferTid = 40000, kD2maComputeTid = 50000;
constexpr uint8_t kCatIssue = 0, kCatStall = 1, kCatMem = 2;
const char* const kCats[] = {"warp", "stall", "mem"};
}  // namespace

std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string r = d;
  std::free(d);
  return r;
}

TraceSink::TraceSink(const Options& o) : o_(o) {
  auto meta = [&](uint32_t pid, const char* what, json args) {
    events_.push_back({{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", args}});
  };
  meta(0, "process_name", {{"name", "GPU"}});
  meta(0, "process_sort_index", {{"sort_index", 0}});
  for (uint32_t s = 0; s < o_.num_sms; ++s) {
    meta(1 + s, "process_name", {{"name", "SM " + std::to_string(s)}});
    meta(1 + s, "process_sort_index", {{"sort_index", 1 + s}});
  }
  warps_.resize(o_.num_sms, std::vector<WarpTrack>(o_.num_warps));
  ctas_.resize(o_.num_sms, std::vector<std::pair<uint32_t, uint64_t>>(o_.max_ctas));
  cta_busy_.resize(o_.num_sms, std::vector<uint8_t>(o_.max_ctas, 0));
  mem_tracks_.resize(o_.num_sms);
  static_assert(kNotSelected == uint8_t(Stall::count_), "not_selected follows the stall reasons");
  for (const std::string& l : stall_labels(true, true, true)) names_.push_back(l);
  names_[0] = "issue";
  names_.push_back("not_selected");  // kNotSelected
}

uint16_t TraceSink::intern(const std::string& s) {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == s) return uint16_t(i);
  names_.push_back(s);
  return uint16_t(names_.size() - 1);
}

void TraceSink::name_track(uint32_t pid, uint32_t tid, const std::string& name) {
  if (!named_.insert(uint64_t(pid) << 32 | tid).second) return;
  events_.push_back({{"name", "thread_name"},
                     {"ph", "M"},
                     {"pid", pid},
                     {"tid", tid},
                     {"args", {{"name", name}}}});
  events_.push_back({{"name", "thread_sort_index"},
                     {"ph", "M"},
                     {"pid", pid},
                     {"tid", tid},
                     {"args", {{"sort_index", tid}}}});
}

bool TraceSink::clip(uint64_t& s, uint64_t& e) const {
  if (e <= s) e = s + 1;
  if (e <= o_.begin || s > o_.end) return false;
  s = std::max(s, o_.begin);
  if (o_.end != UINT64_MAX) e = std::min(e, o_.end + 1);
  return e > s;
}

void TraceSink::kernel(const std::string& name, uint64_t start, uint64_t end) {
  uint64_t s = start, e = end;
  if (!clip(s, e)) return;
  // Kernels are reported when they end, so every earlier slice of a track ends no later than
  // this one: a track is free when its last slice ended by `s`.
  size_t t = 0;
  while (t < kernel_tracks_.size() && kernel_tracks_[t] > s) ++t;
  if (t == kernel_tracks_.size()) kernel_tracks_.push_back(0);
  kernel_tracks_[t] = e;
  name_track(0, uint32_t(t), t ? "kernels " + std::to_string(t + 1) : "kernels");
  events_.push_back({{"name", demangle(name)},
                     {"cat", "kernel"},
                     {"ph", "X"},
                     {"pid", 0},
                     {"tid", t},
                     {"ts", s},
                     {"dur", e - s},
                     {"args", {{"kernel", name}, {"start_cycle", start}, {"end_cycle", end}}}});
}

void TraceSink::cta_begin(uint32_t sm, uint32_t cta, uint64_t t) {
  if (ctas_.size() <= sm) {
    ctas_.resize(sm + 1);
    cta_busy_.resize(sm + 1);
  }
  auto& busy = cta_busy_[sm];
  size_t k = 0;
  while (k < busy.size() && busy[k]) ++k;
  if (k == busy.size()) {
    busy.push_back(0);
    ctas_[sm].emplace_back();
  }
  busy[k] = 1;
  ctas_[sm][k] = {cta, t};
}

void TraceSink::cta_end(uint32_t sm, uint32_t cta, uint64_t t) {
  if (ctas_.size() <= sm) return;
  for (size_t k = 0; k < ctas_[sm].size(); ++k) {
    if (!cta_busy_[sm][k] || ctas_[sm][k].first != cta) continue;
    cta_busy_[sm][k] = 0;
    uint64_t s = ctas_[sm][k].second, e = t;
    if (!clip(s, e)) return;
    name_track(1 + sm, kCtaTid + uint32_t(k), "CTA slot " + std::to_string(k));
    events_.push_back({{"name", "CTA " + std::to_string(cta)},
                       {"cat", "cta"},
                       {"ph", "X"},
                       {"pid", 1 + sm},
                       {"tid", kCtaTid + k},
                       {"ts", s},
                       {"dur", e - s},
                       {"args", {{"cta", cta}}}});
    return;
  }
}

void TraceSink::d2ma_transfer(uint32_t sm, uint32_t slot, uint32_t buf, uint32_t cta, uint64_t exec,
                              uint64_t first, uint64_t end) {
  const uint32_t tid = kD2maTid + slot * 16 + buf;
  name_track(1 + sm, tid, "D2MA slot " + std::to_string(slot) + " buf " + std::to_string(buf));
  const std::pair<const char*, std::pair<uint64_t, uint64_t>> phases[] = {{"agen", {exec, first}},
                                                                          {"mem", {first, end}}};
  for (const auto& [name, iv] : phases) {
    uint64_t s = iv.first, e = iv.second;
    if (e <= s || !clip(s, e)) continue;
    events_.push_back({{"name", name},
                       {"cat", "d2ma"},
                       {"ph", "X"},
                       {"pid", 1 + sm},
                       {"tid", tid},
                       {"ts", s},
                       {"dur", e - s},
                       {"args", {{"cta", cta}, {"buffer", buf}}}});
  }
}

void TraceSink::d2ma_compute(uint32_t sm, uint32_t slot, uint32_t cta, uint64_t begin,
                             uint64_t end) {
  const uint32_t tid = kD2maComputeTid + slot;
  name_track(1 + sm, tid, "D2MA slot " + std::to_string(slot) + " compute");
  uint64_t s = begin, e = end;
  if (e <= s || !clip(s, e)) return;
  events_.push_back({{"name", "compute"},
                     {"cat", "d2ma"},
                     {"ph", "X"},
                     {"pid", 1 + sm},
                     {"tid", tid},
                     {"ts", s},
                     {"dur", e - s},
                     {"args", {{"cta", cta}}}});
}

void TraceSink::xfer_phase(uint32_t sm, uint32_t slot, uint32_t cta, const char* name,
                           uint64_t begin, uint64_t end) {
  const uint32_t tid = kXferTid + slot;
  name_track(1 + sm, tid, "Xfer CTA slot " + std::to_string(slot));
  uint64_t s = begin, e = end;
  if (e <= s || !clip(s, e)) return;
  events_.push_back({{"name", name},
                     {"cat", "xfer"},
                     {"ph", "X"},
                     {"pid", 1 + sm},
                     {"tid", tid},
                     {"ts", s},
                     {"dur", e - s},
                     {"args", {{"cta", cta}}}});
}

TraceSink::WarpTrack& TraceSink::warp(uint32_t sm, uint32_t w) {
  if (warps_.size() <= sm) warps_.resize(sm + 1);
  auto& v = warps_[sm];
  if (v.size() <= w) v.resize(w + 1);
  return v[w];
}

void TraceSink::warp_issue(uint32_t sm, uint32_t w, uint64_t t, uint32_t pc) {
  warp(sm, w).last_issue = t;
  (void)pc;
}

void TraceSink::warp_state(uint32_t sm, uint32_t w, uint64_t t, uint8_t state) {
  WarpTrack& k = warp(sm, w);
  if (k.state == state) return;
  if (k.state != kNone && t > k.start) {
    uint64_t s = k.start, e = t;
    if (clip(s, e)) {
      name_track(1 + sm, kWarpTid + w, "warp slot " + std::to_string(w));
      add_detail(
          {s, e - s, 1 + sm, kWarpTid + w, k.state, k.state == kIssue ? kCatIssue : kCatStall});
    }
  }
  k.state = state;
  k.start = t;
}

void TraceSink::mem_access(uint32_t sm, uint32_t w, uint64_t start, uint64_t end, const char* space,
                           bool store, uint32_t transactions) {
  // Shared-memory instructions take a few cycles and are most of a tiled kernel's memory
  // instructions; their time shows in the warp's state. Only accesses that leave the SM's
  // shared memory (global, local, const, param, tex) get slices.
  if (std::strcmp(space, "shared") == 0) return;
  uint64_t s = start, e = end;
  if (!clip(s, e)) return;
  if (mem_tracks_.size() <= sm) mem_tracks_.resize(sm + 1);
  // Slices are reported at completion (ends non-decreasing per SM), so a track is free when its
  // last slice ended by `s`: greedy interval partitioning without overlaps.
  auto& tr = mem_tracks_[sm];
  size_t t = 0;
  while (t < tr.size() && tr[t] > s) ++t;
  if (t == tr.size()) tr.push_back(0);
  tr[t] = e;
  name_track(1 + sm, kMemTid + uint32_t(t), "mem " + std::to_string(t));
  Detail d{s,
           e - s,
           1 + sm,
           kMemTid + uint32_t(t),
           intern(std::string(store ? "store " : "load ") + space),
           kCatMem};
  d.warp = w;
  d.txns = transactions;
  add_detail(d);
}

void TraceSink::add_detail(const Detail& d) {
  const uint64_t win = std::max<uint64_t>(o_.sample_window, 1);
  if ((d.ts / win) % stride_) return;
  while (o_.max_events && detail_taken_ + detail_.size() >= o_.max_events) {
    // Doubling only helps while some kept detail lies outside window 0 (kept at any stride);
    // otherwise the budget is spent: drop.
    bool beyond0 = !taken_windows_.empty() && taken_windows_.rbegin()->first > 0;
    for (const Detail& x : detail_) beyond0 |= x.ts >= win;
    if (!beyond0 || stride_ >= (uint64_t(1) << 40)) return;
    stride_ *= 2;
    if (sampled_at_ == UINT64_MAX) {
      sampled_at_ = d.ts;
      for (const Detail& x : detail_) sampled_at_ = std::min(sampled_at_, x.ts);
    }
    std::erase_if(detail_, [&](const Detail& x) { return (x.ts / win) % stride_ != 0; });
    for (auto it = taken_windows_.begin(); it != taken_windows_.end();) {
      if (it->first % stride_ == 0) {
        ++it;
        continue;
      }
      detail_taken_ -= it->second;
      it = taken_windows_.erase(it);
    }
    if ((d.ts / win) % stride_) return;
  }
  detail_.push_back(d);
}

void TraceSink::counter(uint32_t pid, const char* name, const char* unit, uint64_t t,
                        double value) {
  if (!in_window(t)) return;
  events_.push_back({{"name", name},
                     {"ph", "C"},
                     {"pid", pid},
                     {"tid", 0},
                     {"ts", t},
                     {"args", {{unit, value}}}});
}

void TraceSink::flush(uint64_t t) {
  for (uint32_t sm = 0; sm < warps_.size(); ++sm)
    for (uint32_t w = 0; w < warps_[sm].size(); ++w) warp_state(sm, w, t, kNone);
}

json TraceSink::take_events() {
  json e = std::move(events_);
  events_ = json::array();
  for (const Detail& d : detail_) {
    json ev = {{"name", names_[d.name]}, {"cat", kCats[d.cat]}, {"ph", "X"},   {"pid", d.pid},
               {"tid", d.tid},           {"ts", d.ts},          {"dur", d.dur}};
    if (d.cat == kCatMem) ev["args"] = {{"warp", d.warp}, {"transactions", d.txns}};
    e.push_back(std::move(ev));
  }
  const uint64_t win = std::max<uint64_t>(o_.sample_window, 1);
  for (const Detail& d : detail_) ++taken_windows_[d.ts / win];
  detail_taken_ += detail_.size();
  detail_.clear();
  if (stride_ > 1)
    e.push_back({{"name", "trace sampled"},
                 {"cat", "trace"},
                 {"ph", "i"},
                 {"s", "g"},
                 {"pid", 0},
                 {"tid", 0},
                 {"ts", sampled_at_},
                 {"args",
                  {{"max_events", o_.max_events},
                   {"sample_window", o_.sample_window},
                   {"stride", stride_},
                   {"note",
                    "trace.max_events was reached at this cycle: warp-state and memory slices "
                    "are kept only in windows of sample_window cycles whose index (ts / "
                    "sample_window) is a multiple of stride; kernel, CTA and counter events "
                    "are complete"}}}});
  return e;
}

}  // namespace simtlab::timing
