// The simulation kernel: clock domains, components, bounded ports, idle skipping.
//
// Time is kept in picoseconds. Each ClockDomain has a period; the Simulation always advances
// to the earliest next clock edge among domains that have awake components, ticks those
// components (in registration order) and repeats. A component's tick() returns whether it
// did anything; a component with nothing to do calls sleep() and is woken by a message
// arriving on one of its input ports (at the message's ready time) or by wake_at().
// When every component sleeps, time jumps straight to the earliest scheduled wake-up.
//
// Ports: a message sent at time t with delay d (cycles of the sender's domain, d >= 1) is
// visible to the receiver at t + d periods, so tick order within one edge never matters.
// Ports are bounded: can_send() is false when `capacity` messages are in flight or queued.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "base/error.h"

namespace simtlab::sim {

using Ps = uint64_t;  // picoseconds
inline constexpr Ps kNever = std::numeric_limits<Ps>::max();

class Simulation;
class Component;

class ClockDomain {
 public:
  ClockDomain(std::string name, double mhz);
  const std::string& name() const { return name_; }
  double mhz() const { return mhz_; }
  Ps period() const { return period_; }
  /// Cycles of this domain elapsed so far.
  uint64_t cycle() const { return cycle_; }
  /// Absolute time of the edge `cycles` after the current one (the edge being ticked, or the
  /// last one ticked), independent of the order components are ticked in.
  Ps time_after(uint64_t cycles) const { return current_edge_ + cycles * period_; }

 private:
  friend class Simulation;
  friend class Component;
  std::string name_;
  double mhz_;
  Ps period_;
  uint64_t cycle_ = 0;
  Ps next_edge_ = 0;
  Ps current_edge_ = 0;
  std::vector<Component*> comps_;
  size_t awake_ = 0;
};

class Component {
 public:
  explicit Component(std::string name) : name_(std::move(name)) {}
  virtual ~Component() = default;
  /// Called at each clock edge of the component's domain while awake. Returns whether the
  /// component made progress (for deadlock detection).
  virtual bool tick() = 0;
  const std::string& name() const { return name_; }
  ClockDomain& domain() const { return *domain_; }
  uint64_t cycle() const { return domain_->cycle(); }
  Simulation& sim() const { return *sim_; }
  bool asleep() const { return asleep_; }
  /// Stop being ticked until woken (by a port or wake_at).
  void sleep();
  /// Be ticked again from the next edge at or after absolute time `t`.
  void wake_at(Ps t);
  void wake();

 private:
  friend class Simulation;
  std::string name_;
  ClockDomain* domain_ = nullptr;
  Simulation* sim_ = nullptr;
  bool asleep_ = false;
  Ps pending_wake_ = kNever;
};

/// A bounded, delayed, typed channel into `receiver`.
template <typename T>
class Port {
 public:
  Port(Component* sender, Component* receiver, size_t capacity, std::string name = {})
      : sender_(sender), receiver_(receiver), capacity_(capacity), name_(std::move(name)) {}
  bool can_send() const { return q_.size() < capacity_; }
  /// Send with a delay of `delay` sender cycles (>= 1).
  void send(T msg, uint64_t delay = 1) {
    SIMTLAB_ASSERT(delay >= 1, "port delay must be >= 1");
    SIMTLAB_ASSERT(can_send(), "send on a full port");
    const Ps ready = sender_->domain().time_after(delay);
    q_.push_back({ready, std::move(msg)});
    if (receiver_) receiver_->wake_at(ready);
  }
  /// The oldest message if it is visible now.
  const T* peek() const;
  T pop() {
    T m = std::move(q_.front().msg);
    q_.pop_front();
    return m;
  }
  bool empty() const { return q_.empty(); }
  size_t size() const { return q_.size(); }
  const std::string& name() const { return name_; }

 private:
  struct Entry {
    Ps ready;
    T msg;
  };
  Component* sender_;
  Component* receiver_;
  size_t capacity_;
  std::string name_;
  std::deque<Entry> q_;
};

class Simulation {
 public:
  Simulation() = default;
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  ClockDomain& add_domain(std::string name, double mhz);
  void add(Component& c, ClockDomain& d);
  Ps now() const { return now_; }
  /// Advance to the next edge and tick; returns false when nothing is awake and nothing is
  /// scheduled (the simulation is idle).
  bool step(bool* progress = nullptr);
  /// Run until `done()` is true. Throws UserError if no component makes progress for
  /// `watchdog` consecutive edges (the caller can catch it and dump state).
  void run(const std::function<bool()>& done, uint64_t watchdog = 1'000'000);
  uint64_t edges() const { return edges_; }
  const std::vector<ClockDomain*>& domains() const { return domain_ptrs_; }

 private:
  friend class Component;
  void schedule_wake(Component* c, Ps t);
  std::deque<ClockDomain> domains_;
  std::vector<ClockDomain*> domain_ptrs_;
  Ps now_ = 0;
  uint64_t edges_ = 0;
  struct Wake {
    Ps t;
    Component* c;
    bool operator>(const Wake& o) const { return t > o.t; }
  };
  std::priority_queue<Wake, std::vector<Wake>, std::greater<Wake>> wakes_;
};

template <typename T>
const T* Port<T>::peek() const {
  if (q_.empty()) return nullptr;
  const Entry& e = q_.front();
  if (e.ready > receiver_->sim().now()) return nullptr;
  return &e.msg;
}

}  // namespace simtlab::sim
