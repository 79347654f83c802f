#include "timing/sm/sm.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/bits.h"
#include "base/error.h"
#include "ext/classify/classify.h"
#include "ext/d2ma/d2ma.h"
#include "ext/dwf/dwf.h"
#include "ext/dwf/dwf_stats.h"
#include "ext/greener/greener.h"
#include "ext/its/its_stats.h"
#include "ext/its/simt_stats.h"
#include "ext/lpc/lpc_stats.h"
#include "ext/rfc/rfc.h"
#include "ext/sharing/sharing.h"
#include "ext/sm_policies.h"
#include "ext/tbc/tbc_stats.h"
#include "timing/gpu/gpu.h"
#include "timing/sm/tma.h"
#include "timing/trace.h"

namespace simtlab::timing {

using ptx::ExecClass;

namespace {
std::vector<std::string> exec_class_labels() {
  std::vector<std::string> v;
  for (unsigned i = 0; i < unsigned(ExecClass::count_); ++i)
    v.emplace_back(ptx::exec_class_name(ExecClass(i)));
  return v;
}
}  // namespace

void Sm::enable_power_counters() {
  if (!power_) power_ = std::make_unique<PowerCounters>(g_, exec_class_labels());
}

Sm::Sm(uint32_t id, const SmParams& p, stats::Group& parent, SmMemPort* port)
    : sim::Component(fmt::format("sm[{}]", id)),
      id_(id),
      p_(p),
      port_(port),
      g_(fmt::format("sm[{}]", id), &parent),
      cycles_(g_.counter("cycles", "cycles", "Core cycles simulated while the SM was awake")),
      active_cycles_(
          g_.counter("active_cycles", "cycles", "Cycles with at least one resident CTA")),
      warp_insts_(g_.counter("warp_insts", "warp instructions", "Warp instructions issued")),
      thread_insts_(g_.counter("thread_insts", "thread instructions",
                               "Thread instructions executed (active lanes)")),
      issue_slots_(
          g_.counter("issue_slots", "slots", "Scheduler issue slots (schedulers x cycles)")),
      stalls_(g_.vector(
          "stall", "slots", "Why each scheduler slot did or did not issue (sums to issue_slots)",
          stall_labels(sm_policies_on(p) || p.sharing.on(), p.sharing.on(), p.greener.on()))),
      resident_warp_cycles_(
          g_.counter("resident_warp_cycles", "warp-cycles", "Sum over cycles of resident warps")),
      ctas_launched_(g_.counter("ctas", "CTAs", "CTAs run on this SM")),
      bank_conflicts_(g_.counter("reg_bank_conflicts", "cycles",
                                 "Operand reads delayed by a register-bank conflict")),
      divergent_branches_(
          g_.counter("divergent_branches", "branches", "Branches that split a warp")),
      inst_classes_(g_.vector("inst_class", "warp instructions",
                              "Issued warp instructions by execution class", exec_class_labels())),
      fetches_(g_.counter("fetches", "accesses", "Instruction-buffer refills")),
      icache_misses_(g_.counter("icache_stall_fetches", "accesses",
                                "Fetches that missed or were refused by the I-cache")) {
  g_.ratio("ipc", "thread inst/cycle", "Thread instructions per active cycle", "thread_insts",
           "active_cycles");
  g_.ratio("warp_ipc", "warp inst/cycle", "Warp instructions per active cycle", "warp_insts",
           "active_cycles");
  g_.ratio("occupancy", "warps", "Average resident warps per active cycle", "resident_warp_cycles",
           "active_cycles");
  g_.ratio("simd_efficiency", "lanes/warp inst", "Average active lanes per warp instruction",
           "thread_insts", "warp_insts");
  g_.ratio("issue_utilization", "", "Fraction of issue slots that issued", "stall::issued",
           "issue_slots");
  warps_.resize(p_.num_warps);
  for (uint32_t i = 0; i < p_.num_warps; ++i) {
    warps_[i].slot = i;
    warps_[i].sched = i % p_.num_schedulers;
  }
  ctas_.resize(p_.max_ctas);
  for (uint32_t s = 0; s < p_.num_schedulers; ++s)
    scheds_.push_back(make_scheduler(p_.scheduler, p_.two_level_active));
  parts_ = p_.parts();
  SIMTLAB_ASSERT(parts_ <= kMaxParts && p_.collector_units % parts_ == 0,
                 "sub-core counts (config validation)");
  coll_per_part_ = p_.collector_units / parts_;
  for (uint32_t i = 0; i < p_.collector_units; ++i) coll_part_.push_back(uint8_t(i % parts_));
  auto add_units = [&](UnitKind k, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) units_.push_back(Unit{k, 0, i % parts_});
    units_of_kind_[size_t(k)] = n;
  };
  add_units(UnitKind::sp, p_.num_sp_units);
  add_units(UnitKind::intu, p_.num_int_units);
  add_units(UnitKind::sfu, p_.num_sfu_units);
  add_units(UnitKind::dp, p_.num_dp_units);
  units_of_kind_[size_t(UnitKind::ldst)] = p_.num_ldst_units;
  collectors_.resize(p_.collector_units);
  mem_recs_.resize(p_.collector_units);
  shared_cap_ = p_.shared_bytes;
  wheel_.resize(kWheel);
  bank_busy_.assign(p_.num_reg_banks, 0);
  // D2MA (src/ext/d2ma): the engine's port wrapper sits between the LD/ST unit and the port.
  std::unique_ptr<ext::d2ma::Engine> d2ma;
  if (p_.d2ma.enable)
    d2ma = std::make_unique<ext::d2ma::Engine>(p_.d2ma, id_, p_.max_ctas, p_.num_warps, g_, port_);
  SmMemPort* ldst_port = d2ma ? d2ma->port() : port_;
  ldst_ =
      std::make_unique<LdstUnit>(p_, id_, g_, ldst_port, [this](const InFlight& f, uint64_t now) {
        for (auto& q : policies_) q->on_mem_done(*f.w, *f.d);
        complete(f, now);
      });
  l1i_ = std::make_unique<Cache>("l1i", p_.l1i, g_);
  ldst_->on_ifetch_response = [this](const MemResp& r, uint64_t now) { l1i_->fill(r, now); };
  passes_ = (p_.warp_size + p_.simd_width - 1) / p_.simd_width;
  demote_long_only_ = p_.two_level_demote == "long_latency";
  last_reasons_.assign(p_.num_schedulers, Stall::idle);
  if (p_.l1_shared_unified) {  // unified L1/shared: the L1 gets what the carve-out leaves
    Cache& l1 = ldst_->l1d();
    l1_way_bytes_ = l1.sets() * p_.l1d.line;
    l1.set_active_ways((p_.l1d.size - shared_cap_) / l1_way_bytes_);
    carveout_switches_ = &g_.counter("carveout_switches", "switches",
                                     "Unified L1/shared re-partitions (the L1 is emptied)");
  }
  policies_ = make_sm_policies(p_, g_, *ldst_);
  if (d2ma) {  // D2MA
    d2ma_ = d2ma.get();
    d2ma_->bind(ctas_.data(), &ldst_->l1d(), nullptr);
    policies_.push_back(std::move(d2ma));
  }
  if (p_.sharing.on()) {
    if (p_.rfc.enable) throw UserError("sharing.mode cannot be combined with rfc.enable");
    sharing_ = std::make_unique<sharing::SmSharing>(p_.sharing, id_, p_.max_ctas,
                                                    p_.max_regs_per_thread, g_);
    held_.resize(p_.num_warps);
  }
  if (p_.register_numbering == "architectural") {
    if (p_.rfc.enable)
      throw UserError(
          "rfc.enable works on virtual register numbers: it cannot be combined with "
          "sm.register_numbering=architectural");
    arch_regs_ = true;
    stats::Group& ra = g_.child("regalloc");
    spill_reloads_ = &ra.counter("spill_reloads", "warp instructions",
                                 "Local-memory loads issued to reload spilled registers");
    spill_stores_ = &ra.counter("spill_stores", "warp instructions",
                                "Local-memory stores issued to spill registers");
    spill_words_ = &ra.counter("spill_words", "thread words",
                               "32-bit words moved by spill reloads and stores, per thread");
  }
  if (p_.greener.on()) {  // GREENER (src/ext/greener)
    if (!arch_regs_)
      throw UserError(
          "greener.mode needs sm.register_numbering=architectural: its power states belong to "
          "architectural registers");
    greener_ = std::make_unique<ext::greener::SmGreener>(p_.greener, p_.num_warps,
                                                         p_.registers / p_.warp_size, g_);
  }
  port_->set_waiter(this);
  if (p_.its) its_stats_ = std::make_unique<ext::ItsStats>(g_);
  if (p_.lpc) lpc_stats_ = std::make_unique<ext::LpcStats>(g_);
  if (p_.divergence != "ipdom") {  // thread block compaction, dynamic warp formation
    if (p_.its || arch_regs_ || sharing_ || rfc_ || greener_ || p_.rfc.enable)
      throw UserError(
          "sim.divergence=tbc/dwf replaces the per-warp SIMT stack: it cannot be combined with "
          "sim.its, sm.register_numbering=architectural, sharing.mode or rfc.enable");
    tbc_on_ = true;  // (the formed-warp issue path of both)
    if (p_.divergence == "dwf") {
      dwf_on_ = true;
      dwf_policy_ = ext::dwf::policy_of(p_.dwf_policy);
      dwf_stats_ = std::make_unique<ext::dwf::DwfStats>(g_);
    } else {
      tbc_stats_ = std::make_unique<ext::tbc::TbcStats>(g_);
    }
  }
  if (p_.divergence_stats) simt_stats_ = std::make_unique<ext::SimtStats>(p_.num_warps, g_);
  if (p_.classify.enable)  // value classifier (src/ext/classify): statistics only
    classify_ = std::make_unique<ext::ValueClassifier>(p_.classify, p_.num_warps, g_);
  if (p_.rfc.enable) {  // register-file cache (src/ext/rfc): entries follow the active pool
    if (p_.scheduler != "two_level")
      throw UserError(
          "rfc.enable needs sm.scheduler=two_level (the register-file cache holds "
          "entries only for the two-level scheduler's active pool)");
    rfc_ = std::make_unique<ext::RegFileCache>(p_.rfc, p_.num_warps, g_);
    for (auto& s : scheds_)
      s->on_pool = [this](WarpSlot* w, PoolEvent e) {
        if (e == PoolEvent::enter)
          rfc_->enter(w->slot);
        else if (e == PoolEvent::demote)
          rfc_->leave(w->slot);  // flush write-backs are counted, not charged bank cycles
        else
          rfc_->retire(w->slot);
      };
  }
}

