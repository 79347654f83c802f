// Cache: exact-cycle behaviour of the generic set-associative cache against a mock next level
// (the test pops miss requests and calls fill() itself).
#include "timing/mem/cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <optional>
#include <random>

#include "config/config.h"
#include "stats/formula.h"
#include "stats/snapshot.h"
#include "timing/mem/set_index.h"

namespace simtlab::timing {
namespace {

CacheOptions with_data() {
  CacheOptions o;
  o.keep_data = true;
  return o;
}

/// An L2-slice-like cache: sectored, write-back, write-allocate, 16 KB.
CacheParams l2_like() {
  CacheParams p;
  p.size = 16384;
  p.assoc = 16;
  p.sectored = true;
  p.index = "linear";
  p.global_write = "write_back";
  p.global_write_allocate = true;
  p.mshr_merge = 4;
  p.miss_queue = 4;
  p.hit_latency = Cycle(1);
  return p;
}

/// A small, easy-to-reason-about cache: 4 sets x 2 ways x 128 B, hit latency 4.
CacheParams small_params() {
  CacheParams p;
  p.size = 4 * 2 * 128;
  p.assoc = 2;
  p.line = 128;
  p.index = "linear";
  p.hit_latency = Cycle(4);
  p.mshrs = 4;
  p.mshr_merge = 4;
  p.miss_queue = 8;
  return p;
}

MemReq load(uint64_t id, Addr a, uint32_t bytes = 32) {
  MemReq r;
  r.id = id;
  r.addr = a;
  r.bytes = bytes;
  r.kind = AccessKind::load;
  return r;
}

MemReq store(uint64_t id, Addr a, uint32_t bytes, uint8_t fill_byte, bool local = false) {
  MemReq r;
  r.id = id;
  r.addr = a;
  r.bytes = bytes;
  r.kind = AccessKind::store;
  r.local = local;
  r.data = std::make_shared<std::vector<uint8_t>>(bytes, fill_byte);
  return r;
}

/// Answers a fill request: bytes [addr, addr+bytes) all equal to `v`.
MemResp answer(const MemReq& req, uint8_t v = 0) {
  MemResp r{req, 0};
  r.req.data = std::make_shared<std::vector<uint8_t>>(req.bytes, v);
  return r;
}

class CacheTest : public ::testing::Test {
 protected:
  stats::Group root_{""};
  uint64_t stat(const Cache& c, const char* name, AccessKind k) {
    return stats::snapshot(root_).vector(c.stats().path_of(name))[unsigned(k)];
  }
  uint64_t fails(const Cache& c, FailCause f) {
    return stats::snapshot(root_).vector(c.stats().path_of("reservation_fails"))[unsigned(f) - 1];
  }
  /// Brings line `a` into the cache at cycle `now` via a miss and an immediate fill.
  void warm(Cache& c, Addr a, uint64_t now) {
    ASSERT_EQ(c.access(load(999, a), now).status, AccessStatus::miss);
    MemReq f = c.pop_miss();
    c.fill(answer(f), now);
    ASSERT_TRUE(c.has_ready(now));
    c.pop_ready(now);
  }
};

TEST_F(CacheTest, HitReturnsInExactlyHitLatency) {
  Cache c("l1d", small_params(), root_);
  warm(c, 0x1000, 0);
  EXPECT_EQ(c.access(load(1, 0x1000), 20).status, AccessStatus::hit);
  EXPECT_FALSE(c.has_ready(23));
  EXPECT_TRUE(c.has_ready(24));
  EXPECT_EQ(c.next_ready(), 24u);
  bool hit = false;
  MemReq r = c.pop_ready(24, &hit);
  EXPECT_EQ(r.id, 1u);
  EXPECT_TRUE(hit);
  EXPECT_EQ(stat(c, "hits", AccessKind::load), 1u);
  EXPECT_EQ(stat(c, "misses", AccessKind::load), 1u);
}

TEST_F(CacheTest, TwoMissesToOneLineMergeInOneMshr) {
  Cache c("l1d", small_params(), root_);
  EXPECT_EQ(c.access(load(1, 0x2000), 0).status, AccessStatus::miss);
  EXPECT_EQ(c.access(load(2, 0x2040), 1).status, AccessStatus::hit_reserved);
  EXPECT_EQ(c.mshrs_in_use(), 1u);
  ASSERT_EQ(c.miss_queue_size(), 1u);  // one request downstream
  MemReq f = c.pop_miss();
  EXPECT_TRUE(f.fill);
  EXPECT_EQ(f.addr, 0x2000u);
  EXPECT_EQ(f.bytes, 128u);
  EXPECT_FALSE(c.has_miss());
  EXPECT_FALSE(c.has_ready(49));
  c.fill(answer(f), 50);
  ASSERT_TRUE(c.has_ready(50));
  EXPECT_EQ(c.pop_ready(50).id, 1u);  // both complete at the fill, in access order
  ASSERT_TRUE(c.has_ready(50));
  EXPECT_EQ(c.pop_ready(50).id, 2u);
  EXPECT_EQ(c.mshrs_in_use(), 0u);
  EXPECT_EQ(stat(c, "hit_reserved", AccessKind::load), 1u);
}

TEST_F(CacheTest, MshrFullGivesReservationFail) {
  CacheParams p = small_params();
  p.mshrs = 2;
  Cache c("l1d", p, root_);
  EXPECT_EQ(c.access(load(1, 0x0000), 0).status, AccessStatus::miss);
  EXPECT_EQ(c.access(load(2, 0x0080), 0).status, AccessStatus::miss);
  const AccessResult r = c.access(load(3, 0x0100), 0);
  EXPECT_EQ(r.status, AccessStatus::reservation_fail);
  EXPECT_EQ(r.cause, FailCause::mshr_full);
  EXPECT_EQ(fails(c, FailCause::mshr_full), 1u);
  EXPECT_EQ(c.miss_queue_size(), 2u);
  // The failed access changed nothing: it succeeds once an MSHR frees.
  c.fill(answer(c.pop_miss()), 10);
  EXPECT_EQ(c.access(load(3, 0x0100), 11).status, AccessStatus::miss);
}

TEST_F(CacheTest, MergeLimitGivesReservationFail) {
  CacheParams p = small_params();
  p.mshr_merge = 2;
  Cache c("l1d", p, root_);
  EXPECT_EQ(c.access(load(1, 0x0000), 0).status, AccessStatus::miss);
  EXPECT_EQ(c.access(load(2, 0x0020), 0).status, AccessStatus::hit_reserved);
  EXPECT_EQ(c.access(load(3, 0x0040), 0).cause, FailCause::merge_limit);
}

TEST_F(CacheTest, FullyReservedSetGivesReservationFail) {
  Cache c("l1d", small_params(), root_);  // 4 sets: lines 0x000, 0x200, 0x400 share set 0
  EXPECT_EQ(c.access(load(1, 0x000), 0).status, AccessStatus::miss);
  EXPECT_EQ(c.access(load(2, 0x200), 0).status, AccessStatus::miss);
  EXPECT_EQ(c.access(load(3, 0x400), 0).cause, FailCause::set_reserved);
  EXPECT_EQ(c.access(load(4, 0x080), 0).status, AccessStatus::miss);  // set 1 is free
}

TEST_F(CacheTest, MissQueueFullGivesReservationFail) {
  CacheParams p = small_params();
  p.miss_queue = 1;
  Cache c("l1d", p, root_);
  EXPECT_EQ(c.access(load(1, 0x000), 0).status, AccessStatus::miss);
  EXPECT_EQ(c.access(load(2, 0x080), 0).cause, FailCause::miss_queue_full);
  c.pop_miss();
  EXPECT_EQ(c.access(load(2, 0x080), 1).status, AccessStatus::miss);
}

// One set of four ways: A B C D fill it, A is touched again, E needs a victim.
class VictimTest : public CacheTest {
 protected:
  void run(const char* policy) {
    CacheParams p = small_params();
    p.size = 4 * 128;
    p.assoc = 4;
    p.repl = policy;
    Cache c("l1d", p, root_);
    for (Addr a : {0x000, 0x080, 0x100, 0x180}) warm(c, a, 1);
    EXPECT_EQ(c.access(load(1, 0x000), 2).status, AccessStatus::hit);  // touch A
    warm(c, 0x200, 10);                                                // E
    for (Addr a : {0x000, 0x080, 0x100, 0x180}) present_.push_back(c.valid_sectors(a) != 0);
  }
  std::vector<bool> present_;
};

TEST_F(VictimTest, LruEvictsTheLeastRecentlyUsed) {
  run("lru");
  EXPECT_EQ(present_, (std::vector<bool>{true, false, true, true}));  // B
}

TEST_F(VictimTest, FifoEvictsTheFirstInserted) {
  run("fifo");
  EXPECT_EQ(present_, (std::vector<bool>{false, true, true, true}));  // A, despite the hit
}

TEST_F(CacheTest, RandomReplacementIsDeterministicPerSeed) {
  auto victims = [this](uint64_t seed) {
    CacheParams p = small_params();
    p.size = 4 * 128;
    p.assoc = 4;
    p.repl = "random";
    p.seed = seed;
    stats::Group g("r", &root_);
    Cache c("c", p, g);
    for (Addr a = 0; a < 64 * 128; a += 128) warm(c, a, a);
    std::vector<int> present;
    for (Addr b = 0; b < 64 * 128; b += 128) present.push_back(c.valid_sectors(b) != 0);
    return present;
  };
  EXPECT_EQ(victims(7), victims(7));
  EXPECT_NE(victims(7), victims(8));
}

TEST_F(CacheTest, SectoredMissFetchesOnlyMissingSectors) {
  CacheParams p = small_params();
  p.sectored = true;
  Cache c("l2", p, root_);
  EXPECT_EQ(c.access(load(1, 0x1000, 32), 0).status, AccessStatus::miss);
  MemReq f1 = c.pop_miss();
  EXPECT_EQ(f1.sector_mask, 0b0001u);
  EXPECT_EQ(payload_bytes(f1), 32u);
  c.fill(answer(f1), 5);
  c.pop_ready(5);
  EXPECT_EQ(c.valid_sectors(0x1000), 0b0001u);
  // 64 bytes over sectors 0 and 1: only sector 1 is fetched.
  EXPECT_EQ(c.access(load(2, 0x1000, 64), 6).status, AccessStatus::miss);
  MemReq f2 = c.pop_miss();
  EXPECT_EQ(f2.sector_mask, 0b0010u);
  c.fill(answer(f2), 9);
  EXPECT_EQ(c.pop_ready(9).id, 2u);
  EXPECT_EQ(c.valid_sectors(0x1000), 0b0011u);
  // A non-sectored cache fetches the whole line.
  stats::Group g("ns", &root_);
  Cache n("n", small_params(), g);
  n.access(load(3, 0x1000, 32), 0);
  EXPECT_EQ(n.pop_miss().sector_mask, 0b1111u);
}

// Copy-engine writes (mem.l2.memcpy_fills, docs/fidelity.d/4-importer-memcpy.md): fully
// written sectors become valid and dirty in a write-back cache, a later load of them hits in
// exactly hit_latency, a partly written sector stays invalid (its load misses and fetches it).
TEST_F(CacheTest, ExternalWriteInstallsFullSectorsDirtyAndLoadsHit) {
  Cache c("l2", l2_like(), root_);
  // Bytes 0..111 of the block written: sectors 0-2 completely, sector 3 partly.
  EXPECT_TRUE(c.external_write(0x1000, 0b0111, 0b1111));
  EXPECT_EQ(c.valid_sectors(0x1000), 0b0111u);
  EXPECT_EQ(c.dirty_sectors(0x1000), 0b0111u);
  EXPECT_FALSE(c.has_miss());  // no request, no fetch
  EXPECT_EQ(c.access(load(1, 0x1040, 32), 10).status, AccessStatus::hit);
  EXPECT_FALSE(c.has_ready(10));
  EXPECT_TRUE(c.has_ready(11));  // hit_latency 1
  EXPECT_EQ(c.pop_ready(11).id, 1u);
  EXPECT_EQ(c.access(load(2, 0x1060, 32), 12).status, AccessStatus::miss);
  EXPECT_EQ(c.pop_miss().sector_mask, 0b1000u);
  // A partial write of an already valid sector dirties it.
  EXPECT_TRUE(c.external_write(0x2000, 0b0001, 0b0001));
  EXPECT_TRUE(c.external_write(0x2000, 0, 0b0011));
  EXPECT_EQ(c.valid_sectors(0x2000), 0b0001u);
  EXPECT_EQ(c.dirty_sectors(0x2000), 0b0001u);
  EXPECT_EQ(stats::snapshot(root_).counter(c.stats().path_of("external_writes")), 3u);
}

TEST_F(CacheTest, ExternalWriteInWriteThroughNonSectoredCache) {
  Cache c("l1d", small_params(), root_);  // write-through, not sectored, 4 sets x 2 ways
  EXPECT_FALSE(c.external_write(0x1000, 0b0111, 0b1111));  // the line is not written fully
  EXPECT_EQ(c.valid_sectors(0x1000), 0u);
  EXPECT_TRUE(c.external_write(0x1000, 0b1111, 0b1111));
  EXPECT_EQ(c.valid_sectors(0x1000), 0b1111u);
  EXPECT_EQ(c.dirty_sectors(0x1000), 0u);  // the write went through to memory
  // Two more lines of set 0 (0x1000, 0x1200, 0x1400 with 4 sets x 128 B): LRU evicts 0x1000
  // and no write-back or fetch is queued.
  EXPECT_TRUE(c.external_write(0x1200, 0b1111, 0b1111));
  EXPECT_TRUE(c.external_write(0x1400, 0b1111, 0b1111));
  EXPECT_EQ(c.valid_sectors(0x1000), 0u);
  EXPECT_EQ(c.valid_sectors(0x1200), 0b1111u);
  EXPECT_FALSE(c.has_miss());
  EXPECT_EQ(stats::snapshot(root_).counter(c.stats().path_of("evictions")), 1u);
  // A line with a pending fill is left alone.
  EXPECT_EQ(c.access(load(1, 0x1080, 32), 0).status, AccessStatus::miss);
  EXPECT_FALSE(c.external_write(0x1080, 0b1111, 0b1111));
}

TEST_F(CacheTest, GlobalStoreIsWriteThroughNoAllocate) {
  Cache c("l1d", small_params(), root_, with_data());
  // Miss: forwarded unchanged, nothing allocated, completes when its ack comes back.
  EXPECT_EQ(c.access(store(1, 0x3000, 32, 0xaa), 0).status, AccessStatus::miss);
  ASSERT_EQ(c.miss_queue_size(), 1u);
  MemReq fw = c.pop_miss();
  EXPECT_FALSE(fw.fill);
  EXPECT_EQ(fw.id, 1u);
  EXPECT_EQ(fw.kind, AccessKind::store);
  EXPECT_EQ(c.valid_sectors(0x3000), 0u);
  EXPECT_FALSE(c.has_ready(100));
  c.fill(MemResp{fw, 0}, 30);
  EXPECT_EQ(c.pop_ready(30).id, 1u);
  // Hit: the line is updated and the store still goes through.
  warm(c, 0x3000, 40);
  EXPECT_EQ(c.access(store(2, 0x3000, 32, 0xbb), 41).status, AccessStatus::hit);
  EXPECT_EQ(c.pop_miss().id, 2u);
  EXPECT_EQ(c.dirty_sectors(0x3000), 0u);
  EXPECT_FALSE(c.has_ready(1000));  // waits for its ack
  c.access(load(3, 0x3000, 32), 42);
  MemReq r = c.pop_ready(46);
  EXPECT_EQ(r.id, 3u);
  EXPECT_EQ((*r.data)[0], 0xbb);
}

TEST_F(CacheTest, LocalStoreIsWriteBackAllocate) {
  Cache c("l1d", small_params(), root_, with_data());
  // A full-sector store allocates without a fetch and completes after hit_latency.
  EXPECT_EQ(c.access(store(1, 0x4000, 32, 0x11, true), 0).status, AccessStatus::miss);
  EXPECT_FALSE(c.has_miss());
  EXPECT_EQ(c.valid_sectors(0x4000), 0b0001u);
  EXPECT_EQ(c.dirty_sectors(0x4000), 0b0001u);
  EXPECT_EQ(c.next_ready(), 4u);
  EXPECT_EQ(c.pop_ready(4).id, 1u);
  // A partial store to an invalid sector fetches it first (the non-sectored line: all four).
  MemReq part = store(2, 0x4020, 32, 0x22, true);
  part.byte_mask = ByteMask::none();
  for (unsigned b = 0x20; b < 0x24; ++b) part.byte_mask.set(b, true);
  EXPECT_EQ(c.access(part, 5).status, AccessStatus::miss);
  // The line was already present (sector 0 valid, dirty): a sector miss on it.
  MemReq f = c.pop_miss();
  EXPECT_TRUE(f.fill);
  EXPECT_EQ(f.sector_mask, 0b1110u);  // never refetch the valid, dirty sector 0
  c.fill(answer(f, 0x77), 20);
  EXPECT_EQ(c.pop_ready(20).id, 2u);
  EXPECT_EQ(c.dirty_sectors(0x4000), 0b0011u);
  // Evicting it writes back the dirty sectors with their data.
  warm(c, 0x4200, 30);
  // Set 0 is full (0x4000, 0x4200); 0x4000 is the LRU victim.
  EXPECT_EQ(c.access(load(9, 0x4400), 31).status, AccessStatus::miss);
  ASSERT_EQ(c.miss_queue_size(), 2u);
  MemReq wb = c.pop_miss();
  EXPECT_TRUE(wb.writeback);
  EXPECT_EQ(wb.addr, 0x4000u);
  EXPECT_EQ(wb.sector_mask, 0b0011u);
  ASSERT_TRUE(wb.data);
  EXPECT_EQ((*wb.data)[0x00], 0x11);
  EXPECT_EQ((*wb.data)[0x20], 0x22);
  EXPECT_EQ((*wb.data)[0x24], 0x77);
  EXPECT_TRUE(c.pop_miss().fill);
  EXPECT_EQ(c.dirty_sectors(0x4000), 0u);
}

TEST_F(CacheTest, BypassLoadIsForwardedWithoutAllocating) {
  Cache c("l1d", small_params(), root_);
  MemReq r = load(1, 0x5000);
  r.l1_bypass = true;
  EXPECT_EQ(c.access(r, 0).status, AccessStatus::bypass);
  MemReq fw = c.pop_miss();
  EXPECT_FALSE(fw.fill);
  EXPECT_TRUE(fw.l1_bypass);
  EXPECT_EQ(c.mshrs_in_use(), 0u);
  c.fill(MemResp{fw, 0}, 7);
  EXPECT_EQ(c.pop_ready(7).id, 1u);
  EXPECT_EQ(c.valid_sectors(0x5000), 0u);
  EXPECT_EQ(stat(c, "bypasses", AccessKind::load), 1u);
}

TEST_F(CacheTest, StoreBehindPendingFillKeepsProgramOrder) {
  Cache c("l1d", small_params(), root_, with_data());
  EXPECT_EQ(c.access(load(1, 0x6000), 0).status, AccessStatus::miss);
  // The store overlaps the pending fill: it merges (as a patch) and is forwarded now.
  EXPECT_EQ(c.access(store(2, 0x6000, 32, 0x55), 1).status, AccessStatus::hit_reserved);
  EXPECT_EQ(c.access(load(3, 0x6000), 2).status, AccessStatus::hit_reserved);
  MemReq f = c.pop_miss();
  EXPECT_TRUE(f.fill);
  EXPECT_EQ(c.pop_miss().id, 2u);
  c.fill(answer(f, 0x10), 40);  // the fill carries the data from before the store
  MemReq a = c.pop_ready(40);
  MemReq b = c.pop_ready(40);
  EXPECT_EQ(a.id, 1u);
  EXPECT_EQ((*a.data)[0], 0x10);  // the older load sees the old value
  EXPECT_EQ(b.id, 3u);
  EXPECT_EQ((*b.data)[0], 0x55);  // the younger one sees the store
}

TEST_F(CacheTest, L2StylePerformsAtomics) {
  CacheParams p = small_params();
  p.perform_atomics = true;
  p.global_write = "write_back";
  p.global_write_allocate = true;
  p.sectored = true;
  Cache c("l2", p, root_, with_data());
  MemReq at;
  at.id = 1;
  at.addr = 0x7008;
  at.bytes = 8;
  at.kind = AccessKind::atomic;
  at.atomic_operand = 5;
  EXPECT_EQ(c.access(at, 0).status, AccessStatus::miss);
  MemReq f = c.pop_miss();
  EXPECT_EQ(f.sector_mask, 0b0001u);
  MemResp fr = answer(f, 0);
  (*fr.req.data)[8] = 3;  // old value 3
  c.fill(fr, 10);
  MemReq r = c.pop_ready(10);
  uint64_t old = 0;
  std::memcpy(&old, r.data->data(), 8);
  EXPECT_EQ(old, 3u);
  EXPECT_EQ(c.dirty_sectors(0x7000), 0b0001u);
  at.id = 2;
  EXPECT_EQ(c.access(at, 11).status, AccessStatus::hit);
  EXPECT_FALSE(c.has_ready(14));
  std::memcpy(&old, c.pop_ready(15).data->data(), 8);
  EXPECT_EQ(old, 8u);
}

TEST_F(CacheTest, BadGeometryIsAUserError) {
  CacheParams p = small_params();
  p.size = 3 * 128 * 2;
  p.index = "xor";
  EXPECT_THROW(Cache("bad", p, root_), UserError);
  p.index = "linear";
  EXPECT_NO_THROW(Cache("ok", p, root_));  // 3 sets are fine with modulo indexing
}

TEST_F(CacheTest, ParamsDescribeAndValidate) {
  CacheParams p;
  config::Schema s = config::schema_of(p);
  config::Config cfg = config::Config::defaults(s);
  CacheParams q = config::load<CacheParams>(cfg);
  EXPECT_EQ(q.size, 16384u);
  EXPECT_EQ(q.hit_latency.v, 35u);
  EXPECT_TRUE(q.validate().empty());
  EXPECT_THROW(config::Config::defaults(s).with_overrides({"repl=plru"}), UserError);
  stats::check_formulas(root_);
}

TEST(SetIndex, FermiHashMatchesNugteren2014) {
  // set = (l[4:0] XOR {l12 l10 l8 l7 l6}) + 32 * l5
  EXPECT_EQ(set_index(SetIndexFn::fermi, 0, 32), 0u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, 1 << 6, 32), 1u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, 1 << 7, 32), 2u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, 1 << 8, 32), 4u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, 1 << 9, 32), 0u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, 1 << 10, 32), 8u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, 1 << 12, 32), 16u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, (1 << 12) | 3, 32), 19u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, 1 << 5, 32), 0u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, 1 << 5, 64), 32u);
  EXPECT_EQ(set_index(SetIndexFn::fermi, (1 << 5) | (1 << 6) | 1, 64), 32u);
  EXPECT_EQ(set_index(SetIndexFn::xor_fold, 5 + 3 * 16, 16), 5u ^ 3u);
  EXPECT_EQ(set_index(SetIndexFn::linear, 100, 24), 4u);
  SliceInterleave il{256, 16};
  EXPECT_EQ(il.compact(0), 0u);
  EXPECT_EQ(il.compact(255), 255u);
  EXPECT_EQ(il.compact(4096), 256u);
  EXPECT_EQ(il.compact(4096 + 300), 256u + 300 % 256);
}

}  // namespace
}  // namespace simtlab::timing

