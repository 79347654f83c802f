// Directive and operand forms of the PTX parser (src/ptx/parser.h), one test per form listed in
// issue #2. Expected values come from the PTX ISA 9.0 text and, for layouts, from ptxas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "base/bits.h"
#include "ptx/dump.h"
#include "ptx/layout.h"
#include "ptx_test_util.h"

namespace simtlab::ptx {
namespace {

using ::testing::ElementsAre;
using testing::fn;
using testing::parse;
using testing::parse_kernel;
using testing::reg_id;

const Variable& var(const Module& m, const std::string& name) {
  for (const Variable& v : m.vars)
    if (v.name == name) return v;
  throw std::runtime_error("no variable " + name);
}

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

template <typename T>
std::vector<T> init_as(const Variable& v) {
  std::vector<T> out(v.init.size() / sizeof(T));
  std::memcpy(out.data(), v.init.data(), out.size() * sizeof(T));
  return out;
}

// ---- module directives ----------------------------------------------------------------------

TEST(PtxParser, VersionTargetAddressSize) {
  Module m = parse_module(".version 8.5\n.target sm_80, debug\n.address_size 32\n", "v.ptx");
  EXPECT_EQ(m.version_major, 8u);
  EXPECT_EQ(m.version_minor, 5u);
  EXPECT_THAT(m.target, ElementsAre("sm_80", "debug"));
  EXPECT_EQ(m.address_size, 32u);
  Module d = parse("");
  EXPECT_EQ(d.version_major, 9u);
  EXPECT_EQ(d.version_minor, 0u);
  EXPECT_THAT(d.target, ElementsAre("sm_75"));
  EXPECT_EQ(d.address_size, 64u);
  EXPECT_EQ(testing::diag(".version 10.0\n"),
            "1:1: PTX ISA version 10.0 is newer than simtlab supports (up to 9.x)");
  EXPECT_EQ(testing::diag(".version 9.0\n.address_size 48\n"),
            "2:1: address size must be 32 or 64");
}

TEST(PtxParser, EntryAndFuncParamsAndReturns) {
  Module m = parse(R"(
.func (.param .b32 ret0, .param .align 8 .b8 ret1[16]) two(.param .b32 a, .param .b64 b)
{
	st.param.b32 [ret0], 1;
	ret;
}
.func (.reg .b32 rr) regfn(.reg .b32 ra)
{
	add.u32 rr, ra, 1;
	ret;
}
.visible .entry k(.param .u32 p0, .param .u64 p1, .param .align 16 .b8 p2[20], .param .u8 p3)
{
	ret;
}
)");
  const Function& two = fn(m, "two");
  EXPECT_FALSE(two.is_entry);
  EXPECT_TRUE(two.defined);
  ASSERT_EQ(two.rets.size(), 2u);
  ASSERT_EQ(two.params.size(), 2u);
  EXPECT_EQ(m.vars[two.rets[1]].name, "ret1");
  EXPECT_EQ(m.vars[two.rets[1]].size, 16u);
  EXPECT_EQ(m.vars[two.rets[1]].align, 8u);
  EXPECT_EQ(m.vars[two.params[1]].type, Type::b64);
  EXPECT_EQ(m.vars[two.params[0]].space, Space::param);

  const Function& regfn = fn(m, "regfn");
  ASSERT_EQ(regfn.params.size(), 1u);
  EXPECT_EQ(m.vars[regfn.params[0]].space, Space::reg);
  // .reg parameters are usable as registers in the body.
  EXPECT_EQ(regfn.insts[0].ops[0].kind, OperandKind::reg);
  EXPECT_EQ(regfn.regs[regfn.insts[0].ops[0].id].name, "rr");
  EXPECT_EQ(regfn.regs[regfn.insts[0].ops[1].id].name, "ra");

  const Function& k = fn(m, "k");
  EXPECT_TRUE(k.is_entry);
  EXPECT_EQ(k.linkage, Linkage::visible);
  uint32_t total = 0;
  auto pf = layout_params(m, k.params, &total);
  ASSERT_EQ(pf.size(), 4u);
  EXPECT_EQ(pf[0].offset, 0u);
  EXPECT_EQ(pf[1].offset, 8u);
  EXPECT_TRUE(pf[1].is_pointer_like);
  EXPECT_EQ(pf[2].offset, 16u);  // .align 16
  EXPECT_EQ(pf[2].size, 20u);
  EXPECT_EQ(pf[3].offset, 36u);
  EXPECT_EQ(total, 37u);
}

TEST(PtxParser, PointerParamAlignIsThePointeesAlignment) {
  // `.ptr .global .align 16` describes the memory pointed to; ptxas still places the
  // parameter at offset 8 (KPARAM_INFO of the cubin: a@0 p@8 b@16).
  Module m = parse(R"(
.visible .entry k(.param .u32 a, .param .u64 .ptr .global .align 16 p, .param .u32 b)
{
	ret;
}
)");
  const Function& k = fn(m, "k");
  const Variable& p = m.vars[k.params[1]];
  EXPECT_TRUE(p.is_ptr);
  EXPECT_EQ(p.ptr_space, Space::global);
  uint32_t total = 0;
  auto pf = layout_params(m, k.params, &total);
  EXPECT_EQ(pf[1].offset, 8u);
  EXPECT_EQ(pf[2].offset, 16u);
  EXPECT_EQ(total, 20u);
}

TEST(PtxParser, Linkage) {
  Module m = parse(R"(
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);
.weak .func wf()
{
	ret;
}
.func pf()
{
	ret;
}
.visible .global .align 4 .u32 vis;
.extern .global .align 4 .u32 ext;
.weak .global .align 4 .u32 weak_v;
.common .global .align 4 .u32 com;
.global .align 4 .u32 priv;
.visible .entry k()
{
	ret;
}
)");
  EXPECT_EQ(fn(m, "vprintf").linkage, Linkage::extern_);
  EXPECT_FALSE(fn(m, "vprintf").defined);
  EXPECT_EQ(fn(m, "vprintf").params.size(), 2u);
  EXPECT_EQ(fn(m, "vprintf").rets.size(), 1u);
  EXPECT_EQ(fn(m, "wf").linkage, Linkage::weak);
  EXPECT_EQ(fn(m, "pf").linkage, Linkage::none);
  EXPECT_EQ(fn(m, "k").linkage, Linkage::visible);
  EXPECT_EQ(var(m, "vis").linkage, Linkage::visible);
  EXPECT_EQ(var(m, "ext").linkage, Linkage::extern_);
  EXPECT_EQ(var(m, "weak_v").linkage, Linkage::weak);
  EXPECT_EQ(var(m, "com").linkage, Linkage::common);
  EXPECT_EQ(var(m, "priv").linkage, Linkage::none);
}

TEST(PtxParser, ExternDeclarationBindsToLaterDefinition) {
  Module m = parse(R"(
.extern .global .align 4 .u32 later;
.visible .global .align 4 .u32 later = 5;
.visible .entry k()
{
	.reg .b32 %r<2>;
	ld.global.u32 %r1, [later];
	ret;
}
)");
  size_t n = 0;
  for (const Variable& v : m.vars) n += v.name == "later";
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(var(m, "later").linkage, Linkage::visible);
  EXPECT_THAT(init_as<uint32_t>(var(m, "later")), ElementsAre(5u));
}

TEST(PtxParser, RdcUnitsLinkByName) {
  Module m;
  add_translation_unit(m, std::string(testing::kHeader) + R"(
.extern .func (.param .b32 r) helper(.param .b32 a);
.extern .global .align 4 .u32 shared_counter;
.visible .entry k()
{
	.reg .b32 %r<3>;
	{
	.param .b32 param0;
	st.param.b32 [param0], 1;
	.param .b32 retval0;
	call.uni (retval0), helper, (param0);
	ld.param.b32 %r1, [retval0];
	}
	st.global.u32 [shared_counter], %r1;
	ret;
}
)",
                       "a.ptx");
  EXPECT_THROW(finalize_module(m), DiagError);  // helper not defined yet
  add_translation_unit(m, std::string(testing::kHeader) + R"(
.visible .global .align 4 .u32 shared_counter;
.visible .func (.param .b32 r) helper(.param .b32 a)
{
	.reg .b32 %r<2>;
	ld.param.b32 %r1, [a];
	st.param.b32 [r], %r1;
	ret;
}
)",
                       "b.ptx");
  EXPECT_NO_THROW(finalize_module(m));
  EXPECT_TRUE(fn(m, "helper").defined);
  EXPECT_EQ(m.num_units, 2u);
}

