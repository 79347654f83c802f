// Device management, properties and attributes (answered from the simulated GPU's
// configuration, not a real card), limits, function attributes and occupancy.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "base/bits.h"
#include "runtime/runtime.h"
#include "timing/gpu/gpu.h"

using simtlab::runtime::Runtime;

namespace simtlab::runtime {

void Runtime::fill_properties(cudaDeviceProp* p) const {
  std::memset(p, 0, sizeof *p);
  const auto& g = params_.gpu;
  const auto& s = params_.sm;
  std::snprintf(p->name, sizeof p->name, "simtlab %s", g.name.c_str());
  p->totalGlobalMem = g.global_mem_bytes;
  p->sharedMemPerBlock = s.max_shared_per_block;
  p->regsPerBlock = int(std::min<uint32_t>(s.registers, 65536));
  p->warpSize = int(s.warp_size);
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = int(s.max_threads_per_block);
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 65536;
  p->major = int(g.cc_major);
  p->minor = int(g.cc_minor);
  p->textureAlignment = 512;
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = int(g.num_sms);
  p->canMapHostMemory = 1;
  p->maxTexture1D = 131072;
  p->maxTexture2D[0] = 131072;
  p->maxTexture2D[1] = 65536;
  p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
  p->maxTexture2DLinear[0] = 131072;
  p->maxTexture2DLinear[1] = 65000;
  p->maxTexture2DLinear[2] = 2097120;
  p->maxSurface1D = 32768;
  p->maxSurface2D[0] = 131072;
  p->maxSurface2D[1] = 65536;
  p->surfaceAlignment = 512;
  p->concurrentKernels = 1;
  p->asyncEngineCount = 1;
  p->unifiedAddressing = 1;
  // From the simulated memory system: channels x bytes per channel per beat, and channels x
  // slices per channel x slice capacity (GTX480 768 KB, T4 4 MB, V100 6 MB, A100 40 MB, H100
  // 50 MB). Programs size their working sets from these (the microbenchmarks' DRAM chase).
  const auto& m = params_.mem;
  p->memoryBusWidth =
      int(std::min<uint64_t>(uint64_t(m.map.channels) * m.dram.bus_width * 8, uint64_t(INT32_MAX)));
  p->l2CacheSize = int(std::min<uint64_t>(
      uint64_t(m.map.channels) * m.map.sub_partitions * m.l2.slice.size, uint64_t(INT32_MAX)));
  p->maxThreadsPerMultiProcessor = int(s.max_threads);
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = s.shared_bytes;
  p->regsPerMultiprocessor = int(s.registers);
  p->managedMemory = 1;
  p->concurrentManagedAccess = 0;
  p->cooperativeLaunch = 1;
  p->sharedMemPerBlockOptin =
      s.max_shared_per_block_optin ? s.max_shared_per_block_optin : s.max_shared_per_block;
  p->maxBlocksPerMultiProcessor = int(s.max_ctas);
  p->hostRegisterSupported = 1;
  p->pciBusID = 1;
  p->pciDeviceID = 0;
}

int Runtime::attribute(cudaDeviceAttr a, bool* ok) const {
  cudaDeviceProp p;
  fill_properties(&p);
  *ok = true;
  const double khz = params_.gpu.core_mhz * 1000.0;
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock:
      return p.maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX:
      return p.maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY:
      return p.maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ:
      return p.maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX:
      return p.maxGridSize[0];
    case cudaDevAttrMaxGridDimY:
      return p.maxGridSize[1];
    case cudaDevAttrMaxGridDimZ:
      return p.maxGridSize[2];
    case cudaDevAttrMaxSharedMemoryPerBlock:
      return int(p.sharedMemPerBlock);
    case cudaDevAttrTotalConstantMemory:
      return int(p.totalConstMem);
    case cudaDevAttrWarpSize:
      return p.warpSize;
    case cudaDevAttrMaxPitch:
      return int(p.memPitch);
    case cudaDevAttrMaxRegistersPerBlock:
      return p.regsPerBlock;
    case cudaDevAttrClockRate:
      return int(khz);
    case cudaDevAttrTextureAlignment:
      return int(p.textureAlignment);
    case cudaDevAttrMultiProcessorCount:
      return p.multiProcessorCount;
    case cudaDevAttrKernelExecTimeout:
      return 0;
    case cudaDevAttrIntegrated:
      return 0;
    case cudaDevAttrCanMapHostMemory:
      return 1;
    case cudaDevAttrComputeMode:
      return 0;
    case cudaDevAttrConcurrentKernels:
      return 1;
    case cudaDevAttrEccEnabled:
      return 0;
    case cudaDevAttrPciBusId:
      return p.pciBusID;
    case cudaDevAttrPciDeviceId:
      return p.pciDeviceID;
    case cudaDevAttrMemoryClockRate:
      return int(params_.gpu.dram_mhz * 1000.0);
    case cudaDevAttrGlobalMemoryBusWidth:
      return p.memoryBusWidth;
    case cudaDevAttrL2CacheSize:
      return p.l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      return p.maxThreadsPerMultiProcessor;
    case cudaDevAttrAsyncEngineCount:
      return 1;
    case cudaDevAttrUnifiedAddressing:
      return 1;
    case cudaDevAttrComputeCapabilityMajor:
      return p.major;
    case cudaDevAttrComputeCapabilityMinor:
      return p.minor;
    case cudaDevAttrStreamPrioritiesSupported:
      return 1;
    case cudaDevAttrGlobalL1CacheSupported:
      return 1;
    case cudaDevAttrLocalL1CacheSupported:
      return 1;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      return int(p.sharedMemPerMultiprocessor);
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      return p.regsPerMultiprocessor;
    case cudaDevAttrManagedMemory:
      return 1;
    case cudaDevAttrIsMultiGpuBoard:
      return 0;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      return int(p.sharedMemPerBlockOptin);
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      return p.maxBlocksPerMultiProcessor;
    case cudaDevAttrCooperativeLaunch:
      return 1;
    case cudaDevAttrConcurrentManagedAccess:
      return 0;
    case cudaDevAttrPageableMemoryAccess:
      return 0;
    case cudaDevAttrHostRegisterSupported:
      return 1;
    case cudaDevAttrMaxTexture1DWidth:
      return p.maxTexture1D;
    case cudaDevAttrMaxTexture2DWidth:
      return p.maxTexture2D[0];
    case cudaDevAttrMaxTexture2DHeight:
      return p.maxTexture2D[1];
    case cudaDevAttrSurfaceAlignment:
      return int(p.surfaceAlignment);
    case cudaDevAttrMemoryPoolsSupported:
      return 0;
    default:
      *ok = false;
      return 0;
  }
}

