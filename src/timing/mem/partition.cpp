#include "timing/mem/partition.h"

#include <algorithm>
#include <limits>

#include "base/error.h"

namespace simtlab::timing {

namespace {
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
}  // namespace

CacheParams l2_slice_defaults() {
  CacheParams c;
  c.size = 49152;
  c.cite.size =
      "D2MA Table 1: 768 KB L2 / (8 channels x 2 slices) = 48 KB (GPGPU-Sim's GTX480 "
      "config: 12 slices x 64 sets x 8 ways x 128 B)";
  c.line = 128;
  c.cite.line = "D2MA Table 1 (128 B lines)";
  c.sector = 32;
  c.sectored = true;
  c.cite.sector = "book 1.15 (4 x 32 B sectors)";
  c.cite.sectored = "GTX480 config gpgpu_cache:dl2 'S' (sectored); book 1.15";
  c.assoc = 16;
  c.cite.assoc = "D2MA Table 1 (16-way; GPGPU-Sim's GTX480 config uses 8-way with 64 sets)";
  c.repl = "lru";
  c.cite.repl = "GTX480 config gpgpu_cache:dl2 (L = LRU)";
  c.mshrs = 256;
  c.mshr_merge = 4;
  c.cite.mshrs = "GTX480 config gpgpu_cache:dl2 (A:256:4)";
  c.cite.mshr_merge = "GTX480 config gpgpu_cache:dl2 (A:256:4)";
  c.miss_queue = 4;
  c.cite.miss_queue = "GTX480 config gpgpu_cache:dl2 (miss queue 4)";
  c.hit_latency = Cycle(1);
  c.cite.hit_latency =
      "GTX480 config keeps L2 access time in gpgpu_l2_rop_latency; 1 cycle tag+data stage";
  c.global_write = "write_back";
  c.global_write_allocate = true;
  c.local_write = "write_back";
  c.local_write_allocate = true;
  c.cite.global_write =
      "GTX480 config gpgpu_cache:dl2 (B = write-back, L = write-allocate; GPGPU-Sim fetches "
      "lazily on read, we fetch partially written sectors on write); book 1.15";
  c.cite.local_write = c.cite.global_write;
  c.allocate = "on_miss";
  c.cite.allocate = "GTX480 config gpgpu_cache:dl2 (m = allocate on miss)";
  c.index = "linear";
  c.cite.index = "GTX480 config gpgpu_cache:dl2 (L = linear set index)";
  c.honor_bypass = false;
  c.cite.honor_bypass = "request.h (l1_bypass is an L1 hint; the L2 caches everything)";
  c.perform_atomics = true;
  c.cite.perform_atomics = "book 1.16 (atomics execute in the partition)";
  return c;
}

void L2Params::describe(config::Describer& d) {
  d.group("slice", slice, "One L2 slice (each partition has mem.map.sub_partitions)");
  d.param("rop_latency", rop_latency, "cycles", "Interconnect-to-L2 pipeline delay",
          "GTX480 config gpgpu_l2_rop_latency 120")
      .max(100000);  // upper bounds: real delays are hundreds of cycles at most
  d.param("dram_latency", dram_latency, "cycles", "L2-to-DRAM pipeline delay (L2 cycles)",
          "GTX480 config dram_latency 100")
      .max(100000);
  d.param("atomic_latency", atomic_latency, "cycles",
          "Atomic unit: cycles from a transaction's last operation to its answer",
          "GPGPU-Sim's GTX480 model adds none to "
          "the L2 access: one ALU cycle")
      .range(1, 100000);
  d.param("atomic_same_addr_interval", atomic_same_addr_interval, "cycles",
          "Atomic unit: cycles between two operations to the same address (lanes of one warp "
          "or different warps); 1 / same-address throughput",
          "NVIDIA Kepler GK110 whitepaper (2012): same-address atomic throughput improved 9x "
          "to one operation per clock, so Fermi does one per 9 clocks")
      .range(1, 100000);
  d.param("atomic_addrs_per_cycle", atomic_addrs_per_cycle, "addresses",
          "Atomic unit: distinct addresses of one transaction updated per cycle",
          "assumption: a whole warp's distinct words in one 128-byte line per cycle (no "
          "published per-slice figure found; keeps distinct-address atomics at one "
          "transaction per cycle)")
      .range(1, 32);
  d.param("rop_queue", rop_queue, "requests", "ROP pipeline entries per slice",
          "GTX480 config gpgpu_dram_partition_queues 64:64:64:64 (icnt to L2)")
      .range(1, 65536);  // queues are allocated up front; configs use 64
  d.param("dram_queue", dram_queue, "requests", "L2-to-DRAM pipeline entries",
          "GTX480 config gpgpu_dram_partition_queues (L2 to DRAM)")
      .range(1, 65536);
  d.param("dram_return_queue", dram_return_queue, "responses", "DRAM-to-L2 queue entries",
          "GTX480 config gpgpu_dram_partition_queues (DRAM to L2)")
      .range(1, 65536);
  d.param("response_queue", response_queue, "responses",
          "L2-to-interconnect queue entries per slice",
          "GTX480 config gpgpu_dram_partition_queues (L2 to icnt)")
      .range(1, 65536);
  d.param("memcpy_fills", memcpy_fills, "",
          "Copy-engine writes (cudaMemcpy host-to-device and device-to-device, cudaMemset) "
          "leave the lines they fully write valid (dirty under write_back) in the L2 slices, "
          "as writes that pass through the L2 on their way to DRAM",
          "Fermi: the unified L2 sits between all clients and DRAM and caches DRAM locations "
          "and PCIe traffic (Hennessy & Patterson, CA:AQA 5th ed., ch. 4 on Fermi); L2 as "
          "the DRAM write buffer: NVIDIA patent US 8,234,478; GPGPU-Sim "
          "-gpgpu_perf_sim_memcpy 1 (docs/fidelity.d/4-importer-memcpy.md)");
  d.param("partitions", partitions, "partitions",
          "L2 partitions: 1 = one L2 whose slices are all equally near; 2 = two halves "
          "(channels and SMs split in two), each caching for its own SMs the lines homed in "
          "the other, joined by a link (partition.h)",
          "GTX480 has one L2 (book 1.15); A100/H100 have two (A100 whitepaper: 'each L2 "
          "partition localizes and caches data for memory accesses from SMs in the GPCs "
          "directly connected to the partition')")
      .range(1, 2);
  d.param("partition_link_latency", partition_link_latency, "cycles",
          "Two partitions: one-way delay of the link between mirror slices (L2 cycles; it "
          "includes the home slice's pipeline: requests from the link skip rop_latency)",
          "unused with one partition")
      .max(100000);
  d.param("partition_link_queue", partition_link_queue, "entries",
          "Two partitions: requests (and, separately, answers) in flight on each link "
          "direction of a partition",
          "assumption: as rop_queue (GTX480 config gpgpu_dram_partition_queues 64)")
      .range(1, 65536);
}

MemoryPartition::MemoryPartition(uint32_t id, const L2Params& p, const IcntParams& icnt,
                                 const AddressMap& map, stats::Group& parent, bool keep_data)
    : sim::Component("partition[" + std::to_string(id) + "]"),
      id_(id),
      p_(p),
      icnt_(icnt),
      map_(map),
      dram_q_(p.dram_queue),
      g_(name(), &parent),
      requests_(g_.counter("requests", "requests", "Requests received from the interconnect")),
      rop_stalls_(g_.counter("rop_stalls", "cycles",
                             "Cycles a slice's ready request was refused by the slice")),
      atomics_stat_(g_.counter("atomics", "requests", "Atomics executed")),
      atomic_serialized_(g_.counter("atomic_serialized", "cycles",
                                    "Cycles atomics waited for an earlier one to their address")),
      atomic_ops_(g_.counter("atomic_ops", "operations", "Atomic lane operations performed")),
      atomic_serialized_ops_(
          g_.counter("atomic_serialized_ops", "operations",
                     "Atomic operations that waited for an earlier one to their address")),
      atomic_busy_(g_.counter("atomic_busy_cycles", "cycles",
                              "Cycles the atomic unit issued operations (union of the "
                              "transactions' [start, last operation] windows)")),
      dram_requests_(g_.counter("dram_requests", "requests", "Requests sent to the channel")) {
  CacheOptions opts;
  opts.keep_data = keep_data;
  opts.interleave = map.slice_interleave();
  slices_.resize(map.sub_partitions());
  for (uint32_t s = 0; s < slices_.size(); ++s) {
    const uint32_t global = id * map.sub_partitions() + s;
    slices_[s].cache =
        std::make_unique<Cache>("slice[" + std::to_string(global) + "]", p.slice, g_, opts);
    slices_[s].rop = Ring<Timed>(p.rop_queue);
    slices_[s].resp = Ring<MemResp>(p.response_queue);
  }
  atomics_.reserve(64);
  atom_busy_.reserve(64);
  atom_starts_.reserve(64);
}

MemoryPartition::~MemoryPartition() = default;

void MemoryPartition::connect(std::vector<sim::Port<MemReq>*> icnt_in,
                              std::vector<sim::Port<RespPacket>*> icnt_out,
                              sim::Port<MemReq>* dram_out, sim::Port<MemResp>* dram_in) {
  SIMTLAB_ASSERT(icnt_in.size() == slices_.size() && icnt_out.size() == slices_.size(),
                 "partition port count mismatch");
  for (uint32_t s = 0; s < slices_.size(); ++s) {
    slices_[s].in = icnt_in[s];
    slices_[s].out = icnt_out[s];
  }
  dram_out_ = dram_out;
  dram_in_ = dram_in;
}

void MemoryPartition::connect_peer(uint32_t home_part, sim::Port<MemReq>* req_out,
                                   sim::Port<MemReq>* req_in, sim::Port<MemResp>* resp_out,
                                   sim::Port<MemResp>* resp_in) {
  SIMTLAB_ASSERT(p_.partitions == 2 && map_.channels() % 2 == 0,
                 "partition links need two partitions of whole channels");
  peer_ = std::make_unique<Peer>();
  Peer& pr = *peer_;
  pr.part = home_part;
  pr.half = map_.channels() / 2;
  pr.req_out = req_out;
  pr.req_in = req_in;
  pr.resp_out = resp_out;
  pr.resp_in = resp_in;
  pr.req_q = Ring<Timed>(p_.partition_link_queue);
  pr.resp_q = Ring<TimedResp>(p_.partition_link_queue);
  pr.far_reads = &g_.counter("far_reads", "requests",
                             "Near-copy misses and write-backs of lines homed in the other L2 "
                             "partition, sent over the partition link");
  pr.far_writes = &g_.counter("far_writes", "requests",
                              "Stores and atomics to lines homed in the other partition, "
                              "relayed over the partition link");
  pr.served = &g_.counter("peer_served", "requests",
                          "Requests from the other partition's link served by these slices");
  pr.stalls = &g_.counter("link_stalls", "cycles",
                          "Cycles a request or answer waited for room on the partition link");
}

bool MemoryPartition::far(Addr a) const {
  return peer_ && map_.channel(a) / peer_->half != peer_->part;
}

bool MemoryPartition::peer_tick(uint64_t now, uint64_t* wake) {
  Peer& pr = *peer_;
  bool progress = false;
  const auto soon = [&](uint64_t t) { *wake = std::min(*wake, std::max(t, now + 1)); };
  // Answers to this partition's forwarded requests.
  if (const MemResp* r = pr.resp_in->peek()) {
    Slice& sl = slices_[map_.sub_partition(r->req.addr)];
    if (r->req.peer == 1) {
      sl.cache->fill(pr.resp_in->pop(), now);
      progress = true;
    } else if (sl.resp.size() < p_.response_queue) {
      MemResp resp = pr.resp_in->pop();
      resp.req.peer = 0;
      sl.resp.push_back(std::move(resp));
      progress = true;
    }
  }
  if (!pr.resp_in->empty()) soon(now + 1);
  // The other partition's requests enter their home slice's pipeline (no ROP delay: the link
  // latency stands for it).
  if (const MemReq* q = pr.req_in->peek()) {
    Slice& sl = slices_[map_.sub_partition(q->addr)];
    if (sl.rop.size() < p_.rop_queue) {
      sl.rop.push_back(Timed{now, pr.req_in->pop()});
      ++*pr.served;
      progress = true;
    }
  }
  if (!pr.req_in->empty()) soon(now + 1);
  // The link towards the mirror: one request and one answer per cycle.
  if (!pr.req_q.empty() && pr.req_q.front().ready <= now && pr.req_out->can_send()) {
    pr.req_out->send(pr.req_q.pop_front().req, 1);
    progress = true;
  }
  if (!pr.req_q.empty()) soon(pr.req_q.front().ready);
  if (!pr.resp_q.empty() && pr.resp_q.front().ready <= now && pr.resp_out->can_send()) {
    pr.resp_out->send(pr.resp_q.pop_front().resp, 1);
    progress = true;
  }
  if (!pr.resp_q.empty()) soon(pr.resp_q.front().ready);
  return progress;
}

void MemoryPartition::start_atomic(uint32_t s, MemReq req, bool hit, uint64_t now) {
  const uint64_t interval = p_.atomic_same_addr_interval.v;
  const uint32_t ops = std::max<uint32_t>(req.atomic_ops, 1);
  const uint32_t addrs = std::max<uint32_t>(req.atomic_addrs, 1);
  const uint32_t depth = std::max<uint32_t>(req.atomic_depth, 1);
  // The 4-byte words the transaction updates: its byte range, restricted to the byte mask.
  const Addr blk = block_of(req.addr);
  const uint32_t off = uint32_t(req.addr - blk);
  const uint32_t first = off / 4, last = (off + std::min(req.bytes, kBlockBytes - off) - 1) / 4;
  uint32_t words = 0;  // bit w: word w is updated
  for (uint32_t w = first; w <= last; ++w)
    for (uint32_t k = 0; k < 4; ++k)
      if (req.byte_mask.test(w * 4 + k)) {
        words |= 1u << w;
        break;
      }
  if (!words) words = 1u << first;
  auto it = std::find_if(atom_busy_.begin(), atom_busy_.end(),
                         [blk](const AtomBlock& b) { return b.block == blk; });
  uint64_t start = now;
  if (it != atom_busy_.end())
    for (uint32_t w = first; w <= last; ++w)
      if ((words >> w) & 1) start = std::max(start, it->word[w]);
  if (start > now) {
    atomic_serialized_ += start - now;
    atomic_serialized_ops_ += addrs;  // the first operation to each address waited too
  }
  atomic_serialized_ops_ += ops - addrs;  // lanes behind another lane to their address
  // One transaction start per cycle: the first cycle from `start` on that none booked.
  while (std::find(atom_starts_.begin(), atom_starts_.end(), start) != atom_starts_.end()) ++start;
  atom_starts_.push_back(start);
  const uint64_t width = std::max<uint32_t>(p_.atomic_addrs_per_cycle, 1);
  const uint64_t last_op =
      start + std::max((addrs + width - 1) / width - 1, (depth - 1) * interval);
  const uint64_t done = last_op + p_.atomic_latency.v;
  const uint64_t free_at = start + depth * interval;
  if (it == atom_busy_.end()) {
    atom_busy_.emplace_back();
    it = atom_busy_.end() - 1;
    it->block = blk;
  }
  for (uint32_t w = first; w <= last; ++w)
    if ((words >> w) & 1) it->word[w] = free_at;
  it->until = std::max(it->until, free_at);
  // Busy cycles: the part of [start, last_op] not already counted.
  const uint64_t from = std::max(start, atom_unit_until_);
  if (last_op + 1 > from) atomic_busy_ += last_op + 1 - from;
  atom_unit_until_ = std::max(atom_unit_until_, last_op + 1);
  atomics_.push_back(Atomic{done, atom_seq_++, s, MemResp{std::move(req), hit ? 1u : 0u}});
  ++atomics_stat_;
  atomic_ops_ += ops;
}

bool MemoryPartition::tick() {
  const uint64_t now = cycle();
  bool progress = false;
  uint64_t wake = kNever;
  const auto soon = [&](uint64_t t) { wake = std::min(wake, std::max(t, now + 1)); };

  if (peer_) progress |= peer_tick(now, &wake);

  // Answers from the channel.
  if (dram_in_->peek()) {
    MemResp resp = dram_in_->pop();
    slices_[map_.sub_partition(resp.req.addr)].cache->fill(resp, now);
    progress = true;
  }
  if (!dram_in_->empty()) soon(now + 1);

  // Retire finished atomics (completion order; ties by start order).
  for (;;) {
    size_t best = atomics_.size();
    for (size_t i = 0; i < atomics_.size(); ++i) {
      const Atomic& a = atomics_[i];
      if (a.done > now) continue;
      if (best == atomics_.size() || a.done < atomics_[best].done ||
          (a.done == atomics_[best].done && a.seq < atomics_[best].seq))
        best = i;
    }
    if (best == atomics_.size()) break;
    Slice& sl = slices_[atomics_[best].slice];
    if (sl.resp.size() >= p_.response_queue) break;
    sl.resp.push_back(std::move(atomics_[best].resp));
    atomics_[best] = std::move(atomics_.back());
    atomics_.pop_back();
    progress = true;
  }
  std::erase_if(atom_busy_, [now](const AtomBlock& b) { return b.until <= now; });
  std::erase_if(atom_starts_, [now](uint64_t t) { return t < now; });

  for (uint32_t s = 0; s < slices_.size(); ++s) {
    Slice& sl = slices_[s];
    Cache& c = *sl.cache;
    // 1. Interconnect -> ROP pipeline (two partitions: stores and atomics to lines homed in
    // the other partition go straight onto the link).
    if (peer_ && sl.in->peek() && far(sl.in->peek()->addr) &&
        (sl.in->peek()->kind == AccessKind::store || sl.in->peek()->kind == AccessKind::atomic)) {
      if (peer_->req_q.size() < p_.partition_link_queue) {
        MemReq r = sl.in->pop();
        r.peer = 2;
        peer_->req_q.push_back(Timed{now + p_.partition_link_latency.v, std::move(r)});
        ++requests_;
        ++*peer_->far_writes;
        progress = true;
      } else {
        ++*peer_->stalls;
      }
    } else if (sl.in->peek() && sl.rop.size() < p_.rop_queue) {
      sl.rop.push_back(Timed{now + p_.rop_latency.v, sl.in->pop()});
      ++requests_;
      progress = true;
    }
    if (sl.in->peek()) soon(now + 1);
    // 2. ROP head -> slice.
    if (!sl.rop.empty()) {
      if (sl.rop.front().ready <= now) {
        if (c.access(sl.rop.front().req, now).accepted()) {
          sl.rop.pop_front();
          progress = true;
        } else {
          ++rop_stalls_;
        }
      }
      if (!sl.rop.empty()) soon(sl.rop.front().ready);
    }
    // 3. Slice completions -> atomic unit / response queue.
    if (c.has_ready(now)) {
      if (sl.resp.size() < p_.response_queue) {
        bool hit = false;
        MemReq r = c.pop_ready(now, &hit);
        if (r.kind == AccessKind::atomic) {
          start_atomic(s, std::move(r), hit, now);
        } else {
          sl.resp.push_back(MemResp{std::move(r), hit ? 1u : 0u});
        }
        progress = true;
      }
    }
    if (c.next_ready() != kNever) soon(c.next_ready());
    // 4. Response queue -> interconnect (answers to the other partition: onto the link).
    if (peer_ && !sl.resp.empty() && sl.resp.front().req.peer != 0) {
      if (peer_->resp_q.size() < p_.partition_link_queue) {
        peer_->resp_q.push_back(TimedResp{now + p_.partition_link_latency.v, sl.resp.pop_front()});
        progress = true;
      } else {
        ++*peer_->stalls;
      }
    } else if (!sl.resp.empty() && sl.out->can_send()) {
      sl.out->send(make_response_packet(sl.resp.pop_front(), icnt_), 1);
      progress = true;
    }
    if (!sl.resp.empty()) soon(now + 1);
  }

  // Slice miss queues -> DRAM pipeline (round robin, one per cycle; two partitions: misses of
  // lines homed in the other partition go onto the link instead).
  if (dram_q_.size() < p_.dram_queue || peer_) {
    for (uint32_t k = 0; k < slices_.size(); ++k) {
      const uint32_t s = (rr_ + k) % uint32_t(slices_.size());
      if (!slices_[s].cache->has_miss()) continue;
      if (peer_ && far(slices_[s].cache->peek_miss().addr)) {
        if (peer_->req_q.size() >= p_.partition_link_queue) {
          ++*peer_->stalls;
          continue;
        }
        MemReq r = slices_[s].cache->pop_miss();
        r.peer = 1;
        peer_->req_q.push_back(Timed{now + p_.partition_link_latency.v, std::move(r)});
        ++*peer_->far_reads;
        rr_ = s + 1;
        progress = true;
        break;
      }
      if (dram_q_.size() >= p_.dram_queue) continue;
      dram_q_.push_back(Timed{now + p_.dram_latency.v, slices_[s].cache->pop_miss()});
      rr_ = s + 1;
      ++dram_requests_;
      progress = true;
      break;
    }
  }
  for (const Slice& sl : slices_)
    if (sl.cache->has_miss()) soon(now + 1);
  // DRAM pipeline -> channel.
  if (!dram_q_.empty() && dram_q_.front().ready <= now && dram_out_->can_send()) {
    dram_out_->send(dram_q_.pop_front().req, 1);
    progress = true;
  }
  if (!dram_q_.empty()) soon(dram_q_.front().ready);
  for (const Atomic& a : atomics_) soon(a.done);  // including the ones started this cycle
  if (peer_) {                                    // link entries queued this cycle
    if (!peer_->req_q.empty()) soon(peer_->req_q.front().ready);
    if (!peer_->resp_q.empty()) soon(peer_->resp_q.front().ready);
  }

  if (wake <= now + 1) return progress;
  sleep();
  if (wake != kNever) wake_at(sim().now() + (wake - now) * domain().period());
  return progress;
}

bool MemoryPartition::idle() const {
  if (!dram_q_.empty() || !atomics_.empty() || !dram_in_->empty()) return false;
  if (peer_ && (!peer_->req_q.empty() || !peer_->resp_q.empty() || !peer_->req_in->empty() ||
                !peer_->resp_in->empty()))
    return false;
  for (const Slice& sl : slices_)
    if (!sl.rop.empty() || !sl.resp.empty() || !sl.cache->idle() || !sl.in->empty()) return false;
  return true;
}

}  // namespace simtlab::timing