// ---- variables --------------------------------------------------------------------------

TEST(PtxParser, AllStateSpacesForVariables) {
  Module m = parse(R"(
.global .align 4 .u32 g;
.const .align 4 .u32 c;
.shared .align 4 .u32 s;
.visible .entry k()
{
	.reg .b32 %r<2>;
	.local .align 8 .b8 l[16];
	.shared .align 4 .b8 fs[8];
	.param .b32 fp;
	.const .align 4 .b8 fc[4];
	ret;
}
)");
  EXPECT_EQ(var(m, "g").space, Space::global);
  EXPECT_EQ(var(m, "c").space, Space::const_);
  EXPECT_EQ(var(m, "s").space, Space::shared);
  EXPECT_EQ(var(m, "l").space, Space::local);
  EXPECT_EQ(var(m, "fs").space, Space::shared);
  EXPECT_EQ(var(m, "fp").space, Space::param);
  EXPECT_EQ(var(m, "fc").space, Space::const_);
  const Function& k = fn(m, "k");
  EXPECT_EQ(k.locals.size(), 4u);
  for (const char* n : {"l", "fs", "fp", "fc"})
    EXPECT_EQ(var(m, n).owner, int32_t(func_id(m, "k")));
  EXPECT_EQ(var(m, "g").owner, -1);
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) +
                          ".visible .entry k()\n{\n\t.global .u32 x;\n}\n"),
            "6:2: .global variables must be declared at module scope");
}

