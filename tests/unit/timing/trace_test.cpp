// TraceSink (timeline layout, no overlaps, budget) and IntervalRecorder (interval series).
#include <gtest/gtest.h>

#include "stats/group.h"
#include "stats/snapshot.h"
#include "timing/gpu/intervals.h"
#include "timing/sm/stall.h"
#include "timing/trace.h"

namespace simtlab::timing {
namespace {

using nlohmann::json;

TraceSink::Options opts() {
  TraceSink::Options o;
  o.num_sms = 1;
  o.num_warps = 2;
  o.max_ctas = 2;
  o.max_events = 0;
  return o;
}

std::vector<json> of_cat(const json& ev, const std::string& cat) {
  std::vector<json> v;
  for (const json& e : ev)
    if (e.value("cat", "") == cat) v.push_back(e);
  return v;
}

TEST(TraceSink, NamesTheGpuAndEverySm) {
  TraceSink t(opts());
  const json ev = t.take_events();
  std::vector<std::pair<int, std::string>> names;
  for (const json& e : ev)
    if (e["name"] == "process_name") names.push_back({e["pid"], e["args"]["name"]});
  EXPECT_EQ(names, (std::vector<std::pair<int, std::string>>{{0, "GPU"}, {1, "SM 0"}}));
}

TEST(TraceSink, WarpStatesBecomeSlicesNamedByReason) {
  TraceSink t(opts());
  t.take_events();
  t.warp_state(0, 1, 10, TraceSink::kIssue);
  t.warp_state(0, 1, 11, TraceSink::kIssue);
  t.warp_state(0, 1, 12, uint8_t(Stall::scoreboard));
  t.warp_state(0, 1, 15, TraceSink::kNotSelected);
  t.warp_state(0, 1, 16, TraceSink::kIssue);
  t.warp_state(0, 1, 17, TraceSink::kNone);
  const json ev = t.take_events();
  std::vector<std::tuple<std::string, std::string, uint64_t, uint64_t, int>> got;
  int named = 0;
  for (const json& e : ev) {
    if (e["ph"] == "X") got.push_back({e["cat"], e["name"], e["ts"], e["dur"], e["tid"]});
    if (e["name"] == "thread_name" && e["tid"] == 10001 && e["args"]["name"] == "warp slot 1")
      ++named;
  }
  using T = std::tuple<std::string, std::string, uint64_t, uint64_t, int>;
  EXPECT_EQ(got, (std::vector<T>{{"warp", "issue", 10, 2, 10001},
                                 {"stall", "scoreboard", 12, 3, 10001},
                                 {"stall", "not_selected", 15, 1, 10001},
                                 {"warp", "issue", 16, 1, 10001}}));
  EXPECT_EQ(named, 1);
}

TEST(TraceSink, MemorySlicesGetTracksWithoutOverlap) {
  TraceSink t(opts());
  // Reported at completion: [0,10) [5,12) [10,20) [11,13); shared memory gets no slice.
  t.mem_access(0, 0, 0, 10, "global", false, 1);
  t.mem_access(0, 1, 5, 12, "global", false, 2);
  t.mem_access(0, 0, 8, 12, "shared", false, 0);
  t.mem_access(0, 0, 10, 20, "local", true, 1);
  t.mem_access(0, 1, 11, 13, "global", false, 1);
  std::vector<std::tuple<std::string, uint64_t, int>> got;
  for (const json& e : of_cat(t.take_events(), "mem"))
    got.push_back({e["name"], e["ts"], int(e["tid"]) - 20000});
  using T = std::tuple<std::string, uint64_t, int>;
  EXPECT_EQ(got, (std::vector<T>{{"load global", 0, 0},
                                 {"load global", 5, 1},
                                 {"store local", 10, 0},
                                 {"load global", 11, 2}}));
}

TEST(TraceSink, CtasOccupySlotTracksAndKernelsStackWhenConcurrent) {
  TraceSink t(opts());
  t.cta_begin(0, 7, 0);
  t.cta_begin(0, 8, 5);
  t.cta_end(0, 7, 10);
  t.cta_begin(0, 9, 10);
  t.cta_end(0, 8, 20);
  t.cta_end(0, 9, 30);
  t.kernel("_Z3fooi", 10, 50);  // ends first
  t.kernel("bar", 0, 100);      // overlaps it: second track
  const json ev = t.take_events();
  std::vector<std::tuple<std::string, uint64_t, uint64_t, int>> ctas, kernels;
  for (const json& e : of_cat(ev, "cta")) ctas.push_back({e["name"], e["ts"], e["dur"], e["tid"]});
  for (const json& e : of_cat(ev, "kernel"))
    kernels.push_back({e["name"], e["ts"], e["dur"], e["tid"]});
  using T = std::tuple<std::string, uint64_t, uint64_t, int>;
  EXPECT_EQ(ctas, (std::vector<T>{{"CTA 7", 0, 10, 1}, {"CTA 8", 5, 15, 2}, {"CTA 9", 10, 20, 1}}));
  EXPECT_EQ(kernels, (std::vector<T>{{"foo(int)", 10, 40, 0}, {"bar", 0, 100, 1}}));
}

TEST(TraceSink, BudgetSamplesWindowsAndSaysSo) {
  TraceSink::Options o = opts();
  o.max_events = 4;
  o.sample_window = 10;
  TraceSink t(o);
  for (uint64_t ts : {0, 10, 20, 30, 40, 50}) t.mem_access(0, 0, ts, ts + 1, "global", false, 1);
  // The 5th slice reaches the budget: stride 2 drops windows 1 and 3 (ts 10, 30); ts 40 is in
  // window 4 (kept), ts 50 in window 5 (dropped).
  const json ev = t.take_events();
  std::vector<uint64_t> ts;
  for (const json& e : of_cat(ev, "mem")) ts.push_back(e["ts"]);
  EXPECT_EQ(ts, (std::vector<uint64_t>{0, 20, 40}));
  const auto s = of_cat(ev, "trace");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0]["args"]["stride"], 2);
  EXPECT_EQ(s[0]["ts"], 0);
  EXPECT_EQ(t.stride(), 2u);
}

