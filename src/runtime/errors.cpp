#include "runtime/errors.h"

#include <map>
#include <string>

#include "runtime/runtime.h"
#include "runtime/stubs.h"

namespace simtlab::runtime {

namespace {
struct Row {
  int value;
  const char* name;
};
// Generated at build time from the toolkit's driver_types.h (scripts/gen_cuda_errors.py).
constexpr Row kNames[] = {
#include "cuda_errors.inc"
};

// Messages as the CUDA runtime prints them, for the errors programs meet in practice.
const std::map<int, const char*>& messages() {
  static const std::map<int, const char*> m = {
      {cudaSuccess, "no error"},
      {cudaErrorInvalidValue, "invalid argument"},
      {cudaErrorMemoryAllocation, "out of memory"},
      {cudaErrorInitializationError, "initialization error"},
      {cudaErrorMissingConfiguration, "__global__ function call is not configured"},
      {cudaErrorInvalidConfiguration, "invalid configuration argument"},
      {cudaErrorInvalidPitchValue, "invalid pitch argument"},
      {cudaErrorInvalidSymbol, "invalid device symbol"},
      {cudaErrorInvalidDevicePointer, "invalid device pointer"},
      {cudaErrorInvalidTexture, "invalid texture reference"},
      {cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"},
      {cudaErrorInvalidDeviceFunction, "invalid device function"},
      {cudaErrorNoDevice, "no CUDA-capable device is detected"},
      {cudaErrorInvalidDevice, "invalid device ordinal"},
      {cudaErrorInvalidKernelImage, "device kernel image is invalid"},
      {cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device"},
      {cudaErrorInvalidPtx, "a PTX JIT compilation failed"},
      {cudaErrorUnsupportedPtxVersion,
       "the provided PTX was compiled with an unsupported toolchain."},
      {cudaErrorInvalidResourceHandle, "invalid resource handle"},
      {cudaErrorNotReady, "device not ready"},
      {cudaErrorIllegalAddress, "an illegal memory access was encountered"},
      {cudaErrorLaunchOutOfResources, "too many resources requested for launch"},
      {cudaErrorLaunchTimeout, "the launch timed out and was terminated"},
      {cudaErrorAssert, "device-side assert triggered"},
      {cudaErrorLaunchFailure, "unspecified launch failure"},
      {cudaErrorNotSupported, "operation not supported"},
  };
  return m;
}
}  // namespace

const char* error_name(cudaError_t e) {
  for (const Row& r : kNames)
    if (r.value == int(e)) return r.name;
  return "cudaErrorUnknown";
}

const char* error_string(cudaError_t e) {
  auto it = messages().find(int(e));
  if (it != messages().end()) return it->second;
  for (const Row& r : kNames)
    if (r.value == int(e)) return r.name;
  return "unrecognized error code";
}

}  // namespace simtlab::runtime

extern "C" int simtlab_cudart_unsupported(const char* api) {
  simtlab::runtime::Runtime::get().unsupported(api);
  return int(cudaErrorNotSupported);
}