TEST(PtxParser, DemotedSharedAndExternDynamicShared) {
  Module m = parse(R"(
.extern .shared .align 16 .b8 dyn[];
.visible .entry k()
{
	.reg .b32 %r<3>;
	// demoted variable
	.shared .align 4 .b8 _ZZ1kE4tile[1024];
	mov.u32 %r1, _ZZ1kE4tile;
	mov.u32 %r2, dyn;
	ret;
}
)");
  const Variable& tile = var(m, "_ZZ1kE4tile");
  EXPECT_EQ(tile.space, Space::shared);
  EXPECT_EQ(tile.size, 1024u);
  EXPECT_EQ(tile.align, 4u);
  EXPECT_GE(tile.owner, 0);
  const Variable& dyn = var(m, "dyn");
  EXPECT_TRUE(dyn.unsized);
  EXPECT_EQ(dyn.size, 0u);
  EXPECT_EQ(dyn.linkage, Linkage::extern_);
  KernelLayout k = layout_kernel(m, func_id(m, "k"));
  EXPECT_EQ(k.static_shared, 1024u);  // already a multiple of 16
  EXPECT_EQ(k.dynamic_shared_align, 16u);
  EXPECT_EQ(k.shared_offset.at(var_id(m, "_ZZ1kE4tile")), 0u);
  EXPECT_EQ(k.shared_offset.at(var_id(m, "dyn")), 1024u);
}

TEST(PtxParser, Alignments) {
  Module m = parse(R"(
.global .align 1 .b8 a1;
.global .align 256 .b8 a256[3];
.global .v4 .f32 vec4;
.global .u16 natural;
)");
  EXPECT_EQ(var(m, "a1").align, 1u);
  EXPECT_EQ(var(m, "a256").align, 256u);
  EXPECT_EQ(var(m, "a256").size, 3u);
  EXPECT_EQ(var(m, "vec4").vec, 4u);
  EXPECT_EQ(var(m, "vec4").size, 16u);
  EXPECT_EQ(var(m, "vec4").natural_align(), 16u);
  EXPECT_EQ(var(m, "natural").natural_align(), 2u);
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) + ".global .align 12 .u32 x;\n"),
            "4:9: alignment must be a power of two");
}

TEST(PtxParser, ArraysAndInitializers) {
  Module m = parse(R"(
.global .align 4 .u32 list[4] = {1, -2, 0x10, 3};
.global .align 4 .s32 nested[2][3] = {{1, 2, 3}, {-4, 5, 6}};
.global .align 4 .s32 partial[3][3] = {{1}, {4, 5, 6}, {-7, 8}};
.global .align 1 .u8 bytes[] = {104, 105, 0};
.global .align 4 .f32 floats[4] = {0f3F800000, -1.5, 2, -0f40000000};
.global .align 8 .f64 d = 0d4000000000000000;
.global .align 8 .f64 dneg = -0.5;
.global .align 8 .s64 big = -9223372036854775808;
.global .align 2 .b16 bits = 0xBEEF;
)");
  EXPECT_THAT(init_as<int32_t>(var(m, "list")), ElementsAre(1, -2, 16, 3));
  EXPECT_EQ(var(m, "nested").size, 24u);
  EXPECT_THAT(init_as<int32_t>(var(m, "nested")), ElementsAre(1, 2, 3, -4, 5, 6));
  // Like ptxas (checked on .nv.global.init), nested braces flatten without padding rows.
  EXPECT_EQ(var(m, "partial").size, 36u);
  EXPECT_THAT(init_as<int32_t>(var(m, "partial")), ElementsAre(1, 4, 5, 6, -7, 8));
  EXPECT_TRUE(var(m, "bytes").unsized);
  EXPECT_EQ(var(m, "bytes").size, 3u);  // unsized array sized by its initializer
  EXPECT_THAT(var(m, "bytes").init, ElementsAre(104, 105, 0));
  EXPECT_THAT(init_as<float>(var(m, "floats")), ElementsAre(1.0f, -1.5f, 2.0f, -2.0f));
  EXPECT_THAT(init_as<double>(var(m, "d")), ElementsAre(2.0));
  EXPECT_THAT(init_as<double>(var(m, "dneg")), ElementsAre(-0.5));
  EXPECT_THAT(init_as<int64_t>(var(m, "big")), ElementsAre(INT64_MIN));
  EXPECT_THAT(init_as<uint16_t>(var(m, "bits")), ElementsAre(0xBEEF));
}

TEST(PtxParser, InitializerErrors) {
  const std::string h = testing::kHeader;
  EXPECT_EQ(testing::diag(h + ".global .u32 a[2] = {1, 2, 3};\n"),
            "4:28: initializer of 'a' has 12 bytes but the variable has 8");
  EXPECT_EQ(testing::diag(h + ".global .u32 a = 1.5;\n"),
            "4:18: floating-point initializer for the .u32 variable 'a'");
  EXPECT_EQ(testing::diag(h + ".global .u32 a[2] = {1 2};\n"),
            "4:24: expected ',' or '}' in initializer");
  EXPECT_EQ(testing::diag(h + ".global .u64 a = nowhere;\n"),
            "4:18: undeclared symbol 'nowhere' in initializer");
  EXPECT_EQ(testing::diag(h + ".global .u8 a[2] = {1, 2\n"),
            "4:25: unterminated initializer (unexpected end of input)");
}

