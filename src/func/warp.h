// Execution state of warps and CTAs in the functional model, and the context handlers get.
//
// Registers are kept per warp in structure-of-arrays form: value slot s of lane l is
// regs[(frame.reg_base + s) * 32 + l] (64 bits; narrower values are zero-extended), and a
// predicate slot is one 32-bit lane mask. Each call frame gets its own slots on top of the
// caller's. Per-thread local memory (stack frames, local arrays, call parameters) is one
// block per lane.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/types.h"
#include "func/program.h"
#include "func/record.h"

namespace simtlab::func {

class GlobalMemory;
struct RegAliases;
class DeviceHeap;
class TextureTable;
struct LaunchState;

struct SimtEntry {
  uint32_t pc = 0;
  uint32_t rpc = 0;  // reconvergence PC (pop when pc reaches it)
  LaneMask mask = 0;
  bool call_boundary = false;  // popping it returns from a call frame
  // Independent thread scheduling (LaunchState::its): thread groups split off to other
  // ItsSplits that still have to reach this entry's pc (its convergence barrier). Always 0
  // under the stack.
  uint16_t pending = 0;
  // Likely convergence points (sim.lpc; src/ext/lpc): a path entry whose pc reaches `lpc` pops
  // and merges its threads into the LPC entry at stack index `lpos`. ~0u: none (always when off).
  uint16_t lpos = 0;
  uint32_t lpc = ~0u;
};

struct Frame {
  uint32_t func = 0;            // Program::funcs index
  uint32_t reg_base = 0;        // first value slot
  uint32_t pred_base = 0;       // first predicate slot
  uint32_t local_base = 0;      // byte offset of the frame in each thread's local memory
  const DInst* call = nullptr;  // the call that created the frame (for return values)
};

struct Cta;

/// Per-warp state of the livelock detector (func/livelock.h): samples of the warp's whole
/// architectural state at backward branches, compared with Brent's cycle-finding scheme.
struct LoopWatch {
  // Warp::insts at which the next sample may be taken (the first after 4096 instructions,
  // kLoopProbeInterval in func/livelock.h: short warps never pay for a sample).
  uint64_t next_probe = 4096;
  uint64_t saved_hash = 0, saved_epoch = 0, saved_insts = 0;
  uint32_t saved_pc = 0;
  bool has_saved = false;
  uint32_t power = 1, lam = 0;
  // Last time a sample matched the saved one (the state repeated with no memory write).
  uint64_t confirmed_at = 0, confirmed_epoch = 0, period = 0;
  uint32_t loop_pc = 0, branch_pc = 0;  // loop head (the state's PC) and the backward branch
};

/// The warp's last mbarrier test_wait / try_wait that returned false for one of its lanes
/// (exec_async.cpp): a livelock report names the mbarrier a looping warp polls, the phase it
/// waits for and the instruction (func/livelock.h). Not part of the hashed loop state.
struct MbarPoll {
  uint64_t insts = 0;  // Warp::insts before that instruction
  uint32_t pc = 0;     // its PC
  uint32_t addr = 0;   // shared-memory offset of the mbarrier (the CTA's window)
  uint8_t parity = 0;  // parity of the phase it waits to complete
  bool valid = false;
};

/// Independent thread scheduling (Volta; GPGPU book 3.1.2, Diamos et al. 2015 convergence
/// barriers): a warp's diverged thread groups ("warp splits"), each with its own SIMT stack and
/// call frames, scheduled one at a time (executor.cpp, "independent thread scheduling").
struct ItsSplit {
  std::vector<SimtEntry> stack;  // empty while the split is the warp's current one
  std::vector<Frame> frames;
  uint32_t id = 0;
  uint32_t parent = ~0u;    // split whose stack entry `join_depth` waits for this one
  uint32_t join_depth = 0;  // (~0u: a root split, it joins nobody)
  uint32_t wsync_pc = 0;    // waiting at bar.warp.sync for the lanes of wsync_mask
  LaneMask wsync_mask = 0;
  bool wsync = false;
  bool bwait = false;  // arrived at a CTA barrier, waits for the warp's other thread groups
};
struct ItsState {
  std::vector<ItsSplit> splits;  // splits[cur] is the one in Warp::stack / Warp::frames
  uint32_t cur = 0;
  uint32_t next_id = 1;
  uint32_t backedges = 0;         // back edges of the current split since the last yield
  uint32_t yield_backedges = 64;  // LaunchState::its_yield_backedges
  LaneMask bar_lanes = 0;         // lanes that arrived at a CTA barrier (the warp arrives
                                  // when all its live lanes have)
  uint32_t bar_pc = 0, bar_id = 0, bar_count = 0;  // that barrier
  // statistics
  uint64_t forks = 0, joins = 0, yields = 0, released_lanes = 0, switches = 0, wsyncs = 0;
  uint32_t max_splits = 1;
};

/// Likely convergence points (sim.lpc; src/ext/lpc/README.md): statistics of one warp.
struct LpcState {
  uint64_t entries = 0;         // LPC entries pushed at divergent branches
  uint64_t merges = 0;          // path entries popped into their LPC entry
  uint64_t merged_threads = 0;  // threads those carried
  uint64_t joined = 0;          // merges into an LPC entry that already held threads
};

struct Warp {
  uint32_t index = 0;   // warp index within the CTA
  LaneMask valid = 0;   // lanes that hold a thread
  LaneMask exited = 0;  // lanes whose thread has exited
  std::vector<SimtEntry> stack;
  std::vector<Frame> frames;
  std::vector<uint64_t> regs;
  std::vector<uint32_t> preds;
  uint64_t* R = nullptr;     // current frame's first value slot (lane 0)
  uint32_t* P = nullptr;     // current frame's first predicate slot
  LaneMask carry = 0;        // condition-code carry flag per lane (add.cc/addc ...)
  uint8_t* local = nullptr;  // lane l's local memory starts at local + l * local_stride
  uint32_t local_stride = 0;
  Cta* cta = nullptr;
  uint32_t tid[3][kMaxWarpSize] = {};  // %tid.{x,y,z} per lane
  bool at_barrier = false;             // waiting at a CTA barrier
  uint32_t barrier_id = 0;             // (kClusterBarrierId: barrier.cluster.wait)
  // barrier.cluster (sm_90): lanes that arrived in the cluster barrier's current phase, and
  // the phase of the warp's last arrival (its wait completes once the phase moved past it).
  LaneMask cluster_arrived = 0;
  uint32_t cluster_phase = 0;
  uint64_t insts = 0;       // warp instructions executed
  uint32_t hw_warp_id = 0;  // %warpid (slot on the SM)
  LoopWatch loop;
  MbarPoll mbar_poll;
  // relssp (thesis ch. 3, src/ext/sharing): lanes whose release bit R is set (cleared when the
  // block's release fires) and lanes that have executed relssp at least once (the checker).
  LaneMask relssp_r = 0, relssp_done = 0;
  std::unique_ptr<ItsState> its;  // independent thread scheduling, else null (the SIMT stack)
  std::unique_ptr<LpcState> lpc;  // likely convergence points (sim.lpc), else null

