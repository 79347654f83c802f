#include "timing/mem/address_map.h"

#include <bit>

#include "base/bits.h"
#include "base/error.h"

namespace simtlab::timing {

void AddressMapParams::describe(config::Describer& d) {
  d.param("channels", channels, "channels", "DRAM channels (one memory partition each)",
          "D2MA Table 1 (8 memory channels)")
      .min(1);
  d.param("sub_partitions", sub_partitions, "slices", "L2 slices per memory partition",
          "GTX480 config gpgpu_n_sub_partition_per_mchannel 2; book 1.15 (2 slices)")
      .min(1);
  d.param("interleave", interleave, "bytes", "Channel interleaving granularity",
          "book 1.14 (NVIDIA patent: 256 B or 1 KB); GTX480 mapping dramid@8")
      .min(32)
      .pow2();
  d.param("layout", layout, "", "Bank/row/column bits of the channel-local address, MSB first",
          "GTX480 config gpgpu_mem_addr_mapping with the dramid bits removed");
  d.param("hash", hash, "", "Channel index hash",
          "off by default (GTX480 config "
          "gpgpu_memory_partition_indexing 0)")
      .one_of({"none", "xor"});
}

AddressMap::AddressMap(const AddressMapParams& p) : p_(p) {
  xor_hash_ = p.hash == "xor";
  if (xor_hash_ && !is_pow2(p.channels))
    fatal("mem.map.hash: xor needs a power-of-two channel count, have {}", p.channels);
  chan_bits_ = uint32_t(std::countr_zero(p.channels));
  // Walk the pattern from its last character (bit 0) upwards.
  uint32_t bit = 0;
  for (auto it = p.layout.rbegin(); it != p.layout.rend(); ++it) {
    const char c = *it;
    if (c == '.') continue;
    switch (c) {
      case 'R':
        row_bits_.push_back(uint8_t(bit));
        break;
      case 'B':
        bank_bits_.push_back(uint8_t(bit));
        break;
      case 'C':
        col_bits_.push_back(uint8_t(bit));
        break;
      case 'S':
        break;
      default:
        fatal("mem.map.layout: unexpected '{}' in '{}' (use R, B, C, S and '.')", c, p.layout);
    }
    if (++bit > 63) fatal("mem.map.layout: more than 63 bits in '{}'", p.layout);
  }
  layout_bits_ = bit;
  if (row_bits_.empty() || col_bits_.empty())
    fatal("mem.map.layout: '{}' needs at least one R and one C bit", p.layout);
}

uint32_t AddressMap::channel(Addr a) const {
  const uint64_t chunk = a / p_.interleave;
  uint32_t c = uint32_t(chunk % p_.channels);
  if (xor_hash_ && chan_bits_ > 0) {
    uint64_t upper = chunk >> chan_bits_;
    uint64_t fold = 0;
    while (upper) {
      fold ^= upper & (p_.channels - 1);
      upper >>= chan_bits_;
    }
    c ^= uint32_t(fold);
  }
  return c;
}

Addr AddressMap::channel_local(Addr a) const {
  return (a / (uint64_t(p_.interleave) * p_.channels)) * p_.interleave + a % p_.interleave;
}

uint32_t AddressMap::sub_partition(Addr a) const {
  return uint32_t((channel_local(a) / p_.interleave) % p_.sub_partitions);
}

uint64_t AddressMap::gather(Addr a, const std::vector<uint8_t>& bits) {
  uint64_t v = 0;
  for (size_t i = 0; i < bits.size(); ++i) v |= ((a >> bits[i]) & 1) << i;
  return v;
}

DramCoord AddressMap::decode(Addr a) const {
  DramCoord d;
  d.channel = channel(a);
  const Addr local = channel_local(a);
  d.sub = uint32_t((local / p_.interleave) % p_.sub_partitions);
  d.slice = d.channel * p_.sub_partitions + d.sub;
  d.bank = uint32_t(gather(local, bank_bits_));
  d.col = uint32_t(gather(local, col_bits_));
  d.row = gather(local, row_bits_);
  if (layout_bits_ < 64) d.row |= (local >> layout_bits_) << row_bits_.size();
  return d;
}

}  // namespace simtlab::timing
