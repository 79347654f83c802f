#include "func/device.h"
#include "func/regcheck.h"

#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "base/bits.h"
#include "base/error.h"
#include "func/executor.h"

namespace simtlab::func {

Device::Device(DeviceOptions opt) : opt_(opt), heap_(mem_) {
  mem_.set_capacity(opt_.global_bytes);
  engine_ = std::make_unique<FunctionalEngine>();
  print_ = [](const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); };
}

Device::~Device() { modules_.clear(); }

Addr Device::malloc(uint64_t bytes, AllocKind kind) { return mem_.allocate(bytes, kind); }

bool Device::free(Addr base) { return mem_.release(base); }

void Device::write(Addr dst, const void* src, uint64_t n) {
  if (!n) return;
  uint8_t* p = mem_.translate(dst, n);
  if (!p) fatal("device write of {} bytes at {:#x}: {}", n, dst, mem_.describe(dst));
  std::memcpy(p, src, n);
}

void Device::read(void* dst, Addr src, uint64_t n) {
  if (!n) return;
  const uint8_t* p = mem_.translate(src, n);
  if (!p) fatal("device read of {} bytes at {:#x}: {}", n, src, mem_.describe(src));
  std::memcpy(dst, p, n);
}

void Device::copy(Addr dst, Addr src, uint64_t n) {
  if (!n) return;
  const uint8_t* s = mem_.translate(src, n);
  if (!s) fatal("device copy source of {} bytes at {:#x}: {}", n, src, mem_.describe(src));
  uint8_t* d = mem_.translate(dst, n);
  if (!d) fatal("device copy destination of {} bytes at {:#x}: {}", n, dst, mem_.describe(dst));
  std::memmove(d, s, n);
}

void Device::fill(Addr dst, uint8_t value, uint64_t n) {
  if (!n) return;
  uint8_t* p = mem_.translate(dst, n);
  if (!p) fatal("device memset of {} bytes at {:#x}: {}", n, dst, mem_.describe(dst));
  std::memset(p, value, n);
}

LoadedModule& Device::load_module(const std::vector<PtxSource>& sources) {
  modules_.push_back(std::make_unique<LoadedModule>(mem_, sources, opt_.module_pass));
  return *modules_.back();
}

void Device::unload_module(LoadedModule* m) {
  for (auto it = modules_.begin(); it != modules_.end(); ++it)
    if (it->get() == m) {
      modules_.erase(it);
      return;
    }
}

std::vector<uint8_t> Device::pack_params(const Program& k, const void* const* args) const {
  std::vector<uint8_t> buf(k.layout.param_bytes, 0);
  for (size_t i = 0; i < k.layout.params.size(); ++i) {
    const auto& p = k.layout.params[i];
    if (!args || !args[i]) fatal("kernel {}: argument {} ({}) is missing", k.name, i, p.name);
    std::memcpy(buf.data() + p.offset, args[i], p.size);
  }
  return buf;
}

std::string Device::check_launch(const Program& k, Dim3 grid, Dim3 block, uint32_t dyn) const {
  const uint64_t threads = block.count();
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
    return "grid and block dimensions must be non-zero";
  if (threads > max_threads_per_block)
    return fmt::format("{} threads per block exceed the limit of {}", threads,
                       max_threads_per_block);
  if (block.x > 1024 || block.y > 1024 || block.z > 64)
    return fmt::format("block dimensions ({},{},{}) exceed (1024,1024,64)", block.x, block.y,
                       block.z);
  if (grid.x > 0x7fff'ffffu || grid.y > 65535 || grid.z > 65535)
    return fmt::format("grid dimensions ({},{},{}) exceed (2^31-1,65535,65535)", grid.x, grid.y,
                       grid.z);
  const uint64_t smem = uint64_t(k.layout.static_shared) + dyn;
  if (smem > max_shared_per_block)
    return fmt::format("{} bytes of shared memory ({} static + {} dynamic) exceed the {} per block",
                       smem, k.layout.static_shared, dyn, max_shared_per_block);
  const auto& f = k.ir->funcs[k.kernel_func];
  if (f.maxntid.x && threads > uint64_t(f.maxntid.x) * f.maxntid.y * f.maxntid.z)
    return fmt::format("{} threads per block exceed the kernel's .maxntid ({})", threads,
                       uint64_t(f.maxntid.x) * f.maxntid.y * f.maxntid.z);
  if (f.reqntid.x && !(block == Dim3{f.reqntid.x, f.reqntid.y, f.reqntid.z}))
    return "block dimensions differ from the kernel's .reqntid";
  return {};
}

std::string Device::check_cluster(const Program& k, Dim3 grid, Dim3 cluster) const {
  const auto& f = k.ir->funcs[k.kernel_func];
  if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0)
    return fmt::format("cluster dimensions ({},{},{}) must be non-zero", cluster.x, cluster.y,
                       cluster.z);
  if (f.reqnctapercluster.x && !(cluster == f.reqnctapercluster))
    return fmt::format(
        "cluster dimensions ({},{},{}) differ from the kernel's __cluster_dims__ "
        "(.reqnctapercluster {},{},{})",
        cluster.x, cluster.y, cluster.z, f.reqnctapercluster.x, f.reqnctapercluster.y,
        f.reqnctapercluster.z);
  if (grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z)
    return fmt::format("grid ({},{},{}) is not a multiple of the cluster dimensions ({},{},{})",
                       grid.x, grid.y, grid.z, cluster.x, cluster.y, cluster.z);
  if (cluster.count() > max_cluster_size)
    return fmt::format("{} blocks per cluster ({},{},{}) exceed the limit of {}", cluster.count(),
                       cluster.x, cluster.y, cluster.z, max_cluster_size);
  if (f.maxclusterrank && cluster.count() > f.maxclusterrank)
    return fmt::format("{} blocks per cluster exceed the kernel's .maxclusterrank {}",
                       cluster.count(), f.maxclusterrank);
  return {};
}

