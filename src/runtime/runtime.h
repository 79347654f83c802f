// The state behind the replacement libcudart.so.13.
//
// The CUDA runtime ABI is process-global by nature (a program calls free functions), so this
// is the one place in simtlab with a process-wide object: Runtime::get() creates it on first
// use (the first __cudaRegisterFatBinary, which runs from the program's static constructors).
// Everything below it (Device, engines, stats) is ordinary objects.
//
// Configuration comes from the environment that `simtlab run` sets:
//   SIMTLAB_GPU          preset name or YAML file (default config::kDefaultGpu, turing-t4)
//   SIMTLAB_SET          newline-separated key=value overrides
//   SIMTLAB_PRESET_DIRS  colon-separated preset directories
//   SIMTLAB_STATS        path of the stats JSON written at exit
//   SIMTLAB_QUIET        1 = no summary on stderr
// and the CLI validates all of it before the program starts, so errors here are rare.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <cuda_runtime_api.h>

#include "func/device.h"
#include "ptx/fatbin.h"
#include "runtime/session.h"
#include "timing/gpu_params.h"

namespace simtlab::runtime {

struct FatbinRec;

struct KernelRec {
  FatbinRec* fatbin = nullptr;
  std::string name;  // mangled device name
  const void* host_stub = nullptr;
  const func::Program* prog = nullptr;  // decoded on first launch
  // cudaFuncSetAttribute: cudaFuncAttributeMaxDynamicSharedMemorySize (-1: not set, the
  // default max_shared_per_block - static) and cudaFuncAttributePreferredSharedMemoryCarveout
  // (percent, -1: no preference).
  int max_dynamic_shared = -1;
  int carveout_pref = -1;
  // cudaFuncAttributeNonPortableClusterSizeAllowed: clusters up to
  // gpu.max_cluster_size_nonportable blocks instead of gpu.max_cluster_size.
  bool nonportable_cluster = false;
};

struct VarRec {
  FatbinRec* fatbin = nullptr;
  std::string name;
  size_t size = 0;
  bool constant = false;
  bool managed = false;
  void** managed_ptr = nullptr;  // __cudaRegisterManagedVar: where the host reads the address
};

struct FatbinRec {
  const void* wrapper = nullptr;
  std::vector<ptx::fatbin::Entry> entries;
  std::vector<func::PtxSource> sources;             // chosen PTX, one per translation unit
  std::vector<ptx::fatbin::KernelInfo> cubin_info;  // from cubins for a matching arch
  std::string load_error;                // why the module cannot be loaded (e.g. SASS only)
  func::LoadedModule* module = nullptr;  // loaded on first use
  std::vector<KernelRec*> kernels;
  std::vector<VarRec*> vars;
  bool loaded = false;
};

struct Stream {
  unsigned flags = 0;
  int priority = 0;
  double time_ms = 0;  // simulated completion time of the last operation in the stream
};

struct Capture;
struct GraphNode;

struct Event {
  unsigned flags = 0;
  bool recorded = false;
  double time_ms = 0;
  int64_t pending_op = -1;  // index of its queued record op, -1 when none
  // Recorded in a capturing stream: the capture and the node it follows (nullptr = graph root).
  std::shared_ptr<Capture> capture;
  GraphNode* capture_node = nullptr;
};

/// A stream operation replayed by a graph: runs on the stream the graph is launched into.
using GraphOp = std::function<cudaError_t(cudaStream_t)>;

/// cudaGraph_t: nodes with dependency edges. Built by stream capture or the explicit graph
/// API; kernel nodes hold their parameters packed when the node was made, as CUDA does.
struct GraphNode {
  std::string kind;  // "kernel", "memcpy", "memset", "host", "empty", "graph"
  GraphOp run;       // empty for "empty" nodes
  std::vector<GraphNode*> deps;
};
struct Graph {
  std::vector<std::unique_ptr<GraphNode>> nodes;
  GraphNode* add(std::string kind, GraphOp run, std::vector<GraphNode*> deps);
};
/// cudaGraphExec_t: the nodes in one topological order (stable: creation order among ready
/// nodes). Launching runs them one after another on the launch stream, a valid schedule of
/// the graph.
struct GraphExec {
  std::vector<GraphOp> ops;
};

/// Stream capture (cudaStreamBeginCapture .. cudaStreamEndCapture). Streams that wait on an
/// event recorded during the capture join it; each stream's next node depends on its tail
/// plus the events it waited for.
struct Capture {
  std::unique_ptr<Graph> graph = std::make_unique<Graph>();
  cudaStream_t origin = nullptr;
  int mode = 0;  // cudaStreamCaptureMode
  unsigned long long id = 0;
  bool invalidated = false;
  std::map<cudaStream_t, std::vector<GraphNode*>> next_deps;  // per joined stream
};

/// Stream work deferred until a synchronisation point (timing engines that overlap streams).
struct PendingOp {
  KernelRecord record;     // kernel ops: the launch's description, result filled on drain
  Event* event = nullptr;  // record ops
};

struct CallConfig {
  dim3 grid, block;
  size_t shared = 0;
  cudaStream_t stream = nullptr;
};

class Runtime {
 public:
  static Runtime& get();
  ~Runtime();

