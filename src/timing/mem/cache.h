// Cache: one generic set-associative, optionally sectored cache with MSHRs and a miss queue.
// The same class serves as L1D, constant, instruction and texture cache in the SM and as an L2
// slice in a memory partition. It is a plain class (not a Component): its owner calls it from
// its own tick with the owner's current cycle `now` (non-decreasing across calls).
//
// Protocol (every method O(1) or O(ways), no allocation on the hot path):
//   access(req, now)    -> hit             completes at now + hit_latency
//                          hit_reserved    merged into the line's pending MSHR; completes when
//                                          the fill it waits for arrives
//                          miss            new MSHR, a fill request was queued; or a store that
//                                          allocated without a fetch / was forwarded
//                          bypass          forwarded below unchanged (l1_bypass loads, atomics
//                                          at a level that does not perform them)
//                          reservation_fail nothing changed; retry later (cause counted)
//   has_miss/peek_miss/pop_miss   requests for the next level, FIFO: fills (MemReq::fill),
//                                 write-backs (MemReq::writeback) and forwarded requests
//   fill(resp, now)     the next level answered: a fill installs its sectors and releases the
//                       merged requests in order; any other response (a forwarded request's
//                       answer or a write-through ack) completes that request at `now`
//   has_ready/pop_ready completed accesses in completion order (ties: hits first)
// Every accepted access leaves through pop_ready exactly once, except MemReq::writeback
// requests, which are never answered.
//
// Policies: stores follow the global or local write policy (write_back / write_through, with
// or without write-allocate); loads allocate unless they bypass; atomics are either forwarded
// (L1) or performed here as a read-modify-write (L2). Write-allocate never fetches data a
// store fully overwrites: sectors it covers completely become valid without a fetch, partially
// written sectors are fetched first (fetch-on-write). allocate=on_miss reserves the victim line
// when the miss is sent (a set whose ways are all reserved gives set_reserved); on_fill picks
// the victim when the data arrives (non-sectored caches only).
//
// Ordering: accesses to one line perform (read or write the line) in access order: an access
// that overlaps the sectors a pending MSHR fetches or waits on merges behind it, even when its
// own sectors are valid. So per-line program order holds for everything that goes through one
// cache. A bypassing load sees only the level below; it must not target a line this cache
// holds dirty.
//
// Checker mode (CacheOptions::keep_data): lines hold bytes, stores and atomics write them and
// loads return them in MemReq::data. Off by default: no data is stored.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "config/describer.h"
#include "stats/group.h"
#include "timing/mem/replacement.h"
#include "timing/mem/request.h"
#include "timing/mem/ring.h"
#include "timing/mem/set_index.h"

namespace simtlab::timing {

struct CacheParams {
  uint32_t size = 16384;
  uint32_t line = 128;
  uint32_t sector = 32;
  bool sectored = false;
  uint32_t assoc = 4;
  std::string repl = "lru";
  uint64_t seed = 1;
  uint32_t mshrs = 32;
  uint32_t mshr_merge = 8;
  uint32_t miss_queue = 8;
  Cycle hit_latency{35};
  std::string global_write = "write_through";
  bool global_write_allocate = false;
  std::string local_write = "write_back";
  bool local_write_allocate = true;
  std::string allocate = "on_miss";
  std::string index = "fermi";
  bool honor_bypass = true;
  bool perform_atomics = false;

