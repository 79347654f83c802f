// Comparison and selection instructions (PTX ISA 9.7.6/9.7.7 integer forms): setp with every
// integer comparison, the and/or/xor combining forms and p|q destinations; set; selp; slct; mov
// (immediates, vector pack/unpack, predicates).
#include "tests/unit/func/op_test_util.h"

namespace simtlab::testing {
namespace {

struct CmpOp {
  const char* name;
  bool (*f)(i128, i128);
  bool unsigned_only;  // lo/ls/hi/hs compare the unsigned values
};
const CmpOp kCmps[] = {
    {"eq", [](i128 a, i128 b) { return a == b; }, false},
    {"ne", [](i128 a, i128 b) { return a != b; }, false},
    {"lt", [](i128 a, i128 b) { return a < b; }, false},
    {"le", [](i128 a, i128 b) { return a <= b; }, false},
    {"gt", [](i128 a, i128 b) { return a > b; }, false},
    {"ge", [](i128 a, i128 b) { return a >= b; }, false},
    {"lo", [](i128 a, i128 b) { return a < b; }, true},
    {"ls", [](i128 a, i128 b) { return a <= b; }, true},
    {"hi", [](i128 a, i128 b) { return a > b; }, true},
    {"hs", [](i128 a, i128 b) { return a >= b; }, true},
};

bool cmp_ref(const CmpOp& c, const IType& t, uint64_t a, uint64_t b) {
  if (c.unsigned_only) return c.f(uval(a, t.bits), uval(b, t.bits));
  return c.f(ival(a, t.bits, t.sgn), ival(b, t.bits, t.sgn));
}

std::vector<OpIn> cmp_inputs(unsigned bits) {
  auto v = edge_values(bits, 6);
  auto in = pairs(v, v);  // includes every a == b case
  return in;
}

TEST(CompareSelect, SetpAllComparisons) {
  for (const IType& t : {kS16, kU16, kS32, kU32, kS64, kU64, kB16, kB32, kB64}) {
    const bool bit_type = t.name[0] == 'b';
    const auto in = cmp_inputs(t.bits);
    for (const CmpOp& c : kCmps) {
      if (bit_type &&
          !(c.unsigned_only || std::string(c.name) == "eq" || std::string(c.name) == "ne"))
        continue;
      if (c.unsigned_only && t.sgn) continue;
      OpSpec o{fmt::format("setp.{}.{} {{d}}, {{a}}, {{b}};", c.name, t.name), 1, t.bits, t.bits};
      check_op(o, in,
               [&](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return cmp_ref(c, t, a, b); });
    }
  }
}

TEST(CompareSelect, SetpPairDestination) {
  // setp p|q: q is the complement of p.
  for (const IType& t : {kS32, kU64}) {
    for (const CmpOp& c : kCmps) {
      if (c.unsigned_only && t.sgn) continue;
      OpSpec o{fmt::format("setp.{}.{} {{d}}|{{q}}, {{a}}, {{b}};", c.name, t.name), 1, t.bits,
               t.bits};
      o.q = 1;
      check_op(
          o, cmp_inputs(t.bits),
          [&](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return cmp_ref(c, t, a, b); },
          [&](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return !cmp_ref(c, t, a, b); });
    }
  }
}

TEST(CompareSelect, SetpBoolCombine) {
  // setp.cmp.bop p|q, a, b, {!}c: p = t BOP c, q = !t BOP c.
  std::vector<OpIn> in;
  for (const OpIn& x : cmp_inputs(32)) {
    in.push_back({x.a, x.b, 0});
    in.push_back({x.a, x.b, 1});
  }
  const std::pair<const char*, bool (*)(bool, bool)> bops[] = {
      {"and", [](bool x, bool y) { return x && y; }},
      {"or", [](bool x, bool y) { return x || y; }},
      {"xor", [](bool x, bool y) { return x != y; }}};
  for (const auto& [bname, bop] : bops) {
    for (const CmpOp* c : {&kCmps[2], &kCmps[6], &kCmps[0]}) {  // lt, lo, eq
      for (bool negc : {false, true}) {
        for (bool two : {false, true}) {
          OpSpec o{fmt::format("setp.{}.{}.s32 {{d}}{}, {{a}}, {{b}}, {}{{c}};", c->name, bname,
                               two ? "|{q}" : "", negc ? "!" : ""),
                   1, 32, 32, 1};
          if (two) o.q = 1;
          auto t = [&, c](uint64_t a, uint64_t b) {
            return c->unsigned_only ? c->f(uval(a, 32), uval(b, 32))
                                    : c->f(sval(a, 32), sval(b, 32));
          };
          auto f = bop;
          RefFn refq;
          if (two)
            refq = [=](uint64_t a, uint64_t b, uint64_t cc) -> uint64_t {
              return f(!t(a, b), (cc != 0) != negc);
            };
          check_op(
              o, in,
              [=](uint64_t a, uint64_t b, uint64_t cc) -> uint64_t {
                return f(t(a, b), (cc != 0) != negc);
              },
              refq);
        }
      }
    }
  }
}

TEST(CompareSelect, SetpLeavesInactiveLanesAlone) {
  // Guarded setp: lanes whose guard is false keep the old predicate value.
  OpSpec o{"setp.ne.u32 {d}, {c}, 0;\n  @{a} setp.lt.s32 {d}, {b}, 0;", 1, 1, 32, 32};
  std::vector<OpIn> in;
  for (uint32_t i = 0; i < 300; ++i)
    in.push_back({i % 3 == 0, uint64_t(int64_t(i) - 150) & 0xffffffff, i % 5 == 0});
  check_op(o, in, [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
    return a ? sval(b, 32) < 0 : c != 0;
  });
}

TEST(CompareSelect, Set) {
  for (const IType& t : {kS16, kU16, kS32, kU32, kS64, kU64}) {
    for (const CmpOp& c : kCmps) {
      if (c.unsigned_only && t.sgn) continue;
      for (const char* dt : {"u32", "s32"}) {
        check_op({fmt::format("set.{}.{}.{} {{d}}, {{a}}, {{b}};", c.name, dt, t.name), 32, t.bits,
                  t.bits},
                 cmp_inputs(t.bits), [&](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
                   return cmp_ref(c, t, a, b) ? 0xffffffff : 0;
                 });
      }
    }
  }
  // f32 destination: 1.0f or 0.0f.
  check_op({"set.gt.f32.s32 {d}, {a}, {b};", 32, 32, 32}, cmp_inputs(32),
           [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
             return sval(a, 32) > sval(b, 32) ? 0x3f800000 : 0;
           });
  // Combining form.
  std::vector<OpIn> in;
  for (const OpIn& x : cmp_inputs(32)) in.push_back({x.a, x.b, (x.a ^ x.b) & 1});
  check_op({"set.le.or.u32.u32 {d}, {a}, {b}, !{c};", 32, 32, 32, 1}, in,
           [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
             return (a <= b || c == 0) ? 0xffffffff : 0;
           });
  check_op({"set.ne.and.s32.s32 {d}, {a}, {b}, {c};", 32, 32, 32, 1}, in,
           [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
             return (a != b && c != 0) ? 0xffffffff : 0;
           });
}

TEST(CompareSelect, Selp) {
  std::vector<OpIn> base;
  for (const OpIn& x : pairs(edge_values(64, 8), edge_values(64, 8, 3))) {
    base.push_back({x.a, x.b, 0});
    base.push_back({x.a, x.b, 1});
  }
  for (const IType& t : {kB16, kS16, kB32, kU32, kS32, kB64, kU64, kS64}) {
    const unsigned n = t.bits;
    std::vector<OpIn> in = base;
    for (auto& x : in) {
      x.a &= mask_bits(n);
      x.b &= mask_bits(n);
    }
    check_op({fmt::format("selp.{} {{d}}, {{a}}, {{b}}, {{c}};", t.name), n, n, n, 1}, in,
             [](uint64_t a, uint64_t b, uint64_t c) { return c ? a : b; });
  }
  check_op({"selp.s32 {d}, -7, 9, !{c};", 32, 0, 0, 1}, base,
           [](uint64_t, uint64_t, uint64_t c) -> uint64_t { return c ? 9 : 0xfffffff9; });
}

TEST(CompareSelect, Slct) {
  std::vector<OpIn> in;
  const std::vector<uint64_t> cs = {0,          1,          0x7fffffff, 0x80000000,
                                    0xffffffff, 0x80000001, 12345,      0xfffffffe};
  for (const OpIn& x : triples(edge_values(64, 4), edge_values(64, 4, 2), cs)) in.push_back(x);
  for (const IType& t : {kB16, kS16, kU32, kS32, kB64, kU64}) {
    const unsigned n = t.bits;
    std::vector<OpIn> v = in;
    for (auto& x : v) {
      x.a &= mask_bits(n);
      x.b &= mask_bits(n);
    }
    // d = c >= 0 ? a : b with c a signed 32-bit value.
    check_op({fmt::format("slct.{}.s32 {{d}}, {{a}}, {{b}}, {{c}};", t.name), n, n, n, 32}, v,
             [](uint64_t a, uint64_t b, uint64_t c) { return sval(c, 32) >= 0 ? a : b; });
  }
  // f32 selector: -0.0 >= 0 holds; negative values select b.
  std::vector<OpIn> fin;
  for (uint32_t c : {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x00000001u, 0x80000001u,
                     0x7f800000u, 0xff800000u})
    fin.push_back({0x1111, 0x2222, c});
  check_op({"slct.u32.f32 {d}, {a}, {b}, {c};", 32, 32, 32, 32}, fin,
           [](uint64_t a, uint64_t b, uint64_t c) {
             const bool neg = (c & 0x80000000u) && (c & 0x7fffffffu);  // -0.0 counts as >= 0
             return neg ? b : a;
           });
}

TEST(CompareSelect, MovScalarsAndImmediates) {
  const auto in = pairs(edge_values(64, 16), {0});
  check_op({"mov.b64 {d}, {a};", 64, 64, 0}, in, [](uint64_t a, uint64_t, uint64_t) { return a; });
  check_op({"mov.u32 {d}, {a};", 32, 32, 0}, pairs(edge_values(32, 16), {0}),
           [](uint64_t a, uint64_t, uint64_t) { return a; });
  check_op({"mov.b16 {d}, {a};", 16, 16, 0}, pairs(edge_values(16, 16), {0}),
           [](uint64_t a, uint64_t, uint64_t) { return a; });
  check_op({"mov.u32 {d}, -1;", 32, 0, 0}, in,
           [](uint64_t, uint64_t, uint64_t) { return 0xffffffffull; });
  check_op({"mov.s64 {d}, -2;", 64, 0, 0}, in,
           [](uint64_t, uint64_t, uint64_t) { return ~uint64_t(1); });
  check_op({"mov.u16 {d}, 0xbeef;", 16, 0, 0}, in,
           [](uint64_t, uint64_t, uint64_t) { return 0xbeefull; });
  check_op({"mov.b64 {d}, 0x8000000000000001;", 64, 0, 0}, in,
           [](uint64_t, uint64_t, uint64_t) { return 0x8000000000000001ull; });
  std::vector<OpIn> pin;
  for (unsigned i = 0; i < 100; ++i) pin.push_back({(i * 7) % 3 == 0, 0, 0});
  check_op({"mov.pred {d}, {a};", 1, 1, 0}, pin, [](uint64_t a, uint64_t, uint64_t) { return a; });
  check_op({"mov.pred {d}, !{a};", 1, 1, 0}, pin,
           [](uint64_t a, uint64_t, uint64_t) { return a ^ 1; });
}

TEST(CompareSelect, MovPackUnpack) {
  const auto in = pairs(edge_values(64, 24), {0});
  // b64 -> {b32, b32} -> b64 with the halves swapped.
  check_op({"mov.b64 {%r1, %r2}, {a};\n  mov.b64 {d}, {%r2, %r1};", 64, 64, 0}, in,
           [](uint64_t a, uint64_t, uint64_t) { return (a >> 32) | (a << 32); });
  // b64 -> four b16 -> reversed order.
  check_op({"mov.b64 {%h1, %h2, %h3, %h4}, {a};\n  mov.b64 {d}, {%h4, %h3, %h2, %h1};", 64, 64, 0},
           in, [](uint64_t a, uint64_t, uint64_t) {
             uint64_t r = 0;
             for (unsigned i = 0; i < 4; ++i) r |= ((a >> (16 * i)) & 0xffff) << (16 * (3 - i));
             return r;
           });
  // b32 -> {b16, b16}; element 0 is the least significant half.
  check_op({"mov.b32 {%h1, %h2}, {a};\n  mov.b32 {d}, {%h2, %h2};", 32, 32, 0},
           pairs(edge_values(32, 16), {0}),
           [](uint64_t a, uint64_t, uint64_t) { return (a >> 16) | ((a >> 16) << 16); });
  // Sink elements.
  check_op({"mov.b32 %r4, 0;\n  mov.b64 {_, %r3}, {a};\n  mov.b64 {d}, {%r3, %r4};", 64, 64, 0}, in,
           [](uint64_t a, uint64_t, uint64_t) { return a >> 32; });
  // {b16, b16} from two independent inputs.
  check_op({"mov.b32 {d}, {{a}, {b}};", 32, 16, 16},
           pairs(edge_values(16, 6), edge_values(16, 6, 4)),
           [](uint64_t a, uint64_t b, uint64_t) { return a | (b << 16); });
}

}  // namespace
}  // namespace simtlab::testing
