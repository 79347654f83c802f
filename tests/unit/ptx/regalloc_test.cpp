// Register allocation (src/ptx/regalloc.h): exact allocations of small hand-written CFGs, and
// every function of the committed PTX files allocated and checked by an independent
// value-tracking checker (a forward "slot s holds virtual register v" must-analysis: every
// read of v must find v's value in all of v's architectural registers on every path).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "ptx/cfg.h"
#include "ptx/regalloc.h"
#include "ptx_test_util.h"

namespace simtlab::ptx {
namespace {

using ::testing::ElementsAre;
using testing::fn;
using testing::parse;
using testing::parse_kernel;
using testing::reg_id;

std::string name_of(const Function& f, const RegAlloc& a, const std::string& reg) {
  return arch_reg_name(a.regs[reg_id(f, reg)]);
}

/// Checks that `a` preserves every value `f` reads. Returns "" or the first violation.
std::string check_allocation(const Function& f, const RegAlloc& a) {
  const uint32_t nr = uint32_t(f.regs.size());
  const uint32_t nslots = a.count + a.pred_count;
  // Slot numbering: R0..R(count-1), then the predicate file.
  auto slots_of = [&](uint32_t r, std::vector<uint32_t>& out) {
    out.clear();
    const ArchReg& x = a.regs[r];
    // A constant-bank value occupies no register; a spilled one its temporary when defined.
    if (x.base < 0 || x.home == RegHome::constant) return;
    const uint32_t b = uint32_t(x.base) + (x.pred ? a.count : 0);
    for (uint32_t k = 0; k < x.width; ++k) out.push_back(b + k);
  };
  auto fact = [&](uint32_t slot, uint32_t r) { return size_t(slot) * nr + r; };
  const size_t nbits = size_t(nslots) * nr;
  std::vector<uint32_t> defs, uses, ss, src_ss;
  // Apply instruction `in` to (kill, gen) or to a state.
  auto transfer = [&](const Instruction& in, BitSet& state) {
    inst_defs(in, defs);
    int64_t copy_src = -1;
    if (in.op == Op::mov && in.ops.size() == 2 && in.ops[0].kind == OperandKind::reg &&
        in.ops[1].kind == OperandKind::reg &&
        a.regs[in.ops[0].id].base == a.regs[in.ops[1].id].base &&
        a.regs[in.ops[0].id].width == a.regs[in.ops[1].id].width &&
        a.regs[in.ops[0].id].pred == a.regs[in.ops[1].id].pred)
      copy_src = in.ops[1].id;
    for (uint32_t d : defs) {
      slots_of(d, ss);
      for (uint32_t s : ss)
        for (uint32_t w = 0; w < nr; ++w)
          if (w != d && int64_t(w) != copy_src) state.reset(fact(s, w));
    }
    for (uint32_t d : defs) {
      slots_of(d, ss);
      for (uint32_t s : ss) state.set(fact(s, d));
    }
  };
  DataflowProblem p;
  p.dir = DataflowProblem::Dir::forward;
  p.meet = DataflowProblem::Meet::intersection;
  p.bits = nbits;
  p.boundary = BitSet(nbits);
  p.boundary.fill();  // undefined values: any content will do
  for (const BasicBlock& b : f.blocks) {
    // gen/kill from the block's effect on an all-ones and an all-zeros state.
    BitSet ones(nbits), zeros(nbits);
    ones.fill();
    for (uint32_t i = b.first; i < b.last; ++i) {
      transfer(f.insts[i], ones);
      transfer(f.insts[i], zeros);
    }
    BitSet kill(nbits);
    kill.fill();
    kill.minus(ones);  // facts cleared whatever the input
    p.gen.push_back(zeros);
    p.kill.push_back(kill);
  }
  const DataflowResult r = solve_dataflow(f, p);
  for (size_t bi = 0; bi < f.blocks.size(); ++bi) {
    if (!f.blocks[bi].reachable) continue;
    BitSet state = r.in[bi];
    for (uint32_t i = f.blocks[bi].first; i < f.blocks[bi].last; ++i) {
      const Instruction& in = f.insts[i];
      inst_uses(in, uses);
      for (uint32_t u : uses) {
        if (a.regs[u].home != RegHome::reg) continue;  // read from the bank / reloaded
        slots_of(u, ss);
        if (ss.empty()) return "unallocated register " + f.regs[u].name;
        for (uint32_t s : ss)
          if (!state.test(fact(s, u)))
            return "instruction " + std::to_string(i) + " (" + std::string(in.text) + ") reads " +
                   f.regs[u].name + " but its register was overwritten";
      }
      transfer(in, state);
    }
  }
  // Widths and alignment.
  for (uint32_t x = 0; x < nr; ++x) {
    const ArchReg& ar = a.regs[x];
    if (ar.base < 0) continue;
    if (!ar.pred && ar.width >= 2 && ar.base % 2) return "odd pair " + f.regs[x].name;
    if (uint32_t(ar.base) + ar.width > (ar.pred ? a.pred_count : a.count))
      return "beyond count " + f.regs[x].name;
  }
  return "";
}

TEST(PtxRegAlloc, StraightLine) {
  Module m = parse_kernel(R"(	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_p];
	mov.u32 %r1, %tid.x;
	add.s32 %r2, %r1, 1;
	mul.lo.s32 %r3, %r1, %r2;
	st.global.u32 [%rd1], %r3;
	ret;
)");
  const Function& k = fn(m, "k");
  const RegAlloc a = allocate_registers(k);
  EXPECT_EQ(name_of(k, a, "%rd1"), "R0:R1");
  EXPECT_EQ(name_of(k, a, "%r1"), "R2");
  EXPECT_EQ(name_of(k, a, "%r2"), "R3");
  EXPECT_EQ(name_of(k, a, "%r3"), "R2");  // both sources die: the lowest free register
  EXPECT_EQ(name_of(k, a, "%r0"), "-");   // declared, never used
  EXPECT_THAT(a.live_in, ElementsAre(0, 2, 3, 4, 3, 0));
  EXPECT_THAT(a.live_out, ElementsAre(2, 3, 4, 3, 0, 0));
  EXPECT_EQ(a.count, 4u);
  EXPECT_EQ(a.max_live, 4u);
  EXPECT_EQ(a.pred_count, 0u);
  EXPECT_FALSE(a.over_cap);
  EXPECT_EQ(check_allocation(k, a), "");
}

TEST(PtxRegAlloc, DiamondSharesTheJoinedValue) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_p];
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra ELSE;
	add.s32 %r4, %r1, 1;
	bra.uni JOIN;
ELSE:
	mul.lo.s32 %r4, %r1, 3;
JOIN:
	add.s32 %r2, %r4, %r1;
	st.global.u32 [%rd1], %r2;
	ret;
)");
  const Function& k = fn(m, "k");
  const RegAlloc a = allocate_registers(k);
  EXPECT_EQ(name_of(k, a, "%rd1"), "R0:R1");
  EXPECT_EQ(name_of(k, a, "%r1"), "R2");
  EXPECT_EQ(name_of(k, a, "%r4"), "R3");  // one register on both paths
  EXPECT_EQ(name_of(k, a, "%r2"), "R2");
  EXPECT_EQ(name_of(k, a, "%p1"), "P0");
  EXPECT_EQ(a.count, 4u);
  EXPECT_EQ(a.max_live, 4u);
  EXPECT_EQ(a.pred_count, 1u);
  EXPECT_EQ(check_allocation(k, a), "");
}

