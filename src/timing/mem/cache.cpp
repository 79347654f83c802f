#include "timing/mem/cache.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "base/bits.h"
#include "base/error.h"

namespace simtlab::timing {

namespace {

constexpr Addr kNoLine = ~Addr(0);
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

std::vector<std::string> kind_labels() {
  return {"load", "store", "atomic", "const_load", "tex_load", "inst_fetch"};
}

/// Sectors of the block that a store/atomic overwrites completely (range and byte mask).
uint32_t fully_written(const MemReq& r, uint32_t units) {
  const uint32_t off = uint32_t(r.addr & (kBlockBytes - 1));
  const uint32_t end = off + r.bytes;
  uint32_t full = 0;
  for (uint32_t u = 0; u < kBlockSectors; ++u) {
    if (!(units >> u & 1)) continue;
    const uint32_t lo = u * kSectorBytes;
    if (off > lo || end < lo + kSectorBytes) continue;
    const uint64_t w = u < 2 ? r.byte_mask.lo : r.byte_mask.hi;
    if (uint32_t(w >> ((u & 1) * 32)) == 0xffffffffu) full |= 1u << u;
  }
  return full;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Parameters

void CacheParams::describe(config::Describer& d) {
  // Upper bounds keep absurd values from exhausting host memory (each line, MSHR and merged
  // request is allocated up front); they are far above any real GPU cache.
  d.param("size", size, "bytes", "Capacity", cite.size)
      .range(1, 64u << 20);  // 64 MiB: above any one cache or L2 slice (H100: 50 MB L2 in all)
  d.param("line", line, "bytes", "Line size", cite.line).one_of({32u, 64u, 128u});
  d.param("sector", sector, "bytes", "Sector size (fetch and valid granularity when sectored)",
          cite.sector)
      .one_of({32u, 64u, 128u});
  d.param("sectored", sectored, "", "Per-sector valid bits; misses fetch only missing sectors",
          cite.sectored);
  d.param("assoc", assoc, "ways", "Associativity", cite.assoc).range(1, 64);
  d.param("repl", repl, "", "Replacement policy", cite.repl).one_of(replacement_names());
  d.param("seed", seed, "", "Seed of the random replacement policy", cite.seed);
  d.param("mshrs", mshrs, "entries", "Miss status holding registers", cite.mshrs)
      .range(1, 4096);  // GPGPU-Sim configs use at most a few hundred (QV100 L1D: 512)
  d.param("mshr_merge", mshr_merge, "requests", "Requests one MSHR can hold (merge limit)",
          cite.mshr_merge)
      .range(1, 256);  // a 128 B line holds 32 4-byte words; configs use <= 32
  d.param("miss_queue", miss_queue, "requests", "Depth of the queue to the next level",
          cite.miss_queue)
      .range(1, 4096);  // configs use <= 32
  d.param("hit_latency", hit_latency, "cycles", "Cycles from access to completion of a hit",
          cite.hit_latency)
      .max(100000);  // real hit latencies are tens to hundreds of cycles
  d.param("global_write", global_write, "", "Write policy of global stores", cite.global_write)
      .one_of({"write_back", "write_through"});
  d.param("global_write_allocate", global_write_allocate, "", "Global store misses allocate a line",
          cite.global_write);
  d.param("local_write", local_write, "", "Write policy of local stores", cite.local_write)
      .one_of({"write_back", "write_through"});
  d.param("local_write_allocate", local_write_allocate, "", "Local store misses allocate a line",
          cite.local_write);
  d.param("allocate", allocate, "", "When a miss takes its line: on_miss (reserve) or on_fill",
          cite.allocate)
      .one_of({"on_miss", "on_fill"});
  d.param("index", index, "", "Set index function", cite.index).one_of(set_index_names());
  d.param("honor_bypass", honor_bypass, "", "Forward MemReq::l1_bypass requests unallocated",
          cite.honor_bypass);
  d.param("perform_atomics", perform_atomics, "",
          "Perform atomics here (read-modify-write) instead of forwarding them",
          cite.perform_atomics);
}

std::vector<config::Issue> CacheParams::validate() const {
  std::vector<config::Issue> r;
  if (sector > line) r.push_back({"sector", fmt::format("must not exceed line ({})", line)});
  const uint64_t way_bytes = uint64_t(line) * assoc;
  if (size % way_bytes != 0) {
    r.push_back({"size", fmt::format("must be a multiple of line x assoc ({} x {} = {})", line,
                                     assoc, way_bytes)});
  } else {
    const uint32_t sets = uint32_t(size / way_bytes);
    const std::string why = set_index_check(parse_set_index(index), sets);
    if (!why.empty())
      r.push_back({"index", fmt::format("{} (size {} / (line {} x assoc {}) = {} sets)", why, size,
                                        line, assoc, sets)});
  }
  if (allocate == "on_fill" && sectored)
    r.push_back({"allocate", "on_fill needs a non-sectored cache (sectored is true)"});
  if (perform_atomics && global_write != "write_back")
    r.push_back({"perform_atomics",
                 fmt::format("needs global_write=write_back (global_write is {})", global_write)});
  return r;
}

// ---------------------------------------------------------------------------------------------
// Internal state

struct Cache::Line {
  Addr tag = kNoLine;
  uint8_t valid = 0;  // block-relative sector bits
  uint8_t dirty = 0;
  int32_t mshr = -1;  // pending MSHR: the line is reserved (never a victim)
};

struct Cache::Mshr {
  Addr line = kNoLine;
  int32_t slot = -1;      // line slot, -1 until an allocate-on-fill line is installed
  uint8_t requested = 0;  // sectors whose fill is in flight
  uint8_t touched = 0;    // sectors the held requests read or write
  uint32_t n = 0;         // held requests
};

// What an access needs from the line and what it does to it.
struct Cache::Plan {
  uint8_t units = 0;  // sectors touched
  uint8_t need = 0;   // sectors that must be valid before it performs
  uint8_t full = 0;   // sectors a store overwrites completely
  bool store = false;
  bool atomic = false;
  bool allocate = true;  // an absent line is allocated
  bool through = false;  // write-through store: always forwarded
  bool back = false;     // write-back store/atomic: marks dirty when kept here
};

struct Cache::Waiter {
  MemReq req;
  Plan plan;
  bool forwarded = false;  // the request also went below: it completes by its answer
};

// ---------------------------------------------------------------------------------------------

Cache::Cache(std::string name, const CacheParams& p, stats::Group& parent, CacheOptions opts)
    : p_(p),
      opts_(opts),
      miss_q_(p.miss_queue + 8),
      hit_q_(64),
      release_q_(64),
      g_(std::move(name), &parent),
      accesses_(g_.vector("accesses", "accesses", "Accepted accesses", kind_labels())),
      hits_(g_.vector("hits", "accesses", "Accesses served from valid sectors", kind_labels())),
      misses_(g_.vector("misses", "accesses",
                        "Accesses that missed (new MSHR or no-fetch "
                        "allocate or forwarded store)",
                        kind_labels())),
      hit_reserved_(g_.vector("hit_reserved", "accesses", "Accesses merged into a pending MSHR",
                              kind_labels())),
      bypasses_(
          g_.vector("bypasses", "accesses", "Accesses forwarded without a lookup", kind_labels())),
      fails_(g_.vector("reservation_fails", "attempts", "Rejected accesses by cause",
                       {"mshr_full", "merge_limit", "set_reserved", "miss_queue_full"})),
      fills_(g_.counter("fills", "responses", "Fill responses installed")),
      fill_requests_(g_.counter("fill_requests", "requests", "Fetches sent to the next level")),
      write_backs_(g_.counter("write_backs", "requests", "Dirty lines written back")),
      evictions_(g_.counter("evictions", "lines", "Valid lines replaced")),
      external_writes_(g_.counter("external_writes", "lines",
                                  "Lines written by the copy engine (cudaMemcpy/cudaMemset)")) {
  g_.ratio("miss_rate", "", "Misses per accepted access", "misses", "accesses");
  g_.ratio("hit_rate", "", "Hits per accepted access", "hits", "accesses");
  if (auto issues = p.validate(); !issues.empty())
    throw UserError(config::format_issues(g_.path(), issues));
  sets_ = uint32_t(p.size / (uint64_t(p.line) * p.assoc));
  active_ways_ = p.assoc;
  index_fn_ = parse_set_index(p.index);
  global_write_ =
      p.global_write == "write_back" ? WritePolicy::write_back : WritePolicy::write_through;
  local_write_ =
      p.local_write == "write_back" ? WritePolicy::write_back : WritePolicy::write_through;
  on_fill_ = p.allocate == "on_fill";
  lines_.resize(size_t(sets_) * p.assoc);
  if (opts_.keep_data) data_.assign(lines_.size() * p.line, 0);
  mshrs_.resize(p.mshrs);
  waiters_.resize(size_t(p.mshrs) * p.mshr_merge);
  for (int32_t i = int32_t(p.mshrs) - 1; i >= 0; --i) free_mshrs_.push_back(i);
  repl_ = make_replacement(p.repl, sets_, p.assoc, p.seed);
}

Cache::~Cache() = default;

uint32_t Cache::line_units(Addr la) const {
  const uint32_t n = p_.line / kSectorBytes;
  return ((1u << n) - 1) << ((la & (kBlockBytes - 1)) / kSectorBytes);
}

uint32_t Cache::expand(uint32_t units, Addr la) const {
  if (!p_.sectored) return units ? line_units(la) : 0;
  const uint32_t per = p_.sector / kSectorBytes;  // 1, 2 or 4 block sectors per cache sector
  const uint32_t group = (1u << per) - 1;
  uint32_t out = 0;
  for (uint32_t u = 0; u < kBlockSectors; u += per)
    if (units & (group << u)) out |= group << u;
  return out & line_units(la);
}

uint32_t Cache::set_of(Addr la) const {
  return set_index(index_fn_, opts_.interleave.compact(la) / p_.line, sets_);
}

int32_t Cache::find(uint32_t set, Addr la) const {
  const int32_t base = int32_t(set * p_.assoc);
  for (uint32_t w = 0; w < p_.assoc; ++w)
    if (lines_[base + w].tag == la) return base + int32_t(w);
  return -1;
}

int32_t Cache::find_mshr(Addr la) const {
  for (size_t i = 0; i < mshrs_.size(); ++i)
    if (mshrs_[i].line == la) return int32_t(i);
  return -1;
}

int32_t Cache::choose_victim(uint32_t set, bool* dirty) const {
  const int32_t base = int32_t(set * p_.assoc);
  uint64_t candidates = 0;
  for (uint32_t w = 0; w < active_ways_; ++w) {
    const Line& l = lines_[base + w];
    if (l.mshr >= 0) continue;
    if (l.tag == kNoLine) {
      *dirty = false;
      return base + int32_t(w);
    }
    candidates |= uint64_t(1) << w;
  }
  if (!candidates) return -1;
  const int32_t slot = base + int32_t(repl_->victim(set, candidates));
  *dirty = lines_[slot].dirty != 0;
  return slot;
}

void Cache::evict(int32_t slot) {
  Line& l = lines_[slot];
  if (l.tag == kNoLine) return;
  ++evictions_;
  if (evict_obs_) evict_obs_->evicted(l.tag);
  if (l.dirty) {
    MemReq wb;
    wb.id = l.tag;
    wb.addr = l.tag;
    wb.bytes = p_.line;
    wb.sector_mask = l.dirty;
    wb.kind = AccessKind::store;
    wb.writeback = true;
    if (opts_.keep_data) {
      const uint8_t* d = line_data(slot);
      wb.data = std::make_shared<std::vector<uint8_t>>(d, d + p_.line);
    }
    miss_q_.push_back(std::move(wb));
    ++write_backs_;
  }
  l = Line{};
}

void Cache::install(int32_t slot, Addr la) {
  Line& l = lines_[slot];
  l.tag = la;
  l.valid = 0;
  l.dirty = 0;
  const uint32_t set = uint32_t(slot) / p_.assoc;
  repl_->on_insert(set, uint32_t(slot) % p_.assoc);
}

int32_t Cache::alloc_mshr(Addr la, int32_t slot) {
  const int32_t m = free_mshrs_.back();
  free_mshrs_.pop_back();
  Mshr& ms = mshrs_[m];
  ms = Mshr{};
  ms.line = la;
  ms.slot = slot;
  if (slot >= 0) lines_[slot].mshr = m;
  return m;
}

void Cache::push_fill(const MemReq& req, Addr la, uint32_t units) {
  MemReq f;
  f.id = req.id;
  f.addr = la;
  f.bytes = p_.line;
  f.sector_mask = units;
  f.kind =
      req.kind == AccessKind::store || req.kind == AccessKind::atomic ? AccessKind::load : req.kind;
  f.sm = req.sm;
  f.local = req.local;
  f.fill = true;
  f.issue_cycle = req.issue_cycle;
  f.origin = req.origin;
  miss_q_.push_back(std::move(f));
  ++fill_requests_;
}

Cache::Plan Cache::plan_for(const MemReq& req) const {
  Plan pl;
  pl.units = uint8_t(touched_sectors(req));
  SIMTLAB_ASSERT((pl.units & ~line_units(line_addr(req.addr))) == 0,
                 "a cache access must not cross a line");
  if (req.kind == AccessKind::store) {
    const WritePolicy wp = req.local ? local_write_ : global_write_;
    const bool alloc = req.local ? p_.local_write_allocate : p_.global_write_allocate;
    pl.store = true;
    pl.allocate = alloc && !(p_.honor_bypass && req.l1_bypass);
    pl.through = wp == WritePolicy::write_through;
    pl.back = !pl.through;
    pl.full = uint8_t(fully_written(req, pl.units));
    pl.need = pl.allocate ? uint8_t(pl.units & ~pl.full) : 0;
  } else if (req.kind == AccessKind::atomic) {
    pl.atomic = true;
    pl.back = true;
    pl.need = pl.units;
  } else {
    pl.need = pl.units;
  }
  return pl;
}

AccessResult Cache::fail(FailCause c) {
  ++fails_[unsigned(c) - 1];
  return {AccessStatus::reservation_fail, c};
}

void Cache::perform(MemReq& req, const Plan& pl, int32_t slot) {
  Line& l = lines_[slot];
  if (pl.store) {
    // Only the request's sectors (sector_mask) and, of those, only valid or fully written ones.
    const uint8_t writable = uint8_t((pl.allocate ? l.valid | pl.full : l.valid) & pl.units);
    if (opts_.keep_data && req.data) {
      uint8_t* d = line_data(slot);
      const uint32_t line_off = uint32_t(l.tag & (kBlockBytes - 1));
      const uint32_t off = uint32_t(req.addr & (kBlockBytes - 1));
      for (uint32_t i = 0; i < req.bytes; ++i) {
        const uint32_t b = off + i;
        if (!req.byte_mask.test(b) || !(writable >> (b / kSectorBytes) & 1)) continue;
        d[b - line_off] = (*req.data)[i];
      }
    }
    if (pl.allocate) l.valid |= pl.full;
    return;
  }
  if (!opts_.keep_data) return;
  const uint8_t* d = line_data(slot);
  const uint32_t at = uint32_t(req.addr - l.tag);
  if (pl.atomic) {
    SIMTLAB_ASSERT(req.bytes == 4 || req.bytes == 8, "checker atomics are 4 or 8 bytes");
    uint64_t old = 0;
    std::memcpy(&old, d + at, req.bytes);
    const uint64_t nv = old + req.atomic_operand;
    std::memcpy(line_data(slot) + at, &nv, req.bytes);
    req.data = std::make_shared<std::vector<uint8_t>>(req.bytes);
    std::memcpy(req.data->data(), &old, req.bytes);
    return;
  }
  req.data = std::make_shared<std::vector<uint8_t>>(d + at, d + at + req.bytes);
}

AccessResult Cache::access(const MemReq& req, uint64_t now) {
  SIMTLAB_ASSERT(now >= last_now_, "cache accessed with a decreasing cycle");
  last_now_ = now;
  const unsigned k = unsigned(req.kind);
  const bool atomic = req.kind == AccessKind::atomic;
  const bool store = req.kind == AccessKind::store;

  // Whole-request forwarding: bypassing loads, atomics performed further down.
  if ((atomic && !p_.perform_atomics) || (!store && !atomic && p_.honor_bypass && req.l1_bypass)) {
    if (!room(1)) return fail(FailCause::miss_queue_full);
    miss_q_.push_back(req);
    ++accesses_[k];
    ++bypasses_[k];
    return {AccessStatus::bypass};
  }

  const Plan pl = plan_for(req);
  const Addr la = line_addr(req.addr);
  const uint32_t set = set_of(la);
  int32_t slot = find(set, la);
  const int32_t m = slot >= 0 ? lines_[slot].mshr : (on_fill_ ? find_mshr(la) : -1);
  const uint8_t valid = slot >= 0 ? lines_[slot].valid : 0;

  // A pending MSHR on the line: merge behind it when the access overlaps what it waits for.
  if (m >= 0) {
    Mshr& ms = mshrs_[m];
    const bool conflict = (pl.units & (ms.touched | ms.requested)) != 0 || (pl.need & ~valid) != 0;
    if (conflict) {
      if (ms.n >= p_.mshr_merge) return fail(FailCause::merge_limit);
      const uint32_t fetch =
          expand(pl.need & ~valid & ~ms.requested, la) & ~uint32_t(valid | ms.requested);
      const bool forward = pl.store && (pl.through || !pl.allocate);
      if (!room((fetch ? 1 : 0) + (forward ? 1 : 0))) return fail(FailCause::miss_queue_full);
      Waiter& w = waiters_[size_t(m) * p_.mshr_merge + ms.n++];
      w.req = req;
      w.plan = pl;
      w.forwarded = forward;
      ms.touched |= pl.units;
      if (fetch) {
        push_fill(req, la, fetch);
        ms.requested |= uint8_t(fetch);
      }
      if (forward) miss_q_.push_back(req);
      ++accesses_[k];
      ++hit_reserved_[k];
      return {AccessStatus::hit_reserved};
    }
  }

  if (slot >= 0) {
    Line& l = lines_[slot];
    if ((pl.need & ~l.valid) == 0) {
      // Performs now.
      const bool forward = pl.store && (pl.through || (!pl.allocate && (pl.units & ~l.valid) != 0));
      if (forward && !room(1)) return fail(FailCause::miss_queue_full);
      const bool hit = (pl.units & ~l.valid) == 0;
      repl_->on_hit(set, uint32_t(slot) % p_.assoc);
      MemReq done = req;
      perform(done, pl, slot);
      if (pl.back && !forward) l.dirty |= pl.units;
      ++accesses_[k];
      if (hit) {
        ++hits_[k];
      } else {
        ++misses_[k];
      }
      if (forward) {
        miss_q_.push_back(std::move(done));
      } else if (!req.writeback) {
        hit_q_.push_back(Done{now + p_.hit_latency.v, std::move(done), hit});
      }
      return {hit ? AccessStatus::hit : AccessStatus::miss};
    }
    // Sector miss on a present line (need != 0 implies the access allocates).
    if (free_mshrs_.empty()) return fail(FailCause::mshr_full);
    const bool forward = pl.store && pl.through;
    if (!room(1 + (forward ? 1 : 0))) return fail(FailCause::miss_queue_full);
    repl_->on_hit(set, uint32_t(slot) % p_.assoc);
    return start_miss(req, pl, la, slot, expand(pl.need & ~l.valid, la) & ~uint32_t(l.valid),
                      forward);
  }

  // Absent line.
  if (!pl.allocate) {  // a store that does not allocate: forward it
    if (!room(1)) return fail(FailCause::miss_queue_full);
    miss_q_.push_back(req);
    ++accesses_[k];
    ++misses_[k];
    return {AccessStatus::miss};
  }
  if (pl.need == 0) {  // a store that overwrites whole sectors: allocate without a fetch
    bool victim_dirty = false;
    const int32_t v = choose_victim(set, &victim_dirty);
    if (v < 0) return fail(FailCause::set_reserved);
    if (!room((victim_dirty ? 1 : 0) + (pl.through ? 1 : 0)))
      return fail(FailCause::miss_queue_full);
    evict(v);
    install(v, la);
    MemReq done = req;
    perform(done, pl, v);
    if (pl.back) lines_[v].dirty |= pl.units;
    ++accesses_[k];
    ++misses_[k];
    if (pl.through) {
      miss_q_.push_back(std::move(done));
    } else if (!req.writeback) {
      hit_q_.push_back(Done{now + p_.hit_latency.v, std::move(done), false});
    }
    return {AccessStatus::miss};
  }
  if (free_mshrs_.empty()) return fail(FailCause::mshr_full);
  const bool forward = pl.store && pl.through;
  int32_t v = -1;
  bool victim_dirty = false;
  if (!on_fill_) {
    v = choose_victim(set, &victim_dirty);
    if (v < 0) return fail(FailCause::set_reserved);
  }
  if (!room(1 + (victim_dirty ? 1 : 0) + (forward ? 1 : 0)))
    return fail(FailCause::miss_queue_full);
  if (v >= 0) {
    evict(v);
    install(v, la);
  }
  return start_miss(req, pl, la, v, on_fill_ ? line_units(la) : expand(pl.need, la), forward);
}

AccessResult Cache::start_miss(const MemReq& req, const Plan& pl, Addr la, int32_t slot,
                               uint32_t fetch, bool forward) {
  const int32_t nm = alloc_mshr(la, slot);
  Mshr& ms = mshrs_[nm];
  ms.requested = uint8_t(fetch);
  ms.touched = pl.units;
  ms.n = 1;
  Waiter& w = waiters_[size_t(nm) * p_.mshr_merge];
  w.req = req;
  w.plan = pl;
  w.forwarded = forward;
  push_fill(req, la, fetch);
  if (forward) miss_q_.push_back(req);
  const unsigned k = unsigned(req.kind);
  ++accesses_[k];
  ++misses_[k];
  return {AccessStatus::miss};
}

void Cache::fill(const MemResp& resp, uint64_t now) {
  const MemReq& r = resp.req;
  if (!r.fill) {  // the answer to a forwarded request completes it
    if (!r.writeback) release_q_.push_back(Done{now, r, false});
    return;
  }
  const Addr la = line_addr(r.addr);
  const uint32_t set = set_of(la);
  int32_t slot = find(set, la);
  const int32_t m = slot >= 0 && lines_[slot].mshr >= 0 ? lines_[slot].mshr : find_mshr(la);
  SIMTLAB_ASSERT(m >= 0, "fill for a line without an MSHR");
  Mshr& ms = mshrs_[m];
  if (slot < 0) {  // allocate-on-fill: take the victim now
    bool dirty = false;
    slot = choose_victim(set, &dirty);
    SIMTLAB_ASSERT(slot >= 0, "allocate-on-fill found no victim");
    evict(slot);
    install(slot, la);
    lines_[slot].mshr = m;
    ms.slot = slot;
  }
  Line& l = lines_[slot];
  const uint8_t units = uint8_t(touched_sectors(r) & ms.requested);
  if (opts_.keep_data && r.data) {
    uint8_t* d = line_data(slot);
    const uint32_t line_off = uint32_t(la & (kBlockBytes - 1));
    const uint32_t src_off = uint32_t(r.addr & (kBlockBytes - 1));
    for (uint32_t u = 0; u < kBlockSectors; ++u) {
      if (!(units >> u & 1)) continue;
      std::memcpy(d + u * kSectorBytes - line_off, r.data->data() + (u * kSectorBytes - src_off),
                  kSectorBytes);
    }
  }
  l.valid |= units;
  ms.requested &= uint8_t(~units);
  ++fills_;
  release(m, now);
}

void Cache::release(int32_t m, uint64_t now) {
  Mshr& ms = mshrs_[m];
  Line& l = lines_[ms.slot];
  Waiter* w = &waiters_[size_t(m) * p_.mshr_merge];
  uint32_t done = 0;
  while (done < ms.n && (w[done].plan.need & ~l.valid) == 0) {
    Waiter& x = w[done++];
    perform(x.req, x.plan, ms.slot);
    if (x.plan.back && !x.forwarded) l.dirty |= x.plan.units;
    if (!x.forwarded && !x.req.writeback) release_q_.push_back(Done{now, std::move(x.req), false});
    x.req = MemReq{};
  }
  if (done) {
    for (uint32_t i = done; i < ms.n; ++i) w[i - done] = std::move(w[i]);
    ms.n -= done;
    ms.touched = 0;
    for (uint32_t i = 0; i < ms.n; ++i) ms.touched |= w[i].plan.units;
  }
  if (ms.n == 0 && ms.requested == 0) {
    l.mshr = -1;
    ms = Mshr{};
    free_mshrs_.push_back(m);
  }
}

uint64_t Cache::next_ready() const {
  const uint64_t a = hit_q_.empty() ? kNever : hit_q_.front().ready;
  const uint64_t b = release_q_.empty() ? kNever : release_q_.front().ready;
  return std::min(a, b);
}

MemReq Cache::pop_ready(uint64_t now, bool* hit) {
  const uint64_t a = hit_q_.empty() ? kNever : hit_q_.front().ready;
  const uint64_t b = release_q_.empty() ? kNever : release_q_.front().ready;
  SIMTLAB_ASSERT(std::min(a, b) <= now, "pop_ready with nothing ready");
  Done d = a <= b ? hit_q_.pop_front() : release_q_.pop_front();
  if (hit) *hit = d.hit;
  return std::move(d.req);
}

void Cache::flush() {
  for (size_t s = 0; s < lines_.size(); ++s) {
    Line& l = lines_[s];
    if (l.tag == kNoLine || !l.dirty) continue;
    MemReq wb;
    wb.id = l.tag;
    wb.addr = l.tag;
    wb.bytes = p_.line;
    wb.sector_mask = l.dirty;
    wb.kind = AccessKind::store;
    wb.writeback = true;
    if (opts_.keep_data) {
      const uint8_t* d = line_data(int32_t(s));
      wb.data = std::make_shared<std::vector<uint8_t>>(d, d + p_.line);
    }
    miss_q_.push_back(std::move(wb));
    ++write_backs_;
    l.dirty = 0;
  }
}

void Cache::invalidate() {
  for (Line& l : lines_)
    if (l.mshr < 0) l = Line{};
}

bool Cache::external_write(Addr a, uint32_t full_units, uint32_t touched) {
  const Addr la = line_addr(a);
  const uint32_t all = line_units(la);
  const uint32_t units = full_units & all;
  touched &= all;
  if (!touched || opts_.keep_data) return false;
  // Cache units (sectors, or the whole line when not sectored) the write covers completely.
  const uint32_t per = p_.sectored ? p_.sector / kSectorBytes : p_.line / kSectorBytes;
  const uint32_t group = (1u << per) - 1;
  uint32_t full = 0;
  for (uint32_t u = 0; u < kBlockSectors; u += per)
    if (((units >> u) & group) == group) full |= group << u;
  full &= all;
  const uint32_t set = set_of(la);
  int32_t slot = find(set, la);
  if (slot >= 0) {
    if (lines_[slot].mshr >= 0) return false;
    repl_->on_hit(set, uint32_t(slot) % p_.assoc);
  } else {
    if (!full) return false;
    bool dirty = false;
    slot = choose_victim(set, &dirty);
    if (slot < 0) return false;
    if (lines_[slot].tag != kNoLine) {
      ++evictions_;
      if (evict_obs_) evict_obs_->evicted(lines_[slot].tag);
    }
    lines_[slot] = Line{};
    install(slot, la);
  }
  Line& l = lines_[slot];
  const uint32_t partial = expand(touched, la) & ~full & l.valid;
  l.valid |= full;
  if (global_write_ == WritePolicy::write_back) l.dirty |= full | partial;
  ++external_writes_;
  return true;
}

void Cache::set_active_ways(uint32_t n) {
  SIMTLAB_ASSERT(n >= 1 && n <= p_.assoc, "set_active_ways outside [1, assoc]");
  SIMTLAB_ASSERT(idle(), "set_active_ways on a busy cache");
  for (size_t i = 0; i < lines_.size(); ++i)
    if (i % p_.assoc >= n)
      SIMTLAB_ASSERT(lines_[i].tag == kNoLine, "set_active_ways: ways hold lines");
  active_ways_ = n;
}

bool Cache::idle() const {
  return free_mshrs_.size() == p_.mshrs && miss_q_.empty() && hit_q_.empty() && release_q_.empty();
}

uint32_t Cache::valid_sectors(Addr a) const {
  const Addr la = line_addr(a);
  const int32_t s = find(set_of(la), la);
  return s >= 0 ? lines_[s].valid : 0;
}

uint32_t Cache::dirty_sectors(Addr a) const {
  const Addr la = line_addr(a);
  const int32_t s = find(set_of(la), la);
  return s >= 0 ? lines_[s].dirty : 0;
}

}  // namespace simtlab::timing
