// The SM's connection to the memory system below its L1s: bounded in both directions.
// MemorySystem (timing/mem) provides the real one; FixedLatencyMemory is the stand-in used by
// unit tests with mock neighbours (every request answered exactly `latency` cycles later).
#pragma once

#include <cstdint>
#include <deque>

#include "sim/sim.h"
#include "timing/mem/request.h"

namespace simtlab::timing {

class SmMemPort {
 public:
  virtual ~SmMemPort() = default;
  virtual bool can_send() = 0;
  virtual void send(const MemReq& r) = 0;
  /// The next response if one is available now.
  virtual const MemResp* peek() = 0;
  virtual MemResp pop() = 0;
  /// The component to wake when a response will become visible (the real memory system wakes
  /// the attached SM itself).
  virtual void set_waiter(sim::Component* c) { (void)c; }
  /// The cycle (of the SM's clock) the next response becomes visible, when the port knows it
  /// (UINT64_MAX otherwise: the real memory system wakes the SM when a response arrives). An SM
  /// that sleeps through idle cycles must not sleep past it.
  virtual uint64_t next_ready() const { return UINT64_MAX; }
};

/// Answers every request (except write-backs) exactly `latency` cycles of `clock` after it
/// was sent.
class FixedLatencyMemory : public SmMemPort {
 public:
  FixedLatencyMemory(uint64_t latency, const sim::ClockDomain* clock)
      : latency_(latency), clock_(clock) {}
  bool can_send() override { return true; }
  void send(const MemReq& r) override {
    ++requests;
    if (r.writeback) return;
    q_.push_back({clock_->cycle() + latency_, MemResp{r, 0}});
    if (waiter_) waiter_->wake_at(clock_->time_after(latency_));
  }
  void set_waiter(sim::Component* c) override { waiter_ = c; }
  const MemResp* peek() override {
    return !q_.empty() && q_.front().first <= clock_->cycle() ? &q_.front().second : nullptr;
  }
  MemResp pop() override {
    MemResp r = q_.front().second;
    q_.pop_front();
    return r;
  }
  // (The wake scheduled in send() can be dropped when the SM had an earlier wake pending, so
  // the SM also asks for this before sleeping.)
  uint64_t next_ready() const override { return q_.empty() ? UINT64_MAX : q_.front().first; }
  uint64_t requests = 0;

 private:
  uint64_t latency_;
  const sim::ClockDomain* clock_;
  sim::Component* waiter_ = nullptr;
  std::deque<std::pair<uint64_t, MemResp>> q_;
};

}  // namespace simtlab::timing