TEST(PtxRegAlloc, LoopCarriedValuesKeepTheirRegisters) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_p];
	mov.u32 %r1, 0;
	mov.u32 %r2, 0;
LOOP:
	mul.lo.s32 %r3, %r1, %r1;
	add.s32 %r2, %r2, %r3;
	add.s32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 10;
	@%p1 bra LOOP;
	st.global.u32 [%rd1], %r2;
	ret;
)");
  const Function& k = fn(m, "k");
  const RegAlloc a = allocate_registers(k);
  EXPECT_EQ(name_of(k, a, "%rd1"), "R0:R1");  // live around the loop
  EXPECT_EQ(name_of(k, a, "%r1"), "R2");
  EXPECT_EQ(name_of(k, a, "%r2"), "R3");
  EXPECT_EQ(name_of(k, a, "%r3"), "R4");
  // The back edge keeps %r1/%r2/%rd1 live at the loop head.
  EXPECT_EQ(a.live_in[3], 4u);
  EXPECT_EQ(a.live_out[3], 5u);
  EXPECT_EQ(a.count, 5u);
  EXPECT_EQ(a.max_live, 5u);
  EXPECT_EQ(check_allocation(k, a), "");
}

TEST(PtxRegAlloc, CheckerCatchesAClobberedValue) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	mov.u32 %r1, 0;
	mov.u32 %r2, 0;
LOOP:
	add.s32 %r2, %r2, %r1;
	add.s32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 10;
	@%p1 bra LOOP;
	st.global.u32 [%r2], %r2;
	ret;
)");
  const Function& k = fn(m, "k");
  RegAlloc a = allocate_registers(k);
  ASSERT_EQ(check_allocation(k, a), "");
  a.regs[reg_id(k, "%r2")].base = a.regs[reg_id(k, "%r1")].base;  // the loop-carried pair
  EXPECT_THAT(check_allocation(k, a), ::testing::HasSubstr("overwritten"));
}

