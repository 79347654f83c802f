// Texture and surface objects and CUDA arrays. Arrays are stored pitch-linear in device
// memory (the functional model does not need the hardware's block-linear layout).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "func/texture.h"
#include "runtime/runtime.h"

using simtlab::Addr;
using simtlab::func::TextureDesc;
using simtlab::runtime::Runtime;

namespace {

struct SimArray {
  Addr base = 0;
  size_t width = 0, height = 1, depth = 1, pitch = 0;
  cudaChannelFormatDesc desc{};
  size_t elem() const { return size_t((desc.x + desc.y + desc.z + desc.w) / 8); }
};

std::vector<std::unique_ptr<SimArray>>& arrays() {
  static std::vector<std::unique_ptr<SimArray>> a;
  return a;
}

}  // namespace

void simtlab::runtime::forget_arrays() { arrays().clear(); }

namespace {

SimArray* find_array(const void* a) {
  for (auto& p : arrays())
    if (p.get() == a) return p.get();
  return nullptr;
}

void set_format(TextureDesc& t, const cudaChannelFormatDesc& d) {
  t.channels = (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0);
  if (!t.channels) t.channels = 1;
  t.channel_bits = uint32_t(d.x ? d.x : 32);
  t.kind = d.f == cudaChannelFormatKindFloat      ? simtlab::func::TexChannelKind::flt
           : d.f == cudaChannelFormatKindSigned   ? simtlab::func::TexChannelKind::sint
           : d.f == cudaChannelFormatKindUnsigned ? simtlab::func::TexChannelKind::uint
                                                  : simtlab::func::TexChannelKind::none;
}

simtlab::func::TexAddressMode mode(cudaTextureAddressMode m) {
  switch (m) {
    case cudaAddressModeWrap:
      return simtlab::func::TexAddressMode::wrap;
    case cudaAddressModeMirror:
      return simtlab::func::TexAddressMode::mirror;
    case cudaAddressModeBorder:
      return simtlab::func::TexAddressMode::border;
    default:
      return simtlab::func::TexAddressMode::clamp;
  }
}

cudaError_t describe_resource(Runtime& rt, const cudaResourceDesc* r, TextureDesc& t) {
  switch (r->resType) {
    case cudaResourceTypeLinear:
      t.base = reinterpret_cast<Addr>(r->res.linear.devPtr);
      set_format(t, r->res.linear.desc);
      t.dims = 1;
      t.width = r->res.linear.sizeInBytes / std::max<uint32_t>(1, t.elem_bytes());
      t.pitch = r->res.linear.sizeInBytes;
      return cudaSuccess;
    case cudaResourceTypePitch2D:
      t.base = reinterpret_cast<Addr>(r->res.pitch2D.devPtr);
      set_format(t, r->res.pitch2D.desc);
      t.dims = 2;
      t.width = r->res.pitch2D.width;
      t.height = r->res.pitch2D.height;
      t.pitch = r->res.pitch2D.pitchInBytes;
      return cudaSuccess;
    case cudaResourceTypeArray: {
      SimArray* a = find_array(r->res.array.array);
      if (!a) return cudaErrorInvalidResourceHandle;
      t.base = a->base;
      set_format(t, a->desc);
      t.dims = a->depth > 1 ? 3 : a->height > 1 ? 2 : 1;
      t.width = a->width;
      t.height = a->height;
      t.depth = a->depth;
      t.pitch = a->pitch;
      return cudaSuccess;
    }
    default:
      rt.unsupported("texture/surface objects over mipmapped arrays");
      return cudaErrorNotSupported;
  }
}

}  // namespace

