#include "sim/sim.h"

#include <cmath>

#include <fmt/format.h>

namespace simtlab::sim {

ClockDomain::ClockDomain(std::string name, double mhz) : name_(std::move(name)), mhz_(mhz) {
  SIMTLAB_ASSERT(mhz > 0, "clock frequency must be positive");
  period_ = Ps(std::llround(1e6 / mhz));
  if (period_ == 0) period_ = 1;
  next_edge_ = period_;
}

void Component::sleep() {
  if (asleep_) return;
  asleep_ = true;
  --domain_->awake_;
}

void Component::wake() {
  if (!asleep_) return;
  asleep_ = false;
  ++domain_->awake_;
}

void Component::wake_at(Ps t) {
  if (!sim_) return;
  if (t <= sim_->now()) {
    wake();
    return;
  }
  if (!asleep_ && t >= pending_wake_) return;
  sim_->schedule_wake(this, t);
}

ClockDomain& Simulation::add_domain(std::string name, double mhz) {
  domains_.emplace_back(std::move(name), mhz);
  domain_ptrs_.push_back(&domains_.back());
  return domains_.back();
}

void Simulation::add(Component& c, ClockDomain& d) {
  c.domain_ = &d;
  c.sim_ = this;
  d.comps_.push_back(&c);
  ++d.awake_;
}

void Simulation::schedule_wake(Component* c, Ps t) {
  if (t < c->pending_wake_) c->pending_wake_ = t;
  wakes_.push(Wake{t, c});
}

bool Simulation::step(bool* progress) {
  // Earliest edge among domains with awake components, or the earliest scheduled wake.
  Ps next = kNever;
  for (ClockDomain* d : domain_ptrs_)
    if (d->awake_ && d->next_edge_ < next) next = d->next_edge_;
  if (!wakes_.empty() && wakes_.top().t < next) {
    // Nothing awake before the wake-up: jump every domain's clock forward to it.
    const Ps t = wakes_.top().t;
    for (ClockDomain* d : domain_ptrs_) {
      if (d->awake_ || d->next_edge_ >= t) continue;
      const uint64_t skip = (t - d->next_edge_ + d->period_ - 1) / d->period_;
      d->cycle_ += skip;
      d->next_edge_ += skip * d->period_;
      d->current_edge_ = d->next_edge_ - d->period_;
    }
    next = kNever;
    for (ClockDomain* d : domain_ptrs_)
      if (d->next_edge_ >= t && d->next_edge_ < next) next = d->next_edge_;
  }
  if (next == kNever) return false;
  now_ = next;
  while (!wakes_.empty() && wakes_.top().t <= now_) {
    Component* c = wakes_.top().c;
    wakes_.pop();
    if (c->pending_wake_ <= now_) c->pending_wake_ = kNever;
    c->wake();
  }
  // A sleeping domain whose edges fell between the previous step and now (no jump: another
  // domain's edge came first) counts them here, before the tick, so that a component woken
  // for an edge at exactly now_ is ticked at it.
  for (ClockDomain* d : domain_ptrs_) {
    while (d->next_edge_ < now_) {
      d->current_edge_ = d->next_edge_;
      ++d->cycle_;
      d->next_edge_ += d->period_;
    }
  }
  bool any = false;
  for (ClockDomain* d : domain_ptrs_) {
    if (d->next_edge_ != now_) continue;
    d->current_edge_ = now_;
    if (d->awake_)
      for (Component* c : d->comps_)
        if (!c->asleep_) any |= c->tick();
    ++d->cycle_;
    d->next_edge_ += d->period_;
  }
  // Domains that were skipped over (asleep) keep counting cycles so time stays consistent.
  for (ClockDomain* d : domain_ptrs_) {
    while (d->next_edge_ <= now_) {
      d->current_edge_ = d->next_edge_;
      ++d->cycle_;
      d->next_edge_ += d->period_;
    }
  }
  ++edges_;
  if (progress) *progress = any;
  return true;
}

void Simulation::run(const std::function<bool()>& done, uint64_t watchdog) {
  uint64_t idle = 0;
  while (!done()) {
    bool progress = false;
    if (!step(&progress)) throw UserError("simulation is idle but not done (nothing scheduled)");
    idle = progress ? 0 : idle + 1;
    if (idle > watchdog)
      throw UserError(fmt::format("no component made progress for {} clock edges", watchdog));
  }
}

}  // namespace simtlab::sim