// In definition order %r1 takes R0, %rd1 then R2:R3, %rd2 R4:R5 and R1 stays a hole
// (6 registers); placing the pairs first gives the optimum, 5.
TEST(PtxRegAlloc, ValuesLiveIntoTheEntryInterfereEvenWhenALoopReturnsThere) {
  Module m = parse_kernel(R"(	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
TOP:
	st.global.u32 [%rd1], %r1;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra TOP;
	ret;
)");
  const Function& k = fn(m, "k");
  ASSERT_FALSE(k.blocks[0].preds.empty());
  const RegAlloc a = allocate_registers(k);  // never defined: live into the entry
  EXPECT_EQ(name_of(k, a, "%rd1"), "R0:R1");
  EXPECT_EQ(name_of(k, a, "%r1"), "R2");
  EXPECT_EQ(name_of(k, a, "%r2"), "R3");
  EXPECT_EQ(a.count, 4u);
}

TEST(PtxRegAlloc, PairsAreAlignedAndPlacedBeforeSingles) {
  Module m = parse_kernel(R"(	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [k_p];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
)");
  const Function& k = fn(m, "k");
  const RegAlloc a = allocate_registers(k);
  EXPECT_EQ(name_of(k, a, "%rd1"), "R0:R1");
  EXPECT_EQ(name_of(k, a, "%rd2"), "R2:R3");
  EXPECT_EQ(name_of(k, a, "%rd3"), "R0:R1");
  EXPECT_EQ(name_of(k, a, "%r1"), "R4");
  EXPECT_EQ(a.max_live, 5u);  // %r1 + two pairs
  EXPECT_EQ(a.count, 5u);
  EXPECT_EQ(check_allocation(k, a), "");
}

TEST(PtxRegAlloc, ReservedRegistersAreSkippedAndCounted) {
  Module m = parse_kernel(R"(	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [k_p];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
)");
  const Function& k = fn(m, "k");
  RegAllocOptions opt;
  opt.reserved = {1};  // the sm_70+ stack pointer
  const RegAlloc a = allocate_registers(k, opt);
  EXPECT_EQ(name_of(k, a, "%rd1"), "R2:R3");
  EXPECT_EQ(name_of(k, a, "%rd2"), "R4:R5");
  EXPECT_EQ(name_of(k, a, "%rd3"), "R2:R3");
  EXPECT_EQ(name_of(k, a, "%r1"), "R0");
  EXPECT_EQ(a.count, 6u);
  EXPECT_EQ(check_allocation(k, a), "");
  // A kernel using no register still counts the reserved one.
  Module e = parse_kernel("\tret;\n");
  EXPECT_EQ(allocate_registers(fn(e, "k"), opt).count, 2u);
  EXPECT_EQ(allocate_registers(fn(e, "k")).count, 0u);
}

// SASS model: a load is live from the first point its operands allow (its block, past other
// loads and stores to another space), not past a store that may alias.
TEST(PtxRegAlloc, LoadsAreHoistedUntilAStoreThatMayAlias) {
  Module m = parse_kernel(R"(	.reg .b32 %r<9>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_p];
	mov.u32 %r1, %tid.x;
	add.s32 %r3, %r1, 1;
	mul.lo.s32 %r4, %r3, %r3;
	ld.global.u32 %r5, [%rd1+4];
	st.shared.u32 [%r4], %r1;
	ld.global.u32 %r2, [%rd1+8];
	st.global.u32 [%rd1+12], %r4;
	ld.global.u32 %r6, [%rd1+16];
	add.s32 %r7, %r5, %r2;
	add.s32 %r8, %r7, %r6;
	st.global.u32 [%rd1], %r8;
	ret;
)");
  const Function& k = fn(m, "k");
  RegAllocOptions opt;
  opt.hoist_loads = true;
  const RegAlloc a = allocate_registers(k, opt);
  EXPECT_EQ(a.hoisted_loads, 2u);  // %r5 and %r2 up to just after ld.param; %r6 stays
  EXPECT_EQ(name_of(k, a, "%rd1"), "R0:R1");
  EXPECT_EQ(name_of(k, a, "%r1"), "R2");
  EXPECT_EQ(name_of(k, a, "%r2"), "R3");  // live from instruction 1, like %r1
  EXPECT_EQ(name_of(k, a, "%r5"), "R4");
  EXPECT_EQ(name_of(k, a, "%r3"), "R5");
  EXPECT_EQ(name_of(k, a, "%r6"), "R2");  // not hoisted over the global store
  EXPECT_THAT(a.live_in, ElementsAre(0, 4, 5, 6, 6, 6, 5, 5, 4, 5, 4, 3, 0));
  EXPECT_EQ(a.count, 6u);
  EXPECT_EQ(check_allocation(k, a), "");
  EXPECT_EQ(allocate_registers(k).count, 5u);  // as written
  // The pressure bound: %r5 still rises to instruction 1 (at most 5 live on the way), %r2
  // would make 6 live before the shared store and stays.
  opt.hoist_pressure = 5;
  const RegAlloc b = allocate_registers(k, opt);
  EXPECT_EQ(b.hoisted_loads, 1u);
  EXPECT_THAT(b.live_in, ElementsAre(0, 3, 4, 5, 5, 5, 4, 5, 4, 5, 4, 3, 0));
  EXPECT_EQ(b.count, 5u);
  EXPECT_EQ(check_allocation(k, b), "");
}