Sm::~Sm() = default;

UnitKind Sm::unit_for(ExecClass c) const {
  switch (c) {
    case ExecClass::int_alu:
    case ExecClass::int_mul:
    case ExecClass::int_div:
      return p_.num_int_units ? UnitKind::intu : UnitKind::sp;
    case ExecClass::fp64:
      return p_.num_dp_units ? UnitKind::dp : UnitKind::sfu;
    case ExecClass::sfu:
    case ExecClass::tensor:
      return UnitKind::sfu;
    case ExecClass::mem:
      return UnitKind::ldst;
    default:
      return UnitKind::sp;
  }
}

const UnitTiming& Sm::timing_for(ExecClass c) const {
  switch (c) {
    case ExecClass::int_alu:
      return p_.int_alu;
    case ExecClass::int_mul:
      return p_.int_mul;
    case ExecClass::int_div:
      return p_.int_div;
    case ExecClass::fp32:
      return p_.fp32;
    case ExecClass::fp64:
      return p_.fp64;
    case ExecClass::sfu:
      return p_.sfu;
    case ExecClass::branch:
      return p_.branch;
    case ExecClass::warp:
      return p_.warp;
    case ExecClass::tensor:
      return p_.tensor;
    default:
      return p_.int_alu;
  }
}

void Sm::begin_kernel(const func::GlobalMemory* gmem) {
  ldst_->set_memory(gmem);
  gmem_ = gmem;
  bulk_hook_.sm = this;
  if (tma_) tma_->set_gmem(const_cast<func::GlobalMemory*>(gmem));
  if (d2ma_) d2ma_->set_gmem(const_cast<func::GlobalMemory*>(gmem));  // D2MA fills
  for (auto& q : policies_) q->begin_kernel();
  if (p_.flush_l1_per_kernel) {
    for (Cache* c : {&ldst_->l1d(), &ldst_->l1c(), &ldst_->l1t()}) {
      c->flush();
      c->invalidate();
    }
    wake();
  }
}

