// One streaming multiprocessor (GPGPU book chapter 3): a sim::Component in the core clock
// domain. Each cycle, in this order:
//   writeback  results whose latency elapsed release their scoreboard entries
//   ldst       the LD/ST unit moves memory transactions through the L1 caches
//   collect    collector units read source registers of instructions issued in earlier
//              cycles, one read per register bank per cycle (bank = (register + warp slot) mod
//              banks); a bank written back this cycle cannot be read
//   dispatch   fully collected instructions go to a free execution unit (oldest first)
//   issue      each scheduler picks a warp whose next instruction is decoded, has no
//              scoreboard hazard and finds a free operand-collector unit; the instruction is
//              executed functionally at issue (func::step) and enters the collector
//   fetch      one warp per cycle refills its instruction buffer from the I-cache
// Timing never computes values: the functional executor does at issue.
// Files: sm.cpp (resources, CTAs, the tick), fetch.cpp, issue.cpp (scoreboard + schedulers),
// opcoll.cpp (operand collector + dispatch), writeback.cpp, ldst.cpp (LD/ST unit), sched_*.cpp;
// sm_policy.h: hook points for research mechanisms (src/ext/), empty when they are off.
//
// Contract of the latencies (sm.<class>.latency): an instruction issued at t reads its
// operands at t+1, is dispatched at t+1 and writes back at t + latency, so a dependent
// instruction can issue exactly `latency` cycles after its producer, when operands are read
// without bank conflicts and the unit was free; each extra conflicting read adds one cycle. Narrow
// SIMD units (simd_width < warp_size) take warp_size/simd_width passes: the unit is busy interval x
// passes cycles and the result is passes-1 cycles later.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "func/executor.h"
#include "func/warp.h"
#include "sim/sim.h"
#include "stats/group.h"
#include "timing/sm/inflight.h"

namespace simtlab::func {
struct ArchPc;
struct ArchRegMap;
}  // namespace simtlab::func

namespace simtlab::timing::sharing {
struct Plan;
struct DynBoard;
class SmSharing;
}  // namespace simtlab::timing::sharing
#include "timing/sm/ldst.h"
#include "timing/sm/pc_stats.h"
#include "timing/sm/power_counters.h"
#include "timing/sm/scheduler.h"
#include "timing/sm/sm_params.h"
#include "timing/sm/sm_policy.h"
#include "timing/sm/stall.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::ext {
class RegFileCache;
class ValueClassifier;
class ItsStats;
class SimtStats;
class LpcStats;
namespace d2ma {
class Engine;
}
namespace tbc {
class TbcCta;
class TbcStats;
struct Piece;
}  // namespace tbc
namespace dwf {
class DwfCta;
enum class Policy : uint8_t;
class DwfStats;
}  // namespace dwf
namespace greener {
class SmGreener;
}
}  // namespace simtlab::ext

