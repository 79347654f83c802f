// MemorySystem: the random-traffic checker and determinism.
//
// Fifteen fake SMs issue random loads, stores and atomics through the whole memory system
// (crossbar, L2 slices, atomic units, DRAM) with data carried in MemReq::data (checker mode),
// each with its own L1 (Cache, checker mode) in front of its private regions:
//   - private global region (64 KB per SM): L1-cached loads, write-through stores with partial
//     byte masks; every load must return exactly the SM's shadow copy at issue time;
//   - private local region (32 KB per SM): write-back, write-allocate in L1; same check;
//   - shared atomic counters (256): fetch-and-add, L1-less; the old values every counter
//     returned must form one chain 0, +op, +op ... (nothing lost, nothing applied twice), and
//     one SM's atomics to a counter see increasing values in its program order;
//   - shared single-writer words (16 per SM): the owner stores increasing sequence numbers,
//     everyone loads L1-less; the owner must read its latest store, and every reader's loads of
//     a word (in its issue order) must see non-decreasing sequence numbers (coherence).
// Every request must be answered exactly once (nothing lost, nothing duplicated).
#include "timing/mem/memory_system.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <tuple>
#include <unordered_map>

#include "config/config.h"
#include "stats/formula.h"
#include "stats/snapshot.h"
#include "stats/writers.h"
#include "timing/mem/cache.h"

namespace simtlab::timing {
namespace {

CacheOptions with_data() {
  CacheOptions o;
  o.keep_data = true;
  return o;
}

constexpr Addr kPrivBase = 0x1000'0000;
constexpr Addr kPrivSize = 64 << 10;
constexpr Addr kLocalBase = 0x2000'0000;
constexpr Addr kLocalSize = 32 << 10;
constexpr Addr kAtomBase = 0x3000'0000;
constexpr uint32_t kCounters = 256;
constexpr Addr kCounterStride = 200;
constexpr Addr kWordBase = 0x4000'0000;
constexpr uint32_t kWordsPerSm = 16;
constexpr Addr kWordStride = 136;
constexpr size_t kMaxOutstanding = 32;

enum class Op : uint8_t {
  priv_load,
  priv_store,
  local_load,
  local_store,
  atomic,
  word_store,
  word_load
};

uint64_t le64(const std::vector<uint8_t>& v) {
  uint64_t x = 0;
  std::memcpy(&x, v.data(), 8);
  return x;
}

/// What every SM shares: the checks that span SMs.
struct Checker {
  explicit Checker(uint32_t sms) : owner_seq(sms, std::vector<uint64_t>(kWordsPerSm, 0)) {}
  struct AtomicDone {
    uint64_t old;
    uint64_t op;
    uint32_t sm;
    uint64_t issue;
  };
  struct WordRead {
    uint32_t reader;
    uint32_t word;  // owner * kWordsPerSm + k
    uint64_t issue;
    uint64_t value;
  };
  std::vector<std::vector<uint64_t>> owner_seq;
  std::map<uint32_t, std::vector<AtomicDone>> atomics;
  std::vector<WordRead> word_reads;
  uint64_t failures = 0;
  uint64_t issued = 0;
  uint64_t completed = 0;

  void fail(const std::string& what) {
    if (++failures <= 10) ADD_FAILURE() << what;
  }
};

class FakeSm : public sim::Component {
 public:
  FakeSm(uint32_t id, MemorySystem& ms, Checker& chk, uint64_t requests, uint64_t seed,
         const CacheParams& l1, stats::Group& parent)
      : sim::Component("sm" + std::to_string(id)),
        id_(id),
        ms_(ms),
        chk_(chk),
        todo_(requests),
        rng_(seed * 1000003 + id),
        g_("sm[" + std::to_string(id) + "]", &parent),
        l1_("l1d", l1, g_, with_data()),
        priv_(kPrivSize, 0),
        local_(kLocalSize, 0) {}

  bool finished() const { return todo_ == 0 && !pending_ && out_.empty() && l1_.idle(); }