void Sm::set_sharing_board(std::shared_ptr<sharing::DynBoard> b) {
  if (sharing_) sharing_->set_board(std::move(b));
}

bool Sm::fits(const CtaNeeds& n, const KernelCtx* k) const {
  if (sharing_ && k && k->share_plan && sharing_->governs(k, *k->share_plan, resident_ctas_)) {
    // Resource sharing (src/ext/sharing): the plan's slots replace the shared resource's
    // budget; every other limit still holds.
    const bool reg = sharing_->resource() == sharing::Resource::reg;
    return sharing_->slot_free(k, *k->share_plan) && used_warps_ + n.warps <= p_.num_warps &&
           used_threads_ + n.threads <= p_.max_threads &&
           (reg ? used_shared_ + n.shared <= shared_cap_ : used_regs_ + n.regs <= p_.registers);
  }
  for (const auto& q : policies_)  // CTA allocation hook (DYNCTA)
    if (resident_ctas_ >= q->cta_limit(ctas_per_sm(p_, n, shared_cap_))) return false;
  return resident_ctas_ < p_.max_ctas && used_warps_ + n.warps <= p_.num_warps &&
         used_threads_ + n.threads <= p_.max_threads && used_regs_ + n.regs <= p_.registers &&
         used_shared_ + n.shared <= shared_cap_;
}

