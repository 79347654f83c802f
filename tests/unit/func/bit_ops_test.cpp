// Logic, shift and bit-manipulation instructions (PTX ISA 9.7.8): and/or/xor/not/cnot (incl.
// .pred), shl/shr, shf, popc, clz, brev, bfind, bfe, bfi, bmsk, prmt (all modes), lop3, dp4a.
// Expected values are computed bit by bit on the host from the ISA's definitions.
#include "tests/unit/func/op_test_util.h"

namespace simtlab::testing {
namespace {

const std::vector<IType> kBitTypes = {kB16, kB32, kB64};

std::vector<OpIn> grid2(unsigned bits) { return pairs(edge_values(bits), edge_values(bits, 8, 2)); }

TEST(BitOps, AndOrXorNotCnot) {
  for (const IType& t : kBitTypes) {
    const unsigned n = t.bits;
    const uint64_t m = mask_bits(n);
    check_op({fmt::format("and.{} {{d}}, {{a}}, {{b}};", t.name), n, n, n}, grid2(n),
             [](uint64_t a, uint64_t b, uint64_t) { return a & b; });
    check_op({fmt::format("or.{} {{d}}, {{a}}, {{b}};", t.name), n, n, n}, grid2(n),
             [](uint64_t a, uint64_t b, uint64_t) { return a | b; });
    check_op({fmt::format("xor.{} {{d}}, {{a}}, {{b}};", t.name), n, n, n}, grid2(n),
             [](uint64_t a, uint64_t b, uint64_t) { return a ^ b; });
    check_op({fmt::format("not.{} {{d}}, {{a}};", t.name), n, n, 0}, grid2(n),
             [m](uint64_t a, uint64_t, uint64_t) { return ~a & m; });
    check_op({fmt::format("cnot.{} {{d}}, {{a}};", t.name), n, n, 0}, grid2(n),
             [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return a == 0 ? 1 : 0; });
  }
  // Immediate operands.
  check_op({"and.b32 {d}, {a}, 0xff00ff00;", 32, 32, 0}, grid2(32),
           [](uint64_t a, uint64_t, uint64_t) { return a & 0xff00ff00u; });
  check_op({"xor.b64 {d}, {a}, -1;", 64, 64, 0}, grid2(64),
           [](uint64_t a, uint64_t, uint64_t) { return ~a; });
}

TEST(BitOps, PredicateLogic) {
  std::vector<OpIn> in;
  for (unsigned i = 0; i < 8 * 40; ++i) in.push_back({i & 1, (i >> 1) & 1, (i >> 2) & 1});
  check_op({"and.pred {d}, {a}, {b};", 1, 1, 1}, in,
           [](uint64_t a, uint64_t b, uint64_t) { return a & b; });
  check_op({"or.pred {d}, {a}, {b};", 1, 1, 1}, in,
           [](uint64_t a, uint64_t b, uint64_t) { return a | b; });
  check_op({"xor.pred {d}, {a}, {b};", 1, 1, 1}, in,
           [](uint64_t a, uint64_t b, uint64_t) { return a ^ b; });
  check_op({"not.pred {d}, {a};", 1, 1, 0}, in,
           [](uint64_t a, uint64_t, uint64_t) { return a ^ 1; });
  // Negated source operands.
  check_op({"and.pred {d}, !{a}, {b};", 1, 1, 1}, in,
           [](uint64_t a, uint64_t b, uint64_t) { return (a ^ 1) & b; });
  check_op({"or.pred {d}, {a}, !{b};", 1, 1, 1}, in,
           [](uint64_t a, uint64_t b, uint64_t) { return a | (b ^ 1); });
  // A guarded predicate op leaves the destination alone in lanes whose guard is false.
  OpSpec g{"mov.pred {d}, {c};\n  @{a} not.pred {d}, {b};", 1, 1, 1, 1};
  check_op(g, in, [](uint64_t a, uint64_t b, uint64_t c) { return a ? (b ^ 1) : c; });
}

std::vector<OpIn> shift_inputs(unsigned bits) {
  std::vector<uint64_t> amounts = {
      0,  1,  2,  bits / 2, bits - 2, bits - 1,   bits,       bits + 1,  2 * bits - 1,
      63, 64, 65, 255,      256,      0x7fffffff, 0x80000000, 0xffffffff};
  return pairs(edge_values(bits, 6), amounts);
}

TEST(BitOps, ShlShr) {
  for (const IType& t : {kB16, kU16, kS16, kB32, kU32, kS32, kB64, kU64, kS64}) {
    const unsigned n = t.bits;
    const auto in = shift_inputs(n);
    check_op({fmt::format("shl.{} {{d}}, {{a}}, {{b}};", t.name), n, n, 32}, in,
             [n](uint64_t a, uint64_t b, uint64_t) {
               return b >= n ? 0 : wrap(u128(a) << b, n);  // shift amounts >= width give 0
             });
    check_op({fmt::format("shr.{} {{d}}, {{a}}, {{b}};", t.name), n, n, 32}, in,
             [n, sgn = t.sgn](uint64_t a, uint64_t b, uint64_t) {
               const i128 x = ival(a, n, sgn);
               // >= width: 0 for unsigned/bit types, sign fill for signed types.
               if (b >= n) return sgn ? wrap(x < 0 ? -1 : 0, n) : 0;
               return wrap(x >> b, n);
             });
  }
  // Immediate shift amounts.
  for (unsigned s : {0u, 5u, 31u, 32u, 40u}) {
    check_op({fmt::format("shl.b32 {{d}}, {{a}}, {};", s), 32, 32, 0}, grid2(32),
             [s](uint64_t a, uint64_t, uint64_t) { return s >= 32 ? 0 : (a << s) & 0xffffffff; });
    check_op(
        {fmt::format("shr.s32 {{d}}, {{a}}, {};", s), 32, 32, 0}, grid2(32),
        [s](uint64_t a, uint64_t, uint64_t) { return wrap(sval(a, 32) >> std::min(s, 31u), 32); });
  }
}

TEST(BitOps, Shf) {
  std::vector<uint64_t> amounts = {0, 1, 4, 16, 31, 32, 33, 63, 64, 100, 0xffffffff};
  const auto in = triples(edge_values(32, 6), edge_values(32, 6, 3), amounts);
  for (bool left : {true, false})
    for (bool wrapm : {true, false}) {
      OpSpec o{fmt::format("shf.{}.{}.b32 {{d}}, {{a}}, {{b}}, {{c}};", left ? "l" : "r",
                           wrapm ? "wrap" : "clamp"),
               32, 32, 32, 32};
      check_op(o, in, [=](uint64_t a, uint64_t b, uint64_t c) {
        const uint64_t n = wrapm ? (c & 31) : std::min<uint64_t>(c, 32);
        const u128 v = (u128(b) << 32) | a;  // b is the high word
        return left ? uint64_t((v << n) >> 32) & 0xffffffff : uint64_t(v >> n) & 0xffffffff;
      });
    }
}

unsigned ref_popc(uint64_t x) {
  unsigned n = 0;
  for (; x; x >>= 1) n += x & 1;
  return n;
}
unsigned ref_clz(uint64_t x, unsigned bits) {
  unsigned n = 0;
  for (int i = int(bits) - 1; i >= 0 && !((x >> i) & 1); --i) ++n;
  return n;
}

TEST(BitOps, PopcClzBrev) {
  for (const IType& t : {kB32, kB64}) {
    const unsigned n = t.bits;
    const auto in = pairs(edge_values(n, 40), {0});
    check_op({fmt::format("popc.{} {{d}}, {{a}};", t.name), 32, n, 0}, in,
             [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return ref_popc(a); });
    check_op({fmt::format("clz.{} {{d}}, {{a}};", t.name), 32, n, 0}, in,
             [n](uint64_t a, uint64_t, uint64_t) -> uint64_t { return ref_clz(a, n); });
    check_op({fmt::format("brev.{} {{d}}, {{a}};", t.name), n, n, 0}, in,
             [n](uint64_t a, uint64_t, uint64_t) {
               uint64_t r = 0;
               for (unsigned i = 0; i < n; ++i)
                 if ((a >> i) & 1) r |= uint64_t(1) << (n - 1 - i);
               return r;
             });
  }
}

TEST(BitOps, Bfind) {
  for (const IType& t : {kU32, kS32, kU64, kS64}) {
    const unsigned n = t.bits;
    auto vals = edge_values(n, 40);
    for (unsigned i = 0; i < n; ++i) vals.push_back(uint64_t(1) << i);  // every single-bit value
    for (unsigned i = 0; i < n; ++i) vals.push_back(~(uint64_t(1) << i) & mask_bits(n));
    const auto in = pairs(vals, {0});
    for (bool sa : {false, true}) {
      check_op({fmt::format("bfind{}.{} {{d}}, {{a}};", sa ? ".shiftamt" : "", t.name), 32, n, 0},
               in, [=](uint64_t a, uint64_t, uint64_t) -> uint64_t {
                 // For negative signed inputs the search is for the most significant 0 bit.
                 if (t.sgn && sval(a, n) < 0) a = ~a & mask_bits(n);
                 int msb = -1;
                 for (int i = int(n) - 1; i >= 0; --i)
                   if ((a >> i) & 1) {
                     msb = i;
                     break;
                   }
                 if (msb < 0) return 0xffffffff;  // not found, also with .shiftamt
                 return sa ? uint64_t(n - 1 - unsigned(msb)) : uint64_t(msb);
               });
    }
  }
}

TEST(BitOps, Bfe) {
  for (const IType& t : {kU32, kS32, kU64, kS64}) {
    const unsigned n = t.bits;
    std::vector<OpIn> in;
    const std::vector<uint64_t> vals = edge_values(n, 4);
    const std::vector<uint32_t> pos = {0, 1, 7, n / 2, n - 8, n - 1, n, n + 5, 255, 256, 0x1234};
    const std::vector<uint32_t> len = {0, 1, 3, 8, n / 2, n - 1, n, n + 1, 255, 256 + 4, 0xff00};
    for (uint64_t v : vals)
      for (uint32_t p : pos)
        for (uint32_t l : len) in.push_back({v, p, l});
    check_op({fmt::format("bfe.{} {{d}}, {{a}}, {{b}}, {{c}};", t.name), n, n, 32, 32}, in,
             [=](uint64_t a, uint64_t b, uint64_t c) {
               const unsigned msb = n - 1;
               const uint64_t p = b & 0xff, l = c & 0xff;
               bool sbit = false;
               if (t.sgn && l != 0) sbit = (a >> std::min<uint64_t>(p + l - 1, msb)) & 1;
               uint64_t d = 0;
               for (unsigned i = 0; i <= msb; ++i) {
                 const bool bit = (i < l && p + i <= msb) ? ((a >> (p + i)) & 1) : sbit;
                 if (bit) d |= uint64_t(1) << i;
               }
               return d;
             });
  }
}

TEST(BitOps, Bfi) {
  for (const IType& t : {kB32, kB64}) {
    const unsigned n = t.bits;
    // bfi d, a (field), b (base), c (pos), d (len): the 4th source is an immediate grid here,
    // pos comes from c.
    for (uint32_t len : {0u, 1u, 5u, n / 2, n - 1, n, n + 3, 255u, 256u + 2}) {
      std::vector<OpIn> in;
      for (uint64_t a : edge_values(n, 3))
        for (uint64_t b :
             {uint64_t(0), mask_bits(n), uint64_t(0x0123456789abcdefull & mask_bits(n))})
          for (uint32_t p : {0u, 1u, 4u, n / 2, n - 1, n, n + 9, 255u, 256u + 3})
            in.push_back({a, b, p});
      check_op({fmt::format("bfi.{} {{d}}, {{a}}, {{b}}, {{c}}, {};", t.name, len), n, n, n, 32},
               in, [=](uint64_t a, uint64_t b, uint64_t c) {
                 const uint64_t p = c & 0xff, l = len & 0xff;
                 uint64_t f = b;
                 for (uint64_t i = 0; i < l && p + i <= n - 1; ++i) {
                   const uint64_t bit = uint64_t(1) << (p + i);
                   f = ((a >> i) & 1) ? (f | bit) : (f & ~bit);
                 }
                 return f;
               });
    }
  }
}

TEST(BitOps, Bmsk) {
  std::vector<OpIn> in;
  for (uint32_t a : {0u, 1u, 3u, 16u, 31u, 32u, 33u, 63u, 64u, 0xffffffffu})
    for (uint32_t b : {0u, 1u, 2u, 8u, 16u, 31u, 32u, 33u, 40u, 0x80000001u})
      in.push_back({a, b, 0});
  for (bool clamp : {true, false}) {
    check_op(
        {fmt::format("bmsk.{}.b32 {{d}}, {{a}}, {{b}};", clamp ? "clamp" : "wrap"), 32, 32, 32}, in,
        [=](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
          // Bits [a, a+b) of a 32-bit mask; .clamp clamps a and b to 32, .wrap takes them mod 32.
          uint64_t pos = clamp ? std::min<uint64_t>(a, 32) : (a & 31);
          uint64_t width = clamp ? std::min<uint64_t>(b, 32) : (b & 31);
          uint64_t r = 0;
          for (uint64_t i = pos; i < pos + width && i < 32; ++i) r |= uint64_t(1) << i;
          return r;
        });
  }
  check_op({"bmsk.wrap.b32 {d}, 1, 2;", 32, 0, 0}, {{0, 0, 0}},
           [](uint64_t, uint64_t, uint64_t) { return 6; });
}

uint32_t byte_of(uint64_t bytes, unsigned i) { return uint32_t(bytes >> (8 * (i & 7))) & 0xff; }

TEST(BitOps, PrmtGeneric) {
  std::vector<OpIn> in;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 400; ++i)
    in.push_back({rng() & 0xffffffff, rng() & 0xffffffff, rng() & 0xffff});
  for (uint32_t sel : {0x3210u, 0x7654u, 0x0123u, 0x8888u, 0xf0e1u, 0x4444u, 0x5410u, 0xba98u})
    in.push_back({0x80ff7f01, 0x12f08e34, sel});
  check_op({"prmt.b32 {d}, {a}, {b}, {c};", 32, 32, 32, 32}, in,
           [](uint64_t a, uint64_t b, uint64_t c) {
             const uint64_t bytes = (b << 32) | a;
             uint64_t r = 0;
             for (unsigned i = 0; i < 4; ++i) {
               const unsigned s = (c >> (4 * i)) & 0xf;
               uint32_t v = byte_of(bytes, s & 7);
               if (s & 8) v = (v & 0x80) ? 0xff : 0;  // replicate the byte's sign
               r |= uint64_t(v) << (8 * i);
             }
             return r;
           });
}

TEST(BitOps, PrmtModes) {
  // Byte index selected for result byte i given selector s (c[1:0]), per the ISA's mode table:
  //   f4e: s+i   b4e: s-i (mod 8)   rc8: s   ecl: max(i, s)   ecr: min(i, s)   rc16: 2*(s&1) +
  //   (i&1)
  struct Mode {
    const char* name;
    unsigned (*idx)(unsigned s, unsigned i);
  };
  const Mode modes[] = {
      {"f4e", [](unsigned s, unsigned i) { return (s + i) & 7; }},
      {"b4e", [](unsigned s, unsigned i) { return (s + 8 - i) & 7; }},
      {"rc8", [](unsigned s, unsigned) { return s; }},
      {"ecl", [](unsigned s, unsigned i) { return std::max(s, i); }},
      {"ecr", [](unsigned s, unsigned i) { return std::min(s, i); }},
      {"rc16", [](unsigned s, unsigned i) { return 2 * (s & 1) + (i & 1); }},
  };
  std::vector<OpIn> in;
  for (uint64_t c : {0ull, 1ull, 2ull, 3ull, 4ull, 7ull, 0xfffffffcull, 0x3211ull})
    for (uint64_t a : {0x03020100ull, 0x8f7e6d5cull})
      in.push_back({a, 0x07060504ull ^ (a & 0xf0f0f0f0), c});
  for (const Mode& m : modes) {
    check_op({fmt::format("prmt.b32.{} {{d}}, {{a}}, {{b}}, {{c}};", m.name), 32, 32, 32, 32}, in,
             [&](uint64_t a, uint64_t b, uint64_t c) {
               const uint64_t bytes = (b << 32) | a;
               uint64_t r = 0;
               for (unsigned i = 0; i < 4; ++i)
                 r |= uint64_t(byte_of(bytes, m.idx(unsigned(c & 3), i))) << (8 * i);
               return r;
             });
  }
  // Spot values from the ISA table with bytes 0..7 = 0x00..0x07 (d.b3..d.b0 as hex digits).
  const std::pair<const char*, uint32_t> spots[] = {
      {"prmt.b32.ecl {d}, {a}, {b}, 1;", 0x03020101},
      {"prmt.b32.ecl {d}, {a}, {b}, 2;", 0x03020202},
      {"prmt.b32.ecr {d}, {a}, {b}, 1;", 0x01010100},
      {"prmt.b32.ecr {d}, {a}, {b}, 2;", 0x02020100},
      {"prmt.b32.b4e {d}, {a}, {b}, 0;", 0x05060700},
      {"prmt.b32.f4e {d}, {a}, {b}, 3;", 0x06050403},
      {"prmt.b32.rc16 {d}, {a}, {b}, 1;", 0x03020302}};
  for (const auto& [inst, want] : spots)
    check_op({inst, 32, 32, 32}, {{0x03020100, 0x07060504, 0}},
             [w = want](uint64_t, uint64_t, uint64_t) { return w; });
}

TEST(BitOps, Lop3) {
  std::vector<OpIn> in = triples(edge_values(32, 6), edge_values(32, 6, 2), edge_values(32, 10, 3));
  // Classic LUTs (ta=0xF0, tb=0xCC, tc=0xAA) and a few arbitrary ones.
  for (uint32_t lut : {0x00u, 0xffu, 0xf0u, 0xccu, 0xaau, 0x80u, 0xfeu, 0x96u, 0xe8u, 0xcau, 0x1bu,
                       0x6au, 0x3cu}) {
    check_op({fmt::format("lop3.b32 {{d}}, {{a}}, {{b}}, {{c}}, {:#x};", lut), 32, 32, 32, 32}, in,
             [lut](uint64_t a, uint64_t b, uint64_t c) {
               uint64_t r = 0;
               for (unsigned bit = 0; bit < 32; ++bit) {
                 const unsigned idx =
                     (((a >> bit) & 1) << 2) | (((b >> bit) & 1) << 1) | ((c >> bit) & 1);
                 if ((lut >> idx) & 1) r |= uint64_t(1) << bit;
               }
               return r;
             });
  }
}

TEST(BitOps, Dp4a) {
  std::vector<OpIn> in =
      triples(edge_values(32, 10), edge_values(32, 10, 2), edge_values(32, 20, 3));
  for (const IType& ta : {kU32, kS32})
    for (const IType& tb : {kU32, kS32}) {
      check_op(
          {fmt::format("dp4a.{}.{} {{d}}, {{a}}, {{b}}, {{c}};", ta.name, tb.name), 32, 32, 32, 32},
          in, [&](uint64_t a, uint64_t b, uint64_t c) {
            i128 acc = (ta.sgn || tb.sgn) ? sval(c, 32) : uval(c, 32);
            for (unsigned i = 0; i < 4; ++i)
              acc += ival(a >> (8 * i), 8, ta.sgn) * ival(b >> (8 * i), 8, tb.sgn);
            return wrap(acc, 32);
          });
    }
}

TEST(BitOps, Dp2a) {
  std::vector<OpIn> in =
      triples(edge_values(32, 10), edge_values(32, 10, 2), edge_values(32, 20, 3));
  for (const IType& ta : {kU32, kS32})
    for (const IType& tb : {kU32, kS32})
      for (bool hi : {false, true}) {
        // d = c + a.h0 * b.byte[k] + a.h1 * b.byte[k+1], k = 0 (.lo) or 2 (.hi).
        check_op({fmt::format("dp2a.{}.{}.{} {{d}}, {{a}}, {{b}}, {{c}};", hi ? "hi" : "lo",
                              ta.name, tb.name),
                  32, 32, 32, 32},
                 in, [&](uint64_t a, uint64_t b, uint64_t c) {
                   i128 acc = (ta.sgn || tb.sgn) ? sval(c, 32) : uval(c, 32);
                   for (unsigned i = 0; i < 2; ++i)
                     acc += ival(a >> (16 * i), 16, ta.sgn) *
                            ival(b >> (8 * (i + (hi ? 2 : 0))), 8, tb.sgn);
                   return wrap(acc, 32);
                 });
      }
}

}  // namespace
}  // namespace simtlab::testing
