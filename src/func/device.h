// The clean C++ device API the CUDA runtime shim (src/runtime) and the tests use.
//
//   Device dev;                                   // memory, modules, textures, device heap
//   Addr p = dev.malloc(n);  dev.write(p, host, n);
//   LoadedModule& m = dev.load_module({{ptx_text, "k.ptx"}});
//   const Program* k = m.kernel("_Z3addPfS_i");
//   dev.launch(*k, grid, block, dyn_shared, dev.pack_params(*k, args));
//
// launch() in functional mode runs the whole grid to completion, CTA by CTA. A timing engine
// (src/timing) can be installed with set_engine() to run the same launch cycle by cycle; the
// functional state (memory, printf, faults) is the same either way.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/types.h"
#include "func/heap.h"
#include "func/memory.h"
#include "func/module.h"
#include "func/texture.h"
#include "func/warp.h"

namespace simtlab::func {

struct DeviceOptions {
  uint64_t global_bytes = uint64_t(4) << 30;  // device memory capacity
  uint32_t num_sms = 15;                      // reported by %nsmid / %smid spread
  uint32_t warp_size = 32;
  uint32_t stack_bytes = 1024;  // per-thread call stack (CUDA's default cudaLimitStackSize)
  uint64_t max_warp_insts_per_cta = uint64_t(1) << 32;  // watchdog for endless loops
  bool livelock_check = true;   // stop kernels whose warps loop forever (func/livelock.h)
  bool regalloc_check = false;  // run on architectural registers (func/regcheck.h)
  bool its = false;             // independent thread scheduling (LaunchState::its)
  uint32_t its_yield_backedges = 64;
  bool lpc = false;  // likely convergence points (LaunchState::lpc)
  // A transformation of every loaded module after parsing (the ch. 3 relssp passes,
  // sharing.relssp / sharing.smem_layout); empty = none.
  std::function<void(ptx::Module&)> module_pass;
};

struct LaunchResult {
  uint64_t warp_insts = 0;
  uint64_t thread_insts = 0;
  uint64_t ctas = 0;
  uint64_t cycles = 0;                      // timing engines only
  uint64_t start_cycle = 0, end_cycle = 0;  // timing engines: absolute core cycles
  std::string stats_json;                   // timing engines: this launch's stats tree (JSON text)
};

class Device;

/// One operation of a CUDA stream, for engines that run several streams' work together.
struct StreamOp {
  enum class Kind : uint8_t {
    kernel,  // `launch`
    action,  // a copy/memset: `action` performs it when the op's turn comes
    record,  // an event is recorded (done_cycle = when all earlier work of the stream finished)
    wait,    // the stream waits until the op at index `waits_for` (a record) is done
  };
  Kind kind = Kind::kernel;
  uint32_t stream = 0;
  std::unique_ptr<LaunchState> launch;
  std::function<void()> action;
  int64_t waits_for = -1;
  // Results, filled by the engine.
  LaunchResult result;
  uint64_t start_cycle = 0, done_cycle = 0;
  bool done = false;
  // A kernel that was running when the batch stopped (fault, hang, interrupt): `result` holds
  // what it did up to then (partial stats), `done` stays false.
  bool failed = false;
};

/// Runs prepared launches. The functional engine is the default; timing engines implement
/// the same interface.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual LaunchResult run(Device& dev, LaunchState& launch) = 0;
  /// Run a batch of stream operations honouring per-stream order and event waits; ops of
  /// different streams may overlap. The default runs them one at a time (no overlap).
  virtual void run_streams(Device& dev, std::vector<StreamOp>& ops);
  /// Whether run_streams overlaps work of different streams (then the runtime defers
  /// stream work until a synchronisation point).
  virtual bool concurrent() const { return false; }
  /// The runtime's copy engine wrote [a, a + n) of device memory (a host-to-device or
  /// device-to-device copy, a memset). Timing engines update the state the write leaves
  /// behind (L2 contents); the functional engine has none.
  virtual void copy_engine_write(Addr a, uint64_t n) {
    (void)a;
    (void)n;
  }
  /// After run() threw: what the failed launch did up to the failure (instructions, cycles,
  /// partial stats). False when the engine has nothing to report.
  virtual bool take_failed_result(LaunchResult* out) {
    (void)out;
    return false;
  }
};

