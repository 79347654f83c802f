#include "ext/d2ma/d2ma.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "base/error.h"
#include "func/memory.h"
#include "func/program.h"
#include "func/warp.h"
#include "timing/sm/sm.h"
#include "timing/trace.h"

namespace simtlab::ext::d2ma {

using timing::MemReq;
using timing::MemResp;

namespace {
// Request ids of the engine: bit 62 set, the pending-table index below.
constexpr uint64_t kTag = uint64_t(1) << 62;
constexpr uint32_t kBlock = 128;

uint32_t sectors_of(uint32_t off, uint32_t size) {
  uint32_t m = 0;
  for (uint32_t s = off / 32; s <= (off + size - 1) / 32; ++s) m |= 1u << s;
  return m;
}

// Appends byte run [a, a + size) of global memory going to shared address `s`, starting a new
// request when the run leaves the current segment (`seg` bytes); `cost` is added to the
// request the run lands in.
void add_run(Plan& pl, uint64_t a, uint32_t size, uint32_t s, uint32_t seg, uint32_t cost,
             bool new_req_each_segment_only) {
  (void)new_req_each_segment_only;
  while (size) {
    const uint64_t sg = a & ~uint64_t(seg - 1);
    const uint32_t take = uint32_t(std::min<uint64_t>(size, sg + seg - a));
    const uint64_t blk = a & ~uint64_t(kBlock - 1);
    const uint64_t cur_seg =
        pl.reqs.empty()
            ? ~uint64_t(0)
            : (pl.reqs.back().block +
               (pl.reqs.back().pieces.empty() ? 0 : pl.reqs.back().pieces.front().goff)) &
                  ~uint64_t(seg - 1);
    if (pl.reqs.empty() || cur_seg != sg) {
      Request r;
      r.block = blk;
      r.cost = 0;
      pl.reqs.push_back(std::move(r));
    }
    Request& r = pl.reqs.back();
    const uint32_t off = uint32_t(a - blk);
    if (!r.pieces.empty() && r.pieces.back().goff + r.pieces.back().size == off &&
        r.pieces.back().soff + r.pieces.back().size == s)
      r.pieces.back().size += take;
    else
      r.pieces.push_back({off, s, take});
    r.sectors |= sectors_of(off, take);
    r.cost += cost;
    a += take;
    s += take;
    size -= take;
  }
}
}  // namespace

Plan plan_transfer(const Desc& d, uint32_t seg) {
  Plan pl;
  const uint32_t es = d.esize;
  const auto pad = [&](uint32_t i) { return d.mode == 1 && d.n_or_hr ? i + i / d.n_or_hr : i; };
  if (d.mode == 2 && d.cols) {  // halo frame (spec 1.8)
    const uint32_t R = d.n, C = d.cols, hr = d.n_or_hr, hc = d.hc;
    const uint32_t FR = R + 2 * hr, FC = C + 2 * hc;
    const uint32_t g = d.region;
    const bool clipT = g >= 1 && g <= 3, clipB = g >= 6 && g <= 8;
    const bool clipL = g == 1 || g == 4 || g == 6, clipR = g == 3 || g == 5 || g == 8;
    for (uint32_t fr = 0; fr < FR; ++fr) {
      const int64_t gr = int64_t(fr) - int64_t(hr);
      const uint32_t row = d.sbase + fr * FC * es;
      if ((gr < 0 && clipT) || (gr >= int64_t(R) && clipB)) {
        for (uint32_t c = 0; c < FC; ++c) pl.fills.push_back({row + c * es, es});
        continue;
      }
      const uint32_t lo = clipL ? hc : 0, hi = clipR ? hc + C : FC;
      for (uint32_t c = 0; c < lo; ++c) pl.fills.push_back({row + c * es, es});
      for (uint32_t c = hi; c < FC; ++c) pl.fills.push_back({row + c * es, es});
      const uint64_t a =
          d.gbase + uint64_t((gr * int64_t(d.stride) + int64_t(lo) - int64_t(hc)) * int64_t(es));
      const size_t before = pl.reqs.size();
      add_run(pl, a, (hi - lo) * es, row + lo * es, seg, 0, true);
      for (size_t i = before; i < pl.reqs.size(); ++i) pl.reqs[i].cost = 1;
    }
    pl.footprint = FR * FC * es;
    pl.paper_bytes = R * C * es;
    return pl;
  }
  if (d.cols) {  // 2D row-major: unit stride per row
    for (uint32_t r = 0; r < d.n; ++r) {
      const uint64_t a = d.gbase + uint64_t(r) * d.stride * es;
      const size_t before = pl.reqs.size();
      if (d.mode == 1) {
        for (uint32_t c = 0; c < d.cols; ++c)
          add_run(pl, a + c * es, es, d.sbase + pad(r * d.cols + c) * es, seg, 0, true);
      } else {
        add_run(pl, a, d.cols * es, d.sbase + r * d.cols * es, seg, 0, true);
      }
      for (size_t i = before; i < pl.reqs.size(); ++i) pl.reqs[i].cost = 1;
    }
    const uint32_t n = d.n * d.cols;
    pl.footprint = n ? (pad(n - 1) + 1) * es : 0;
    pl.paper_bytes = n * es;
    return pl;
  }
  if (d.stride == 1) {  // flat unit stride: one segment per cycle
    if (d.mode == 1) {
      for (uint32_t i = 0; i < d.n; ++i)
        add_run(pl, d.gbase + uint64_t(i) * es, es, d.sbase + pad(i) * es, seg, 0, true);
    } else {
      add_run(pl, d.gbase, d.n * es, d.sbase, seg, 0, true);
    }
    for (Request& r : pl.reqs) r.cost = 1;
  } else {  // strided: one element examined per cycle
    for (uint32_t i = 0; i < d.n; ++i)
      add_run(pl, d.gbase + uint64_t(i) * d.stride * es, es, d.sbase + pad(i) * es, seg, 1, true);
  }
  pl.footprint = d.n ? (pad(d.n - 1) + 1) * es : 0;
  pl.paper_bytes = d.n * es;
  return pl;
}

// ---- the port ---------------------------------------------------------------------------

class Engine::Port : public timing::SmMemPort {
 public:
  explicit Port(Engine& e) : e_(e) {}
  bool can_send() override { return e_.below_->can_send(); }
  void send(const MemReq& r) override {
    e_.ldst_sent_at_ = e_.now_;
    e_.below_->send(r);
  }
  const MemResp* peek() override {
    while (const MemResp* r = e_.below_->peek()) {
      if (!(r->req.id & kTag)) return r;
      e_.on_response(e_.below_->pop());
    }
    return nullptr;
  }
  MemResp pop() override { return e_.below_->pop(); }
  void set_waiter(sim::Component* c) override { e_.below_->set_waiter(c); }

