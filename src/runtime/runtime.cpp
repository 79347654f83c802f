#include "runtime/runtime.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "base/bits.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "config/config.h"
#include "config/preset.h"
#include "ptx/relssp.h"
#include "runtime/engine_factory.h"
#include "runtime/loaded_memory.h"
#include "timing/gpu/gpu.h"

namespace simtlab::runtime {

namespace fs = std::filesystem;

namespace {

std::string env(const char* n) {
  const char* v = std::getenv(n);
  return v ? v : "";
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(sep, b);
    if (e == std::string::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

/// Basename of the running program (names its PTX in diagnostics).
std::string program_name() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("program") : p.filename().string();
}

/// Preset directories: $SIMTLAB_PRESET_DIRS, else next to this library.
std::vector<std::string> preset_dirs() {
  std::vector<std::string> dirs = split(env("SIMTLAB_PRESET_DIRS"), ':');
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&preset_dirs), &info) && info.dli_fname) {
    const fs::path lib = fs::path(info.dli_fname).parent_path();
    for (const fs::path& p :
         {lib / ".." / "share" / "simtlab" / "configs", lib / ".." / ".." / "configs"})
      if (fs::is_directory(p)) dirs.push_back(fs::weakly_canonical(p).string());
  }
  return dirs;
}

}  // namespace

Runtime& Runtime::get() {
  static Runtime* rt = new Runtime();  // lives until process exit; see ~Runtime via atexit
  return *rt;
}

Runtime::Runtime() {
  load_config();
  func::DeviceOptions o;
  o.global_bytes = params_.gpu.global_mem_bytes;
  o.num_sms = params_.gpu.num_sms;
  o.warp_size = params_.sm.warp_size;
  o.stack_bytes = params_.sim.stack_bytes;
  o.max_warp_insts_per_cta = params_.sim.max_warp_insts_per_cta;
  o.livelock_check = params_.sim.livelock_check;
  o.regalloc_check = params_.sim.regalloc_check;
  o.its = params_.sim.its;
  o.its_yield_backedges = params_.sim.its_yield_backedges;
  o.lpc = params_.sim.lpc;
  if (params_.sm.sharing.passes_on()) {  // thesis ch. 3 passes at module load (ptx/relssp.h)
    ptx::RelsspOptions ro;
    const std::string& r = params_.sm.sharing.relssp;
    ro.mode = r == "opt"       ? ptx::RelsspOptions::Mode::opt
              : r == "postdom" ? ptx::RelsspOptions::Mode::postdom
                               : ptx::RelsspOptions::Mode::none;
    ro.minimize = params_.sm.sharing.smem_layout == "minimize";
    ro.t = params_.sm.sharing.threshold;
    o.module_pass = [ro](ptx::Module& m) { ptx::run_relssp_passes(m, ro); };
  }
  dev_ = std::make_unique<func::Device>(o);
  dev_->heap().set_limit(params_.sim.heap_bytes);
  dev_->max_shared_per_block = params_.sm.max_shared_per_block_optin
                                   ? params_.sm.max_shared_per_block_optin
                                   : params_.sm.max_shared_per_block;
  dev_->max_threads_per_block = params_.sm.max_threads_per_block;
  dev_->set_print_sink([](const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); });
  try {
    register_timing_engine();
  } catch (const UserError& e) {
    // Defence only: the configuration was validated above (the components' own checks).
    std::fprintf(stderr, "simtlab: configuration error: %s\n", e.what());
    std::_Exit(1);
  }
  install_signal_handlers();
  // Write results when the program exits (after its own atexit handlers registered later).
  std::atexit([] {
    Runtime& r = Runtime::get();
    std::lock_guard<std::recursive_timed_mutex> g(r.run_mu_);
    r.drain();
    std::fflush(stdout);
    r.session_->finish();
  });
}

Runtime::~Runtime() = default;

void Runtime::load_config() {
  std::string gpu = env("SIMTLAB_GPU");
  if (gpu.empty()) gpu = config::kDefaultGpu;
  std::vector<std::string> sets = split(env("SIMTLAB_SET"), '\n');
  try {
    auto schema = config::schema_of<timing::GpuParams>();
    config::Config cfg = config::Config::resolve(schema, preset_dirs(), gpu, sets);
    cfg.apply(params_);
    SessionOptions so;
    so.stats_path = env("SIMTLAB_STATS");
    so.csv_path = env("SIMTLAB_CSV");
    so.trace_path = env("SIMTLAB_TRACE");
    so.stats_text = env("SIMTLAB_STATS_TEXT") == "1";
    so.quiet = env("SIMTLAB_QUIET") == "1";
    so.progress = !so.quiet && env("SIMTLAB_PROGRESS") != "0";
    so.progress_tty = isatty(2);
    if (const std::string pi = env("SIMTLAB_PROGRESS_INTERVAL"); !pi.empty())
      so.progress_interval = std::atof(pi.c_str());
    session_ = std::make_unique<Session>(std::move(cfg), so);
    session_->set_mode(params_.sim.mode);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simtlab: configuration error: %s\n", e.what());
    std::_Exit(1);
  }
}

