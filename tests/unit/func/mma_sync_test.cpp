// mma.sync / ldmatrix lane mappings (PTX ISA 9.0 fragment figures), checked on hand-derived
// single elements: one nonzero input element must land in exactly the lanes and registers the
// ISA's layout puts the corresponding output row or column in.
#include <gtest/gtest.h>

#include "tests/unit/func/ptx_harness.h"

namespace simtlab::testing {

namespace {

// Lane l loads its A registers from a[l*4..], B from b[l*2..], stores D (f32) to out[l*4..].
const char* kMmaF16 = R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 po) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<8>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [po];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];
  mul.wide.u32 %rd6, %r1, 8;
  add.u64 %rd7, %rd2, %rd6;
  ld.global.v2.u32 {%r6, %r7}, [%rd7];
  mov.f32 %f0, 0f00000000;
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f0, %f0, %f0, %f0};
  add.u64 %rd8, %rd3, %rd4;
  st.global.v4.f32 [%rd8], {%f1, %f2, %f3, %f4};
  ret;
}
)";

constexpr uint32_t kOneOne = 0x3c003c00u;  // two f16 1.0

std::vector<float> run_mma(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  PtxRunner r(ptx_module(kMmaF16));
  Addr pa = r.upload(a), pb = r.upload(b), po = r.upload(std::vector<float>(128, -1.f));
  r.launch("k", {1, 1, 1}, {32, 1, 1}, 0, pa, pb, po);
  return r.download<float>(po, 128);
}

}  // namespace

TEST(MmaSync, M16n8k16ARowsByRegister) {
  // Lane 5 (groupID 1, threadID_in_group 1). Register 1 holds elements a2, a3: its low half is
  // A(1 + 8, 2*1) = A(9, 2); register 2 holds a4, a5: its low half is A(1, 2*1 + 8) = A(1, 10).
  // B is all ones, so D's row 9 (or 1) is 1 and every other row 0: row 9 is d2, d3 of lanes
  // 4..7, row 1 is d0, d1 of the same lanes.
  for (unsigned reg : {1u, 2u}) {
    std::vector<uint32_t> a(128, 0), b(64, kOneOne);
    a[5 * 4 + reg] = 0x3c00u;
    const auto d = run_mma(a, b);
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned j = 0; j < 4; ++j)
        EXPECT_EQ(d[l * 4 + j], (l >= 4 && l < 8 && (j >= 2) == (reg == 1)) ? 1.f : 0.f)
            << "a register " << reg << ": lane " << l << " d" << j;
  }
}

TEST(MmaSync, M16n8k16BColumnIsGroupId) {
  // Lane 6 (groupID 1, threadID_in_group 2): b1's high half is element b3 = B(2*2 + 1 + 8, 1) =
  // B(13, 1). A is all ones, so D's column 1 is 1: d1 and d3 of lanes with threadID_in_group 0.
  std::vector<uint32_t> a(128, kOneOne), b(64, 0);
  b[6 * 2 + 1] = 0x3c000000u;
  const auto d = run_mma(a, b);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned j = 0; j < 4; ++j)
      EXPECT_EQ(d[l * 4 + j], (l % 4 == 0 && (j & 1)) ? 1.f : 0.f) << "lane " << l << " d" << j;
}

TEST(MmaSync, M16n8k16ProductOfOnes) {
  // All ones: every D element is K = 16.
  const auto d = run_mma(std::vector<uint32_t>(128, kOneOne), std::vector<uint32_t>(64, kOneOne));
  for (float x : d) EXPECT_EQ(x, 16.f);
}

TEST(MmaSync, LdmatrixX2TransLaneMapping) {
  // 16 rows of 8 b16 values v(row, col) = row * 8 + col; lane t gives the address of row t
  // (x2: lanes 0-15). With .trans lane l's register j holds rows 2(l%4), 2(l%4)+1 of column l/4
  // of matrix j: lane 13 (l/4 = 3, l%4 = 1), j = 1: rows 8 + 2, 8 + 3 of column 3.
  PtxRunner r(ptx_module(R"(
.visible .entry k(.param .u64 po) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .b16 %h<2>;
  .shared .align 16 .b16 tile[128];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  shl.b32 %r5, %r1, 1;
  cvt.u16.u32 %h0, %r5;
  add.u32 %r6, %r5, 1;
  cvt.u16.u32 %h1, %r6;
  st.shared.v2.u16 [%r4], {%h0, %h1};
  add.u32 %r5, %r5, 64;
  cvt.u16.u32 %h0, %r5;
  add.u32 %r6, %r5, 1;
  cvt.u16.u32 %h1, %r6;
  st.shared.v2.u16 [%r4+128], {%h0, %h1};
  bar.sync 0;
  and.b32 %r7, %r1, 15;
  shl.b32 %r8, %r7, 4;
  add.u32 %r9, %r2, %r8;
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r10, %r11}, [%r9];
  ld.param.u64 %rd1, [po];
  mul.wide.u32 %rd2, %r1, 8;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r10, %r11};
  ret;
}
)"));
  Addr po = r.upload(std::vector<uint32_t>(64, 0));
  r.launch("k", {1, 1, 1}, {32, 1, 1}, 0, po);
  const auto d = r.download<uint32_t>(po, 64);
  auto v = [](unsigned row, unsigned col) { return row * 8 + col; };
  EXPECT_EQ(d[13 * 2 + 1], v(10, 3) | v(11, 3) << 16);
  EXPECT_EQ(d[13 * 2 + 0], v(2, 3) | v(3, 3) << 16);
  EXPECT_EQ(d[0], v(0, 0) | v(1, 0) << 16);
  EXPECT_EQ(d[31 * 2 + 1], v(14, 7) | v(15, 7) << 16);
}

}  // namespace simtlab::testing
