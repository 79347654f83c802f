// AddressMap: exact decompositions of device addresses.
#include "timing/mem/address_map.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "base/error.h"

namespace simtlab::timing {
namespace {

TEST(AddressMap, ChannelsInterleaveEvery256Bytes) {
  AddressMap m{AddressMapParams{}};  // 8 channels x 2 slices, 256 B
  EXPECT_EQ(m.channel(0x000), 0u);
  EXPECT_EQ(m.channel(0x0ff), 0u);
  EXPECT_EQ(m.channel(0x100), 1u);
  EXPECT_EQ(m.channel(0x700), 7u);
  EXPECT_EQ(m.channel(0x800), 0u);
  EXPECT_EQ(m.channel_local(0x810), 0x110u);
  EXPECT_EQ(m.channel_local(0x1710), 0x210u);
  // Sub-partition: every other 256 B chunk of the channel-local address.
  EXPECT_EQ(m.sub_partition(0x010), 0u);
  EXPECT_EQ(m.sub_partition(0x810), 1u);
  EXPECT_EQ(m.sub_partition(0x1010), 0u);
  EXPECT_EQ(m.slice(0x810), 1u);
  EXPECT_EQ(m.slice(0x910), 3u);
  EXPECT_EQ(m.slices(), 16u);
  EXPECT_EQ(m.banks(), 16u);
}

TEST(AddressMap, DecodesBankRowColumnFromTheGtx480Layout) {
  // Channel-local 0x123b755 = row 0x123 | b15 b13 b12 b10 b9 b8 b6 | byte 0x15:
  // bank = {b15 b14 b13 b8} = 0b1011, column = {b12 b11 b10 b9 b7 b6} = 0b101101.
  AddressMap m{AddressMapParams{}};
  const Addr a = 0x91dbd55;  // that local address in channel 5
  EXPECT_EQ(m.channel_local(a), 0x123b755u);
  const DramCoord d = m.decode(a);
  EXPECT_EQ(d.channel, 5u);
  EXPECT_EQ(d.sub, 1u);
  EXPECT_EQ(d.slice, 11u);
  EXPECT_EQ(d.bank, 11u);
  EXPECT_EQ(d.row, 0x123u);
  EXPECT_EQ(d.col, 45u);
  // Bits above the layout extend the row.
  const DramCoord u = m.decode(0x89180200);
  EXPECT_EQ(u.channel, 2u);
  EXPECT_EQ(u.row, 0x1123u);
  EXPECT_EQ(u.bank, 0u);
  EXPECT_EQ(u.col, 0u);
}

TEST(AddressMap, NonPowerOfTwoChannels) {
  AddressMapParams p;
  p.channels = 6;  // GPGPU-Sim's GTX480
  AddressMap m(p);
  EXPECT_EQ(m.channel(5 * 256), 5u);
  EXPECT_EQ(m.channel(6 * 256), 0u);
  EXPECT_EQ(m.channel_local(6 * 256 + 7), 256u + 7);
}

TEST(AddressMap, XorHashPermutesChannelsByUpperBits) {
  AddressMapParams p;
  p.hash = "xor";
  AddressMap m(p);
  EXPECT_EQ(m.channel(0x000), 0u);
  EXPECT_EQ(m.channel(0x800), 1u);   // chunk 8: 0 ^ fold(1)
  EXPECT_EQ(m.channel(0x900), 0u);   // chunk 9: 1 ^ 1
  EXPECT_EQ(m.channel(0x4000), 1u);  // chunk 64: 0 ^ fold(8) = 0 ^ (0 ^ 1)
  EXPECT_EQ(m.channel(0x5300), 0u);  // chunk 83: 3 ^ fold(10) = 3 ^ (2 ^ 1)
  // Still a bijection: one channel per chunk, every channel once per 8 chunks.
  for (Addr base = 0; base < (1u << 20); base += 8 * 256) {
    std::set<uint32_t> seen;
    for (Addr a = base; a < base + 8 * 256; a += 256) seen.insert(m.channel(a));
    ASSERT_EQ(seen.size(), 8u) << base;
  }
}

TEST(AddressMap, SliceCompactionIsDenseAndUnique) {
  for (const char* hash : {"none", "xor"}) {
    AddressMapParams p;
    p.hash = hash;
    AddressMap m(p);
    const SliceInterleave il = m.slice_interleave();
    std::map<uint32_t, std::set<Addr>> lines;
    const Addr span = 1u << 20;
    for (Addr a = 0; a < span; a += 128) lines[m.slice(a)].insert(il.compact(a) / 128);
    ASSERT_EQ(lines.size(), 16u);
    for (const auto& [slice, set] : lines) {
      EXPECT_EQ(set.size(), span / 128 / 16) << hash << " slice " << slice;
      EXPECT_EQ(*set.rbegin(), set.size() - 1) << hash << " slice " << slice;  // 0..n-1
    }
  }
}

TEST(AddressMap, BadParametersAreUserErrors) {
  AddressMapParams p;
  p.layout = "RRRRXBBB.CCCSSSSS";
  EXPECT_THROW(AddressMap{p}, UserError);
  p = AddressMapParams{};
  p.channels = 6;
  p.hash = "xor";
  EXPECT_THROW(AddressMap{p}, UserError);
}

}  // namespace
}  // namespace simtlab::timing