TEST(PtxParser, AddressInitializersAreRelocations) {
  Module m = parse(R"(
.global .align 4 .u32 arr[4];
.func helper()
{
	ret;
}
.global .align 8 .u64 table[4] = {generic(arr), arr+8, helper, generic(arr)+4};
.const .align 4 .u32 small = arr;
)");
  const Variable& t = var(m, "table");
  ASSERT_EQ(t.relocs.size(), 4u);
  EXPECT_EQ(t.relocs[0].offset, 0u);
  EXPECT_TRUE(t.relocs[0].generic);
  EXPECT_EQ(t.relocs[0].target, var_id(m, "arr"));
  EXPECT_EQ(t.relocs[1].offset, 8u);
  EXPECT_FALSE(t.relocs[1].generic);
  EXPECT_EQ(t.relocs[1].addend, 8);
  EXPECT_TRUE(t.relocs[2].is_func);
  EXPECT_EQ(t.relocs[2].target, func_id(m, "helper"));
  EXPECT_EQ(t.relocs[3].offset, 24u);
  EXPECT_TRUE(t.relocs[3].generic);
  EXPECT_EQ(t.relocs[3].addend, 4);
  EXPECT_EQ(t.relocs[0].size, 8u);
  ASSERT_EQ(var(m, "small").relocs.size(), 1u);
  EXPECT_EQ(var(m, "small").relocs[0].size, 4u);
}

// ---- registers, performance directives, labels -------------------------------------------

TEST(PtxParser, RegisterDeclarations) {
  Module m = parse_kernel(R"(	.reg .pred %p<3>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<2>, %extra;
	.reg .f32 x, y;
	.reg .b16 %rs<0>;
	ret;
)");
  const Function& k = fn(m, "k");
  ASSERT_EQ(k.regs.size(), 3u + 5u + 3u + 2u);
  EXPECT_EQ(k.regs[0].name, "%p0");
  EXPECT_TRUE(k.regs[2].is_pred());
  EXPECT_EQ(k.regs[3].name, "%r0");
  EXPECT_EQ(k.regs[7].name, "%r4");
  EXPECT_EQ(k.regs[7].type, Type::b32);
  EXPECT_EQ(k.regs[9].name, "%rd1");
  EXPECT_EQ(k.regs[10].name, "%extra");
  EXPECT_EQ(k.regs[10].type, Type::b64);
  EXPECT_EQ(k.regs[12].name, "y");
  EXPECT_EQ(k.regs[12].type, Type::f32);
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) +
                          ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t.reg .b32 %r1;\n}\n"),
            "7:12: register '%r1' is already declared in this scope");
}

TEST(PtxParser, PerformanceDirectivesAndPragma) {
  Module m = parse(R"(
.visible .entry a()
.maxntid 256, 2, 1
.minnctapersm 4
.maxnreg 40
{
	.pragma "nounroll";
	ret;
}
.visible .entry b()
.reqntid 64
.pragma "used_bytes_mask 15";
{
	ret;
}
)");
  const Function& a = fn(m, "a");
  EXPECT_EQ(a.maxntid.x, 256u);
  EXPECT_EQ(a.maxntid.y, 2u);
  EXPECT_EQ(a.maxntid.z, 1u);
  EXPECT_EQ(a.minnctapersm, 4u);
  EXPECT_EQ(a.maxnreg, 40u);
  EXPECT_THAT(a.pragmas, ElementsAre("\"nounroll\""));
  const Function& b = fn(m, "b");
  EXPECT_EQ(b.reqntid.x, 64u);
  EXPECT_EQ(b.reqntid.y, 1u);
  EXPECT_EQ(b.reqntid.z, 1u);
  EXPECT_THAT(b.pragmas, ElementsAre("\"used_bytes_mask 15\""));
}

TEST(PtxParser, LabelsAndPredicates) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra $L__BB0_2;
	@!%p1 add.s32 %r2, %r2, 1;
$L__BB0_2: L_same_line: ret;
)");
  const Function& k = fn(m, "k");
  ASSERT_EQ(k.insts.size(), 4u);
  EXPECT_EQ(k.insts[1].guard, int32_t(reg_id(k, "%p1")));
  EXPECT_FALSE(k.insts[1].guard_neg);
  EXPECT_EQ(k.insts[1].ops[0].kind, OperandKind::label);
  EXPECT_EQ(k.label_names[k.insts[1].ops[0].id], "$L__BB0_2");
  EXPECT_EQ(k.label_target[k.insts[1].ops[0].id], 3);
  EXPECT_EQ(k.insts[2].guard, int32_t(reg_id(k, "%p1")));
  EXPECT_TRUE(k.insts[2].guard_neg);
  EXPECT_EQ(k.insts[3].op, Op::ret);
  ASSERT_EQ(k.label_names.size(), 2u);
  EXPECT_EQ(k.label_target[1], 3);  // two labels on one instruction
}

// ---- operands -----------------------------------------------------------------------------