namespace simtlab::timing {
namespace {

/// A perfect next level: performs requests in the order the cache sends them on a flat memory
/// and answers after a random delay (answers may overtake each other).
struct FlatMemory {
  std::vector<uint8_t> mem = std::vector<uint8_t>(1 << 20, 0);
  std::vector<std::pair<uint64_t, MemResp>> pending;
  std::mt19937_64 rng{5};
  void take(MemReq r, uint64_t now) {
    const Addr base = r.addr;
    const uint32_t units = touched_sectors(r);
    const uint32_t off = uint32_t(r.addr & 127);
    if (r.kind == AccessKind::store) {
      for (uint32_t i = 0; i < r.bytes; ++i)
        if (r.byte_mask.test(off + i) && (units >> ((off + i) / 32) & 1))
          mem[base + i] = (*r.data)[i];
      if (r.writeback) return;
    } else {
      r.data =
          std::make_shared<std::vector<uint8_t>>(mem.begin() + base, mem.begin() + base + r.bytes);
    }
    pending.emplace_back(now + 5 + rng() % 45, MemResp{r, 0});
  }
};

void random_against_flat_memory(CacheParams p, bool local, uint64_t seed) {
  stats::Group root("");
  Cache c("c", p, root, with_data());
  FlatMemory next;
  std::vector<uint8_t> shadow(1 << 20, 0);
  std::mt19937_64 rng(seed);
  std::map<uint64_t, std::vector<uint8_t>> expect;
  std::optional<MemReq> pend;
  uint64_t id = 0, issued = 0, done = 0;
  const uint64_t n = 20000;
  for (uint64_t now = 0; done < n || !c.idle(); ++now) {
    ASSERT_LT(now, 10'000'000u);
    for (size_t i = 0; i < next.pending.size();) {
      if (next.pending[i].first <= now) {
        c.fill(next.pending[i].second, now);
        next.pending.erase(next.pending.begin() + ptrdiff_t(i));
      } else {
        ++i;
      }
    }
    while (c.has_ready(now)) {
      MemReq r = c.pop_ready(now);
      auto it = expect.find(r.id);
      ASSERT_NE(it, expect.end()) << "duplicate or unknown id " << r.id;
      if (!it->second.empty()) {
        ASSERT_TRUE(r.data);
        ASSERT_EQ(*r.data, it->second) << "stale load of 0x" << std::hex << r.addr;
      }
      expect.erase(it);
      ++done;
    }
    if (c.has_miss()) next.take(c.pop_miss(), now);
    if (!pend && issued < n && expect.size() < 32) {
      MemReq r;
      r.id = ++id;
      const uint32_t sizes[] = {32, 64, 128};
      r.bytes = sizes[rng() % 3];
      r.addr = (rng() % ((64 << 10) / r.bytes)) * r.bytes;
      r.local = local;
      if (rng() % 2) {
        r.kind = AccessKind::store;
        r.l1_bypass = !local;
        r.data = std::make_shared<std::vector<uint8_t>>(r.bytes);
        for (auto& b : *r.data) b = uint8_t(rng());
        if (rng() % 2) {
          r.byte_mask = ByteMask::none();
          for (uint32_t i = 0; i < r.bytes; ++i)
            r.byte_mask.set(uint32_t(r.addr & 127) + i, rng() % 3);
        }
      }
      pend = r;
      ++issued;
    }
    if (pend && c.access(*pend, now).accepted()) {
      MemReq& r = *pend;
      const uint32_t off = uint32_t(r.addr & 127);
      if (r.kind == AccessKind::store) {
        for (uint32_t i = 0; i < r.bytes; ++i)
          if (r.byte_mask.test(off + i)) shadow[r.addr + i] = (*r.data)[i];
        expect[r.id] = {};
      } else {
        expect[r.id].assign(shadow.begin() + r.addr, shadow.begin() + r.addr + r.bytes);
      }
      pend.reset();
    }
  }
}

TEST(CacheRandom, WriteBackAllocateAgainstFlatMemory) {
  random_against_flat_memory(CacheParams{}, true, 1);
}
TEST(CacheRandom, WriteThroughAgainstFlatMemory) {
  random_against_flat_memory(CacheParams{}, false, 2);
}
TEST(CacheRandom, SectoredL2StyleAgainstFlatMemory) {
  CacheParams p = l2_like();
  random_against_flat_memory(p, false, 3);
}

}  // namespace
}  // namespace simtlab::timing