void join_clusters(const LaunchState& L, std::span<Cta* const> ctas,
                   std::vector<std::unique_ptr<ClusterState>>& out) {
  const Dim3 c = L.cluster;
  const Dim3 n{L.grid.x / c.x, L.grid.y / c.y, L.grid.z / c.z};
  out.clear();
  out.resize(size_t(n.count()));
  for (auto& p : out) p = std::make_unique<ClusterState>();
  for (auto& p : out) p->ctas.assign(L.cluster_size(), nullptr);
  for (Cta* t : ctas) {
    const Dim3& b = t->ctaid;
    const uint64_t id = b.x / c.x + uint64_t(n.x) * (b.y / c.y + uint64_t(n.y) * (b.z / c.z));
    const uint32_t rank = b.x % c.x + c.x * (b.y % c.y + c.y * (b.z % c.z));
    t->cluster = out[id].get();
    t->cluster_rank = rank;
    out[id]->ctas[rank] = t;
  }
}

void prepare_launch(const Device& dev, LaunchState& L) {
  const Program& k = *L.prog;
  uint32_t dyn_off = k.layout.static_shared;
  if (k.layout.dynamic_shared_align)
    dyn_off = uint32_t(align_up(dyn_off, k.layout.dynamic_shared_align));
  L.dynamic_offset = dyn_off;
  L.shared_bytes = dyn_off + L.dynamic_shared;
  L.local_bytes_per_thread =
      uint32_t(align_up(k.kernel_local_bytes, 16)) + (k.has_calls ? dev.options().stack_bytes : 0);
  L.warp_size = dev.options().warp_size;
  L.its = dev.options().its;
  L.its_yield_backedges = dev.options().its_yield_backedges;
  L.lpc = dev.options().lpc;
  L.num_sms = dev.options().num_sms;
}

std::unique_ptr<LaunchState> Device::prepare(const Program& k, Dim3 grid, Dim3 block,
                                             uint32_t dynamic_shared, std::vector<uint8_t> params,
                                             uint32_t regs_per_thread, const LaunchOptions& opt) {
  const std::string bad = check_launch(k, grid, block, dynamic_shared);
  if (!bad.empty()) fatal("launch of {}: {}", k.name, bad);
  auto L = std::make_unique<LaunchState>();
  L->prog = &k;
  L->grid = grid;
  L->block = block;
  L->dynamic_shared = dynamic_shared;
  L->params = std::move(params);
  L->launch_id = ++launches_;
  L->regs_per_thread = regs_per_thread ? regs_per_thread : k.estimated_regs;
  L->cooperative = opt.cooperative;
  L->carveout_pref = opt.carveout_pref;
  {
    const auto& f = k.ir->funcs[k.kernel_func];
    if (opt.cluster.x) {
      L->cluster = opt.cluster;
      L->explicit_cluster = true;
    } else if (f.reqnctapercluster.x) {
      L->cluster = f.reqnctapercluster;
      L->explicit_cluster = true;
    }
    const std::string why = check_cluster(k, grid, L->cluster);
    if (!why.empty()) fatal("launch of {}: {}", k.name, why);
  }
  if (opt.grid_workspace) {
    L->envreg[1] = opt.grid_workspace >> 32;
    L->envreg[2] = opt.grid_workspace & 0xffffffffu;
  }
  prepare_launch(*this, *L);
  return L;
}

LaunchResult Device::launch(const Program& k, Dim3 grid, Dim3 block, uint32_t dynamic_shared,
                            std::vector<uint8_t> params, uint32_t regs_per_thread,
                            const LaunchOptions& opt) {
  auto L = prepare(k, grid, block, dynamic_shared, std::move(params), regs_per_thread, opt);
  return engine_->run(*this, *L);
}

