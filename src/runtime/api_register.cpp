// Registration and launch ABI used by nvcc-generated host code (crt/host_runtime.h,
// crt/device_functions.h of the CUDA 13 toolkit; see /work/shared/spec/cuda-runtime-and-fatbin.md).
#include <cuda_runtime_api.h>

#include "runtime/runtime.h"

using simtlab::runtime::CallConfig;
using simtlab::runtime::Runtime;

extern "C" {

void** __cudaRegisterFatBinary(void* fatCubin) { return Runtime::get().register_fatbin(fatCubin); }

void __cudaRegisterFatBinaryEnd(void** handle) { (void)handle; }

void __cudaUnregisterFatBinary(void** handle) { Runtime::get().unregister_fatbin(handle); }

char __cudaInitModule(void** handle) {
  std::string why;
  auto* fb = reinterpret_cast<simtlab::runtime::FatbinRec*>(handle);
  return Runtime::get().ensure_loaded(*fb, &why) == cudaSuccess ? 1 : 0;
}

void __cudaRegisterFunction(void** handle, const char* hostFun, char* deviceFun,
                            const char* deviceName, int thread_limit, uint3* tid, uint3* bid,
                            dim3* bDim, dim3* gDim, int* wSize) {
  Runtime::get().register_function(handle, hostFun, deviceName ? deviceName : deviceFun);
}

void __cudaRegisterVar(void** handle, char* hostVar, char* deviceAddress, const char* deviceName,
                       int ext, size_t size, int constant, int global) {
  Runtime::get().register_var(handle, hostVar, deviceName ? deviceName : deviceAddress, size,
                              constant != 0, false);
}

void __cudaRegisterManagedVar(void** handle, void** hostVarPtrAddress, char* deviceAddress,
                              const char* deviceName, int ext, size_t size, int constant,
                              int global) {
  Runtime::get().register_var(handle, hostVarPtrAddress, deviceName ? deviceName : deviceAddress,
                              size, constant != 0, true);
}

void __cudaRegisterHostVar(void** handle, const char* deviceName, char* hostVar, size_t size) {
  (void)handle;
  (void)deviceName;
  (void)hostVar;
  (void)size;
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st* stream) {
  Runtime::get().call_stack().push_back(CallConfig{gridDim, blockDim, sharedMem, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                       void* stream) {
  auto& st = Runtime::get().call_stack();
  if (st.empty()) return cudaErrorMissingConfiguration;
  const CallConfig c = st.back();
  st.pop_back();
  if (gridDim) *gridDim = c.grid;
  if (blockDim) *blockDim = c.block;
  if (sharedMem) *sharedMem = c.shared;
  if (stream) *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* out, const void* stub) {
  Runtime& rt = Runtime::get();
  auto* k = rt.kernel_by_stub(stub);
  if (!k) return rt.ret(cudaErrorInvalidDeviceFunction);
  if (out) *out = reinterpret_cast<cudaKernel_t>(k);
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                               size_t sharedMem, cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> g(rt.mutex());
  auto* k = rt.kernel_by_handle(kernel);
  if (!k) return rt.ret(cudaErrorInvalidDeviceFunction);
  return rt.launch(*k, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                    size_t sharedMem, cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                             size_t sharedMem, cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> g(rt.mutex());
  auto* k = rt.kernel_by_handle(func);
  if (!k) return rt.ret(cudaErrorInvalidDeviceFunction);
  return rt.launch(*k, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                  size_t sharedMem, cudaStream_t stream) {
  return cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  Runtime& rt = Runtime::get();
  if (!config) return rt.ret(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> g(rt.mutex());
  auto* k = rt.kernel_by_handle(func);
  if (!k) return rt.ret(cudaErrorInvalidDeviceFunction);
  bool cooperative = false;
  simtlab::Dim3 cluster{0, 0, 0};  // none given
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    if (a.id == cudaLaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
    if (a.id == cudaLaunchAttributeClusterDimension) {
      cluster = simtlab::Dim3{a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z};
      if (!cluster.x || !cluster.y || !cluster.z) return rt.ret(cudaErrorInvalidClusterSize);
    }
  }
  return rt.launch(*k, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                   config->stream, cooperative, cluster);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                     void** args) {
  return cudaLaunchKernelExC(config, func, args);
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                        size_t sharedMem, cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> g(rt.mutex());
  auto* k = rt.kernel_by_handle(func);
  if (!k) return rt.ret(cudaErrorInvalidDeviceFunction);
  return rt.launch(*k, gridDim, blockDim, args, sharedMem, stream, /*cooperative=*/true);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim,
                                             void** args, size_t sharedMem, cudaStream_t stream) {
  return cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem, stream);
}

}  // extern "C"