void Runtime::register_timing_engine() {
  if (params_.sim.mode != "timing") return;
  auto e = make_timing_engine(params_, *session_);
  if (e) {
    dev_->set_engine(std::move(e));
  } else {
    session_->set_mode("functional");
    warn("the timing model is not available in this build; running in functional mode");
  }
}

// ---- errors ------------------------------------------------------------------------------

cudaError_t Runtime::ret(cudaError_t e) {
  if (e != cudaSuccess) last_ = e;
  return e;
}

cudaError_t Runtime::last_error_get(bool reset) {
  cudaError_t e = last_;
  if (sticky_ != cudaSuccess) e = sticky_;
  if (reset) last_ = cudaSuccess;
  return e;
}

void Runtime::warn(const std::string& msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "simtlab: %s\n", msg.c_str());
}

void Runtime::unsupported(const char* api) {
  if (!warned_.insert(api).second) return;
  warn(fmt::format("{} is not supported by simtlab; it returns cudaErrorNotSupported", api));
}

// ---- registration ------------------------------------------------------------------------

void** Runtime::register_fatbin(void* wrapper) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = by_wrapper_.find(wrapper);
  if (it != by_wrapper_.end()) return reinterpret_cast<void**>(it->second);
  auto fb = std::make_unique<FatbinRec>();
  fb->wrapper = wrapper;
  try {
    // Every read is bounded by the loaded memory around each pointer (a corrupt size field
    // cannot make the reader run off the program's data).
    fb->entries = ptx::fatbin::from_registration(wrapper, readable_bytes_at);
    const uint32_t arch = params_.gpu.cc_major * 10 + params_.gpu.cc_minor;
    auto chosen = ptx::fatbin::select_ptx(fb->entries, std::max<uint32_t>(arch, 75));
    for (size_t i = 0; i < chosen.size(); ++i)
      fb->sources.push_back(func::PtxSource{
          chosen[i]->ptx, fmt::format("{}.compute_{}{}.ptx", program_name(), chosen[i]->arch,
                                      chosen.size() > 1 ? fmt::format(".tu{}", i) : "")});
    for (const auto& e : fb->entries)
      if (e.kind == ptx::fatbin::EntryKind::Elf && e.arch <= std::max<uint32_t>(arch, 75)) {
        try {
          for (auto& k : ptx::fatbin::cubin_kernels(e.image)) fb->cubin_info.push_back(k);
        } catch (const std::exception&) {
          // relocatable or unusual cubins: fall back to the PTX estimate
        }
      }
  } catch (const std::exception& e) {
    fb->load_error = e.what();
  }
  FatbinRec* p = fb.get();
  fatbins_.push_back(std::move(fb));
  by_wrapper_[wrapper] = p;
  return reinterpret_cast<void**>(p);
}

void Runtime::unregister_fatbin(void** handle) {
  // Modules stay loaded until exit (their kernels may still be referenced by records).
  (void)handle;
}

void Runtime::register_function(void** handle, const void* host_fun, const char* name) {
  std::lock_guard<std::mutex> g(mu_);
  auto* fb = reinterpret_cast<FatbinRec*>(handle);
  auto k = std::make_unique<KernelRec>();
  k->fatbin = fb;
  k->name = name;
  k->host_stub = host_fun;
  fb->kernels.push_back(k.get());
  by_stub_[host_fun] = k.get();
  kernels_.push_back(std::move(k));
}

void Runtime::register_var(void** handle, void* host_var, const char* name, size_t size,
                           bool constant, bool managed) {
  std::lock_guard<std::mutex> g(mu_);
  auto* fb = reinterpret_cast<FatbinRec*>(handle);
  auto v = std::make_unique<VarRec>();
  v->fatbin = fb;
  v->name = name;
  v->size = size;
  v->constant = constant;
  v->managed = managed;
  if (managed) {
    // The host reaches a __managed__ variable through *host_var; give it host-visible memory
    // that the device also addresses (bound to the module variable when the module loads).
    v->managed_ptr = reinterpret_cast<void**>(host_var);
    void* mem = managed_alloc(std::max<size_t>(size, 1));
    *v->managed_ptr = mem;
  }
  fb->vars.push_back(v.get());
  by_symbol_[host_var] = v.get();
  vars_.push_back(std::move(v));
}

KernelRec* Runtime::kernel_by_stub(const void* stub) {
  auto it = by_stub_.find(stub);
  return it == by_stub_.end() ? nullptr : it->second;
}

KernelRec* Runtime::kernel_by_handle(const void* handle) {
  // cudaKernel_t handles we hand out are KernelRec pointers; also accept host stubs.
  for (auto& k : kernels_)
    if (k.get() == handle) return k.get();
  return kernel_by_stub(handle);
}

cudaError_t Runtime::ensure_loaded(FatbinRec& fb, std::string* why) {
  if (fb.loaded) return fb.module ? cudaSuccess : cudaErrorInvalidKernelImage;
  fb.loaded = true;
  if (!fb.load_error.empty()) {
    *why = fb.load_error;
    return cudaErrorNoKernelImageForDevice;
  }
  try {
    fb.module = &dev_->load_module(fb.sources);
  } catch (const std::exception& e) {
    fb.load_error = e.what();
    *why = fb.load_error;
    return cudaErrorInvalidPtx;
  }
  for (VarRec* v : fb.vars) {
    if (!v->managed) continue;
    const Addr host = reinterpret_cast<Addr>(*v->managed_ptr);
    if (!fb.module->rebind(v->name, host))
      warn(fmt::format("could not bind __managed__ variable '{}' to host-visible memory", v->name));
  }
  return cudaSuccess;
}

