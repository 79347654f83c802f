// The register-allocation checker (func/regcheck.h, sim.regalloc_check): with the allocator's
// own allocation a kernel computes what it computes without the checker, while an allocation
// that puts two live values in one register changes the result, so a wrong allocation cannot
// pass the self-checking programs unnoticed.
#include <memory>

#include <gtest/gtest.h>

#include "func/regcheck.h"
#include "tests/unit/func/ptx_harness.h"

namespace simtlab::testing {
namespace {

// out[i] = (i + 3) * (i - 5) + (i ^ 7): %r3 and %r4 are live together (both feed the mul);
// %r5 is dead once %r6 is computed, so the allocator can reuse its register.
const char* kPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry f(.param .u64 out) {
  .reg .b32 %r<9>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.s32 %r3, %r1, 3;
  sub.s32 %r4, %r1, 5;
  mul.lo.s32 %r5, %r3, %r4;
  xor.b32 %r6, %r1, 7;
  add.s32 %r7, %r5, %r6;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r7;
  ret;
})";

std::vector<int32_t> run(func::DeviceOptions opt,
                         const std::function<void(const ptx::Function&, ptx::RegAlloc&)>& tweak,
                         std::shared_ptr<const func::RegAliases>* used = nullptr) {
  PtxRunner r(opt);
  r.load(kPtx);
  const func::Program* k = r.mod().kernel("f");
  if (tweak) k->reg_aliases = func::build_reg_aliases(*k, tweak);
  Addr out = r.upload(std::vector<int32_t>(32, 0));
  r.launch("f", {1, 1, 1}, {32, 1, 1}, 0, out);
  if (used) *used = k->reg_aliases;  // shared: outlives the runner and its Program
  return r.download<int32_t>(out, 32);
}

int32_t reg_id(const ptx::Function& f, const std::string& name) {
  for (size_t i = 0; i < f.regs.size(); ++i)
    if (f.regs[i].name == name) return int32_t(i);
  ADD_FAILURE() << "no register " << name;
  return 0;
}

TEST(RegCheck, TheAllocatorsAllocationKeepsTheResult) {
  func::DeviceOptions on;
  on.regalloc_check = true;
  std::shared_ptr<const func::RegAliases> a;
  const std::vector<int32_t> v = run(on, {}, &a);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(v[i], (i + 3) * (i - 5) + (i ^ 7)) << i;
  ASSERT_NE(a, nullptr);
  EXPECT_GT(a->shared_pairs, 0u);  // registers really are shared, so copies happen
  EXPECT_FALSE(a->copies.empty());
}

TEST(RegCheck, TwoLiveValuesInOneRegisterChangeTheResult) {
  func::DeviceOptions on;
  on.regalloc_check = true;
  // %r4 (i - 5) written into %r3's register while %r3 (i + 3) is still needed by the mul:
  // the mul then computes (i - 5) * (i - 5).
  const std::vector<int32_t> v = run(on, [](const ptx::Function& f, ptx::RegAlloc& a) {
    a.regs[size_t(reg_id(f, "%r4"))].base = a.regs[size_t(reg_id(f, "%r3"))].base;
  });
  for (int i = 0; i < 32; ++i) EXPECT_EQ(v[i], (i - 5) * (i - 5) + (i ^ 7)) << i;
}

TEST(RegCheck, OffByDefault) {
  std::shared_ptr<const func::RegAliases> a;
  const std::vector<int32_t> v = run({}, {}, &a);
  EXPECT_EQ(a, nullptr);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(v[i], (i + 3) * (i - 5) + (i ^ 7)) << i;
}

}  // namespace
}  // namespace simtlab::testing
