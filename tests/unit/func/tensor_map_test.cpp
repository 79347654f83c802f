// Tensor maps (func/tensor_map.h): the driver's argument checks, box traversal with
// out-of-bounds runs and element strides, and the swizzle permutation of 16-byte chunks.
#include "func/tensor_map.h"

#include <gtest/gtest.h>

namespace simtlab::func {
namespace {

TensorMapBits map2d(uint32_t box0, uint32_t box1, uint32_t swz = 0, uint32_t es0 = 1) {
  TensorMapBits m;
  const uint64_t dims[2] = {100, 70}, strides[1] = {400};
  const uint32_t box[2] = {box0, box1}, es[2] = {es0, 1};
  const std::string why = encode_tensor_map(m, 7 /*FLOAT32*/, 2, 0x20000000000ull, dims, strides,
                                            box, es, 0, swz, 0, 0);
  EXPECT_EQ(why, "");
  return m;
}

TEST(TensorMap, EncodeChecksTheDriversRules) {
  TensorMapBits m;
  const uint64_t dims[2] = {100, 70}, strides[1] = {400}, odd[1] = {396};
  const uint32_t box[2] = {32, 8}, big[2] = {257, 1}, wide[2] = {64, 8}, one[2] = {1, 1};
  const uint32_t es9[2] = {9, 1};
  EXPECT_NE(encode_tensor_map(m, 7, 2, 0x20000000008ull, dims, strides, box, one, 0, 0, 0, 0), "");
  EXPECT_NE(encode_tensor_map(m, 7, 2, 0x20000000000ull, dims, odd, box, one, 0, 0, 0, 0), "");
  EXPECT_NE(encode_tensor_map(m, 7, 2, 0x20000000000ull, dims, strides, big, one, 0, 0, 0, 0), "");
  EXPECT_NE(encode_tensor_map(m, 7, 2, 0x20000000000ull, dims, strides, wide, one, 0, 3, 0, 0),
            "");  // 256 bytes > 128B swizzle span
  EXPECT_EQ(encode_tensor_map(m, 7, 2, 0x20000000000ull, dims, strides, box, one, 0, 3, 0, 0), "");
  EXPECT_NE(encode_tensor_map(m, 7, 2, 0x20000000000ull, dims, strides, box, es9, 0, 0, 0, 0), "");
  EXPECT_NE(encode_tensor_map(m, 7, 6, 0x20000000000ull, dims, strides, box, one, 0, 0, 0, 0), "");
  EXPECT_NE(encode_tensor_map(m, 7, 2, 0x20000000000ull, dims, strides, box, one, 1, 0, 0, 0), "");
  EXPECT_EQ(m.esize, 4);
  EXPECT_EQ(m.swizzle, 3);
}

TEST(TensorMap, BoxRunsSplitAtTheEdges) {
  const TensorMapBits m = map2d(32, 2);
  std::vector<TensorRun> runs;
  const int32_t c[2] = {-4, 69};  // x -4..27 (4 OOB on the left), rows 69 (in) and 70 (OOB)
  EXPECT_EQ(tensor_box_runs(m, c, runs), 2u * 128);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_FALSE(runs[0].in_bounds);
  EXPECT_EQ(runs[0].boff, 0u);
  EXPECT_EQ(runs[0].bytes, 16u);
  EXPECT_TRUE(runs[1].in_bounds);
  EXPECT_EQ(runs[1].boff, 16u);
  EXPECT_EQ(runs[1].bytes, 112u);
  EXPECT_EQ(runs[1].gaddr, 0x20000000000ull + 69 * 400);
  EXPECT_FALSE(runs[2].in_bounds);  // the whole second row
  EXPECT_EQ(runs[2].boff, 128u);
  EXPECT_EQ(runs[2].bytes, 128u);
}

TEST(TensorMap, ElementStridesPickEveryOtherElement) {
  const TensorMapBits m = map2d(8, 1, 0, 2);  // 4 elements: x = 96, 98, 100 (OOB), 102 (OOB)
  std::vector<TensorRun> runs;
  const int32_t c[2] = {96, 0};
  EXPECT_EQ(tensor_box_runs(m, c, runs), 16u);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[1].gaddr, 0x20000000000ull + 98 * 4);
  EXPECT_TRUE(runs[1].in_bounds);
  EXPECT_FALSE(runs[2].in_bounds);
}

TEST(TensorMap, SwizzleXorsChunkBitsWithRowBits) {
  const TensorMapBits none = map2d(32, 8), s32 = map2d(8, 8, 1), s64 = map2d(16, 8, 2),
                      s128 = map2d(32, 8, 3);
  EXPECT_EQ(tensor_swizzle(none, 0x3a0), 0x3a0u);
  // Address 0x3a0 + 5: row bits 7..9 = 7, chunk bits 4..6 = 2.
  EXPECT_EQ(tensor_swizzle(s128, 0x3a5), 0x3a5u ^ (7u << 4));  // chunk 2 -> 5
  EXPECT_EQ(tensor_swizzle(s64, 0x3a5), 0x3a5u ^ (3u << 4));
  EXPECT_EQ(tensor_swizzle(s32, 0x3a5), 0x3a5u ^ (1u << 4));
  EXPECT_EQ(tensor_swizzle(s128, 0x405), 0x405u);  // row 0 of the next 1024-byte atom
}

}  // namespace
}  // namespace simtlab::func
