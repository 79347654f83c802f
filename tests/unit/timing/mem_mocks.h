// Mock neighbours for memory-system unit tests: a Feeder sends planned messages on given
// cycles, a Collector records what arrives (and when). Register collectors before the
// component under test and feeders after it, so every port hop takes exactly one cycle.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/sim.h"

namespace simtlab::timing::testing {

template <typename T>
class Feeder : public sim::Component {
 public:
  explicit Feeder(std::string name = "feeder") : sim::Component(std::move(name)) {}
  sim::Port<T>* out = nullptr;
  /// (cycle, message), in cycle order.
  std::vector<std::pair<uint64_t, T>> plan;
  std::vector<uint64_t> sent_at;

  void add(uint64_t cycle, T msg) { plan.emplace_back(cycle, std::move(msg)); }
  bool done() const { return next_ == plan.size(); }

  bool tick() override {
    bool any = false;
    while (next_ < plan.size() && plan[next_].first <= cycle() && out->can_send()) {
      out->send(plan[next_++].second, 1);
      sent_at.push_back(cycle());
      any = true;
    }
    if (next_ == plan.size()) {
      sleep();
    } else if (plan[next_].first > cycle() + 1) {
      sleep();
      wake_at(sim().now() + (plan[next_].first - cycle()) * domain().period());
    }
    return any;
  }

 private:
  size_t next_ = 0;
};

template <typename T>
class Collector : public sim::Component {
 public:
  explicit Collector(std::string name = "collector") : sim::Component(std::move(name)) {}
  sim::Port<T>* in = nullptr;
  bool hold = false;  // never pop (to test back-pressure)
  std::vector<std::pair<uint64_t, T>> got;

  bool tick() override {
    bool any = false;
    while (!hold && in->peek()) {
      got.emplace_back(cycle(), in->pop());
      any = true;
    }
    sleep();
    return any;
  }
};

}  // namespace simtlab::timing::testing
