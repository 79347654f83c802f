#include "timing/sm/ldst.h"
#include "timing/sm/tma.h"

#include <algorithm>

#include "base/error.h"
#include "ext/mrpb/mrpb.h"
#include "timing/sm/pc_stats.h"
#include "timing/sm/sm_params.h"
#include "timing/sm/warp_slot.h"
#include "timing/trace.h"

namespace simtlab::timing {

namespace {
// Device-address region where the timing model places local memory (per-thread stacks and
// local arrays are per-thread offsets in the functional model). Interleaved by word so that
// lane l's offset o lands at ... + (o / 4) * 4 * 32 + 4 * l + o % 4.
constexpr Addr kLocalTimingBase = 0x0000'0400'0000'0000ull;
constexpr uint64_t kTxnIdShift = 24;  // id = (table index << 24) | sequence
}  // namespace

LdstUnit::LdstUnit(const SmParams& p, uint32_t sm_id, stats::Group& sm_stats, SmMemPort* port,
                   Complete on_complete)
    : p_(p),
      sm_(sm_id),
      port_(port),
      complete_(std::move(on_complete)),
      queue_cap_(p.ldst_queue),
      g_(sm_stats.child("ldst")),
      mem_insts_(g_.counter("mem_insts", "warp instructions",
                            "Memory instructions executed by the LD/ST unit")),
      transactions_(g_.counter("transactions", "transactions",
                               "Cache/memory transactions generated (coalesced)")),
      shared_accesses_(
          g_.counter("shared_accesses", "warp instructions", "Shared-memory warp accesses")),
      shared_passes_(
          g_.counter("shared_passes", "passes", "Shared-memory bank passes (1 = conflict-free)")),
      shared_conflict_cycles_(g_.counter("bank_conflict_cycles", "cycles",
                                         "Extra cycles from shared-memory bank conflicts")),
      reservation_stalls_(
          g_.counter("reservation_stalls", "cycles",
                     "Cycles a transaction was refused by a cache (reservation failure)")),
      port_stalls_(g_.counter("port_stalls", "cycles",
                              "Cycles a cache miss waited for the interconnect port")),
      load_latency_(g_.histogram("load_latency", "cycles",
                                 "Issue-to-completion latency of global/local loads",
                                 {8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096})) {
  g_.ratio("transactions_per_request", "transactions",
           "Coalescing efficiency: transactions per memory instruction", "transactions",
           "mem_insts");
  l1d_ = std::make_unique<Cache>("l1d", p.l1d, sm_stats);
  l1c_ = std::make_unique<Cache>("l1c", p.l1c, sm_stats);
  l1t_ = std::make_unique<Cache>("l1t", p.l1t, sm_stats);
  if (p.mrpb.enable || p.mrpb.bypass) {
    mrpb_ = std::make_unique<ext::Mrpb>(p.mrpb, p.num_warps, sm_stats);
    mrpb_queues_ = p.mrpb.enable;
    bypass_ = p.mrpb.bypass;
  }
}

LdstUnit::~LdstUnit() = default;

void LdstUnit::enable_dsmem_stats(stats::Group& g) {
  if (dsmem_insts_) return;
  dsmem_insts_ = &g.counter("dsmem_insts", "warp instructions",
                            "Shared-memory warp instructions with lanes in another CTA's shared "
                            "memory of the cluster (distributed shared memory)");
  dsmem_segments_ = &g.counter("dsmem_segments", "segments",
                               "32-byte segments those instructions sent over the SM-to-SM "
                               "network");
}

bool LdstUnit::idle() const {
  return queue_.empty() && live_.empty() && l1d_->idle() && l1c_->idle() && l1t_->idle() &&
         (!mrpb_ || mrpb_->empty());
}

uint64_t LdstUnit::next_event(uint64_t now) const {
  if (!queue_.empty() || (mrpb_ && !mrpb_->empty())) return now + 1;
  uint64_t next = UINT64_MAX;
  for (const Cache* c : {l1d_.get(), l1c_.get(), l1t_.get()}) {
    if (c->has_miss()) return now + 1;
    next = std::min(next, std::max(c->next_ready(), now + 1));
  }
  for (uint32_t i : live_) {
    const Entry& e = table_[i];
    if (e.space != func::MemSpace::shared) continue;
    next = std::min(next, std::max(e.done_at, now + 1));
  }
  return next;
}

void LdstUnit::accept(const InFlight& f, const func::WarpInstRecord& rec, uint64_t now) {
  uint32_t idx;
  if (!free_.empty()) {
    idx = free_.back();
    free_.pop_back();
  } else {
    idx = uint32_t(table_.size());
    table_.emplace_back();
  }
  Entry& e = table_[idx];
  e = Entry{};
  e.f = f;
  e.live = true;
  e.queued = true;
  ++mem_insts_;
  generate(e, rec, now);
  queue_.push_back(idx);
  live_.push_back(idx);
}

void LdstUnit::generate(Entry& e, const func::WarpInstRecord& rec, uint64_t now) {
  e.generated = true;
  e.space = rec.space;
  e.waits_for_data = rec.is_load || rec.is_atomic;
  const LaneMask lanes = rec.exec;
  const uint32_t size = std::max<uint32_t>(1, rec.access_size);
  if (!lanes || rec.space == func::MemSpace::none) return;
  if (rec.space == func::MemSpace::shared) {
    if (rec.dsmem & lanes) [[unlikely]] {
      // Distributed shared memory: distinct 32-byte segments (addresses carry the peer's rank).
      Addr segs[kMaxWarpSize];
      uint32_t n = 0;
      for (uint32_t l = 0; l < 32; ++l) {
        if (!((rec.dsmem & lanes) >> l & 1)) continue;
        for (Addr s = rec.addr[l] / 32; s <= (rec.addr[l] + size - 1) / 32; ++s) {
          bool dup = false;
          for (uint32_t k = 0; k < n && !dup; ++k) dup = segs[k] == s;
          if (!dup && n < kMaxWarpSize) segs[n++] = s;
        }
      }
      e.dsmem_segments = n;
      if (dsmem_insts_) {
        ++*dsmem_insts_;
        *dsmem_segments_ += n;
      }
    }
    // Distinct 32-bit words per bank; the worst bank sets the number of passes.
    const uint32_t banks = p_.smem_banks;
    uint32_t words_per_bank[64] = {};
    uint64_t seen[64][8];
    const LaneMask local = lanes & ~rec.dsmem;  // lanes in this CTA's own shared memory
    for (uint32_t l = 0; l < 32; ++l) {
      if (!((local >> l) & 1)) continue;
      const uint64_t first = rec.addr[l] / 4, last = (rec.addr[l] + size - 1) / 4;
      for (uint64_t w = first; w <= last; ++w) {
        const uint32_t b = uint32_t(w % banks);
        bool dup = false;
        for (uint32_t k = 0; k < std::min<uint32_t>(words_per_bank[b], 8); ++k)
          if (seen[b][k] == w) dup = true;
        if (dup) continue;
        if (words_per_bank[b] < 8) seen[b][words_per_bank[b]] = w;
        ++words_per_bank[b];
      }
    }
    uint32_t passes = 1;
    for (uint32_t b = 0; b < banks; ++b) passes = std::max(passes, words_per_bank[b]);
    e.passes = passes;
    ++shared_accesses_;
    shared_passes_ += passes;
    shared_conflict_cycles_ += passes - 1;
    if (e.f.pcc) e.f.pcc->smem_extra_passes += passes - 1;
    return;
  }
  if (rec.space == func::MemSpace::tex) {
    // Texture fetch: one texture-cache access per distinct 128-byte block of the texels read
    // (every texel of a linear-filtering footprint), in first-touch order.
    std::vector<Addr> blocks;
    blocks.reserve(4);
    for (Addr a : rec.texels) {
      if (gmem_ && (a < func::kGlobalBase || a >= func::kGlobalEnd)) a = gmem_->timing_address(a);
      for (const Addr blk : {block_of(a), block_of(a + size - 1)})
        if (std::find(blocks.begin(), blocks.end(), blk) == blocks.end()) blocks.push_back(blk);
    }
    for (const Addr b : blocks) {
      MemReq r;
      r.addr = b;
      r.bytes = kBlockBytes;
      r.kind = AccessKind::tex_load;
      r.sm = uint16_t(sm_);
      r.issue_cycle = now;
      e.txns.push_back(r);
    }
    return;
  }
  const bool is_const = rec.space == func::MemSpace::const_ || rec.space == func::MemSpace::param;
  if (is_const) {
    // One access per distinct word (serialised broadcast reads of the constant cache).
    std::vector<Addr> words;
    for (uint32_t l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      Addr a = rec.addr[l] & ~Addr(3);
      if (rec.space == func::MemSpace::param)
        a += 0x0000'0500'0000'0000ull;  // kernel-parameter bank
      if (std::find(words.begin(), words.end(), a) == words.end()) words.push_back(a);
    }
    for (Addr a : words) {
      MemReq r;
      r.addr = a & ~Addr(p_.l1c.line - 1);
      r.bytes = p_.l1c.line;
      r.kind = AccessKind::const_load;
      r.sm = uint16_t(sm_);
      e.txns.push_back(r);
    }
    return;
  }
  const bool local = rec.space == func::MemSpace::local;
  // Group lanes by 128-byte block.
  struct Block {
    Addr base;
    uint32_t sectors;
    ByteMask bytes;
  };
  std::vector<Block> blocks;
  blocks.reserve(4);
  for (uint32_t l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    Addr a = rec.addr[l];
    if (!local && gmem_ && (a < func::kGlobalBase || a >= func::kGlobalEnd))
      a = gmem_->timing_address(a);
    if (local) {
      const uint64_t warp_slot = e.f.w ? e.f.w->slot : 0;
      const uint64_t per_warp = uint64_t(std::max(e.f.local_bytes, 16u)) * 32;
      const uint64_t base = kLocalTimingBase + (uint64_t(sm_) * 4096 + warp_slot) * per_warp;
      a = base + (a / 4) * 128 + uint64_t(l) * 4 + (a % 4);
    }
    for (uint32_t chunk = 0; chunk < size; chunk += (local ? 4 : size)) {
      const Addr ca = local && size > 4 ? a + (uint64_t(chunk) / 4) * 128 : a;
      const uint32_t csize = local ? std::min<uint32_t>(4, size) : size;
      const Addr blk = block_of(ca);
      auto it =
          std::find_if(blocks.begin(), blocks.end(), [&](const Block& b) { return b.base == blk; });
      if (it == blocks.end()) {
        blocks.push_back(Block{blk, 0, ByteMask::none()});
        it = blocks.end() - 1;
      }
      const uint32_t off = uint32_t(ca - blk);
      for (uint32_t k = 0; k < csize && off + k < kBlockBytes; ++k) it->bytes.set(off + k, true);
      it->sectors |= 1u << (off / kSectorBytes);
      if ((off + csize - 1) / kSectorBytes != off / kSectorBytes)
        it->sectors |= 1u << ((off + csize - 1) / kSectorBytes);
    }
  }
  const bool bypass_hint =
      e.f.d && e.f.d->in &&
      (e.f.d->in->cache == ptx::CacheOp::cg || e.f.d->in->cache == ptx::CacheOp::cs ||
       e.f.d->in->has(ptx::IF_VOLATILE));
  for (const Block& b : blocks) {
    MemReq r;
    r.addr = b.base;
    r.bytes = kBlockBytes;
    r.sm = uint16_t(sm_);
    r.local = local;
    r.issue_cycle = now;
    if (rec.is_atomic) {
      r.kind = AccessKind::atomic;
      r.sector_mask = b.sectors;
      r.byte_mask = b.bytes;
      r.l1_bypass = true;
      count_atomic_ops(r, rec, lanes);
    } else if (rec.is_store) {
      r.kind = AccessKind::store;
      r.sector_mask = b.sectors;
      r.byte_mask = b.bytes;
    } else {
      r.kind = AccessKind::load;
      const bool cached = local || (p_.l1d_global && !bypass_hint);
      if (!cached) {
        r.l1_bypass = true;
        r.sector_mask = b.sectors;
      }
    }
    e.txns.push_back(r);
  }
}

void LdstUnit::count_atomic_ops(MemReq& r, const func::WarpInstRecord& rec, LaneMask lanes) const {
  // Lanes whose address falls in r's block: one operation each; lanes naming the same address
  // are counted per (4-byte-aligned) address so the atomic unit can serialise them.
  uint8_t per_word[kBlockBytes / 4] = {};
  uint32_t ops = 0, addrs = 0, depth = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    Addr a = rec.addr[l];
    if (gmem_ && (a < func::kGlobalBase || a >= func::kGlobalEnd)) a = gmem_->timing_address(a);
    if (block_of(a) != r.addr) continue;
    uint8_t& n = per_word[(a - r.addr) / 4];
    if (n++ == 0) ++addrs;
    depth = std::max<uint32_t>(depth, n);
    ++ops;
  }
  r.atomic_ops = uint8_t(std::max(ops, 1u));
  r.atomic_addrs = uint8_t(std::max(addrs, 1u));
  r.atomic_depth = uint8_t(std::max(depth, 1u));
}