cudaError_t Runtime::ensure_kernel(KernelRec& k, std::string* why) {
  if (k.prog) return cudaSuccess;
  const cudaError_t e = ensure_loaded(*k.fatbin, why);
  if (e != cudaSuccess) {
    if (why->empty()) *why = k.fatbin->load_error;
    return e;
  }
  try {
    k.prog = k.fatbin->module->kernel(k.name);
  } catch (const std::exception& ex) {
    *why = ex.what();
    return cudaErrorInvalidPtx;
  }
  if (!k.prog) {
    *why = fmt::format("kernel '{}' is not in the program's PTX", k.name);
    return cudaErrorInvalidDeviceFunction;
  }
  return cudaSuccess;
}

VarRec* Runtime::var_by_symbol(const void* symbol) {
  auto it = by_symbol_.find(symbol);
  return it == by_symbol_.end() ? nullptr : it->second;
}

cudaError_t Runtime::var_address(const void* symbol, Addr* out, size_t* size) {
  VarRec* v = var_by_symbol(symbol);
  if (!v) return cudaErrorInvalidSymbol;
  std::string why;
  const cudaError_t e = ensure_loaded(*v->fatbin, &why);
  if (e != cudaSuccess) {
    warn(why);
    return e;
  }
  auto [a, sz] = v->fatbin->module->symbol(v->name);
  if (!a) return cudaErrorInvalidSymbol;
  *out = a;
  if (size) *size = v->size ? v->size : sz;
  return cudaSuccess;
}

// ---- memory --------------------------------------------------------------------------------

bool Runtime::is_device_ptr(const void* p) const {
  const Addr a = reinterpret_cast<Addr>(p);
  return a >= func::kGlobalBase && a < func::kGlobalEnd;
}

namespace {
/// Pinned and managed allocations live in host memory: more than the machine has fails (as
/// on a real system), which also keeps the page rounding below from wrapping.
bool host_size_ok(size_t n) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages <= 0 || page <= 0 || n <= uint64_t(pages) * uint64_t(page);
}
}  // namespace

void* Runtime::host_alloc(size_t n, unsigned flags) {
  if (!host_size_ok(n)) return nullptr;
  void* p = std::aligned_alloc(4096, align_up(std::max<size_t>(n, 1), 4096));
  if (!p) return nullptr;
  std::memset(p, 0, n);
  pinned_[p] = {n, flags};
  // Pinned host memory is mapped into the device address space (UVA, zero-copy).
  dev_->memory().map_host(p, n, func::AllocKind::host_mapped, "pinned host memory");
  return p;
}

bool Runtime::host_free(void* p) {
  auto it = pinned_.find(p);
  if (it == pinned_.end()) return false;
  dev_->memory().release(reinterpret_cast<Addr>(p));
  pinned_.erase(it);
  std::free(p);
  return true;
}

bool Runtime::is_pinned(const void* p) const {
  auto it = pinned_.upper_bound(p);
  if (it == pinned_.begin()) return false;
  --it;
  return static_cast<const uint8_t*>(p) < static_cast<const uint8_t*>(it->first) + it->second.first;
}

void* Runtime::managed_alloc(size_t n) {
  if (!host_size_ok(n)) return nullptr;
  void* p = std::aligned_alloc(4096, align_up(std::max<size_t>(n, 1), 4096));
  if (!p) return nullptr;
  std::memset(p, 0, n);
  dev_->memory().map_host(p, n, func::AllocKind::managed, "managed memory");
  managed_.push_back(p);
  return p;
}

// ---- streams and events --------------------------------------------------------------------

Stream* Runtime::stream(cudaStream_t s) {
  if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread) return &default_stream_;
  for (auto& p : streams_)
    if (reinterpret_cast<cudaStream_t>(p.get()) == s) return p.get();
  return nullptr;
}

Stream* Runtime::new_stream(unsigned flags, int priority) {
  streams_.push_back(std::make_unique<Stream>());
  streams_.back()->flags = flags;
  streams_.back()->priority = priority;
  streams_.back()->time_ms = device_time_ms_;
  return streams_.back().get();
}

bool Runtime::destroy_stream(cudaStream_t s) {
  drain();
  for (auto it = streams_.begin(); it != streams_.end(); ++it)
    if (reinterpret_cast<cudaStream_t>(it->get()) == s) {
      streams_.erase(it);
      return true;
    }
  return false;
}

Event* Runtime::event(cudaEvent_t e) {
  for (auto& p : events_)
    if (reinterpret_cast<cudaEvent_t>(p.get()) == e) return p.get();
  return nullptr;
}

Event* Runtime::new_event(unsigned flags) {
  events_.push_back(std::make_unique<Event>());
  events_.back()->flags = flags;
  return events_.back().get();
}