// Calling convention: values live across a call take registers above what the callee
// clobbers (its own count, R1 included), and the caller's count includes the callee's.
TEST(PtxRegAlloc, ValuesLiveAcrossACallAvoidTheCalleesRegisters) {
  Module m = parse(R"(.func (.param .b32 ret) f(.param .b32 a)
{
	.reg .b32 %r<5>;
	ld.param.u32 %r1, [a];
	mul.lo.s32 %r2, %r1, %r1;
	add.s32 %r3, %r2, %r1;
	mul.lo.s32 %r4, %r3, %r2;
	st.param.b32 [ret], %r4;
	ret;
}
.visible .entry k(.param .u64 k_p)
{
	.reg .b32 %r<5>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_p];
	mov.u32 %r1, %tid.x;
	{
	.param .b32 pa;
	st.param.b32 [pa], %r1;
	.param .b32 pr;
	call.uni (pr), f, (pa);
	ld.param.b32 %r2, [pr];
	}
	add.s32 %r3, %r2, %r1;
	st.global.u32 [%rd1], %r3;
	ret;
}
)");
  const std::vector<RegAlloc> all = allocate_module(m, RegAllocOptions::sass(75));
  const Function& f = fn(m, "f");
  const Function& k = fn(m, "k");
  auto index = [&](const std::string& name) {
    for (size_t i = 0; i < m.funcs.size(); ++i)
      if (m.funcs[i].name == name) return i;
    throw std::runtime_error("no function " + name);
  };
  const RegAlloc& af = all[index("f")];
  const RegAlloc& ak = all[index("k")];
  EXPECT_EQ(af.count, 3u);  // R0, R2 and the stack pointer R1
  EXPECT_EQ(name_of(f, af, "%r2"), "R2");
  EXPECT_EQ(ak.call_clobber, 3u);
  EXPECT_EQ(name_of(k, ak, "%r1"), "R3");      // live across the call: above R0..R2
  EXPECT_EQ(name_of(k, ak, "%rd1"), "R4:R5");  // aligned pair above it
  EXPECT_EQ(name_of(k, ak, "%r2"), "R0");      // defined after the call: anywhere
  EXPECT_EQ(ak.count, 6u);
  EXPECT_EQ(check_allocation(k, ak), "");
  // Without the convention the kernel needs 4 registers (and 5 with R1).
  EXPECT_EQ(allocate_registers(k).count, 4u);
  // A declaration (vprintf, malloc) clobbers extern_clobber registers.
  RegAllocOptions opt = RegAllocOptions::sass(75);
  opt.callee_clobber.assign(m.funcs.size(), 7);
  EXPECT_EQ(name_of(k, allocate_registers(k, opt), "%r1"), "R7");
}

