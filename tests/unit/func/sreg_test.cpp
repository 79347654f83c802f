// Special registers (PTX ISA 10): %tid/%ntid/%ctaid/%nctaid in 3D grids, %laneid, %lanemask_*,
// %warpid/%nwarpid, %smid/%nsmid, %dynamic_smem_size/%total_smem_size, %gridid.
#include "tests/unit/func/op_test_util.h"

namespace simtlab::testing {
namespace {

constexpr unsigned kFields = 24;

const char* kSregKernel = R"(
.extern .shared .align 16 .b8 dsm[];
.visible .entry sregs(.param .u64 out) {
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b8 sbuf[40];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ntid.y;
  mov.u32 %r6, %ntid.z;
  mov.u32 %r7, %ctaid.x;
  mov.u32 %r8, %ctaid.y;
  mov.u32 %r9, %ctaid.z;
  mov.u32 %r10, %nctaid.x;
  mov.u32 %r11, %nctaid.y;
  mov.u32 %r12, %nctaid.z;
  mov.u32 %r13, %laneid;
  mov.u32 %r14, %warpid;
  mov.u32 %r15, %nwarpid;
  mov.u32 %r16, %smid;
  mov.u32 %r17, %nsmid;
  mov.u32 %r18, %lanemask_eq;
  mov.u32 %r19, %lanemask_le;
  mov.u32 %r20, %lanemask_lt;
  mov.u32 %r21, %lanemask_ge;
  mov.u32 %r22, %lanemask_gt;
  mov.u32 %r23, %dynamic_smem_size;
  mov.u32 %r24, %total_smem_size;
  // keep the shared buffers in use
  st.shared.u32 [sbuf+36], %r1;
  st.shared.u32 [dsm], %r1;
  // t = linear thread index in the block, c = linear CTA index, g = global linear index
  mad.lo.u32 %r30, %r2, %r4, %r1;
  mul.lo.u32 %r31, %r4, %r5;
  mad.lo.u32 %r30, %r3, %r31, %r30;
  mad.lo.u32 %r32, %r8, %r10, %r7;
  mul.lo.u32 %r33, %r10, %r11;
  mad.lo.u32 %r32, %r9, %r33, %r32;
  mul.lo.u32 %r34, %r31, %r6;
  mad.lo.u32 %r35, %r32, %r34, %r30;
  mul.wide.u32 %rd1, %r35, 96;
  ld.param.u64 %rd2, [out];
  add.u64 %rd3, %rd2, %rd1;
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};
  st.global.v4.u32 [%rd3+48], {%r13, %r14, %r15, %r16};
  st.global.v4.u32 [%rd3+64], {%r17, %r18, %r19, %r20};
  st.global.v4.u32 [%rd3+80], {%r21, %r22, %r23, %r24};
  ret;
}
)";

TEST(Sreg, ThreeDimensionalGridAndLaneRegisters) {
  PtxRunner r(ptx_module(kSregKernel));
  r.dev().options().num_sms = 5;
  const Dim3 grid{3, 2, 2}, block{5, 3, 4};  // 60 threads: one full warp and a partial one
  const uint32_t dyn = 200;
  const uint64_t nthreads = grid.count() * block.count();
  Addr out = r.upload(std::vector<uint32_t>(nthreads * kFields, 0xdeadbeef));
  r.launch("sregs", grid, block, dyn, out);
  auto v = r.download<uint32_t>(out, nthreads * kFields);
  int bad = 0;
  for (uint32_t cz = 0; cz < grid.z; ++cz)
    for (uint32_t cy = 0; cy < grid.y; ++cy)
      for (uint32_t cx = 0; cx < grid.x; ++cx)
        for (uint32_t tz = 0; tz < block.z; ++tz)
          for (uint32_t ty = 0; ty < block.y; ++ty)
            for (uint32_t tx = 0; tx < block.x; ++tx) {
              const uint32_t t = tx + ty * block.x + tz * block.x * block.y;
              const uint32_t c = cx + cy * grid.x + cz * grid.x * grid.y;
              const uint32_t lane = t % 32;
              const uint32_t* f = &v[(uint64_t(c) * block.count() + t) * kFields];
              const uint32_t want[kFields] = {
                  tx,
                  ty,
                  tz,
                  block.x,
                  block.y,
                  block.z,
                  cx,
                  cy,
                  cz,
                  grid.x,
                  grid.y,
                  grid.z,
                  lane,
                  t / 32,  // %warpid: the functional model's warp slot = warp index
                  f[14],   // %nwarpid: checked below
                  c % 5,
                  5,           // %smid (CTAs are spread round-robin), %nsmid
                  1u << lane,  // eq
                  lane == 31 ? 0xffffffffu : (2u << lane) - 1,  // le
                  (1u << lane) - 1,                             // lt
                  ~((1u << lane) - 1),                          // ge
                  lane == 31 ? 0u : ~((2u << lane) - 1),        // gt
                  dyn,
                  48 + dyn};  // static 40 bytes, dynamic part aligned to 16
              for (unsigned k = 0; k < kFields && bad < 10; ++k)
                if (f[k] != want[k]) {
                  ++bad;
                  ADD_FAILURE() << "cta " << c << " thread " << t << " field " << k << ": " << f[k]
                                << ", expected " << want[k];
                }
              if (f[14] <= f[13]) ADD_FAILURE() << "%nwarpid " << f[14] << " <= %warpid " << f[13];
            }
}

TEST(Sreg, GridIdDiffersBetweenLaunches) {
  PtxRunner r(ptx_module(R"(
.visible .entry gid(.param .u64 out) {
  .reg .b64 %rd<4>;
  mov.u64 %rd1, %gridid;
  ld.param.u64 %rd2, [out];
  st.global.u64 [%rd2], %rd1;
  ret;
})"));
  Addr a = r.upload(std::vector<uint64_t>{0}), b = r.upload(std::vector<uint64_t>{0});
  r.launch("gid", {1, 1, 1}, {1, 1, 1}, 0, a);
  r.launch("gid", {1, 1, 1}, {1, 1, 1}, 0, b);
  EXPECT_NE(r.download<uint64_t>(a, 1)[0], r.download<uint64_t>(b, 1)[0]);
}

TEST(Sreg, SixteenBitMovesOfSpecialRegisters) {
  // %tid components read into a .u16 register keep the low 16 bits.
  PtxRunner r(ptx_module(R"(
.visible .entry k(.param .u64 out) {
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u16 %h1, %tid.x;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, 2;
  ld.param.u64 %rd2, [out];
  add.u64 %rd2, %rd2, %rd1;
  st.global.u16 [%rd2], %h1;
  ret;
})"));
  Addr out = r.upload(std::vector<uint16_t>(300, 0xffff));
  r.launch("k", {1, 1, 1}, {300, 1, 1}, 0, out);
  auto v = r.download<uint16_t>(out, 300);
  for (uint32_t i = 0; i < 300; ++i) EXPECT_EQ(v[i], i);
}

}  // namespace
}  // namespace simtlab::testing