TEST(PtxParser, VectorOperands) {
  Module m = parse_kernel(R"(	.reg .f32 %f<5>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
	st.global.v2.u32 [%rd1+8], {%r1, %r2};
	mov.b64 {%r1, %r2}, %rd2;
	mov.b64 %rd2, {%r1, %r2};
	ld.global.v2.u32 {%r1, _}, [%rd1];
	ret;
)");
  const Function& k = fn(m, "k");
  const Instruction& ld = k.insts[0];
  EXPECT_EQ(ld.vec, 4u);
  ASSERT_EQ(ld.ops[0].kind, OperandKind::vec);
  EXPECT_EQ(ld.ops[0].count, 4u);
  EXPECT_EQ(ld.elem(ld.ops[0], 3).id, reg_id(k, "%f4"));
  const Instruction& st = k.insts[1];
  EXPECT_EQ(st.ops[1].kind, OperandKind::vec);
  EXPECT_EQ(st.ops[1].count, 2u);
  EXPECT_EQ(k.insts[2].ops[0].kind, OperandKind::vec);
  EXPECT_EQ(k.insts[3].ops[1].kind, OperandKind::vec);
  EXPECT_EQ(k.insts[4].elem(k.insts[4].ops[0], 1).kind, OperandKind::sink);
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) +
                          ".visible .entry k()\n{\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd1;\n"
                          "\tld.global.v4.f32 {%f1, %f2}, [%rd1];\n}\n"),
            "8:2: 'ld.global.v4.f32' needs a {...} operand with 4 elements");
}

TEST(PtxParser, AddressForms) {
  Module m = parse(R"(
.global .align 4 .u32 gv[8];
.visible .entry k()
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.global.u32 %r1, [%rd1];
	ld.global.u32 %r1, [%rd1+16];
	ld.global.u32 %r1, [%rd1+-4];
	ld.global.u32 %r1, [%rd1-8];
	ld.global.u32 %r1, [gv];
	ld.global.u32 %r1, [gv+12];
	ld.global.u32 %r1, [0x1000];
	ld.shared.u32 %r1, [%r2+4];
	ret;
}
)");
  const Function& k = fn(m, "k");
  auto addr = [&](size_t i) { return k.insts[i].ops[1]; };
  EXPECT_EQ(addr(0).kind, OperandKind::addr);
  EXPECT_EQ(addr(0).base, OperandKind::reg);
  EXPECT_EQ(addr(0).id, reg_id(k, "%rd1"));
  EXPECT_EQ(addr(0).imm, 0);
  EXPECT_EQ(addr(1).imm, 16);
  EXPECT_EQ(addr(2).imm, -4);
  EXPECT_EQ(addr(3).imm, -8);
  EXPECT_EQ(addr(4).base, OperandKind::sym);
  EXPECT_EQ(addr(4).id, var_id(m, "gv"));
  EXPECT_EQ(addr(5).base, OperandKind::sym);
  EXPECT_EQ(addr(5).imm, 12);
  EXPECT_EQ(addr(6).base, OperandKind::none);
  EXPECT_EQ(addr(6).imm, 0x1000);
  EXPECT_EQ(addr(7).base, OperandKind::reg);
  EXPECT_EQ(addr(7).id, reg_id(k, "%r2"));
  EXPECT_EQ(dump_operand(m, k, k.insts[2], addr(2)), "[%rd1-4]");
  EXPECT_EQ(dump_operand(m, k, k.insts[5], addr(5)), "[gv+12]");
}

TEST(PtxParser, Immediates) {
  Module m = parse_kernel(R"(	.reg .b32 %r<2>;
	.reg .f32 %f<2>;
	.reg .f64 %fd<2>;
	.reg .b64 %rd<2>;
	mov.u32 %r1, 42;
	mov.u32 %r1, 0x7FFFFFFF;
	mov.u32 %r1, -5;
	mov.b32 %r1, 0b101;
	mov.b32 %r1, 017;
	mov.f32 %f1, 0f3F800000;
	mov.f32 %f1, 1.5;
	mov.f32 %f1, -0f3F800000;
	mov.f64 %fd1, 0d4000000000000000;
	mov.f64 %fd1, -2.25;
	mov.f64 %fd1, 3;
	mov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;
	mov.u32 %r1, WARP_SZ;
	ret;
)");
  const Function& k = fn(m, "k");
  auto imm = [&](size_t i) {
    EXPECT_EQ(k.insts[i].ops[1].kind, OperandKind::imm) << i;
    return k.insts[i].ops[1].imm;
  };
  EXPECT_EQ(imm(0), 42);
  EXPECT_EQ(imm(1), 0x7fffffff);
  EXPECT_EQ(imm(2), -5);  // integers are sign-extended
  EXPECT_EQ(imm(3), 5);
  EXPECT_EQ(imm(4), 15);  // octal
  EXPECT_EQ(imm(5), 0x3f800000);
  EXPECT_EQ(imm(6), 0x3fc00000);  // decimal floats become the operand type's IEEE bits
  EXPECT_EQ(imm(7), 0xbf800000);
  EXPECT_EQ(uint64_t(imm(8)), 0x4000000000000000ull);
  EXPECT_EQ(uint64_t(imm(9)), bitcast<uint64_t>(-2.25));
  EXPECT_EQ(uint64_t(imm(10)), bitcast<uint64_t>(3.0));
  EXPECT_EQ(imm(11), -1);
  EXPECT_EQ(imm(12), 32);  // WARP_SZ
}