  // ---- errors ----
  /// Record `e` as the last error and return it (cudaSuccess leaves the last error alone).
  cudaError_t ret(cudaError_t e);
  cudaError_t last_error_get(bool reset);
  /// Sticky errors (a faulted kernel) poison every later call, as in CUDA.
  cudaError_t sticky() const { return sticky_; }
  void set_sticky(cudaError_t e) { sticky_ = e; }
  /// Print a readable message for a failing API call (once per call site kind).
  void warn(const std::string& msg);
  void unsupported(const char* api);

  // ---- registration ----
  void** register_fatbin(void* wrapper);
  void unregister_fatbin(void** handle);
  void register_function(void** handle, const void* host_fun, const char* name);
  void register_var(void** handle, void* host_var, const char* name, size_t size, bool constant,
                    bool managed);
  KernelRec* kernel_by_stub(const void* stub);
  KernelRec* kernel_by_handle(const void* handle);
  /// Load the module of a fatbin if needed; returns an error code and message on failure.
  cudaError_t ensure_loaded(FatbinRec& fb, std::string* why);
  cudaError_t ensure_kernel(KernelRec& k, std::string* why);
  VarRec* var_by_symbol(const void* symbol);
  /// Device address of a registered variable (loading its module).
  cudaError_t var_address(const void* symbol, Addr* out, size_t* size);

  // ---- launch ----
  std::vector<CallConfig>& call_stack();
  /// `cooperative`: cudaLaunchCooperativeKernel (every CTA resident at once, grid.sync()).
  /// `cluster`: cudaLaunchAttributeClusterDimension ({0,0,0}: none given; the kernel's
  /// __cluster_dims__ apply).
  cudaError_t launch(KernelRec& k, dim3 grid, dim3 block, void** args, size_t shared,
                     cudaStream_t s, bool cooperative = false, Dim3 cluster = {0, 0, 0});
  /// Check a launch's thread-block cluster configuration (cudaErrorInvalidClusterSize and a
  /// warning naming what is wrong, or cudaSuccess).
  cudaError_t check_cluster(KernelRec& k, dim3 grid, Dim3 cluster);
  /// Checks a launch and packs its arguments (the parameter buffer of `k`'s .param list).
  cudaError_t prepare_launch(KernelRec& k, dim3 grid, dim3 block, void** args, size_t shared,
                             std::vector<uint8_t>* pbuf);
  /// Runs (or queues) a checked launch whose arguments are packed.
  cudaError_t submit(KernelRec& k, dim3 grid, dim3 block, size_t shared, std::vector<uint8_t> pbuf,
                     cudaStream_t s, bool cooperative = false, Dim3 cluster = {0, 0, 0});

  // ---- stream capture and graphs ----
  /// The capture stream `s` takes part in, or nullptr.
  Capture* capture_of(cudaStream_t s);
  /// When `s` is capturing, appends `op` as a node of the capture's graph and returns true.
  bool capture_op(cudaStream_t s, const char* kind, GraphOp op);
  cudaError_t begin_capture(cudaStream_t s, int mode);
  cudaError_t end_capture(cudaStream_t s, Graph** out);
  /// Event record/wait inside a capture (fork/join of streams).
  void capture_record(cudaStream_t s, Event* e);
  void capture_wait(cudaStream_t s, Event* e);

  /// Whether work on stream `s` is queued (to overlap with other streams) instead of run now.
  bool deferred(cudaStream_t s);
  /// Queue a copy/memset on a deferred stream; `action` performs it when its turn comes.
  void enqueue_action(cudaStream_t s, std::function<void()> action);
  void enqueue_record(cudaStream_t s, Event* e);
  void enqueue_wait(cudaStream_t s, Event* e);
  /// Run every queued operation (a synchronisation point). Returns the sticky error, if any.
  cudaError_t drain();

  // ---- memory ----
  func::Device& dev() { return *dev_; }
  bool is_device_ptr(const void* p) const;
  void* host_alloc(size_t n, unsigned flags);
  bool host_free(void* p);
  bool is_pinned(const void* p) const;
  void* managed_alloc(size_t n);