bool Sm::switch_carveout(uint32_t shared) {
  if (shared == shared_cap_) return true;
  if (resident_ctas_ || !ldst_->idle()) return false;
  Cache& l1 = ldst_->l1d();
  l1.flush();  // dirty (local) lines go to the L2 before the ways are given to shared memory
  if (!l1.idle()) {
    wake();
    return false;
  }
  l1.invalidate();
  l1.set_active_ways((p_.l1d.size - shared) / l1_way_bytes_);
  shared_cap_ = shared;
  ++*carveout_switches_;
  return true;
}

void Sm::enable_cluster_stats() {
  stats::Group& g = g_.child("cluster");
  ldst_->enable_dsmem_stats(g);
}

void Sm::launch_cta(KernelCtx* k, const CtaNeeds& n, Dim3 ctaid, uint32_t linear_id, uint64_t now,
                    func::ClusterState* cluster, uint32_t rank) {
  auto it = std::find_if(ctas_.begin(), ctas_.end(), [](const CtaSlot& c) { return !c.active; });
  SIMTLAB_ASSERT(it != ctas_.end(), "launch_cta without a free CTA slot");
  CtaSlot& c = *it;
  if (!c.cta) c.cta = std::make_unique<func::Cta>();
  c.k = k;
  func::init_cta(*c.cta, *k->launch, ctaid, linear_id, id_);
  if (cluster) {  // thread-block cluster: peers reach this CTA through the cluster's table
    c.cta->cluster = cluster;
    c.cta->cluster_rank = rank;
    cluster->ctas[rank] = c.cta.get();
  }
  c.active = true;
  c.warps = uint32_t(c.cta->warps.size());
  c.live_warps = c.warps;
  c.regs = n.regs;
  c.shared = n.shared;
  c.threads = n.threads;
  c.start_cycle = now;
  used_threads_ += n.threads;
  used_warps_ += n.warps;
  used_regs_ += n.regs;
  used_shared_ += n.shared;
  ++resident_ctas_;
  ++ctas_launched_;
  // Resource sharing: a CTA admitted under its kernel's plan (decided before any warp retires).
  const bool share_tracked =
      sharing_ && k->share_plan && sharing_->governs(k, *k->share_plan, resident_ctas_ - 1);
  // Before the warps: a CTA whose warps have all exited already ends in the loop below.
  if (trace_) trace_->cta_begin(id_, linear_id, now);
  const uint32_t nregs = k->launch->prog->max_regs, npreds = k->launch->prog->max_preds;
  uint32_t wi = 0;
  for (WarpSlot& w : warps_) {
    if (wi == c.warps) break;
    if (w.active) continue;
    func::Warp& fw = *c.cta->warps[wi++];
    fw.hw_warp_id = w.slot;
    w.fw = &fw;
    w.cta = &c;
    w.active = true;
    w.func_done = fw.done();
    w.age = age_++;
    w.ibuf = 0;
    w.ibuf_ready = 0;
    w.fetch_pending = false;
    ++w.fetch_gen;
    w.redirect = false;
    w.ready_at = now + p_.cta_launch_latency;
    w.was_at_barrier = false;
    w.inflight = 0;
    w.async_open = 0;
    w.async_base = 1;
    w.async_groups.clear();
    w.async_waiting = false;
    w.mb_waiting = false;
    w.cp_arrives.clear();
    w.bulk_open = 0;
    w.bulk_base = 1;
    w.bulk_groups.clear();
    w.wg_busy_until = w.wg_open_done = 0;
    w.wg_groups.clear();
    w.pend_reg.assign(std::max<uint32_t>(nregs, 1), 0);
    w.pend_pred.assign(std::max<uint32_t>(npreds, 1), 0);
    if (k->pcs) {
      w.pend_mem.assign(w.pend_reg.size(), 0);
      pc_stats_ = true;
      last_pc_.resize(scheds_.size());
    }
    w.pending_writes = 0;
    w.reloaded_pc = w.spill_store_pc = WarpSlot::kNoPc;
    w.pending_long = 0;
    if (greener_ && k->arch)  // GREENER: the warp's registers (its CTA's allocation)
      greener_->on_warp_launch(w, *k->launch->prog, *k->arch, n.regs / p_.warp_size / n.warps, now);
    if (w.func_done) {
      retire_warp(w);
      continue;
    }
    scheds_[w.sched]->add(&w);
  }
  if (tbc_on_ && c.active) tbc_launch(c);  // thread block compaction (sm/tbc_issue.cpp)
  if (share_tracked && c.active) {
    // The CTA's warps by their index in the CTA (warp j pairs with the partner's warp j); a
    // warp that exited at launch leaves a null.
    std::vector<WarpSlot*> mine(c.cta->warps.size(), nullptr);
    for (WarpSlot& w : warps_)
      if (w.active && w.cta == &c)
        for (size_t j = 0; j < c.cta->warps.size(); ++j)
          if (c.cta->warps[j].get() == w.fw) mine[j] = &w;
    sharing_->on_cta_launch(k, *k->share_plan, k->launch->prog, k->launch->regs_per_thread,
                            uint32_t(&c - ctas_.data()), mine);
  }
  wake();
}

