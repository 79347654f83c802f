// The GPU top level: clock domains, SMs, the memory system and the CTA dispatcher, wired in
// one place. Gpu is the timing engine behind func::Device: it runs kernel launches cycle by
// cycle to completion and reports their cycles and stats. Launches of different CUDA streams
// run concurrently (up to gpu.max_concurrent_kernels at once, CTAs dispatched in launch order
// as resources free up); each stream's operations stay in order and event waits are
// honoured. State real hardware keeps across kernels (L2 contents, simulated time) persists.
// Each loaded function has one instruction address range, assigned at its first launch and
// kept for the GPU's lifetime (the driver places a module's code in device memory once), so a
// relaunch fetches the same lines and finds them in the I-cache / L2 if they are still there.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ext/sharing/plan.h"
#include "func/device.h"
#include "func/livelock.h"
#include "power/model.h"
#include "sim/sim.h"
#include "stats/group.h"
#include "stats/snapshot.h"
#include "timing/gpu/intervals.h"
#include "timing/gpu_params.h"
#include "timing/sm/mem_port.h"
#include "timing/sm/sm.h"
#include "timing/trace.h"

namespace simtlab::timing {

class MemBackend;

/// Resources one CTA of a launch needs on an SM (occupancy calculation, CUDA Occupancy
/// Calculator rules: registers per warp rounded up to the allocation granularity, shared
/// memory rounded up to its granularity).
CtaNeeds cta_needs(const SmParams& sm, Dim3 block, uint32_t regs_per_thread, uint32_t shared_bytes);
/// CTAs of that size one SM holds at once (0 = the kernel cannot run), with `shared_cap`
/// bytes of shared memory (UINT32_MAX: sm.shared_bytes).
uint32_t ctas_per_sm(const SmParams& sm, const CtaNeeds& n, uint32_t shared_cap = UINT32_MAX);
/// Unified L1/shared (sm.l1_shared_unified): the shared capacity (bytes, one of
/// sm.shared_carveouts) the driver gives a kernel whose CTAs need `n`. `pref` is the kernel's
/// cudaFuncAttributePreferredSharedMemoryCarveout (percent of the largest carve-out, -1 none).
/// With a preference: the smallest carve-out >= pref% of the largest (the CUDA Programming
/// Guide: the hint is rounded up to the nearest supported capacity), raised to the smallest
/// that holds one CTA when it does not. Without: the smallest carve-out that keeps the
/// occupancy the largest gives (the Volta tuning guide: the driver sizes shared memory to avoid
/// shared-memory occupancy bottlenecks, the rest is L1). Not unified: sm.shared_bytes.
uint32_t choose_carveout(const SmParams& sm, const CtaNeeds& n, int pref);

class Gpu : public func::Engine {
 public:
  explicit Gpu(const GpuParams& p);
  ~Gpu() override;

  func::LaunchResult run(func::Device& dev, func::LaunchState& launch) override;
  void run_streams(func::Device& dev, std::vector<func::StreamOp>& ops) override;
  bool concurrent() const override { return p_.gpu.max_concurrent_kernels > 1; }
  bool take_failed_result(func::LaunchResult* out) override;
  void copy_engine_write(Addr a, uint64_t n) override;

  void enable_trace(uint64_t window_begin, uint64_t window_end);
  /// Print a progress line on stderr (kernel, cycles, instructions, rate, CTAs, ETA) while
  /// running: rewritten in place twice a second on a terminal (`tty`), else a plain line every
  /// 10 s (batch logs).
  void enable_progress(bool on, bool tty = true, double interval_s = -1) {
    progress_ = on;
    progress_tty_ = tty;
    progress_ms_ = interval_s >= 0 ? uint64_t(interval_s * 1000) : tty ? 500 : 10000;
  }
  stats::Group& stats() { return root_; }
  uint64_t cycle() const { return core_->cycle(); }
  Sm& sm(uint32_t i) { return *sms_[i]; }
  const GpuParams& params() const { return p_; }

 private:
  /// A launch in flight.
  struct Running {
    func::StreamOp* op = nullptr;
    KernelCtx ctx;
    CtaNeeds needs;
    uint32_t regs = 0;
    uint64_t next_cta = 0, total = 0;
    uint64_t start = 0;
    stats::Snapshot before;
    std::unique_ptr<PcStats> pcs;                 // sim.per_pc_stats
    std::unique_ptr<IntervalRecorder> intervals;  // stats.interval > 0
    sharing::Plan share_plan;                     // sharing.mode != none
    // Thread-block clusters: one state per launched cluster (its CTAs' SMs are woken when
    // its barrier completes); next_cta counts CTAs in cluster order.
    std::vector<std::unique_ptr<func::ClusterState>> clusters;
  };