 private:
  Engine& e_;
};

Engine::Engine(const D2maParams& p, uint32_t sm_id, uint32_t max_ctas, uint32_t num_warps,
               stats::Group& sm, timing::SmMemPort* below)
    : p_(p),
      sm_(sm_id),
      nbuf_(p.buffers_per_cta),
      all_warps_(p.ignite_policy == "all_warps"),
      round_robin_(p.agen_arbitration == "round_robin"),
      nwarps_(num_warps),
      below_(below),
      port_(std::make_unique<Port>(*this)),
      g_(sm.child("d2ma")),
      cfg_calls_(g_.counter("intrinsic_calls", "warp calls",
                            "D2MA intrinsic calls taken by the engine (all warps)")),
      ignitions_(g_.counter("ignitions", "transfers", "Transfers ignited (configure/execute)")),
      replays_(g_.counter("replays", "warp calls",
                          "Configure/execute calls refused (buffer in flight or no free BMT "
                          "entry): the warp re-executes the call")),
      requests_(g_.counter("requests", "requests", "Global requests the AGEN generated")),
      bytes_(g_.counter("bytes", "bytes", "Bytes the engine transferred from global memory")),
      fill_bytes_(g_.counter("l1_fills_avoided", "bytes",
                             "Bytes written straight into shared memory (no L1D fill, no "
                             "register write)")),
      halo_stores_(g_.counter("halo_const_stores", "elements", "Halo constant cells written")),
      agen_busy_(g_.counter("agen_busy_cycles", "cycles", "Cycles the AGEN served a buffer")),
      port_lost_(g_.counter("port_lost", "cycles",
                            "AGEN cycles with a request ready that lost the port to the LD/ST "
                            "unit (it has priority)")),
      port_full_(g_.counter("port_full", "cycles",
                            "AGEN cycles with a request ready and the SM's port full")),
      mshr_full_(g_.counter("mshr_full", "cycles",
                            "AGEN cycles with a request ready and no free L1D MSHR")),
      raw_squashes_(g_.counter("raw_squashes", "warp instructions",
                               "Shared accesses squashed by the RAW check (warp -> WAIT_DMA)")),
      wait_cycles_(g_.counter("wait_dma_warp_cycles", "warp-cycles",
                              "Warps in WAIT_DMA, summed "
                              "over cycles")),
      all_wait_cycles_(g_.counter("all_wait_cycles", "cycles",
                                  "Cycles in which every live warp of the SM is in WAIT_DMA")),
      releases_(g_.counter("releases", "warps", "Warps released from WAIT_DMA")),
      transfers_(g_.counter("transfers", "transfers", "Transfers completed")),
      agen_time_(g_.counter("agen_cycles", "cycles",
                            "Sum over transfers of ignition to first request (AGEN time)")),
      mem_time_(g_.counter("mem_cycles", "cycles",
                           "Sum over transfers of first request to last fill (MEM time)")),
      agen_span_(g_.counter("agen_span_cycles", "cycles",
                            "Sum over transfers of ignition to last request (the baseline's "
                            "AGEN definition, d2ma.xfer_regions)")),
      concurrent_(g_.histogram("concurrent_buffers", "buffers",
                               "Buffers of the CTA in flight when a transfer ignites",
                               {1, 2, 3, 4, 8, 16})) {
  g_.ratio("agen_cycles_per_transfer", "cycles", "AGEN time per transfer", "agen_cycles",
           "transfers");
  g_.ratio("mem_cycles_per_transfer", "cycles", "MEM time per transfer", "mem_cycles", "transfers");
  ctrls_.resize(max_ctas);
  for (Ctrl& c : ctrls_) c.e.resize(nbuf_);
  waiting_.assign(num_warps, 0);
}

Engine::~Engine() = default;

timing::SmMemPort* Engine::port() { return port_.get(); }

Engine::Ctrl& Engine::ctrl_of(const timing::WarpSlot& w) {
  const uint32_t c = uint32_t(w.cta - ctas_);
  Ctrl& k = ctrls_[c];
  if (k.cta != w.cta->cta.get() || k.start != w.cta->start_cycle) {  // a new CTA: reset
    k = Ctrl{};
    k.cta = w.cta->cta.get();
    k.start = w.cta->start_cycle;
    k.bind = next_bind_++;
    k.e.resize(nbuf_);
    k.execn.assign(nwarps_, std::vector<uint32_t>(nbuf_, 0));
  }
  return k;
}

void Engine::cta_done(uint32_t c) {
  Ctrl& k = ctrls_[c];
  for (auto it = agen_q_.begin(); it != agen_q_.end();)
    it = it->first == c ? agen_q_.erase(it) : it + 1;
  k = Ctrl{};  // unbound: responses of its requests find a different binding and are dropped
}

void Engine::begin_issue(uint64_t now, const std::vector<timing::WarpSlot>& warps) {
  (void)now;
  uint32_t live = 0, wait = 0;
  for (const timing::WarpSlot& w : warps) {
    if (!w.active || w.func_done) continue;
    ++live;
    wait += waiting_[w.slot];
  }
  wait_cycles_ += wait;
  if (live && wait == live) ++all_wait_cycles_;
}

bool Engine::may_issue(const timing::WarpSlot& w, const func::DInst& d) const {
  cur_ = &w;
  if (waiting_[w.slot]) return false;
  const Ctrl& k = ctrls_[uint32_t(w.cta - ctas_)];
  if (!k.inflight || k.cta != w.cta->cta.get()) return true;
  if (d.exec != ptx::ExecClass::mem || !d.in) return true;
  const ptx::Op op = d.in->op;
  const bool load = op == ptx::Op::ld || op == ptx::Op::ldu;
  const bool store = op == ptx::Op::st || op == ptx::Op::atom || op == ptx::Op::red;
  if (!load && !(store && p_.check_stores)) return true;
  if (d.aspace != func::AddrSpace::shared && d.aspace != func::AddrSpace::generic) return true;
  if (d.addr.frame) return true;
  const func::Warp& fw = *w.fw;
  const LaneMask lanes = fw.stack.back().mask & ~fw.exited;
  const uint32_t size = uint32_t(d.elem_size) * d.vec;
  for (unsigned l = 0; l < 32; ++l) {
    if (!(lanes >> l & 1)) continue;
    uint64_t a = d.addr.off;
    if (d.addr.base_slot >= 0) a += fw.R[size_t(d.addr.base_slot) * kMaxWarpSize + l];
    a &= d.addr.mask;
    if (d.aspace == func::AddrSpace::generic) {
      if (a < func::kSharedWindow || a >= func::kSharedWindow + (uint64_t(1) << 32)) continue;
      a -= func::kSharedWindow;
    }
    for (uint32_t i = 0; i < nbuf_; ++i) {
      const Entry& x = k.e[i];
      if (!x.valid || !in_flight(x)) continue;
      // all_warps: a warp that has not arrived for the pending generation still reads the
      // previous one (complete); it is not held (it must arrive for the transfer to start).
      if (all_warps_ && k.execn[w.slot][i] <= x.done_gen) continue;
      const uint64_t lo = x.desc.sbase;
      const uint64_t hi = lo + (p_.raw_range == "paper" ? x.plan.paper_bytes : x.plan.footprint);
      if (a < hi && a + size > lo) {
        waiting_[w.slot] = 1;
        const_cast<Ctrl&>(k).waiters.push_back(w.slot);
        ++raw_squashes_;
        return false;
      }
    }
  }
  return true;
}

bool Engine::d2ma_call(func::ExecContext& cx, func::Warp& w, const func::DInst& d,
                       const func::CallDesc& c, LaneMask e) {
  if (!e) return true;
  const timing::WarpSlot& ws = *cur_;
  Ctrl& k = ctrl_of(ws);
  const unsigned l = unsigned(__builtin_ctz(e));
  auto arg = [&](size_t i) { return func::call_arg(cx, w, d, c, i, l); };
  ++cfg_calls_;
  switch (c.d2ma) {
    case func::CallDesc::d2ma_init:
      return true;
    case func::CallDesc::d2ma_set_datatype:
      k.esize = uint32_t(arg(0));
      return true;
    case func::CallDesc::d2ma_set_mode:
      k.mode = uint32_t(arg(0));
      k.n_or_hr = uint32_t(arg(1));
      k.hc = uint32_t(arg(2));
      k.hconst = arg(3);
      return true;
    default:
      break;
  }
  const bool cfg = c.d2ma == func::CallDesc::d2ma_configure;
  const uint32_t sbase = uint32_t(arg(0));
  const uint64_t gbase = arg(1);
  // BMT lookup by shared base (CAM), else a free or finished entry.
  int32_t idx = -1;
  for (uint32_t i = 0; i < nbuf_; ++i)
    if (k.e[i].valid && k.e[i].desc.sbase == sbase) idx = int32_t(i);
  if (idx < 0) {
    if (!cfg) {
      throw GuestError(
          fmt::format("dma_execute on shared address {:#x}, which no "
                      "dma_configure_* set up in this CTA",
                      sbase));
    }
    for (uint32_t i = 0; i < nbuf_ && idx < 0; ++i)
      if (!k.e[i].valid) idx = int32_t(i);
    for (uint32_t i = 0; i < nbuf_ && idx < 0; ++i)
      if (k.e[i].state == State::done) idx = int32_t(i);
    if (idx < 0) {
      ++replays_;
      return false;
    }
    Entry& x = k.e[uint32_t(idx)];
    x = Entry{};
    x.valid = true;
    x.desc.sbase = sbase;
    for (auto& v : k.execn) v[uint32_t(idx)] = 0;
  }
  Entry& x = k.e[uint32_t(idx)];
  uint32_t& seen = k.execn[ws.slot][uint32_t(idx)];
  const uint32_t gen = seen + 1;
  if (gen <= x.epoch) {  // a faster warp ignited this generation: commit
    seen = gen;
    return true;
  }
  auto set_desc = [&] {
    if (cfg) {
      Desc& dd = x.desc;
      dd.n = uint32_t(arg(2));
      dd.cols = uint32_t(arg(3));
      dd.stride = uint32_t(arg(4));
      dd.region = uint32_t(arg(5));
      dd.esize = k.esize;
      dd.mode = k.mode;
      dd.n_or_hr = k.n_or_hr;
      dd.hc = k.hc;
      dd.hconst = k.hconst;
    } else {
      x.desc.region = uint32_t(arg(2));
    }
    x.desc.gbase = gbase;
  };
  if (all_warps_) {
    // Every live warp of the CTA must arrive; early arrivals commit and the buffer counts as
    // in flight from the first arrival on (their reads of it wait for the transfer).
    if (x.state != State::armed) {
      if (in_flight(x)) {
        ++replays_;
        return false;
      }
      x.state = State::armed;
      x.arrivals = 0;
      busy(uint32_t(ws.cta - ctas_), now_);
      ++k.inflight;
      // The RAW check needs the buffer's range from the first arrival on (every warp passes
      // the same descriptor).
      set_desc();
      x.plan = plan_transfer(x.desc, p_.segment_bytes);
    }
    seen = gen;
    if (++x.arrivals < ws.cta->live_warps) return true;
  } else if (in_flight(x)) {  // the buffer's previous transfer is still running
    ++replays_;
    return false;
  }
  x.arrivals = 0;
  set_desc();
  x.epoch = gen;
  seen = gen;
  ignite(uint32_t(ws.cta - ctas_), uint32_t(idx), now_);
  return true;
}

uint8_t* Engine::shared_of(uint32_t c, uint32_t addr, uint32_t size) {
  auto* cta = static_cast<const func::Cta*>(ctrls_[c].cta);
  auto& sh = const_cast<std::vector<uint8_t>&>(cta->shared);
  if (uint64_t(addr) + size > sh.size())
    throw GuestError(
        fmt::format("D2MA transfer writes shared bytes [{:#x}, {:#x}) outside the "
                    "CTA's {} bytes of shared memory",
                    addr, uint64_t(addr) + size, sh.size()));
  return sh.data() + addr;
}

void Engine::busy(uint32_t c, uint64_t now) {
  Ctrl& ct = ctrls_[c];
  if (ct.inflight || !ct.idle) return;
  ct.idle = false;
  if (trace_)
    trace_->d2ma_compute(sm_, c, static_cast<const func::Cta*>(ct.cta)->linear_id, ct.idle_since,
                         now);
}

void Engine::ignite(uint32_t c, uint32_t k, uint64_t now) {
  Ctrl& ct = ctrls_[c];
  Entry& x = ct.e[k];
  x.plan = plan_transfer(x.desc, p_.segment_bytes);
  if (x.state != State::armed) {
    busy(c, now);
    ++ct.inflight;
  }
  x.state = State::ready;
  x.next = 0;
  x.cost_left = x.plan.reqs.empty() ? 0 : x.plan.reqs[0].cost;
  x.outstanding = 0;
  x.t_exec = now;
  x.sent_any = false;
  ++ignitions_;
  concurrent_.sample(ct.inflight);
  // Halo constants are written while the requests are in flight (functionally: now; the RAW
  // check keeps every warp from seeing the frame before the transfer completes).
  for (const auto& [a, size] : x.plan.fills) {
    std::memcpy(shared_of(c, a, size), &x.desc.hconst, size);
    ++halo_stores_;
  }
  agen_q_.push_back({c, k});
}

void Engine::complete(uint32_t c, uint32_t k, uint64_t now) {
  Ctrl& ct = ctrls_[c];
  Entry& x = ct.e[k];
  x.state = State::done;
  x.done_gen = x.epoch;
  --ct.inflight;
  if (!ct.inflight) {
    ct.idle = true;
    ct.idle_since = now;
  }
  ++transfers_;
  const uint64_t first = x.sent_any ? x.t_first : now;
  agen_time_ += first - x.t_exec;
  mem_time_ += now - first;
  agen_span_ += (x.sent_any ? x.t_last : now) - x.t_exec;
  if (trace_)
    trace_->d2ma_transfer(sm_, c, k, static_cast<const func::Cta*>(ct.cta)->linear_id, x.t_exec,
                          first, now);
  for (uint32_t s : ct.waiters) {
    if (waiting_[s]) ++releases_;
    waiting_[s] = 0;
  }
  ct.waiters.clear();
}

void Engine::on_response(const MemResp& r) {
  const uint32_t i = uint32_t(r.req.id & ~kTag);
  Pending pd = std::move(pend_[i]);
  pend_free_.push_back(i);
  --outstanding_;
  Ctrl& ct = ctrls_[pd.ctrl];
  if (ct.bind != pd.bind) return;  // the CTA is gone
  for (const Piece& p : pd.req.pieces) {
    const uint8_t* src = gmem_ ? gmem_->translate(pd.req.block + p.goff, p.size) : nullptr;
    if (!src)
      throw GuestError(fmt::format("D2MA transfer reads unmapped global memory at {:#x}",
                                   pd.req.block + p.goff));
    std::memcpy(shared_of(pd.ctrl, p.soff, p.size), src, p.size);
    fill_bytes_ += p.size;
  }
  Entry& x = ct.e[pd.entry];
  if (--x.outstanding == 0 && x.state == State::draining) complete(pd.ctrl, pd.entry, now_);
}

bool Engine::tick(uint64_t now) {
  now_ = now;
  if (agen_q_.empty()) return false;
  const auto [c, k] = agen_q_.front();
  Ctrl& ct = ctrls_[c];
  Entry& x = ct.e[k];
  ++agen_busy_;
  x.state = State::generating;
  if (x.next < x.plan.reqs.size()) {
    if (x.cost_left > 1) {  // strided: one element examined per cycle
      --x.cost_left;
      return true;
    }
    if (ldst_sent_at_ == now) {
      ++port_lost_;
      return true;
    }
    if (!below_->can_send()) {
      ++port_full_;
      return true;
    }
    if (!p_.infinite_mshrs && l1d_ && l1d_->mshrs_in_use() + outstanding_ >= l1d_->params().mshrs) {
      ++mshr_full_;
      return true;
    }
    Request& rq = x.plan.reqs[x.next];
    MemReq m;
    uint32_t slot;
    if (!pend_free_.empty()) {
      slot = pend_free_.back();
      pend_free_.pop_back();
    } else {
      slot = uint32_t(pend_.size());
      pend_.emplace_back();
    }
    m.id = kTag | slot;
    m.addr = rq.block;
    m.bytes = kBlock;
    m.sector_mask = rq.sectors;
    m.kind = timing::AccessKind::load;
    m.sm = uint16_t(sm_);
    m.l1_bypass = true;
    m.issue_cycle = now;
    for (const Piece& p : rq.pieces) bytes_ += p.size;
    pend_[slot] = Pending{c, k, ct.bind, std::move(rq)};
    below_->send(m);
    ++outstanding_;
    ++x.outstanding;
    ++requests_;
    if (!x.sent_any) {
      x.sent_any = true;
      x.t_first = now;
    }
    x.t_last = now;
    ++x.next;
    x.cost_left = x.next < x.plan.reqs.size() ? x.plan.reqs[x.next].cost : 0;
    if (round_robin_ && x.next < x.plan.reqs.size() && agen_q_.size() > 1) {
      agen_q_.push_back(agen_q_.front());  // round_robin: the next buffer's turn
      agen_q_.pop_front();
      return true;
    }
  }
  if (x.next >= x.plan.reqs.size()) {  // generated: the AGEN takes the next buffer
    agen_q_.pop_front();
    x.state = State::draining;
    if (x.outstanding == 0) complete(c, k, now);
  }
  return true;
}

}  // namespace simtlab::ext::d2ma