uint32_t Sm::take_finished_ctas() {
  const uint32_t n = finished_ctas_;
  finished_ctas_ = 0;
  return n;
}

void Sm::retire_warp(WarpSlot& w) {
  scheds_[w.sched]->remove(&w);
  if (sharing_) sharing_->on_warp_exit(w);
  if (greener_) greener_->on_warp_retire(w, cycle());
  w.active = false;
  CtaSlot& c = *w.cta;
  --used_warps_;
  if (--c.live_warps == 0) {
    if (sharing_) sharing_->on_cta_exit(uint32_t(&c - ctas_.data()));
    used_threads_ -= c.threads;
    used_regs_ -= c.regs;
    used_shared_ -= c.shared;
    --resident_ctas_;
    ++finished_ctas_;
    ++c.k->ctas_done;
    c.active = false;
    if (c.cta->cluster) [[unlikely]]  // the slot's Cta is reused: peers must not reach it
      c.cta->cluster->ctas[c.cta->cluster_rank] = nullptr;
    if (d2ma_) d2ma_->cta_done(uint32_t(&c - ctas_.data()));  // D2MA: drop its transfers
    if (tma_) tma_->cta_done(c.cta.get());  // bulk copies: no completion into a gone CTA
    if (trace_) trace_->cta_end(id_, c.cta->linear_id, cycle());
  }
  if (trace_) trace_->warp_state(id_, w.slot, cycle(), TraceSink::kNone);
}

Stall Sm::peek_stall(const WarpSlot& w, uint64_t now) const {
  // The checks of try_issue, in its order, without its side effects.
  if (!w.active || w.func_done) return Stall::idle;
  const func::Warp& fw = *w.fw;
  if (fw.at_barrier || w.was_at_barrier || now < w.ready_at) return Stall::barrier;
  if (w.ibuf == 0 || now < w.ibuf_ready) return w.redirect ? Stall::control : Stall::fetch;
  const func::DInst& d = w.cta->k->launch->prog->code[fw.pc()];
  if (hazard(w, d)) return Stall::scoreboard;
  if (collectors_full(part_of(w))) return Stall::collector_full;
  const UnitKind uk = unit_for(d.exec);
  if (waiting(part_of(w), uk) >= unit_cap(uk))
    return uk == UnitKind::ldst ? Stall::mem_pipeline : Stall::unit_busy;
  return Stall::issued;
}

void Sm::trace_warps(uint64_t now) {
  for (const WarpSlot& w : warps_) {
    uint8_t st = TraceSink::kNone;
    if (w.active) {
      if (trace_->last_issue(id_, w.slot) == now) {
        st = TraceSink::kIssue;
      } else {
        const Stall r = peek_stall(w, now);
        st = r == Stall::issued ? TraceSink::kNotSelected : uint8_t(r);
      }
    }
    trace_->warp_state(id_, w.slot, now, st);
  }
}

void Sm::account_skipped(uint64_t k) {
  cycles_ += k;
  if (resident_ctas_) {
    active_cycles_ += k;
    resident_warp_cycles_ += k * used_warps_;
  }
  issue_slots_ += k * p_.num_schedulers;
  if (greener_) greener_->account(k);
  for (Stall r : last_reasons_) stalls_[size_t(r)] += k;
  if (pc_stats_)
    for (const PcSlot& ps : last_pc_) charge_pc_slots(ps, k);
}

uint64_t Sm::next_event(uint64_t now) const {
  if (collectors_busy_) return now + 1;
  if (tma_ && tma_->has_work()) return now + 1;
  uint64_t next = ldst_->next_event(now);
  if (const uint64_t r = port_->next_ready(); r != UINT64_MAX)
    next = std::min(next, std::max(r, now + 1));
  if (!wb_times_.empty()) next = std::min(next, std::max(wb_times_.top(), now + 1));
  if (l1i_->has_miss()) return now + 1;
  if (greener_) next = std::min(next, greener_->next_wake(now));
  next = std::min(next, std::max(l1i_->next_ready(), now + 1));
  for (const WarpSlot& w : warps_) {
    if (!w.active) continue;
    if (w.ready_at > now) next = std::min(next, w.ready_at);
    if (w.ibuf_ready > now) next = std::min(next, w.ibuf_ready);
    if (w.fetch_pending && p_.l1i_perfect)
      next = std::min(next, std::max(w.fetch_done_at, now + 1));
    if (!w.wg_groups.empty()) [[unlikely]]  // a wgmma group completes (wgmma.wait_group)
      next = std::min(next, std::max(w.wg_groups.front(), now + 1));
    if (w.mb_waiting) [[unlikely]]  // an mbarrier.try_wait times out (sm.mbarrier_try_wait_limit)
      next = std::min(next, std::max(w.mb_wait_since + p_.mbarrier_try_wait_limit, now + 1));
  }
  return next;
}

