// Tensor maps (CUtensorMap) for the Tensor Memory Accelerator (cp.async.bulk.tensor).
//
// A CUtensorMap is a 128-byte, 64-byte-aligned object opaque to programs; the driver call
// cuTensorMapEncodeTiled (handed out by the runtime's cudaGetDriverEntryPoint, src/runtime/
// api_driver.cpp) fills it and kernels name it by its generic address (a __grid_constant__
// kernel parameter, or global memory). simtlab's own encoding is `TensorMapBits` below.
//
// Box traversal (CUDA driver API cuTensorMapEncodeTiled; PTX ISA 9.0 "Tensor copy" / "Tiled
// mode"): the box has n[d] = ceil(boxDim[d] / elementStrides[d]) elements along dimension d,
// element i at coordinate c[d] + i * elementStrides[d]; dimension 0 is contiguous in global
// memory (element size), dimension d > 0 is globalStrides[d-1] bytes apart. In shared memory
// the box is dense, dimension 0 fastest. Out-of-bounds elements (any coordinate < 0 or
// >= globalDim) are zero-filled on loads and not written on stores. Swizzling (PTX ISA
// "Tensor-map swizzling modes"): with a W-byte swizzle (W = 32, 64, 128) the 16-byte chunk of
// shared address A moves to A ^ (((A >> 7) & (W/16 - 1)) << 4) — address bits 4.. XORed with
// address bits 7.. — the pattern wgmma's swizzled matrix descriptors read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simtlab::func {

/// simtlab's encoding of the 128-byte CUtensorMap (tiled mode).
struct TensorMapBits {
  static constexpr uint32_t kMagic = 0x50414d54;  // "TMAP"
  uint32_t magic = 0;
  uint8_t dtype = 0;       // CUtensorMapDataType
  uint8_t rank = 0;        // 1..5
  uint8_t interleave = 0;  // CUtensorMapInterleave (only NONE is accepted)
  uint8_t swizzle = 0;     // 0 none, 1 32B, 2 64B, 3 128B (CUtensorMapSwizzle)
  uint8_t l2promo = 0;     // CUtensorMapL2promotion (timing hint; not modelled)
  uint8_t oobfill = 0;     // CUtensorMapFloatOOBfill (0 zero fill; NaN request not modelled)
  uint8_t esize = 0;       // element bytes
  uint8_t pad0 = 0;
  uint64_t addr = 0;         // global address
  uint64_t dims[5] = {};     // globalDim
  uint64_t strides[4] = {};  // globalStrides (bytes of dimensions 1..rank-1)
  uint16_t box[5] = {};      // boxDim
  uint8_t estride[5] = {};   // elementStrides
};
static_assert(sizeof(TensorMapBits) <= 128);

/// Element size of a CUtensorMapDataType (0: not supported).
uint32_t tensor_map_elem_size(uint32_t dtype);

/// Swizzle span in bytes (0 = none) of TensorMapBits::swizzle.
inline uint32_t tensor_map_swizzle_bytes(uint32_t s) { return s ? 16u << s : 0; }

/// Validate and encode cuTensorMapEncodeTiled's arguments; "" on success, else why the driver
/// returns CUDA_ERROR_INVALID_VALUE.
std::string encode_tensor_map(TensorMapBits& m, uint32_t dtype, uint32_t rank, uint64_t addr,
                              const uint64_t* dims, const uint64_t* strides, const uint32_t* box,
                              const uint32_t* estride, uint32_t interleave, uint32_t swizzle,
                              uint32_t l2promo, uint32_t oobfill);

/// One run of consecutive box elements along dimension 0: `bytes` bytes at box byte offset
/// `boff` (the dense, unswizzled box image), from/to global address `gaddr` when in bounds.
struct TensorRun {
  uint64_t boff;
  uint64_t gaddr;
  uint32_t bytes;
  bool in_bounds;
};

/// The runs of the box at coordinates `c` (rank of them), dimension 0 fastest; returns the
/// box's total bytes.
uint64_t tensor_box_runs(const TensorMapBits& m, const int32_t* c, std::vector<TensorRun>& runs);

/// Shared address of the byte at `a` of the (unswizzled) box image after the map's swizzle.
inline uint64_t tensor_swizzle(const TensorMapBits& m, uint64_t a) {
  const uint64_t mask = m.swizzle ? (1u << m.swizzle) - 1 : 0;  // 32B: 1, 64B: 3, 128B: 7
  return a ^ (((a >> 7) & mask) << 4);
}

}  // namespace simtlab::func