namespace simtlab::timing {

class TmaUnit;

class TraceSink;

/// One running kernel launch as the SMs see it (several may run at once, from different
/// streams): its functional context, instruction-address base and instruction counters.
struct KernelCtx {
  const func::LaunchState* launch = nullptr;
  func::ExecContext cx;
  uint64_t code_base = 0;
  uint64_t warp_insts = 0, thread_insts = 0;
  uint64_t ctas_done = 0;
  PcStats* pcs = nullptr;  // per-instruction counters (sim.per_pc_stats), null when off
  // sm.register_numbering = architectural: per-PC architectural registers and spill traffic,
  // and the per-thread local bytes including the spill area (null / 0 when virtual).
  const func::ArchRegMap* arch = nullptr;
  uint32_t arch_local_bytes = 0, spill_area = 0;
  // sharing.mode != none: the kernel's allocation plan (null when off).
  const sharing::Plan* share_plan = nullptr;
  // sm.l1_shared_unified: the shared capacity the driver chose for this kernel (bytes), else
  // kNoCarveout.
  static constexpr uint32_t kNoCarveout = UINT32_MAX;
  uint32_t carveout = kNoCarveout;
};

/// A CTA resident on an SM: its functional state and its share of the SM's resources.
struct CtaSlot {
  KernelCtx* k = nullptr;
  std::unique_ptr<func::Cta> cta;
  uint32_t warps = 0;
  uint32_t live_warps = 0;
  uint32_t regs = 0;    // registers allocated
  uint32_t shared = 0;  // shared bytes allocated
  uint32_t threads = 0;
  uint64_t start_cycle = 0;
  bool active = false;
  // sim.divergence=tbc (src/ext/tbc): the CTA-wide stack and compacted warps, and the SM slot
  // of each warp of the CTA (also dwf's); null when off or for a kernel with non-inlined calls.
  std::unique_ptr<ext::tbc::TbcCta> tbc;
  std::unique_ptr<ext::dwf::DwfCta> dwf;  // sim.divergence=dwf (src/ext/dwf)
  std::vector<uint32_t> tbc_slots;
  CtaSlot();
  ~CtaSlot();
  CtaSlot(CtaSlot&&) noexcept;
};

/// Per-CTA resource needs of the current kernel (computed by the dispatcher).
struct CtaNeeds {
  uint32_t threads = 0, warps = 0, regs = 0, shared = 0;
};

class Sm : public sim::Component {
 public:
  Sm(uint32_t id, const SmParams& p, stats::Group& parent, SmMemPort* port);
  ~Sm() override;

  bool tick() override;

  /// A kernel launch starts on the GPU (flushes the L1s when sm.flush_l1_per_kernel).
  void begin_kernel(const func::GlobalMemory* gmem);
  /// Can the SM host another CTA needing `n` (of kernel `k`: its sharing plan, when any)?
  bool fits(const CtaNeeds& n, const KernelCtx* k = nullptr) const;
  /// Unified L1/shared: the current shared capacity (bytes).
  uint32_t carveout() const { return shared_cap_; }
  /// Unified L1/shared: switch to `shared` bytes of shared memory (the L1 gets the rest of the
  /// array in whole ways). Only while no CTA is resident: the L1's dirty lines are written
  /// back first (false until that finished, or while CTAs are resident), then it is emptied.
  bool switch_carveout(uint32_t shared);
  /// Resource sharing's dynamic warp execution: the board the GPU's SMs share.
  void set_sharing_board(std::shared_ptr<sharing::DynBoard> b);
  /// Resource sharing's per-SM state (null when sharing.mode=none).
  const sharing::SmSharing* sharing() const { return sharing_.get(); }
  /// Place a CTA (functional state already initialised by the caller is created here).
  /// `cluster`: the thread-block cluster it joins as rank `rank` (null: none).
  void launch_cta(KernelCtx* k, const CtaNeeds& n, Dim3 ctaid, uint32_t linear_id, uint64_t now,
                  func::ClusterState* cluster = nullptr, uint32_t rank = 0);
  /// Thread-block clusters: create the `cluster` stats group (once; kernels with clusters).
  void enable_cluster_stats();
  /// CTAs finished since the last call (the dispatcher frees their slots' bookkeeping).
  uint32_t take_finished_ctas();
  bool busy() const { return resident_ctas_ > 0 || !ldst_->idle() || !d2ma_idle(); }
  uint32_t resident_ctas() const { return resident_ctas_; }
  uint32_t id() const { return id_; }
  /// Per-warp state dump for deadlock reports.
  std::string dump_state() const;
  /// Resident warps whose threads have not all exited, with their CTA's launch (livelock
  /// detection and reports).
  template <typename F>
  void for_each_live_warp(F&& f) const {
    for (const WarpSlot& w : warps_)
      if (w.active && !w.func_done && w.fw) f(*w.fw, *w.cta->k, *w.cta->cta);
  }
  /// Asynchronous work that will still change shared memory or an mbarrier by itself: bulk /
  /// tensor copies in flight, deferred cp.async.mbarrier.arrive-ons, D2MA transfers. The
  /// livelock detector does not judge warps while any is pending.
  bool async_pending() const;
  /// Cycle of the last progress (issue, writeback or memory activity).
  uint64_t last_progress() const { return last_progress_; }
  /// power.enable: count register operands and lane operations (group sm[i].activity).
  void enable_power_counters();
  void set_trace(TraceSink* t) {
    trace_ = t;
    ldst_->set_trace(t);
    if (d2ma_) set_d2ma_trace(t);
    for (auto& q : policies_) q->set_trace(t, id_);
  }
  /// Test hook: record (cycle, warp slot) of every issue.
  void set_issue_log(std::vector<std::pair<uint64_t, uint32_t>>* log) { issue_log_ = log; }
  uint64_t warp_insts() const { return warp_insts_.value; }
  uint64_t thread_insts() const { return thread_insts_.value; }
  LdstUnit& ldst() { return *ldst_; }
  /// Interval statistics: account the cycles skipped while sleeping up to `now` (exclusive)
  /// now, so a snapshot at `now` sees them (the next tick accounts only the rest).
  void sync_skipped(uint64_t now) {
    if (waiting_sleep_ && now > last_tick_ + 1) {
      account_skipped(now - last_tick_ - 1);
      last_tick_ = now - 1;
    }
  }
  /// The register-file cache (rfc.enable), else null.
  ext::RegFileCache* rfc() { return rfc_.get(); }
  /// The D2MA engine (d2ma.enable, src/ext/d2ma), else null.
  ext::d2ma::Engine* d2ma() { return d2ma_; }