bool Sm::tick() {
  const uint64_t now = cycle();
  if (waiting_sleep_ && now > last_tick_ + 1) account_skipped(now - last_tick_ - 1);
  waiting_sleep_ = false;
  last_tick_ = now;
  cycle_now_ = now;
  active_this_cycle_ = false;
  writeback(now);
  if (d2ma_) d2ma_->begin_cycle(now);  // D2MA
  bool mem = ldst_->tick(now);
  if (d2ma_ && d2ma_->tick(now)) mem = true;  // D2MA AGEN: after the LD/ST unit (priority)
  if (tma_ && tma_->tick(now)) mem = true;    // bulk / TMA copies: after the LD/ST unit
  collect(now);
  dispatch(now);
  issue(now);
  fetch(now);
  if (trace_) trace_warps(now);
  ++cycles_;
  if (resident_ctas_) {
    ++active_cycles_;
    resident_warp_cycles_ += used_warps_;
  }
  issue_slots_ += p_.num_schedulers;
  if (greener_) greener_->account(1);
  if (mem) {
    last_progress_ = now;
    active_this_cycle_ = true;
  }
  if (!resident_ctas_ && !collectors_busy_ && !wheel_pending_ && ldst_->idle() && l1i_->idle() &&
      d2ma_idle() && (!tma_ || !tma_->has_work())) {
    sleep();
  } else if (p_.skip_idle_cycles && p_.scheduler != "two_level" && policies_.empty() &&
             !active_this_cycle_ && !port_->peek()) {
    // (Mechanisms in policies_ change warps' eligibility every cycle: no skipping with them.)
    // Every warp waits for something that happens at a known cycle (or for a memory response,
    // which wakes us): sleep until then and account the skipped cycles on waking.
    const uint64_t next = next_event(now);
    if (next > now + 1 && next != UINT64_MAX) {
      waiting_sleep_ = true;
      sleep();
      wake_at(domain().time_after(next - now));
    } else if (next == UINT64_MAX && resident_ctas_) {
      waiting_sleep_ = true;
      sleep();
    }
  }
  return last_progress_ == now;
}

bool Sm::d2ma_idle() const { return !d2ma_ || d2ma_->idle(); }
void Sm::set_d2ma_trace(TraceSink* t) { d2ma_->set_trace(t); }

std::string Sm::dump_state() const {
  std::string s = fmt::format("SM {}: {} CTAs, {} warps resident, {} collector units busy\n", id_,
                              resident_ctas_, used_warps_, collectors_busy_);
  for (const WarpSlot& w : warps_) {
    if (!w.active) continue;
    const func::Warp& fw = *w.fw;
    std::string state;
    if (w.func_done)
      state = fmt::format("finished, {} instructions in flight", w.inflight);
    else if (fw.at_barrier)
      state = fmt::format("waiting at barrier {}", fw.barrier_id);
    else if (w.pending_writes)
      state = fmt::format("{} pending register writes", w.pending_writes);
    else if (w.ibuf == 0)
      state = "waiting for instruction fetch";
    else
      state = "ready";
    s += fmt::format("  warp slot {} (CTA {}, warp {}): pc {} {} — {}\n", w.slot,
                     w.cta->cta->linear_id, fw.index, fw.pc(),
                     w.func_done ? "" : w.cta->k->launch->prog->where(fw.pc()), state);
  }
  return s;
}

// ---- asynchronous copies (cp.async) ----------------------------------------------------------
// The functional model copies at issue; here a cp.async is a global load without a destination
// register: the warp goes on, and the LD/ST unit completes it when its data returned. Each
// copy belongs to its warp's open group until cp.async.commit_group closes it;
// cp.async.wait_group N issues once at most N committed groups have copies in flight
// (wait_all: none, open group included). The wait counts as a `barrier` stall (the issue-slot
// reasons are positional and fixed) and in the group `async` (warp-cycles at wait_group).
// wgmma.mma_async is asynchronous the same way: each warp's tensor core works through the
// issued m64nNk16 one after another, wgmma.commit_group closes a group and wgmma.wait_group N
// issues once all but the newest N groups are done.

bool Sm::async_ready(const WarpSlot& w, const func::DInst& d) const {
  if (d.async_wait == 0 && !d.async_commit && d.in && w.async_open) {
    // wait_all also waits for the open group (wait_group 0 does not).
    for (const std::string& s : d.in->extra)
      if (s == ".wait_all") return false;
  }
  return w.async_groups.size() <= size_t(d.async_wait);
}