  bool tick() override {
    const uint64_t now = cycle();
    bool progress = false;
    while (ms_.peek(id_)) {
      MemResp r = ms_.pop(id_);
      if (in_l1_region(r.req.addr)) {
        l1_.fill(r, now);
      } else {
        complete(r.req);
      }
      progress = true;
    }
    while (l1_.has_ready(now)) {
      complete(l1_.pop_ready(now));
      progress = true;
    }
    bool injected = false;
    if (l1_.has_miss() && ms_.can_send(id_)) {
      ms_.send(id_, l1_.pop_miss());
      injected = true;
      progress = true;
    }
    if (!pending_ && todo_ > 0 && out_.size() < kMaxOutstanding) generate();
    if (pending_) progress |= try_issue(now, injected);
    if (finished()) sleep();
    return progress;
  }

 private:
  struct Outstanding {
    Op op;
    uint32_t target = 0;          // counter or word index
    uint64_t issue = 0;           // issue index (program order)
    std::vector<uint8_t> expect;  // exact data expected (loads)
    uint64_t operand = 0;
  };

  static bool in_l1_region(Addr a) { return a >= kPrivBase && a < kAtomBase; }
  Addr priv_base() const { return kPrivBase + id_ * kPrivSize; }
  Addr local_base() const { return kLocalBase + id_ * kLocalSize; }
  uint64_t rnd(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }

  void generate() {
    MemReq r;
    r.id = (uint64_t(id_) << 40) | ++seq_;
    Outstanding o;
    const uint64_t pick = rnd(100);
    o.op = pick < 30   ? Op::priv_load
           : pick < 50 ? Op::priv_store
           : pick < 60 ? Op::local_load
           : pick < 72 ? Op::local_store
           : pick < 84 ? Op::atomic
           : pick < 90 ? Op::word_store
                       : Op::word_load;
    const uint32_t sizes[] = {32, 64, 128};
    switch (o.op) {
      case Op::priv_load:
      case Op::local_load:
      case Op::priv_store:
      case Op::local_store: {
        const bool local = o.op == Op::local_load || o.op == Op::local_store;
        const bool st = o.op == Op::priv_store || o.op == Op::local_store;
        r.bytes = sizes[rnd(3)];
        const Addr size = local ? kLocalSize : kPrivSize;
        r.addr = (local ? local_base() : priv_base()) + rnd(size / r.bytes) * r.bytes;
        r.local = local;
        r.kind = st ? AccessKind::store : AccessKind::load;
        if (st) {
          r.l1_bypass = !local;  // global stores skip L1 allocation (request.h)
          r.data = std::make_shared<std::vector<uint8_t>>(r.bytes);
          for (auto& b : *r.data) b = uint8_t(rnd(256));
          if (rnd(2)) {  // partial: a random subset of bytes
            r.byte_mask = ByteMask::none();
            const uint32_t off = uint32_t(r.addr & (kBlockBytes - 1));
            for (uint32_t i = 0; i < r.bytes; ++i) r.byte_mask.set(off + i, rnd(3) != 0);
          }
        }
        break;
      }
      case Op::atomic:
        o.target = uint32_t(rnd(kCounters));
        r.kind = AccessKind::atomic;
        r.addr = kAtomBase + o.target * kCounterStride;
        r.bytes = 8;
        o.operand = 1 + rnd(1000);
        r.atomic_operand = o.operand;
        break;
      case Op::word_store:
        o.target = id_ * kWordsPerSm + uint32_t(rnd(kWordsPerSm));
        r.kind = AccessKind::store;
        r.l1_bypass = true;
        r.addr = kWordBase + o.target * kWordStride;
        r.bytes = 8;
        r.data = std::make_shared<std::vector<uint8_t>>(8);
        r.byte_mask = ByteMask::none();
        for (uint32_t i = 0; i < 8; ++i) r.byte_mask.set(uint32_t(r.addr & 127) + i, true);
        break;
      case Op::word_load:
        o.target = uint32_t(rnd(chk_.owner_seq.size() * kWordsPerSm));
        r.kind = AccessKind::load;
        r.l1_bypass = true;
        r.addr = kWordBase + o.target * kWordStride;
        r.bytes = 8;
        break;
    }
    pending_ = std::move(r);
    pending_op_ = std::move(o);
    --todo_;
  }