bool Runtime::destroy_event(cudaEvent_t e) {
  for (auto it = events_.begin(); it != events_.end(); ++it)
    if (reinterpret_cast<cudaEvent_t>(it->get()) == e) {
      events_.erase(it);
      return true;
    }
  return false;
}

double Runtime::stream_time(cudaStream_t s) {
  Stream* st = stream(s);
  return st ? st->time_ms : device_time_ms_;
}

void Runtime::synchronize_all() {
  drain();
  for (auto& s : streams_) s->time_ms = std::max(s->time_ms, device_time_ms_);
  default_stream_.time_ms = std::max(default_stream_.time_ms, device_time_ms_);
  std::fflush(stdout);
}

void Runtime::reset() {
  drain();
  synchronize_all();
  captures_.clear();
  streams_.clear();
  events_.clear();
  forget_arrays();
  coop_busy_.clear();
  coop_free_.clear();
  // Modules are reloaded (variables re-initialised) on next use.
  for (auto& fb : fatbins_)
    if (fb->module) {
      fb->module = nullptr;
      fb->loaded = false;
    }
  for (auto& k : kernels_) k->prog = nullptr;
  const std::set<Addr> keep = pool_allocs_;
  dev_->reset([&keep](const func::Allocation& a) {
    return a.kind == func::AllocKind::device && keep.count(a.base);
  });
  for (auto& [p, info] : pinned_) std::free(const_cast<void*>(p));
  pinned_.clear();
  for (void* p : managed_) std::free(p);
  managed_.clear();
  // __managed__ variables get fresh host-visible memory, bound again when the module loads.
  for (auto& v : vars_)
    if (v->managed) *v->managed_ptr = managed_alloc(std::max<size_t>(v->size, 1));
  for (auto& fb : fatbins_)
    for (VarRec* v : fb->vars)
      if (v->managed) {
        std::string why;
        ensure_loaded(*fb, &why);
        break;
      }
  last_ = cudaSuccess;
  sticky_ = cudaSuccess;
}

// ---- launch --------------------------------------------------------------------------------

std::vector<CallConfig>& Runtime::call_stack() {
  static thread_local std::vector<CallConfig> stack;
  return stack;
}

Runtime::RegisterAlloc Runtime::register_alloc(const KernelRec& k) const {
  RegisterAlloc r;
  for (const auto& ki : k.fatbin->cubin_info)
    if (ki.name == k.name && ki.regs) {
      r.wanted = ki.regs;
      r.source = "cubin";
    }
  if (!r.wanted && k.prog) r.wanted = k.prog->estimated_regs;
  r.regs = r.wanted;
  auto cap = [&](uint32_t limit, std::string why) {
    if (limit < r.regs) {
      r.regs = limit;
      r.capped_by = std::move(why);
    }
  };
  const auto& sm = params_.sm;
  cap(sm.max_regs_per_thread, fmt::format("sm.max_regs_per_thread = {}", sm.max_regs_per_thread));
  if (!k.prog) return r;
  const auto& f = k.prog->ir->funcs[k.prog->kernel_func];
  if (f.maxnreg) cap(f.maxnreg, fmt::format(".maxnreg {}", f.maxnreg));
  const Dim3& bound = f.reqntid.x ? f.reqntid : f.maxntid;
  if (bound.x) {
    const uint64_t threads = uint64_t(bound.x) * std::max(bound.y, 1u) * std::max(bound.z, 1u);
    const uint64_t warps = (threads + sm.warp_size - 1) / sm.warp_size;
    const uint64_t ctas = std::max(f.minnctapersm, 1u);
    uint32_t fit = r.regs;
    while (fit > 0 &&
           align_up(uint64_t(fit) * sm.warp_size, sm.reg_alloc_granularity) * warps * ctas >
               sm.registers)
      --fit;
    if (fit > 0)
      cap(fit, fmt::format("launch bounds: {} CTA(s) of {} threads must fit {} registers", ctas,
                           threads, sm.registers));
  }
  return r;
}