MemReq LdstUnit::stamp(const Entry& e, MemReq r, uint64_t now) {
  r.origin = e.f.pcc;
  const uint32_t idx = uint32_t(&e - table_.data());
  r.id = (uint64_t(idx) << kTxnIdShift) | (next_id_++ & ((uint64_t(1) << kTxnIdShift) - 1));
  r.issue_cycle = now;
  return r;
}

AccessResult LdstUnit::access_cache(Cache& c, MemReq& r, uint64_t now) {
  AccessResult res = c.access(r, now);
  if (bypass_ && !res.accepted() && res.cause == FailCause::set_reserved &&
      r.kind == AccessKind::load && !r.l1_bypass && &c == l1d_.get()) {
    // MRPB bypass (Jia et al. 2014): the set has no allocatable way; send the load to the L2
    // without allocating (the same block request, answered through fill()).
    MemReq b = r;
    b.l1_bypass = true;
    res = c.access(b, now);
    if (res.accepted()) {
      r = b;
      mrpb_->count_bypass();
    }
  }
  return res;
}

bool LdstUnit::drain_mrpb(uint64_t now) {
  const int32_t q = mrpb_->pick();
  if (q < 0) return false;
  const ext::Mrpb::Item& it = mrpb_->front(uint32_t(q));
  Entry& e = table_[it.entry];
  MemReq r = stamp(e, it.req, now);
  const AccessResult res = access_cache(*l1d_, r, now);
  if (!res.accepted()) {
    ++reservation_stalls_;
    mrpb_->count_drain_fail();
    return true;
  }
  ++transactions_;
  if (e.f.pcc) {
    ++e.f.pcc->transactions;
    if (res.status != AccessStatus::hit) ++e.f.pcc->l1_misses;
  }
  --e.in_mrpb;
  if (e.waits_for_data || r.kind == AccessKind::store) ++e.outstanding;
  mrpb_->pop(uint32_t(q));
  return true;
}

