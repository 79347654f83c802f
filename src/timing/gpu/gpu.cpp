#include "timing/gpu/gpu.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "base/bits.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "ext/sharing/sharing.h"
#include "func/executor.h"
#include "func/regcheck.h"
#include "stats/writers.h"
#include "timing/gpu/power_arch.h"
#include "timing/mem_backend.h"

namespace simtlab::timing {

CtaNeeds cta_needs(const SmParams& sm, Dim3 block, uint32_t regs_per_thread,
                   uint32_t shared_bytes) {
  CtaNeeds n;
  n.threads = uint32_t(block.count());
  n.warps = (n.threads + sm.warp_size - 1) / sm.warp_size;
  const uint64_t per_warp =
      align_up(uint64_t(std::max(regs_per_thread, 1u)) * sm.warp_size, sm.reg_alloc_granularity);
  n.regs = uint32_t(per_warp * n.warps);
  n.shared = shared_bytes ? uint32_t(align_up(shared_bytes, sm.shared_granularity)) : 0;
  // Threads are allocated in whole warps.
  n.threads = n.warps * sm.warp_size;
  return n;
}

uint32_t ctas_per_sm(const SmParams& sm, const CtaNeeds& n, uint32_t shared_cap) {
  uint32_t c = sm.max_ctas;
  c = std::min(c, sm.num_warps / std::max(n.warps, 1u));
  c = std::min(c, sm.max_threads / std::max(n.threads, 1u));
  if (n.regs) c = std::min(c, sm.registers / n.regs);
  if (n.shared)
    c = std::min(c, (shared_cap == UINT32_MAX ? sm.shared_bytes : shared_cap) / n.shared);
  return c;
}

uint32_t choose_carveout(const SmParams& sm, const CtaNeeds& n, int pref) {
  if (!sm.l1_shared_unified) return sm.shared_bytes;
  const std::vector<uint32_t> c = sm.carveout_bytes();
  SIMTLAB_ASSERT(!c.empty(), "unified L1/shared without carve-outs (config validation)");
  if (pref >= 0) {
    const uint64_t target = (uint64_t(std::min(pref, 100)) * c.back() + 99) / 100;
    for (uint32_t b : c)
      if (b >= target && b >= n.shared) return b;
    return c.back();
  }
  const uint32_t best = ctas_per_sm(sm, n, c.back());
  for (uint32_t b : c)
    if (ctas_per_sm(sm, n, b) == best) return b;
  return c.back();
}

namespace {

// The instruction address space: far above any device allocation, so code never shares an L2
// line with data.
constexpr uint64_t kCodeSpace = 0x0000'0600'0000'0000ull;
// Start of every function's code: nvcc/ptxas emit each kernel's SASS as its own ELF section
// .text.<name> with sh_addralign 128 (readelf -S on cubins of nvcc 13 for sm_75 and sm_90), so
// functions begin on 128-byte boundaries.
constexpr uint64_t kCodeAlign = 128;

/// Hands CTAs to SMs every core cycle (registered after the SMs, so a CTA placed at cycle t
/// starts issuing at t+1).
class Dispatcher : public sim::Component {
 public:
  explicit Dispatcher(std::function<bool(uint64_t)> f)
      : sim::Component("cta_dispatcher"), f_(std::move(f)) {}
  bool tick() override {
    if (!f_(cycle())) sleep();
    return false;
  }