 private:
  struct Writeback {
    uint32_t warp;  // slot
    uint8_t ndst;
    uint32_t dst[4];
    uint8_t dst_w[4];
    bool dst_pred[4];
  };
  struct Unit {
    UnitKind kind;
    uint64_t free_at = 0;
    uint32_t part = 0;  // sub-core (sm.sub_cores), 0 when the SM is not partitioned
  };
  // ---- sub-cores (sm.sub_cores): parts_ = 1 when off ----
  static constexpr uint32_t kMaxParts = 8;
  uint32_t part_of(const WarpSlot& w) const { return parts_ == 1 ? 0 : w.sched; }
  bool collectors_full(uint32_t part) const {
    return parts_ == 1 ? collectors_busy_ == collectors_.size()
                       : coll_busy_part_[part] == coll_per_part_;
  }
  /// Instructions of kind `uk` that may wait for dispatch in a sub-core (the LD/ST path is
  /// shared by all sub-cores and counted in part 0).
  uint32_t& waiting(uint32_t part, UnitKind uk) {
    return waiting_dispatch_[uk == UnitKind::ldst ? 0 : part][size_t(uk)];
  }
  uint32_t waiting(uint32_t part, UnitKind uk) const {
    return waiting_dispatch_[uk == UnitKind::ldst ? 0 : part][size_t(uk)];
  }
  uint32_t unit_cap(UnitKind uk) const {
    const uint32_t n = units_of_kind_[size_t(uk)];
    return std::max<uint32_t>(1, uk == UnitKind::ldst ? n : n / parts_);
  }

  UnitKind unit_for(ptx::ExecClass c) const;
  const UnitTiming& timing_for(ptx::ExecClass c) const;
  bool hazard_arch(const WarpSlot& w, const func::DInst& d, const func::ArchPc& ap) const;
  Stall issue_spill(WarpSlot& w, KernelCtx& kc, uint32_t pc, bool store, uint64_t now,
                    bool* issued);
  uint32_t bank_of(uint32_t reg, uint32_t warp_slot) const {
    if (parts_ == 1) return (reg + warp_slot) % p_.num_reg_banks;
    // Sub-cores: a warp's registers live in its sub-core's slice of the banks.
    const uint32_t per = p_.num_reg_banks / parts_;
    return (warp_slot % parts_) * per + (reg + warp_slot / parts_) % per;
  }

