#include "stats/formula.h"
#include "stats/group.h"
#include "stats/snapshot.h"
#include "stats/writers.h"

#include <gtest/gtest.h>

#include <memory>

namespace simtlab::stats {
namespace {

using Json = nlohmann::json;

enum class Stall : uint8_t { kNone, kScoreboard, kMem };

// A small tree the way components would build it: the SM object owns its group, the L1 is a
// part without its own object (an owned child group).
struct Tree {
  Group gpu{"gpu"};
  Counter& cycles = gpu.counter("cycles", "cycles", "Core cycles");
  Counter& insts = gpu.counter("insts", "warp-instructions", "Warp instructions issued");
  Group sm0{"sm[0]", &gpu};
  Vector& stall = sm0.vector("stall", "slots", "Why a scheduler slot did not issue",
                             {"none", "scoreboard", "mem"});
  Group& l1 = sm0.child("l1d");
  Counter& accesses = l1.counter("accesses", "accesses", "L1D accesses");
  Counter& misses = l1.counter("misses", "accesses", "L1D misses");
  Histogram& latency = l1.histogram("latency", "cycles", "Miss latency", {4, 16, 64});

  Tree() {
    gpu.ratio("ipc", "warp-instructions/cycle", "Instructions per cycle", "insts", "cycles");
    l1.ratio("miss_rate", "", "Misses per access", "misses", "accesses");
    l1.ratio("miss_pct", "%", "Misses per 100 accesses", "misses", "accesses", 100.0);
    l1.ratio("misses_per_cycle", "accesses/cycle", "Misses per core cycle", "misses", "gpu.cycles");
    l1.ratio("misses_per_stall", "", "Ratio of a ratio", "miss_rate", "gpu.sm[0].stall");
  }
  void run() {
    cycles += 100;
    insts += 50;
    stall[Stall::kScoreboard] += 3;
    stall[Stall::kMem] += 5;
    ++stall[Stall::kNone];
    accesses += 8;
    ++misses;
    ++misses;
    latency.sample(3);
    latency.sample(16);
    latency.sample(100, 2);
  }
};

TEST(Stats, HierarchicalNames) {
  Tree t;
  EXPECT_EQ(t.gpu.path(), "gpu");
  EXPECT_EQ(t.sm0.path(), "gpu.sm[0]");
  EXPECT_EQ(t.l1.path(), "gpu.sm[0].l1d");
  EXPECT_EQ(t.l1.path_of("misses"), "gpu.sm[0].l1d.misses");
  EXPECT_EQ(&t.sm0.child("l1d"), &t.l1) << "child() returns the existing group";
  t.run();
  Snapshot s = snapshot(t.gpu);
  std::vector<std::string> keys;
  for (const auto& [k, v] : s.values) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"gpu.cycles", "gpu.insts", "gpu.sm[0].l1d.accesses",
                                            "gpu.sm[0].l1d.latency", "gpu.sm[0].l1d.misses",
                                            "gpu.sm[0].stall"}));
  EXPECT_EQ(s.counter("gpu.sm[0].l1d.misses"), 2u);
  EXPECT_EQ(s.vector("gpu.sm[0].stall"), (std::vector<uint64_t>{1, 3, 5}));
}

