// Chrome trace-event timeline (opens in Perfetto / chrome://tracing). Off by default;
// components hold a TraceSink* that is null when tracing is off, so the cost when off is one
// pointer test per event site. Timestamps are core cycles, written as microseconds (1 us in
// the viewer = 1 cycle). Layout (docs/outputs.md, "Trace"):
//   pid 0 "GPU"       kernel slices (one track per concurrently running kernel), chip-wide
//                     counters (warp IPC, memory instructions in flight, DRAM requests/cycle)
//   pid 1+n "SM n"    "CTA slot k" tracks (one CTA at a time), "warp slot k" tracks (the
//                     warp's state each cycle: "issue" or the stall reason), "mem k" tracks
//                     (memory instructions other than shared-memory ones, from issue to
//                     completion, assigned greedily so slices on one track never overlap)
//                     and per-SM counters.
// Every track is named by 'M' metadata events. Slices on one track never overlap.
// Size budget: warp-state and memory slices ("detail") count against max_events. When the
// budget is reached, detail is sampled: time is cut into windows of sample_window cycles and
// only windows whose index is a multiple of the stride keep detail; the stride doubles (and
// detail of the dropped windows is discarded) each time the budget is reached again. Detail
// already handed to the runtime is dropped there (runtime::write_trace keeps the windows of
// the last "trace sampled" event's stride), so the sampling is uniform over the whole run.
// Kernel, CTA, counter and metadata events are always kept.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

namespace simtlab::timing {

/// The demangled C++ name of a kernel (the name itself when it is not a mangled name).
std::string demangle(const std::string& name);

class TraceSink {
 public:
  struct Options {
    uint64_t begin = 0, end = UINT64_MAX;  // trace window (core cycles, inclusive)
    uint64_t max_events = 500000;          // detail budget (0 = unlimited)
    uint64_t sample_window = 2000;         // cycles per sampling window
    uint32_t num_sms = 0, num_warps = 0, max_ctas = 0;
  };
  /// Warp states of warp_state(): issue, the stall reasons (Stall values, every one including
  /// the mechanisms' throttled / lock_wait / wake_up), "not_selected" (could issue, another
  /// warp was picked: the value after the last Stall, checked in trace.cpp) and none (no warp).
  static constexpr uint8_t kIssue = 0, kNotSelected = 12, kNone = 255;

  explicit TraceSink(const Options& o);

  void kernel(const std::string& name, uint64_t start, uint64_t end);
  void cta_begin(uint32_t sm, uint32_t cta, uint64_t t);
  void cta_end(uint32_t sm, uint32_t cta, uint64_t t);
  /// A warp issued at cycle t (the SM reports the per-cycle states with warp_state).
  void warp_issue(uint32_t sm, uint32_t warp, uint64_t t, uint32_t pc);
  uint64_t last_issue(uint32_t sm, uint32_t warp) const {
    return sm < warps_.size() && warp < warps_[sm].size() ? warps_[sm][warp].last_issue
                                                          : UINT64_MAX;
  }
  /// The state of warp slot `warp` from cycle t on (kIssue, a Stall value, kNotSelected or
  /// kNone); a change closes the previous state's slice.
  void warp_state(uint32_t sm, uint32_t warp, uint64_t t, uint8_t state);
  /// A memory instruction of warp `warp` from issue to completion (space: global, local...).
  void mem_access(uint32_t sm, uint32_t warp, uint64_t start, uint64_t end, const char* space,
                  bool store, uint32_t transactions);
  /// D2MA (src/ext/d2ma): one transfer of BMT entry `buf` of the CTA in slot `slot` (CTA
  /// `cta`): "agen" from ignition to its first request, "mem" from there to its last fill, on
  /// the track "D2MA slot k buf b" (the paper's Fig. 12 timeline).
  void d2ma_transfer(uint32_t sm, uint32_t slot, uint32_t buf, uint32_t cta, uint64_t exec,
                     uint64_t first, uint64_t end);
  /// D2MA: a compute period of the CTA in slot `slot` (no buffer in flight: from its last
  /// transfer's completion to its next arming/ignition), slice "compute" on the track
  /// "D2MA slot k compute" (the paper's Fig. 12).
  void d2ma_compute(uint32_t sm, uint32_t slot, uint32_t cta, uint64_t begin, uint64_t end);
  /// Baseline transfer regions (d2ma.xfer_regions, src/ext/d2ma/xfer.h): phase `name` ("agen",
  /// "mem" or "compute") of the CTA in slot `slot` (CTA `cta`) on the track "Xfer CTA slot k".
  void xfer_phase(uint32_t sm, uint32_t slot, uint32_t cta, const char* name, uint64_t begin,
                  uint64_t end);
  /// A counter sample: `pid` 0 = GPU, 1+n = SM n; one counter track per (pid, name); the
  /// viewer names it "<name> <unit>".
  void counter(uint32_t pid, const char* name, const char* unit, uint64_t t, double value);
  /// Close open warp-state slices at the end of a kernel.
  void flush(uint64_t t);
  nlohmann::json take_events();
  /// Events held (not yet taken).
  size_t size() const { return events_.size() + detail_.size(); }
  uint64_t stride() const { return stride_; }

 private:
  bool in_window(uint64_t t) const { return t >= o_.begin && t <= o_.end; }
  /// Clip [s, e) to the window; false when outside.
  bool clip(uint64_t& s, uint64_t& e) const;
  struct WarpTrack {
    uint8_t state = kNone;
    uint64_t start = 0;
    uint64_t last_issue = UINT64_MAX;
  };
  struct Detail {  // a compact warp-state or memory slice
    uint64_t ts, dur;
    uint32_t pid, tid;
    uint16_t name;  // index into names_
    uint8_t cat;    // 0 warp, 1 stall, 2 mem
    uint32_t warp = 0, txns = 0;
  };
  void add_detail(const Detail& d);
  uint16_t intern(const std::string& s);
  /// Name a track on first use ('M' thread_name + thread_sort_index).
  void name_track(uint32_t pid, uint32_t tid, const std::string& name);
  WarpTrack& warp(uint32_t sm, uint32_t w);

  Options o_;
  std::vector<std::vector<WarpTrack>> warps_;                     // [sm][warp slot]
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> ctas_;  // [sm][slot] = (cta, start)
  std::vector<std::vector<uint8_t>> cta_busy_;                    // [sm][slot]
  std::vector<std::vector<uint64_t>> mem_tracks_;                 // [sm][track] = end of last slice
  std::vector<uint64_t> kernel_tracks_;                           // end of last kernel slice
  std::unordered_set<uint64_t> named_;                            // (pid << 32 | tid) named
  std::vector<std::string> names_;
  std::vector<Detail> detail_;
  // Detail events already handed out by take_events that survive the current stride, and how
  // many per window (the runtime drops those of windows the final stride excludes when it
  // writes the file: write_trace).
  uint64_t detail_taken_ = 0;
  std::map<uint64_t, uint64_t> taken_windows_;
  uint64_t stride_ = 1;
  uint64_t sampled_at_ = UINT64_MAX;  // cycle at which sampling started
  bool sampled_reported_ = false;
  nlohmann::json events_ = nlohmann::json::array();
};

}  // namespace simtlab::timing
