#include "timing/gpu/gpu.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "base/bits.h"
#include "base/error.h"
#include "func/executor.h"
#include "stats/snapshot.h"
#include "stats/writers.h"
#include "timing/mem_backend.h"

namespace simtlab::timing {

CtaNeeds cta_needs(const SmParams& sm, Dim3 block, uint32_t regs_per_thread, uint32_t shared_bytes) {
  CtaNeeds n;
  n.threads = uint32_t(block.count());
  n.warps = (n.threads + sm.warp_size - 1) / sm.warp_size;
  const uint64_t per_warp = align_up(uint64_t(std::max(regs_per_thread, 1u)) * sm.warp_size, sm.reg_alloc_granularity);
  n.regs = uint32_t(per_warp * n.warps);
  n.shared = shared_bytes ? uint32_t(align_up(shared_bytes, sm.shared_granularity)) : 0;
  // Threads are allocated in whole warps.
  n.threads = n.warps * sm.warp_size;
  return n;
}

uint32_t ctas_per_sm(const SmParams& sm, const CtaNeeds& n) {
  uint32_t c = sm.max_ctas;
  c = std::min(c, sm.num_warps / std::max(n.warps, 1u));
  c = std::min(c, sm.max_threads / std::max(n.threads, 1u));
  if (n.regs) c = std::min(c, sm.registers / n.regs);
  if (n.shared) c = std::min(c, sm.shared_bytes / n.shared);
  return c;
}

/// Hands CTAs of the current launch to SMs as resources free up: every core cycle, SMs are
/// visited round robin and each may receive one CTA (GPGPU book 2.1 / 1.0: round-robin CTA
/// scheduling until warps, registers, shared memory or CTA slots run out).
class Gpu::Dispatcher : public sim::Component {
 public:
  explicit Dispatcher(Gpu& g) : sim::Component("cta_dispatcher"), g_(g) {}
  void begin(const func::LaunchState* L, const CtaNeeds& n, uint64_t start_cycle) {
    L_ = L;
    needs_ = n;
    next_ = 0;
    total_ = L->grid.count();
    start_ = start_cycle;
    wake();
  }
  bool all_dispatched() const { return next_ >= total_; }
  uint64_t dispatched() const { return next_; }
  bool tick() override {
    if (all_dispatched()) {
      sleep();
      return false;
    }
    const uint64_t now = cycle();
    if (now < start_) return false;
    bool any = false;
    const uint32_t nsm = uint32_t(g_.sms_.size());
    for (uint32_t k = 0; k < nsm && !all_dispatched(); ++k) {
      Sm& sm = *g_.sms_[(rr_ + k) % nsm];
      if (!sm.fits(needs_)) continue;
      const Dim3& gd = L_->grid;
      const uint64_t i = next_++;
      const Dim3 id{uint32_t(i % gd.x), uint32_t((i / gd.x) % gd.y), uint32_t(i / (uint64_t(gd.x) * gd.y))};
      sm.launch_cta(needs_, id, uint32_t(i), now);
      any = true;
    }
    rr_ = (rr_ + 1) % std::max(nsm, 1u);
    return any;
  }