TEST(Stats, JsonValuesExactly) {
  Tree t;
  t.run();
  Json expected = Json::parse(R"({
    "cycles": {"value": 100, "unit": "cycles", "desc": "Core cycles"},
    "insts": {"value": 50, "unit": "warp-instructions", "desc": "Warp instructions issued"},
    "ipc": {"value": 0.5, "formula": "insts / cycles", "unit": "warp-instructions/cycle",
            "desc": "Instructions per cycle"},
    "sm[0]": {
      "stall": {"values": {"none": 1, "scoreboard": 3, "mem": 5}, "total": 9, "unit": "slots",
                "desc": "Why a scheduler slot did not issue"},
      "l1d": {
        "accesses": {"value": 8, "unit": "accesses", "desc": "L1D accesses"},
        "misses": {"value": 2, "unit": "accesses", "desc": "L1D misses"},
        "latency": {"count": 4, "sum": 219, "min": 3, "max": 100, "mean": 54.75,
                    "buckets": [{"le": 4, "count": 1}, {"le": 16, "count": 1},
                                {"le": 64, "count": 0}, {"le": "+inf", "count": 2}],
                    "unit": "cycles", "desc": "Miss latency"},
        "miss_rate": {"value": 0.25, "formula": "misses / accesses", "unit": "",
                      "desc": "Misses per access"},
        "miss_pct": {"value": 25.0, "formula": "100 * misses / accesses", "unit": "%",
                     "desc": "Misses per 100 accesses"},
        "misses_per_cycle": {"value": 0.02, "formula": "misses / gpu.cycles",
                             "unit": "accesses/cycle", "desc": "Misses per core cycle"},
        "misses_per_stall": {"value": 0.027777777777777776, "formula": "miss_rate / gpu.sm[0].stall",
                             "unit": "", "desc": "Ratio of a ratio"}
      }
    }
  })");
  Json got = to_json(t.gpu, snapshot(t.gpu));
  EXPECT_EQ(got, expected) << got.dump(2);
  EXPECT_TRUE(got["cycles"]["value"].is_number_unsigned());
  EXPECT_TRUE(got["sm[0]"]["l1d"]["latency"]["buckets"][0]["count"].is_number_unsigned());
}

TEST(Stats, EmptyValuesAreNull) {
  Tree t;
  Json j = to_json(t.gpu, snapshot(t.gpu));
  EXPECT_TRUE(j["ipc"]["value"].is_null()) << "0 / 0";
  EXPECT_TRUE(j["sm[0]"]["l1d"]["latency"]["min"].is_null());
  EXPECT_TRUE(j["sm[0]"]["l1d"]["latency"]["max"].is_null());
  EXPECT_TRUE(j["sm[0]"]["l1d"]["latency"]["mean"].is_null());
  EXPECT_EQ(j["sm[0]"]["l1d"]["latency"]["count"], 0);
  EXPECT_TRUE(j["sm[0]"]["l1d"]["misses_per_stall"]["value"].is_null()) << "null operand";
}

TEST(Stats, DeltaOfSnapshots) {
  Tree t;
  t.run();
  Snapshot begin = snapshot(t.gpu);
  t.cycles += 10;
  t.insts += 20;
  t.stall[Stall::kMem] += 2;
  t.latency.sample(1);
  t.latency.sample(5);
  Snapshot end = snapshot(t.gpu);
  Snapshot d = delta(end, begin);
  EXPECT_EQ(d.counter("gpu.cycles"), 10u);
  EXPECT_EQ(d.counter("gpu.insts"), 20u);
  EXPECT_EQ(d.counter("gpu.sm[0].l1d.misses"), 0u);
  EXPECT_EQ(d.vector("gpu.sm[0].stall"), (std::vector<uint64_t>{0, 0, 2}));
  const HistogramValue& h = d.histogram("gpu.sm[0].l1d.latency");
  EXPECT_EQ(h.count, 2u);
  EXPECT_EQ(h.sum, 6u);
  EXPECT_EQ(h.min, std::optional<uint64_t>(1)) << "new minimum: exact";
  EXPECT_EQ(h.max, std::nullopt) << "max 5 < earlier 100: not derivable";
  EXPECT_EQ(h.buckets, (std::vector<uint64_t>{1, 1, 0, 0}));
  // Formulas of a delta are ratios of the deltas.
  EXPECT_EQ(to_json(t.gpu, d)["ipc"]["value"], 2.0);
  // From an empty begin, a delta is the snapshot itself.
  EXPECT_EQ(delta(end, Snapshot{}), end);
  // A delta from a snapshot with no samples keeps exact min/max.
  Tree u;
  Snapshot b0 = snapshot(u.gpu);
  u.latency.sample(7);
  EXPECT_EQ(delta(snapshot(u.gpu), b0).histogram("gpu.sm[0].l1d.latency").max,
            std::optional<uint64_t>(7));
}