  void run_streams_impl(func::Device& dev, std::vector<func::StreamOp>& ops);
  void start_kernel(func::Device& dev, func::StreamOp& op, uint64_t now);
  void finish_kernel(Running& r, uint64_t now);
  /// Fill `r.op->result` with what the kernel did up to `now` (cycles, instructions, stats).
  void fill_result(Running& r, uint64_t now);
  /// Stop every running kernel (their ops become `failed` with partial results) and rethrow.
  [[noreturn]] void fail_running(std::exception_ptr e);
  /// Livelock report, or empty when the running kernels are not livelocked.
  std::string livelock_report(uint64_t now);
  bool dispatch(uint64_t now);
  /// Thread-block clusters: launch whole clusters of `r` on SMs of one GPC (gpu.gpcs) that
  /// each fit one more CTA, at most one CTA per SM per cycle (`got`).
  void dispatch_clusters(Running& r, std::vector<uint8_t>& got, uint64_t now);
  /// First SM id of GPC `g` (g == gpcs: the SM count).
  uint32_t gpc_begin(uint32_t g) const;
  std::string deadlock_report(uint64_t now, uint64_t quiet) const;
  std::string warp_dump() const;
  void print_progress(const std::chrono::steady_clock::time_point& wall0, uint64_t start, bool tty);
  /// Interval statistics: close the intervals of running kernels that reached a boundary, and
  /// wake the alarm at the next one (the SMs may sleep across it).
  void sample_intervals(uint64_t now);
  void arm_interval_alarm(uint64_t now);
  /// Trace counter tracks, sampled every trace.counter_interval cycles.
  void sample_counters(uint64_t now);
  /// Instruction address of `k`'s first instruction: assigned at the function's first launch,
  /// the same for every later launch (see code_).
  uint64_t code_base(const func::Program& k);

  GpuParams p_;
  stats::Group root_{"gpu"};
  stats::Counter& kernels_;
  stats::Counter& cycles_;
  sim::Simulation sim_;
  sim::ClockDomain* core_ = nullptr;
  sim::ClockDomain* icnt_ = nullptr;
  sim::ClockDomain* l2_ = nullptr;
  sim::ClockDomain* dram_ = nullptr;
  std::unique_ptr<MemBackend> mem_;
  std::vector<std::unique_ptr<SmMemPort>> ports_;
  std::vector<std::unique_ptr<Sm>> sms_;
  std::shared_ptr<sharing::DynBoard> dyn_board_;  // sharing.dyn: the reference SM's window
  std::vector<std::unique_ptr<Running>> running_;
  std::unique_ptr<sim::Component> dispatcher_;
  std::unique_ptr<TraceSink> trace_;
  std::unique_ptr<sim::Component> alarm_;  // stats.interval > 0 only
  std::unique_ptr<power::Model> power_;    // power.enable only
  uint64_t counter_last_ = 0, counter_next_ = 0;
  std::vector<uint64_t> counter_prev_;                // per SM warp insts at counter_last_
  std::vector<const stats::Counter*> dram_requests_;  // per channel (trace counters)
  uint64_t dram_prev_ = 0;
  /// Where each loaded function's code lives in the instruction address space. Functions get
  /// non-overlapping ranges of code.size() x sm.ifetch_bytes bytes, each aligned to
  /// kCodeAlign. An entry whose Program was freed (module unloaded) and whose address now
  /// holds another function is recognised by module, entry and size and gets a fresh range.
  struct CodeRange {
    const func::LoadedModule* module = nullptr;
    uint32_t kernel_func = 0;
    size_t insts = 0;
    uint64_t base = 0;
  };
  std::unordered_map<const func::Program*, CodeRange> code_;
  uint64_t next_code_;
  func::LivelockMonitor livelock_;
  func::LaunchResult failed_;
  bool has_failed_ = false;
  uint32_t rr_ = 0;
  uint32_t gpc_rr_ = 0;  // thread-block clusters: the GPC tried first
  bool progress_ = false, progress_tty_ = true;
  uint64_t progress_ms_ = 500;
};

}  // namespace simtlab::timing
