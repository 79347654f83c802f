// Chrome trace-event timeline (opens in Perfetto / chrome://tracing): kernels, CTAs per SM,
// warp activity and stall intervals. Off by default; components hold a TraceSink* that is
// null when tracing is off, so the cost when off is one pointer test per event site.
// Timestamps are core cycles, written as microseconds (1 us in the viewer = 1 cycle).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simtlab::timing {

class TraceSink {
 public:
  TraceSink(uint64_t window_begin, uint64_t window_end) : begin_(window_begin), end_(window_end) {}
  void kernel(const std::string& name, uint64_t start, uint64_t end);
  void cta_begin(uint32_t sm, uint32_t cta, uint64_t t);
  void cta_end(uint32_t sm, uint32_t cta, uint64_t t);
  /// A warp issued at cycle t; consecutive issues of one warp merge into "active" intervals.
  void warp_issue(uint32_t sm, uint32_t warp, uint64_t t, uint32_t pc);
  /// A memory instruction of warp `warp` from issue to completion (space: global, local...).
  void mem_access(uint32_t sm, uint32_t warp, uint64_t start, uint64_t end, const char* space,
                  bool store, uint32_t transactions);
  /// Close open intervals at the end of a kernel.
  void flush(uint64_t t);
  nlohmann::json take_events();
  size_t size() const { return events_.size(); }

 private:
  bool in_window(uint64_t t) const { return t >= begin_ && t <= end_; }
  struct Open {
    uint64_t start = 0, last = 0;
    bool open = false;
  };
  void close(uint32_t sm, uint32_t warp, Open& o);
  uint64_t begin_, end_;
  std::vector<std::vector<Open>> warps_;                          // [sm][warp]
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> ctas_;  // open CTAs per SM
  nlohmann::json events_ = nlohmann::json::array();
};

}  // namespace simtlab::timing
