// Uniform/affine/variant classifier (src/ext/classify; Collange et al. Euro-Par 2010, GPGPU
// book Table 3.1): exact instruction and register-write classes of tiny one-warp kernels run on
// the timing model, and "off means absent".
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {
namespace {

struct Classes {
  uint64_t u = 0, a = 0, v = 0;
  uint64_t wu = 0, wa = 0, wv = 0;
  bool operator==(const Classes&) const = default;
};

std::ostream& operator<<(std::ostream& o, const Classes& c) {
  return o << fmt::format("insts U{} A{} V{}, writes U{} A{} V{}", c.u, c.a, c.v, c.wu, c.wa, c.wv);
}

/// Runs `body` (then ret) as a kernel of one CTA of `block` threads with the classifier on.
Classes run_body(const std::string& body, Dim3 block = {32, 1, 1}) {
  TimingRunner r(timing_params({"gpu.num_sms=1", "classify.enable=true"}));
  r.load(fmt::format(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .shared .align 4 .b32 sh[64];
{}
  ret;
}}
)",
                     body));
  const Addr out = r.upload(std::vector<uint32_t>(64, 0));
  r.launch("k", {1, 1, 1}, block, out);
  const auto& g = r.stats["sm[0]"]["classify"];
  auto v = [&](const char* n) { return g[n]["value"].get<uint64_t>(); };
  Classes c{v("insts_uniform"),  v("insts_affine"),  v("insts_variant"),
            v("writes_uniform"), v("writes_affine"), v("writes_variant")};
  EXPECT_EQ(v("insts"), c.u + c.a + c.v);
  return c;
}

}  // namespace

// `ret` has no destination and no source: it counts as uniform in every kernel below.

TEST(Classify, TidIsAffineAConstantUniformAndAffinePlusUniformAffine) {
  EXPECT_EQ(run_body("  mov.u32 %r1, %tid.x;\n"    // A
                     "  mov.u32 %r2, 7;\n"         // U
                     "  add.s32 %r3, %r1, %r2;\n"  // A + U = A
                     "  sub.s32 %r4, %r2, %r3;\n"  // U - A = A
                     "  add.s32 %r5, %r2, %r2;\n"  // U + U = U
                     ),
            (Classes{3, 3, 0, 2, 3, 0}));
}

TEST(Classify, AffineTimesAffineAndAffinePlusAffineAreVariant) {
  // Table 3.1 is conservative: A + A and U * A are V too.
  EXPECT_EQ(run_body("  mov.u32 %r1, %tid.x;\n"
                     "  mul.lo.s32 %r2, %r1, %r1;\n"      // A * A = V
                     "  add.s32 %r3, %r1, %r1;\n"         // A + A = V
                     "  mul.lo.s32 %r4, %r1, 4;\n"        // A * U = V
                     "  mov.u32 %r5, %ctaid.x;\n"         // U
                     "  mad.lo.s32 %r6, %r5, 64, %r1;\n"  // U * U + A = A
                     ),
            (Classes{2, 2, 3, 1, 2, 3}));
}

TEST(Classify, ShiftOfAffineByUniformIsAffineShiftByAffineIsVariant) {
  EXPECT_EQ(run_body("  mov.u32 %r1, %tid.x;\n"
                     "  shl.b32 %r2, %r1, 2;\n"    // A << U = A
                     "  mov.u32 %r3, 1;\n"         // U
                     "  shl.b32 %r4, %r3, %r1;\n"  // U << A = V
                     "  shl.b32 %r5, %r3, 3;\n"    // U << U = U
                     ),
            (Classes{3, 2, 1, 2, 2, 1}));
}

TEST(Classify, ParamAndSharedBroadcastsAreUniformGlobalDataVariant) {
  EXPECT_EQ(run_body("  ld.param.u64 %rd1, [out];\n"       // U (parameter broadcast)
                     "  cvta.to.global.u64 %rd2, %rd1;\n"  // U
                     "  ld.global.u32 %r1, [%rd2];\n"      // V (loaded data)
                     "  st.global.u32 [%rd2], %r1;\n"      // no result, a V source: V
                     "  ld.shared.u32 %r2, [sh];\n"        // U (shared broadcast)
                     "  mov.u32 %r3, %tid.x;\n"            // A
                     "  shl.b32 %r4, %r3, 2;\n"            // A
                     "  mov.u32 %r5, sh;\n"                // U
                     "  add.s32 %r6, %r5, %r4;\n"          // A
                     "  ld.shared.u32 %r7, [%r6];\n"       // V (affine address: a gather)
                     ),
            (Classes{5, 3, 3, 4, 3, 2}));
}

TEST(Classify, APartialWriteIsVariant) {
  EXPECT_EQ(run_body("  mov.u32 %r1, %tid.x;\n"        // A
                     "  setp.lt.u32 %p1, %r1, 16;\n"   // compare of A: V
                     "  mov.u32 %r2, 5;\n"             // U
                     "  @%p1 mov.u32 %r2, 3;\n"        // half the lanes: V
                     "  add.s32 %r3, %r2, 1;\n"        // V + U = V
                     "  setp.eq.u32 %p2, %r1, %r1;\n"  // V (all sources not uniform)
                     "  mov.u32 %r4, 9;\n"             // U
                     "  @%p2 mov.u32 %r4, 4;\n"        // every lane wrote 4: U
                     ),
            (Classes{4, 1, 4, 3, 1, 4}));
}

TEST(Classify, TidShapeDependsOnTheBlock) {
  // 64 x 1: tid.x is lane + 32 * warp (affine), tid.y is 0 (uniform).
  EXPECT_EQ(run_body("  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %tid.y;\n", {64, 1, 1}),
            (Classes{2 * 2, 2 * 1, 0, 2 * 1, 2 * 1, 0}));
  // 16 x 4: a warp holds two rows, tid.x repeats and tid.y changes within it: both variant.
  EXPECT_EQ(run_body("  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %tid.y;\n", {16, 4, 1}),
            (Classes{2 * 1, 0, 2 * 2, 0, 0, 2 * 2}));
  // One partial warp of 16 x 1: tid.x is still the lane number.
  EXPECT_EQ(run_body("  mov.u32 %r1, %tid.x;\n", {16, 1, 1}), (Classes{1, 1, 0, 0, 1, 0}));
}

TEST(Classify, OffMeansNoStatsGroup) {
  TimingRunner r(timing_params({"gpu.num_sms=1"}));
  r.load(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k() { ret; }
)");
  r.launch("k", {1, 1, 1}, {32, 1, 1});
  EXPECT_FALSE(r.stats["sm[0]"].contains("classify"));
}

}  // namespace simtlab::testing