bool LdstUnit::send_txn(Entry& e, uint64_t now) {
  MemReq r = stamp(e, e.txns[e.next], now);
  Cache& c = r.kind == AccessKind::const_load ? *l1c_
             : r.kind == AccessKind::tex_load ? *l1t_
                                              : *l1d_;
  const AccessResult res = bypass_ ? access_cache(c, r, now) : c.access(r, now);
  if (!res.accepted()) {
    ++reservation_stalls_;
    return false;
  }
  if (l1d_obs_ && &c == l1d_.get() && r.kind == AccessKind::load && e.f.w)
    l1d_obs_->l1d_access(e.f.w->slot, r.addr & ~Addr(p_.l1d.line - 1), res.status);
  ++transactions_;
  if (e.f.pcc) {
    ++e.f.pcc->transactions;
    if (res.status != AccessStatus::hit) ++e.f.pcc->l1_misses;
  }
  ++e.next;
  if (e.waits_for_data || r.kind == AccessKind::store) ++e.outstanding;
  return true;
}

void LdstUnit::finish_txn(uint64_t id, uint64_t now) {
  const uint32_t idx = uint32_t(id >> kTxnIdShift);
  if (idx >= table_.size()) return;
  Entry& e = table_[idx];
  if (!e.live || e.outstanding == 0) return;
  --e.outstanding;
}