int Runtime::occupancy_blocks(const func::Program& k, int block_threads, size_t dyn_shared) const {
  if (block_threads <= 0) return 0;
  uint32_t regs = 0;
  for (const auto& kr : kernels_)
    if (kr->prog == &k) regs = registers_per_thread(*kr);
  if (!regs) regs = k.estimated_regs;
  // The timing model's own calculator, so the occupancy API, the stats and the simulated SM
  // agree (threads and registers per whole warp, shared memory in its allocation unit).
  const timing::CtaNeeds n = timing::cta_needs(params_.sm, Dim3{uint32_t(block_threads), 1, 1},
                                               regs, uint32_t(k.layout.static_shared + dyn_shared));
  return int(timing::ctas_per_sm(params_.sm, n));
}

}  // namespace simtlab::runtime

namespace {

simtlab::runtime::KernelRec* kernel_for(Runtime& rt, const void* func, cudaError_t* e) {
  auto* k = rt.kernel_by_handle(func);
  if (!k) {
    *e = cudaErrorInvalidDeviceFunction;
    return nullptr;
  }
  std::string why;
  *e = rt.ensure_kernel(*k, &why);
  if (*e != cudaSuccess) {
    rt.warn(why);
    return nullptr;
  }
  return k;
}

// Cache configurations: cudaFuncCachePreferNone/Shared/L1/Equal (0..3, driver_types.h); any
// other value is cudaErrorInvalidValue. A valid preference changes nothing simulated (the
// carve-out follows cudaFuncAttributePreferredSharedMemoryCarveout).
bool valid_cache_config(cudaFuncCache c) {
  return c == cudaFuncCachePreferNone || c == cudaFuncCachePreferShared ||
         c == cudaFuncCachePreferL1 || c == cudaFuncCachePreferEqual;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  Runtime& rt = Runtime::get();
  if (!count) return rt.ret(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  Runtime& rt = Runtime::get();
  if (!device) return rt.ret(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  Runtime& rt = Runtime::get();
  return device == 0 ? cudaSuccess : rt.ret(cudaErrorInvalidDevice);
}

cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) { return cudaSetDevice(device); }

cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (flags) *flags = 0;
  return cudaSuccess;
}

cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp*) {
  if (device) *device = 0;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  Runtime& rt = Runtime::get();
  if (!prop) return rt.ret(cudaErrorInvalidValue);
  if (device != 0) return rt.ret(cudaErrorInvalidDevice);
  rt.fill_properties(prop);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  Runtime& rt = Runtime::get();
  if (!value) return rt.ret(cudaErrorInvalidValue);
  if (device != 0) return rt.ret(cudaErrorInvalidDevice);
  bool ok = false;
  *value = rt.attribute(attr, &ok);
  if (!ok) {
    rt.warn(fmt::format("cudaDeviceGetAttribute: attribute {} is not modelled; returning 0",
                        int(attr)));
    *value = 0;
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  Runtime& rt = Runtime::get();
  rt.synchronize_all();
  return rt.sticky();
}

cudaError_t cudaDeviceReset(void) {
  Runtime& rt = Runtime::get();
  rt.reset();
  return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  Runtime& rt = Runtime::get();
  switch (limit) {
    case cudaLimitStackSize:
      rt.dev().options().stack_bytes = uint32_t(value);
      return cudaSuccess;
    case cudaLimitMallocHeapSize:
      rt.dev().heap().set_limit(value);
      return cudaSuccess;
    case cudaLimitPrintfFifoSize:
      return cudaSuccess;
    default:
      return cudaSuccess;
  }
}

cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  Runtime& rt = Runtime::get();
  if (!value) return rt.ret(cudaErrorInvalidValue);
  switch (limit) {
    case cudaLimitStackSize:
      *value = rt.dev().options().stack_bytes;
      break;
    case cudaLimitMallocHeapSize:
      *value = rt.dev().heap().limit();
      break;
    case cudaLimitPrintfFifoSize:
      *value = 1 << 20;
      break;
    default:
      *value = 0;
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c) {
  if (!valid_cache_config(c)) return Runtime::get().ret(cudaErrorInvalidValue);
  return cudaSuccess;
}
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* c) {
  if (c) *c = cudaFuncCachePreferNone;
  return cudaSuccess;
}
cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache c) {
  Runtime& rt = Runtime::get();
  cudaError_t e;
  if (!kernel_for(rt, func, &e)) return rt.ret(e);
  if (!valid_cache_config(c)) return rt.ret(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* v) {
  if (!v) return cudaErrorInvalidValue;
  *v = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* v) {
  if (!v) return cudaErrorInvalidValue;
  *v = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  Runtime& rt = Runtime::get();
  if (!attr) return rt.ret(cudaErrorInvalidValue);
  cudaError_t e;
  auto* k = kernel_for(rt, func, &e);
  if (!k) return rt.ret(e);
  std::memset(attr, 0, sizeof *attr);
  const auto& f = k->prog->ir->funcs[k->prog->kernel_func];
  attr->sharedSizeBytes = k->prog->layout.static_shared;
  attr->constSizeBytes = 0;
  attr->localSizeBytes = k->prog->kernel_local_bytes;
  attr->maxThreadsPerBlock = int(rt.params().sm.max_threads_per_block);
  if (f.maxntid.x)
    attr->maxThreadsPerBlock = int(std::min<uint64_t>(
        attr->maxThreadsPerBlock, uint64_t(f.maxntid.x) * f.maxntid.y * f.maxntid.z));
  attr->numRegs = int(rt.registers_per_thread(*k));
  // The virtual architecture the PTX targets (`.target sm_80` -> 80), not the PTX ISA version:
  // CUB's PtxVersion() multiplies it by 10 and compares it with __CUDA_ARCH__ to pick its
  // tuning policy.
  attr->ptxVersion = 0;
  for (const std::string& t : k->prog->ir->target)
    if (t.rfind("sm_", 0) == 0) attr->ptxVersion = std::atoi(t.c_str() + 3);
  attr->binaryVersion = int(rt.params().gpu.cc_major * 10 + rt.params().gpu.cc_minor);
  attr->maxDynamicSharedSizeBytes =
      k->max_dynamic_shared >= 0
          ? k->max_dynamic_shared
          : int(rt.params().sm.max_shared_per_block - k->prog->layout.static_shared);
  attr->preferredShmemCarveout = k->carveout_pref;
  // Thread-block clusters: compile-time dimensions (__cluster_dims__ -> .reqnctapercluster).
  attr->clusterDimMustBeSet = f.explicitcluster && !f.reqnctapercluster.x;
  attr->requiredClusterWidth = int(f.reqnctapercluster.x);
  attr->requiredClusterHeight = int(f.reqnctapercluster.x ? f.reqnctapercluster.y : 0);
  attr->requiredClusterDepth = int(f.reqnctapercluster.x ? f.reqnctapercluster.z : 0);
  attr->nonPortableClusterSizeAllowed = k->nonportable_cluster;
  return cudaSuccess;
}

// What cuFuncSetAttribute accepts (cuda.h, CUDA 13; "Attempting to set a value on a read-only
// attribute will result in an error (CUDA_ERROR_INVALID_VALUE)"), per cudaFuncAttribute:
//   8  MaxDynamicSharedMemorySize      0 .. opt-in maximum - static shared memory
//   9  PreferredSharedMemoryCarveout   -1 (cudaSharedmemCarveoutDefault) .. 100 percent
//   10 ClusterDimMustBeSet             read-only (not in the settable list): InvalidValue
//   11-13 RequiredClusterWidth/Height/Depth
//                                      >= 0 (0 = none; the dimensions are checked at launch);
//                                      cudaErrorNotPermitted when the kernel has compile-time
//                                      cluster dimensions (__cluster_dims__). Accepted values
//                                      are not simulated: a launch uses its cluster attribute
//                                      or the compile-time dimensions.
//   14 NonPortableClusterSizeAllowed   0 or 1
//   15 ClusterSchedulingPolicyPreference
//                                      a cudaClusterSchedulingPolicy: Default, Spread,
//                                      LoadBalancing (0..2); not simulated
//   anything else (the read-only CUfunction_attribute values 0..7, cudaFuncAttributeMax and
//   beyond): cudaErrorInvalidValue.
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  Runtime& rt = Runtime::get();
  cudaError_t e;
  auto* k = kernel_for(rt, func, &e);
  if (!k) return rt.ret(e);
  const auto& sm = rt.params().sm;
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: {
      // CUDA Runtime API: static + this may not exceed cudaDevAttrMaxSharedMemoryPerBlockOptin.
      const uint64_t optin =
          sm.max_shared_per_block_optin ? sm.max_shared_per_block_optin : sm.max_shared_per_block;
      if (value < 0 || uint64_t(value) + k->prog->layout.static_shared > optin)
        return rt.ret(cudaErrorInvalidValue);
      k->max_dynamic_shared = value;
      return cudaSuccess;
    }
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      // -1 (cudaSharedmemCarveoutDefault) or a percentage of the largest carve-out.
      if (value < -1 || value > 100) return rt.ret(cudaErrorInvalidValue);
      k->carveout_pref = value;
      return cudaSuccess;
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
      if (value != 0 && value != 1) return rt.ret(cudaErrorInvalidValue);
      k->nonportable_cluster = value != 0;
      return cudaSuccess;
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
      if (value < 0) return rt.ret(cudaErrorInvalidValue);
      if (k->prog->ir->funcs[k->prog->kernel_func].reqnctapercluster.x)
        return rt.ret(cudaErrorNotPermitted);
      return cudaSuccess;
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
      if (value != cudaClusterSchedulingPolicyDefault &&
          value != cudaClusterSchedulingPolicySpread &&
          value != cudaClusterSchedulingPolicyLoadBalancing)
        return rt.ret(cudaErrorInvalidValue);
      return cudaSuccess;
    default:  // read-only (ClusterDimMustBeSet) or not a settable attribute
      return rt.ret(cudaErrorInvalidValue);
  }
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!numBlocks) return rt.ret(cudaErrorInvalidValue);
  cudaError_t e;
  auto* k = kernel_for(rt, func, &e);
  if (!k) return rt.ret(e);
  *numBlocks = rt.occupancy_blocks(*k->prog, blockSize, dynamicSMemSize);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveClusters(int* numClusters, const void* func,
                                           const cudaLaunchConfig_t* config) {
  // Clusters of the launch (its cluster attribute, else the kernel's __cluster_dims__) that can
  // be resident at once as simtlab places them: one CTA of a cluster per SM of one GPC, so a
  // GPC of n SMs holding P CTAs each takes floor(n * P / size) clusters (size <= n).
  Runtime& rt = Runtime::get();
  if (!numClusters || !config) return rt.ret(cudaErrorInvalidValue);
  cudaError_t e;
  auto* k = kernel_for(rt, func, &e);
  if (!k) return rt.ret(e);
  const auto& f = k->prog->ir->funcs[k->prog->kernel_func];
  simtlab::Dim3 c = f.reqnctapercluster.x ? f.reqnctapercluster : simtlab::Dim3{1, 1, 1};
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == cudaLaunchAttributeClusterDimension) {
      const auto& d = config->attrs[i].val.clusterDim;
      c = simtlab::Dim3{d.x, d.y, d.z};
    }
  const uint64_t size = c.count();
  const uint32_t limit = k->nonportable_cluster ? rt.params().gpu.max_cluster_size_nonportable
                                                : rt.params().gpu.max_cluster_size;
  if (size == 0 || size > limit) return rt.ret(cudaErrorInvalidClusterSize);
  const dim3 b = config->blockDim;
  const uint64_t per_sm =
      uint64_t(rt.occupancy_blocks(*k->prog, int(b.x * b.y * b.z), config->dynamicSmemBytes));
  const uint32_t n = rt.params().gpu.num_sms, G = std::max(rt.params().gpu.gpcs, 1u);
  uint64_t total = 0;
  for (uint32_t g = 0; g < G; ++g) {
    const uint32_t sms = n / G + (g < n % G ? 1 : 0);
    if (size <= sms) total += sms * per_sm / size;
  }
  *numClusters = int(total);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func,
                                                          int blockSize, size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                dynamicSMemSize, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, const void* func,
                                                      int numBlocks, int blockSize) {
  Runtime& rt = Runtime::get();
  if (!dynamicSmemSize || numBlocks <= 0) return rt.ret(cudaErrorInvalidValue);
  cudaError_t e;
  auto* k = kernel_for(rt, func, &e);
  if (!k) return rt.ret(e);
  const size_t per = rt.params().sm.shared_bytes / size_t(numBlocks);
  const size_t st = k->prog->layout.static_shared;
  *dynamicSmemSize =
      per > st ? std::min<size_t>(per - st, rt.params().sm.max_shared_per_block - st) : 0;
  return cudaSuccess;
}

}  // extern "C"
