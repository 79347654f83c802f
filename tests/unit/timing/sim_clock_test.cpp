// The simulation kernel's clock domains (src/sim): a sleeping component woken for one of its
// own edges is ticked at that edge, also when its domain's earlier edges were passed over while
// only another domain was awake.
#include <gtest/gtest.h>

#include <vector>

#include "sim/sim.h"

namespace simtlab::sim {
namespace {

struct Sleeper : Component {
  Sleeper() : Component("sleeper") {}
  std::vector<uint64_t> ticks;
  bool tick() override {
    ticks.push_back(cycle());
    if (ticks.size() == 1) {  // sleep until two edges on
      sleep();
      wake_at(domain().time_after(2));
    }
    return true;
  }
};

struct Awake : Component {
  Awake() : Component("awake") {}
  bool tick() override { return true; }
};

TEST(SimClock, WakeOnOwnEdgeAfterSkippedEdges) {
  // A: 1000 ps period (edges 1000, 2000, 3000...), B: 1500 ps (1500, 3000...). The sleeper
  // (A) sleeps at its cycle 0 until cycle 2 (3000 ps); A's edge at 2000 passes while only B is
  // awake, and the wake-up coincides with B's edge at 3000.
  Simulation s;
  ClockDomain& a = s.add_domain("a", 1000.0);
  ClockDomain& b = s.add_domain("b", 1e6 / 1500.0);
  ASSERT_EQ(b.period(), 1500u);
  Sleeper x;
  Awake y;
  s.add(x, a);
  s.add(y, b);
  while (s.now() < 4500) ASSERT_TRUE(s.step());
  ASSERT_GE(x.ticks.size(), 2u);
  EXPECT_EQ(x.ticks[0], 0u);
  EXPECT_EQ(x.ticks[1], 2u);  // at 3000 ps, not one edge late
}

}  // namespace
}  // namespace simtlab::sim