  /// Where each default above comes from. A role's defaults function (e.g. the L2 slice's)
  /// replaces values and citations together.
  struct Cite {
    std::string_view size = "D2MA Table 1 (L1D 16 KB)";
    std::string_view line = "D2MA Table 1 (128 B lines)";
    std::string_view sector = "book 1.10 (32 B sectors, the GDDR5 atom)";
    std::string_view sectored = "book 1.10 (Fermi L1 is not sectored)";
    std::string_view assoc = "D2MA Table 1 (4-way)";
    std::string_view repl = "GTX480 config gpgpu_cache:dl1 (L = LRU)";
    std::string_view seed = "arbitrary fixed seed (determinism)";
    std::string_view mshrs = "D2MA section 1.10 (32 L1D MSHRs)";
    std::string_view mshr_merge = "GTX480 config gpgpu_cache:dl1 (S:64:8, 8 merges)";
    std::string_view miss_queue = "GTX480 config gpgpu_cache:dl1 (miss queue 8)";
    std::string_view hit_latency = "GTX480 config gpgpu_l1_latency 35";
    std::string_view global_write = "book 1.12 (global: write-through, no write-allocate)";
    std::string_view local_write = "book 1.12 (local: write-back, write-allocate)";
    std::string_view allocate = "book 1.12 / GTX480 dl1 'm' (allocate on miss)";
    std::string_view index = "GTX480 dl1 'H'; Nugteren et al. HPCA 2014 (Fermi L1 hash)";
    std::string_view honor_bypass = "request.h (l1_bypass is an L1 hint)";
    std::string_view perform_atomics = "book 1.16 (atomics execute at the L2)";
  } cite;

  void describe(config::Describer& d);
  /// Cross-field problems (keys relative to the cache's group), empty if none. Checked by the
  /// config layer at resolution and by the Cache constructor.
  std::vector<config::Issue> validate() const;
};

enum class AccessStatus : uint8_t { hit, hit_reserved, miss, bypass, reservation_fail };
enum class FailCause : uint8_t { none, mshr_full, merge_limit, set_reserved, miss_queue_full };

struct AccessResult {
  AccessStatus status = AccessStatus::hit;
  FailCause cause = FailCause::none;
  bool accepted() const { return status != AccessStatus::reservation_fail; }
};

struct CacheOptions {
  bool keep_data = false;      // checker mode
  SliceInterleave interleave;  // set when the cache is one address-interleaved slice
};

/// Told about every valid line a cache replaces (research mechanisms: CCWS victim tags).
class EvictionObserver {
 public:
  virtual ~EvictionObserver() = default;
  virtual void evicted(Addr line) = 0;
};

class Cache {
 public:
  /// Registers stats group `name` under `parent`. Throws UserError naming `name` if the
  /// parameters are inconsistent (CacheParams::validate; a resolved Config never is).
  Cache(std::string name, const CacheParams& p, stats::Group& parent, CacheOptions opts = {});
  ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  AccessResult access(const MemReq& req, uint64_t now);

  bool has_miss() const { return !miss_q_.empty(); }
  const MemReq& peek_miss() const { return miss_q_.front(); }
  MemReq pop_miss() { return miss_q_.pop_front(); }

  void fill(const MemResp& resp, uint64_t now);

  bool has_ready(uint64_t now) const { return next_ready() <= now; }
  /// The earliest completed access; `hit` (optional) tells whether it hit in this cache.
  MemReq pop_ready(uint64_t now, bool* hit = nullptr);
  /// Completion time of the next access to leave pop_ready (UINT64_MAX if none queued).
  uint64_t next_ready() const;

  /// Queues a write-back of every dirty line (past the miss-queue depth) and marks it clean.
  void flush();
  /// Drops every line without a pending MSHR (dirty data is lost: flush first).
  void invalidate();
  /// A write to the line holding `a` by an agent outside the timing model (the copy engine of
  /// a cudaMemcpy / cudaMemset). `full` and `touched` are block-relative 32-byte sector masks:
  /// the sectors the write covers completely and those it writes any byte of. Cache sectors
  /// (the whole line when not sectored) inside `full` become valid, and dirty under a
  /// write-back global policy; a touched cache sector that is already valid becomes dirty. The line
  /// is allocated (replacement policy victim) or refreshed as by a hit. Instantaneous: no request,
  /// no latency; a dirty victim's write-back is not sent (the copy engine's own DRAM traffic is not
  /// modelled either). A line with a pending MSHR, or a set whose ways are all reserved, is left
  /// alone. Returns whether the line was written. Not in checker mode (no data).
  bool external_write(Addr a, uint32_t full, uint32_t touched);
  /// No MSHR in use and nothing queued in either direction.
  bool idle() const;
  /// Unified L1/shared carve-out (sm.l1_shared_unified): only ways [0, n) receive new lines,
  /// so the capacity is n x sets x line. Call when idle and after flush() + invalidate(); the
  /// default is every way (p.assoc). 1 <= n <= p.assoc.
  void set_active_ways(uint32_t n);
  uint32_t active_ways() const { return active_ways_; }
  /// Observer of replaced lines (nullptr = none; not told about flush/invalidate).
  void set_eviction_observer(EvictionObserver* o) { evict_obs_ = o; }