 private:
  std::function<bool(uint64_t)> f_;  // returns whether CTAs remain to be dispatched
};

/// Wakes the core domain at interval boundaries (stats.interval), so the SMs' idle skipping
/// never jumps over one. Does nothing else.
class Alarm : public sim::Component {
 public:
  Alarm() : sim::Component("interval_alarm") {}
  bool tick() override {
    sleep();
    return false;
  }
};

}  // namespace

Gpu::Gpu(const GpuParams& p)
    : p_(p),
      kernels_(root_.counter("kernels", "launches", "Kernel launches simulated")),
      cycles_(root_.counter("cycles", "cycles",
                            "Core cycles from launch to completion, summed over kernels")),
      next_code_(kCodeSpace) {
  core_ = &sim_.add_domain("core", p_.gpu.core_mhz);
  icnt_ = &sim_.add_domain("icnt", p_.gpu.icnt_mhz);
  l2_ = &sim_.add_domain("l2", p_.gpu.l2_mhz);
  dram_ = &sim_.add_domain("dram", p_.gpu.dram_mhz);
  mem_ = make_memory_backend(p_, sim_, *core_, *icnt_, *l2_, *dram_, root_);
  for (uint32_t i = 0; i < p_.gpu.num_sms; ++i) {
    ports_.push_back(mem_->port(i));
    SmParams sp = p_.sm;
    sp.its = p_.sim.its;  // independent thread scheduling: the SM's its statistics
    sp.divergence_stats = p_.sim.divergence_stats;
    sp.lpc = p_.sim.lpc;                    // likely convergence points: the SM's lpc statistics
    sp.divergence = p_.sim.divergence;      // thread block compaction (src/ext/tbc)
    sp.dwf_policy = p_.sim.dwf_policy;      // dynamic warp formation's issue order
    sp.greener.core_mhz = p_.gpu.core_mhz;  // GREENER: leakage energy per cycle
    sms_.push_back(std::make_unique<Sm>(i, sp, root_, ports_.back().get()));
    if (p_.sm.sharing.dyn) {  // dynamic warp execution: one board for the reference SM
      if (!dyn_board_) dyn_board_ = std::make_shared<sharing::DynBoard>();
      sms_.back()->set_sharing_board(dyn_board_);
    }
    sim_.add(*sms_.back(), *core_);
    mem_->attach(i, *sms_.back());
  }
  if (p_.power.enable) {  // power/area model (src/power): counters now, energy at kernel end
    power_ = std::make_unique<power::Model>(power_model(p_));
    for (auto& s : sms_) s->enable_power_counters();
  }
  dispatcher_ = std::make_unique<Dispatcher>([this](uint64_t now) { return dispatch(now); });
  sim_.add(*dispatcher_, *core_);
  if (p_.stats.interval) {
    alarm_ = std::make_unique<Alarm>();
    sim_.add(*alarm_, *core_);
  }
}

Gpu::~Gpu() = default;

uint64_t Gpu::code_base(const func::Program& k) {
  auto [it, fresh] = code_.try_emplace(&k);
  CodeRange& c = it->second;
  if (!fresh && c.module == k.module && c.kernel_func == k.kernel_func && c.insts == k.code.size())
    return c.base;
  c.module = k.module;
  c.kernel_func = k.kernel_func;
  c.insts = k.code.size();
  c.base = next_code_;
  const uint64_t bytes = std::max<uint64_t>(c.insts, 1) * p_.sm.ifetch_bytes;
  next_code_ = align_up(c.base + bytes, kCodeAlign);
  return c.base;
}

void Gpu::enable_trace(uint64_t b, uint64_t e) {
  TraceSink::Options o;
  o.begin = b;
  o.end = e;
  o.max_events = p_.trace.max_events;
  o.sample_window = p_.trace.sample_window;
  o.num_sms = p_.gpu.num_sms;
  o.num_warps = p_.sm.num_warps;
  o.max_ctas = p_.sm.max_ctas;
  trace_ = std::make_unique<TraceSink>(o);
  for (auto& s : sms_) s->set_trace(trace_.get());
  // DRAM request counters of every channel, for the DRAM counter track.
  std::function<void(const stats::Group&)> find = [&](const stats::Group& g) {
    if (g.name().rfind("dram[", 0) == 0)
      if (const stats::Stat* st = g.find_stat("requests"))
        if (const auto* c = std::get_if<const stats::Counter*>(&st->what))
          dram_requests_.push_back(*c);
    for (const stats::Group* c : g.children()) find(*c);
  };
  find(root_);
}

void Gpu::sample_counters(uint64_t now) {
  if (now < counter_next_) return;
  const uint64_t dt = std::max<uint64_t>(now - counter_last_, 1);
  counter_prev_.resize(sms_.size(), 0);
  uint64_t wi = 0, inflight = 0, dram = 0;
  for (size_t i = 0; i < sms_.size(); ++i) {
    const uint64_t w = sms_[i]->warp_insts();
    const size_t f = sms_[i]->ldst().in_flight();
    // Rates hold over [counter_last_, now): a counter sample lasts until the next one.
    trace_->counter(uint32_t(1 + i), "IPC", "warp insts/cycle", counter_last_,
                    double(w - counter_prev_[i]) / double(dt));
    trace_->counter(uint32_t(1 + i), "memory instructions in flight", "count", now, double(f));
    wi += w - counter_prev_[i];
    inflight += f;
    counter_prev_[i] = w;
  }
  for (const stats::Counter* c : dram_requests_) dram += c->value;
  trace_->counter(0, "IPC", "warp insts/cycle", counter_last_, double(wi) / double(dt));
  trace_->counter(0, "memory instructions in flight", "count", now, double(inflight));
  trace_->counter(0, "DRAM requests", "per core cycle", counter_last_,
                  double(dram - dram_prev_) / double(dt));
  dram_prev_ = dram;
  counter_last_ = now;
  counter_next_ = now + p_.trace.counter_interval;
}

void Gpu::arm_interval_alarm(uint64_t now) {
  uint64_t next = UINT64_MAX;
  for (const auto& r : running_)
    if (r->intervals) next = std::min(next, r->intervals->next());
  if (next == UINT64_MAX) return;
  // After the step that ticks core cycle next-1, core_->cycle() == next.
  alarm_->wake_at(core_->time_after(next > now ? next - now : 0));
}

void Gpu::sample_intervals(uint64_t now) {
  bool due = false;
  for (const auto& r : running_) due |= r->intervals && now >= r->intervals->next();
  if (!due) return;
  for (auto& s : sms_) s->sync_skipped(now);
  mem_->update_stats();
  const stats::Snapshot snap = stats::snapshot(root_);
  for (auto& r : running_)
    if (r->intervals && now >= r->intervals->next()) r->intervals->sample(snap, now);
  arm_interval_alarm(now);
}

bool Gpu::dispatch(uint64_t now) {
  // Kernels in launch order; each SM may receive one CTA per cycle (GPGPU book 2.1: round-robin
  // CTA scheduling until warps, registers, shared memory or CTA slots run out).
  bool remaining = false;
  const uint32_t nsm = uint32_t(sms_.size());
  std::vector<uint8_t> got(nsm, 0);
  for (auto& rp : running_) {
    Running& r = *rp;
    if (r.next_cta >= r.total) continue;
    if (now < r.start + p_.gpu.kernel_launch_latency) {
      remaining = true;
      continue;
    }
    const func::LaunchState& L = *r.ctx.launch;
    if (L.has_clusters()) [[unlikely]] {
      dispatch_clusters(r, got, now);
      if (r.next_cta < r.total) remaining = true;
      continue;
    }
    for (uint32_t k = 0; k < nsm && r.next_cta < r.total; ++k) {
      const uint32_t s = (rr_ + k) % nsm;
      if (got[s]) continue;
      if (r.ctx.carveout != KernelCtx::kNoCarveout && sms_[s]->carveout() != r.ctx.carveout)
        sms_[s]->switch_carveout(r.ctx.carveout);  // unified L1/shared: only an empty SM switches
      if (!sms_[s]->fits(r.needs, &r.ctx)) continue;
      const Dim3& gd = L.grid;
      const uint64_t i = r.next_cta++;
      const Dim3 id{uint32_t(i % gd.x), uint32_t((i / gd.x) % gd.y),
                    uint32_t(i / (uint64_t(gd.x) * gd.y))};
      sms_[s]->launch_cta(&r.ctx, r.needs, id, uint32_t(i), now);
      got[s] = 1;
    }
    if (r.next_cta < r.total) remaining = true;
  }
  rr_ = (rr_ + 1) % std::max(nsm, 1u);
  return remaining;
}

uint32_t Gpu::gpc_begin(uint32_t g) const {
  const uint32_t n = uint32_t(sms_.size()), G = std::max(p_.gpu.gpcs, 1u);
  const uint32_t base = n / G, extra = n % G;
  return g * base + std::min(g, extra);
}

void Gpu::dispatch_clusters(Running& r, std::vector<uint8_t>& got, uint64_t now) {
  // The CTAs of a cluster start together on SMs of one GPC (CUDA guide, Thread Block
  // Clusters: "guaranteed to be co-scheduled on a GPU Processing Cluster"); a cluster waits
  // until that many SMs of one GPC can each take one of its CTAs. GPCs are tried round-robin.
  const func::LaunchState& L = *r.ctx.launch;
  const uint32_t cs = L.cluster_size();
  const uint32_t G = std::max(p_.gpu.gpcs, 1u);
  const Dim3 c = L.cluster, g = L.grid;
  std::vector<uint32_t> pick;
  for (uint32_t gk = 0; gk < G && r.next_cta < r.total; ++gk) {
    const uint32_t gpc = (gpc_rr_ + gk) % G;
    pick.clear();
    for (uint32_t s = gpc_begin(gpc); s < gpc_begin(gpc + 1) && pick.size() < cs; ++s) {
      if (got[s]) continue;
      if (r.ctx.carveout != KernelCtx::kNoCarveout && sms_[s]->carveout() != r.ctx.carveout)
        sms_[s]->switch_carveout(r.ctx.carveout);
      if (sms_[s]->fits(r.needs, &r.ctx)) pick.push_back(s);
    }
    if (pick.size() < cs) continue;
    // Cluster number q in x-fastest order of the cluster grid; rank x-fastest inside it.
    const uint64_t q = r.next_cta / cs;
    const Dim3 n{g.x / c.x, g.y / c.y, g.z / c.z};
    const Dim3 base{uint32_t(q % n.x) * c.x, uint32_t(q / n.x % n.y) * c.y,
                    uint32_t(q / (uint64_t(n.x) * n.y)) * c.z};
    r.clusters.push_back(std::make_unique<func::ClusterState>());
    func::ClusterState* st = r.clusters.back().get();
    st->ctas.assign(cs, nullptr);
    std::vector<Sm*> hosts;
    for (uint32_t s : pick) hosts.push_back(sms_[s].get());
    st->on_release = [hosts] {  // warps of other SMs waited at barrier.cluster: wake them
      for (Sm* h : hosts) h->wake();
    };
    for (uint32_t rank = 0; rank < cs; ++rank) {
      const Dim3 id{base.x + rank % c.x, base.y + rank / c.x % c.y, base.z + rank / (c.x * c.y)};
      const uint32_t linear = id.x + g.x * (id.y + g.y * id.z);
      sms_[pick[rank]]->launch_cta(&r.ctx, r.needs, id, linear, now, st, rank);
      got[pick[rank]] = 1;
    }
    r.next_cta += cs;
  }
  gpc_rr_ = (gpc_rr_ + 1) % G;
}

void Gpu::start_kernel(func::Device& dev, func::StreamOp& op, uint64_t now) {
  func::LaunchState& L = *op.launch;
  const func::Program& k = *L.prog;
  auto r = std::make_unique<Running>();
  r->op = &op;
  r->regs = L.regs_per_thread ? L.regs_per_thread : k.estimated_regs;
  r->needs = cta_needs(p_.sm, L.block, r->regs, L.shared_bytes);
  if (ctas_per_sm(p_.sm, r->needs) == 0)
    fatal(
        "kernel {} cannot run on this GPU: one CTA of {} threads needs {} registers ({} per "
        "thread) and {} bytes of "
        "shared memory; an SM has {} registers, {} bytes of shared memory, {} threads and {} warp "
        "slots",
        k.name, L.block.count(), r->needs.regs, r->regs, r->needs.shared, p_.sm.registers,
        p_.sm.shared_bytes, p_.sm.max_threads, p_.sm.num_warps);
  L.num_sms = p_.gpu.num_sms;
  if (L.has_clusters()) {
    uint32_t smallest = UINT32_MAX;
    for (uint32_t gi = 0; gi < std::max(p_.gpu.gpcs, 1u); ++gi)
      smallest = std::min(smallest, gpc_begin(gi + 1) - gpc_begin(gi));
    if (L.cluster_size() > smallest)
      fatal(
          "kernel {} cannot run on this GPU: its thread-block clusters of {} CTAs need {} SMs "
          "of one GPC, and the smallest of the {} GPCs (gpu.gpcs) has {} SMs",
          k.name, L.cluster_size(), L.cluster_size(), std::max(p_.gpu.gpcs, 1u), smallest);
    for (auto& s : sms_) s->enable_cluster_stats();
  }
  r->ctx.launch = &L;
  r->ctx.cx.gmem = &dev.memory();
  r->ctx.cx.heap = &dev.heap();
  r->ctx.cx.prog = &k;
  r->ctx.cx.launch = &L;
  r->ctx.cx.print = &dev.print_sink();
  r->ctx.cx.textures = &dev.textures();
  r->ctx.code_base = code_base(k);
  r->total = L.grid.count();
  r->start = now;
  if (p_.sm.l1_shared_unified) r->ctx.carveout = choose_carveout(p_.sm, r->needs, L.carveout_pref);
  if (p_.sim.per_pc_stats) {
    r->pcs = std::make_unique<PcStats>(k.code.size());
    r->ctx.pcs = r->pcs.get();
  }
  if (p_.sm.sharing.on()) {  // resource sharing (src/ext/sharing): the kernel's plan
    const SmParams& sm = p_.sm;
    sharing::SmLimits lim{sm.registers,   sm.shared_bytes, sm.max_ctas,
                          sm.max_threads, sm.num_warps,    sm.warp_size};
    r->share_plan = sharing::make_plan(
        sm.sharing.mode == "smem" ? sharing::Resource::smem : sharing::Resource::reg,
        sm.sharing.threshold, lim, uint32_t(L.block.count()), r->regs, L.shared_bytes);
    r->ctx.share_plan = &r->share_plan;
  }
  if (p_.sm.register_numbering == "architectural") {
    // The SASS-model allocation (func/regcheck.h), cached on the program per cap.
    const uint32_t cap = std::min<uint32_t>(p_.sm.max_regs_per_thread, 255);
    if (!k.arch_map || k.arch_map->cap != cap) k.arch_map = func::build_arch_map(k, cap);
    r->ctx.arch = k.arch_map.get();
    r->ctx.spill_area = uint32_t((L.local_bytes_per_thread + 7) / 8 * 8);
    r->ctx.arch_local_bytes = k.arch_map->max_spill_bytes
                                  ? r->ctx.spill_area + k.arch_map->max_spill_bytes
                                  : L.local_bytes_per_thread;
  }
  for (auto& s : sms_) s->begin_kernel(&dev.memory());
  mem_->update_stats();
  r->before = stats::snapshot(root_);
  if (p_.stats.interval) {
    r->intervals = std::make_unique<IntervalRecorder>(p_.stats.interval, p_.gpu.num_sms);
    r->intervals->begin(r->before, now);
  }
  op.start_cycle = now;
  running_.push_back(std::move(r));
  if (alarm_) arm_interval_alarm(now);
  livelock_.reset();  // the set of running warps changes
  dispatcher_->wake();
}

void Gpu::finish_kernel(Running& r, uint64_t now) {
  func::StreamOp& op = *r.op;
  ++kernels_;
  cycles_ += now - r.start;
  fill_result(r, now);
  op.done_cycle = now;
  op.done = true;
}

void Gpu::fill_result(Running& r, uint64_t now) {
  func::StreamOp& op = *r.op;
  const func::Program& k = *r.ctx.launch->prog;
  func::LaunchResult& res = op.result;
  res.cycles = now - r.start;
  res.start_cycle = r.start;
  res.end_cycle = now;
  res.ctas = r.total;
  res.warp_insts = r.ctx.warp_insts;
  res.thread_insts = r.ctx.thread_insts;
  mem_->update_stats();
  stats::Snapshot snap = stats::snapshot(root_);
  nlohmann::json j = stats::to_json(root_, stats::delta(snap, r.before));
  if (r.intervals) {
    r.intervals->sample(snap, now);
    j["intervals"] = r.intervals->to_json();
  }
  j["start_cycle"] = r.start;
  j["end_cycle"] = now;
  j["occupancy"] = {{"regs_per_thread", r.regs},
                    {"ctas_per_sm", r.share_plan.enabled ? r.share_plan.M  // sharing
                                                         : ctas_per_sm(p_.sm, r.needs)},
                    {"warps_per_cta", r.needs.warps},
                    {"shared_per_cta", r.needs.shared},
                    {"regs_per_cta", r.needs.regs}};
  if (p_.sm.l1_shared_unified) {
    j["occupancy"]["ctas_per_sm"] = ctas_per_sm(p_.sm, r.needs, r.ctx.carveout);
    j["l1_shared"] = {{"carveout_pref", r.ctx.launch->carveout_pref},
                      {"shared_bytes", r.ctx.carveout},
                      {"l1d_bytes", p_.sm.l1d.size - r.ctx.carveout}};
  }
  if (r.pcs) j["attribution"] = pc_stats_json(*r.pcs, k);
  if (const func::ArchRegMap* am = r.ctx.arch) {
    uint32_t entry = 0, spilled = 0, most = 0;
    for (size_t i = 0; i < k.funcs.size(); ++i) {
      if (k.funcs[i].module_func == k.kernel_func) entry = am->count[i];
      spilled += am->spilled[i];
      most = std::max(most, am->count[i]);
    }
    j["registers"] = {
        {"numbering", "architectural"},   {"allocated", entry},
        {"allocated_max_function", most}, {"cap", am->cap},
        {"spilled_values", spilled},      {"spill_bytes_per_thread", am->max_spill_bytes}};
  }
  if (p_.sm.sharing.on()) {
    const sharing::Plan& sp = r.share_plan;
    j["sharing"] = {{"mode", p_.sm.sharing.mode},
                    {"threshold", p_.sm.sharing.threshold},
                    {"enabled", sp.enabled},
                    {"baseline_ctas_per_sm", sp.baseline},
                    {"ctas_per_sm", sp.M},
                    {"pairs_per_sm", sp.pairs},
                    {"unshared_per_sm", sp.unshared},
                    {"private_units", sp.private_units}};
    if (p_.sm.sharing.dyn) {
      // P_i trace: per SM, [cycle a window closed, P of the next window] during this kernel.
      nlohmann::json tr = nlohmann::json::array();
      for (const auto& sm : sms_) {
        nlohmann::json s = nlohmann::json::array();
        if (const sharing::SmSharing* sh = sm->sharing())
          for (const auto& [cyc, prob] : sh->p_trace())
            if (cyc > r.start && cyc <= now) s.push_back({cyc, prob});
        tr.push_back(std::move(s));
      }
      j["sharing"]["dyn_p_trace"] = std::move(tr);
    }
  }
  if (power_)
    j["power"] =
        power_->evaluate(power::activity_from_stats(j, double(now - r.start), p_.gpu.num_sms));
  if (trace_) {
    if (running_.size() == 1) trace_->flush(now);
    trace_->kernel(k.name, r.start, now);
    j["trace_events"] = trace_->take_events();
  }
  res.stats_json = j.dump();
}

void Gpu::fail_running(std::exception_ptr e) {
  const uint64_t now = core_->cycle();
  for (auto& r : running_) {
    try {
      fill_result(*r, now);
    } catch (...) {
      // partial stats are best effort: the original error matters more
    }
    r->op->failed = true;
    r->op->done_cycle = now;
  }
  running_.clear();
  livelock_.reset();
  std::rethrow_exception(e);
}

void Gpu::copy_engine_write(Addr a, uint64_t n) { mem_->copy_engine_write(a, n); }

bool Gpu::take_failed_result(func::LaunchResult* out) {
  if (!has_failed_) return false;
  *out = std::move(failed_);
  has_failed_ = false;
  return true;
}

std::string Gpu::livelock_report(uint64_t now) {
  std::vector<const func::Warp*> live;
  uint64_t epoch = 0;
  // A copy or arrive-on still in flight will change an mbarrier or shared memory: the warps
  // waiting for it are not stuck.
  for (const auto& s : sms_)
    if (s->async_pending()) {
      livelock_.reset();
      return {};
    }
  for (const auto& s : sms_)
    s->for_each_live_warp([&](const func::Warp& w, const KernelCtx& k, const func::Cta&) {
      live.push_back(&w);
      epoch = k.cx.gmem->write_epoch;
    });
  if (live.empty() || !livelock_.check(live, epoch)) return {};
  std::string names;
  for (const auto& r : running_) names += (names.empty() ? "" : ", ") + r->ctx.launch->prog->name;
  std::string s = fmt::format(
      "livelock in kernel {} (cycle {}): every running warp repeats the same state with no "
      "memory write anywhere on the device, so it can never finish (a spin on a flag nobody "
      "sets, blocks waiting for each other, or an mbarrier phase nobody can complete); "
      "per-warp state:",
      names, now);
  for (const auto& sm : sms_)
    sm->for_each_live_warp([&](const func::Warp& w, const KernelCtx& k, const func::Cta& c) {
      s += fmt::format("\n  SM {} block ({},{},{}) of {}:\n", sm->id(), c.ctaid.x, c.ctaid.y,
                       c.ctaid.z, k.launch->prog->name);
      s += func::livelock_warp_line(*k.launch->prog, w, epoch);
    });
  return s;
}

std::string Gpu::deadlock_report(uint64_t now, uint64_t quiet) const {
  std::string names;
  for (const auto& r : running_) names += (names.empty() ? "" : ", ") + r->ctx.launch->prog->name;
  std::string dump = fmt::format(
      "deadlock: kernel {} made no progress for {} cycles (cycle {}); per-warp state:\n", names,
      quiet, now);
  return dump + warp_dump();
}

std::string Gpu::warp_dump() const {
  std::string dump;
  for (const auto& s : sms_)
    if (s->busy()) dump += s->dump_state();
  return dump;
}

void Gpu::print_progress(const std::chrono::steady_clock::time_point& wall0, uint64_t start,
                         bool tty) {
  uint64_t wi = 0, done = 0, total = 0;
  std::string name;
  for (const auto& r : running_) {
    wi += r->ctx.warp_insts;
    done += r->ctx.ctas_done;
    total += r->total;
    if (name.empty()) name = demangle(r->ctx.launch->prog->name);
  }
  // Keep the line to one terminal row: long template names are cut.
  if (name.size() > 60) name = name.substr(0, 57) + "...";
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  // ETA from the CTAs finished so far (the total work a launch knows up front).
  std::string eta;
  if (done > 0 && done < total && secs > 0) {
    const double left = secs * double(total - done) / double(done);
    eta = left >= 3600 ? fmt::format(", ETA {:.1f} h", left / 3600)
          : left >= 60 ? fmt::format(", ETA {:.1f} min", left / 60)
                       : fmt::format(", ETA {:.0f} s", left);
  }
  const std::string line = fmt::format(
      "[simtlab] {}{}: cycle {}, {} warp-insts, {:.0f}K warp-inst/s, CTAs {}/{}{}", name,
      running_.size() > 1 ? fmt::format(" (+{} more)", running_.size() - 1) : "",
      core_->cycle() - start, wi, secs > 0 ? double(wi) / secs / 1e3 : 0.0, done, total, eta);
  // On a terminal the line is rewritten in place; in a log, one plain line each time.
  if (tty)
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  else
    std::fprintf(stderr, "%s\n", line.c_str());
}

void Gpu::run_streams(func::Device& dev, std::vector<func::StreamOp>& ops) {
  try {
    run_streams_impl(dev, ops);
  } catch (...) {
    // A guest fault, hang or interrupt ends the batch (the runtime makes the error sticky);
    // the kernels that were running report what they did up to now.
    fail_running(std::current_exception());
  }
}

void Gpu::run_streams_impl(func::Device& dev, std::vector<func::StreamOp>& ops) {
  using Kind = func::StreamOp::Kind;
  const uint64_t start = core_->cycle();
  std::vector<uint8_t> started(ops.size(), 0);
  auto is_head = [&](size_t i) {
    for (size_t j = 0; j < i; ++j)
      if (ops[j].stream == ops[i].stream && !ops[j].done) return false;
    return true;
  };
  auto start_ready = [&]() {
    for (bool again = true; again;) {
      again = false;
      const uint64_t now = core_->cycle();
      for (size_t i = 0; i < ops.size(); ++i) {
        func::StreamOp& op = ops[i];
        if (op.done || started[i] || !is_head(i)) continue;
        switch (op.kind) {
          case Kind::kernel:
            if (running_.size() >= p_.gpu.max_concurrent_kernels) continue;
            start_kernel(dev, op, now);
            started[i] = 1;
            continue;
          case Kind::action:
            op.action();
            break;
          case Kind::record:
            break;
          case Kind::wait:
            if (op.waits_for >= 0 && !ops[size_t(op.waits_for)].done) continue;
            break;
        }
        started[i] = 1;
        op.start_cycle = op.done_cycle = now;
        op.done = true;
        again = true;
      }
    }
  };
  const auto wall0 = std::chrono::steady_clock::now();
  if (trace_) {
    // Counter rates cover simulated time of this batch only.
    counter_last_ = start;
    counter_next_ = start + p_.trace.counter_interval;
    counter_prev_.clear();
    for (const auto& sm : sms_) counter_prev_.push_back(sm->warp_insts());
    dram_prev_ = 0;
    for (const stats::Counter* c : dram_requests_) dram_prev_ += c->value;
  }
  auto last_print = wall0;
  bool printed = false;
  uint64_t last_check = start, last_livelock = start;
  start_ready();
  auto all_done = [&] {
    for (const auto& op : ops)
      if (!op.done) return false;
    return true;
  };
  while (!all_done()) {
    if (running_.empty())
      fatal("stream operations wait for each other in a cycle (cudaStreamWaitEvent deadlock)");
    bool progress = false;
    if (!sim_.step(&progress)) {
      uint64_t last = 0;
      for (auto& s : sms_) last = std::max(last, s->last_progress());
      throw GuestDeadlock(deadlock_report(core_->cycle(), core_->cycle() - last));
    }
    const uint64_t now = core_->cycle();
    if (trace_) sample_counters(now);
    bool finished = false;
    for (size_t i = 0; i < running_.size();) {
      Running& r = *running_[i];
      if (r.next_cta == r.total && r.ctx.ctas_done == r.total) {
        finish_kernel(r, now);
        running_.erase(running_.begin() + long(i));
        finished = true;
      } else {
        ++i;
      }
    }
    if (finished) start_ready();
    if (alarm_) sample_intervals(now);
    if (now - last_check >= 1024) {
      last_check = now;
      uint64_t last = 0;
      for (auto& s : sms_) last = std::max(last, s->last_progress());
      if (now > last + p_.sim.watchdog_cycles && now > start + p_.sim.watchdog_cycles)
        throw GuestDeadlock(deadlock_report(now, now - last));
      if (const int sig = interrupt_pending()) throw Interrupted(sig);
      if (p_.sim.max_kernel_cycles)
        for (const auto& r : running_)
          if (now - r->start > p_.sim.max_kernel_cycles)
            throw GuestTimeout(fmt::format(
                "kernel {} did not finish within sim.max_kernel_cycles = {} cycles (stopped at "
                "cycle {} of the kernel); per-warp state:\n{}",
                r->ctx.launch->prog->name, p_.sim.max_kernel_cycles, now - r->start, warp_dump()));
      if (p_.sim.livelock_check && now - last_livelock >= 16384) {
        last_livelock = now;
        const std::string rep = livelock_report(now);
        if (!rep.empty()) throw GuestTimeout(rep);
      }
      if (progress_) {
        const auto t = std::chrono::steady_clock::now();
        if (t - last_print >= std::chrono::milliseconds(progress_ms_)) {
          last_print = t;
          print_progress(wall0, start, progress_tty_);
          printed = true;
        }
      }
    }
  }
  if (printed && progress_tty_) std::fprintf(stderr, "\r\033[K");
}

func::LaunchResult Gpu::run(func::Device& dev, func::LaunchState& L) {
  std::vector<func::StreamOp> ops(1);
  ops[0].kind = func::StreamOp::Kind::kernel;
  // Borrow the caller's launch state for the duration of the run.
  ops[0].launch.reset(&L);
  has_failed_ = false;
  try {
    run_streams(dev, ops);
  } catch (...) {
    (void)ops[0].launch.release();
    if (ops[0].failed) {
      failed_ = std::move(ops[0].result);
      has_failed_ = true;
    }
    throw;
  }
  (void)ops[0].launch.release();
  return ops[0].result;
}

}  // namespace simtlab::timing