bool Sm::wgmma_ready(WarpSlot& w, const func::DInst& d, uint64_t now) const {
  while (!w.wg_groups.empty() && w.wg_groups.front() <= now) w.wg_groups.pop_front();
  return w.wg_groups.size() <= size_t(d.wgmma_wait);
}

Sm::AsyncStats& Sm::async_stats() {
  if (!async_) {
    stats::Group& g = g_.child("async");
    async_ = std::make_unique<AsyncStats>();
    async_->insts = &g.counter("cp_async_insts", "warp instructions",
                               "cp.async warp instructions issued (global->shared copies)");
    async_->bytes =
        &g.counter("cp_async_bytes", "bytes", "bytes requested by cp.async (cp-size x lanes)");
    async_->waits = &g.counter("wait_group_insts", "warp instructions",
                               "cp.async.wait_group / wait_all warp instructions issued");
    async_->wait_cycles =
        &g.counter("wait_group_cycles", "warp-cycles",
                   "cycles warps spent blocked at cp.async.wait_group / wait_all (their issue "
                   "slots count as barrier stalls)");
    async_->peak = &g.counter("peak_in_flight", "warp instructions",
                              "most cp.async warp instructions in flight at once on the SM");
    async_->wg_insts =
        &g.counter("wgmma_insts", "warp instructions", "wgmma.mma_async warp instructions issued");
    async_->wg_busy = &g.counter(
        "wgmma_tensor_cycles", "cycles",
        "tensor-core cycles of the wgmma.mma_async issued (N/8 x sm.tensor.interval each)");
    async_->wg_waits = &g.counter("wgmma_wait_insts", "warp instructions",
                                  "wgmma.wait_group warp instructions issued");
    async_->wg_wait_cycles =
        &g.counter("wgmma_wait_cycles", "warp-cycles",
                   "cycles warps spent blocked at wgmma.wait_group (their issue slots count as "
                   "barrier stalls)");
  }
  return *async_;
}

void Sm::async_issue(WarpSlot& w, const func::DInst& d, InFlight& f, uint64_t now) {
  async_stats();
  if (d.wgmma_n) {
    // The warp's tensor core takes the m64nNk16 as N/8 m16n8k16 steps of sm.tensor.interval
    // cycles each (assumption: the existing tensor parameters, no Hopper-specific rates); the
    // accumulators are final sm.tensor.latency cycles after the last step.
    const uint64_t steps = uint64_t(d.wgmma_n / 8) * p_.tensor.interval;
    w.wg_busy_until = std::max(now + 1, w.wg_busy_until) + steps;
    w.wg_open_done = std::max(w.wg_open_done, w.wg_busy_until + p_.tensor.latency);
    ++*async_->wg_insts;
    *async_->wg_busy += steps;
    return;
  }
  if (d.wgmma_commit) {
    w.wg_groups.push_back(w.wg_open_done);
    w.wg_open_done = 0;
    return;
  }
  if (d.wgmma_wait >= 0) {
    ++*async_->wg_waits;
    if (w.async_waiting) *async_->wg_wait_cycles += now - w.async_wait_since;
    w.async_waiting = false;
    return;
  }
  if (d.async_copy) {
    if (!rec_.exec) return;
    f.async_group = w.async_base + uint32_t(w.async_groups.size());
    ++w.async_open;
    ++*async_->insts;
    *async_->bytes += uint64_t(__builtin_popcount(rec_.exec)) * rec_.access_size;
    if (++async_->in_flight > async_->peak->value) async_->peak->value = async_->in_flight;
  } else if (d.async_commit) {
    w.async_groups.push_back(w.async_open);
    w.async_open = 0;
    while (!w.async_groups.empty() && w.async_groups.front() == 0) {
      w.async_groups.pop_front();
      ++w.async_base;
    }
  } else {
    ++*async_->waits;
    if (w.async_waiting) *async_->wait_cycles += now - w.async_wait_since;
    w.async_waiting = false;
  }
}

void Sm::async_complete(const InFlight& f) {
  WarpSlot& w = *f.w;
  const uint32_t idx = f.async_group - w.async_base;
  if (idx < w.async_groups.size()) {
    --w.async_groups[idx];
  } else if (w.async_open) {
    --w.async_open;
  }
  while (!w.async_groups.empty() && w.async_groups.front() == 0) {
    w.async_groups.pop_front();
    ++w.async_base;
  }
  if (async_ && async_->in_flight) --async_->in_flight;
  if (!w.cp_arrives.empty() && w.async_open == 0 && w.async_groups.empty()) [[unlikely]] {
    for (uint64_t off : w.cp_arrives)
      func::mbarrier_arrive_deferred(*const_cast<func::GlobalMemory*>(gmem_), *w.cta->cta, off);
    w.cp_arrives.clear();
  }
}