  std::vector<uint8_t>& shadow_of(Addr a, Addr* off) {
    if (a >= kLocalBase) {
      *off = a - local_base();
      return local_;
    }
    *off = a - priv_base();
    return priv_;
  }

  /// Records the request as issued now (the moment it is accepted): loads capture their
  /// expected value, stores update the shadow.
  void record(Outstanding o) {
    MemReq& r = *pending_;
    o.issue = ++issue_index_;
    switch (o.op) {
      case Op::priv_load:
      case Op::local_load: {
        Addr off = 0;
        auto& sh = shadow_of(r.addr, &off);
        o.expect.assign(sh.begin() + off, sh.begin() + off + r.bytes);
        break;
      }
      case Op::priv_store:
      case Op::local_store: {
        Addr off = 0;
        auto& sh = shadow_of(r.addr, &off);
        const uint32_t boff = uint32_t(r.addr & (kBlockBytes - 1));
        for (uint32_t i = 0; i < r.bytes; ++i)
          if (r.byte_mask.test(boff + i)) sh[off + i] = (*r.data)[i];
        break;
      }
      case Op::word_store: {
        const uint64_t seq = ++chk_.owner_seq[id_][o.target % kWordsPerSm];
        const uint64_t v = (uint64_t(id_ + 1) << 32) | seq;
        std::memcpy(r.data->data(), &v, 8);
        break;
      }
      case Op::word_load:
        if (o.target / kWordsPerSm == id_) {  // own word: must see the latest own store
          const uint64_t seq = chk_.owner_seq[id_][o.target % kWordsPerSm];
          const uint64_t v = seq ? ((uint64_t(id_ + 1) << 32) | seq) : 0;
          o.expect.resize(8);
          std::memcpy(o.expect.data(), &v, 8);
        }
        break;
      case Op::atomic:
        break;
    }
    ++chk_.issued;
    out_.emplace(r.id, std::move(o));
  }

  bool try_issue(uint64_t now, bool injected) {
    MemReq& r = *pending_;
    if (in_l1_region(r.addr)) {
      if (!l1_.access(r, now).accepted()) return false;
    } else {
      if (injected || !ms_.can_send(id_)) return false;
      ms_.send(id_, r);
    }
    record(std::move(pending_op_));
    pending_.reset();
    return true;
  }

  void complete(const MemReq& r) {
    auto it = out_.find(r.id);
    if (it == out_.end()) {
      chk_.fail("sm" + std::to_string(id_) + ": unexpected or duplicate response id " +
                std::to_string(r.id));
      return;
    }
    Outstanding o = std::move(it->second);
    out_.erase(it);
    ++chk_.completed;
    switch (o.op) {
      case Op::priv_load:
      case Op::local_load:
        if (!r.data || *r.data != o.expect) {
          std::string diff;
          for (size_t i = 0; r.data && i < o.expect.size(); ++i)
            if ((*r.data)[i] != o.expect[i])
              diff += fmt::format(" {}:{:02x}/{:02x}", i, (*r.data)[i], o.expect[i]);
          chk_.fail("sm" + std::to_string(id_) + ": stale or wrong data for load at 0x" +
                    fmt::format("{:x}", r.addr) + " (" + std::to_string(r.bytes) + " B) issue " +
                    std::to_string(o.issue) + diff.substr(0, 200));
        }
        break;
      case Op::atomic: {
        if (!r.data || r.data->size() != 8) {
          chk_.fail("atomic without data");
          break;
        }
        chk_.atomics[o.target].push_back({le64(*r.data), o.operand, id_, o.issue});
        break;
      }
      case Op::word_load: {
        if (!r.data || r.data->size() != 8) {
          chk_.fail("word load without data");
          break;
        }
        const uint64_t v = le64(*r.data);
        if (!o.expect.empty() && *r.data != o.expect)
          chk_.fail("sm" + std::to_string(id_) + ": did not read its own latest store");
        const uint32_t owner = o.target / kWordsPerSm;
        if (v != 0 && ((v >> 32) != owner + 1 ||
                       (v & 0xffffffffu) > chk_.owner_seq[owner][o.target % kWordsPerSm]))
          chk_.fail("word load returned a value nobody stored");
        chk_.word_reads.push_back({id_, o.target, o.issue, v & 0xffffffffu});
        break;
      }
      default:
        break;
    }
  }

