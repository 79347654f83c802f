// Driver entry points (cudaGetDriverEntryPoint{,ByVersion}): programs that use tensor maps
// fetch cuTensorMapEncodeTiled this way rather than linking libcuda (which simtlab does not
// replace). The runtime hands out its own implementations of
//   cuTensorMapEncodeTiled  (CUtensorMap in simtlab's encoding, src/func/tensor_map.h; the
//                            driver's argument checks, CUDA_ERROR_INVALID_VALUE with a message)
//   cuGetErrorString / cuGetErrorName
// and for every other symbol returns cudaSuccess with a NULL pointer and
// cudaDriverEntryPointSymbolNotFound, as the runtime documents, with a warning naming it.
#include <cuda.h>

#include <cstring>
#include <string>

#include <fmt/format.h>

#include "func/tensor_map.h"
#include "runtime/runtime.h"

using simtlab::runtime::Runtime;

namespace {

CUresult CUDAAPI tensor_map_encode_tiled(CUtensorMap* tm, CUtensorMapDataType dtype,
                                         cuuint32_t rank, void* addr, const cuuint64_t* dims,
                                         const cuuint64_t* strides, const cuuint32_t* box,
                                         const cuuint32_t* estride, CUtensorMapInterleave il,
                                         CUtensorMapSwizzle sw, CUtensorMapL2promotion l2,
                                         CUtensorMapFloatOOBfill oob) {
  Runtime& rt = Runtime::get();
  std::string why;
  simtlab::func::TensorMapBits m;
  if (!tm)
    why = "tensorMap is NULL";
  else if (reinterpret_cast<uintptr_t>(tm) % 64)
    why = "tensorMap is not 64-byte aligned";
  else
    why = simtlab::func::encode_tensor_map(
        m, uint32_t(dtype), rank, reinterpret_cast<uint64_t>(addr),
        reinterpret_cast<const uint64_t*>(dims), reinterpret_cast<const uint64_t*>(strides), box,
        estride, uint32_t(il), uint32_t(sw), uint32_t(l2), uint32_t(oob));
  if (!why.empty()) {
    rt.warn(fmt::format("cuTensorMapEncodeTiled: {} (CUDA_ERROR_INVALID_VALUE)", why));
    return CUDA_ERROR_INVALID_VALUE;
  }
  static_assert(sizeof(CUtensorMap) == 128);
  std::memset(tm, 0, sizeof *tm);
  std::memcpy(tm, &m, sizeof m);
  return CUDA_SUCCESS;
}

struct ErrName {
  CUresult r;
  const char* name;
  const char* text;
};
constexpr ErrName kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
};

CUresult CUDAAPI get_error_string(CUresult r, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  for (const ErrName& e : kErrors)
    if (e.r == r) return *s = e.text, CUDA_SUCCESS;
  *s = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI get_error_name(CUresult r, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  for (const ErrName& e : kErrors)
    if (e.r == r) return *s = e.name, CUDA_SUCCESS;
  *s = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

cudaError_t entry_point(const char* api, const char* symbol, void** fp,
                        cudaDriverEntryPointQueryResult* status) {
  Runtime& rt = Runtime::get();
  if (!symbol || !fp) return rt.ret(cudaErrorInvalidValue);
  void* f = nullptr;
  if (!std::strcmp(symbol, "cuTensorMapEncodeTiled"))
    f = reinterpret_cast<void*>(&tensor_map_encode_tiled);
  else if (!std::strcmp(symbol, "cuGetErrorString"))
    f = reinterpret_cast<void*>(&get_error_string);
  else if (!std::strcmp(symbol, "cuGetErrorName"))
    f = reinterpret_cast<void*>(&get_error_name);
  *fp = f;
  if (status) *status = f ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  if (!f)
    rt.warn(fmt::format("{}: driver symbol '{}' is not provided by simtlab (symbol not found)", api,
                        symbol));
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** fp, unsigned long long,
                                    cudaDriverEntryPointQueryResult* status) {
  return entry_point("cudaGetDriverEntryPoint", symbol, fp, status);
}
cudaError_t cudaGetDriverEntryPoint_ptsz(const char* symbol, void** fp, unsigned long long,
                                         cudaDriverEntryPointQueryResult* status) {
  return entry_point("cudaGetDriverEntryPoint", symbol, fp, status);
}
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fp, unsigned int,
                                             unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
  return entry_point("cudaGetDriverEntryPointByVersion", symbol, fp, status);
}
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char* symbol, void** fp, unsigned int,
                                                  unsigned long long,
                                                  cudaDriverEntryPointQueryResult* status) {
  return entry_point("cudaGetDriverEntryPointByVersion", symbol, fp, status);
}

}  // extern "C"