namespace simtlab::timing {
namespace {

// Regression (found by the random-traffic checker): a write-back carries the whole line but
// only its dirty sectors (sector_mask) may be written below.
TEST(CacheRegression, WriteBackWritesOnlyItsSectors) {
  stats::Group root("");
  Cache c("l2", l2_like(), root, with_data());
  MemReq fill_me = load(1, 0x8000, 128);
  ASSERT_EQ(c.access(fill_me, 0).status, AccessStatus::miss);
  c.fill(answer(c.pop_miss(), 0x11), 5);
  c.pop_ready(5);
  MemReq wb = store(2, 0x8000, 128, 0x99);
  wb.writeback = true;
  wb.sector_mask = 0b1000;
  EXPECT_EQ(c.access(wb, 6).status, AccessStatus::hit);
  EXPECT_FALSE(c.has_ready(1000));  // write-backs are never answered
  ASSERT_EQ(c.access(load(3, 0x8000, 128), 7).status, AccessStatus::hit);
  MemReq r = c.pop_ready(8);
  EXPECT_EQ((*r.data)[0], 0x11);
  EXPECT_EQ((*r.data)[95], 0x11);
  EXPECT_EQ((*r.data)[96], 0x99);
  EXPECT_EQ(c.dirty_sectors(0x8000), 0b1000u);
}

}  // namespace
}  // namespace simtlab::timing

