// Integer arithmetic instructions (PTX ISA 9.7.1): add/sub/mul/mad (.lo/.hi/.wide), mul24/mad24,
// sad, div/rem, min/max, abs/neg, saturation, carry chains. Every instruction runs over a grid
// of types and edge-value operand pairs; expected values are exact __int128 host arithmetic.
#include "tests/unit/func/op_test_util.h"

namespace simtlab::testing {
namespace {

/// Full 2n-bit product of a and b as an unsigned 128-bit pattern.
u128 full_product(uint64_t a, uint64_t b, const IType& t) {
  if (t.sgn) return u128(sval(a, t.bits) * sval(b, t.bits));
  return u128(uval(a, t.bits)) * u128(uval(b, t.bits));
}

std::string inst3(const char* op, const IType& t) {
  return fmt::format("{}.{} {{d}}, {{a}}, {{b}};", op, t.name);
}
std::string inst4(const char* op, const IType& t) {
  return fmt::format("{}.{} {{d}}, {{a}}, {{b}}, {{c}};", op, t.name);
}

std::vector<OpIn> grid2(const IType& t) {
  return pairs(edge_values(t.bits), edge_values(t.bits, 8, 2));
}
std::vector<OpIn> grid3(const IType& t, unsigned cbits = 0) {
  return triples(edge_values(t.bits), edge_values(t.bits, 8, 2),
                 edge_values(cbits ? cbits : t.bits, 20, 3));
}

TEST(IntOps, AddSub) {
  for (const IType& t : kAllInts) {
    const unsigned n = t.bits;
    check_op({inst3("add", t), n, n, n}, grid2(t), [&](uint64_t a, uint64_t b, uint64_t) {
      return wrap(ival(a, n, t.sgn) + ival(b, n, t.sgn), n);
    });
    check_op({inst3("sub", t), n, n, n}, grid2(t), [&](uint64_t a, uint64_t b, uint64_t) {
      return wrap(ival(a, n, t.sgn) - ival(b, n, t.sgn), n);
    });
  }
}

TEST(IntOps, AddSubImmediates) {
  const auto vals = pairs(edge_values(32, 24), {0});
  check_op({"add.s32 {d}, {a}, -5;", 32, 32, 0}, vals,
           [](uint64_t a, uint64_t, uint64_t) { return wrap(sval(a, 32) - 5, 32); });
  check_op({"sub.u32 {d}, 7, {a};", 32, 32, 0}, vals,
           [](uint64_t a, uint64_t, uint64_t) { return wrap(7 - uval(a, 32), 32); });
  const auto v64 = pairs(edge_values(64, 24), {0});
  check_op({"add.u64 {d}, {a}, 0xffffffffffffffff;", 64, 64, 0}, v64,
           [](uint64_t a, uint64_t, uint64_t) { return a - 1; });
  check_op({"add.s64 {d}, {a}, 0x100000000;", 64, 64, 0}, v64,
           [](uint64_t a, uint64_t, uint64_t) { return a + 0x100000000ull; });
  const auto v16 = pairs(edge_values(16, 24), {0});
  check_op({"sub.s16 {d}, {a}, -32768;", 16, 16, 0}, v16,
           [](uint64_t a, uint64_t, uint64_t) { return wrap(sval(a, 16) + 32768, 16); });
}

TEST(IntOps, SaturatingAddSub) {
  check_op({"add.sat.s32 {d}, {a}, {b};", 32, 32, 32}, grid2(kS32),
           [](uint64_t a, uint64_t b, uint64_t) {
             const i128 r = sval(a, 32) + sval(b, 32);
             return wrap(std::clamp<i128>(r, imin(32, true), imax(32, true)), 32);
           });
  check_op({"sub.sat.s32 {d}, {a}, {b};", 32, 32, 32}, grid2(kS32),
           [](uint64_t a, uint64_t b, uint64_t) {
             const i128 r = sval(a, 32) - sval(b, 32);
             return wrap(std::clamp<i128>(r, imin(32, true), imax(32, true)), 32);
           });
}

TEST(IntOps, MulLoHi) {
  for (const IType& t : kAllInts) {
    const unsigned n = t.bits;
    check_op({inst3("mul.lo", t), n, n, n}, grid2(t), [&](uint64_t a, uint64_t b, uint64_t) {
      return uint64_t(full_product(a, b, t)) & mask_bits(n);
    });
    check_op({inst3("mul.hi", t), n, n, n}, grid2(t), [&](uint64_t a, uint64_t b, uint64_t) {
      return uint64_t(full_product(a, b, t) >> n) & mask_bits(n);
    });
  }
}

TEST(IntOps, MulWide) {
  for (const IType& t : {kS16, kU16, kS32, kU32}) {
    const unsigned n = t.bits;
    check_op({inst3("mul.wide", t), 2 * n, n, n}, grid2(t), [&](uint64_t a, uint64_t b, uint64_t) {
      return uint64_t(full_product(a, b, t)) & mask_bits(2 * n);
    });
  }
  // Immediate second operand, as nvcc emits for index arithmetic.
  check_op({"mul.wide.s32 {d}, {a}, -4;", 64, 32, 0}, pairs(edge_values(32, 16), {0}),
           [](uint64_t a, uint64_t, uint64_t) { return wrap(sval(a, 32) * -4, 64); });
}

TEST(IntOps, MadLoHi) {
  for (const IType& t : kAllInts) {
    const unsigned n = t.bits;
    check_op({inst4("mad.lo", t), n, n, n, n}, grid3(t), [&](uint64_t a, uint64_t b, uint64_t c) {
      return wrap(i128(full_product(a, b, t) & mask_bits(n)) + uval(c, n), n);
    });
    check_op({inst4("mad.hi", t), n, n, n, n}, grid3(t), [&](uint64_t a, uint64_t b, uint64_t c) {
      return wrap(i128(uint64_t(full_product(a, b, t) >> n) & mask_bits(n)) + uval(c, n), n);
    });
  }
}

TEST(IntOps, MadWide) {
  for (const IType& t : {kS16, kU16, kS32, kU32}) {
    const unsigned n = t.bits;
    check_op({inst4("mad.wide", t), 2 * n, n, n, 2 * n}, grid3(t, 2 * n),
             [&](uint64_t a, uint64_t b, uint64_t c) {
               return wrap(ival(a, n, t.sgn) * ival(b, n, t.sgn) + ival(c, 2 * n, t.sgn), 2 * n);
             });
  }
}

TEST(IntOps, MadHiSat) {
  check_op({"mad.hi.sat.s32 {d}, {a}, {b}, {c};", 32, 32, 32, 32}, grid3(kS32),
           [](uint64_t a, uint64_t b, uint64_t c) {
             const i128 hi =
                 sval(a, 32) * sval(b, 32) >> 32;  // arithmetic shift: the signed high word
             return wrap(std::clamp<i128>(hi + sval(c, 32), imin(32, true), imax(32, true)), 32);
           });
}

i128 v24(uint64_t v, bool sgn) { return sgn ? sval(v, 24) : uval(v, 24); }

TEST(IntOps, Mul24Mad24) {
  std::vector<uint64_t> vals = edge_values(32, 12);
  for (uint64_t x :
       {0x7fffffull, 0x800000ull, 0xffffffull, 0x1000000ull, 0xff800000ull, 0x00c00001ull})
    vals.push_back(x);
  const auto in2 = pairs(vals, vals);
  const auto in3 = triples(vals, vals, edge_values(32, 20, 5));
  for (const IType& t : {kS32, kU32}) {
    check_op({inst3("mul24.lo", t), 32, 32, 32}, in2, [&](uint64_t a, uint64_t b, uint64_t) {
      return wrap(v24(a, t.sgn) * v24(b, t.sgn), 32);
    });
    check_op({inst3("mul24.hi", t), 32, 32, 32}, in2, [&](uint64_t a, uint64_t b, uint64_t) {
      return wrap(v24(a, t.sgn) * v24(b, t.sgn) >> 16, 32);
    });
    check_op({inst4("mad24.lo", t), 32, 32, 32, 32}, in3, [&](uint64_t a, uint64_t b, uint64_t c) {
      return wrap(v24(a, t.sgn) * v24(b, t.sgn) + uval(c, 32), 32);
    });
    check_op({inst4("mad24.hi", t), 32, 32, 32, 32}, in3, [&](uint64_t a, uint64_t b, uint64_t c) {
      return wrap((v24(a, t.sgn) * v24(b, t.sgn) >> 16) + uval(c, 32), 32);
    });
  }
  // mad24.hi.sat.s32: the signed sum of the product's bits 47..16 and c, saturated.
  check_op({"mad24.hi.sat.s32 {d}, {a}, {b}, {c};", 32, 32, 32, 32}, in3,
           [](uint64_t a, uint64_t b, uint64_t c) {
             const i128 hi = sval(wrap(v24(a, true) * v24(b, true) >> 16, 32), 32);
             return wrap(std::clamp<i128>(hi + sval(c, 32), imin(32, true), imax(32, true)), 32);
           });
}

TEST(IntOps, Sad) {
  for (const IType& t : kAllInts) {
    const unsigned n = t.bits;
    check_op({inst4("sad", t), n, n, n, n}, grid3(t), [&](uint64_t a, uint64_t b, uint64_t c) {
      const i128 x = ival(a, n, t.sgn), y = ival(b, n, t.sgn);
      return wrap((x > y ? x - y : y - x) + uval(c, n), n);
    });
  }
}

TEST(IntOps, DivRem) {
  for (const IType& t : kAllInts) {
    const unsigned n = t.bits;
    // Edge values include 0 (division by zero), -1 and the minimum (overflow of MIN / -1).
    const auto in = grid2(t);
    check_op({inst3("div", t), n, n, n}, in, [&](uint64_t a, uint64_t b, uint64_t) {
      const i128 x = ival(a, n, t.sgn), y = ival(b, n, t.sgn);
      if (y == 0) return mask_bits(n);  // all ones (hardware result; simtlab warns)
      return wrap(x / y, n);            // C truncation; MIN / -1 wraps to MIN
    });
    check_op({inst3("rem", t), n, n, n}, in, [&](uint64_t a, uint64_t b, uint64_t) {
      const i128 x = ival(a, n, t.sgn), y = ival(b, n, t.sgn);
      if (y == 0) return wrap(x, n);  // the dividend
      return wrap(x % y, n);          // sign of the dividend
    });
  }
}

TEST(IntOps, DivideByZeroValuesAllLanes) {
  // Every lane of several warps divides by zero; none traps, the values are defined.
  std::vector<OpIn> in;
  for (int i = 0; i < 200; ++i) in.push_back({uint64_t(i * 977 - 5000) & 0xffffffff, 0, 0});
  check_op({"div.s32 {d}, {a}, {b};", 32, 32, 32}, in,
           [](uint64_t, uint64_t, uint64_t) { return 0xffffffffull; });
  check_op({"rem.u32 {d}, {a}, {b};", 32, 32, 32}, in,
           [](uint64_t a, uint64_t, uint64_t) { return a; });
  check_op({"div.u64 {d}, {a}, 0;", 64, 64, 0}, in,
           [](uint64_t, uint64_t, uint64_t) { return ~0ull; });
}

TEST(IntOps, MinMax) {
  for (const IType& t : kAllInts) {
    const unsigned n = t.bits;
    check_op({inst3("min", t), n, n, n}, grid2(t), [&](uint64_t a, uint64_t b, uint64_t) {
      return wrap(std::min(ival(a, n, t.sgn), ival(b, n, t.sgn)), n);
    });
    check_op({inst3("max", t), n, n, n}, grid2(t), [&](uint64_t a, uint64_t b, uint64_t) {
      return wrap(std::max(ival(a, n, t.sgn), ival(b, n, t.sgn)), n);
    });
  }
  check_op({"min.relu.s32 {d}, {a}, {b};", 32, 32, 32}, grid2(kS32),
           [](uint64_t a, uint64_t b, uint64_t) {
             return wrap(std::max<i128>(0, std::min(sval(a, 32), sval(b, 32))), 32);
           });
  check_op({"max.relu.s32 {d}, {a}, {b};", 32, 32, 32}, grid2(kS32),
           [](uint64_t a, uint64_t b, uint64_t) {
             return wrap(std::max<i128>(0, std::max(sval(a, 32), sval(b, 32))), 32);
           });
}

TEST(IntOps, AbsNeg) {
  for (const IType& t : {kS16, kS32, kS64}) {
    const unsigned n = t.bits;
    const auto in = pairs(edge_values(n, 24), {0});
    // abs(MIN) and neg(MIN) wrap to MIN.
    check_op({fmt::format("abs.{} {{d}}, {{a}};", t.name), n, n, 0}, in,
             [&](uint64_t a, uint64_t, uint64_t) {
               const i128 x = sval(a, n);
               return wrap(x < 0 ? -x : x, n);
             });
    check_op({fmt::format("neg.{} {{d}}, {{a}};", t.name), n, n, 0}, in,
             [&](uint64_t a, uint64_t, uint64_t) { return wrap(-sval(a, n), n); });
  }
}

// ---- carry chains -----------------------------------------------------------------------------

std::vector<OpIn> wide_inputs(unsigned nrandom) {
  std::vector<uint64_t> v = edge_values(64, nrandom);
  for (uint64_t x :
       {0xffffffffull, 0x100000000ull, 0xffffffff00000000ull, 0x00000000ffffffffull, 0x80000000ull})
    v.push_back(x);
  return triples(v, v, edge_values(64, 30, 9));
}

TEST(IntOps, Add64FromAddCc32) {
  // 64-bit add (and its carry-out) from 32-bit add.cc / addc.cc / addc.
  OpSpec o{
      "mov.b64 {%r1, %r2}, {a};\n  mov.b64 {%r3, %r4}, {b};\n"
      "  add.cc.u32 %r5, %r1, %r3;\n  addc.cc.u32 %r6, %r2, %r4;\n  addc.u32 {q}, 0, 0;\n"
      "  mov.b64 {d}, {%r5, %r6};",
      64, 64, 64};
  o.q = 32;
  check_op(
      o, wide_inputs(16), [](uint64_t a, uint64_t b, uint64_t) { return a + b; },
      [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((u128(a) + b) >> 64); });
}

TEST(IntOps, Sub64FromSubCc32) {
  // sub.cc / subc.cc / subc: borrow propagation; the final subc turns the borrow into 0 or -1.
  OpSpec o{
      "mov.b64 {%r1, %r2}, {a};\n  mov.b64 {%r3, %r4}, {b};\n"
      "  sub.cc.u32 %r5, %r1, %r3;\n  subc.cc.u32 %r6, %r2, %r4;\n  subc.u32 {q}, 0, 0;\n"
      "  mov.b64 {d}, {%r5, %r6};",
      64, 64, 64};
  o.q = 32;
  check_op(
      o, wide_inputs(16), [](uint64_t a, uint64_t b, uint64_t) { return a - b; },
      [](uint64_t a, uint64_t b, uint64_t) { return a < b ? 0xffffffffull : 0ull; });
}

TEST(IntOps, Add96FromAddCc32) {
  // X = {a.lo, a.hi, c.lo}, Y = {b.lo, b.hi, c.hi}: 96-bit sum plus carry-out in q's bit 32.
  OpSpec o{
      "mov.b64 {%r1, %r2}, {a};\n  mov.b64 {%r3, %r4}, {b};\n  mov.b64 {%r6, %r7}, {c};\n"
      "  add.cc.s32 %r1, %r1, %r3;\n  addc.cc.s32 %r2, %r2, %r4;\n  addc.cc.s32 %r6, %r6, %r7;\n"
      "  addc.u32 %r5, 0, 0;\n  mov.b64 {d}, {%r1, %r2};\n  mov.b64 {q}, {%r6, %r5};",
      64, 64, 64, 64};
  o.q = 64;
  auto x = [](uint64_t a, uint64_t c) { return u128(a) | (u128(c & 0xffffffff) << 64); };
  auto y = [](uint64_t b, uint64_t c) { return u128(b) | (u128(c >> 32) << 64); };
  check_op(
      o, wide_inputs(16),
      [&](uint64_t a, uint64_t b, uint64_t c) { return uint64_t(x(a, c) + y(b, c)); },
      [&](uint64_t a, uint64_t b, uint64_t c) { return uint64_t((x(a, c) + y(b, c)) >> 64); });
}

TEST(IntOps, Add128FromAddCc64) {
  // X = {a, c}, Y = {b, ~c}: 128-bit sum with u64/s64 words.
  OpSpec o{
      "not.b64 %l1, {c};\n  add.cc.u64 {d}, {a}, {b};\n  addc.cc.s64 {q}, {c}, %l1;\n  addc.u64 "
      "%l2, 0, 0;\n"
      "  add.u64 {q}, {q}, %l2;",
      64, 64, 64, 64};
  o.q = 64;
  // q = high word + carry-out of the high word (exposes the 128th-bit carry as +1).
  check_op(
      o, wide_inputs(16), [](uint64_t a, uint64_t b, uint64_t) { return a + b; },
      [](uint64_t a, uint64_t b, uint64_t c) {
        const u128 x = u128(a) | (u128(c) << 64), y = u128(b) | (u128(~c) << 64);
        const u128 s = x + y;
        const uint64_t carry_out = (s < x) ? 1 : 0;
        return uint64_t(s >> 64) + carry_out;
      });
}

TEST(IntOps, Sub128FromSubCc64) {
  OpSpec o{
      "sub.cc.u64 {d}, {a}, {b};\n  subc.cc.u64 {q}, {c}, {a};\n  subc.u64 %l2, 0, 0;\n  xor.b64 "
      "{q}, {q}, %l2;",
      64, 64, 64, 64};
  o.q = 64;
  check_op(
      o, wide_inputs(16), [](uint64_t a, uint64_t b, uint64_t) { return a - b; },
      [](uint64_t a, uint64_t b, uint64_t c) {
        const u128 x = u128(a) | (u128(c) << 64), y = u128(b) | (u128(a) << 64);
        const uint64_t hi = uint64_t((x - y) >> 64);
        return hi ^ (x < y ? ~0ull : 0ull);
      });
}

TEST(IntOps, Mul64x64To128FromMadCc32) {
  // Extended-precision multiply [r3,r2,r1,r0] = [r5,r4] * [r7,r6] with mad.lo.cc / madc.hi(.cc).
  OpSpec o{
      "mov.b64 {%r4, %r5}, {a};\n  mov.b64 {%r6, %r7}, {b};\n"
      "  mul.lo.u32 %r0, %r4, %r6;\n  mul.hi.u32 %r1, %r4, %r6;\n"
      "  mad.lo.cc.u32 %r1, %r5, %r6, %r1;\n  madc.hi.u32 %r2, %r5, %r6, 0;\n"
      "  mad.lo.cc.u32 %r1, %r4, %r7, %r1;\n  madc.hi.cc.u32 %r2, %r4, %r7, %r2;\n  addc.u32 %r3, "
      "0, 0;\n"
      "  mad.lo.cc.u32 %r2, %r5, %r7, %r2;\n  madc.hi.u32 %r3, %r5, %r7, %r3;\n"
      "  mov.b64 {d}, {%r0, %r1};\n  mov.b64 {q}, {%r2, %r3};",
      64, 64, 64};
  o.q = 64;
  check_op(
      o, wide_inputs(16), [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(u128(a) * b); },
      [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((u128(a) * b) >> 64); });
}

TEST(IntOps, Mul64x32To96FromMadCc32) {
  // [r2, r1, r0] = [a.hi, a.lo] * b.lo; d = {r0, r1}, q = r2.
  OpSpec o{
      "mov.b64 {%r4, %r5}, {a};\n  mov.b64 {%r6, %r7}, {b};\n"
      "  mul.lo.u32 %r0, %r4, %r6;\n  mul.hi.u32 %r1, %r4, %r6;\n"
      "  mad.lo.cc.u32 %r1, %r5, %r6, %r1;\n  madc.hi.u32 {q}, %r5, %r6, 0;\n"
      "  mov.b64 {d}, {%r0, %r1};",
      64, 64, 64};
  o.q = 32;
  check_op(
      o, wide_inputs(16),
      [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(u128(a) * (b & 0xffffffff)); },
      [](uint64_t a, uint64_t b, uint64_t) {
        return uint64_t((u128(a) * (b & 0xffffffff)) >> 64);
      });
}

TEST(IntOps, Mul128x64FromMadCc64) {
  // {c, a} * b mod 2^128 with 64-bit mad.lo.cc / madc.hi.
  OpSpec o{
      "mul.lo.u64 {d}, {a}, {b};\n  mul.hi.u64 %l1, {a}, {b};\n  mad.lo.cc.u64 {q}, {c}, {b}, "
      "%l1;\n"
      "  madc.hi.u64 %l2, {c}, {b}, 0;\n  xor.b64 {q}, {q}, %l2;",
      64, 64, 64, 64};
  o.q = 64;
  check_op(
      o, wide_inputs(12), [](uint64_t a, uint64_t b, uint64_t) { return a * b; },
      [](uint64_t a, uint64_t b, uint64_t c) {
        const u128 lo = u128(a) * b;
        const u128 mid = u128(c) * b + (lo >> 64);  // < 2^128: no overflow
        return uint64_t(mid) ^ uint64_t(mid >> 64);
      });
}

/// Carry-in from c: add.cc.u32 %rt, c, 0xffffffff sets CF = (c != 0).
const char* kCarryFromC = "add.cc.u32 %rt, {c}, 0xffffffff;";

TEST(IntOps, CarryInForms) {
  std::vector<OpIn> base;
  for (const OpIn& x : pairs(edge_values(64, 10), edge_values(64, 10, 4))) {
    base.push_back({x.a, x.b, 0});
    base.push_back({x.a, x.b, 1});
  }
  for (const IType& t : {kU32, kS32, kU64, kS64}) {
    const unsigned n = t.bits;
    std::vector<OpIn> in = base;
    for (auto& x : in) {
      x.a &= mask_bits(n);
      x.b &= mask_bits(n);
    }
    for (bool cc : {false, true}) {
      for (bool sub : {false, true}) {
        OpSpec o{fmt::format("{}{}.{} {{d}}, {{a}}, {{b}};\n  addc.u32 {{q}}, 0, 0;",
                             sub ? "subc" : "addc", cc ? ".cc" : "", t.name),
                 n, n, n, 32};
        o.q = 32;
        o.prologue = kCarryFromC;
        // Without .cc the carry flag keeps the prologue's value (c != 0).
        check_op(
            o, in,
            [&](uint64_t a, uint64_t b, uint64_t c) {
              const i128 ci = c ? 1 : 0;
              return sub ? wrap(uval(a, n) - uval(b, n) - ci, n)
                         : wrap(uval(a, n) + uval(b, n) + ci, n);
            },
            [&](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
              const i128 ci = c ? 1 : 0;
              if (!cc) return uint64_t(ci);
              if (sub) return uval(a, n) < uval(b, n) + ci ? 1 : 0;
              return (uval(a, n) + uval(b, n) + ci) >> n ? 1 : 0;
            });
      }
    }
  }
}

TEST(IntOps, MadCarryForms) {
  std::vector<OpIn> in;
  for (const OpIn& x : triples(edge_values(64, 8), edge_values(64, 8, 4), edge_values(64, 20, 6))) {
    in.push_back({x.a, x.b, x.c});
    in.push_back({x.a, x.b, x.c ^ 1});
  }
  for (const IType& t : {kU32, kS32, kU64, kS64}) {
    const unsigned n = t.bits;
    for (bool hi : {false, true}) {
      for (int form = 0; form < 3; ++form) {  // 0: mad.cc, 1: madc, 2: madc.cc
        const bool cin = form != 0, cout = form != 1;
        OpSpec o{fmt::format("{}.{}{}.{} {{d}}, {{a}}, {{b}}, {{a}};\n  addc.u32 {{q}}, 0, 0;",
                             cin ? "madc" : "mad", hi ? "hi" : "lo", cout ? ".cc" : "", t.name),
                 n, n, n, 32};
        o.q = 32;
        o.prologue = kCarryFromC;
        auto sum = [&](uint64_t a, uint64_t b, uint64_t c) {
          const u128 p = full_product(a, b, t);  // signed product for .s32/.s64
          const i128 half = i128(uint64_t(hi ? p >> n : p) & mask_bits(n));
          return half + uval(a, n) + ((cin && (c & mask_bits(32))) ? 1 : 0);
        };
        check_op(
            o, in, [&](uint64_t a, uint64_t b, uint64_t c) { return wrap(sum(a, b, c), n); },
            [&](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
              if (!cout) return (c & mask_bits(32)) ? 1 : 0;
              return (sum(a, b, c) >> n) ? 1 : 0;
            });
      }
    }
  }
}

TEST(IntOps, CarryIsPerLaneAndSurvivesOtherInstructions) {
  // Lanes with odd c get a carry; unrelated ALU instructions in between must not clear it.
  OpSpec o{
      "add.cc.u32 %rt, {c}, 0xffffffff;\n  mul.lo.u32 %r1, {a}, {b};\n  xor.b32 %r2, %r1, {a};\n"
      "  addc.u32 {d}, %r2, 0;",
      32, 32, 32, 32};
  std::vector<OpIn> in;
  for (uint32_t i = 0; i < 256; ++i) in.push_back({i * 2654435761u, i + 3, i % 3});
  check_op(o, in, [](uint64_t a, uint64_t b, uint64_t c) {
    const uint32_t r = uint32_t(a * b) ^ uint32_t(a);
    return uint64_t(uint32_t(r + (c ? 1 : 0)));
  });
}

}  // namespace
}  // namespace simtlab::testing