// Spilling: above the cap the value with the fewest uses per instruction of live range goes
// to local memory, reloaded before each use and stored after its definition.
TEST(PtxRegAlloc, OverTheCapTheLongestLeastUsedValueIsSpilled) {
  Module m = parse_kernel(R"(	.reg .b32 %r<8>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_p];
	mov.u32 %r1, %tid.x;
	add.s32 %r2, %r1, 1;
	add.s32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	add.s32 %r5, %r4, %r2;
	add.s32 %r6, %r5, %r3;
	add.s32 %r7, %r6, %r1;
	st.global.u32 [%rd1], %r7;
	ret;
)");
  const Function& k = fn(m, "k");
  EXPECT_EQ(allocate_registers(k).count, 6u);
  RegAllocOptions opt;
  opt.cap = 4;
  opt.spill = true;
  const RegAlloc a = allocate_registers(k, opt);
  EXPECT_EQ(a.count, 4u);
  EXPECT_FALSE(a.over_cap);
  EXPECT_EQ(a.spilled, 1u);
  EXPECT_EQ(a.spill_bytes, 8u);
  const ArchReg& rd1 = a.regs[reg_id(k, "%rd1")];
  EXPECT_EQ(rd1.home, RegHome::spill);
  EXPECT_EQ(rd1.spill_offset, 0);
  EXPECT_EQ(arch_reg_name(rd1), "L0>R0:R1");  // its temporary at the two instructions
  EXPECT_THAT(a.spill_stores, ElementsAre(2, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  EXPECT_THAT(a.spill_loads, ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 2, 0));
  EXPECT_EQ(name_of(k, a, "%r1"), "R0");  // reuses the temporary's register in between
  EXPECT_EQ(check_allocation(k, a), "");
  // Spilling off: reported, not spilled.
  opt.spill = false;
  EXPECT_TRUE(allocate_registers(k, opt).over_cap);
}

// Constant-bank operands (an option of the SASS model): a parameter only ALU instructions
// read stays in the bank; one a memory instruction needs as an address gets a register.
TEST(PtxRegAlloc, ConstantOperandsStayInTheBankUnlessARegisterIsNeeded) {
  Module m = parse(R"(.visible .entry k(.param .u64 k_p, .param .u32 k_n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [k_p];
	ld.param.u32 %r1, [k_n];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra DONE;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd2, %rd3;
	add.s32 %r3, %r2, %r1;
	st.global.u32 [%rd4], %r3;
	st.global.u32 [%rd2], %r3;
DONE:
	ret;
}
)");
  const Function& k = fn(m, "k");
  RegAllocOptions opt;
  opt.constant_operands = true;
  const RegAlloc a = allocate_registers(k, opt);
  EXPECT_EQ(a.regs[reg_id(k, "%r1")].home, RegHome::constant);  // setp, add: ALU operands
  EXPECT_EQ(arch_reg_name(a.regs[reg_id(k, "%r1")]), "c");
  // %rd2 is a store's address: loaded from the bank into a register once (MOV R, c[..]);
  // the parameter itself needs none.
  EXPECT_EQ(a.regs[reg_id(k, "%rd2")].home, RegHome::reg);
  EXPECT_EQ(a.regs[reg_id(k, "%rd1")].home, RegHome::constant);
  EXPECT_EQ(a.constants, 2u);
  EXPECT_EQ(a.count, allocate_registers(k).count - 1);
  EXPECT_EQ(check_allocation(k, a), "");
}

TEST(PtxRegAlloc, V4LoadGetsFourConsecutiveAlignedRegisters) {
  Module m = parse_kernel(R"(	.reg .f32 %f<7>;
	.reg .b64 %rd<2>;
	mov.f32 %f5, 0f3F800000;
	ld.param.u64 %rd1, [k_p];
	ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
	add.f32 %f6, %f5, %f1;
	add.f32 %f6, %f6, %f4;
	st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};
	st.global.f32 [%rd1], %f6;
	ret;
)");
  const Function& k = fn(m, "k");
  const RegAlloc a = allocate_registers(k);
  EXPECT_EQ(name_of(k, a, "%f5"), "R0");
  EXPECT_EQ(name_of(k, a, "%rd1"), "R2:R3");
  EXPECT_EQ(name_of(k, a, "%f1"), "R4");  // base 0 is blocked by %f5: next multiple of 4
  EXPECT_EQ(name_of(k, a, "%f2"), "R5");
  EXPECT_EQ(name_of(k, a, "%f3"), "R6");
  EXPECT_EQ(name_of(k, a, "%f4"), "R7");
  EXPECT_EQ(name_of(k, a, "%f6"), "R0");
  EXPECT_TRUE(a.vector_fixups.empty());  // the store reuses the loaded vector
  EXPECT_EQ(a.count, 8u);
  EXPECT_EQ(check_allocation(k, a), "");
}

TEST(PtxRegAlloc, StoreVectorOfSeparatelyComputedValues) {
  Module m = parse_kernel(R"(	.reg .b32 %r<5>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_p];
	mov.u32 %r1, %tid.x;
	add.s32 %r2, %r1, 1;
	st.global.v2.u32 [%rd1], {%r1, %r2};
	add.s32 %r3, %r1, 2;
	st.global.v2.u32 [%rd1], {%r3, %r3};
	ret;
)");
  const Function& k = fn(m, "k");
  const RegAlloc a = allocate_registers(k);
  EXPECT_EQ(name_of(k, a, "%r1"), "R2");
  EXPECT_EQ(name_of(k, a, "%r2"), "R3");
  EXPECT_THAT(a.vector_fixups, ElementsAre(5u));  // {%r3, %r3}: ptxas needs a move
  EXPECT_EQ(check_allocation(k, a), "");
}

TEST(PtxRegAlloc, PredicatesHaveTheirOwnFile) {
  Module m = parse_kernel(R"(	.reg .pred %p<4>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	setp.eq.s32 %p2, %r1, 1;
	or.pred %p3, %p1, %p2;
	selp.b32 %r2, 1, 0, %p3;
	ret;
)");
  const Function& k = fn(m, "k");
  const RegAlloc a = allocate_registers(k);
  EXPECT_EQ(name_of(k, a, "%r1"), "R0");
  EXPECT_EQ(name_of(k, a, "%p1"), "P0");
  EXPECT_EQ(name_of(k, a, "%p2"), "P1");
  EXPECT_EQ(name_of(k, a, "%p3"), "P0");
  EXPECT_EQ(name_of(k, a, "%r2"), "R0");
  EXPECT_EQ(a.count, 1u);  // predicates are not counted
  EXPECT_EQ(a.pred_count, 2u);
  EXPECT_EQ(a.max_live_preds, 2u);
  EXPECT_EQ(check_allocation(k, a), "");
}

