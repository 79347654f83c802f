#include <gtest/gtest.h>

#include "tests/unit/func/ptx_harness.h"

namespace simtlab::testing {

TEST(Exec, IntegerAddKernel) {
  PtxRunner r(ptx_module(R"(
.visible .entry add1(.param .u64 out, .param .u32 n) {
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r5;
DONE:
  ret;
})"));
  std::vector<int32_t> init(100, -1);
  Addr out = r.upload(init);
  uint32_t n = 77;
  auto res = r.launch("add1", {4, 1, 1}, {32, 1, 1}, 0, out, n);
  auto v = r.download<int32_t>(out, 100);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(v[i], i < 77 ? i : -1) << i;
  EXPECT_EQ(res.ctas, 4u);
}

}  // namespace simtlab::testing