 private:
  Gpu& g_;
  const func::LaunchState* L_ = nullptr;
  CtaNeeds needs_;
  uint64_t next_ = 0, total_ = 0, start_ = 0;
  uint32_t rr_ = 0;
};

Gpu::Gpu(const GpuParams& p)
    : p_(p),
      kernels_(root_.counter("kernels", "launches", "Kernel launches simulated")),
      cycles_(root_.counter("cycles", "cycles", "Core cycles from launch to completion, summed over kernels")) {
  core_ = &sim_.add_domain("core", p_.gpu.core_mhz);
  icnt_ = &sim_.add_domain("icnt", p_.gpu.icnt_mhz);
  l2_ = &sim_.add_domain("l2", p_.gpu.l2_mhz);
  dram_ = &sim_.add_domain("dram", p_.gpu.dram_mhz);
  mem_ = make_memory_backend(p_, sim_, *core_, *icnt_, *l2_, *dram_, root_);
  for (uint32_t i = 0; i < p_.gpu.num_sms; ++i) {
    ports_.push_back(mem_->port(i));
    sms_.push_back(std::make_unique<Sm>(i, p_.sm, root_, ports_.back().get()));
    sim_.add(*sms_.back(), *core_);
    mem_->attach(i, *sms_.back());
  }
  dispatcher_ = std::make_unique<Dispatcher>(*this);
  sim_.add(*dispatcher_, *core_);
}

Gpu::~Gpu() = default;

void Gpu::enable_trace(uint64_t b, uint64_t e) {
  trace_ = std::make_unique<TraceSink>(b, e);
  for (auto& s : sms_) s->set_trace(trace_.get());
}

func::LaunchResult Gpu::run(func::Device& dev, func::LaunchState& L) {
  const func::Program& k = *L.prog;
  const uint32_t regs = L.regs_per_thread ? L.regs_per_thread : k.estimated_regs;
  const CtaNeeds needs = cta_needs(p_.sm, L.block, regs, L.shared_bytes);
  if (ctas_per_sm(p_.sm, needs) == 0)
    fatal("kernel {} cannot run on this GPU: one CTA of {} threads needs {} registers ({} per thread) and {} bytes of "
          "shared memory; an SM has {} registers, {} bytes of shared memory, {} threads and {} warp slots",
          k.name, L.block.count(), needs.regs, regs, needs.shared, p_.sm.registers, p_.sm.shared_bytes,
          p_.sm.max_threads, p_.sm.num_warps);
  func::ExecContext cx;
  cx.gmem = &dev.memory();
  cx.heap = &dev.heap();
  cx.prog = &k;
  cx.launch = &L;
  cx.print = &dev.print_sink();
  cx.textures = &dev.textures();
  L.num_sms = p_.gpu.num_sms;
  const uint64_t code_base = 0x0000'0600'0000'0000ull + (uint64_t(++launches_) << 28);
  for (auto& s : sms_) s->begin_kernel(&L, cx, code_base);
  mem_->update_stats();
  const stats::Snapshot before = stats::snapshot(root_);
  const uint64_t start = core_->cycle();
  uint64_t warp0 = 0, thread0 = 0;
  for (auto& s : sms_) {
    warp0 += s->warp_insts();
    thread0 += s->thread_insts();
  }
  dispatcher_->begin(&L, needs, start + p_.gpu.kernel_launch_latency);
  auto done = [&] {
    if (!dispatcher_->all_dispatched()) return false;
    for (auto& s : sms_)
      if (s->busy()) return false;
    return true;
  };
  // Deadlock watchdog: no SM progress for watchdog_cycles core cycles.
  uint64_t last_check = start;
  const auto wall0 = std::chrono::steady_clock::now();
  auto last_print = wall0;
  bool printed = false;
  auto deadlock = [&](uint64_t now, uint64_t quiet) {
    std::string dump = fmt::format("deadlock: kernel {} made no progress for {} cycles (cycle {}); per-warp state:\n",
                                   k.name, quiet, now);
    for (auto& s : sms_)
      if (s->busy()) dump += s->dump_state();
    throw GuestError(dump);
  };
  while (!done()) {
    bool progress = false;
    if (!sim_.step(&progress)) {
      uint64_t last = 0;
      for (auto& s : sms_) last = std::max(last, s->last_progress());
      deadlock(core_->cycle(), core_->cycle() - last);
    }
    const uint64_t now = core_->cycle();
    if (now - last_check >= 1024) {
      last_check = now;
      if (progress_) {
        const auto t = std::chrono::steady_clock::now();
        if (t - last_print > std::chrono::milliseconds(500)) {
          last_print = t;
          uint64_t wi = 0, resident = 0;
          for (auto& sm : sms_) {
            wi += sm->warp_insts();
            resident += sm->resident_ctas();
          }
          wi -= warp0;
          const double secs = std::chrono::duration<double>(t - wall0).count();
          std::fprintf(stderr, "\r\033[K[simtlab] %s: cycle %llu, %llu warp-insts, %.0fK warp-inst/s, CTAs %llu/%llu",
                       k.name.c_str(), (unsigned long long)(now - start), (unsigned long long)wi,
                       secs > 0 ? double(wi) / secs / 1e3 : 0.0,
                       (unsigned long long)(dispatcher_->dispatched() - resident),
                       (unsigned long long)L.grid.count());
          printed = true;
        }
      }
      uint64_t last = 0;
      for (auto& s : sms_) last = std::max(last, s->last_progress());
      if (now > last + p_.sim.watchdog_cycles && now > start + p_.sim.watchdog_cycles) deadlock(now, now - last);
    }
  }
  if (printed) std::fprintf(stderr, "\r\033[K");
  const uint64_t end = core_->cycle();
  ++kernels_;
  cycles_ += end - start;
  func::LaunchResult r;
  r.cycles = end - start;
  r.ctas = L.grid.count();
  for (auto& s : sms_) {
    r.warp_insts += s->warp_insts();
    r.thread_insts += s->thread_insts();
  }
  r.warp_insts -= warp0;
  r.thread_insts -= thread0;
  mem_->update_stats();
  const stats::Snapshot after = stats::snapshot(root_);
  nlohmann::json j = stats::to_json(root_, stats::delta(after, before));
  j["start_cycle"] = start;
  j["end_cycle"] = end;
  j["occupancy"] = {{"regs_per_thread", regs},
                    {"ctas_per_sm", ctas_per_sm(p_.sm, needs)},
                    {"warps_per_cta", needs.warps},
                    {"shared_per_cta", needs.shared},
                    {"regs_per_cta", needs.regs}};
  if (trace_) {
    trace_->flush(end);
    trace_->kernel(k.name, start, end);
    j["trace_events"] = trace_->take_events();
  }
  r.stats_json = j.dump();
  return r;
}

}  // namespace simtlab::timing