TEST(PtxParser, SpecialRegisters) {
  Module m = parse_kernel(R"(	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	mov.u32 %r1, %tid.y;
	mov.u32 %r1, %nctaid.z;
	mov.u32 %r1, %laneid;
	mov.u32 %r1, %lanemask_lt;
	mov.u64 %rd1, %clock64;
	mov.u32 %r1, %envreg2;
	ret;
)");
  const Function& k = fn(m, "k");
  EXPECT_EQ(k.insts[0].ops[1].kind, OperandKind::sreg);
  EXPECT_EQ(k.insts[0].ops[1].sreg, Sreg::tid);
  EXPECT_EQ(k.insts[0].ops[1].comp, 1u);
  EXPECT_EQ(k.insts[1].ops[1].sreg, Sreg::nctaid);
  EXPECT_EQ(k.insts[1].ops[1].comp, 2u);
  EXPECT_EQ(k.insts[2].ops[1].sreg, Sreg::laneid);
  EXPECT_EQ(k.insts[3].ops[1].sreg, Sreg::lanemask_lt);
  EXPECT_EQ(k.insts[4].ops[1].sreg, Sreg::clock64);
  EXPECT_EQ(k.insts[5].ops[1].sreg, Sreg::envreg);
  EXPECT_EQ(k.insts[5].ops[1].comp, 2u);
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) +
                          ".visible .entry k()\n{\n\t.reg .b32 %r1;\n\tmov.u32 %r1, %tid;\n}\n"),
            "7:15: special register '%tid' needs a component .x, .y or .z");
}

// ---- calls --------------------------------------------------------------------------------

TEST(PtxParser, CallSequenceWithParamBlocks) {
  Module m = parse(R"(
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.visible .entry k()
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd2;
	.param .b32 retval0;
	call.uni (retval0), 
	vprintf, 
	(
	param0, 
	param1
	);
	ld.param.b32 	%r1, [retval0+0];
	} // callseq 0
	ret;
}
)");
  const Function& k = fn(m, "k");
  ASSERT_EQ(k.insts.size(), 5u);
  const Instruction& call = k.insts[2];
  ASSERT_TRUE(call.call);
  EXPECT_TRUE(call.has(IF_UNI));
  EXPECT_EQ(call.call->target.kind, OperandKind::func);
  EXPECT_EQ(m.funcs[call.call->target.id].name, "vprintf");
  ASSERT_EQ(call.call->rets.size(), 1u);
  EXPECT_EQ(call.call->rets[0].kind, OperandKind::sym);
  EXPECT_EQ(m.vars[call.call->rets[0].id].name, "retval0");
  ASSERT_EQ(call.call->args.size(), 2u);
  EXPECT_EQ(m.vars[call.call->args[1].id].name, "param1");
  // The call's param block variables are function-scope .param variables in the frame.
  EXPECT_EQ(m.vars[call.call->args[0].id].space, Space::param);
  EXPECT_EQ(k.insts[0].ops[0].base, OperandKind::sym);
  FrameLayout fr = layout_frame(m, func_id(m, "k"));
  EXPECT_EQ(fr.bytes, 32u);  // param0@0 param1@8 retval0@16 -> 20, rounded to 16
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) + R"(.func f(.param .b32 a)
{
	ret;
}
.visible .entry k()
{
	call.uni f, ();
}
)"),
            "10:11: call to 'f' passes 0 arguments, it takes 1");
}

TEST(PtxParser, CallPrototypeAndIndirectCall) {
  Module m = parse(R"(
.func (.param .b32 r) target(.param .b32 a)
{
	st.param.b32 [r], 7;
	ret;
}
.visible .entry k()
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	mov.u64 %rd1, target;
	{
	.param .b32 param0;
	st.param.b32 [param0], 1;
	.param .b32 retval0;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), %rd1, (param0), prototype_0;
	ld.param.b32 %r1, [retval0];
	}
	ret;
}
)");
  const Function& k = fn(m, "k");
  ASSERT_EQ(k.prototypes.size(), 1u);
  EXPECT_EQ(k.prototypes[0].name, "prototype_0");
  ASSERT_EQ(k.prototypes[0].rets.size(), 1u);
  ASSERT_EQ(k.prototypes[0].params.size(), 1u);
  EXPECT_EQ(k.prototypes[0].params[0].type, Type::b32);
  EXPECT_EQ(k.insts[0].ops[1].kind, OperandKind::func);
  const Instruction& call = k.insts[2];
  ASSERT_TRUE(call.call);
  EXPECT_EQ(call.call->target.kind, OperandKind::reg);
  EXPECT_EQ(call.call->target.id, reg_id(k, "%rd1"));
  EXPECT_EQ(call.call->prototype, 0);
  KernelLayout kl = layout_kernel(m, func_id(m, "k"));
  EXPECT_TRUE(kl.has_indirect_calls);
  EXPECT_NE(std::find(kl.functions.begin(), kl.functions.end(), func_id(m, "target")),
            kl.functions.end());
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) +
                          ".visible .entry k()\n{\n\t.reg .b64 %rd1;\n\tcall %rd1, ();\n}\n"),
            "7:7: an indirect call needs a .callprototype");
}