  // ---- streams/events ----
  Stream* stream(cudaStream_t s);
  Stream* new_stream(unsigned flags, int priority);
  bool destroy_stream(cudaStream_t s);
  Event* event(cudaEvent_t e);
  Event* new_event(unsigned flags);
  bool destroy_event(cudaEvent_t e);
  /// Simulated time (ms) at which the last operation of stream `s` completed.
  double stream_time(cudaStream_t s);
  double device_time() const { return device_time_ms_; }
  void synchronize_all();
  /// cudaDeviceReset: finish queued work, then destroy every stream, event, capture, texture
  /// object, CUDA array and allocation (cudaMalloc/Pitch/3D, pinned, managed, device heap)
  /// except stream-ordered (cudaMallocAsync) ones, unload the modules (their variables get
  /// their initial values again on next use) and clear the last and sticky errors.
  void reset();
  /// Stream-ordered allocations (cudaMallocAsync), which cudaDeviceReset keeps.
  void note_pool_alloc(Addr a) { pool_allocs_.insert(a); }
  void forget_pool_alloc(Addr a) { pool_allocs_.erase(a); }

  // ---- device description ----
  const timing::GpuParams& params() const { return params_; }
  void fill_properties(cudaDeviceProp* p) const;
  int attribute(cudaDeviceAttr a, bool* ok) const;
  int occupancy_blocks(const func::Program& k, int block_threads, size_t dyn_shared) const;
  /// Registers per thread a kernel gets on the simulated GPU.
  struct RegisterAlloc {
    uint32_t regs = 0;                    // what occupancy and the launch check use
    uint32_t wanted = 0;                  // from the cubin or the PTX estimate
    std::string source = "ptx-estimate";  // or "cubin"
    std::string capped_by;                // why regs < wanted ("" when equal)
  };
  /// `wanted` comes from the cubin (.nv.info) when the fatbin has one for the kernel, else from
  /// the PTX liveness estimate. Like ptxas compiling for the simulated GPU, `regs` is then
  /// capped at sm.max_regs_per_thread, the kernel's .maxnreg, and the most registers that let
  /// a CTA of .maxntid/.reqntid threads (.minnctapersm of them) fit the SM's register file.
  RegisterAlloc register_alloc(const KernelRec& k) const;
  uint32_t registers_per_thread(const KernelRec& k) const { return register_alloc(k).regs; }

  size_t limit_stack() const { return dev_->options().stack_bytes; }
  std::mutex& mutex() { return mu_; }
  Session& session() { return *session_; }

 private:
  Runtime();
  void load_config();
  void register_timing_engine();
  void install_signal_handlers();
  /// Report a failed launch (stderr), set the sticky error, return the kernel's status and the
  /// report's first line; an Interrupted sets *interrupted to the signal.
  KernelStatus kernel_failed(std::exception_ptr e, std::string* first_line, int* interrupted);
  /// Write the results of an interrupted run and end the process by signal `sig`.
  [[noreturn]] void die_interrupted(int sig);

  std::mutex mu_;
  std::recursive_timed_mutex run_mu_;
  /// Marks the span in which an engine polls for interrupts (base/interrupt.h).
  struct Polling {
    Polling();
    ~Polling();
    Polling(const Polling&) = delete;
    Polling& operator=(const Polling&) = delete;
  };  // held while simulating and recording results (signals wait)
  timing::GpuParams params_;
  std::unique_ptr<func::Device> dev_;
  std::unique_ptr<Session> session_;
  std::vector<std::unique_ptr<FatbinRec>> fatbins_;
  std::unordered_map<const void*, FatbinRec*> by_wrapper_;
  std::vector<std::unique_ptr<KernelRec>> kernels_;
  std::unordered_map<const void*, KernelRec*> by_stub_;
  std::vector<std::unique_ptr<VarRec>> vars_;
  std::unordered_map<const void*, VarRec*> by_symbol_;
  std::map<const void*, std::pair<size_t, unsigned>> pinned_;  // host pinned allocations
  std::vector<void*> managed_;
  std::set<Addr> pool_allocs_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<std::unique_ptr<Event>> events_;
  Stream default_stream_;
  double device_time_ms_ = 0;
  std::vector<func::StreamOp> pending_;
  std::vector<PendingOp> pending_meta_;
  uint32_t stream_id(cudaStream_t s);
  double cycles_to_ms(uint64_t c) const { return double(c) / (params_.gpu.core_mhz * 1e3); }
  cudaError_t last_ = cudaSuccess;
  cudaError_t sticky_ = cudaSuccess;
  std::set<std::string> warned_;
  std::set<std::string> capped_noted_;  // kernels whose register cap was reported
  std::map<cudaStream_t, std::shared_ptr<Capture>> captures_;  // capturing streams
  // Grid-sync workspaces of cooperative launches: in use by queued/running launches, free.
  std::vector<Addr> coop_busy_, coop_free_;
  Addr coop_workspace();
  void release_coop_workspaces();  // every launch that used one has finished
  unsigned long long next_capture_id_ = 1;
};

/// Forget every CUDA array (api_texture.cpp; their storage is freed with device memory).
void forget_arrays();

/// Convert simtlab exceptions thrown inside an API call into CUDA errors.
template <typename F>
cudaError_t guarded(const char* api, F&& f);

}  // namespace simtlab::runtime