void Engine::run_streams(Device& dev, std::vector<StreamOp>& ops) {
  // One op at a time: repeatedly run the first op that heads its stream and whose wait is met.
  std::vector<size_t> pending(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) pending[i] = i;
  while (!pending.empty()) {
    bool ran = false;
    for (size_t pi = 0; pi < pending.size(); ++pi) {
      StreamOp& op = ops[pending[pi]];
      bool head = true;
      for (size_t pj = 0; pj < pi; ++pj)
        if (ops[pending[pj]].stream == op.stream) head = false;
      if (!head) continue;
      if (op.kind == StreamOp::Kind::wait && op.waits_for >= 0 && !ops[size_t(op.waits_for)].done)
        continue;
      switch (op.kind) {
        case StreamOp::Kind::kernel:
          op.result = run(dev, *op.launch);
          break;
        case StreamOp::Kind::action:
          op.action();
          break;
        default:
          break;
      }
      op.done = true;
      pending.erase(pending.begin() + long(pi));
      ran = true;
      break;
    }
    if (!ran)
      fatal("stream operations wait for each other in a cycle (cudaStreamWaitEvent deadlock)");
  }
}

bool FunctionalEngine::take_failed_result(LaunchResult* out) {
  if (!has_failed_) return false;
  *out = failed_;
  has_failed_ = false;
  return true;
}

LaunchResult FunctionalEngine::run(Device& dev, LaunchState& L) {
  LaunchResult r;
  has_failed_ = false;
  try {
    return run_impl(dev, L, r);
  } catch (...) {
    failed_ = r;  // what ran before the fault, hang or interrupt
    has_failed_ = true;
    throw;
  }
}

LaunchResult FunctionalEngine::run_impl(Device& dev, LaunchState& L, LaunchResult& r) {
  ExecContext cx;
  cx.livelock_check = dev.options().livelock_check;
  if (dev.options().regalloc_check) {
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (!L.prog->reg_aliases) L.prog->reg_aliases = build_reg_aliases(*L.prog);
    cx.reg_aliases = L.prog->reg_aliases.get();
  }
  cx.gmem = &dev.memory();
  cx.heap = &dev.heap();
  cx.prog = L.prog;
  cx.launch = &L;
  cx.print = &dev.print_sink();
  cx.textures = &dev.textures();
  if (L.cooperative) {
    // Every CTA is resident at once and they take turns, so blocks can wait for each other.
    std::vector<std::unique_ptr<Cta>> ctas;
    std::vector<Cta*> ptrs;
    uint32_t linear = 0;
    for (uint32_t z = 0; z < L.grid.z; ++z)
      for (uint32_t y = 0; y < L.grid.y; ++y)
        for (uint32_t x = 0; x < L.grid.x; ++x, ++linear) {
          ctas.push_back(std::make_unique<Cta>());
          init_cta(*ctas.back(), L, Dim3{x, y, z}, linear, linear % L.num_sms);
          ptrs.push_back(ctas.back().get());
        }
    std::vector<std::unique_ptr<ClusterState>> clusters;
    if (L.has_clusters()) join_clusters(L, ptrs, clusters);
    run_ctas(cx, ptrs, dev.options().max_warp_insts_per_cta, &r.warp_insts, &r.thread_insts);
    r.ctas = ptrs.size();
    return r;
  }
  if (L.has_clusters()) {
    // Thread-block clusters: the CTAs of one cluster run together, taking turns (barrier.cluster
    // and distributed shared memory need them co-resident); clusters run one after another.
    const Dim3 c = L.cluster;
    const uint32_t n = L.cluster_size();
    std::vector<std::unique_ptr<Cta>> ctas(n);
    for (auto& p : ctas) p = std::make_unique<Cta>();
    std::vector<Cta*> ptrs(n);
    for (uint32_t cz = 0; cz < L.grid.z; cz += c.z)
      for (uint32_t cy = 0; cy < L.grid.y; cy += c.y)
        for (uint32_t cx0 = 0; cx0 < L.grid.x; cx0 += c.x) {
          ClusterState cs;
          for (uint32_t rank = 0; rank < n; ++rank) {
            const Dim3 id{cx0 + rank % c.x, cy + rank / c.x % c.y, cz + rank / (c.x * c.y)};
            const uint32_t linear = id.x + L.grid.x * (id.y + L.grid.y * id.z);
            init_cta(*ctas[rank], L, id, linear, linear % L.num_sms);
            ctas[rank]->cluster = &cs;
            ctas[rank]->cluster_rank = rank;
            ptrs[rank] = ctas[rank].get();
            cs.ctas.push_back(ptrs[rank]);
          }
          run_ctas(cx, ptrs, dev.options().max_warp_insts_per_cta, &r.warp_insts, &r.thread_insts);
          r.ctas += n;
        }
    return r;
  }
  Cta cta;
  uint64_t linear = 0;
  for (uint32_t z = 0; z < L.grid.z; ++z)
    for (uint32_t y = 0; y < L.grid.y; ++y)
      for (uint32_t x = 0; x < L.grid.x; ++x, ++linear) {
        init_cta(cta, L, Dim3{x, y, z}, uint32_t(linear), uint32_t(linear % L.num_sms));
        run_cta(cx, cta, dev.options().max_warp_insts_per_cta, &r.warp_insts, &r.thread_insts);
        ++r.ctas;
      }
  return r;
}

}  // namespace simtlab::func