  // Inspection (tests, debugging).
  uint32_t sets() const { return sets_; }
  uint32_t ways() const { return p_.assoc; }
  /// Valid sectors (block-relative bit mask) of the line holding `a`, 0 if absent.
  uint32_t valid_sectors(Addr a) const;
  /// Dirty sectors of the line holding `a`, 0 if absent.
  uint32_t dirty_sectors(Addr a) const;
  uint32_t mshrs_in_use() const { return p_.mshrs - uint32_t(free_mshrs_.size()); }
  size_t miss_queue_size() const { return miss_q_.size(); }
  const CacheParams& params() const { return p_; }
  const stats::Group& stats() const { return g_; }

 private:
  enum class WritePolicy : uint8_t { write_back, write_through };
  struct Line;
  struct Mshr;
  struct Waiter;
  struct Done {
    uint64_t ready = 0;
    MemReq req;
    bool hit = false;
  };
  struct Plan;

  Plan plan_for(const MemReq& req) const;
  Addr line_addr(Addr a) const { return a & ~Addr(p_.line - 1); }
  uint32_t line_units(Addr la) const;
  uint32_t expand(uint32_t units, Addr la) const;
  uint32_t set_of(Addr la) const;
  int32_t find(uint32_t set, Addr la) const;
  int32_t find_mshr(Addr la) const;
  int32_t choose_victim(uint32_t set, bool* dirty) const;
  void evict(int32_t slot);
  void install(int32_t slot, Addr la);
  int32_t alloc_mshr(Addr la, int32_t slot);
  void push_fill(const MemReq& req, Addr la, uint32_t units);
  /// Allocates an MSHR for line `la` (bound to `slot`, or -1 with allocate-on-fill), records
  /// `req` as its first waiter, requests the `fetch` units below and forwards a write-through
  /// store; counts the access as a miss.
  AccessResult start_miss(const MemReq& req, const Plan& pl, Addr la, int32_t slot, uint32_t fetch,
                          bool forward);
  bool room(uint32_t slots) const { return miss_q_.size() + slots <= p_.miss_queue; }
  void perform(MemReq& req, const Plan& plan, int32_t slot);
  void release(int32_t m, uint64_t now);
  AccessResult fail(FailCause c);
  uint8_t* line_data(int32_t slot) { return &data_[size_t(slot) * p_.line]; }

  CacheParams p_;
  CacheOptions opts_;
  uint32_t sets_ = 0;
  uint32_t active_ways_ = 0;  // ways that receive new lines (set_active_ways), p_.assoc
  SetIndexFn index_fn_;
  WritePolicy global_write_;
  WritePolicy local_write_;
  bool on_fill_ = false;
  uint64_t last_now_ = 0;
  EvictionObserver* evict_obs_ = nullptr;

  std::vector<Line> lines_;    // sets_ x assoc, set-major
  std::vector<uint8_t> data_;  // checker mode: lines_.size() x line bytes
  std::vector<Mshr> mshrs_;
  std::vector<Waiter> waiters_;      // mshrs x mshr_merge, in merge order per MSHR
  std::vector<int32_t> free_mshrs_;  // stack, lowest index on top
  std::unique_ptr<ReplacementPolicy> repl_;
  Ring<MemReq> miss_q_;
  Ring<Done> hit_q_;      // ready = access + hit_latency (non-decreasing)
  Ring<Done> release_q_;  // ready = fill/ack time (non-decreasing)

  stats::Group g_;
  stats::Vector& accesses_;
  stats::Vector& hits_;
  stats::Vector& misses_;
  stats::Vector& hit_reserved_;
  stats::Vector& bypasses_;
  stats::Vector& fails_;
  stats::Counter& fills_;
  stats::Counter& fill_requests_;
  stats::Counter& write_backs_;
  stats::Counter& evictions_;
  stats::Counter& external_writes_;
};

}  // namespace simtlab::timing
