#include "timing/mem/address_map.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "base/bits.h"
#include "base/error.h"

namespace simtlab::timing {

namespace {
constexpr uint32_t kMaxLayoutBits = 63;
constexpr uint32_t kMaxBankBits = 6;  // 64 banks, the DRAM model's limit (mem.dram.banks)
}  // namespace

void AddressMapParams::describe(config::Describer& d) {
  d.param("channels", channels, "channels", "DRAM channels (one memory partition each)",
          "D2MA Table 1 (8 memory channels)")
      .range(1, 512);  // each builds a partition, its slices and a DRAM channel; the largest
                       // GPUs have a few dozen (GPGPU-Sim QV100: 32), HBM pseudo-channels < 512
  d.param("sub_partitions", sub_partitions, "slices", "L2 slices per memory partition",
          "GTX480 config gpgpu_n_sub_partition_per_mchannel 2; book 1.15 (2 slices)")
      .range(1, 16);  // GPGPU-Sim configs use 1 or 2
  d.param("interleave", interleave, "bytes", "Channel interleaving granularity",
          "book 1.14 (NVIDIA patent: 256 B or 1 KB); GTX480 mapping dramid@8")
      .range(32, 1u << 20)  // 1 MiB: far above the 256 B - 1 KB chunks real GPUs interleave
      .pow2();
  d.param("layout", layout, "", "Bank/row/column bits of the channel-local address, MSB first",
          "GTX480 config gpgpu_mem_addr_mapping with the dramid bits removed");
  d.param("hash", hash, "", "Channel index hash",
          "off by default (GTX480 config "
          "gpgpu_memory_partition_indexing 0)")
      .one_of({"none", "xor"});
}

std::vector<config::Issue> AddressMapParams::validate() const {
  std::vector<config::Issue> r;
  uint32_t bits = 0, rows = 0, banks = 0, cols = 0;
  for (char c : layout) {
    if (c == '.') continue;
    ++bits;
    if (c == 'R') {
      ++rows;
    } else if (c == 'B') {
      ++banks;
    } else if (c == 'C') {
      ++cols;
    } else if (c != 'S') {
      r.push_back({"layout", fmt::format("unexpected '{}' (use R, B, C, S and '.')", c)});
      return r;
    }
  }
  if (bits > kMaxLayoutBits)
    r.push_back({"layout", fmt::format("has {} bits, at most {} allowed", bits, kMaxLayoutBits)});
  if (rows == 0 || cols == 0) r.push_back({"layout", "needs at least one R and one C bit"});
  if (banks > kMaxBankBits)
    r.push_back({"layout", fmt::format("has {} B bits; at most {} ({} banks) allowed", banks,
                                       kMaxBankBits, 1u << kMaxBankBits)});
  if (hash == "xor" && !is_pow2(channels))
    r.push_back(
        {"hash", fmt::format("xor needs a power-of-two channel count (channels is {})", channels)});
  return r;
}

uint32_t AddressMapParams::layout_bank_bits() const {
  return uint32_t(std::count(layout.begin(), layout.end(), 'B'));
}

AddressMap::AddressMap(const AddressMapParams& p) : p_(p) {
  if (auto issues = p.validate(); !issues.empty())
    throw UserError(config::format_issues("mem.map", issues));
  xor_hash_ = p.hash == "xor";
  chan_bits_ = uint32_t(std::countr_zero(p.channels));
  // Walk the pattern from its last character (bit 0) upwards.
  uint32_t bit = 0;
  for (auto it = p.layout.rbegin(); it != p.layout.rend(); ++it) {
    const char c = *it;
    if (c == '.') continue;
    if (c == 'R') row_bits_.push_back(uint8_t(bit));
    if (c == 'B') bank_bits_.push_back(uint8_t(bit));
    if (c == 'C') col_bits_.push_back(uint8_t(bit));
    ++bit;
  }
  layout_bits_ = bit;
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