TEST(PtxRegAlloc, OverTheCapIsReportedNotSpilled) {
  std::string body = "\t.reg .pred %p<9>;\n\t.reg .b32 %r<9>;\n\tmov.u32 %r0, %tid.x;\n";
  for (int i = 1; i <= 8; ++i) {
    body += "\tadd.s32 %r" + std::to_string(i) + ", %r0, " + std::to_string(i) + ";\n";
    body += "\tsetp.eq.s32 %p" + std::to_string(i) + ", %r0, " + std::to_string(i) + ";\n";
  }
  for (int i = 1; i <= 8; ++i)
    body += "\t@%p" + std::to_string(i) + " st.global.u32 [%r0], %r" + std::to_string(i) + ";\n";
  body += "\tret;\n";
  Module m = parse_kernel(body);
  const Function& k = fn(m, "k");
  RegAllocOptions opt;
  opt.cap = 6;
  const RegAlloc a = allocate_registers(k, opt);
  EXPECT_EQ(a.count, 9u);
  EXPECT_EQ(a.pred_count, 8u);
  EXPECT_TRUE(a.over_cap);
  EXPECT_EQ(a.note, "needs 9 > cap 6 registers; needs 8 > cap 7 predicates");
  EXPECT_EQ(check_allocation(k, a), "");
}

TEST(PtxRegAlloc, CopiesAndPackShareRegisters) {
  Module m = parse_kernel(R"(	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [k_p];
	mov.b64 {%r1, %r2}, %rd1;
	add.s32 %r3, %r1, 1;
	mov.b64 %rd2, {%r3, %r2};
	mov.u64 %rd1, %rd2;
	st.global.u32 [%rd1], %r3;
	ret;
)");
  const Function& k = fn(m, "k");
  const RegAlloc a = allocate_registers(k);
  EXPECT_EQ(name_of(k, a, "%rd1"), "R0:R1");
  EXPECT_EQ(name_of(k, a, "%r1"), "R0");  // unpack: the halves of %rd1
  EXPECT_EQ(name_of(k, a, "%r2"), "R1");
  EXPECT_EQ(name_of(k, a, "%r3"), "R2");      // live across the redefinition of %rd1
  EXPECT_EQ(name_of(k, a, "%rd2"), "R0:R1");  // packed where %r2 is, then copied in place
  EXPECT_EQ(check_allocation(k, a), "");
}

// Random straight-line SSA programs of 32-bit values: their interference graphs are interval
// graphs, for which colouring in definition order is optimal.
TEST(PtxRegAlloc, RandomStraightLineSsaIsOptimal) {
  std::mt19937 rng(14);
  for (int iter = 0; iter < 40; ++iter) {
    const int n = 5 + int(rng() % 40);
    std::string body = "\t.reg .b32 %r<" + std::to_string(n + 1) + ">;\n\t.reg .b64 %rd<2>;\n";
    body += "\tld.param.u64 %rd1, [k_p];\n\tmov.u32 %r0, %tid.x;\n";
    for (int i = 1; i <= n; ++i) {
      const int x = int(rng() % uint32_t(i)), y = int(rng() % uint32_t(i));
      body += "\tadd.s32 %r" + std::to_string(i) + ", %r" + std::to_string(x) + ", %r" +
              std::to_string(y) + ";\n";
      if (rng() % 3 == 0)
        body += "\tst.global.u32 [%rd1], %r" + std::to_string(rng() % uint32_t(i + 1)) + ";\n";
    }
    body += "\tst.global.u32 [%rd1], %r" + std::to_string(n) + ";\n\tret;\n";
    Module m = parse_kernel(body);
    const Function& k = fn(m, "k");
    const RegAlloc a = allocate_registers(k);
    ASSERT_EQ(a.count, a.max_live) << body;
    ASSERT_EQ(check_allocation(k, a), "") << body;
  }
}

/// "" when `a` and `b` are the same allocation, else the first difference.
std::string diff_allocation(const RegAlloc& a, const RegAlloc& b) {
  if (a.count != b.count || a.pred_count != b.pred_count)
    return "count " + std::to_string(a.count) + " vs " + std::to_string(b.count);
  if (a.max_live != b.max_live || a.max_live_preds != b.max_live_preds) return "max live";
  if (a.live_in != b.live_in || a.live_out != b.live_out) return "live counts";
  if (a.hoisted_loads != b.hoisted_loads || a.spilled != b.spilled ||
      a.spill_bytes != b.spill_bytes || a.spill_loads != b.spill_loads ||
      a.spill_stores != b.spill_stores || a.vector_fixups != b.vector_fixups || a.note != b.note)
    return "summary";
  for (size_t r = 0; r < a.regs.size(); ++r)
    if (arch_reg_name(a.regs[r]) != arch_reg_name(b.regs[r]))
      return "register " + std::to_string(r) + ": " + arch_reg_name(a.regs[r]) + " vs " +
             arch_reg_name(b.regs[r]);
  return "";
}

