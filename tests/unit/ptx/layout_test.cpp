// Kernel layouts (src/ptx/layout.h). The static shared memory sizes are the ones ptxas -v
// reports for the same PTX (CUDA 13.0, sm_75); the fixtures say which rule each kernel pins
// down, and the `ptx` CTest tests re-check them against ptxas where it is installed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ptx/layout.h"
#include "ptx_test_util.h"

namespace simtlab::ptx {
namespace {

using testing::parse;

uint32_t func_id(const Module& m, const std::string& name) {
  for (uint32_t i = 0; i < m.funcs.size(); ++i)
    if (m.funcs[i].name == name) return i;
  throw std::runtime_error("no function " + name);
}

uint32_t var_id(const Module& m, const std::string& name) {
  for (uint32_t i = 0; i < m.vars.size(); ++i)
    if (m.vars[i].name == name) return i;
  throw std::runtime_error("no variable " + name);
}

Module load(const std::string& name) {
  return parse_module(testing::read_text(std::string(SIMTLAB_TEST_DATA_DIR) + "/ptx/" + name),
                      name);
}

TEST(PtxLayout, StaticSharedOrderMatchesPtxas) {
  Module m = load("smem_order.ptx");
  const std::vector<std::pair<std::string, uint32_t>> want = {
      {"decl_order", 33},
      {"unreferenced_last", 32},
      {"own_before_module", 32},
      {"module_decl_order", 33},
      {"callee_after_module", 32},
      {"callee_function_order", 17},
      {"callee_before_unreferenced", 17},
      {"unreferenced_callee_local", 32},
      {"dead_reference", 16},
  };
  for (const auto& [kernel, bytes] : want) {
    KernelLayout k = layout_kernel(m, func_id(m, kernel));
    EXPECT_EQ(k.static_shared, bytes) << kernel;
    EXPECT_EQ(k.dynamic_shared_align, 0u) << kernel;
  }
  // Offsets of one kernel in full: a@0 b@16 c@32 (declaration order, each aligned).
  KernelLayout d = layout_kernel(m, func_id(m, "decl_order"));
  const uint32_t f = func_id(m, "decl_order");
  auto local = [&](const std::string& n) {
    for (uint32_t vi : m.funcs[f].locals)
      if (m.vars[vi].name == n) return vi;
    throw std::runtime_error(n);
  };
  EXPECT_EQ(d.shared_offset.at(local("a")), 0u);
  EXPECT_EQ(d.shared_offset.at(local("b")), 16u);
  EXPECT_EQ(d.shared_offset.at(local("c")), 32u);
  // module_decl_order: m1@0 m16@16 m2@32; the never-used module variable has no offset.
  KernelLayout md = layout_kernel(m, func_id(m, "module_decl_order"));
  EXPECT_EQ(md.shared_offset.at(var_id(m, "m1")), 0u);
  EXPECT_EQ(md.shared_offset.at(var_id(m, "m16")), 16u);
  EXPECT_EQ(md.shared_offset.at(var_id(m, "m2")), 32u);
  EXPECT_EQ(md.shared_offset.count(var_id(m, "never_used")), 0u);
}

TEST(PtxLayout, ExternSharedRoundsTheStaticSize) {
  Module m = load("smem_extern.ptx");
  KernelLayout s = layout_kernel(m, func_id(m, "small_static"));
  EXPECT_EQ(s.static_shared, 64u);  // 4 bytes, rounded to the largest extern alignment (64)
  EXPECT_EQ(s.dynamic_shared_align, 4u);
  EXPECT_EQ(s.shared_offset.at(var_id(m, "dyn4")), 64u);  // dynamic memory starts there
  KernelLayout d = layout_kernel(m, func_id(m, "dynamic_only"));
  EXPECT_EQ(d.static_shared, 0u);
  EXPECT_EQ(d.shared_offset.at(var_id(m, "dyn4")), 0u);
  EXPECT_EQ(layout_kernel(m, func_id(m, "odd_static")).static_shared, 128u);
  // With only small extern alignments the rounding is still to 16.
  Module m2 = parse(R"(
.extern .shared .align 4 .b8 dyn[];
.visible .entry k()
{
	.reg .b32 %r<2>;
	.shared .align 4 .b8 s[20];
	mov.u32 %r1, s;
	ret;
}
)");
  EXPECT_EQ(layout_kernel(m2, func_id(m2, "k")).static_shared, 32u);
}

TEST(PtxLayout, FrameHoldsLocalsAndCallParams) {
  Module m = parse(R"(
.func (.param .b32 r) f(.param .b64 a, .param .b8 b)
{
	.local .align 4 .b8 depot[12];
	ret;
}
.visible .entry k()
{
	.local .align 16 .b8 __local_depot0[40];
	{
	.param .b64 param0;
	.param .b8 param1;
	.param .b32 retval0;
	call.uni (retval0), f, (param0, param1);
	}
	ret;
}
)");
  FrameLayout fk = layout_frame(m, func_id(m, "k"));
  const uint32_t k = func_id(m, "k");
  auto local = [&](const std::string& n) {
    for (uint32_t vi : m.funcs[k].locals)
      if (m.vars[vi].name == n) return vi;
    throw std::runtime_error(n);
  };
  EXPECT_EQ(fk.offset.at(local("__local_depot0")), 0u);
  EXPECT_EQ(fk.offset.at(local("param0")), 40u);
  EXPECT_EQ(fk.offset.at(local("param1")), 48u);
  EXPECT_EQ(fk.offset.at(local("retval0")), 52u);
  EXPECT_EQ(fk.bytes, 64u);
  // A .func frame also holds its own params and return values: a@0 b@8 r@12 depot@16.
  FrameLayout ff = layout_frame(m, func_id(m, "f"));
  EXPECT_EQ(ff.bytes, 32u);
  EXPECT_EQ(ff.offset.at(var_id(m, "depot")), 16u);
}

TEST(PtxLayout, CalleesAndRecursion) {
  Module m = parse(R"(
.func leaf()
{
	ret;
}
.func rec()
{
	call.uni rec, ();
	call.uni leaf, ();
	ret;
}
.visible .entry k()
{
	call.uni rec, ();
	ret;
}
.visible .entry plain()
{
	ret;
}
)");
  KernelLayout k = layout_kernel(m, func_id(m, "k"));
  EXPECT_THAT(k.functions,
              ::testing::ElementsAre(func_id(m, "k"), func_id(m, "rec"), func_id(m, "leaf")));
  EXPECT_TRUE(k.recursive);
  EXPECT_FALSE(k.has_indirect_calls);
  KernelLayout p = layout_kernel(m, func_id(m, "plain"));
  EXPECT_THAT(p.functions, ::testing::ElementsAre(func_id(m, "plain")));
  EXPECT_FALSE(p.recursive);
}

}  // namespace
}  // namespace simtlab::ptx
