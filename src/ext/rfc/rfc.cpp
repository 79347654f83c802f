#include "ext/rfc/rfc.h"

namespace simtlab::ext {

RegFileCache::RegFileCache(const RfcParams& p, uint32_t warps, stats::Group& sm_stats)
    : p_(p),
      warps_(warps),
      g_(sm_stats.child("rfc")),
      mg_(sm_stats.child("mrf")),
      operand_reads_(g_.counter("operand_reads", "register reads",
                                "Source register operands read (RFC hits + MRF reads)")),
      results_(g_.counter("results", "register writes", "Register results written (any level)")),
      hits_(g_.counter("reads", "register reads", "Source operands read from the RFC (hits)")),
      writes_(g_.counter("writes", "register writes", "Results written into the RFC")),
      evict_live_(g_.counter("evict_writebacks", "register writes",
                             "FIFO evictions of live values, written back to the MRF")),
      evict_dead_(
          g_.counter("evict_dead", "entries",
                     "FIFO evictions of dead values (write-back avoided by last-use bits)")),
      flush_live_(g_.counter("flush_writebacks", "register writes",
                             "Live entries written back when their warp left the active pool")),
      flush_dead_(g_.counter("flush_dead", "entries",
                             "Dead entries dropped when their warp left the active pool")),
      direct_(g_.counter("mrf_direct_writes", "register writes",
                         "Results of warps outside the active pool, written to the MRF directly")),
      kills_(g_.counter("last_use_kills", "entries",
                        "RFC entries marked dead by a compiler last-use bit")),
      mrf_reads_(
          mg_.counter("reads", "register reads", "Main-register-file operand reads (RFC misses)")),
      mrf_writes_(mg_.counter("writes", "register writes",
                              "Main-register-file writes (live evictions, flushes, direct)")) {
  g_.ratio("hit_rate", "", "Source operands served by the RFC", "reads", "operand_reads");
  for (WarpRfc& c : warps_) c.fifo.resize(p_.entries);
}

int32_t RegFileCache::find(const WarpRfc& c, uint32_t reg) const {
  for (uint32_t k = 0; k < c.n; ++k) {
    const uint32_t i = (c.head + k) % p_.entries;
    if (c.fifo[i].reg == reg) return int32_t(i);
  }
  return -1;
}

void RegFileCache::enter(uint32_t w) {
  WarpRfc& c = warps_[w];
  c.active = true;
  c.head = c.n = 0;
}

const std::vector<uint32_t>& RegFileCache::leave(uint32_t w) {
  WarpRfc& c = warps_[w];
  flushed_.clear();
  for (uint32_t k = 0; k < c.n; ++k) {
    const Entry& e = c.fifo[(c.head + k) % p_.entries];
    if (e.live) {
      ++flush_live_;
      ++mrf_writes_;
      flushed_.push_back(e.reg);
    } else {
      ++flush_dead_;
    }
  }
  c.active = false;
  c.head = c.n = 0;
  return flushed_;
}

void RegFileCache::retire(uint32_t w) {
  WarpRfc& c = warps_[w];
  c.active = false;
  c.head = c.n = 0;
}

bool RegFileCache::read(uint32_t w, uint32_t reg) {
  ++operand_reads_;
  const WarpRfc& c = warps_[w];
  if (c.active && find(c, reg) >= 0) {
    ++hits_;
    return true;
  }
  ++mrf_reads_;
  return false;
}

void RegFileCache::kill(uint32_t w, uint32_t reg) {
  WarpRfc& c = warps_[w];
  if (!p_.last_use || !c.active) return;
  const int32_t i = find(c, reg);
  if (i >= 0 && c.fifo[i].live) {
    c.fifo[i].live = false;
    ++kills_;
  }
}

int64_t RegFileCache::write(uint32_t w, uint32_t reg) {
  ++results_;
  WarpRfc& c = warps_[w];
  if (!c.active) {
    ++direct_;
    ++mrf_writes_;
    return reg;
  }
  ++writes_;
  const int32_t i = find(c, reg);
  if (i >= 0) {  // the register already has an entry: overwrite it in place
    c.fifo[i].live = true;
    return -1;
  }
  int64_t out = -1;
  if (c.n == p_.entries) {  // evict the oldest
    const Entry& e = c.fifo[c.head];
    if (e.live) {
      ++evict_live_;
      ++mrf_writes_;
      out = e.reg;
    } else {
      ++evict_dead_;
    }
    c.head = (c.head + 1) % p_.entries;
    --c.n;
  }
  c.fifo[(c.head + c.n) % p_.entries] = Entry{reg, true};
  ++c.n;
  return out;
}

std::vector<std::pair<uint32_t, bool>> RegFileCache::entries(uint32_t w) const {
  std::vector<std::pair<uint32_t, bool>> v;
  const WarpRfc& c = warps_[w];
  for (uint32_t k = 0; k < c.n; ++k) {
    const Entry& e = c.fifo[(c.head + k) % p_.entries];
    v.push_back({e.reg, e.live});
  }
  return v;
}

}  // namespace simtlab::ext