  void writeback(uint64_t now);
  void release(const Writeback& wb, uint64_t now);
  void schedule_writeback(const InFlight& f, uint64_t cycle);
  void complete(const InFlight& f, uint64_t now);
  void issue(uint64_t now);
  template <bool kExt>
  void issue_impl(uint64_t now);
  template <bool kExt>
  Stall try_issue(WarpSlot& w, uint64_t now, bool* issued);
  void collect(uint64_t now);
  void dispatch(uint64_t now);
  void fetch(uint64_t now);
  void retire_warp(WarpSlot& w);
  bool hazard(const WarpSlot& w, const func::DInst& d) const;
  // Asynchronous copies (cp.async, sm.cpp): may the wait_group `d` of `w` issue now; the
  // bookkeeping of an issued cp.async / commit_group / wait_group; a completed cp.async.
  bool async_ready(const WarpSlot& w, const func::DInst& d) const;
  bool wgmma_ready(WarpSlot& w, const func::DInst& d, uint64_t now) const;
  void async_issue(WarpSlot& w, const func::DInst& d, InFlight& f, uint64_t now);
  void async_complete(const InFlight& f);
  // Group `async` (created by the first cp.async on this SM, absent otherwise).
  struct AsyncStats {
    stats::Counter *insts, *bytes, *wait_cycles, *waits, *peak;
    stats::Counter *wg_insts = nullptr, *wg_waits = nullptr, *wg_wait_cycles = nullptr,
                   *wg_busy = nullptr;
    stats::Counter *mb_waits = nullptr, *mb_wait_cycles = nullptr;  // mbarrier.try_wait
    uint64_t in_flight = 0;
  };
  std::unique_ptr<AsyncStats> async_;
  AsyncStats& async_stats();
  // ---- bulk / tensor copies (tma.h; sm.cpp) ----
  // The hook the functional cp.async.bulk{.tensor} handlers call; the unit (created at the
  // first copy); mbarrier.try_wait on an incomplete phase holds the warp (a `barrier` stall).
  class BulkHook : public func::BulkCopyHook {
   public:
    Sm* sm = nullptr;
    bool bulk_copy(const func::Warp& w, unsigned lane, bool to_shared, bool tensor,
                   const std::vector<std::pair<uint64_t, uint32_t>>& runs, uint64_t mbar,
                   uint32_t tx_bytes) override;
    bool cp_async_arrive(const func::Warp& w, unsigned lane, uint64_t mbar) override;
  };
  BulkHook bulk_hook_;
  std::unique_ptr<TmaUnit> tma_;
  const func::GlobalMemory* gmem_ = nullptr;
  bool mbar_blocks(WarpSlot& w, const func::DInst& d, uint64_t now);
  // Per-instruction statistics (pc_stats.h): the slot a scheduler last charged (repeated for
  // cycles skipped while sleeping).
  struct PcSlot {
    PcCounters* c = nullptr;
    Stall r = Stall::idle;
    bool mem = false;
  };
  bool waits_on_memory(const WarpSlot& w, const func::DInst& d) const;
  void charge_pc(size_t sched, const WarpSlot* w, Stall r);
  void charge_pc_slots(const PcSlot& ps, uint64_t k);
  uint64_t next_event(uint64_t now) const;
  void account_skipped(uint64_t cycles);
  /// Tracing only: what keeps warp `w` from issuing now (no side effects; Stall::issued when
  /// nothing does, i.e. it was not selected), and the per-cycle warp states for the trace.
  Stall peek_stall(const WarpSlot& w, uint64_t now) const;
  void trace_warps(uint64_t now);

  uint32_t id_;
  SmParams p_;
  SmMemPort* port_;
  uint32_t passes_ = 1;

