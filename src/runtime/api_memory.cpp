// Memory management API: device, pinned, managed and pitched allocations, copies, memsets,
// symbols. Copies are synchronous (the device is idle whenever host code runs, because
// launches complete before they return), which satisfies every stream-ordering rule.
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "runtime/runtime.h"

using simtlab::Addr;
using simtlab::runtime::Runtime;

namespace {

/// Copy helper covering every direction; host pointers may also be pinned/managed memory,
/// which is device-visible at the same address.
cudaError_t do_copy(Runtime& rt, void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                    const char* api) {
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return rt.ret(cudaErrorInvalidValue);
  auto& dev = rt.dev();
  const Addr d = reinterpret_cast<Addr>(dst), s = reinterpret_cast<Addr>(src);
  const bool ddev = dev.valid(d, n), sdev = dev.valid(s, n);
  if (kind == cudaMemcpyDefault) {
    kind = ddev ? (sdev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                : (sdev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  }
  try {
    switch (kind) {
      case cudaMemcpyHostToHost:
        std::memmove(dst, src, n);
        break;
      case cudaMemcpyHostToDevice:
        if (!ddev) {
          rt.warn(fmt::format("{}: destination {} is not {} bytes of device memory ({})", api, dst,
                              n, dev.memory().describe(d)));
          return rt.ret(cudaErrorInvalidValue);
        }
        dev.write(d, src, n);
        dev.engine()->copy_engine_write(d, n);  // the copy's writes pass through the L2
        break;
      case cudaMemcpyDeviceToHost:
        if (!sdev) {
          rt.warn(fmt::format("{}: source {} is not {} bytes of device memory ({})", api, src, n,
                              dev.memory().describe(s)));
          return rt.ret(cudaErrorInvalidValue);
        }
        dev.read(dst, s, n);
        break;
      case cudaMemcpyDeviceToDevice:
        if (!sdev || !ddev) {
          rt.warn(
              fmt::format("{}: {} is not {} bytes of device memory", api, !sdev ? src : dst, n));
          return rt.ret(cudaErrorInvalidValue);
        }
        dev.copy(d, s, n);
        dev.engine()->copy_engine_write(d, n);
        break;
      default:
        return rt.ret(cudaErrorInvalidMemcpyDirection);
    }
  } catch (const std::exception& e) {
    rt.warn(fmt::format("{}: {}", api, e.what()));
    return rt.ret(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t do_copy2d(Runtime& rt, void* dst, size_t dpitch, const void* src, size_t spitch,
                      size_t width, size_t height, cudaMemcpyKind kind, const char* api) {
  if (width > dpitch || width > spitch) return rt.ret(cudaErrorInvalidPitchValue);
  for (size_t r = 0; r < height; ++r) {
    const cudaError_t e = do_copy(rt, static_cast<char*>(dst) + r * dpitch,
                                  static_cast<const char*>(src) + r * spitch, width, kind, api);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t do_memset(Runtime& rt, void* p, int value, size_t n, const char* api) {
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (n == 0) return cudaSuccess;
  const Addr a = reinterpret_cast<Addr>(p);
  if (!rt.dev().valid(a, n)) {
    rt.warn(fmt::format("{}: {} is not {} bytes of device memory ({})", api, p, n,
                        rt.dev().memory().describe(a)));
    return rt.ret(cudaErrorInvalidValue);
  }
  rt.dev().fill(a, uint8_t(value), n);
  rt.dev().engine()->copy_engine_write(a, n);
  return cudaSuccess;
}

/// Drains pending work and resolves [offset, offset + count) of a registered variable to a
/// device address; cudaErrorInvalidSymbol / cudaErrorInvalidValue otherwise.
cudaError_t symbol_range(Runtime& rt, const void* symbol, size_t count, size_t offset, Addr* a) {
  rt.drain();
  size_t size = 0;
  const cudaError_t e = rt.var_address(symbol, a, &size);
  if (e != cudaSuccess) return e;
  if (offset + count > size) return cudaErrorInvalidValue;
  *a += offset;
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  Runtime& rt = Runtime::get();
  if (!devPtr) return rt.ret(cudaErrorInvalidValue);
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  const Addr a = rt.dev().malloc(size);
  if (!a) {
    *devPtr = nullptr;
    return rt.ret(cudaErrorMemoryAllocation);
  }
  *devPtr = reinterpret_cast<void*>(a);
  return cudaSuccess;
}

cudaError_t cudaFree(void* devPtr) {
  Runtime& rt = Runtime::get();
  if (!devPtr) return cudaSuccess;
  rt.drain();                                    // cudaFree synchronises the device
  if (rt.host_free(devPtr)) return cudaSuccess;  // tolerated by CUDA for mapped memory
  if (!rt.dev().free(reinterpret_cast<Addr>(devPtr))) {
    rt.warn(fmt::format("cudaFree({}): not a pointer returned by cudaMalloc", devPtr));
    return rt.ret(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  Runtime& rt = Runtime::get();
  if (!devPtr || !pitch) return rt.ret(cudaErrorInvalidValue);
  // 512-byte pitch alignment (texturePitchAlignment-like). Sizes whose pitch or total would
  // not fit in size_t cannot be allocated.
  if (width > SIZE_MAX - 511) {
    *devPtr = nullptr;
    return rt.ret(cudaErrorMemoryAllocation);
  }
  const size_t p = (width + 511) / 512 * 512;
  *pitch = p ? p : 512;
  if (height > SIZE_MAX / *pitch) {
    *devPtr = nullptr;
    return rt.ret(cudaErrorMemoryAllocation);
  }
  return cudaMalloc(devPtr, *pitch * height);
}

cudaError_t cudaMalloc3D(cudaPitchedPtr* pitchedDevPtr, cudaExtent extent) {
  Runtime& rt = Runtime::get();
  if (!pitchedDevPtr) return rt.ret(cudaErrorInvalidValue);
  if (extent.depth && extent.height > SIZE_MAX / extent.depth)
    return rt.ret(cudaErrorMemoryAllocation);
  size_t pitch = 0;
  void* p = nullptr;
  const cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, extent.height * extent.depth);
  if (e != cudaSuccess) return e;
  pitchedDevPtr->ptr = p;
  pitchedDevPtr->pitch = pitch;
  pitchedDevPtr->xsize = extent.width;
  pitchedDevPtr->ysize = extent.height;
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  Runtime& rt = Runtime::get();
  if (!ptr) return rt.ret(cudaErrorInvalidValue);
  *ptr = rt.host_alloc(size, 0);
  return *ptr ? cudaSuccess : rt.ret(cudaErrorMemoryAllocation);
}

cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!pHost) return rt.ret(cudaErrorInvalidValue);
  *pHost = rt.host_alloc(size, flags);
  return *pHost ? cudaSuccess : rt.ret(cudaErrorMemoryAllocation);
}

cudaError_t cudaFreeHost(void* ptr) {
  Runtime& rt = Runtime::get();
  if (!ptr) return cudaSuccess;
  return rt.host_free(ptr) ? cudaSuccess : rt.ret(cudaErrorInvalidValue);
}

cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!pDevice || !rt.is_pinned(pHost)) return rt.ret(cudaErrorInvalidValue);
  *pDevice = pHost;  // unified addressing: the same address works on the device
  return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int* pFlags, void* pHost) {
  Runtime& rt = Runtime::get();
  if (!pFlags || !rt.is_pinned(pHost)) return rt.ret(cudaErrorInvalidValue);
  *pFlags = 0;
  return cudaSuccess;
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!ptr || !size) return rt.ret(cudaErrorInvalidValue);
  rt.dev().memory().map_host(ptr, size, simtlab::func::AllocKind::host_mapped,
                             "registered host memory");
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
  Runtime& rt = Runtime::get();
  return rt.dev().memory().release(reinterpret_cast<Addr>(ptr)) ? cudaSuccess
                                                                : rt.ret(cudaErrorInvalidValue);
}

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!devPtr || size == 0) return rt.ret(cudaErrorInvalidValue);
  *devPtr = rt.managed_alloc(size);
  return *devPtr ? cudaSuccess : rt.ret(cudaErrorMemoryAllocation);
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  Runtime& rt = Runtime::get();
  auto& m = rt.dev().memory();
  if (free_bytes) *free_bytes = m.capacity() - m.bytes_in_use();
  if (total) *total = m.capacity();
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  Runtime& rt = Runtime::get();
  if (!attr) return rt.ret(cudaErrorInvalidValue);
  std::memset(attr, 0, sizeof *attr);
  const auto* a = rt.dev().memory().find(reinterpret_cast<Addr>(ptr));
  attr->device = 0;
  if (!a) {
    attr->type = cudaMemoryTypeUnregistered;
    attr->hostPointer = const_cast<void*>(ptr);
    return cudaSuccess;
  }
  using simtlab::func::AllocKind;
  attr->type = a->kind == AllocKind::managed       ? cudaMemoryTypeManaged
               : a->kind == AllocKind::host_mapped ? cudaMemoryTypeHost
                                                   : cudaMemoryTypeDevice;
  attr->devicePointer = const_cast<void*>(ptr);
  if (attr->type != cudaMemoryTypeDevice) attr->hostPointer = const_cast<void*>(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  rt.synchronize_all();
  return do_copy(rt, dst, src, count, kind, "cudaMemcpy");
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_op(stream, "memcpy",
                    [=](cudaStream_t st) { return cudaMemcpyAsync(dst, src, count, kind, st); }))
    return cudaSuccess;
  if (rt.deferred(stream)) {
    // Check the pointers now (as CUDA does at the call); copy when the stream reaches it.
    const bool dd = rt.dev().valid(reinterpret_cast<Addr>(dst), count);
    const bool sd = rt.dev().valid(reinterpret_cast<Addr>(src), count);
    if ((kind == cudaMemcpyHostToDevice && !dd) || (kind == cudaMemcpyDeviceToHost && !sd) ||
        (kind == cudaMemcpyDeviceToDevice && (!dd || !sd))) {
      rt.warn(fmt::format("cudaMemcpyAsync: {} is not {} bytes of device memory",
                          (kind == cudaMemcpyDeviceToHost ? src : dst), count));
      return rt.ret(cudaErrorInvalidValue);
    }
    rt.enqueue_action(stream, [&rt, dst, src, count, kind] {
      do_copy(rt, dst, src, count, kind, "cudaMemcpyAsync");
    });
    return cudaSuccess;
  }
  rt.drain();
  return do_copy(rt, dst, src, count, kind, "cudaMemcpyAsync");
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind) {
  Runtime::get().drain();
  return do_copy2d(Runtime::get(), dst, dpitch, src, spitch, width, height, kind, "cudaMemcpy2D");
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_op(stream, "memcpy", [=](cudaStream_t st) {
        return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, st);
      }))
    return cudaSuccess;
  rt.drain();
  return do_copy2d(Runtime::get(), dst, dpitch, src, spitch, width, height, kind,
                   "cudaMemcpy2DAsync");
}

cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  Runtime& rt = Runtime::get();
  if (dstDevice != 0 || srcDevice != 0) return rt.ret(cudaErrorInvalidDevice);
  return do_copy(rt, dst, src, count, cudaMemcpyDeviceToDevice, "cudaMemcpyPeer");
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice,
                                size_t count, cudaStream_t stream) {
  return cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count);
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  Runtime& rt = Runtime::get();
  rt.drain();
  return do_memset(rt, devPtr, value, count, "cudaMemset");
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_op(stream, "memset",
                    [=](cudaStream_t st) { return cudaMemsetAsync(devPtr, value, count, st); }))
    return cudaSuccess;
  if (rt.deferred(stream)) {
    if (!rt.dev().valid(reinterpret_cast<Addr>(devPtr), count)) {
      rt.warn(fmt::format("cudaMemsetAsync: {} is not {} bytes of device memory", devPtr, count));
      return rt.ret(cudaErrorInvalidValue);
    }
    rt.enqueue_action(stream, [&rt, devPtr, value, count] {
      do_memset(rt, devPtr, value, count, "cudaMemsetAsync");
    });
    return cudaSuccess;
  }
  rt.drain();
  return do_memset(rt, devPtr, value, count, "cudaMemsetAsync");
}

cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  Runtime& rt = Runtime::get();
  if (width > pitch && height > 1) return rt.ret(cudaErrorInvalidPitchValue);
  rt.drain();
  for (size_t r = 0; r < height; ++r) {
    const cudaError_t e =
        do_memset(rt, static_cast<char*>(devPtr) + r * pitch, value, width, "cudaMemset2D");
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_op(stream, "memset", [=](cudaStream_t st) {
        return cudaMemset2DAsync(devPtr, pitch, value, width, height, st);
      }))
    return cudaSuccess;
  return cudaMemset2D(devPtr, pitch, value, width, height);
}

cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent e) {
  for (size_t z = 0; z < e.depth; ++z) {
    const cudaError_t r = cudaMemset2D(static_cast<char*>(p.ptr) + z * p.pitch * p.ysize, p.pitch,
                                       value, e.width, e.height);
    if (r != cudaSuccess) return r;
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               cudaMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  Addr a = 0;
  if (const cudaError_t e = symbol_range(rt, symbol, count, offset, &a); e != cudaSuccess)
    return rt.ret(e);
  if (kind == cudaMemcpyDefault)
    kind = rt.dev().valid(reinterpret_cast<Addr>(src), count) ? cudaMemcpyDeviceToDevice
                                                              : cudaMemcpyHostToDevice;
  return do_copy(rt, reinterpret_cast<void*>(a), src, count, kind, "cudaMemcpyToSymbol");
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_of(stream)) {
    Addr a = 0;
    if (const cudaError_t e = symbol_range(rt, symbol, count, offset, &a); e != cudaSuccess)
      return rt.ret(e);
    void* dst = reinterpret_cast<void*>(a);
    if (kind == cudaMemcpyDefault) kind = cudaMemcpyHostToDevice;
    rt.capture_op(stream, "memcpy",
                  [=](cudaStream_t st) { return cudaMemcpyAsync(dst, src, count, kind, st); });
    return cudaSuccess;
  }
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 cudaMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  Addr a = 0;
  if (const cudaError_t e = symbol_range(rt, symbol, count, offset, &a); e != cudaSuccess)
    return rt.ret(e);
  if (kind == cudaMemcpyDefault)
    kind = rt.dev().valid(reinterpret_cast<Addr>(dst), count) ? cudaMemcpyDeviceToDevice
                                                              : cudaMemcpyDeviceToHost;
  return do_copy(rt, dst, reinterpret_cast<const void*>(a), count, kind, "cudaMemcpyFromSymbol");
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_of(stream)) {
    Addr a = 0;
    if (const cudaError_t e = symbol_range(rt, symbol, count, offset, &a); e != cudaSuccess)
      return rt.ret(e);
    const void* src = reinterpret_cast<const void*>(a);
    if (kind == cudaMemcpyDefault) kind = cudaMemcpyDeviceToHost;
    rt.capture_op(stream, "memcpy",
                  [=](cudaStream_t st) { return cudaMemcpyAsync(dst, src, count, kind, st); });
    return cudaSuccess;
  }
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  Runtime& rt = Runtime::get();
  if (!devPtr) return rt.ret(cudaErrorInvalidValue);
  Addr a = 0;
  const cudaError_t e = rt.var_address(symbol, &a, nullptr);
  if (e != cudaSuccess) return rt.ret(e);
  *devPtr = reinterpret_cast<void*>(a);
  return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  Runtime& rt = Runtime::get();
  if (!size) return rt.ret(cudaErrorInvalidValue);
  Addr a = 0;
  const cudaError_t e = rt.var_address(symbol, &a, size);
  return e == cudaSuccess ? e : rt.ret(e);
}

cudaError_t cudaMemPrefetchAsync(const void*, size_t, cudaMemLocation, unsigned int, cudaStream_t) {
  return cudaSuccess;  // managed memory is always resident in simulation
}

cudaError_t cudaMemAdvise(const void*, size_t, cudaMemoryAdvise, cudaMemLocation) {
  return cudaSuccess;
}

}  // extern "C"
