#include "timing/mem/dram.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "base/error.h"

namespace simtlab::timing {

namespace {
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
}  // namespace

// ---------------------------------------------------------------------------------------------
// Parameters

namespace {

struct Override {
  const char* name;
  int32_t DramParams::*field;
  uint32_t DramTiming::*value;
  const char* unit;
  const char* desc;
  int32_t lo, hi;  // allowed range besides -1
};

// Bounds: banks as the DRAM model (and mem.map.layout's B bits) allow; burst lengths and data
// rates of real DRAMs are <= 16 beats and <= 8 beats per clock (GDDR6X PAM4: 4 x 2); timing
// parameters are tens of cycles, refresh intervals thousands, so 100000 command cycles is far
// above any real value while keeping a typo from stalling a channel for a billion cycles.
constexpr int32_t kMaxCycles = 100000;
constexpr Override kOverrides[] = {
    {"banks", &DramParams::banks, &DramTiming::banks, "banks", "Banks per channel", 1, 64},
    {"bank_groups", &DramParams::bank_groups, &DramTiming::bank_groups, "groups",
     "Bank groups (bank group = bank mod groups)", 1, 64},
    {"burst_length", &DramParams::burst_length, &DramTiming::burst_length, "beats",
     "Beats per column command", 1, 64},
    {"data_rate", &DramParams::data_rate, &DramTiming::data_rate, "beats/cycle",
     "Beats per command clock (2 = DDR, 4 = QDR)", 1, 16},
    {"tRCD", &DramParams::tRCD, &DramTiming::tRCD, "cycles", "ACT to RD/WR, same bank", 0,
     kMaxCycles},
    {"tRP", &DramParams::tRP, &DramTiming::tRP, "cycles", "PRE to ACT, same bank", 0, kMaxCycles},
    {"tRAS", &DramParams::tRAS, &DramTiming::tRAS, "cycles", "ACT to PRE, same bank", 0,
     kMaxCycles},
    {"tRC", &DramParams::tRC, &DramTiming::tRC, "cycles", "ACT to ACT, same bank", 0, kMaxCycles},
    {"tCL", &DramParams::tCL, &DramTiming::tCL, "cycles", "RD to first data", 0, kMaxCycles},
    {"tWL", &DramParams::tWL, &DramTiming::tWL, "cycles", "WR to first data", 0, kMaxCycles},
    {"tWR", &DramParams::tWR, &DramTiming::tWR, "cycles", "End of write data to PRE", 0,
     kMaxCycles},
    {"tRRD", &DramParams::tRRD, &DramTiming::tRRD, "cycles", "ACT to ACT, different banks", 0,
     kMaxCycles},
    {"tCCD", &DramParams::tCCD, &DramTiming::tCCD, "cycles",
     "Column to column, different bank groups", 0, kMaxCycles},
    {"tCCDL", &DramParams::tCCDL, &DramTiming::tCCDL, "cycles",
     "Column to column, same bank group (0 = tCCD)", 0, kMaxCycles},
    {"tRTP", &DramParams::tRTP, &DramTiming::tRTP, "cycles", "RD to PRE, same bank", 0, kMaxCycles},
    {"tWTR", &DramParams::tWTR, &DramTiming::tWTR, "cycles", "End of write data to RD", 0,
     kMaxCycles},
    {"tRTW", &DramParams::tRTW, &DramTiming::tRTW, "cycles", "RD to WR", 0, kMaxCycles},
    {"tFAW", &DramParams::tFAW, &DramTiming::tFAW, "cycles", "Four-activate window (0 = off)", 0,
     kMaxCycles},
    {"tREFI", &DramParams::tREFI, &DramTiming::tREFI, "cycles", "Refresh interval (0 = no refresh)",
     0, kMaxCycles},
    {"tRFC", &DramParams::tRFC, &DramTiming::tRFC, "cycles", "Refresh cycle time", 0, kMaxCycles},
};

}  // namespace

void DramParams::describe(config::Describer& d) {
  d.param("timing", timing, "", "DRAM organisation and timing set",
          "GTX480 config gpgpu_dram_timing_opt (Hynix H5GQ1H24AFR GDDR5)")
      .one_of(dram_timing_names());
  const std::string timing_path = d.prefix() + ".timing";
  for (const Override& o : kOverrides) {
    const std::string range = fmt::format("[{}, {}]", o.lo, o.hi);
    d.param(o.name, this->*o.field, o.unit,
            std::string(o.desc) + "; -1 keeps the timing set's value",
            "the timing set (mem.dram.timing)")
        .check(
            [lo = o.lo, hi = o.hi, range](const int32_t& v) -> std::optional<std::string> {
              if (v == -1 || (v >= lo && v <= hi)) return std::nullopt;
              return "must be -1 or in " + range;
            },
            "-1 or in " + range)
        .effective([timing_path, value = o.value](
                       const int32_t& v,
                       const config::ValueLookup& get) -> std::optional<config::Effective> {
          if (v != -1) return std::nullopt;
          const std::string set = std::get<std::string>(get(timing_path));
          return config::Effective{std::to_string(dram_timing(set).*value), "timing set " + set,
                                   std::string(dram_timing_source(set))};
        });
  }
  d.param("bus_width", bus_width, "bytes", "Data bus width of one channel",
          "GTX480 config gpgpu_n_mem_per_ctrlr 2 x gpgpu_dram_buswidth 4 (two x32 chips); with "
          "a 700 MHz DRAM clock: 8 channels x 8 B x 4 beats x 700 MHz = 179.2 GB/s (D2MA "
          "Table 1)")
      .range(1, 1024);  // an HBM stack's whole 1024-bit interface is 128 B
  d.param("scheduler", scheduler, "", "Request scheduler",
          "D2MA Table 1 (out-of-order FR-FCFS); GTX480 config gpgpu_dram_scheduler 1")
      .one_of(dram_scheduler_names());
  d.param("queue_size", queue_size, "requests", "Scheduler queue entries",
          "GTX480 config gpgpu_frfcfs_dram_sched_queue_size 64")
      .range(1, 4096);
  d.param("return_queue_size", return_queue_size, "responses", "Return queue entries",
          "GTX480 config gpgpu_dram_return_queue_size 116")
      .range(1, 4096);  // allocated up front; configs use <= 192
}

std::vector<config::Issue> DramParams::validate() const {
  std::vector<config::Issue> r;
  const DramTiming t = resolve();
  // The resolved value as the user should read it: "16" when set, "16 (timing set X)" when -1.
  const auto shown = [&](int32_t DramParams::*field, uint32_t v) {
    return this->*field == -1 ? fmt::format("{} (timing set {})", v, timing) : std::to_string(v);
  };
  const auto from_set = [&](int32_t field) {
    return field == -1 ? ", from timing set " + timing : std::string();
  };
  if (t.banks == 0 || t.banks > 64)
    r.push_back({"banks", "must be in [1, 64]", shown(&DramParams::banks, t.banks)});
  if (t.bank_groups == 0 || t.bank_groups > t.banks || t.banks % t.bank_groups != 0)
    r.push_back({"bank_groups", fmt::format("must divide banks ({}{})", t.banks, from_set(banks)),
                 shown(&DramParams::bank_groups, t.bank_groups)});
  if (t.data_rate == 0)
    r.push_back({"data_rate", "must be >= 1", shown(&DramParams::data_rate, t.data_rate)});
  else if (t.burst_length == 0 || t.burst_length % t.data_rate != 0)
    r.push_back({"burst_length",
                 fmt::format("must be a positive multiple of data_rate ({}{})", t.data_rate,
                             from_set(data_rate)),
                 shown(&DramParams::burst_length, t.burst_length)});
  return r;
}

DramTiming DramParams::resolve() const {
  DramTiming t = dram_timing(timing);
  const auto set = [](uint32_t& field, int32_t v) {
    if (v >= 0) field = uint32_t(v);
  };
  set(t.banks, banks);
  set(t.bank_groups, bank_groups);
  set(t.burst_length, burst_length);
  set(t.data_rate, data_rate);
  set(t.tRCD, tRCD);
  set(t.tRP, tRP);
  set(t.tRAS, tRAS);
  set(t.tRC, tRC);
  set(t.tCL, tCL);
  set(t.tWL, tWL);
  set(t.tWR, tWR);
  set(t.tRRD, tRRD);
  set(t.tCCD, tCCD);
  set(t.tCCDL, tCCDL);
  set(t.tRTP, tRTP);
  set(t.tWTR, tWTR);
  set(t.tRTW, tRTW);
  set(t.tFAW, tFAW);
  set(t.tREFI, tREFI);
  set(t.tRFC, tRFC);
  return t;
}

// ---------------------------------------------------------------------------------------------

struct DramChannel::Entry {
  MemReq req;
  uint64_t seq = 0;
  uint64_t arrival = 0;
  Addr block = 0;
  uint64_t row = 0;
  uint32_t bank = 0;
  uint32_t group = 0;
  uint32_t bursts = 0;
  uint32_t hazards = 0;  // older queued entries to the same block
  bool write = false;
  bool respond = true;
  bool row_miss = false;  // an ACT or PRE was issued for it
};

struct DramChannel::Bank {
  bool open = false;
  uint64_t row = 0;
  uint64_t next_act = 0;
  uint64_t next_pre = 0;
  uint64_t next_col = 0;
};

struct DramChannel::InFlight {
  uint64_t done = 0;
  uint64_t seq = 0;
  MemResp resp;
  // Min-heap order for std::push_heap (which builds a max-heap).
  bool operator<(const InFlight& o) const { return done != o.done ? done > o.done : seq > o.seq; }
};

DramChannel::DramChannel(std::string name, const DramParams& p, const AddressMap& map,
                         stats::Group& parent, bool keep_data)
    : sim::Component(name),
      p_(p),
      t_(p.resolve()),
      map_(map),
      keep_data_(keep_data),
      returnq_(p.return_queue_size),
      g_(std::move(name), &parent),
      reads_(g_.counter("reads", "requests", "Read requests served")),
      writes_(g_.counter("writes", "requests", "Write requests served")),
      requests_(g_.counter("requests", "requests", "Requests served")),
      row_hits_stat_(g_.counter("row_hits", "requests", "Requests served from an open row")),
      row_misses_(g_.counter("row_misses", "requests", "Requests that needed ACT (and PRE)")),
      activates_(g_.counter("activates", "commands", "ACT commands")),
      precharges_(g_.counter("precharges", "commands", "PRE commands")),
      refreshes_(g_.counter("refreshes", "commands", "REF commands")),
      busy_cycles_(g_.counter("busy_cycles", "cycles", "Cycles the data bus carried data")),
      cycles_(g_.counter("cycles", "cycles", "DRAM cycles elapsed (update_stats)")),
      occupancy_sum_(g_.counter("queue_occupancy_sum", "request-cycles",
                                "Queued requests integrated over cycles")),
      latency_sum_(g_.counter("latency_sum", "cycles", "Arrival-to-data-complete cycles")),
      latency_(g_.histogram("latency", "cycles", "Arrival-to-data-complete latency",
                            stats::pow2_bounds(4096))) {
  g_.ratio("row_hit_rate", "", "Row-buffer hits per request", "row_hits", "requests");
  g_.ratio("bandwidth_utilization", "", "Data-bus busy cycles per cycle", "busy_cycles", "cycles");
  g_.ratio("avg_queue_occupancy", "requests", "Mean queued requests", "queue_occupancy_sum",
           "cycles");
  g_.ratio("avg_latency", "cycles", "Mean arrival-to-data-complete latency", "latency_sum",
           "requests");
  // Defence: a resolved Config passes these (DramParams::validate, MemoryParams::validate).
  if (auto issues = p.validate(); !issues.empty())
    throw UserError(config::format_issues("mem.dram", issues));
  if (t_.banks != map.banks())
    fatal("mem.dram.banks ({}) must equal the banks mem.map.layout encodes ({})", t_.banks,
          map.banks());
  burst_bytes_ = p.bus_width * t_.burst_length;
  tburst_ = t_.tBURST();
  tccdl_ = std::max(t_.tCCD, t_.tCCDL);
  sched_ = make_dram_scheduler(p.scheduler, t_.banks);
  slots_.resize(p.queue_size);
  for (int i = int(p.queue_size) - 1; i >= 0; --i) free_.push_back(uint16_t(i));
  order_.reserve(p.queue_size);
  banks_.resize(t_.banks);
  group_next_col_.assign(t_.bank_groups, 0);
  inflight_.reserve(p.return_queue_size + 1);
  cand_.reserve(p.queue_size);
  cand_pos_.reserve(p.queue_size);
  row_hits_.assign(t_.banks, 0);
  next_refresh_ = t_.tREFI;
}

DramChannel::~DramChannel() = default;

void DramChannel::connect(sim::Port<MemReq>* in, sim::Port<MemResp>* out) {
  in_ = in;
  out_ = out;
}

void DramChannel::note(DramCmd c, uint32_t bank, uint64_t row, uint64_t id, uint64_t now) {
  if (observer_) observer_(DramCommand{now, c, bank, row, id});
}

void DramChannel::occupancy(uint64_t now) {
  occupancy_sum_ += order_.size() * (now - occ_last_);
  occ_last_ = now;
}

void DramChannel::accept() {
  const uint64_t now = cycle();
  while (!free_.empty() && in_ && in_->peek()) {
    occupancy(now);
    const uint16_t s = free_.back();
    free_.pop_back();
    Entry& e = slots_[s];
    e.req = in_->pop();
    SIMTLAB_ASSERT(e.req.kind != AccessKind::atomic, "atomics are performed at the L2");
    const DramCoord c = map_.decode(e.req.addr);
    e.seq = seq_++;
    e.arrival = now;
    e.block = block_of(e.req.addr);
    e.row = c.row;
    e.bank = c.bank;
    e.group = c.bank % t_.bank_groups;
    e.bursts = std::max<uint32_t>(1, (payload_bytes(e.req) + burst_bytes_ - 1) / burst_bytes_);
    e.write = e.req.kind == AccessKind::store;
    e.respond = !e.req.writeback;
    e.row_miss = false;
    e.hazards = 0;
    for (uint16_t o : order_)
      if (slots_[o].block == e.block) ++e.hazards;
    order_.push_back(s);
  }
}

uint64_t DramChannel::earliest(const Entry& e, DramCmd cmd) const {
  const Bank& b = banks_[e.bank];
  switch (cmd) {
    case DramCmd::act: {
      uint64_t t = std::max(b.next_act, next_act_any_);
      if (t_.tFAW && faw_n_ == 4) t = std::max(t, faw_[faw_head_] + t_.tFAW);
      return t;
    }
    case DramCmd::pre:
      return b.next_pre;
    case DramCmd::rd:
    case DramCmd::wr: {
      if (e.respond && returnq_.size() + inflight_.size() >= p_.return_queue_size) return kNever;
      const bool rd = cmd == DramCmd::rd;
      uint64_t t = std::max({b.next_col, group_next_col_[e.group], rd ? next_rd_ : next_wr_});
      const uint64_t lat = rd ? t_.tCL : t_.tWL;
      if (bus_free_ > t + lat) t = bus_free_ - lat;
      return t;
    }
    case DramCmd::ref:
      break;
  }
  return kNever;
}

void DramChannel::do_act(Entry& e, uint64_t now) {
  Bank& b = banks_[e.bank];
  b.open = true;
  b.row = e.row;
  b.next_col = now + t_.tRCD;
  b.next_pre = std::max(b.next_pre, now + t_.tRAS);
  b.next_act = std::max(b.next_act, now + t_.tRC);
  next_act_any_ = now + t_.tRRD;
  if (faw_n_ < 4) {
    faw_[(faw_head_ + faw_n_++) % 4] = now;
  } else {
    faw_[faw_head_] = now;
    faw_head_ = (faw_head_ + 1) % 4;
  }
  e.row_miss = true;
  ++activates_;
  note(DramCmd::act, e.bank, e.row, e.req.id, now);
}

void DramChannel::do_pre(uint32_t bank, uint64_t now, uint64_t req_id) {
  Bank& b = banks_[bank];
  b.open = false;
  b.next_act = std::max(b.next_act, now + t_.tRP);
  ++precharges_;
  note(DramCmd::pre, bank, b.row, req_id, now);
}

void DramChannel::do_column(size_t pos, uint64_t now) {
  Entry& e = slots_[order_[pos]];
  Bank& b = banks_[e.bank];
  for (uint32_t g = 0; g < group_next_col_.size(); ++g)
    group_next_col_[g] = std::max(group_next_col_[g], now + (g == e.group ? tccdl_ : t_.tCCD));
  uint64_t end;
  if (e.write) {
    end = now + t_.tWL + tburst_;
    b.next_pre = std::max(b.next_pre, end + t_.tWR);
    next_rd_ = std::max(next_rd_, end + t_.tWTR);
  } else {
    end = now + t_.tCL + tburst_;
    b.next_pre = std::max(b.next_pre, now + t_.tRTP);
    next_wr_ = std::max(next_wr_, now + t_.tRTW);
  }
  bus_free_ = end;
  busy_cycles_ += tburst_;
  note(e.write ? DramCmd::wr : DramCmd::rd, e.bank, e.row, e.req.id, now);
  if (--e.bursts == 0) finish(pos, end);
}

void DramChannel::perform(MemReq& req) {
  std::vector<uint8_t>& v = store_[block_of(req.addr)];
  if (v.empty()) v.assign(kBlockBytes, 0);
  const uint32_t off = uint32_t(req.addr & (kBlockBytes - 1));
  if (req.kind == AccessKind::store) {
    if (!req.data) return;
    const uint32_t units = touched_sectors(req);
    for (uint32_t i = 0; i < req.bytes; ++i) {
      const uint32_t b = off + i;
      if (req.byte_mask.test(b) && (units >> (b / kSectorBytes) & 1)) v[b] = (*req.data)[i];
    }
    return;
  }
  req.data = std::make_shared<std::vector<uint8_t>>(v.begin() + off, v.begin() + off + req.bytes);
}

void DramChannel::finish(size_t pos, uint64_t done) {
  const uint64_t now = cycle();
  const uint16_t s = order_[pos];
  Entry& e = slots_[s];
  if (keep_data_) perform(e.req);
  ++(e.write ? writes_ : reads_);
  ++requests_;
  ++(e.row_miss ? row_misses_ : row_hits_stat_);
  latency_sum_ += done - e.arrival;
  latency_.sample(done - e.arrival);
  for (size_t i = pos + 1; i < order_.size(); ++i) {
    Entry& y = slots_[order_[i]];
    if (y.block == e.block && y.hazards) --y.hazards;
  }
  if (e.respond) {
    inflight_.push_back(InFlight{done, e.seq, MemResp{std::move(e.req), 0}});
    std::push_heap(inflight_.begin(), inflight_.end());
  }
  e.req = MemReq{};
  occupancy(now);
  order_.erase(order_.begin() + ptrdiff_t(pos));
  free_.push_back(s);
}

bool DramChannel::refresh_step(uint64_t now, uint64_t* wake) {
  uint64_t w = kNever;
  bool all_closed = true;
  for (uint32_t b = 0; b < banks_.size(); ++b) {
    if (!banks_[b].open) continue;
    all_closed = false;
    if (banks_[b].next_pre <= now) {
      do_pre(b, now, 0);
      return true;
    }
    w = std::min(w, banks_[b].next_pre);
  }
  if (!all_closed) {
    *wake = w;
    return false;
  }
  uint64_t ready = 0;
  for (const Bank& b : banks_) ready = std::max(ready, b.next_act);
  if (ready > now) {
    *wake = ready;
    return false;
  }
  for (Bank& b : banks_) b.next_act = std::max(b.next_act, now + t_.tRFC);
  next_refresh_ += t_.tREFI;
  refresh_pending_ = false;
  ++refreshes_;
  note(DramCmd::ref, 0, 0, 0, now);
  return true;
}

bool DramChannel::issue(uint64_t now, uint64_t* wake) {
  cand_.clear();
  cand_pos_.clear();
  std::fill(row_hits_.begin(), row_hits_.end(), 0);
  uint64_t w = kNever;
  for (size_t pos = 0; pos < order_.size(); ++pos) {
    const Entry& e = slots_[order_[pos]];
    if (e.hazards) continue;
    const Bank& b = banks_[e.bank];
    DramCandidate c;
    c.bank = e.bank;
    if (b.open && b.row == e.row) {
      c.cmd = e.write ? DramCmd::wr : DramCmd::rd;
      c.row_hit = true;
      ++row_hits_[e.bank];
    } else {
      c.cmd = b.open ? DramCmd::pre : DramCmd::act;
    }
    const uint64_t t = earliest(e, c.cmd);
    c.ready = t <= now;
    if (!c.ready) w = std::min(w, t);
    cand_.push_back(c);
    cand_pos_.push_back(uint16_t(pos));
  }
  if (cand_.empty()) {
    *wake = kNever;
    return false;
  }
  const int k = sched_->pick(cand_, row_hits_);
  if (k < 0) {
    *wake = w == kNever ? now + 1 : w;
    return false;
  }
  SIMTLAB_ASSERT(cand_[k].ready, "DRAM scheduler picked a command that is not legal yet");
  const size_t pos = cand_pos_[k];
  Entry& e = slots_[order_[pos]];
  switch (cand_[k].cmd) {
    case DramCmd::act:
      do_act(e, now);
      break;
    case DramCmd::pre:
      e.row_miss = true;
      do_pre(e.bank, now, e.req.id);
      break;
    default:
      do_column(pos, now);
      break;
  }
  return true;
}

bool DramChannel::tick() {
  const uint64_t now = cycle();
  bool progress = false;
  // A channel that slept through refresh deadlines with nothing queued refreshed exactly at
  // them (its banks were idle): account for that now.
  if (t_.tREFI && !refresh_pending_ && order_.empty() && now >= next_refresh_) {
    const uint64_t n = (now - next_refresh_) / t_.tREFI;
    const uint64_t last = next_refresh_ + n * t_.tREFI;
    for (Bank& b : banks_) {
      b.open = false;
      b.next_act = std::max(b.next_act, last + t_.tRFC);
    }
    refreshes_ += n + 1;
    note(DramCmd::ref, 0, 0, 0, last);
    next_refresh_ = last + t_.tREFI;
  }
  const size_t before = order_.size();
  accept();
  progress |= order_.size() != before;
  while (!inflight_.empty() && inflight_.front().done <= now) {
    std::pop_heap(inflight_.begin(), inflight_.end());
    returnq_.push_back(std::move(inflight_.back().resp));
    inflight_.pop_back();
  }
  if (!returnq_.empty() && out_->can_send()) {
    out_->send(returnq_.pop_front(), 1);
    progress = true;
  }
  if (t_.tREFI && !refresh_pending_ && !order_.empty() && now >= next_refresh_)
    refresh_pending_ = true;
  uint64_t wake = kNever;
  const bool issued = refresh_pending_ ? refresh_step(now, &wake) : issue(now, &wake);
  progress |= issued;
  if (issued || !returnq_.empty()) return progress;
  if (!inflight_.empty()) wake = std::min(wake, inflight_.front().done);
  if (t_.tREFI && !order_.empty()) wake = std::min(wake, next_refresh_);
  if (wake <= now + 1) return progress;
  sleep();
  if (wake != kNever) wake_at(sim().now() + (wake - now) * domain().period());
  return progress;
}

void DramChannel::update_stats() {
  const uint64_t now = cycle();
  occupancy(now);
  cycles_.value = now;
}

bool DramChannel::idle() const { return order_.empty() && inflight_.empty() && returnq_.empty(); }

}  // namespace simtlab::timing