namespace simtlab::timing {
namespace {

TEST(CacheFlush, FlushWritesBackDirtyLinesAndInvalidateDropsLines) {
  stats::Group root("");
  CacheParams p;
  p.size = 4 * 2 * 128;
  p.assoc = 2;
  p.index = "linear";
  Cache c("l1d", p, root, with_data());
  MemReq st = store(1, 0x100, 32, 0x42, /*local=*/true);
  EXPECT_EQ(c.access(st, 0).status, AccessStatus::miss);  // allocated without a fetch
  EXPECT_EQ(c.dirty_sectors(0x100), 0b0001u);
  c.flush();
  ASSERT_TRUE(c.has_miss());
  MemReq wb = c.pop_miss();
  EXPECT_TRUE(wb.writeback);
  EXPECT_EQ(wb.sector_mask, 0b0001u);
  EXPECT_EQ((*wb.data)[0], 0x42);
  EXPECT_EQ(c.dirty_sectors(0x100), 0u);
  EXPECT_EQ(c.valid_sectors(0x100), 0b0001u);
  c.invalidate();
  EXPECT_EQ(c.valid_sectors(0x100), 0u);
  c.pop_ready(100);
  EXPECT_TRUE(c.idle());
}

}  // namespace
}  // namespace simtlab::timing

namespace simtlab::timing {
namespace {

// Unified L1/shared carve-out: with one active way of two, a set holds one line, so the second
// line of a set evicts the first; with both ways it stays.
TEST_F(CacheTest, ActiveWaysLimitTheCapacity) {
  for (uint32_t ways : {1u, 2u}) {
    SCOPED_TRACE(ways);
    stats::Group root("");
    Cache c("l1d", small_params(), root);
    c.set_active_ways(ways);
    EXPECT_EQ(c.active_ways(), ways);
    warm(c, 0x0000, 0);  // set 0
    warm(c, 0x0200, 1);  // set 0 again (4 sets x 128 B)
    EXPECT_EQ(c.access(load(1, 0x0000), 10).status,
              ways == 1 ? AccessStatus::miss : AccessStatus::hit);
  }
}

}  // namespace
}  // namespace simtlab::timing