bool LdstUnit::tick(uint64_t now) {
  bool did = false;
  // 1. Responses from below.
  while (const MemResp* r = port_->peek()) {
    const MemResp resp = port_->pop();
    did = true;
    if (tma_ && (resp.req.id & TmaUnit::kTag)) [[unlikely]] {  // a bulk / TMA copy's response
      tma_->on_response(resp, now);
      continue;
    }
    if (resp.req.origin && !resp.l2_hit && resp.req.kind != AccessKind::inst_fetch)
      ++resp.req.origin->l2_misses;
    switch (resp.req.kind) {
      case AccessKind::inst_fetch:
        if (on_ifetch_response) on_ifetch_response(resp, now);
        break;
      case AccessKind::const_load:
        l1c_->fill(resp, now);
        break;
      case AccessKind::tex_load:
        l1t_->fill(resp, now);
        break;
      default:
        l1d_->fill(resp, now);
        break;
    }
    (void)r;
  }
  // 2. Completed accesses.
  for (Cache* c : {l1d_.get(), l1c_.get(), l1t_.get()}) {
    while (c->has_ready(now)) {
      const MemReq q = c->pop_ready(now);
      finish_txn(q.id, now);
      did = true;
    }
  }
  // 3. Misses downward (one per cache per cycle, while the port accepts).
  for (Cache* c : {l1d_.get(), l1c_.get(), l1t_.get()}) {
    if (!c->has_miss()) continue;
    if (!port_->can_send()) {
      ++port_stalls_;
      continue;
    }
    port_->send(c->pop_miss());
    did = true;
  }
  // 4. MRPB (src/ext/mrpb): the drain sends one L1D transaction; the head instruction's L1D
  // transactions enter its warp's FIFO. Otherwise the head instruction sends its next
  // transaction (or runs its shared-memory passes).
  bool port_used = false;
  if (mrpb_queues_) {
    mrpb_->sample_cycle();
    if (drain_mrpb(now)) port_used = did = true;
  }
  if (!queue_.empty()) {
    Entry& e = table_[queue_.front()];
    const bool to_l1d = e.space == func::MemSpace::global || e.space == func::MemSpace::local;
    if (mrpb_queues_ && to_l1d && e.next < e.txns.size()) {
      const uint32_t w = e.f.w ? e.f.w->slot : 0;
      if (mrpb_->fits(w, e.txns.size() - e.next)) {
        for (; e.next < e.txns.size(); ++e.next) {
          mrpb_->push(w, ext::Mrpb::Item{e.txns[e.next], queue_.front()});
          ++e.in_mrpb;
        }
        e.queued = false;
        queue_.pop_front();
        did = true;
      } else {
        mrpb_->count_full_stall();
      }
    } else if (port_used && e.space != func::MemSpace::shared && e.next < e.txns.size()) {
      // The drain used the cache port this cycle (one L1 access per cycle, as without MRPB).
    } else if (e.space == func::MemSpace::shared && e.dsmem_segments) [[unlikely]] {
      if (smem_busy_until_ <= now && dsmem_busy_until_ <= now) {
        // Local lanes take their bank passes; remote segments leave one per cycle and their
        // data is back sm.dsmem_latency later. The later of the two completes the instruction.
        e.done_at = std::max(now + e.passes - 1 + p_.smem_latency,
                             now + e.dsmem_segments - 1 + p_.dsmem_latency);
        smem_busy_until_ = now + e.passes;
        dsmem_busy_until_ = now + e.dsmem_segments;
        e.next = e.txns.size();
        e.queued = false;
        queue_.pop_front();
        did = true;
      }
    } else if (e.space == func::MemSpace::shared) {
      if (smem_busy_until_ <= now) {
        // The bank array is busy for `passes` cycles; data returns smem_latency later.
        e.done_at = now + e.passes - 1 + p_.smem_latency;
        smem_busy_until_ = now + e.passes;
        e.next = e.txns.size();
        e.queued = false;
        queue_.pop_front();
        did = true;
      }
    } else if (e.next < e.txns.size()) {
      if (send_txn(e, now)) did = true;
      if (e.next >= e.txns.size()) {
        e.queued = false;
        queue_.pop_front();
      }
    } else {
      e.queued = false;
      queue_.pop_front();
      did = true;
    }
  }
  // 5. Completions: instructions whose transactions are all sent and answered.
  for (size_t li = 0; li < live_.size();) {
    const uint32_t i = live_[li];
    Entry& e = table_[i];
    if (e.queued || e.next < e.txns.size() || e.in_mrpb) {
      ++li;
      continue;
    }
    if (e.space == func::MemSpace::shared ? e.done_at > now : e.outstanding != 0) {
      ++li;
      continue;
    }
    if (e.waits_for_data && (e.space == func::MemSpace::global || e.space == func::MemSpace::local))
      load_latency_.sample(now - e.f.issue_cycle);
    if (trace_ && e.f.w) {
      static constexpr const char* names[] = {"none",  "global", "shared", "local",
                                              "const", "param",  "tex"};
      trace_->mem_access(sm_, e.f.w->slot, e.f.issue_cycle, now, names[size_t(e.space)],
                         !e.waits_for_data, uint32_t(e.txns.size()));
    }
    e.live = false;
    free_.push_back(i);
    live_[li] = live_.back();
    live_.pop_back();
    complete_(e.f, now);
    did = true;
  }
  return did;
}

}  // namespace simtlab::timing