// ---- skipped directives, warp instructions, scoped blocks --------------------------------

TEST(PtxParser, FileLocSectionAreSkipped) {
  Module m = parse(R"(
.file 1 "/src/kernel.cu"
.file 2 "/usr/include/x.h", 1700000000, 4096
.visible .entry k()
{
	.reg .b32 %r<2>;
	.loc 1 12 5
	mov.u32 %r1, 1;
	.loc 1 13 3, function_name $L__info_string0, inlined_at 1 20 7
	ret;
}
.section .debug_abbrev
{
.b8 1
.b8 17
.b8 {1, 2}
}
.section .debug_info { .b32 58 }
)");
  EXPECT_EQ(m.files.size(), 3u);
  EXPECT_EQ(m.files[1], "/src/kernel.cu");
  EXPECT_EQ(m.files[2], "/usr/include/x.h");
  EXPECT_EQ(fn(m, "k").insts.size(), 2u);
}

TEST(PtxParser, VoteBallotInBothModifierOrders) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	vote.sync.ballot.b32 %r1, %p1, -1;
	vote.ballot.sync.b32 %r2, %p1, 0xffffffff;
	vote.sync.any.pred %p0, %p1, -1;
	ret;
)");
  const Function& k = fn(m, "k");
  for (int i = 0; i < 2; ++i) {
    const Instruction& v = k.insts[size_t(i)];
    EXPECT_EQ(v.op, Op::vote);
    EXPECT_EQ(v.vote_mode(), VoteMode::ballot);
    EXPECT_TRUE(v.has(IF_SYNC));
    EXPECT_EQ(v.type, Type::b32);
    EXPECT_EQ(v.ndst, 1u);
    EXPECT_EQ(full_mnemonic(v), "vote.ballot.sync.b32");
  }
  EXPECT_EQ(k.insts[2].vote_mode(), VoteMode::any);
  EXPECT_EQ(k.insts[2].ops[0].kind, OperandKind::pred);
}

TEST(PtxParser, ScopedBlocksShadowRegisters) {
  // What nvcc makes of inline asm: `{ .reg ... }` blocks whose names shadow outer ones.
  Module m = parse_kernel(R"(	.reg .b32 %r<3>;
	mov.u32 %r1, 1;
	{
	.reg .b32 %r1;
	.reg .pred p;
	mov.u32 %r1, 2;
	setp.ne.u32 p, %r1, 0;
	{
	.reg .pred p;
	setp.eq.u32 p, %r1, 5;
	}
	@p mov.u32 %r2, %r1;
	}
	add.u32 %r2, %r1, 1;
	ret;
)");
  const Function& k = fn(m, "k");
  const uint32_t outer = 1;  // %r1 of `.reg .b32 %r<3>`
  ASSERT_EQ(k.regs[outer].name, "%r1");
  const uint32_t inner = reg_id(k, "%r1");
  EXPECT_NE(inner, outer);
  EXPECT_EQ(k.insts[0].ops[0].id, outer);
  EXPECT_EQ(k.insts[1].ops[0].id, inner);
  EXPECT_EQ(k.insts[2].ops[1].id, inner);
  const uint32_t p_outer = k.insts[2].ops[0].id;
  const uint32_t p_inner = k.insts[3].ops[0].id;
  EXPECT_NE(p_outer, p_inner);
  EXPECT_EQ(k.insts[4].guard, int32_t(p_outer));  // inner block closed: outer p again
  EXPECT_EQ(k.insts[4].ops[1].id, inner);
  EXPECT_EQ(k.insts[5].ops[1].id, outer);  // scope closed: outer %r1 again
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) +
                          ".visible .entry k()\n{\n\t{\n\t.reg .b32 t;\n\t}\n\tmov.u32 t, 1;\n}\n"),
            "9:10: undeclared identifier 't'");
}

TEST(PtxParser, PackedConversionsTakeTwoSources) {
  // cvt.rn.f16x2.f32 d, a, b packs two floats (nvcc's __floats2half2_rn / bf16 forms).
  Module m = parse(R"(
.visible .entry k()
{
	.reg .b32 %r<3>;
	.reg .f32 %f<3>;
	.reg .b16 %rs<2>;
	cvt.rn.f16x2.f32 %r1, %f1, %f2;
	cvt.rn.bf16x2.f32 %r2, %f2, %f1;
	cvt.rn.f16.f32 %rs1, %f1;
	ret;
}
)");
  const Function& k = fn(m, "k");
  EXPECT_EQ(k.insts[0].ops.size(), 3u);
  EXPECT_EQ(k.insts[0].type, Type::f16x2);
  EXPECT_EQ(k.insts[1].type, Type::bf16x2);
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) +
                          ".visible .entry k()\n{\n\t.reg .b16 %rs1;\n\t.reg .f32 %f<3>;\n"
                          "\tcvt.rn.f16.f32 %rs1, %f1, %f2;\n}\n"),
            "8:2: 'cvt.rn.f16.f32' takes 2 operands, got 3");
}