class Device {
 public:
  explicit Device(DeviceOptions opt = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // ---- memory ----
  /// 0 when out of memory.
  Addr malloc(uint64_t bytes, AllocKind kind = AllocKind::device);
  bool free(Addr base);
  /// Copies; throw UserError naming the bad range when it is not inside one allocation.
  void write(Addr dst, const void* src, uint64_t n);
  void read(void* dst, Addr src, uint64_t n);
  void copy(Addr dst, Addr src, uint64_t n);
  void fill(Addr dst, uint8_t value, uint64_t n);
  bool valid(Addr a, uint64_t n) { return n == 0 || mem_.translate(a, n) != nullptr; }
  GlobalMemory& memory() { return mem_; }
  DeviceHeap& heap() { return heap_; }
  TextureTable& textures() { return textures_; }

  // ---- modules ----
  LoadedModule& load_module(const std::vector<PtxSource>& sources);
  void unload_module(LoadedModule* m);

  /// cudaDeviceReset: unload every module, forget texture objects and the device heap, and
  /// free every allocation `keep` does not accept (see GlobalMemory::release_all).
  template <typename Keep>
  void reset(Keep keep) {
    modules_.clear();
    textures_ = TextureTable{};
    heap_.clear();
    mem_.release_all(keep);
  }

  // ---- launch ----
  /// Build the kernel parameter buffer from CUDA-style `args` (args[i] points at argument i).
  std::vector<uint8_t> pack_params(const Program& k, const void* const* args) const;
  /// `regs_per_thread` (from the cubin, or 0 = use the PTX estimate) sizes occupancy in
  /// timing engines.
  LaunchResult launch(const Program& k, Dim3 grid, Dim3 block, uint32_t dynamic_shared,
                      std::vector<uint8_t> params, uint32_t regs_per_thread = 0,
                      const LaunchOptions& opt = {});
  /// Prepare a launch without running it (for StreamOp batches); checks the configuration.
  std::unique_ptr<LaunchState> prepare(const Program& k, Dim3 grid, Dim3 block,
                                       uint32_t dynamic_shared, std::vector<uint8_t> params,
                                       uint32_t regs_per_thread = 0, const LaunchOptions& opt = {});
  /// Check a launch configuration; returns an error message or empty.
  std::string check_launch(const Program& k, Dim3 grid, Dim3 block, uint32_t dynamic_shared) const;
  /// Check thread-block cluster dimensions against the grid, the kernel's cluster directives
  /// and max_cluster_size; returns an error message or empty.
  std::string check_cluster(const Program& k, Dim3 grid, Dim3 cluster) const;

  void set_engine(std::unique_ptr<Engine> e) { engine_ = std::move(e); }
  Engine* engine() { return engine_.get(); }
  void set_print_sink(PrintSink s) { print_ = std::move(s); }
  const PrintSink& print_sink() const { return print_; }
  const DeviceOptions& options() const { return opt_; }
  DeviceOptions& options() { return opt_; }
  uint32_t max_shared_per_block = 48 * 1024;  // set from the GPU preset
  uint32_t max_threads_per_block = 1024;
  uint32_t max_cluster_size = 8;  // blocks per cluster (the runtime sets it per launch)

 private:
  DeviceOptions opt_;
  GlobalMemory mem_;
  DeviceHeap heap_;
  TextureTable textures_;
  std::vector<std::unique_ptr<LoadedModule>> modules_;
  std::unique_ptr<Engine> engine_;
  PrintSink print_;
  uint64_t launches_ = 0;
};

/// The functional engine: runs CTAs one after another to completion.
class FunctionalEngine : public Engine {
 public:
  LaunchResult run(Device& dev, LaunchState& launch) override;
  bool take_failed_result(LaunchResult* out) override;

 private:
  LaunchResult run_impl(Device& dev, LaunchState& launch, LaunchResult& r);
  LaunchResult failed_;
  bool has_failed_ = false;
};

/// Fill the launch-wide state (sizes, local memory, shared layout) for a launch.
void prepare_launch(const Device& dev, LaunchState& L);

/// Group `ctas` (the whole grid, in linear order) into the launch's clusters: one ClusterState
/// per cluster in `out`, each CTA's cluster and rank set.
void join_clusters(const LaunchState& L, std::span<Cta* const> ctas,
                   std::vector<std::unique_ptr<ClusterState>>& out);

}  // namespace simtlab::func