  std::vector<WarpSlot> warps_;
  std::vector<CtaSlot> ctas_;
  std::vector<std::unique_ptr<WarpScheduler>> scheds_;
  std::vector<Unit> units_;
  uint32_t units_of_kind_[size_t(UnitKind::count_)] = {};
  std::vector<InFlight> collectors_;            // operand-collector units (busy = w != nullptr)
  std::vector<func::WarpInstRecord> mem_recs_;  // access records of memory ops in collectors
  std::vector<uint8_t> bank_scratch_;
  std::vector<uint32_t> order_scratch_;
  uint64_t cycle_now_ = 0;
  uint32_t collectors_busy_ = 0;
  uint32_t waiting_dispatch_[kMaxParts][size_t(UnitKind::count_)] = {};
  uint32_t parts_ = 1, coll_per_part_ = 0;
  uint32_t coll_busy_part_[kMaxParts] = {};
  std::vector<uint8_t> coll_part_;  // sub-core of each collector (index mod parts_)
  // ---- unified L1/shared (sm.l1_shared_unified) ----
  uint32_t shared_cap_ = 0;  // shared bytes of the current carve-out (shared_bytes if not unified)
  uint32_t l1_way_bytes_ = 0;  // bytes one L1D way holds (unified only)
  stats::Counter* carveout_switches_ = nullptr;
  std::unique_ptr<LdstUnit> ldst_;
  std::unique_ptr<Cache> l1i_;
  std::unique_ptr<ext::RegFileCache> rfc_;          // rfc.enable (src/ext/rfc)
  std::unique_ptr<PowerCounters> power_;            // power.enable (src/power), else null
  std::unique_ptr<ext::ValueClassifier> classify_;  // classify.enable (src/ext/classify)
  std::unique_ptr<ext::ItsStats> its_stats_;        // sim.its (src/ext/its)
  std::unique_ptr<ext::SimtStats> simt_stats_;      // sim.divergence_stats
  std::unique_ptr<ext::LpcStats> lpc_stats_;        // sim.lpc (src/ext/lpc)
  // ---- D2MA (d2ma.enable, src/ext/d2ma): owned by policies_, null when off ----
  ext::d2ma::Engine* d2ma_ = nullptr;
  bool d2ma_idle() const;
  void set_d2ma_trace(TraceSink* t);
  // ---- end D2MA ----

  // ---- thread block compaction (sim.divergence=tbc, src/ext/tbc; sm/tbc_issue.cpp) ----
  bool tbc_on_ = false;
  std::unique_ptr<ext::tbc::TbcStats> tbc_stats_;
  Stall try_issue_tbc(WarpSlot& w, uint64_t now, bool* issued);
  void tbc_to_ipdom(CtaSlot& c, uint64_t ready_at);
  // dynamic warp formation (sim.divergence=dwf, src/ext/dwf; sm/dwf_issue.cpp)
  bool dwf_on_ = false;
  std::unique_ptr<ext::dwf::DwfStats> dwf_stats_;
  std::vector<uint32_t> dwf_order_;
  ext::dwf::Policy dwf_policy_{};  // sim.dwf_policy
  Stall try_issue_dwf(WarpSlot& w, uint64_t now, bool* issued);
  void tbc_launch(CtaSlot& c);
  void tbc_release_group(uint32_t g, uint64_t cycle);
  // Instruction fetch of formed warps through their host slots (tbc_issue.cpp).
  void formed_redirect(CtaSlot& c, uint32_t host, uint32_t pc);
  template <class W>
  void formed_fetch(CtaSlot& c, std::vector<W>& ws);
  template <class W>
  bool formed_claim(CtaSlot& c, const std::vector<W>& ws, const W& x);
  template <class W>
  Stall formed_fetched(CtaSlot& c, const std::vector<W>& ws, const W& x, uint64_t now);
  void formed_issued(CtaSlot& c, uint32_t host, uint32_t pc);
  std::vector<uint8_t> tbc_used_;
  Stall formed_ready(const WarpSlot& w, const CtaSlot& c,
                     const std::vector<ext::tbc::Piece>& pieces, const func::DInst& d) const;
  uint32_t formed_exec(WarpSlot& w, CtaSlot& c, const std::vector<ext::tbc::Piece>& pieces,
                       uint32_t pc, uint64_t now, LaneMask* taken, LaneMask* nt, LaneMask* gone);
  void schedule_wb(const Writeback& wb, uint64_t cycle);
  std::vector<func::SimtEntry> tbc_stack_;
  func::WarpInstRecord tbc_rec_;
  uint32_t tbc_next_group_ = 0;
  std::vector<std::vector<Writeback>> tbc_groups_;  // followers by group id (slot reused)
  std::vector<uint32_t> tbc_free_groups_;
  // ---- end thread block compaction ----