cudaError_t Runtime::prepare_launch(KernelRec& k, dim3 grid, dim3 block, void** args, size_t shared,
                                    std::vector<uint8_t>* pbuf) {
  if (sticky_ != cudaSuccess) return sticky_;
  std::string why;
  cudaError_t e = ensure_kernel(k, &why);
  if (e != cudaSuccess) {
    warn(fmt::format("cannot launch {}: {}", k.name, why));
    return ret(e);
  }
  const Dim3 g{grid.x, grid.y, grid.z}, b{block.x, block.y, block.z};
  if (params_.sm.max_shared_per_block_optin) {
    // Above max_shared_per_block a kernel must opt in
    // (cudaFuncAttributeMaxDynamicSharedMemorySize).
    const uint64_t st = k.prog->layout.static_shared;
    const uint64_t allowed =
        k.max_dynamic_shared >= 0
            ? uint64_t(k.max_dynamic_shared)
            : (params_.sm.max_shared_per_block > st ? params_.sm.max_shared_per_block - st : 0);
    if (shared > allowed) {
      warn(fmt::format(
          "launch of {} failed: {} bytes of dynamic shared memory exceed the kernel's {} (above "
          "{} bytes per block a kernel must opt in with cudaFuncSetAttribute("
          "cudaFuncAttributeMaxDynamicSharedMemorySize), up to {})",
          k.name, shared, allowed, params_.sm.max_shared_per_block,
          params_.sm.max_shared_per_block_optin));
      return ret(cudaErrorInvalidValue);
    }
  }
  const std::string bad = dev_->check_launch(*k.prog, g, b, uint32_t(shared));
  if (!bad.empty()) {
    warn(fmt::format("launch of {} failed: {}", k.name, bad));
    const bool too_many =
        b.count() > dev_->max_threads_per_block || shared > dev_->max_shared_per_block;
    return ret(too_many && b.count() <= 1024 ? cudaErrorInvalidValue
                                             : cudaErrorInvalidConfiguration);
  }
  const RegisterAlloc ra = register_alloc(k);
  if (!ra.capped_by.empty() && capped_noted_.insert(k.name).second)
    warn(fmt::format(
        "note: {} wants {} registers per thread ({}); simulated with {} ({}), as ptxas would "
        "allocate for this GPU; its spill code is not modelled",
        k.name, ra.wanted, ra.source, ra.regs, ra.capped_by));
  if (uint64_t(ra.regs) * b.count() > params_.sm.registers) {
    warn(fmt::format(
        "launch of {} failed: {} threads x {} registers exceed the {} registers of an SM", k.name,
        b.count(), ra.regs, params_.sm.registers));
    return ret(cudaErrorLaunchOutOfResources);
  }
  try {
    *pbuf = dev_->pack_params(*k.prog, args);
  } catch (const std::exception& ex) {
    warn(ex.what());
    return ret(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t Runtime::check_cluster(KernelRec& k, dim3 grid, Dim3 cluster) {
  const auto& f = k.prog->ir->funcs[k.prog->kernel_func];
  const Dim3 c = cluster.x ? cluster : f.reqnctapercluster;
  if (!c.x) {
    if (!f.explicitcluster) return cudaSuccess;
    warn(
        fmt::format("launch of {} failed: the kernel is compiled with .explicitcluster but the "
                    "launch gives no cluster dimensions (cudaLaunchAttributeClusterDimension)",
                    k.name));
    return ret(cudaErrorInvalidClusterSize);
  }
  if (params_.gpu.cc_major < 9) {
    warn(
        fmt::format("launch of {} failed: thread-block clusters need compute capability 9.0, "
                    "the simulated GPU reports {}.{}",
                    k.name, params_.gpu.cc_major, params_.gpu.cc_minor));
    return ret(cudaErrorNotSupported);
  }
  dev_->max_cluster_size = k.nonportable_cluster ? params_.gpu.max_cluster_size_nonportable
                                                 : params_.gpu.max_cluster_size;
  const std::string why = dev_->check_cluster(*k.prog, Dim3{grid.x, grid.y, grid.z}, c);
  if (why.empty()) return cudaSuccess;
  warn(fmt::format("launch of {} failed: {}{}", k.name, why,
                   c.count() > params_.gpu.max_cluster_size && !k.nonportable_cluster &&
                           c.count() <= params_.gpu.max_cluster_size_nonportable
                       ? " (cudaFuncAttributeNonPortableClusterSizeAllowed allows up to " +
                             std::to_string(params_.gpu.max_cluster_size_nonportable) + ")"
                       : ""));
  return ret(cudaErrorInvalidClusterSize);
}

cudaError_t Runtime::launch(KernelRec& k, dim3 grid, dim3 block, void** args, size_t shared,
                            cudaStream_t s, bool cooperative, Dim3 cluster) {
  if (!stream(s)) return ret(cudaErrorInvalidResourceHandle);
  std::vector<uint8_t> pbuf;
  if (const cudaError_t e = prepare_launch(k, grid, block, args, shared, &pbuf); e != cudaSuccess)
    return e;
  if (const cudaError_t e = check_cluster(k, grid, cluster); e != cudaSuccess) return e;
  if (cooperative) {
    // Every CTA must be resident at once (CUDA Runtime API, cudaLaunchCooperativeKernel).
    const uint64_t per_sm =
        uint64_t(occupancy_blocks(*k.prog, int(block.x * block.y * block.z), shared));
    const uint64_t ctas = uint64_t(grid.x) * grid.y * grid.z;
    if (ctas > per_sm * params_.gpu.num_sms) {
      warn(fmt::format(
          "cooperative launch of {} failed: {} blocks, but only {} per SM x {} SMs can be resident",
          k.name, ctas, per_sm, params_.gpu.num_sms));
      return ret(cudaErrorCooperativeLaunchTooLarge);
    }
  }
  if (capture_of(s)) {
    KernelRec* kp = &k;
    capture_op(s, "kernel",
               [this, kp, grid, block, shared, pbuf, cooperative, cluster](cudaStream_t st) {
                 std::lock_guard<std::mutex> lock(mutex());  // replayed by cudaGraphLaunch
                 return submit(*kp, grid, block, shared, pbuf, st, cooperative, cluster);
               });
    return cudaSuccess;
  }
  return submit(k, grid, block, shared, std::move(pbuf), s, cooperative, cluster);
}

Addr Runtime::coop_workspace() {
  Addr a = 0;
  if (!coop_free_.empty()) {
    a = coop_free_.back();
    coop_free_.pop_back();
  } else {
    a = dev_->malloc(64);
    if (!a) return 0;
  }
  dev_->fill(a, 0, 64);
  coop_busy_.push_back(a);
  return a;
}

cudaError_t Runtime::submit(KernelRec& k, dim3 grid, dim3 block, size_t shared,
                            std::vector<uint8_t> pbuf, cudaStream_t s, bool cooperative,
                            Dim3 cluster) {
  if (sticky_ != cudaSuccess) return sticky_;
  if (!stream(s)) return ret(cudaErrorInvalidResourceHandle);
  if (!k.prog) {  // a graph node replayed after cudaDeviceReset unloaded the module
    std::string why;
    if (const cudaError_t e = ensure_kernel(k, &why); e != cudaSuccess) {
      warn(fmt::format("cannot launch {}: {}", k.name, why));
      return ret(e);
    }
  }
  const Dim3 g{grid.x, grid.y, grid.z}, b{block.x, block.y, block.z};
  const RegisterAlloc ra = register_alloc(k);
  const uint32_t regs = ra.regs;
  func::LaunchOptions opt;
  opt.carveout_pref = k.carveout_pref;
  opt.cluster = cluster;
  dev_->max_cluster_size = k.nonportable_cluster ? params_.gpu.max_cluster_size_nonportable
                                                 : params_.gpu.max_cluster_size;
  if (cooperative) {
    opt.cooperative = true;
    opt.grid_workspace = coop_workspace();
    if (!opt.grid_workspace) return ret(cudaErrorMemoryAllocation);
  }
  KernelRecord rec;
  rec.name = k.name;
  rec.grid = g;
  rec.block = b;
  rec.dynamic_shared = uint32_t(shared);
  rec.regs_per_thread = regs;
  rec.regs_source = ra.source;
  rec.regs_wanted = ra.wanted;
  rec.static_shared = k.prog->layout.static_shared;
  {
    const timing::CtaNeeds n =
        timing::cta_needs(params_.sm, b, regs, uint32_t(k.prog->layout.static_shared + shared));
    rec.occupancy = {{"regs_per_thread", regs},
                     {"ctas_per_sm", timing::ctas_per_sm(params_.sm, n)},
                     {"warps_per_cta", n.warps},
                     {"shared_per_cta", n.shared},
                     {"regs_per_cta", n.regs}};
  }
  if (deferred(s)) {
    func::StreamOp op;
    op.kind = func::StreamOp::Kind::kernel;
    op.stream = stream_id(s);
    try {
      op.launch = dev_->prepare(*k.prog, g, b, uint32_t(shared), std::move(pbuf), regs, opt);
    } catch (const UserError& ex) {
      warn(fmt::format("launch of {} failed: {}", k.name, ex.what()));
      return ret(cudaErrorLaunchFailure);
    }
    pending_.push_back(std::move(op));
    pending_meta_.push_back(PendingOp{std::move(rec), nullptr});
    return cudaSuccess;
  }
  if (drain() != cudaSuccess) return sticky_;
  const auto t0 = std::chrono::steady_clock::now();
  std::fflush(stdout);
  std::unique_lock<std::recursive_timed_mutex> run_lock(run_mu_);
  int interrupted = 0;
  try {
    Polling polling;
    rec.result = dev_->launch(*k.prog, g, b, uint32_t(shared), std::move(pbuf), regs, opt);
  } catch (const UserError& ex) {
    warn(fmt::format("launch of {} failed: {}", k.name, ex.what()));
    return ret(cudaErrorLaunchFailure);
  } catch (...) {
    rec.status = kernel_failed(std::current_exception(), &rec.error, &interrupted);
    if (func::Engine* e = dev_->engine()) e->take_failed_result(&rec.result);
  }
  std::fflush(stdout);
  rec.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (rec.result.end_cycle) {
    device_time_ms_ = std::max(device_time_ms_, cycles_to_ms(rec.result.end_cycle));
    if (Stream* st = stream(s)) st->time_ms = device_time_ms_;
  }
  session_->add(std::move(rec));
  if (!interrupted) interrupted = interrupt_pending();  // arrived after the engine's last check
  if (interrupted) die_interrupted(interrupted);
  if (pending_.empty()) release_coop_workspaces();
  return cudaSuccess;
}

// ---- stream capture and graphs ---------------------------------------------------------------

GraphNode* Graph::add(std::string kind, GraphOp run, std::vector<GraphNode*> deps) {
  auto n = std::make_unique<GraphNode>();
  n->kind = std::move(kind);
  n->run = std::move(run);
  n->deps = std::move(deps);
  nodes.push_back(std::move(n));
  return nodes.back().get();
}

Capture* Runtime::capture_of(cudaStream_t s) {
  auto it = captures_.find(s);
  return it == captures_.end() ? nullptr : it->second.get();
}

bool Runtime::capture_op(cudaStream_t s, const char* kind, GraphOp op) {
  Capture* c = capture_of(s);
  if (!c) return false;
  std::vector<GraphNode*>& deps = c->next_deps[s];
  GraphNode* n = c->graph->add(kind, std::move(op), deps);
  deps.assign(1, n);
  return true;
}

cudaError_t Runtime::begin_capture(cudaStream_t s, int mode) {
  if (!s || s == cudaStreamLegacy) {
    warn("cudaStreamBeginCapture: the legacy default stream cannot be captured");
    return ret(cudaErrorStreamCaptureUnsupported);
  }
  if (!stream(s)) return ret(cudaErrorInvalidResourceHandle);
  if (capture_of(s)) return ret(cudaErrorIllegalState);
  auto c = std::make_shared<Capture>();
  c->origin = s;
  c->mode = mode;
  c->id = next_capture_id_++;
  c->next_deps[s] = {};
  captures_[s] = std::move(c);
  return cudaSuccess;
}

cudaError_t Runtime::end_capture(cudaStream_t s, Graph** out) {
  auto it = captures_.find(s);
  if (it == captures_.end()) return ret(cudaErrorIllegalState);
  std::shared_ptr<Capture> c = it->second;
  if (c->origin != s) return ret(cudaErrorStreamCaptureUnmatched);
  for (auto i = captures_.begin(); i != captures_.end();)
    i = i->second == c ? captures_.erase(i) : std::next(i);
  for (auto& e : events_)
    if (e->capture == c) {
      e->capture.reset();
      e->capture_node = nullptr;
    }
  if (c->invalidated) {
    if (out) *out = nullptr;
    return ret(cudaErrorStreamCaptureInvalidated);
  }
  if (out) *out = c->graph.release();
  return cudaSuccess;
}

void Runtime::capture_record(cudaStream_t s, Event* e) {
  auto it = captures_.find(s);
  e->capture = it->second;
  const auto& deps = it->second->next_deps[s];
  e->capture_node = deps.empty() ? nullptr : deps.front();
  if (deps.size() > 1) e->capture_node = it->second->graph->add("empty", nullptr, deps);
}

void Runtime::capture_wait(cudaStream_t s, Event* e) {
  std::shared_ptr<Capture> c = e->capture;
  auto it = captures_.find(s);
  if (it == captures_.end()) {
    captures_[s] = c;  // the stream joins the capture (fork)
    c->next_deps[s] = {};
  } else if (it->second != c) {
    warn("cudaStreamWaitEvent: an event of one capture waited on in another capture");
    it->second->invalidated = true;
    return;
  }
  if (e->capture_node) c->next_deps[s].push_back(e->capture_node);
}

uint32_t Runtime::stream_id(cudaStream_t s) {
  if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread) return 0;
  for (size_t i = 0; i < streams_.size(); ++i)
    if (reinterpret_cast<cudaStream_t>(streams_[i].get()) == s) return uint32_t(i + 1);
  return 0;
}

bool Runtime::deferred(cudaStream_t s) {
  if (stream_id(s) == 0) return false;  // the legacy default stream synchronises with all
  func::Engine* e = dev_->engine();
  return e && e->concurrent();
}

void Runtime::enqueue_action(cudaStream_t s, std::function<void()> action) {
  func::StreamOp op;
  op.kind = func::StreamOp::Kind::action;
  op.stream = stream_id(s);
  op.action = std::move(action);
  pending_.push_back(std::move(op));
  pending_meta_.push_back(PendingOp{});
}

void Runtime::enqueue_record(cudaStream_t s, Event* e) {
  func::StreamOp op;
  op.kind = func::StreamOp::Kind::record;
  op.stream = stream_id(s);
  e->pending_op = int64_t(pending_.size());
  e->recorded = false;
  pending_.push_back(std::move(op));
  pending_meta_.push_back(PendingOp{KernelRecord{}, e});
}

void Runtime::enqueue_wait(cudaStream_t s, Event* e) {
  if (e->pending_op < 0) return;  // already recorded: nothing to wait for
  func::StreamOp op;
  op.kind = func::StreamOp::Kind::wait;
  op.stream = stream_id(s);
  op.waits_for = e->pending_op;
  pending_.push_back(std::move(op));
  pending_meta_.push_back(PendingOp{});
}

cudaError_t Runtime::drain() {
  if (pending_.empty()) return sticky_;
  std::vector<func::StreamOp> ops = std::move(pending_);
  std::vector<PendingOp> meta = std::move(pending_meta_);
  pending_.clear();
  pending_meta_.clear();
  std::unique_lock<std::recursive_timed_mutex> run_lock(run_mu_);
  const auto t0 = std::chrono::steady_clock::now();
  std::fflush(stdout);
  KernelStatus failure = KernelStatus::completed;
  std::string failure_msg;
  int interrupted = 0;
  try {
    Polling polling;
    dev_->engine()->run_streams(*dev_, ops);
  } catch (const UserError& ex) {
    warn(ex.what());
    sticky_ = cudaErrorLaunchFailure;
  } catch (...) {
    failure = kernel_failed(std::current_exception(), &failure_msg, &interrupted);
  }
  std::fflush(stdout);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t nk = 0;
  for (const auto& op : ops)
    if (op.kind == func::StreamOp::Kind::kernel && (op.done || op.failed)) ++nk;
  for (size_t i = 0; i < ops.size(); ++i) {
    func::StreamOp& op = ops[i];
    if (meta[i].event) {
      meta[i].event->pending_op = -1;
      meta[i].event->recorded = op.done;
      meta[i].event->time_ms = cycles_to_ms(op.done_cycle);
    }
    if (op.kind != func::StreamOp::Kind::kernel || !(op.done || op.failed)) continue;
    KernelRecord rec = std::move(meta[i].record);
    rec.result = std::move(op.result);
    if (op.failed) {
      // Running when the batch stopped: its partial record carries the batch's failure.
      rec.status = failure == KernelStatus::completed ? KernelStatus::fault : failure;
      rec.error = failure_msg;
    }
    rec.wall_seconds = nk ? wall / double(nk) : 0.0;  // the batch's wall time, shared out
    device_time_ms_ = std::max(device_time_ms_, cycles_to_ms(op.done_cycle));
    session_->add(std::move(rec));
  }
  for (auto& st : streams_) st->time_ms = std::max(st->time_ms, device_time_ms_);
  if (!interrupted) interrupted = interrupt_pending();  // arrived after the engine's last check
  if (interrupted) die_interrupted(interrupted);
  release_coop_workspaces();
  return sticky_;
}

KernelStatus Runtime::kernel_failed(std::exception_ptr e, std::string* first_line,
                                    int* interrupted) {
  std::fflush(stdout);
  auto first = [](const char* what) {
    std::string s = what;
    return s.substr(0, s.find('\n'));
  };
  try {
    std::rethrow_exception(e);
  } catch (const Interrupted& ex) {
    *interrupted = ex.signal();
    *first_line = fmt::format("interrupted by {}", strsignal(ex.signal()));
    return KernelStatus::interrupted;
  } catch (const GuestAssert& ex) {
    std::fprintf(stderr, "%s\n", ex.what());
    sticky_ = cudaErrorAssert;
    *first_line = first(ex.what());
    return KernelStatus::assert_;
  } catch (const GuestTimeout& ex) {
    // What a kernel stopped by the watchdog gets from CUDA.
    std::fprintf(stderr, "========= simtlab: kernel hang\n========= %s\n", ex.what());
    sticky_ = cudaErrorLaunchTimeout;
    *first_line = first(ex.what());
    return KernelStatus::livelock;
  } catch (const GuestDeadlock& ex) {
    std::fprintf(stderr, "========= simtlab: kernel hang\n========= %s\n", ex.what());
    sticky_ = cudaErrorLaunchTimeout;
    *first_line = first(ex.what());
    return KernelStatus::deadlock;
  } catch (const GuestError& ex) {
    std::fprintf(stderr, "========= simtlab: kernel fault\n========= %s\n", ex.what());
    const std::string msg = ex.what();
    sticky_ =
        msg.find("trap") != std::string::npos ? cudaErrorLaunchFailure : cudaErrorIllegalAddress;
    *first_line = first(ex.what());
    return KernelStatus::fault;
  }
}

Runtime::Polling::Polling() { g_engine_polling.store(true); }
Runtime::Polling::~Polling() { g_engine_polling.store(false); }

void Runtime::die_interrupted(int sig) {
  // Write what ran (finished kernels and the partial record of the running one), then end the
  // process the way the signal would have, so the shell sees the conventional 128+signal.
  session_->set_interrupted(sig);
  std::fflush(stdout);
  session_->finish();
  std::fflush(stderr);
  std::signal(sig, SIG_DFL);
  kill(getpid(), sig);
  std::_Exit(128 + sig);
}

namespace {
int g_signal_pipe[2] = {-1, -1};
void on_signal(int sig) {
  request_interrupt(sig);  // engines poll it and stop at the next check (every 1024 cycles)
  const int saved = errno;
  if (g_engine_polling.load()) {
    errno = saved;
    return;  // the simulating thread records the partial kernel and ends the process
  }
  // Host code is running: the signal must still end the program, so this thread stops here
  // while the watcher thread writes the results and re-raises the signal.
  const char c = char(sig);
  (void)!write(g_signal_pipe[1], &c, 1);
  for (;;) pause();
}
}  // namespace

void Runtime::install_signal_handlers() {
  if (pipe2(g_signal_pipe, O_CLOEXEC) != 0) return;
  bool any = false;
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // keep theirs
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, nullptr);
    any = true;
  }
  if (!any) return;
  // The watcher never takes these signals itself (its mask is inherited at creation).
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  // The handler only sets a flag and writes a byte; this thread does the rest. While a kernel
  // is simulating, the simulating thread holds run_mu_, notices the flag, records the partial
  // kernel and ends the process itself; otherwise (host code running) this thread takes run_mu_
  // and writes the results.
  std::thread([this] {
    char c = 0;
    for (;;) {
      const ssize_t n = read(g_signal_pipe[0], &c, 1);
      if (n == 1) break;
      if (n < 0 && errno == EINTR) continue;
      return;
    }
    // Wait for a simulating thread to finish its record (it ends the process itself); if
    // results are being written by host code for long, write anyway.
    const bool locked = run_mu_.try_lock_for(std::chrono::seconds(5));
    (void)locked;
    die_interrupted(int(static_cast<unsigned char>(c)));
  }).detach();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void Runtime::release_coop_workspaces() {
  coop_free_.insert(coop_free_.end(), coop_busy_.begin(), coop_busy_.end());
  coop_busy_.clear();
}

}  // namespace simtlab::runtime
