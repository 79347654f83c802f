// Texture and surface objects (bindless, CUDA >= 5): the runtime creates descriptors, kernels
// reach them through the 64-bit handle passed as a kernel parameter (tex.* / suld / sust).
// Sampling follows the CUDA programming guide, appendix "Texture Fetching": point sampling
// and linear filtering with clamp/wrap/mirror/border addressing, normalized coordinates, and
// element or normalized-float read modes.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "base/types.h"

namespace simtlab::func {

enum class TexAddressMode : uint8_t { wrap, clamp, mirror, border };
enum class TexFilter : uint8_t { point, linear };
enum class TexChannelKind : uint8_t { sint, uint, flt, none };

struct TextureDesc {
  Addr base = 0;      // device address of the data (linear or pitch2D or array)
  uint32_t dims = 1;  // 1, 2 or 3
  uint64_t width = 0, height = 1, depth = 1;  // in elements
  uint64_t pitch = 0;                         // bytes per row (2D/3D)
  uint32_t channels = 1;                      // 1..4
  uint32_t channel_bits = 32;                 // bits per channel
  TexChannelKind kind = TexChannelKind::flt;
  TexAddressMode address[3] = {TexAddressMode::clamp, TexAddressMode::clamp, TexAddressMode::clamp};
  TexFilter filter = TexFilter::point;
  bool normalized_coords = false;
  bool read_normalized_float = false;  // cudaReadModeNormalizedFloat
  bool is_surface = false;
  uint32_t elem_bytes() const { return channels * channel_bits / 8; }
};

class TextureTable {
 public:
  uint64_t create(const TextureDesc& d) {
    const uint64_t h = next_++;
    table_[h] = d;
    return h;
  }
  bool destroy(uint64_t h) { return table_.erase(h) > 0; }
  const TextureDesc* get(uint64_t h) const {
    auto it = table_.find(h);
    return it == table_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<uint64_t, TextureDesc> table_;
  uint64_t next_ = 1;  // 0 is never a valid object
};

}  // namespace simtlab::func