extern "C" {

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  cudaChannelFormatDesc d;
  d.x = x;
  d.y = y;
  d.z = z;
  d.w = w;
  d.f = f;
  return d;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* obj, const cudaResourceDesc* res,
                                    const cudaTextureDesc* tex, const cudaResourceViewDesc* view) {
  Runtime& rt = Runtime::get();
  if (!obj || !res || !tex) return rt.ret(cudaErrorInvalidValue);
  TextureDesc t;
  const cudaError_t e = describe_resource(rt, res, t);
  if (e != cudaSuccess) return rt.ret(e);
  for (int i = 0; i < 3; ++i) t.address[i] = mode(tex->addressMode[i]);
  t.filter = tex->filterMode == cudaFilterModeLinear ? simtlab::func::TexFilter::linear
                                                     : simtlab::func::TexFilter::point;
  t.normalized_coords = tex->normalizedCoords != 0;
  t.read_normalized_float = tex->readMode == cudaReadModeNormalizedFloat;
  *obj = rt.dev().textures().create(t);
  return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t obj) {
  Runtime& rt = Runtime::get();
  return rt.dev().textures().destroy(obj) ? cudaSuccess : rt.ret(cudaErrorInvalidValue);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* obj, const cudaResourceDesc* res) {
  Runtime& rt = Runtime::get();
  if (!obj || !res) return rt.ret(cudaErrorInvalidValue);
  TextureDesc t;
  t.is_surface = true;
  const cudaError_t e = describe_resource(rt, res, t);
  if (e != cudaSuccess) return rt.ret(e);
  *obj = rt.dev().textures().create(t);
  return cudaSuccess;
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t obj) {
  Runtime& rt = Runtime::get();
  return rt.dev().textures().destroy(obj) ? cudaSuccess : rt.ret(cudaErrorInvalidValue);
}

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                            size_t height, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!array || !desc || !width) return rt.ret(cudaErrorInvalidValue);
  // Dimensions beyond the device's texture limits are invalid (as cuArrayCreate reports).
  cudaDeviceProp prop;
  rt.fill_properties(&prop);
  if (height == 0 ? width > size_t(prop.maxTexture1D)
                  : width > size_t(prop.maxTexture2D[0]) || height > size_t(prop.maxTexture2D[1]))
    return rt.ret(cudaErrorInvalidValue);
  auto a = std::make_unique<SimArray>();
  a->desc = *desc;
  a->width = width;
  a->height = height ? height : 1;
  a->pitch = a->width * std::max<size_t>(1, a->elem());
  a->base = rt.dev().malloc(a->pitch * a->height);
  if (!a->base) return rt.ret(cudaErrorMemoryAllocation);
  *array = reinterpret_cast<cudaArray_t>(a.get());
  arrays().push_back(std::move(a));
  return cudaSuccess;
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                              cudaExtent extent, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!array || !desc || !extent.width) return rt.ret(cudaErrorInvalidValue);
  cudaDeviceProp prop;
  rt.fill_properties(&prop);
  const bool too_big = extent.depth ? extent.width > size_t(prop.maxTexture3D[0]) ||
                                          extent.height > size_t(prop.maxTexture3D[1]) ||
                                          extent.depth > size_t(prop.maxTexture3D[2])
                       : extent.height ? extent.width > size_t(prop.maxTexture2D[0]) ||
                                             extent.height > size_t(prop.maxTexture2D[1])
                                       : extent.width > size_t(prop.maxTexture1D);
  if (too_big) return rt.ret(cudaErrorInvalidValue);
  auto a = std::make_unique<SimArray>();
  a->desc = *desc;
  a->width = extent.width;
  a->height = extent.height ? extent.height : 1;
  a->depth = extent.depth ? extent.depth : 1;
  a->pitch = a->width * std::max<size_t>(1, a->elem());
  a->base = rt.dev().malloc(a->pitch * a->height * a->depth);
  if (!a->base) return rt.ret(cudaErrorMemoryAllocation);
  *array = reinterpret_cast<cudaArray_t>(a.get());
  arrays().push_back(std::move(a));
  return cudaSuccess;
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  Runtime& rt = Runtime::get();
  if (!array) return cudaSuccess;
  auto& v = arrays();
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it->get() == reinterpret_cast<SimArray*>(array)) {
      rt.dev().free((*it)->base);
      v.erase(it);
      return cudaSuccess;
    }
  return rt.ret(cudaErrorInvalidValue);
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array) {
  Runtime& rt = Runtime::get();
  SimArray* a = find_array(array);
  if (!a) return rt.ret(cudaErrorInvalidResourceHandle);
  if (desc) *desc = a->desc;
  if (extent) {
    extent->width = a->width;
    extent->height = a->height > 1 ? a->height : 0;
    extent->depth = a->depth > 1 ? a->depth : 0;
  }
  if (flags) *flags = 0;
  return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                size_t spitch, size_t width, size_t height, cudaMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  SimArray* a = find_array(dst);
  if (!a) return rt.ret(cudaErrorInvalidResourceHandle);
  if (wOffset + width > a->pitch || hOffset + height > a->height * a->depth)
    return rt.ret(cudaErrorInvalidValue);
  return cudaMemcpy2D(reinterpret_cast<void*>(a->base + hOffset * a->pitch + wOffset), a->pitch,
                      src, spitch, width, height,
                      kind == cudaMemcpyHostToHost ? cudaMemcpyHostToDevice : kind);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void* src, size_t spitch, size_t width, size_t height,
                                     cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height,
                                  cudaMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  SimArray* a = find_array(src);
  if (!a) return rt.ret(cudaErrorInvalidResourceHandle);
  if (wOffset + width > a->pitch || hOffset + height > a->height * a->depth)
    return rt.ret(cudaErrorInvalidValue);
  return cudaMemcpy2D(
      dst, dpitch, reinterpret_cast<const void*>(a->base + hOffset * a->pitch + wOffset), a->pitch,
      width, height, kind == cudaMemcpyHostToHost ? cudaMemcpyDeviceToHost : kind);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}