  uint32_t id_;
  MemorySystem& ms_;
  Checker& chk_;
  uint64_t todo_;
  std::mt19937_64 rng_;
  stats::Group g_;
  Cache l1_;
  std::vector<uint8_t> priv_;
  std::vector<uint8_t> local_;
  std::optional<MemReq> pending_;
  Outstanding pending_op_;
  std::unordered_map<uint64_t, Outstanding> out_;
  uint64_t seq_ = 0;
  uint64_t issue_index_ = 0;
};

struct RunResult {
  uint64_t core_cycles = 0;
  std::string stats_json;
  stats::Snapshot snap;
};

RunResult run_traffic(const MemoryParams& p, uint32_t sms, uint64_t per_sm, uint64_t seed,
                      const CacheParams& l1 = CacheParams{}) {
  sim::Simulation sim;
  sim::ClockDomain& core = sim.add_domain("core", 700.0);
  sim::ClockDomain& icnt = sim.add_domain("icnt", 700.0);
  sim::ClockDomain& l2 = sim.add_domain("l2", 700.0);
  sim::ClockDomain& dram = sim.add_domain("dram", 924.0);
  stats::Group root("gpu");
  Checker chk(sms);
  MemorySystem ms(p, sim, MemoryDomains{icnt, l2, dram}, sms, root,
                  MemoryOptions{.keep_data = true});
  std::vector<std::unique_ptr<FakeSm>> fake;
  for (uint32_t i = 0; i < sms; ++i) {
    fake.push_back(std::make_unique<FakeSm>(i, ms, chk, per_sm, seed, l1, root));
    sim.add(*fake.back(), core);
    ms.attach_sm(i, *fake.back());
  }
  sim.run(
      [&] {
        for (const auto& f : fake)
          if (!f->finished()) return false;
        return ms.idle();
      },
      200000);
  EXPECT_EQ(chk.failures, 0u);
  EXPECT_EQ(chk.issued, sms * per_sm);
  EXPECT_EQ(chk.completed, chk.issued);  // nothing lost (duplicates were failures above)
  // Atomics: one SM's atomics to a counter see increasing values in its issue order, and per
  // counter the old values form one chain from 0.
  for (auto& [counter, v] : chk.atomics) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return std::tie(a.sm, a.issue) < std::tie(b.sm, b.issue);
    });
    for (size_t i = 1; i < v.size(); ++i)
      if (v[i].sm == v[i - 1].sm && v[i].old <= v[i - 1].old)
        ADD_FAILURE() << "counter " << counter << ": sm" << v[i].sm << "'s atomics out of order";
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.old < b.old; });
    uint64_t expect = 0;
    for (const auto& a : v) {
      if (a.old != expect) {
        ADD_FAILURE() << "counter " << counter << ": chain broken at " << expect << " (got "
                      << a.old << ")";
        break;
      }
      expect += a.op;
    }
  }
  // Single-writer words: each reader's loads of a word are non-decreasing in issue order.
  std::sort(chk.word_reads.begin(), chk.word_reads.end(), [](const auto& a, const auto& b) {
    return std::tie(a.reader, a.word, a.issue) < std::tie(b.reader, b.word, b.issue);
  });
  for (size_t i = 1; i < chk.word_reads.size(); ++i) {
    const auto& a = chk.word_reads[i - 1];
    const auto& b = chk.word_reads[i];
    if (a.reader == b.reader && a.word == b.word && b.value < a.value) {
      ADD_FAILURE() << "sm" << b.reader << " saw word " << b.word << " go back from " << a.value
                    << " to " << b.value;
      break;
    }
  }
  ms.update_stats();
  stats::check_formulas(root);
  RunResult r;
  r.core_cycles = core.cycle();
  r.snap = stats::snapshot(root);
  r.stats_json = stats::to_json(root, r.snap).dump();
  return r;
}