/// The interference graph as a bit matrix and as lists gives the same allocation.
void expect_graph_forms_agree(const Module& m, RegAllocOptions o) {
  o.graph = RegAllocOptions::Graph::matrix;
  const std::vector<RegAlloc> mat = allocate_module(m, o);
  o.graph = RegAllocOptions::Graph::lists;
  const std::vector<RegAlloc> lst = allocate_module(m, o);
  for (size_t fi = 0; fi < m.funcs.size(); ++fi) {
    if (!m.funcs[fi].defined) continue;
    EXPECT_EQ(diff_allocation(mat[fi], lst[fi]), "")
        << m.funcs[fi].name << " (cap " << o.cap << ")";
  }
}

/// Allocates and checks every function of every .ptx file under `dir` (recursively).
int check_ptx_dir(const std::string& dir, bool skip_unparsable) {
  int functions = 0;
  if (!std::filesystem::is_directory(dir)) return 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.path().extension() != ".ptx") continue;
    Module m;
    try {
      m = parse_module(testing::read_text(e.path().string()), e.path().string());
    } catch (const std::exception& ex) {
      if (std::string(ex.what()).find("never defined") != std::string::npos) {
        // One translation unit of an -rdc program: link its directory's files.
        try {
          m = Module();
          for (const auto& u : std::filesystem::directory_iterator(e.path().parent_path()))
            if (u.path().extension() == ".ptx")
              add_translation_unit(m, testing::read_text(u.path().string()), u.path().string());
          finalize_module(m);
        } catch (const std::exception& ex2) {
          if (!skip_unparsable) ADD_FAILURE() << e.path() << ": " << ex2.what();
          continue;
        }
      } else {
        if (!skip_unparsable) ADD_FAILURE() << e.path() << ": " << ex.what();
        continue;
      }
    }
    // The SASS model (hoisting, calls, R1), with constant-bank operands, and with spilling
    // forced by a small cap: every allocation must still preserve every value.
    RegAllocOptions with_constants = RegAllocOptions::sass(75),
                    tight = RegAllocOptions::sass(75, 12);
    with_constants.constant_operands = true;
    const std::vector<RegAlloc> sass = allocate_module(m, RegAllocOptions::sass(75)),
                                sass_c = allocate_module(m, with_constants),
                                sass_t = allocate_module(m, tight);
    {
      SCOPED_TRACE(e.path().string());
      expect_graph_forms_agree(m, RegAllocOptions::sass(75));
      expect_graph_forms_agree(m, tight);
      expect_graph_forms_agree(m, with_constants);
      RegAllocOptions plain;
      expect_graph_forms_agree(m, plain);
    }
    for (size_t fi = 0; fi < m.funcs.size(); ++fi) {
      const Function& f = m.funcs[fi];
      if (!f.defined) continue;
      SCOPED_TRACE(e.path().string() + " " + f.name);
      EXPECT_EQ(check_allocation(f, sass[fi]), "") << "SASS model";
      EXPECT_EQ(check_allocation(f, sass_c[fi]), "") << "constant operands";
      EXPECT_EQ(check_allocation(f, sass_t[fi]), "") << "spilled to 12 registers";
      EXPECT_TRUE(sass_t[fi].count <= 12 || sass_t[fi].over_cap);
    }
    for (const Function& f : m.funcs) {
      if (!f.defined) continue;
      ++functions;
      const RegAlloc a = allocate_registers(f);
      SCOPED_TRACE(e.path().string() + " " + f.name);
      // Values that are copies of each other may share a register while both are live.
      bool shared_copy = false;
      for (const Instruction& in : f.insts)
        if (in.op == Op::mov && in.ops.size() == 2 && in.ops[0].kind == OperandKind::reg &&
            in.ops[1].kind == OperandKind::reg &&
            a.regs[in.ops[0].id].base == a.regs[in.ops[1].id].base)
          shared_copy = true;
      if (!shared_copy) {
        EXPECT_GE(a.count, a.max_live);
      }
      // Also counting dead definitions, the bound is at least cfg.h's estimate.
      EXPECT_GE(a.max_live, compute_liveness(f).max_live_slots);
      EXPECT_EQ(check_allocation(f, a), "");
    }
  }
  return functions;
}