TEST(TraceSink, WindowClipsSlices) {
  TraceSink::Options o = opts();
  o.begin = 100;
  o.end = 199;
  TraceSink t(o);
  t.kernel("k", 50, 300);
  t.mem_access(0, 0, 10, 20, "global", false, 1);  // outside
  t.mem_access(0, 0, 150, 250, "global", false, 1);
  const json ev = t.take_events();
  const auto k = of_cat(ev, "kernel");
  const auto m = of_cat(ev, "mem");
  ASSERT_EQ(k.size(), 1u);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(k[0]["ts"], 100);
  EXPECT_EQ(k[0]["dur"], 100);
  EXPECT_EQ(m[0]["ts"], 150);
  EXPECT_EQ(m[0]["dur"], 50);
}

TEST(IntervalRecorder, SeriesAreDifferencesOfSnapshotsPerSmAndChip) {
  stats::Group gpu("gpu");
  stats::Group sm0("sm[0]", &gpu), sm1("sm[1]", &gpu);
  stats::Counter& w0 = sm0.counter("warp_insts", "", "");
  stats::Counter& w1 = sm1.counter("warp_insts", "", "");
  stats::Vector& st0 = sm0.vector("stall", "", "", stall_labels());
  sm1.vector("stall", "", "", stall_labels());
  stats::Counter& other = sm0.counter("fetches", "", "");  // not a series
  w0 += 5;
  IntervalRecorder r(10, 2);
  r.begin(stats::snapshot(gpu), 100);
  EXPECT_EQ(r.next(), 110u);
  w0 += 3;
  w1 += 4;
  st0[Stall::scoreboard] += 2;
  other += 9;
  r.sample(stats::snapshot(gpu), 110);
  EXPECT_EQ(r.next(), 120u);
  w1 += 1;
  st0[Stall::scoreboard] += 1;
  r.sample(stats::snapshot(gpu), 115);  // the kernel ends
  const json j = r.to_json();
  EXPECT_EQ(j["interval"], 10);
  EXPECT_EQ(j["end"], json({10, 15}));
  EXPECT_EQ(j["cycles"], json({10, 5}));
  EXPECT_EQ(j["gpu"]["warp_insts"], json({7, 1}));
  EXPECT_EQ(j["sm"]["warp_insts"], json({{3, 0}, {4, 1}}));
  EXPECT_EQ(j["gpu"]["stall"]["scoreboard"], json({2, 1}));
  EXPECT_EQ(j["sm"]["stall"]["scoreboard"], json({{2, 1}, {0, 0}}));
  EXPECT_FALSE(j["gpu"].contains("fetches"));
}

}  // namespace
}  // namespace simtlab::timing