  bool done() const { return stack.empty() || (valid & ~exited) == 0; }
  LaneMask active() const { return stack.empty() ? 0 : stack.back().mask & ~exited; }
  uint32_t pc() const { return stack.empty() ? 0 : stack.back().pc; }
  const Frame& frame() const { return frames.back(); }
  void rebase() {
    R = regs.data() + size_t(frames.back().reg_base) * kMaxWarpSize;
    P = preds.data() + frames.back().pred_base;
  }
};

/// Per-barrier bookkeeping of a CTA (PTX has 16 named barriers per CTA).
struct BarrierState {
  uint32_t arrived_warps = 0;
  uint32_t arrived_threads = 0;
  uint32_t expected_threads = 0;  // 0 = all threads of the CTA
  // bar.red accumulation
  uint32_t red_popc = 0;
  bool red_and = true, red_or = false;
  struct Waiter {
    Warp* w;
    uint32_t dst_slot;
    bool dst_pred;
    ptx::BoolOp op;
    LaneMask lanes = 0;
  };
  std::vector<Waiter> red_waiters;
  std::vector<Warp*> waiting;
};

struct Cta;

/// barrier_id of a warp waiting at barrier.cluster.wait (CTA barriers are 0..15).
inline constexpr uint32_t kClusterBarrierId = 16;

/// A thread-block cluster (sm_90): its CTAs, co-resident, by %cluster_ctarank, and the cluster
/// barrier (barrier.cluster.arrive/wait). Engines create one per cluster when the launch has
/// clusters (LaunchState::has_clusters); a CTA without one is a cluster of itself.
struct ClusterState {
  std::vector<Cta*> ctas;      // by rank; null once that CTA has retired (timing engines)
  uint32_t arrived = 0;        // live threads that arrived in the current phase
  uint32_t phase = 0;          // completed phases
  std::vector<Warp*> waiting;  // warps blocked in barrier.cluster.wait
  // Called when a phase completes (timing engines wake the SMs hosting the cluster); empty
  // in functional mode.
  std::function<void()> on_release;
};

struct Cta {
  Dim3 ctaid;
  uint32_t linear_id = 0;
  std::vector<uint8_t> shared;  // static + dynamic shared memory
  std::vector<std::unique_ptr<Warp>> warps;
  std::vector<uint8_t> local;  // all threads' local memory
  BarrierState barriers[16];
  uint32_t live_threads = 0;
  uint32_t threads = 0;
  uint32_t sm = 0;  // %smid
  // relssp: live threads whose release bit is set, and how often the release fired (the block's
  // shared scratchpad region is released when every live thread has executed relssp).
  uint32_t relssp_count = 0, relssp_fires = 0;
  // Thread-block cluster: the cluster this CTA belongs to and its rank there (null: a cluster
  // of one, created on first use in `solo`).
  ClusterState* cluster = nullptr;
  uint32_t cluster_rank = 0;
  std::unique_ptr<ClusterState> solo;
  bool done() const { return live_threads == 0; }
};

/// Output of device-side printf, in program order.
using PrintSink = std::function<void(const std::string&)>;

class D2maHook;

/// The timing model's view of bulk / tensor copies (cp.async.bulk{.tensor}, exec_async.cpp).
/// The functional copy happens at issue either way; with a hook installed the timing model
/// moves the bytes through the memory system and, for global->shared copies, performs the
/// mbarrier's complete_tx when the last byte arrives (mbarrier_complete_tx, executor.h).
class BulkCopyHook {
 public:
  virtual ~BulkCopyHook() = default;
  /// One copy by lane `lane` of `w`: the global byte runs {address, bytes} it reads (to_shared)
  /// or writes, and for global->shared copies the shared offset of the mbarrier due
  /// complete_tx(tx_bytes). Returns true when the hook performs that complete_tx itself.
  virtual bool bulk_copy(const Warp& w, unsigned lane, bool to_shared, bool tensor,
                         const std::vector<std::pair<uint64_t, uint32_t>>& runs, uint64_t mbar,
                         uint32_t tx_bytes) = 0;
  /// cp.async.mbarrier.arrive by lane `lane` of `w` on the mbarrier at shared offset `mbar`:
  /// true when the timing model performs the arrive-on itself once the warp's cp.async copies
  /// in flight complete (mbarrier_arrive_deferred); false = arrive now (none in flight).
  virtual bool cp_async_arrive(const Warp& w, unsigned lane, uint64_t mbar) = 0;
};

/// Everything a handler may touch besides the warp.
struct ExecContext {
  GlobalMemory* gmem = nullptr;
  DeviceHeap* heap = nullptr;  // device malloc/free
  const Program* prog = nullptr;
  const LaunchState* launch = nullptr;
  Cta* cta = nullptr;
  WarpInstRecord* rec = nullptr;  // when non-null, memory handlers record per-lane addresses
  const PrintSink* print = nullptr;
  const TextureTable* textures = nullptr;
  uint64_t cycle = 0;          // current simulated cycle (%clock); the timing model updates it
  uint64_t time_ns = 0;        // %globaltimer
  bool livelock_check = true;  // engines stop kernels the livelock detector flags
  // Register-allocation checker (func/regcheck.h): alias copies after every instruction;
  // null = off.
  const RegAliases* reg_aliases = nullptr;
  // D2MA engine of the SM issuing (timing model, d2ma.enable); null = the intrinsics run their
  // fallback bodies.
  D2maHook* d2ma = nullptr;
  // Bulk / tensor copies (timing model): null = complete at issue (functional mode).
  BulkCopyHook* bulk = nullptr;
};

/// Parameters of one kernel launch, shared by all CTAs.
struct LaunchState {
  const Program* prog = nullptr;
  Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  int carveout_pref = -1;       // LaunchOptions::carveout_pref
  std::vector<uint8_t> params;  // kernel parameter buffer (Program::layout)
  uint32_t local_bytes_per_thread = 0;
  uint32_t shared_bytes = 0;    // static + dynamic
  uint32_t dynamic_offset = 0;  // where dynamic shared memory starts
  uint32_t num_sms = 1;
  uint32_t warp_size = 32;
  uint64_t envreg[32] = {};
  uint64_t launch_id = 0;
  uint32_t regs_per_thread = 0;  // for occupancy (cubin value or PTX estimate)
  // Cooperative launch (cudaLaunchCooperativeKernel): every CTA is resident at once, and
  // %envreg1:%envreg2 hold the address of the zeroed grid-sync workspace that
  // cooperative_groups::grid_group::sync() counts arrivals in.
  bool cooperative = false;
  // Independent thread scheduling instead of the SIMT stack (sim.its; executor.cpp), and the
  // back edges a thread group runs before it yields (sim.its_yield_backedges).
  bool its = false;
  uint32_t its_yield_backedges = 64;
  // Thread-block clusters (sm_90): CTAs per cluster ({1,1,1}: none), whether the launch named
  // a cluster (%is_explicit_cluster), and whether engines must form clusters.
  Dim3 cluster{1, 1, 1};
  bool explicit_cluster = false;
  bool has_clusters() const { return cluster.x * cluster.y * cluster.z > 1; }
  uint32_t cluster_size() const { return cluster.x * cluster.y * cluster.z; }
  bool lpc = false;  // likely convergence points on the SIMT stack (sim.lpc; src/ext/lpc)
};

/// Extra launch properties beyond the configuration.
struct LaunchOptions {
  bool cooperative = false;
  Addr grid_workspace = 0;  // device address of >= 16 zeroed bytes (cooperative launches)
  // cudaFuncAttributePreferredSharedMemoryCarveout of the kernel: percent of the largest
  // shared capacity, -1 = no preference. Only the timing model's unified L1/shared uses it.
  int carveout_pref = -1;
  // Thread-block cluster dimensions from the launch (cudaLaunchAttributeClusterDimension);
  // {0,0,0}: none given, the kernel's .reqnctapercluster (if any) applies.
  Dim3 cluster{0, 0, 0};
};

}  // namespace simtlab::func
