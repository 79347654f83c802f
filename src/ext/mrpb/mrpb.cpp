#include "ext/mrpb/mrpb.h"

namespace simtlab::ext {

Mrpb::Mrpb(const MrpbParams& p, uint32_t warps, stats::Group& sm_stats)
    : p_(p),
      q_(warps),
      nonempty_((warps + 63) / 64, 0),
      g_(sm_stats.child("mrpb")),
      queued_(g_.counter("queued", "transactions", "L1D transactions entered into the FIFOs")),
      drained_(g_.counter("drained", "transactions", "Transactions the L1D accepted from a FIFO")),
      drain_fails_(g_.counter("drain_fails", "cycles",
                              "Cycles the FIFO head was refused by the L1D (reservation failure)")),
      full_stalls_(g_.counter("full_stalls", "cycles",
                              "Cycles a memory instruction waited for room in its warp's FIFO")),
      bypassed_(g_.counter("bypassed", "transactions",
                           "Loads sent to the L2 without L1D allocation after an associativity "
                           "stall (reservation failures avoided)")),
      occupancy_sum_(g_.counter("occupancy_sum", "transaction-cycles",
                                "Sum over cycles of the transactions queued in all FIFOs")),
      busy_cycles_(g_.counter("busy_cycles", "cycles", "Cycles with a transaction queued")) {
  g_.ratio("avg_occupancy", "transactions", "Average queued transactions per busy cycle",
           "occupancy_sum", "busy_cycles");
}

bool Mrpb::fits(uint32_t w, size_t n) const {
  return q_[w].empty() || q_[w].size() + n <= p_.queue_entries;
}

void Mrpb::push(uint32_t w, const Item& it) {
  q_[w].push_back(it);
  nonempty_[w / 64] |= uint64_t(1) << (w % 64);
  ++total_;
  ++queued_;
}

int32_t Mrpb::pick() const {
  for (size_t i = 0; i < nonempty_.size(); ++i)
    if (nonempty_[i]) return int32_t(i * 64 + size_t(__builtin_ctzll(nonempty_[i])));
  return -1;
}

void Mrpb::pop(uint32_t w) {
  q_[w].pop_front();
  if (q_[w].empty()) nonempty_[w / 64] &= ~(uint64_t(1) << (w % 64));
  --total_;
  ++drained_;
}

void Mrpb::sample_cycle() {
  if (!total_) return;
  ++busy_cycles_;
  occupancy_sum_ += total_;
}

}  // namespace simtlab::ext