TEST(Stats, RatioFormula) {
  Tree t;
  t.run();
  Snapshot s = snapshot(t.gpu);
  auto value = [&](const Group& g, const char* name) { return evaluate(g, *g.find_stat(name), s); };
  EXPECT_EQ(value(t.gpu, "ipc"), 0.5);
  EXPECT_EQ(value(t.l1, "miss_rate"), 0.25);
  EXPECT_EQ(value(t.l1, "miss_pct"), 25.0);
  EXPECT_EQ(value(t.l1, "misses_per_cycle"), 0.02);
  auto [g, st] = resolve_operand(t.l1, "gpu.sm[0].l1d.misses");
  EXPECT_EQ(g, &t.l1);
  EXPECT_EQ(st, t.l1.find_stat("misses"));
  EXPECT_EQ(resolve_operand(t.l1, "nope").second, nullptr);
  check_formulas(t.gpu);  // all operands resolve: no panic
}

TEST(Stats, RatioOfAVectorElement) {
  Tree t;
  t.sm0.ratio("mem_share", "", "Share of stalled slots waiting on memory", "stall::mem", "stall");
  t.run();
  Json j = to_json(t.gpu, snapshot(t.gpu));
  EXPECT_EQ(j["sm[0]"]["mem_share"]["value"], 5.0 / 9.0);
  EXPECT_EQ(j["sm[0]"]["mem_share"]["formula"], "stall::mem / stall");
}

TEST(Stats, CsvHeaderAndRow) {
  Tree t;
  EXPECT_EQ(csv_header(t.gpu),
            "gpu.cycles,gpu.insts,gpu.ipc,gpu.sm[0].stall::none,gpu.sm[0].stall::scoreboard,"
            "gpu.sm[0].stall::mem,gpu.sm[0].stall::total,gpu.sm[0].l1d.accesses,"
            "gpu.sm[0].l1d.misses,gpu.sm[0].l1d.latency::count,gpu.sm[0].l1d.latency::sum,"
            "gpu.sm[0].l1d.latency::min,gpu.sm[0].l1d.latency::max,"
            "gpu.sm[0].l1d.latency::mean,gpu.sm[0].l1d.latency::le_4,"
            "gpu.sm[0].l1d.latency::le_16,gpu.sm[0].l1d.latency::le_64,"
            "gpu.sm[0].l1d.latency::le_inf,gpu.sm[0].l1d.miss_rate,gpu.sm[0].l1d.miss_pct,"
            "gpu.sm[0].l1d.misses_per_cycle,gpu.sm[0].l1d.misses_per_stall\n");
  EXPECT_EQ(csv_row(t.gpu, snapshot(t.gpu)), "0,0,,0,0,0,0,0,0,0,0,,,,0,0,0,0,,,,\n");
  t.run();
  EXPECT_EQ(csv_row(t.gpu, snapshot(t.gpu)),
            "100,50,0.5,1,3,5,9,8,2,4,219,3,100,54.75,1,1,0,2,0.25,25,0.02,0.027777777777777776\n");
}

TEST(Stats, TextOneLinePerValue) {
  Group root("gpu");
  Counter& c = root.counter("cycles", "cycles", "Core cycles");
  Group sm("sm[1]", &root);
  Counter& n = sm.counter("insts", "", "Instructions");
  sm.ratio("ipc", "", "IPC", "insts", "gpu.cycles");
  c += 3;
  n += 1;
  EXPECT_EQ(to_text(root, snapshot(root)),
            "gpu.cycles             3 cycles\n"
            "gpu.sm[1].insts        1\n"
            "gpu.sm[1].ipc   0.333333\n");
}