// Arrays are stored without row padding (pitch = width x element size), so the row-major
// byte range starting at (wOffset, hOffset) is contiguous.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                              size_t count, cudaMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  SimArray* a = find_array(dst);
  if (!a) return rt.ret(cudaErrorInvalidResourceHandle);
  const size_t off = hOffset * a->pitch + wOffset;
  if (wOffset >= a->pitch || off + count > a->pitch * a->height * a->depth)
    return rt.ret(cudaErrorInvalidValue);
  return cudaMemcpy(reinterpret_cast<void*>(a->base + off), src, count,
                    kind == cudaMemcpyHostToHost ? cudaMemcpyHostToDevice : kind);
}

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, cudaMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  SimArray* a = find_array(src);
  if (!a) return rt.ret(cudaErrorInvalidResourceHandle);
  const size_t off = hOffset * a->pitch + wOffset;
  if (wOffset >= a->pitch || off + count > a->pitch * a->height * a->depth)
    return rt.ret(cudaErrorInvalidValue);
  return cudaMemcpy(dst, reinterpret_cast<const void*>(a->base + off), count,
                    kind == cudaMemcpyHostToHost ? cudaMemcpyDeviceToHost : kind);
}

cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                   cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                   size_t count, cudaMemcpyKind) {
  Runtime& rt = Runtime::get();
  SimArray* d = find_array(dst);
  SimArray* s = find_array(src);
  if (!d || !s) return rt.ret(cudaErrorInvalidResourceHandle);
  const size_t od = hOffsetDst * d->pitch + wOffsetDst, os = hOffsetSrc * s->pitch + wOffsetSrc;
  if (od + count > d->pitch * d->height * d->depth || os + count > s->pitch * s->height * s->depth)
    return rt.ret(cudaErrorInvalidValue);
  return cudaMemcpy(reinterpret_cast<void*>(d->base + od),
                    reinterpret_cast<const void*>(s->base + os), count, cudaMemcpyDeviceToDevice);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height, cudaMemcpyKind) {
  Runtime& rt = Runtime::get();
  SimArray* d = find_array(dst);
  SimArray* s = find_array(src);
  if (!d || !s) return rt.ret(cudaErrorInvalidResourceHandle);
  if (wOffsetDst + width > d->pitch || hOffsetDst + height > d->height * d->depth ||
      wOffsetSrc + width > s->pitch || hOffsetSrc + height > s->height * s->depth)
    return rt.ret(cudaErrorInvalidValue);
  return cudaMemcpy2D(reinterpret_cast<void*>(d->base + hOffsetDst * d->pitch + wOffsetDst),
                      d->pitch,
                      reinterpret_cast<const void*>(s->base + hOffsetSrc * s->pitch + wOffsetSrc),
                      s->pitch, width, height, cudaMemcpyDeviceToDevice);
}

/// cudaMemcpy3D between pitched memory and/or CUDA arrays. With an array on either side, the
/// extent's width and that side's x position count elements (CUDA Runtime API reference,
/// cudaMemcpy3D); otherwise bytes.
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  Runtime& rt = Runtime::get();
  if (!p) return rt.ret(cudaErrorInvalidValue);
  SimArray* sa = p->srcArray ? find_array(p->srcArray) : nullptr;
  SimArray* da = p->dstArray ? find_array(p->dstArray) : nullptr;
  if ((p->srcArray && !sa) || (p->dstArray && !da)) return rt.ret(cudaErrorInvalidResourceHandle);
  const size_t elem = sa ? sa->elem() : da ? da->elem() : 1;
  const cudaExtent e = p->extent;
  const size_t row_bytes = e.width * elem;
  struct Side {
    char* base;
    size_t pitch, ysize, x;
    bool device;
  };
  auto side = [&](SimArray* a, const cudaPitchedPtr& ptr, const cudaPos& pos, bool src) {
    if (a) return Side{reinterpret_cast<char*>(a->base), a->pitch, a->height, pos.x * elem, true};
    const bool dev = rt.is_device_ptr(ptr.ptr);
    (void)src;
    return Side{static_cast<char*>(ptr.ptr), ptr.pitch, ptr.ysize, pos.x, dev};
  };
  const Side s = side(sa, p->srcPtr, p->srcPos, true);
  const Side d = side(da, p->dstPtr, p->dstPos, false);
  if (!s.base || !d.base) return rt.ret(cudaErrorInvalidValue);
  cudaMemcpyKind kind = p->kind;
  if (kind == cudaMemcpyDefault || sa || da)
    kind = s.device ? (d.device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                    : (d.device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  const size_t depth = std::max<size_t>(e.depth, 1), height = std::max<size_t>(e.height, 1);
  for (size_t z = 0; z < depth; ++z) {
    const size_t so = ((p->srcPos.z + z) * s.ysize + p->srcPos.y) * s.pitch + s.x;
    const size_t dof = ((p->dstPos.z + z) * d.ysize + p->dstPos.y) * d.pitch + d.x;
    const cudaError_t r =
        cudaMemcpy2D(d.base + dof, d.pitch, s.base + so, s.pitch, row_bytes, height, kind);
    if (r != cudaSuccess) return r;
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t) { return cudaMemcpy3D(p); }

}  // extern "C"