TEST(PtxParser, ModifiersDecode) {
  Module m = parse_kernel(R"(	.reg .pred %p<3>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<3>;
	.reg .f32 %f<3>;
	ld.global.nc.v2.f32 {%f1, %f2}, [%rd1];
	ld.volatile.shared.u32 %r1, [%r2];
	st.global.cg.u32 [%rd1], %r1;
	atom.global.cas.b32 %r1, [%rd1], %r2, %r3;
	atom.acq_rel.gpu.global.add.u32 %r1, [%rd1], 1;
	mul.wide.s32 %rd2, %r1, 4;
	mad.lo.s32 %r1, %r2, %r3, %r4;
	setp.lt.and.f32 %p1, %f1, %f2, %p2;
	cvt.rzi.s32.f32 %r1, %f1;
	cvta.to.global.u64 %rd1, %rd2;
	shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, -1;
	bar.sync 0;
	bar.red.or.pred %p1, 0, %p2;
	add.cc.u32 %r1, %r2, %r3;
	ex2.approx.ftz.f32 %f1, %f2;
	ret;
)");
  const Function& k = fn(m, "k");
  std::vector<std::string> names;
  for (const Instruction& in : k.insts) names.push_back(full_mnemonic(in));
  EXPECT_THAT(names, ElementsAre("ld.global.nc.v2.f32", "ld.shared.volatile.u32", "st.global.u32",
                                 "atom.global.cas.b32", "atom.global.add.u32", "mul.wide.s32",
                                 "mad.lo.s32", "setp.lt.and.f32", "cvt.rzi.s32.f32",
                                 "cvta.to.global.u64", "shfl.sync.idx.b32", "bar.sync",
                                 "bar.red.or.pred", "add.cc.u32", "ex2.approx.ftz.f32", "ret"));
  EXPECT_EQ(k.insts[2].cache, CacheOp::cg);
  EXPECT_EQ(k.insts[4].sem, Sem::acq_rel);
  EXPECT_EQ(k.insts[4].scope, Scope::gpu);
  EXPECT_EQ(k.insts[7].boolop, BoolOp::and_);
  EXPECT_EQ(k.insts[10].ndst, 2u);
  EXPECT_EQ(k.insts[12].ndst, 1u);
  EXPECT_EQ(k.insts[5].exec, ExecClass::int_mul);
  EXPECT_EQ(k.insts[14].exec, ExecClass::sfu);
}

TEST(PtxParser, InstructionTextPointsIntoSource) {
  Module m = parse_kernel("\t.reg .b32 %r<2>;\n\tadd.s32 %r1, %r1, 1; // comment\n\tret;\n");
  const Instruction& in = fn(m, "k").insts[0];
  EXPECT_EQ(in.line, 7u);
  EXPECT_EQ(in.col, 2u);
  EXPECT_EQ(in.text, "add.s32 %r1, %r1, 1; // comment");
}

// -lineinfo / -G: `.loc file line col` before instructions gives them a CUDA source position;
// `.file` comes after the functions and each translation unit numbers its own files.
TEST(PtxParser, LocGivesInstructionsTheirSourceLine) {
  const std::string unit1 = R"(.version 8.5
.target sm_75
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<3>;
  mov.u32 %r1, 1;
  .loc 1 10 3
  mov.u32 %r2, 2;
  .loc 2 110 3, function_name $L__info_string0, inlined_at 1 12 7
  add.s32 %r1, %r1, %r2;
  .loc 1 13 1
  ret;
}
  .file 1 "/src/a.cu"
  .file 2 "/inc/b.hpp", 1700000000, 1234
)";
  const std::string unit2 = R"(.version 8.5
.target sm_75
.address_size 64
.visible .entry k2()
{
  .loc 1 7 2
  ret;
}
  .file 1 "/src/c.cu"
)";
  Module m = parse_module(unit1, "u1.ptx");
  add_translation_unit(m, unit2, "u2.ptx");
  ASSERT_EQ(m.files.size(), 4u);
  EXPECT_EQ(m.files[0], "");
  const Function& k = m.funcs[func_id(m, "k")];
  ASSERT_EQ(k.insts.size(), 4u);
  // Before any .loc: no source position.
  EXPECT_EQ(k.insts[0].src_file, 0u);
  EXPECT_EQ(k.insts[0].src_line, 0u);
  EXPECT_EQ(m.files[k.insts[1].src_file], "/src/a.cu");
  EXPECT_EQ(k.insts[1].src_line, 10u);
  EXPECT_EQ(k.insts[1].src_col, 3u);
  // Inlined code: the innermost (callee) position.
  EXPECT_EQ(m.files[k.insts[2].src_file], "/inc/b.hpp");
  EXPECT_EQ(k.insts[2].src_line, 110u);
  EXPECT_EQ(k.insts[3].src_line, 13u);
  // The second unit's file 1 is its own.
  const Function& k2 = m.funcs[func_id(m, "k2")];
  EXPECT_EQ(m.files[k2.insts[0].src_file], "/src/c.cu");
  EXPECT_EQ(k2.insts[0].src_line, 7u);
}

TEST(PtxParser, MalformedLocNamesItsPosition) {
  try {
    parse_kernel("  .loc 1 x 3\n  ret;\n");
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(".loc expects a file number, a line and a column"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace simtlab::ptx