// tests/scripts/gen_ptx_scale.py's `live` kernel: n 32-bit loads live at once, summed in a
// chain.
std::string live_kernel(int n) {
  std::string s =
      ".version 8.0\n.target sm_75\n.address_size 64\n\n.visible .entry live(.param .u64 "
      "live_in, .param .u64 live_out)\n{\n";
  s += "  .reg .b32 %r<" + std::to_string(n) + ">;\n  .reg .b32 %s<" + std::to_string(n) +
       ">;\n  .reg .b64 %rd<3>;\n\n  ld.param.u64 %rd0, [live_in];\n  cvta.to.global.u64 %rd1, "
       "%rd0;\n";
  for (int i = 0; i < n; ++i)
    s += "  ld.global.u32 %r" + std::to_string(i) + ", [%rd1+" + std::to_string(4 * i) + "];\n";
  s += "  mov.u32 %s0, %r0;\n";
  for (int i = 1; i < n; ++i)
    s += "  add.u32 %s" + std::to_string(i) + ", %s" + std::to_string(i - 1) + ", %r" +
         std::to_string(i) + ";\n";
  s += "  ld.param.u64 %rd0, [live_out];\n  cvta.to.global.u64 %rd2, %rd0;\n  st.global.u32 "
       "[%rd2], %s" +
       std::to_string(n - 1) + ";\n  ret;\n}\n";
  return s;
}

// 600 values live at once (a clique of 600 in the interference graph): the SASS model spills
// 348 of them in rounds down to the cap. The numbers are those of the allocator before its
// graph became a bit matrix (pinned: a faster graph must not change the allocation), and both
// graph forms agree.
TEST(PtxRegAlloc, SixHundredLiveValuesSpillToTheCapAsBefore) {
  const Module m = parse_module(live_kernel(600), "live.ptx");
  const Function& f = m.funcs[m.func_index.at("live")];
  const RegAlloc a = allocate_registers(f, RegAllocOptions::sass(75));
  EXPECT_EQ(a.count, 255u);
  EXPECT_EQ(a.max_live, 254u);
  EXPECT_EQ(a.hoisted_loads, 62u);
  EXPECT_EQ(a.spilled, 348u);
  EXPECT_EQ(a.spill_bytes, 1392u);
  // Instruction 600 (ld %r598) and 1200 (add %s598): live counts and registers.
  EXPECT_EQ(a.live_in[600], 252u);
  EXPECT_EQ(a.live_out[600], 253u);
  EXPECT_EQ(name_of(f, a, "%r598"), "R254");
  EXPECT_EQ(a.live_in[1200], 3u);
  EXPECT_EQ(a.live_out[1200], 2u);
  EXPECT_EQ(name_of(f, a, "%s598"), "R0");
  EXPECT_EQ(check_allocation(f, a), "");
  // As written (no spilling): every value gets its own register.
  const RegAlloc p = allocate_registers(f);
  EXPECT_EQ(p.count, 601u);
  EXPECT_TRUE(p.over_cap);
  expect_graph_forms_agree(m, RegAllocOptions::sass(75));
  expect_graph_forms_agree(m, RegAllocOptions{});
}

// Every function of every committed PTX file (hand-written and nvcc-generated) allocates, the
// checker accepts it, and the count is at least the live lower bound.
TEST(PtxRegAlloc, AllCommittedPtxAllocatesAndChecks) {
  const std::string dir = SIMTLAB_TEST_DATA_DIR;
  const int functions = check_ptx_dir(dir + "/ptx", false) +
                        check_ptx_dir(dir + "/ptx_corpus", true);  // some are meant to fail
  EXPECT_GT(functions, 20);
}

#if SIMTLAB_HAVE_GENERATED_PTX
// The same for the PTX nvcc generates in a build with CUDA tests (feature kernels, test
// programs), and for any directories in $SIMTLAB_REGALLOC_PTX_DIRS (colon-separated).
TEST(PtxRegAlloc, GeneratedPtxAllocatesAndChecks) {
  std::vector<std::string> dirs;
  const std::string build = SIMTLAB_BUILD_DIR;
  for (const char* sub : {"/tests/kernels/features", "/tests/kernels/exec", "/tests/ptx/programs"})
    dirs.push_back(build + sub);
  if (const char* env = std::getenv("SIMTLAB_REGALLOC_PTX_DIRS")) {
    std::string list = env;
    for (size_t p = 0; p <= list.size();) {
      const size_t q = std::min(list.find(':', p), list.size());
      if (q > p) dirs.push_back(list.substr(p, q - p));
      p = q + 1;
    }
  }
  int functions = 0;
  for (const std::string& d : dirs) functions += check_ptx_dir(d, false);
  EXPECT_GT(functions, 100) << "the build's nvcc-generated PTX was not found";
}
#endif

}  // namespace
}  // namespace simtlab::ptx
