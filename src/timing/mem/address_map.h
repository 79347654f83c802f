// AddressMap: device address -> {channel (memory partition), sub-partition (L2 slice within the
// partition), bank, row, column}.
//
// 1. Channel interleaving: the address space is cut into `interleave`-byte chunks dealt round
//    robin to the channels: chunk = addr / interleave, channel = chunk mod channels. With
//    hash=xor (power-of-two channel counts) the channel index is XORed with a fold of the
//    upper address bits (every log2(channels)-bit group of addr / (interleave * channels)),
//    the permutation-based interleaving of Zhang, Zhu and Zhang, "A Permutation-based Page
//    Interleaving Scheme to Reduce Row-buffer Conflicts and Exploit Data Locality", MICRO 2000
//    (applied to channels instead of banks), which spreads power-of-two strides over channels.
// 2. The channel-local address removes the channel field:
//    local = (addr / (interleave * channels)) * interleave + addr mod interleave.
// 3. Sub-partition = (local / interleave) mod sub_partitions, so the low bank bit of the
//    GTX480 mapping picks the L2 slice as in GPGPU-Sim's GTX480 configuration.
// 4. Bank, row and column come from the channel-local address through `layout`, a bit pattern
//    written MSB first: R = row, B = bank, C = column, S = byte within a burst (ignored); '.'
//    is a separator. Address bits above the pattern extend the row. Fields are assembled LSB
//    first in pattern order, so "BBBCCCCB" gives bank = {b15 b14 b13 b8}.
//
// Every address maps to exactly one (channel, local) pair and back: the map is a bijection,
// which slice_interleave() relies on to index L2 sets with the interleave field removed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/types.h"
#include "config/describer.h"
#include "timing/mem/set_index.h"

namespace simtlab::timing {

struct AddressMapParams {
  uint32_t channels = 8;
  uint32_t sub_partitions = 2;
  uint32_t interleave = 256;
  std::string layout = "RRRRRRRRRRRR.BBBCCCCB.CCSSSSSS";
  std::string hash = "none";

  void describe(config::Describer& d);
  /// Layout and hash problems (keys relative to mem.map), empty if none. Checked by the config
  /// layer at resolution and by the AddressMap constructor.
  std::vector<config::Issue> validate() const;
  /// Bank bits (B) in `layout` (the map encodes 2^n banks).
  uint32_t layout_bank_bits() const;
};

struct DramCoord {
  uint32_t channel = 0;
  uint32_t sub = 0;    // sub-partition within the channel
  uint32_t slice = 0;  // global L2 slice: channel * sub_partitions + sub
  uint32_t bank = 0;
  uint64_t row = 0;
  uint32_t col = 0;  // in bursts (the S bits are below it)
  bool operator==(const DramCoord&) const = default;
};

class AddressMap {
 public:
  /// Throws UserError (naming mem.map.*) for a bad layout or an unsupported hash
  /// (AddressMapParams::validate; a resolved Config never has one).
  explicit AddressMap(const AddressMapParams& p);

  uint32_t channel(Addr a) const;
  Addr channel_local(Addr a) const;
  uint32_t sub_partition(Addr a) const;
  uint32_t slice(Addr a) const { return channel(a) * p_.sub_partitions + sub_partition(a); }
  DramCoord decode(Addr a) const;

  uint32_t channels() const { return p_.channels; }
  uint32_t sub_partitions() const { return p_.sub_partitions; }
  uint32_t slices() const { return p_.channels * p_.sub_partitions; }
  uint32_t bank_bits() const { return uint32_t(bank_bits_.size()); }
  uint32_t banks() const { return 1u << bank_bits_.size(); }
  /// How an L2 slice compacts addresses for set indexing.
  SliceInterleave slice_interleave() const { return {p_.interleave, slices()}; }
  const AddressMapParams& params() const { return p_; }

 private:
  static uint64_t gather(Addr a, const std::vector<uint8_t>& bits);

  AddressMapParams p_;
  bool xor_hash_ = false;
  uint32_t chan_bits_ = 0;
  std::vector<uint8_t> row_bits_, bank_bits_, col_bits_;
  uint32_t layout_bits_ = 0;
};

}  // namespace simtlab::timing
