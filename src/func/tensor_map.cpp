// Tensor maps: encoding, the driver's argument checks and box traversal (tensor_map.h).
#include "func/tensor_map.h"

#include <algorithm>

#include <fmt/format.h>

namespace simtlab::func {

uint32_t tensor_map_elem_size(uint32_t dtype) {
  // CU_TENSOR_MAP_DATA_TYPE_UINT8 .. TFLOAT32_FTZ (the sub-byte 16U4/16U6 types: not supported).
  static constexpr uint8_t kSize[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return dtype < sizeof kSize ? kSize[dtype] : 0;
}

std::string encode_tensor_map(TensorMapBits& m, uint32_t dtype, uint32_t rank, uint64_t addr,
                              const uint64_t* dims, const uint64_t* strides, const uint32_t* box,
                              const uint32_t* estride, uint32_t interleave, uint32_t swizzle,
                              uint32_t l2promo, uint32_t oobfill) {
  const uint32_t es = tensor_map_elem_size(dtype);
  if (!es) return fmt::format("tensorDataType {} is not supported", dtype);
  if (rank < 1 || rank > 5) return fmt::format("tensorRank {} is not in [1, 5]", rank);
  if (interleave != 0)
    return "interleaved layouts (CU_TENSOR_MAP_INTERLEAVE_16B/32B) are not supported by simtlab";
  if (swizzle > 3)
    return fmt::format("swizzle {} is not supported (none, 32B, 64B or 128B)", swizzle);
  if (l2promo > 3) return fmt::format("l2Promotion {} is not valid", l2promo);
  if (oobfill > 1) return fmt::format("oobFill {} is not valid", oobfill);
  if (addr % 16) return fmt::format("globalAddress {:#x} is not 16-byte aligned", addr);
  if (!dims || !box || !estride || (rank > 1 && !strides)) return "a required array is NULL";
  for (uint32_t d = 0; d < rank; ++d) {
    if (dims[d] == 0 || dims[d] > (uint64_t(1) << 32))
      return fmt::format("globalDim[{}] = {} is not in [1, 2^32]", d, dims[d]);
    if (box[d] == 0 || box[d] > 256)
      return fmt::format("boxDim[{}] = {} is not in [1, 256]", d, box[d]);
    if (estride[d] == 0 || estride[d] > 8)
      return fmt::format("elementStrides[{}] = {} is not in [1, 8]", d, estride[d]);
  }
  for (uint32_t d = 0; d + 1 < rank; ++d) {
    if (strides[d] % 16 || strides[d] >= (uint64_t(1) << 40))
      return fmt::format("globalStrides[{}] = {} is not a multiple of 16 below 2^40", d,
                         strides[d]);
  }
  if (uint64_t(box[0]) * es % 16)
    return fmt::format("boxDim[0] * element size = {} bytes is not a multiple of 16",
                       uint64_t(box[0]) * es);
  const uint32_t span = tensor_map_swizzle_bytes(swizzle);
  if (span && uint64_t(box[0]) * es > span)
    return fmt::format("boxDim[0] * element size = {} bytes exceeds the {}-byte swizzle span",
                       uint64_t(box[0]) * es, span);
  m = TensorMapBits{};
  m.magic = TensorMapBits::kMagic;
  m.dtype = uint8_t(dtype);
  m.rank = uint8_t(rank);
  m.interleave = uint8_t(interleave);
  m.swizzle = uint8_t(swizzle);
  m.l2promo = uint8_t(l2promo);
  m.oobfill = uint8_t(oobfill);
  m.esize = uint8_t(es);
  m.addr = addr;
  for (uint32_t d = 0; d < rank; ++d) {
    m.dims[d] = dims[d];
    m.box[d] = uint16_t(box[d]);
    m.estride[d] = uint8_t(estride[d]);
    if (d + 1 < rank) m.strides[d] = strides[d];
  }
  return "";
}

uint64_t tensor_box_runs(const TensorMapBits& m, const int32_t* c, std::vector<TensorRun>& runs) {
  runs.clear();
  uint32_t n[5] = {1, 1, 1, 1, 1};
  uint64_t rows = 1;
  for (unsigned d = 0; d < m.rank; ++d) {
    n[d] = (m.box[d] + m.estride[d] - 1) / m.estride[d];
    if (d) rows *= n[d];
  }
  const uint64_t row_bytes = uint64_t(n[0]) * m.esize;
  for (uint64_t r = 0; r < rows; ++r) {
    // Coordinates of dimensions 1.. of this row; in bounds and its global offset.
    uint64_t rem = r, goff = 0;
    bool row_in = true;
    for (unsigned d = 1; d < m.rank; ++d) {
      const int64_t x = int64_t(c[d]) + int64_t(rem % n[d]) * m.estride[d];
      rem /= n[d];
      if (x < 0 || uint64_t(x) >= m.dims[d]) row_in = false;
      goff += uint64_t(x) * m.strides[d - 1];
    }
    const uint64_t boff = r * row_bytes;
    if (!row_in) {
      runs.push_back({boff, 0, uint32_t(row_bytes), false});
      continue;
    }
    auto in0 = [&](uint32_t i) {
      const int64_t x = int64_t(c[0]) + int64_t(i) * m.estride[0];
      return x >= 0 && uint64_t(x) < m.dims[0];
    };
    auto gaddr = [&](uint32_t i) {
      return m.addr + goff + uint64_t(int64_t(c[0]) + int64_t(i) * m.estride[0]) * m.esize;
    };
    if (m.estride[0] == 1) {  // one in-bounds run between out-of-bounds ends
      const int64_t lo = std::clamp<int64_t>(-int64_t(c[0]), 0, n[0]);
      const int64_t hi = std::clamp<int64_t>(int64_t(m.dims[0]) - c[0], lo, n[0]);
      if (lo) runs.push_back({boff, 0, uint32_t(lo * m.esize), false});
      if (hi > lo)
        runs.push_back({boff + uint64_t(lo) * m.esize, gaddr(uint32_t(lo)),
                        uint32_t((hi - lo) * m.esize), true});
      if (hi < n[0])
        runs.push_back({boff + uint64_t(hi) * m.esize, 0, uint32_t((n[0] - hi) * m.esize), false});
    } else {
      for (uint32_t i = 0; i < n[0]; ++i) {
        const bool in = in0(i);
        runs.push_back({boff + uint64_t(i) * m.esize, in ? gaddr(i) : 0, m.esize, in});
      }
    }
  }
  return rows * row_bytes;
}

}  // namespace simtlab::func