uint64_t total(const stats::Snapshot& s, const std::string& suffix) {
  uint64_t t = 0;
  for (const auto& [path, v] : s.values) {
    if (path.size() < suffix.size() ||
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    if (const auto* c = std::get_if<uint64_t>(&v)) t += *c;
    if (const auto* vec = std::get_if<std::vector<uint64_t>>(&v))
      for (uint64_t x : *vec) t += x;
  }
  return t;
}

TEST(MemorySystem, RandomTrafficCheckerDefaultConfig) {
  const RunResult r = run_traffic(MemoryParams{}, 15, 6700, 1);  // ~100k requests
  EXPECT_GT(total(r.snap, ".dram_requests"), 0u);
  EXPECT_GT(total(r.snap, ".row_hits"), 0u);
  EXPECT_GT(total(r.snap, ".atomics"), 0u);
  EXPECT_GT(total(r.snap, "l1d.write_backs"), 0u);
  RecordProperty("core_cycles", std::to_string(r.core_cycles));
}

TEST(MemorySystem, RandomTrafficCheckerTinyL2) {
  // A 2 KB, 4-way L2 slice and FCFS: constant evictions, write-backs, MSHR and set pressure.
  MemoryParams p;
  p.l2.slice.size = 2048;
  p.l2.slice.assoc = 4;
  p.l2.slice.mshrs = 8;
  p.l2.slice.mshr_merge = 2;
  p.dram.scheduler = "fcfs";
  p.map.hash = "xor";
  const RunResult r = run_traffic(p, 15, 2000, 2);
  EXPECT_GT(total(r.snap, "].write_backs"), 0u);
  EXPECT_GT(total(r.snap, ".reservation_fails"), 0u);
}

TEST(MemorySystem, RandomTrafficCheckerAlternatePolicies) {
  // Non-sectored allocate-on-fill L2 with random replacement, GDDR3 timings, four channels
  // of one slice each with 1 KB interleaving; a sectored L1 with FIFO replacement.
  MemoryParams p;
  p.map.channels = 4;
  p.map.sub_partitions = 1;
  p.map.interleave = 1024;
  p.l2.slice.size = 8192;
  p.l2.slice.assoc = 8;
  p.l2.slice.sectored = false;
  p.l2.slice.allocate = "on_fill";
  p.l2.slice.repl = "random";
  p.l2.atomic_latency = Cycle(4);
  p.dram.timing = "gddr3_thesis";
  p.dram.tFAW = 20;
  p.dram.tREFI = 2000;
  p.dram.tRFC = 60;
  CacheParams l1;
  l1.sectored = true;
  l1.repl = "fifo";
  l1.index = "linear";
  const RunResult r = run_traffic(p, 8, 3000, 5, l1);
  EXPECT_GT(total(r.snap, ".refreshes"), 0u);
  EXPECT_GT(total(r.snap, "].evictions"), 0u);
}

TEST(MemorySystem, SameInputsGiveIdenticalCyclesAndStats) {
  const RunResult a = run_traffic(MemoryParams{}, 4, 1500, 3);
  const RunResult b = run_traffic(MemoryParams{}, 4, 1500, 3);
  EXPECT_EQ(a.core_cycles, b.core_cycles);
  EXPECT_EQ(a.stats_json, b.stats_json);
  const RunResult c = run_traffic(MemoryParams{}, 4, 1500, 4);
  EXPECT_NE(a.stats_json, c.stats_json);
}

// cudaMemcpy/cudaMemset writes reach the L2 slice each block maps to; off, they leave no trace.
TEST(MemorySystem, CopyEngineWritesFillTheL2SliceOfEachBlock) {
  for (bool on : {true, false}) {
    SCOPED_TRACE(on);
    sim::Simulation sim;
    sim::ClockDomain& icnt = sim.add_domain("icnt", 700.0);
    sim::ClockDomain& l2 = sim.add_domain("l2", 700.0);
    sim::ClockDomain& dram = sim.add_domain("dram", 924.0);
    stats::Group root("gpu");
    MemoryParams p;
    p.l2.memcpy_fills = on;
    MemorySystem ms(p, sim, MemoryDomains{icnt, l2, dram}, 1, root);
    const AddressMap& map = ms.address_map();
    auto slice = [&](Addr a) -> Cache& {
      const uint32_t s = map.slice(a);
      return ms.partition(s / map.sub_partitions()).slice(s % map.sub_partitions());
    };
    // 0x10010 .. 0x10810: the first block from byte 16 (sectors 1-3 complete), 15 whole
    // blocks, the last block's first 16 bytes (no complete sector: not installed).
    ms.copy_engine_write(0x10010, 0x800);
    EXPECT_EQ(slice(0x10000).valid_sectors(0x10000), on ? 0b1110u : 0u);
    for (Addr b = 0x10080; b < 0x10800; b += 128) {
      EXPECT_EQ(slice(b).valid_sectors(b), on ? 0b1111u : 0u) << b;
      EXPECT_EQ(slice(b).dirty_sectors(b), on ? 0b1111u : 0u) << b;
    }
    EXPECT_EQ(slice(0x10800).valid_sectors(0x10800), 0u);
    EXPECT_EQ(total(stats::snapshot(root), "external_writes"), on ? 16u : 0u);
  }
}

TEST(MemorySystem, ParamsHaveSchemaDefaultsAndSources) {
  config::Schema s = config::schema_of<MemoryParams>();
  config::Config cfg = config::Config::defaults(s);
  MemoryParams p = config::load<MemoryParams>(cfg);
  EXPECT_EQ(p.l2.slice.size, 49152u);
  EXPECT_EQ(p.l2.slice.assoc, 16u);
  EXPECT_EQ(p.map.channels, 8u);
  EXPECT_EQ(p.dram.scheduler, "frfcfs");
  EXPECT_EQ(p.l2.rop_latency.v, 120u);
  for (const char* key : {"l2.slice.size", "dram.timing", "icnt.flit_size", "map.interleave"})
    EXPECT_FALSE(cfg.source_of(key).empty()) << key;
  // 768 KB of L2 in total.
  EXPECT_EQ(uint64_t(p.l2.slice.size) * p.map.channels * p.map.sub_partitions, 768u << 10);
}

TEST(MemorySystem, InconsistentParamsAreUserErrors) {
  sim::Simulation sim;
  auto& d = sim.add_domain("x", 700.0);
  stats::Group root("gpu");
  MemoryParams p;
  p.dram.banks = 8;  // the layout encodes 16
  EXPECT_THROW(MemorySystem(p, sim, MemoryDomains{d, d, d}, 1, root), UserError);
}

// Sends scripted requests (each at a core cycle, or as soon as the port takes it) and records
// the core cycle each answer arrived.
class Probe : public sim::Component {
 public:
  Probe(uint32_t id, MemorySystem& ms)
      : sim::Component("probe" + std::to_string(id)), id_(id), ms_(ms) {}
  void add(uint64_t at, MemReq r) { todo_.push_back({at, std::move(r)}); }
  bool tick() override {  // never sleeps; progress only when something moved (watchdog)
    bool progress = false;
    while (ms_.peek(id_)) {
      const MemResp r = ms_.pop(id_);
      ++answers_[r.req.id];
      arrived_[r.req.id] = cycle();
      progress = true;
    }
    if (next_ < todo_.size() && todo_[next_].first <= cycle() && ms_.can_send(id_)) {
      sent_[todo_[next_].second.id] = cycle();
      ms_.send(id_, todo_[next_].second);
      ++next_;
      progress = true;
    }
    return progress;
  }
  bool done() const {
    size_t want = 0;
    for (const auto& [at, r] : todo_) want += r.writeback ? 0 : 1;
    return next_ == todo_.size() && arrived_.size() == want;
  }
  uint64_t latency(uint64_t id) const { return arrived_.at(id) - sent_.at(id); }
  std::map<uint64_t, uint32_t> answers_;

 private:
  uint32_t id_;
  MemorySystem& ms_;
  std::vector<std::pair<uint64_t, MemReq>> todo_;
  size_t next_ = 0;
  std::map<uint64_t, uint64_t> sent_, arrived_;
};

MemReq load_of(uint64_t id, Addr a) {
  MemReq r;
  r.id = id;
  r.addr = a;
  r.bytes = 32;
  r.fill = true;  // an L1 line fetch, as SMs send them
  return r;
}

struct TwoPartitionRun {
  std::map<uint64_t, uint64_t> latency;
  stats::Snapshot snap;
};

// Two SMs (SM 0 in partition 0, SM 1 in partition 1) and the scripted requests of each.
TwoPartitionRun run_two_partitions(
    const MemoryParams& p, const std::vector<std::tuple<uint32_t, uint64_t, MemReq>>& script) {
  sim::Simulation sim;
  sim::ClockDomain& core = sim.add_domain("core", 1000.0);
  sim::ClockDomain& icnt = sim.add_domain("icnt", 1000.0);
  sim::ClockDomain& l2 = sim.add_domain("l2", 1000.0);
  sim::ClockDomain& dram = sim.add_domain("dram", 1000.0);
  stats::Group root("gpu");
  MemorySystem ms(p, sim, MemoryDomains{icnt, l2, dram}, 2, root);
  Probe a(0, ms), b(1, ms);
  sim.add(a, core);
  sim.add(b, core);
  ms.attach_sm(0, a);
  ms.attach_sm(1, b);
  for (const auto& [sm, at, r] : script) (sm ? b : a).add(at, r);
  try {
    sim.run([&] { return a.done() && b.done() && ms.idle(); }, 100000);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
    for (const auto& [sm, at, r] : script)
      if (!(sm ? b : a).answers_.count(r.id)) ADD_FAILURE() << "request " << r.id << " unanswered";
  }
  TwoPartitionRun out;
  for (const auto& [sm, at, r] : script) {
    if (r.writeback) continue;
    EXPECT_EQ((sm ? b : a).answers_.at(r.id), 1u) << "request " << r.id;
    out.latency[r.id] = (sm ? b : a).latency(r.id);
  }
  ms.update_stats();
  out.snap = stats::snapshot(root);
  return out;
}

// A100/H100-style L2 partitions: SM 0 reads lines homed in its own partition (N) and in the
// other (F). Exact relations:
//   - a near hit costs the same whether the line is homed here or is a near copy of a far line;
//   - a far hit (near copy missing, home slice holding the line) costs the near hit plus two
//     link crossings, so changing the link latency by d changes it by exactly 2d;
//   - stores to far lines are relayed to the home slice (one link round trip more than a
//     near store), and the counters say what crossed.
TEST(MemorySystem, TwoL2PartitionsKeepNearCopiesOfFarLines) {
  MemoryParams p;
  p.map.channels = 4;
  p.l2.partitions = 2;
  const AddressMap map(p.map);
  Addr near_line = 0, far_a = 0, far_b = 0;
  for (Addr a = 0x100000; !far_b; a += 128) {
    const bool home0 = map.channel(a) < 2;
    if (home0 && !near_line)
      near_line = a;
    else if (!home0 && !far_a)
      far_a = a;
    else if (!home0 && far_a && a != far_a)
      far_b = a;
  }
  auto run = [&](uint64_t link) {
    MemoryParams q = p;
    q.l2.partition_link_latency = Cycle(link);
    MemReq st;
    st.id = 8;
    st.addr = far_b + 64;
    st.kind = AccessKind::store;
    MemReq st_near = st;
    st_near.id = 9;
    st_near.addr = near_line + 64;
    return run_two_partitions(
        q, {{0, 0, load_of(1, near_line)},     // cold
            {0, 3000, load_of(2, near_line)},  // near hit (line homed here)
            {0, 6000, load_of(3, far_a)},      // cold: near miss, home miss, DRAM
            {0, 9000, load_of(4, far_a)},      // near hit (near copy)
            {1, 12000, load_of(5, far_b)},     // SM 1 brings far_b into its (home) slice
            {0, 15000, load_of(6, far_b)},     // far hit: near miss, home hit
            {1, 18000, load_of(7, far_a)},     // SM 1: home hit on its near line
            {0, 21000, st},                    // store to a far line: relayed
            {0, 24000, st_near}});             // store to a near line
  };
  const TwoPartitionRun r10 = run(10), r30 = run(30);
  const uint64_t hit = r10.latency.at(2);
  EXPECT_EQ(r10.latency.at(4), hit);
  EXPECT_EQ(r10.latency.at(7), hit);
  EXPECT_EQ(r30.latency.at(2), hit);
  EXPECT_EQ(r30.latency.at(6) - r10.latency.at(6), 2u * 20u);
  // Plus 2 fixed cycles: the home slice's 1-cycle lookup and the near slice's fill.
  EXPECT_EQ(r10.latency.at(6) - hit, 2u * 10u + 2u);
  EXPECT_EQ(r30.latency.at(3) - r10.latency.at(3), 2u * 20u);
  EXPECT_EQ(r30.latency.at(8) - r10.latency.at(8), 2u * 20u);
  EXPECT_EQ(r10.latency.at(9), r30.latency.at(9));
  const auto sum = [&](const char* suffix) { return total(r10.snap, suffix); };
  EXPECT_EQ(sum(".far_reads"), 2u);   // the misses of loads 3 and 6
  EXPECT_EQ(sum(".far_writes"), 1u);  // store 8
  EXPECT_EQ(sum(".peer_served"), 3u);
  // One partition (the default): no link, no counters.
  const TwoPartitionRun one = run_two_partitions(MemoryParams{}, {{0, 0, load_of(1, far_a)}});
  EXPECT_EQ(total(one.snap, ".far_reads"), 0u);
  for (const auto& [path, v] : one.snap.values)
    EXPECT_EQ(path.find("far_reads"), std::string::npos);
}

// Random loads, stores and atomics from four SMs over two partitions: every request is
// answered exactly once and the system drains.
TEST(MemorySystem, TwoL2PartitionsAnswerEveryRequestOnce) {
  MemoryParams p;
  p.map.channels = 4;
  p.l2.partitions = 2;
  p.l2.partition_link_latency = Cycle(7);
  p.l2.partition_link_queue = 4;  // back-pressure on the link
  p.l2.slice.size = 4096;         // evictions of near copies
  p.l2.slice.assoc = 4;
  sim::Simulation sim;
  sim::ClockDomain& core = sim.add_domain("core", 1000.0);
  sim::ClockDomain& d = sim.add_domain("mem", 1000.0);
  stats::Group root("gpu");
  MemorySystem ms(p, sim, MemoryDomains{d, d, d}, 4, root);
  std::vector<std::unique_ptr<Probe>> probes;
  std::mt19937_64 rng(11);
  for (uint32_t i = 0; i < 4; ++i) {
    probes.push_back(std::make_unique<Probe>(i, ms));
    sim.add(*probes.back(), core);
    ms.attach_sm(i, *probes.back());
    for (uint64_t k = 0; k < 400; ++k) {
      MemReq r = load_of((uint64_t(i) << 32) | k, 0x200000 + (rng() % 512) * 32);
      const uint64_t kind = rng() % 10;
      if (kind >= 7) {
        r.fill = false;
        r.kind = kind == 9 ? AccessKind::atomic : AccessKind::store;
      }
      probes.back()->add(k * 3, r);
    }
  }
  sim.run(
      [&] {
        for (const auto& pr : probes)
          if (!pr->done()) return false;
        return ms.idle();
      },
      20000);
  for (const auto& pr : probes) {
    EXPECT_TRUE(pr->done());
    EXPECT_EQ(pr->answers_.size(), 400u);
    for (const auto& [id, n] : pr->answers_) EXPECT_EQ(n, 1u) << id;
  }
  ms.update_stats();
  const stats::Snapshot snap = stats::snapshot(root);
  EXPECT_GT(total(snap, ".far_reads"), 0u);
  EXPECT_GT(total(snap, ".far_writes"), 0u);
  EXPECT_GT(total(snap, ".link_stalls"), 0u);
}

TEST(MemorySystem, TwoL2PartitionsNeedEvenChannelsAndNoChecker) {
  sim::Simulation sim;
  auto& d = sim.add_domain("x", 700.0);
  stats::Group root("gpu");
  MemoryParams p;
  p.l2.partitions = 2;
  p.map.channels = 3;
  p.map.hash = "none";
  EXPECT_THROW(MemorySystem(p, sim, MemoryDomains{d, d, d}, 2, root), UserError);
  p.map.channels = 4;
  EXPECT_THROW(MemorySystem(p, sim, MemoryDomains{d, d, d}, 1, root), UserError);
  EXPECT_THROW(
      MemorySystem(p, sim, MemoryDomains{d, d, d}, 2, root, MemoryOptions{.keep_data = true}),
      UserError);
}

}  // namespace
}  // namespace simtlab::timing