// ---- bulk / tensor copies and mbarrier waits (tma.h) -------------------------------------------

bool Sm::BulkHook::bulk_copy(const func::Warp& w, unsigned, bool to_shared, bool tensor,
                             const std::vector<std::pair<uint64_t, uint32_t>>& runs, uint64_t mbar,
                             uint32_t tx_bytes) {
  Sm& s = *sm;
  if (!s.tma_) {
    stats::Group& g = s.g_.child("async");
    TmaUnit::Counters c;
    c.insts = &g.counter("bulk_insts", "copies",
                         "cp.async.bulk{.tensor} copies issued (one per executing thread)");
    c.tensor = &g.counter("tma_insts", "copies", "of which tensor (TMA) copies");
    c.bytes = &g.counter("bulk_bytes", "bytes",
                         "global bytes the bulk / tensor copies read or wrote (in-bounds)");
    c.requests = &g.counter("bulk_requests", "requests",
                            "128-byte-block requests the bulk-copy unit sent to the L2");
    c.latency = &g.counter("bulk_load_cycles", "cycles",
                           "sum over global->shared copies of issue to last byte (when the "
                           "mbarrier's complete_tx happens)");
    c.port_full = &g.counter("bulk_port_full", "cycles",
                             "cycles the bulk-copy unit had a request ready and the SM's memory "
                             "port was full");
    s.tma_ = std::make_unique<TmaUnit>(uint16_t(s.id_), s.port_,
                                       const_cast<func::GlobalMemory*>(s.gmem_), c);
    s.ldst_->set_tma(s.tma_.get());
  }
  std::function<void()> done;
  if (!to_shared) {  // a store joins its warp's open bulk group
    for (WarpSlot& ws : s.warps_) {
      if (!ws.active || ws.fw != &w) continue;
      const uint32_t gid = ws.bulk_base + uint32_t(ws.bulk_groups.size());
      ++ws.bulk_open;
      WarpSlot* p = &ws;
      done = [p, gid] {
        const uint32_t idx = gid - p->bulk_base;
        if (idx < p->bulk_groups.size()) {
          --p->bulk_groups[idx];
        } else if (p->bulk_open) {
          --p->bulk_open;
        }
        while (!p->bulk_groups.empty() && p->bulk_groups.front() == 0) {
          p->bulk_groups.pop_front();
          ++p->bulk_base;
        }
      };
      break;
    }
  }
  s.tma_->add(w.cta, to_shared, tensor, runs, mbar, tx_bytes, s.cycle_now_, std::move(done));
  return true;
}

bool Sm::BulkHook::cp_async_arrive(const func::Warp& fw, unsigned, uint64_t mbar) {
  // Approximation: per warp, not per thread, and after every copy of the warp in flight (also
  // ones issued later, before those complete).
  for (WarpSlot& w : sm->warps_) {
    if (!w.active || w.fw != &fw) continue;
    if (w.async_open == 0 && w.async_groups.empty()) return false;
    w.cp_arrives.push_back(mbar);
    return true;
  }
  return false;
}

bool Sm::async_pending() const {
  if ((tma_ && !tma_->idle()) || !d2ma_idle()) return true;
  for (const WarpSlot& w : warps_)
    if (w.active && !w.cp_arrives.empty()) return true;
  return false;
}

bool Sm::mbar_blocks(WarpSlot& w, const func::DInst& d, uint64_t now) {
  // A potentially blocking wait: held while the phase is incomplete, at most
  // sm.mbarrier_try_wait_limit cycles (then it issues and returns false).
  const bool blocks = d.guard < 0 && p_.mbarrier_try_wait_limit &&
                      (!w.mb_waiting || now - w.mb_wait_since < p_.mbarrier_try_wait_limit) &&
                      func::mbarrier_wait_blocks(*w.cta->cta, *w.fw, d, w.fw->active());
  if (blocks) {
    if (!w.mb_waiting) {
      w.mb_waiting = true;
      w.mb_wait_since = now;
    }
    return true;
  }
  if (w.mb_waiting) {
    AsyncStats& a = async_stats();
    if (!a.mb_waits) {
      stats::Group& g = g_.child("async");
      a.mb_waits = &g.counter("mbarrier_wait_insts", "warp instructions",
                              "mbarrier.try_wait warp instructions held for an incomplete phase");
      a.mb_wait_cycles =
          &g.counter("mbarrier_wait_cycles", "warp-cycles",
                     "cycles warps were held at mbarrier.try_wait until the phase completed "
                     "(their issue slots count as barrier stalls)");
    }
    ++*a.mb_waits;
    *a.mb_wait_cycles += now - w.mb_wait_since;
    w.mb_waiting = false;
  }
  return false;
}

}  // namespace simtlab::timing