  // GREENER (greener.mode != none, src/ext/greener), else null.
  std::unique_ptr<ext::greener::SmGreener> greener_;

  bool demote_long_only_ = false;  // sm.two_level_demote=long_latency

  static constexpr uint32_t kWheel = 4096;
  std::vector<std::vector<Writeback>> wheel_;
  uint32_t wheel_pending_ = 0;
  std::vector<uint8_t> bank_busy_;  // banks written back this cycle

  uint32_t used_threads_ = 0, used_warps_ = 0, used_regs_ = 0, used_shared_ = 0, resident_ctas_ = 0;
  uint32_t finished_ctas_ = 0;
  uint64_t age_ = 0, issue_seq_ = 0;
  uint32_t fetch_rr_ = 0;
  uint64_t last_progress_ = 0;
  // Idle-cycle skipping: the last ticked cycle, whether the SM sleeps waiting (skipped cycles
  // are accounted) or idle (no CTA: not accounted), each scheduler's stall reason then, and
  // the pending writeback cycles.
  uint64_t last_tick_ = 0;
  bool waiting_sleep_ = false;
  std::vector<Stall> last_reasons_;
  bool pc_stats_ = false;        // a kernel with per-instruction statistics has run here
  std::vector<PcSlot> last_pc_;  // per scheduler
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> wb_times_;
  bool active_this_cycle_ = false;
  func::WarpInstRecord rec_;
  TraceSink* trace_ = nullptr;
  std::vector<std::pair<uint64_t, uint32_t>>* issue_log_ = nullptr;
  // Research mechanisms (sm_policy.h, src/ext/): empty when all are off.
  std::vector<std::unique_ptr<SmPolicy>> policies_;
  bool policies_allow(const WarpSlot& w, const func::DInst& d) const {
    for (const auto& p : policies_)
      if (!p->may_issue(w, d)) return false;
    return true;
  }

  stats::Group g_;
  stats::Counter& cycles_;
  stats::Counter& active_cycles_;
  stats::Counter& warp_insts_;
  stats::Counter& thread_insts_;
  stats::Counter& issue_slots_;
  stats::Vector& stalls_;
  stats::Counter& resident_warp_cycles_;
  stats::Counter& ctas_launched_;
  stats::Counter& bank_conflicts_;
  // sm.register_numbering = architectural (group `regalloc`, only then).
  bool arch_regs_ = false;
  // sharing.mode != none (src/ext/sharing): per-SM sharing state, and the shared-memory
  // instruction each warp holds while it waits for the scratchpad lock.
  std::unique_ptr<sharing::SmSharing> sharing_;
  std::vector<std::pair<InFlight, func::WarpInstRecord>> held_;
  bool nonowner_issued_ = false;
  void place_in_collector(const InFlight& f, const func::WarpInstRecord& rec);
  stats::Counter* spill_reloads_ = nullptr;
  stats::Counter* spill_stores_ = nullptr;
  stats::Counter* spill_words_ = nullptr;
  stats::Counter& divergent_branches_;
  stats::Vector& inst_classes_;
  stats::Counter& fetches_;
  stats::Counter& icache_misses_;
};

}  // namespace simtlab::timing