std::string build_and_dump() {
  Tree t;
  t.run();
  Group extra("sm[1]", &t.gpu);
  extra.counter("zeta", "", "");
  extra.counter("alpha", "", "");
  return to_json(t.gpu, snapshot(t.gpu)).dump(2) + to_text(t.gpu, snapshot(t.gpu)) +
         csv_row(t.gpu, snapshot(t.gpu));
}

TEST(Stats, DeterministicOutput) {
  std::string a = build_and_dump();
  std::string b = build_and_dump();
  EXPECT_EQ(a, b);
  // Two trees live side by side without sharing anything.
  Tree x, y;
  x.cycles += 1;
  EXPECT_EQ(snapshot(y.gpu).counter("gpu.cycles"), 0u);
}

TEST(Stats, GroupsUnregisterInEitherDestructionOrder) {
  Group root("gpu");
  {
    Group sm("sm[0]", &root);
    EXPECT_EQ(root.children().size(), 1u);
  }
  EXPECT_TRUE(root.children().empty());
  auto parent = std::make_unique<Group>("p");
  Group orphan("c", parent.get());
  orphan.counter("x", "", "");
  parent.reset();
  EXPECT_EQ(orphan.parent(), nullptr);
  EXPECT_EQ(orphan.path(), "p.c");
}

TEST(Stats, UnnamedRootGivesRelativePaths) {
  Group root("");
  Group& sm = root.child("sm[2]");
  Counter& c = sm.counter("cycles", "cycles", "");
  sm.ratio("r", "", "", "cycles", "sm[2].cycles");
  ++c;
  Snapshot s = snapshot(root);
  EXPECT_EQ(s.counter("sm[2].cycles"), 1u);
  EXPECT_EQ(to_json(root, s)["sm[2]"]["r"]["value"], 1.0);
}

TEST(Stats, HistogramBuckets) {
  Histogram h(pow2_bounds(8));
  EXPECT_EQ(h.upper_bounds(), (std::vector<uint64_t>{1, 2, 4, 8}));
  for (uint64_t x : {0, 1, 2, 3, 4, 5, 8, 9}) h.sample(x);
  EXPECT_EQ(h.buckets(), (std::vector<uint64_t>{2, 1, 2, 2, 1}));
  EXPECT_EQ(linear_bounds(10, 5, 3), (std::vector<uint64_t>{10, 15, 20}));
}

TEST(StatsDeathTest, DeclarationBugsPanic) {
  Group g("gpu");
  g.counter("x", "", "");
  EXPECT_DEATH(g.counter("x", "", ""), "stat name 'x' declared twice in group 'gpu'");
  EXPECT_DEATH(Group("x", &g), "stat name 'x' declared twice");
  EXPECT_DEATH(g.counter("a.b", "", ""), "bad stat name 'a.b'");
  EXPECT_DEATH(g.vector("w", "", "", {"a", "total"}), "bad or repeated label 'total'");
  EXPECT_DEATH(g.vector("w", "", "", {"a", "a"}), "bad or repeated label 'a'");
  Group h("h");
  h.counter("x", "", "");
  h.vector("v", "", "", {"a"});
  h.ratio("r", "", "", "v::zz", "x");
  EXPECT_DEATH(check_formulas(h), "stat formula 'h.r': vector 'v' has no label 'zz'");
  Group k("k");
  k.counter("x", "", "");
  k.ratio("r", "", "", "x::a", "x");
  EXPECT_DEATH(check_formulas(k), "stat formula 'k.r': operand 'x::a' is not a vector");
  g.ratio("bad", "", "", "x", "nope");
  EXPECT_DEATH(check_formulas(g), "stat formula 'gpu.bad': no stat 'nope'");
  EXPECT_DEATH(to_json(g, snapshot(g)), "stat formula 'gpu.bad': no stat 'nope'");
}

}  // namespace
}  // namespace simtlab::stats
