// Tests of the floating-point and conversion semantics (src/func/fp.h) and of the float/cvt
// instruction handlers (exec_float.cpp, exec_cvt.cpp).
//
// Expected values come from independent host computations: hand-derived bit patterns (with the
// derivation in a comment), the host's _Float16 type, long double / __int128 exact arithmetic
// with a neighbor search for the directed roundings, and error-free transformations
// (TwoSum, fma residuals) for f64.
#include <gtest/gtest.h>

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "func/exec_common.h"
#include "func/fp.h"

namespace simtlab::func {
namespace {

using fp::Round;
constexpr Round kModes[] = {Round::rn, Round::rz, Round::rm, Round::rp};
const char* mode_name(Round r) {
  switch (r) {
    case Round::rn:
      return "rn";
    case Round::rz:
      return "rz";
    case Round::rm:
      return "rm";
    case Round::rp:
      return "rp";
    case Round::rna:
      return "rna";
  }
  return "?";
}

uint32_t fb(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
uint64_t db(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}
float bf(uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}
double bd(uint64_t b) {
  double x;
  std::memcpy(&x, &b, 8);
  return x;
}

uint16_t h16(_Float16 x) {
  uint16_t b;
  std::memcpy(&b, &x, 2);
  return b;
}
_Float16 hf(uint16_t b) {
  _Float16 x;
  std::memcpy(&x, &b, 2);
  return x;
}

/// Deterministic pseudo-random numbers (64-bit LCG, high bits).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s;
  }
  uint32_t u32() { return uint32_t(next() >> 32); }
  /// A finite float with exponent in [lo, hi] and a random sign.
  float flt(int lo, int hi) {
    const int e = lo + int(u32() % uint32_t(hi - lo + 1));
    const uint32_t m = u32() & 0x7fffff;
    return bf((u32() & 0x80000000u) | (uint32_t(e + 127) << 23) | m);
  }
  double dbl(int lo, int hi) {
    const int e = lo + int(u32() % uint32_t(hi - lo + 1));
    const uint64_t m = next() & ((uint64_t(1) << 52) - 1);
    return bd((next() & 0x8000000000000000ull) | (uint64_t(e + 1023) << 52) | m);
  }
};

// ---- independent references -----------------------------------------------------------------

/// Rounds an exact long double to float in mode r (host rn conversion + neighbor search).
float ref_f32(long double x, Round r) {
  const float f = float(x);  // x87 store: correctly rounded to nearest even
  if (x != x) return f;
  if ((long double)f == x) return f;
  float lo, hi;
  if ((long double)f < x) {
    lo = f;
    hi = std::nextafter(f, std::numeric_limits<float>::infinity());
  } else {
    hi = f;
    lo = std::nextafter(f, -std::numeric_limits<float>::infinity());
  }
  switch (r) {
    case Round::rz:
      return x > 0 ? lo : hi;
    case Round::rm:
      return lo;
    case Round::rp:
      return hi;
    default:
      return f;
  }
}

/// Applies directed rounding to a double rn result whose exact residual has sign `res`.
double ref_dir64(double rn, int res, Round r) {
  if (res == 0 || r == Round::rn) return rn;
  double lo = rn, hi = rn;
  if (res > 0)
    hi = std::nextafter(rn, std::numeric_limits<double>::infinity());
  else
    lo = std::nextafter(rn, -std::numeric_limits<double>::infinity());
  switch (r) {
    case Round::rz:
      return rn > 0 ? lo : hi;
    case Round::rm:
      return lo;
    case Round::rp:
      return hi;
    default:
      return rn;
  }
}
int sgn(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

/// f16 encoding nearest to (or directed-rounded from) an exact long double, by neighbor search
/// among the host's _Float16 values.
uint16_t ref_f16(long double x, Round r) {
  if (x != x) return 0x7fff;
  const bool neg = x < 0 || (x == 0 && std::signbit(x));
  const long double m = neg ? -x : x;
  // largest magnitude encoding <= m (binary search over the monotonic encodings 0..0x7c00)
  uint32_t lo = 0, hi = 0x7c00;
  while (lo < hi) {
    const uint32_t mid = (lo + hi + 1) / 2;
    if ((long double)(float)hf(uint16_t(mid)) <= m)
      lo = mid;
    else
      hi = mid - 1;
  }
  uint16_t mag;
  const long double vlo = (float)hf(uint16_t(lo));
  if (vlo == m || lo == 0x7c00) {
    mag = uint16_t(lo);
  } else {
    const uint16_t up = uint16_t(lo + 1);
    // the value just above max finite counts as 65536 for round-to-nearest
    const long double vhi = up == 0x7c00 ? 65536.0L : (long double)(float)hf(up);
    const bool toward_up_dir = (r == Round::rp && !neg) || (r == Round::rm && neg);
    const bool toward_zero = r == Round::rz || (r == Round::rp && neg) || (r == Round::rm && !neg);
    if (toward_up_dir)
      mag = up;
    else if (toward_zero)
      mag = uint16_t(lo);
    else {
      const long double dl = m - vlo, dh = vhi - m;
      mag = dl < dh ? uint16_t(lo) : dh < dl ? up : ((lo & 1) ? up : uint16_t(lo));
    }
  }
  return uint16_t((neg ? 0x8000 : 0) | mag);
}

/// bf16 from an exact long double (via the neighbor-searched float toward zero).
uint16_t ref_bf16(long double x, Round r) {
  if (x != x) return 0x7fff;
  const bool neg = std::signbit((double)x);
  const long double m = neg ? -x : x;
  const float fz = ref_f32(m, Round::rz);
  if (std::isinf(fz)) return uint16_t((neg ? 0x8000 : 0) | 0x7f80);
  const uint16_t lo = uint16_t(fb(fz) >> 16);
  const long double vlo = bf(uint32_t(lo) << 16);
  uint16_t mag = lo;
  if (vlo != m) {
    const uint16_t up = uint16_t(lo + 1);
    // above the max finite 0x7f7f, Inf stands for 2^128 when rounding to nearest
    const long double vhi =
        up == 0x7f80 ? std::ldexp(1.0L, 128) : (long double)bf(uint32_t(up) << 16);
    const bool toward_up_dir = (r == Round::rp && !neg) || (r == Round::rm && neg);
    const bool toward_zero = r == Round::rz || (r == Round::rp && neg) || (r == Round::rm && !neg);
    if (toward_up_dir)
      mag = up;
    else if (!toward_zero) {
      const long double dl = m - vlo, dh = vhi - m;
      mag = dl < dh ? lo : dh < dl ? up : ((lo & 1) ? up : lo);
    }
  }
  return uint16_t((neg ? 0x8000 : 0) | mag);
}

// ---- harness for handler-level tests ---------------------------------------------------------

struct Harness {
  Warp w;
  ExecContext cx;
  Harness() {
    w.regs.assign(16 * kMaxWarpSize, 0);
    w.preds.assign(4, 0);
    w.R = w.regs.data();
    w.P = w.preds.data();
  }
  uint64_t& reg(unsigned slot, unsigned lane) { return w.R[slot * kMaxWarpSize + lane]; }
  void set(unsigned slot, uint64_t v) {
    for (unsigned l = 0; l < kMaxWarpSize; ++l) reg(slot, l) = v;
  }
};

ptx::Instruction inst(ptx::Op op, ptx::Type t, ptx::Type t2 = ptx::Type::none,
                      ptx::Round rnd = ptx::Round::none, uint32_t flags = 0, unsigned nops = 3) {
  ptx::Instruction in;
  in.op = op;
  in.type = t;
  in.type2 = t2;
  in.rnd = rnd;
  in.flags = flags;
  in.ndst = 1;
  for (unsigned i = 0; i < nops; ++i) {
    ptx::Operand o;
    o.kind = ptx::OperandKind::reg;
    o.id = i;
    in.ops.push_back(o);
  }
  return in;
}

/// DInst whose operand i is register slot i.
DInst dinst(unsigned nops) {
  DInst d;
  d.nops = uint8_t(nops);
  for (unsigned i = 0; i < nops; ++i) {
    d.op[i].kind = DOp::k_reg;
    d.op[i].slot = i;
  }
  return d;
}

Handler sel(const ptx::Instruction& in) {
  if (Handler h = select_float(in)) return h;
  return select_cvt(in);
}

/// Runs `in` on all lanes with sources `src` in slots 1.. and returns lane 0's slot 0.
uint64_t run1(const ptx::Instruction& in, std::initializer_list<uint64_t> src) {
  Harness hs;
  unsigned i = 1;
  for (uint64_t v : src) hs.set(i++, v);
  const Handler h = sel(in);
  EXPECT_NE(h, nullptr) << "no handler for op " << int(in.op);
  if (!h) return 0xdeadbeef;
  DInst d = dinst(unsigned(src.size()) + 1);
  h(hs.cx, hs.w, d, kFullMask);
  return hs.reg(0, 0);
}

// =============================================================================================
// 16-bit formats
// =============================================================================================

TEST(Fp16, DecodeKnownValues) {
  // 0x3c00: exponent 15 (bias 15), mantissa 0 -> 1.0; 0x7bff: 2^15 * (2 - 2^-10) = 65504;
  // 0x0001: 2^-14 * 2^-10 = 2^-24; 0x03ff: 1023 * 2^-24; 0x0400: 2^-14; 0xc000: -2.
  EXPECT_EQ(fp::f16_to_f32(0x3c00), 1.0f);
  EXPECT_EQ(fp::f16_to_f32(0x7bff), 65504.0f);
  EXPECT_EQ(fp::f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp::f16_to_f32(0x03ff), 1023.0f * std::ldexp(1.0f, -24));
  EXPECT_EQ(fp::f16_to_f32(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(fp::f16_to_f32(0xc000), -2.0f);
  EXPECT_EQ(fb(fp::f16_to_f32(0x8000)), 0x80000000u);
  EXPECT_EQ(fp::f16_to_f32(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(fp::f16_to_f32(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(fp::f16_to_f32(0x7e00)));
  EXPECT_TRUE(std::isnan(fp::f16_to_f32(0x7c01)));  // signaling NaN stays NaN
  // bf16 is the upper half of an f32
  EXPECT_EQ(fp::bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(fp::bf16_to_f32(0xc040), -3.0f);
  EXPECT_EQ(fp::bf16_to_f32(0x0001), std::ldexp(1.0f, -133));
}

TEST(Fp16, ExhaustiveF16DecodeAndRoundTrip) {
  int bad_decode = 0, bad_trip = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float host = (float)hf(uint16_t(h));
    const float mine = fp::f16_to_f32(uint16_t(h));
    if (std::isnan(host)) {
      bad_decode += !std::isnan(mine);
      bad_trip += fp::f32_to_f16(mine) != 0x7fff;
    } else {
      bad_decode += fb(host) != fb(mine);
      for (Round r : kModes) bad_trip += fp::f32_to_f16(mine, r) != h;  // exact: every mode
      bad_trip += fp::f64_to_f16(double(mine), Round::rn) != h;
    }
  }
  EXPECT_EQ(bad_decode, 0);
  EXPECT_EQ(bad_trip, 0);
}

TEST(Fp16, F32ToF16MatchesHostRn) {
  // Every 257th f32 encoding plus all encodings within the f16 range's interesting binades.
  int bad = 0, n = 0;
  auto check = [&](uint32_t b) {
    const float x = bf(b);
    const uint16_t want = std::isnan(x) ? 0x7fff : h16((_Float16)x);
    bad += fp::f32_to_f16(x, Round::rn) != want;
    ++n;
  };
  for (uint64_t b = 0; b < 0x100000000ull; b += 1021) check(uint32_t(b));
  for (uint32_t b = 0x32800000u; b < 0x33800000u; b += 3) check(b);             // around 2^-25
  for (uint32_t b = 0x477fe000u; b < 0x47800100u; ++b) check(b);                // around 65520
  for (uint32_t b = 0x387fc000u; b < 0x38800400u; ++b) check(b | 0x80000000u);  // near -2^-14
  EXPECT_EQ(bad, 0) << "of " << n;
}

TEST(Fp16, F32ToF16DirectedMatchesReference) {
  for (Round r : kModes) {
    int bad = 0;
    for (uint64_t b = 0; b < 0x100000000ull; b += 65537 * 13) {
      const float x = bf(uint32_t(b));
      bad += fp::f32_to_f16(x, r) != ref_f16(x, r);
    }
    for (uint32_t b = 0x33000000u; b < 0x33000400u; ++b) {  // tiny values near 2^-25
      bad += fp::f32_to_f16(bf(b), r) != ref_f16(bf(b), r);
      bad += fp::f32_to_f16(bf(b | 0x80000000u), r) != ref_f16(bf(b | 0x80000000u), r);
    }
    EXPECT_EQ(bad, 0) << mode_name(r);
  }
}

TEST(Fp16, F16EdgeCases) {
  using R = Round;
  // overflow: 65504 is max; 65519.996 < 65520 (halfway to 2^16) rounds down; 65520 is a tie and
  // rounds to the even encoding 0x7c00 (Inf, mantissa 0).
  EXPECT_EQ(fp::f32_to_f16(65504.0f), 0x7bff);
  EXPECT_EQ(fp::f32_to_f16(65519.996f), 0x7bff);
  EXPECT_EQ(fp::f32_to_f16(65520.0f), 0x7c00);
  EXPECT_EQ(fp::f32_to_f16(1e6f, R::rz), 0x7bff);
  EXPECT_EQ(fp::f32_to_f16(1e6f, R::rm), 0x7bff);
  EXPECT_EQ(fp::f32_to_f16(1e6f, R::rp), 0x7c00);
  EXPECT_EQ(fp::f32_to_f16(-1e6f, R::rm), 0xfc00);
  EXPECT_EQ(fp::f32_to_f16(-1e6f, R::rp), 0xfbff);
  EXPECT_EQ(fp::f32_to_f16(-1e6f, R::rz), 0xfbff);
  EXPECT_EQ(fp::f32_to_f16(-INFINITY, R::rz), 0xfc00);  // Inf stays Inf
  // subnormals: 2^-24 is the smallest (0x0001); 2^-25 is a tie between 0 and 0x0001 -> 0;
  // 0.75 * 2^-24 rounds to 0x0001; 2^-14 - 2^-25 is the tie between 0x03ff and 0x0400 -> even.
  EXPECT_EQ(fp::f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(fp::f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(fp::f32_to_f16(std::ldexp(1.0f, -25), R::rp), 0x0001);
  EXPECT_EQ(fp::f32_to_f16(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(fp::f32_to_f16(std::ldexp(1.0f, -25) * 1.0000001f), 0x0001);
  EXPECT_EQ(fp::f32_to_f16(-std::ldexp(1.0f, -25)), 0x8000);
  EXPECT_EQ(fp::f32_to_f16(-std::ldexp(1.0f, -25), R::rm), 0x8001);
  EXPECT_EQ(fp::f32_to_f16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25)), 0x0400);
  EXPECT_EQ(fp::f32_to_f16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25), R::rz), 0x03ff);
  // zero signs, NaN (any payload, signaling or negative) -> canonical 0x7fff
  EXPECT_EQ(fp::f32_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(fp::f32_to_f16(0.0f, R::rm), 0x0000);
  EXPECT_EQ(fp::f32_to_f16(bf(0x7f800001u)), 0x7fff);
  EXPECT_EQ(fp::f32_to_f16(bf(0xffc00000u)), 0x7fff);
  // ties to even in the normal range: 1 + 2^-11 is halfway between 1 and 1 + 2^-10
  EXPECT_EQ(fp::f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(fp::f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // f64 -> f16 must round once: 1 + 2^-11 + 2^-40 is just above the tie (rounds up), while
  // rounding through f32 first would lose the 2^-40 and produce the even 0x3c00.
  EXPECT_EQ(fp::f64_to_f16(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3c01);
  EXPECT_EQ(fp::f64_to_f16(1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -40)), 0x3c00);
}

TEST(Fp16, F64ToF16MatchesHost) {
  Rng g(7);
  int bad = 0;
  for (int i = 0; i < 50000; ++i) {
    const double x = g.dbl(-30, 17);
    bad += fp::f64_to_f16(x) != h16((_Float16)x);
    for (Round r : kModes) bad += fp::f64_to_f16(x, r) != ref_f16(x, r);
  }
  EXPECT_EQ(bad, 0);
}

TEST(Fp16, FastAndGenericRoundingAgree) {
  // encode_rn (integer fast path) against round_pack (generic) over the whole double range
  Rng g(21);
  int bad = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = (i % 7 == 0) ? bd(g.next()) : g.dbl(-160, 140);
    bad += fp::encode_rn<fp::FmtF16>(x) != fp::encode<fp::FmtF16>(x, Round::rn);
    bad += fp::encode_rn<fp::FmtBF16>(x) != fp::encode<fp::FmtBF16>(x, Round::rn);
  }
  // boundaries: the largest double below the f16 overflow tie, the tie, subnormal ties
  const double ties[] = {65520.0,
                         std::nextafter(65520.0, 0.0),
                         std::ldexp(1.0, -25),
                         std::nextafter(std::ldexp(1.0, -25), 1.0),
                         std::ldexp(3.0, -26),
                         std::ldexp(1.0, -1074),
                         std::ldexp(1.0, -14) - std::ldexp(1.0, -25),
                         std::ldexp(1.0, 128) - std::ldexp(1.0, 119),
                         std::ldexp(1.0, -134),
                         std::ldexp(3.0, -135),
                         DBL_MAX,
                         -0.0};
  for (double x : ties) {
    for (double y : {x, -x}) {
      EXPECT_EQ(fp::encode_rn<fp::FmtF16>(y), fp::encode<fp::FmtF16>(y, Round::rn)) << y;
      EXPECT_EQ(fp::encode_rn<fp::FmtBF16>(y), fp::encode<fp::FmtBF16>(y, Round::rn)) << y;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(Bf16, ExhaustiveRoundTrip) {
  int bad = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float v = fp::bf16_to_f32(uint16_t(h));
    if (std::isnan(v)) {
      bad += fp::f32_to_bf16(v) != 0x7fff;
      continue;
    }
    for (Round r : kModes) bad += fp::f32_to_bf16(v, r) != h;
  }
  EXPECT_EQ(bad, 0);
}

TEST(Bf16, F32ToBf16MatchesReference) {
  for (Round r : kModes) {
    int bad = 0;
    for (uint64_t b = 0; b < 0x100000000ull; b += 4099) {
      const float x = bf(uint32_t(b));
      if (std::isnan(x)) continue;
      bad += fp::f32_to_bf16(x, r) != ref_bf16(x, r);
    }
    EXPECT_EQ(bad, 0) << mode_name(r);
  }
}

TEST(Bf16, EdgeCases) {
  // bf16 keeps the top 16 bits of an f32; bit 15 is the rounding bit.
  EXPECT_EQ(fp::f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(fp::f32_to_bf16(bf(0x3f808000u)), 0x3f80);  // tie, even stays
  EXPECT_EQ(fp::f32_to_bf16(bf(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(fp::f32_to_bf16(bf(0x3f808001u)), 0x3f81);  // above tie
  EXPECT_EQ(fp::f32_to_bf16(bf(0x3f80ffffu), Round::rz), 0x3f80);
  EXPECT_EQ(fp::f32_to_bf16(bf(0xbf800001u), Round::rm), 0xbf81);
  EXPECT_EQ(fp::f32_to_bf16(bf(0xbf800001u), Round::rp), 0xbf80);
  EXPECT_EQ(fp::f32_to_bf16(FLT_MAX), 0x7f80);  // 0x7f7fffff rounds up into Inf
  EXPECT_EQ(fp::f32_to_bf16(FLT_MAX, Round::rz), 0x7f7f);
  EXPECT_EQ(fp::f32_to_bf16(-FLT_MAX, Round::rp), 0xff7f);
  EXPECT_EQ(fp::f32_to_bf16(bf(0x7fa00000u)), 0x7fff);  // signaling NaN -> canonical
  EXPECT_EQ(fp::f32_to_bf16(bf(0x00008000u)), 0x0000);  // subnormal tie to even (0)
  EXPECT_EQ(fp::f32_to_bf16(bf(0x00018000u)), 0x0002);  // subnormal tie to even (2)
  // f64 source: a single rounding (257/256 + 2^-30 is above the tie -> 0x3f81)
  EXPECT_EQ(fp::f64_to_bf16(1.00390625 + std::ldexp(1.0, -30)), 0x3f81);
  EXPECT_EQ(fp::f64_to_bf16(1.00390625), 0x3f80);
}

TEST(Tf32, Rounding) {
  using R = Round;
  // tf32 keeps 10 mantissa bits: the low 13 bits of the f32 are dropped; 0x1000 is the tie.
  EXPECT_EQ(fp::f32_to_tf32(bf(0x3f801000u), R::rna), 0x3f802000u);  // tie away from zero
  EXPECT_EQ(fp::f32_to_tf32(bf(0x3f801000u), R::rn), 0x3f800000u);   // tie to even
  EXPECT_EQ(fp::f32_to_tf32(bf(0x3f803000u), R::rn), 0x3f804000u);   // tie, odd -> up
  EXPECT_EQ(fp::f32_to_tf32(bf(0x3f803000u), R::rz), 0x3f802000u);
  EXPECT_EQ(fp::f32_to_tf32(bf(0xbf801000u), R::rna), 0xbf802000u);
  EXPECT_EQ(fp::f32_to_tf32(bf(0x3f800fffu), R::rna), 0x3f800000u);
  EXPECT_EQ(fp::f32_to_tf32(FLT_MAX, R::rna), 0x7f800000u);        // rounds into Inf
  EXPECT_EQ(fp::f32_to_tf32(FLT_MAX, R::rna, true), 0x7f7fe000u);  // satfinite
  EXPECT_EQ(fp::f32_to_tf32(-INFINITY, R::rn, true), 0xff7fe000u);
  EXPECT_EQ(fp::f32_to_tf32(FLT_MAX, R::rz), 0x7f7fe000u);
  EXPECT_EQ(fp::f32_to_tf32(bf(0x7f800001u), R::rna), 0x7fffe000u);  // NaN
  EXPECT_EQ(fp::f32_to_tf32(bf(0x00001000u), R::rna), 0x00002000u);  // subnormal tie
}

// =============================================================================================
// 8-bit formats
// =============================================================================================

TEST(Fp8, E4M3KnownValues) {
  using E = fp::FmtE4M3;
  // e4m3: bias 7, 3 mantissa bits, no Inf, NaN = S.1111.111, max 0.1111.110 = 1.75*2^8 = 448.
  EXPECT_EQ(fp::encode<E>(1.0, Round::rn, true), 0x38u);
  EXPECT_EQ(fp::encode<E>(448.0, Round::rn, true), 0x7eu);
  EXPECT_EQ(fp::encode<E>(-448.0, Round::rn, true), 0xfeu);
  EXPECT_EQ(fp::encode<E>(std::ldexp(1.0, -9), Round::rn, true), 0x01u);  // min subnormal
  EXPECT_EQ(fp::encode<E>(std::ldexp(1.0, -6), Round::rn, true), 0x08u);  // min normal
  EXPECT_EQ(fp::encode<E>(7 * std::ldexp(1.0, -9), Round::rn, true), 0x07u);
  EXPECT_EQ(fp::encode<E>(464.0, Round::rn, true), 0x7eu);   // tie 448/480 -> even 448
  EXPECT_EQ(fp::encode<E>(500.0, Round::rn, true), 0x7eu);   // overflow saturates
  EXPECT_EQ(fp::encode<E>(500.0, Round::rn, false), 0x7fu);  // without satfinite: NaN
  EXPECT_EQ(fp::encode<E>(INFINITY, Round::rn, true), 0x7eu);
  EXPECT_EQ(fp::encode<E>(-INFINITY, Round::rn, true), 0xfeu);
  EXPECT_EQ(fp::encode<E>(NAN, Round::rn, true), 0x7fu);
  EXPECT_EQ(fp::encode<E>(-0.0, Round::rn, true), 0x80u);
  EXPECT_EQ(fp::encode<E>(std::ldexp(1.0, -10), Round::rn, true), 0x00u);  // tie -> 0
  EXPECT_EQ(fp::decode<E>(0x7e), 448.0);
  EXPECT_TRUE(std::isnan(fp::decode<E>(0xff)));
  EXPECT_EQ(fp::decode<E>(0x78), 256.0);  // exponent field 15 is a normal binade in e4m3
}

TEST(Fp8, E5M2KnownValuesAndF16Relation) {
  using E = fp::FmtE5M2;
  // e5m2 is the upper byte of an f16: 1.0 = 0x3c, max 0x7b = 1.75 * 2^15 = 57344, Inf 0x7c.
  EXPECT_EQ(fp::encode<E>(1.0, Round::rn, true), 0x3cu);
  EXPECT_EQ(fp::encode<E>(57344.0, Round::rn, true), 0x7bu);
  EXPECT_EQ(fp::encode<E>(61440.0, Round::rn, true), 0x7bu);   // tie to 65536 -> saturated
  EXPECT_EQ(fp::encode<E>(61440.0, Round::rn, false), 0x7cu);  // -> Inf without satfinite
  EXPECT_EQ(fp::encode<E>(INFINITY, Round::rn, true), 0x7bu);
  EXPECT_EQ(fp::encode<E>(INFINITY, Round::rn, false), 0x7cu);
  EXPECT_EQ(fp::encode<E>(std::ldexp(1.0, -16), Round::rn, true), 0x01u);
  EXPECT_EQ(fp::encode<E>(NAN, Round::rn, true), 0x7fu);
  int bad = 0;
  for (uint32_t b = 0; b < 256; ++b) {
    const double v = fp::decode<E>(b);
    const double via_f16 = (float)hf(uint16_t(b << 8));
    if (std::isnan(via_f16)) {
      bad += !std::isnan(v);
      continue;
    }
    bad += v != via_f16;
    bad += fp::encode<E>(v, Round::rn, false) != b;
  }
  EXPECT_EQ(bad, 0);
}

TEST(Fp8, E4M3ExhaustiveRoundTrip) {
  using E = fp::FmtE4M3;
  int bad = 0;
  for (uint32_t b = 0; b < 256; ++b) {
    const double v = fp::decode<E>(b);
    if ((b & 0x7f) == 0x7f) {
      bad += !std::isnan(v);
      continue;
    }
    // value from the definition: e == 0 ? m/8 * 2^-6 : (1 + m/8) * 2^(e-7)
    const unsigned e = (b >> 3) & 15, m = b & 7;
    const double want =
        (b & 0x80 ? -1 : 1) *
        (e == 0 ? m / 8.0 * std::ldexp(1.0, -6) : (1 + m / 8.0) * std::ldexp(1.0, int(e) - 7));
    bad += v != want;
    for (Round r : kModes) bad += fp::encode<E>(v, r, true) != b;
  }
  EXPECT_EQ(bad, 0);
}

// =============================================================================================
// f32 arithmetic
// =============================================================================================

TEST(F32, DirectedRoundingHandCases) {
  using R = Round;
  const float one = 1.0f, tiny = std::ldexp(1.0f, -30), ulp1 = std::ldexp(1.0f, -23);
  // 1 + 2^-30: below half an ulp of 1 -> rn/rz/rm give 1, rp gives 1 + 2^-23
  EXPECT_EQ(fp::f32_add(one, tiny, R::rn), 1.0f);
  EXPECT_EQ(fp::f32_add(one, tiny, R::rz), 1.0f);
  EXPECT_EQ(fp::f32_add(one, tiny, R::rm), 1.0f);
  EXPECT_EQ(fp::f32_add(one, tiny, R::rp), 1.0f + ulp1);
  // -1 - 2^-30: rm goes away from zero
  EXPECT_EQ(fp::f32_sub(-one, tiny, R::rm), -(1.0f + ulp1));
  EXPECT_EQ(fp::f32_sub(-one, tiny, R::rp), -1.0f);
  EXPECT_EQ(fp::f32_sub(-one, tiny, R::rz), -1.0f);
  // 1/3: 0x3eaaaaab is the rn result (mantissa ...1010|1010... rounds up); rz/rm truncate.
  EXPECT_EQ(fb(fp::f32_div(1.0f, 3.0f, R::rn)), 0x3eaaaaabu);
  EXPECT_EQ(fb(fp::f32_div(1.0f, 3.0f, R::rz)), 0x3eaaaaaau);
  EXPECT_EQ(fb(fp::f32_div(1.0f, 3.0f, R::rm)), 0x3eaaaaaau);
  EXPECT_EQ(fb(fp::f32_div(1.0f, 3.0f, R::rp)), 0x3eaaaaabu);
  EXPECT_EQ(fb(fp::f32_div(-1.0f, 3.0f, R::rm)), 0xbeaaaaabu);
  EXPECT_EQ(fb(fp::f32_rcp(3.0f, R::rz)), 0x3eaaaaaau);
  // sqrt(2) = 1.41421353816986083984375 (0x3fb504f3) + ...: rn rounds down (0x3fb504f3)
  EXPECT_EQ(fb(fp::f32_sqrt(2.0f, R::rn)), 0x3fb504f3u);
  EXPECT_EQ(fb(fp::f32_sqrt(2.0f, R::rp)), 0x3fb504f4u);
  EXPECT_EQ(fb(fp::f32_sqrt(2.0f, R::rm)), 0x3fb504f3u);
  // overflow: FLT_MAX * 2
  EXPECT_EQ(fp::f32_mul(FLT_MAX, 2.0f, R::rn), INFINITY);
  EXPECT_EQ(fp::f32_mul(FLT_MAX, 2.0f, R::rz), FLT_MAX);
  EXPECT_EQ(fp::f32_mul(FLT_MAX, 2.0f, R::rm), FLT_MAX);
  EXPECT_EQ(fp::f32_mul(FLT_MAX, 2.0f, R::rp), INFINITY);
  EXPECT_EQ(fp::f32_mul(-FLT_MAX, 2.0f, R::rm), -INFINITY);
  EXPECT_EQ(fp::f32_mul(-FLT_MAX, 2.0f, R::rp), -FLT_MAX);
  EXPECT_EQ(fp::f32_mul(-FLT_MAX, 2.0f, R::rz), -FLT_MAX);
  // underflow to the smallest subnormal: 2^-100 * 2^-50 = 2^-150 is the tie between 0 and 2^-149
  EXPECT_EQ(fb(fp::f32_mul(std::ldexp(1.0f, -100), std::ldexp(1.0f, -50), R::rn)), 0x00000000u);
  EXPECT_EQ(fb(fp::f32_mul(std::ldexp(1.0f, -100), std::ldexp(1.0f, -50), R::rp)), 0x00000001u);
  EXPECT_EQ(fb(fp::f32_mul(-std::ldexp(1.0f, -100), std::ldexp(1.0f, -50), R::rm)), 0x80000001u);
  // exact cancellation: x - x is +0 except in rm where it is -0
  EXPECT_EQ(fb(fp::f32_sub(1.5f, 1.5f, R::rn)), 0x00000000u);
  EXPECT_EQ(fb(fp::f32_sub(1.5f, 1.5f, R::rm)), 0x80000000u);
  // the FPU mode is restored
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(F32, FmaIsFused) {
  // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; an unfused multiply would round the square to
  // 1 + 2^-11 and give 2^-11.
  const float a = 1.0f + std::ldexp(1.0f, -12);
  EXPECT_EQ(fp::f32_fma(a, a, -1.0f, Round::rn), std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24));
  // (1 + 2^-23)(1 - 2^-23) = 1 - 2^-46: fma with c = -1 is exactly -2^-46 in every mode
  for (Round r : kModes)
    EXPECT_EQ(fp::f32_fma(1.0f + std::ldexp(1.0f, -23), 1.0f - std::ldexp(1.0f, -23), -1.0f, r),
              -std::ldexp(1.0f, -46));
  // 1 + 2^-24 + 2^-40 lies just above the tie between 1 and 1 + 2^-23
  const float b = 1.0f + std::ldexp(1.0f, -20);
  EXPECT_EQ(fp::f32_fma(b, std::ldexp(1.0f, -20), 1.0f, Round::rn),
            1.0f + std::ldexp(1.0f, -20));  // 1 + 2^-20 + 2^-40: the 2^-40 is below half an ulp
  EXPECT_EQ(fp::f32_fma(std::ldexp(1.0f, -12), std::ldexp(1.0f, -12) + std::ldexp(1.0f, -28), 1.0f,
                        Round::rn),
            1.0f + std::ldexp(1.0f, -23));  // 1 + 2^-24 + 2^-40 -> up
}

/// Random f32 operations against long double / double references in every mode.
TEST(F32, RandomAgainstReference) {
  Rng g(12345);
  for (Round r : kModes) {
    int bad_add = 0, bad_mul = 0, bad_div = 0, bad_sqrt = 0, bad_fma = 0;
    for (int i = 0; i < 4000; ++i) {
      const float a = g.flt(-20, 20), b = g.flt(-20, 20);
      // exact sum: exponents within 40 of each other -> fits the 64-bit long double mantissa
      bad_add += fb(fp::f32_add(a, b, r)) != fb(ref_f32((long double)a + b, r));
      bad_add += fb(fp::f32_sub(a, b, r)) != fb(ref_f32((long double)a - b, r));
      bad_mul += fb(fp::f32_mul(a, b, r)) != fb(ref_f32((long double)a * b, r));  // 48 bits
      // division: sign(x - a/b) == sign(fma(x, b, -a)) * sign(b); fma is exact here
      {
        const float q = fp::f32_div(a, b, r);
        auto d = [&](float x) {
          return std::fma(double(x), double(b), -double(a)) * (b > 0 ? 1 : -1);
        };
        const float lo = std::nextafter(q, -INFINITY), hi = std::nextafter(q, INFINITY);
        const bool qpos = (a > 0) == (b > 0);
        bool ok;
        switch (r) {
          case Round::rz:
            ok = qpos ? (d(q) <= 0 && d(hi) > 0) : (d(q) >= 0 && d(lo) < 0);
            break;
          case Round::rm:
            ok = d(q) <= 0 && d(hi) > 0;
            break;
          case Round::rp:
            ok = d(q) >= 0 && d(lo) < 0;
            break;
          default:
            ok = std::fabs(d(q)) <= std::fabs(d(lo)) && std::fabs(d(q)) <= std::fabs(d(hi));
            break;
        }
        bad_div += !ok;
      }
      {
        const float x = std::fabs(a);
        const float s = fp::f32_sqrt(x, r);
        const float lo = std::nextafter(s, -INFINITY), hi = std::nextafter(s, INFINITY);
        const double rs = std::fma(double(s), double(s), -double(x));  // s^2 - x
        const double rl = std::fma(double(lo), double(lo), -double(x));
        const double rh = std::fma(double(hi), double(hi), -double(x));
        bool ok;
        switch (r) {
          case Round::rz:
          case Round::rm:
            ok = rs <= 0 && rh > 0;
            break;
          case Round::rp:
            ok = rs >= 0 && rl < 0;
            break;
          default: {
            // nearest: |s - sqrt(x)| <= half way to the neighbors <=> compare with midpoints
            const double ml = (double(s) + double(lo)) / 2, mh = (double(s) + double(hi)) / 2;
            ok = std::fma(ml, ml, -double(x)) <= 0 && std::fma(mh, mh, -double(x)) >= 0;
          }
        }
        bad_sqrt += !ok;
      }
      {
        // c within 2^+-10 of a*b: the exact a*b + c spans < 64 bits
        const float c = float(double(a) * b * std::ldexp(1.0, int(g.u32() % 21) - 10)) *
                        ((g.u32() & 1) ? 1.0f : -1.0f);
        const long double exact = (long double)a * b + c;
        bad_fma += fb(fp::f32_fma(a, b, c, r)) != fb(ref_f32(exact, r));
      }
    }
    EXPECT_EQ(bad_add, 0) << mode_name(r);
    EXPECT_EQ(bad_mul, 0) << mode_name(r);
    EXPECT_EQ(bad_div, 0) << mode_name(r);
    EXPECT_EQ(bad_sqrt, 0) << mode_name(r);
    EXPECT_EQ(bad_fma, 0) << mode_name(r);
  }
}

TEST(F32, NaNsAreCanonical) {
  const float qnan = bf(0x7fc00001u), snan = bf(0x7f800001u), nnan = bf(0xffc12345u);
  for (Round r : kModes) {
    EXPECT_EQ(fb(fp::f32_add(qnan, 1.0f, r)), 0x7fffffffu);
    EXPECT_EQ(fb(fp::f32_add(1.0f, snan, r)), 0x7fffffffu);
    EXPECT_EQ(fb(fp::f32_mul(nnan, 2.0f, r)), 0x7fffffffu);
    EXPECT_EQ(fb(fp::f32_fma(1.0f, 2.0f, nnan, r)), 0x7fffffffu);
    EXPECT_EQ(fb(fp::f32_sub(INFINITY, INFINITY, r)), 0x7fffffffu);  // generated
    EXPECT_EQ(fb(fp::f32_mul(0.0f, INFINITY, r)), 0x7fffffffu);
    EXPECT_EQ(fb(fp::f32_div(0.0f, 0.0f, r)), 0x7fffffffu);
    EXPECT_EQ(fb(fp::f32_sqrt(-1.0f, r)), 0x7fffffffu);
  }
  EXPECT_EQ(fb(fp::f32_rcp(snan)), 0x7fffffffu);
}

TEST(F32, FlushToZero) {
  const float dmin = std::ldexp(1.0f, -149);  // smallest subnormal
  // subnormal inputs flush to sign-preserving zero
  EXPECT_EQ(fb(fp::f32_add(dmin, 0.0f, Round::rn, true)), 0x00000000u);
  EXPECT_EQ(fb(fp::f32_add(-dmin, -0.0f, Round::rn, true)), 0x80000000u);
  EXPECT_EQ(fb(fp::f32_add(dmin, 0.0f, Round::rn, false)), 0x00000001u);
  // FLT_MIN - FLT_MIN/2: the subnormal operand is flushed, the result stays FLT_MIN
  EXPECT_EQ(fp::f32_add(FLT_MIN, -FLT_MIN / 2, Round::rn, true), FLT_MIN);
  EXPECT_EQ(fp::f32_add(FLT_MIN, -FLT_MIN / 2, Round::rn, false), FLT_MIN / 2);
  // subnormal results flush: 2^-100 * 2^-30 = 2^-130
  EXPECT_EQ(fb(fp::f32_mul(std::ldexp(1.0f, -100), std::ldexp(1.0f, -30), Round::rn, true)), 0u);
  EXPECT_EQ(fp::f32_mul(std::ldexp(1.0f, -100), std::ldexp(1.0f, -30), Round::rn, false),
            std::ldexp(1.0f, -130));
  EXPECT_EQ(fb(fp::f32_mul(-std::ldexp(1.0f, -100), std::ldexp(1.0f, -30), Round::rn, true)),
            0x80000000u);
  // rp would give the smallest subnormal; .ftz flushes it
  EXPECT_EQ(fb(fp::f32_mul(std::ldexp(1.0f, -100), std::ldexp(1.0f, -50), Round::rp, true)), 0u);
  // results that round up to FLT_MIN are normal and kept
  EXPECT_EQ(fp::f32_mul(FLT_MIN * (1.0f + FLT_EPSILON), 1.0f - FLT_EPSILON / 2, Round::rn, true),
            FLT_MIN);
  EXPECT_EQ(fp::f32_div(FLT_MIN, 2.0f, Round::rn, true), 0.0f);
  EXPECT_EQ(fp::f32_sqrt(dmin, Round::rn, true), 0.0f);
  EXPECT_EQ(fp::f32_sqrt(dmin, Round::rn, false), std::sqrt(dmin));
  EXPECT_EQ(fp::f32_rcp(-dmin, Round::rn, true), -INFINITY);  // rcp(-0) = -Inf
  EXPECT_EQ(fb(fp::f32_fma(dmin, 1e30f, 0.0f, Round::rn, true)), 0u);
  EXPECT_EQ(fp::f32_fma(dmin, 1e30f, 0.0f, Round::rn, false),
            float(std::ldexp(1.0, -149) * double(1e30f)));
}

TEST(F32, Saturate) {
  EXPECT_EQ(fp::f32_add(0.75f, 0.75f, Round::rn, false, true), 1.0f);
  EXPECT_EQ(fb(fp::f32_add(-0.5f, 0.25f, Round::rn, false, true)), 0u);
  EXPECT_EQ(fb(fp::f32_add(NAN, 0.25f, Round::rn, false, true)), 0u);   // NaN -> +0
  EXPECT_EQ(fb(fp::f32_mul(-0.0f, 1.0f, Round::rn, false, true)), 0u);  // -0 -> +0
  EXPECT_EQ(fp::f32_mul(0.5f, 1.0f, Round::rn, false, true), 0.5f);
  EXPECT_EQ(fp::f32_add(INFINITY, 1.0f, Round::rn, false, true), 1.0f);
  EXPECT_EQ(fb(fp::f32_add(-INFINITY, 1.0f, Round::rn, false, true)), 0u);
  EXPECT_EQ(fb(fp::f32_mul(std::ldexp(1.0f, -140), 1.0f, Round::rn, false, true)),
            fb(std::ldexp(1.0f, -140)));
  EXPECT_EQ(fb(fp::f32_mul(std::ldexp(1.0f, -140), 1.0f, Round::rn, true, true)), 0u);
  EXPECT_EQ(fp::f32_fma(2.0f, 2.0f, -3.5f, Round::rn, false, true), 0.5f);
  EXPECT_EQ(fp::f32_fma(2.0f, 2.0f, -2.5f, Round::rz, false, true), 1.0f);
}

// =============================================================================================
// f64 arithmetic
// =============================================================================================

TEST(F64, RandomDirectedAgainstErrorFreeTransforms) {
  Rng g(99);
  for (Round r : kModes) {
    int bad = 0;
    for (int i = 0; i < 5000; ++i) {
      const double a = g.dbl(-300, 300), b = g.dbl(-300, 300);
      {
        const double s = a + b, bb = s - a, e = (a - (s - bb)) + (b - bb);  // TwoSum
        bad += db(fp::f64_add(a, b, r)) != db(ref_dir64(s, sgn(e), r));
      }
      {
        const double s = a - b, nb = -b, bb = s - a, e = (a - (s - bb)) + (nb - bb);
        bad += db(fp::f64_sub(a, b, r)) != db(ref_dir64(s, sgn(e), r));
      }
      {
        const double p = a * b, e = std::fma(a, b, -p);  // exact product error
        bad += db(fp::f64_mul(a, b, r)) != db(ref_dir64(p, sgn(e), r));
      }
      {
        const double q = a / b, rem = std::fma(-q, b, a);  // a - q*b, exact
        bad += db(fp::f64_div(a, b, r)) != db(ref_dir64(q, sgn(rem) * sgn(b), r));
        const double rc = 1.0 / b, rr = std::fma(-rc, b, 1.0);
        bad += db(fp::f64_rcp(b, r)) != db(ref_dir64(rc, sgn(rr) * sgn(b), r));
      }
      {
        const double x = std::fabs(a), s = std::sqrt(x), rem = std::fma(-s, s, x);
        bad += db(fp::f64_sqrt(x, r)) != db(ref_dir64(s, sgn(rem), r));
      }
    }
    EXPECT_EQ(bad, 0) << mode_name(r);
  }
}

TEST(F64, HandCases) {
  using R = Round;
  // (1 + 2^-52)^2 - 1 = 2^-51 + 2^-104 = 2^-51 * (1 + 2^-53): a tie between 2^-51 and
  // 2^-51 * (1 + 2^-52) -> rn keeps the even 2^-51, rp goes up.
  const double a = 1.0 + std::ldexp(1.0, -52);
  EXPECT_EQ(fp::f64_fma(a, a, -1.0, R::rn), std::ldexp(1.0, -51));
  EXPECT_EQ(fp::f64_fma(a, a, -1.0, R::rz), std::ldexp(1.0, -51));
  EXPECT_EQ(fp::f64_fma(a, a, -1.0, R::rm), std::ldexp(1.0, -51));
  EXPECT_EQ(fp::f64_fma(a, a, -1.0, R::rp), std::ldexp(1.0, -51) * a);
  // overflow
  EXPECT_EQ(fp::f64_mul(DBL_MAX, 2.0, R::rn), INFINITY);
  EXPECT_EQ(fp::f64_mul(DBL_MAX, 2.0, R::rz), DBL_MAX);
  EXPECT_EQ(fp::f64_mul(DBL_MAX, 2.0, R::rm), DBL_MAX);
  EXPECT_EQ(fp::f64_mul(DBL_MAX, 2.0, R::rp), INFINITY);
  EXPECT_EQ(fp::f64_mul(-DBL_MAX, 2.0, R::rm), -INFINITY);
  EXPECT_EQ(fp::f64_mul(-DBL_MAX, 2.0, R::rp), -DBL_MAX);
  // DBL_MAX + half an ulp (2^970) is a tie: rn rounds to the even neighbor, which is Inf
  EXPECT_EQ(fp::f64_add(DBL_MAX, std::ldexp(1.0, 970), R::rn), INFINITY);
  EXPECT_EQ(fp::f64_add(DBL_MAX, std::ldexp(1.0, 970), R::rz), DBL_MAX);
  // subnormal results are kept (no .ftz for f64)
  EXPECT_EQ(fp::f64_mul(DBL_MIN, 0.5, R::rn), DBL_MIN / 2);
  EXPECT_EQ(db(fp::f64_mul(DBL_MIN, std::ldexp(1.0, -60), R::rp)),
            0x0000000000000001ull);  // 2^-1082
  EXPECT_EQ(db(fp::f64_mul(DBL_MIN, std::ldexp(1.0, -60), R::rn)), 0x0000000000000000ull);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(F64, NaNPropagation) {
  const double snan = bd(0x7ff0000000000001ull), qnan = bd(0xfff8000000000123ull);
  // input NaNs propagate, quieted (quiet bit 0x0008000000000000), payload and sign kept
  EXPECT_EQ(db(fp::f64_add(snan, 1.0)), 0x7ff8000000000001ull);
  EXPECT_EQ(db(fp::f64_add(1.0, qnan)), 0xfff8000000000123ull);
  EXPECT_EQ(db(fp::f64_mul(qnan, snan)), 0xfff8000000000123ull);  // first NaN operand
  EXPECT_EQ(db(fp::f64_fma(1.0, 2.0, snan, Round::rz)), 0x7ff8000000000001ull);
  EXPECT_EQ(db(fp::f64_sqrt(snan)), 0x7ff8000000000001ull);
  // generated NaNs are kNaN64
  EXPECT_EQ(db(fp::f64_sub(INFINITY, INFINITY)), fp::kNaN64);
  EXPECT_EQ(db(fp::f64_sqrt(-1.0)), fp::kNaN64);
  EXPECT_EQ(db(fp::f64_div(0.0, 0.0, Round::rp)), fp::kNaN64);
}

// =============================================================================================
// approximate functions
// =============================================================================================

TEST(Approx, SpecialCases) {
  const float inf = INFINITY;
  // div.approx.f32: for 2^126 < |b| < 2^128 the result is a sign-preserving zero (NaN for Inf a)
  EXPECT_EQ(fb(fp::div_approx_f32(1.0f, std::ldexp(1.0f, 127))), 0x00000000u);
  EXPECT_EQ(fb(fp::div_approx_f32(-1.0f, std::ldexp(1.0f, 127))), 0x80000000u);
  EXPECT_EQ(fb(fp::div_approx_f32(1.0f, -std::ldexp(1.5f, 126))), 0x80000000u);
  EXPECT_TRUE(std::isnan(fp::div_approx_f32(inf, std::ldexp(1.0f, 127))));
  EXPECT_EQ(fp::div_approx_f32(1e30f, std::ldexp(1.0f, 126)), 1e30f / std::ldexp(1.0f, 126));
  EXPECT_EQ(fp::div_approx_f32(6.0f, 3.0f), 2.0f);
  // rsqrt
  EXPECT_EQ(fp::rsqrt_approx_f32(-0.0f), -inf);
  EXPECT_EQ(fp::rsqrt_approx_f32(0.0f), inf);
  EXPECT_EQ(fb(fp::rsqrt_approx_f32(inf)), 0u);
  EXPECT_TRUE(std::isnan(fp::rsqrt_approx_f32(-2.0f)));
  EXPECT_EQ(fp::rsqrt_approx_f32(4.0f), 0.5f);
  EXPECT_EQ(fp::rsqrt_approx_f64(0.25), 2.0);
  // sin/cos
  EXPECT_TRUE(std::isnan(fp::sin_approx_f32(inf)));
  EXPECT_TRUE(std::isnan(fp::cos_approx_f32(-inf)));
  EXPECT_EQ(fb(fp::sin_approx_f32(-0.0f)), 0x80000000u);
  EXPECT_EQ(fp::cos_approx_f32(-0.0f), 1.0f);
  EXPECT_NEAR(fp::sin_approx_f32(1.0f), 0.8414709848, std::ldexp(1.0, -20));
  EXPECT_NEAR(fp::cos_approx_f32(2.0f), -0.4161468365, std::ldexp(1.0, -20));
  // lg2
  EXPECT_EQ(fp::lg2_approx_f32(0.0f), -inf);
  EXPECT_EQ(fp::lg2_approx_f32(-0.0f), -inf);
  EXPECT_TRUE(std::isnan(fp::lg2_approx_f32(-1.0f)));
  EXPECT_TRUE(std::isnan(fp::lg2_approx_f32(-inf)));
  EXPECT_EQ(fp::lg2_approx_f32(inf), inf);
  EXPECT_EQ(fp::lg2_approx_f32(8.0f), 3.0f);
  EXPECT_EQ(fp::lg2_approx_f32(std::ldexp(1.0f, -140)), -140.0f);  // subnormal input supported
  // ex2
  EXPECT_EQ(fb(fp::ex2_approx_f32(-inf)), 0u);
  EXPECT_EQ(fp::ex2_approx_f32(inf), inf);
  EXPECT_EQ(fp::ex2_approx_f32(-0.0f), 1.0f);
  EXPECT_EQ(fp::ex2_approx_f32(10.0f), 1024.0f);
  EXPECT_EQ(fp::ex2_approx_f32(-130.0f), std::ldexp(1.0f, -130));
  // tanh
  EXPECT_EQ(fp::tanh_approx_f32(inf), 1.0f);
  EXPECT_EQ(fp::tanh_approx_f32(-inf), -1.0f);
  EXPECT_EQ(fb(fp::tanh_approx_f32(-0.0f)), 0x80000000u);
  EXPECT_EQ(fp::tanh_approx_f32(std::ldexp(1.0f, -140)), std::ldexp(1.0f, -140));
}

TEST(Approx, F64GrossApproximations) {
  // rcp.approx.ftz.f64 uses the upper 32 bits (1.11.20) and zeroes the low 32 result bits.
  // 1/3 = 0x3fd5555555555555 -> 0x3fd5555500000000.
  EXPECT_EQ(fp::approx_ftz_f64<false>(db(3.0)), 0x3fd5555500000000ull);
  EXPECT_EQ(fp::approx_ftz_f64<false>(0x4008000012345678ull),
            0x3fd5555500000000ull);  // low bits ignored
  EXPECT_EQ(fp::approx_ftz_f64<false>(db(2.0)), db(0.5));
  EXPECT_EQ(fp::approx_ftz_f64<false>(db(-INFINITY)), db(-0.0));
  EXPECT_EQ(fp::approx_ftz_f64<false>(db(DBL_MIN / 4)), db(INFINITY));  // subnormal -> Inf
  EXPECT_EQ(fp::approx_ftz_f64<false>(db(-DBL_MIN / 4)), db(-INFINITY));
  EXPECT_EQ(fp::approx_ftz_f64<false>(db(std::ldexp(1.0, 1023))), db(0.0));  // result subnormal
  EXPECT_EQ(fp::approx_ftz_f64<false>(0x7ff0000100000000ull), fp::kNaN64Approx);
  EXPECT_EQ(fp::approx_ftz_f64<true>(db(4.0)), db(0.5));
  EXPECT_EQ(fp::approx_ftz_f64<true>(db(-4.0)), fp::kNaN64Approx);
  EXPECT_EQ(fp::approx_ftz_f64<true>(db(-INFINITY)), fp::kNaN64Approx);
  EXPECT_EQ(fp::approx_ftz_f64<true>(db(-DBL_MIN / 4)), db(-INFINITY));
  EXPECT_EQ(fp::approx_ftz_f64<true>(db(INFINITY)), db(0.0));
}

// =============================================================================================
// min / max / testp / copysign (bit-level kernels)
// =============================================================================================

template <bool MAX, bool FTZ = false, bool NAN_ = false, bool ABS = false, bool XOR = false>
uint32_t mm32(float a, float b) {
  return uint32_t(fp::minmax2<fp::FmtF32, MAX, FTZ, NAN_, ABS, XOR>(fb(a), fb(b)));
}

TEST(MinMax, F32) {
  const float qnan = bf(0x7fc00001u);
  EXPECT_EQ(bf(mm32<false>(1.0f, 2.0f)), 1.0f);
  EXPECT_EQ(bf(mm32<true>(1.0f, 2.0f)), 2.0f);
  EXPECT_EQ(bf(mm32<false>(-1.0f, 2.0f)), -1.0f);
  EXPECT_EQ(bf(mm32<false>(qnan, 2.0f)), 2.0f);  // one NaN: the other operand
  EXPECT_EQ(bf(mm32<true>(-3.0f, qnan)), -3.0f);
  EXPECT_EQ(mm32<false>(qnan, bf(0xffc00000u)), 0x7fffffffu);      // both NaN: canonical
  EXPECT_EQ((mm32<false, false, true>(qnan, 2.0f)), 0x7fffffffu);  // .NaN
  EXPECT_EQ((mm32<true, false, true>(1.0f, bf(0x7f800001u))), 0x7fffffffu);
  EXPECT_EQ(mm32<false>(0.0f, -0.0f), 0x80000000u);  // -0 < +0
  EXPECT_EQ(mm32<false>(-0.0f, 0.0f), 0x80000000u);
  EXPECT_EQ(mm32<true>(-0.0f, 0.0f), 0x00000000u);
  EXPECT_EQ(mm32<true>(0.0f, -0.0f), 0x00000000u);
  EXPECT_EQ(bf(mm32<false>(-INFINITY, -FLT_MAX)), -INFINITY);
  // .ftz: 2^-149 flushes to +0, -2^-149 to -0
  EXPECT_EQ((mm32<false, true>(std::ldexp(1.0f, -149), 0.0f)), 0x00000000u);
  EXPECT_EQ((mm32<false, true>(-std::ldexp(1.0f, -149), 0.0f)), 0x80000000u);
  EXPECT_EQ((mm32<false, false>(std::ldexp(1.0f, -149), 0.0f)), 0x00000000u);
  EXPECT_EQ((mm32<true, false>(std::ldexp(1.0f, -149), 0.0f)), 0x00000001u);
  EXPECT_EQ((mm32<true, true>(std::ldexp(1.0f, -149), 0.0f)), 0x00000000u);
  // .xorsign.abs: magnitude from |a|,|b|, sign = sign(a) ^ sign(b)
  EXPECT_EQ(bf(mm32<false, false, false, true, true>(-3.0f, 2.0f)), -2.0f);
  EXPECT_EQ(bf(mm32<true, false, false, true, true>(-3.0f, -2.0f)), 3.0f);
  EXPECT_EQ(bf(mm32<true, false, false, true, true>(-3.0f, 2.0f)), -3.0f);
  EXPECT_EQ(bf(mm32<false, false, false, true, true>(qnan, -2.0f)), -2.0f);     // NaN sign bit 0
  EXPECT_EQ((mm32<false, false, true, true, true>(qnan, -2.0f)), 0x7fffffffu);  // NaN result
  // 3 inputs
  auto mm3 = [](auto f, float a, float b, float c) { return f(fb(a), fb(b), fb(c)); };
  EXPECT_EQ(
      bf(uint32_t(mm3(fp::minmax3<fp::FmtF32, false, false, false, false>, 3.0f, qnan, 1.0f))),
      1.0f);
  EXPECT_EQ(uint32_t(mm3(fp::minmax3<fp::FmtF32, false, false, true, false>, 3.0f, 1.0f, qnan)),
            0x7fffffffu);
  EXPECT_EQ(
      bf(uint32_t(mm3(fp::minmax3<fp::FmtF32, false, false, false, true>, 3.0f, -5.0f, -1.0f))),
      1.0f);
  EXPECT_EQ(
      bf(uint32_t(mm3(fp::minmax3<fp::FmtF32, true, false, false, true>, 3.0f, -5.0f, -1.0f))),
      5.0f);
  EXPECT_EQ(
      bf(uint32_t(mm3(fp::minmax3<fp::FmtF32, true, false, false, false>, 3.0f, -5.0f, 4.0f))),
      4.0f);
}

TEST(MinMax, F64AndHalf) {
  using F64 = fp::FmtF64;
  EXPECT_EQ((fp::minmax2<F64, false, false, false, false, false>(db(-0.0), db(0.0))), db(-0.0));
  EXPECT_EQ((fp::minmax2<F64, true, false, false, false, false>(db(1.5), db(-2.5))), db(1.5));
  EXPECT_EQ((fp::minmax2<F64, true, false, false, false, false>(db(NAN), db(-2.5))), db(-2.5));
  EXPECT_EQ((fp::minmax2<F64, true, false, false, false, false>(db(NAN), db(NAN))), fp::kNaN64);
  using H = fp::FmtF16;
  using B = fp::FmtBF16;
  EXPECT_EQ((fp::minmax2<H, false, false, false, false, false>(0x3c00, 0xbc00)), 0xbc00u);
  EXPECT_EQ((fp::minmax2<H, true, false, false, false, false>(0x3c00, 0x7e00)), 0x3c00u);
  EXPECT_EQ((fp::minmax2<H, true, false, true, false, false>(0x3c00, 0x7e00)), 0x7fffu);
  EXPECT_EQ((fp::minmax2<H, false, false, false, false, false>(0x7e00, 0xfe00)), 0x7fffu);
  EXPECT_EQ((fp::minmax2<H, false, true, false, false, false>(0x0001, 0x0000)), 0x0000u);  // ftz
  EXPECT_EQ((fp::minmax2<H, true, false, false, false, false>(0x0001, 0x0000)), 0x0001u);
  EXPECT_EQ((fp::minmax2<H, false, false, false, false, false>(0x8000, 0x0000)), 0x8000u);
  EXPECT_EQ((fp::minmax2<B, false, false, false, true, true>(0xc040, 0x4000)),
            0xc000u);  // -min(3,2)
  EXPECT_EQ((fp::minmax2<B, true, false, false, false, false>(0x3f80, 0x3f81)), 0x3f81u);
}

TEST(TestP, AllModes) {
  using T = fp::TestP;
  using F = fp::FmtF32;
  struct Row {
    uint32_t bits;
    bool fin, inf, num, nan, norm, sub;
  };
  const Row rows[] = {
      {0x3f800000u, true, false, true, false, true, false},    // 1.0
      {0x00000000u, true, false, true, false, true, false},    // +0 counts as normal
      {0x80000000u, true, false, true, false, true, false},    // -0
      {0x00000001u, true, false, true, false, false, true},    // smallest subnormal
      {0x807fffffu, true, false, true, false, false, true},    // largest negative subnormal
      {0x7f800000u, false, true, true, false, false, false},   // +Inf
      {0xff800000u, false, true, true, false, false, false},   // -Inf
      {0x7fc00000u, false, false, false, true, false, false},  // qNaN
      {0xff800001u, false, false, false, true, false, false},  // negative sNaN
      {0x7f7fffffu, true, false, true, false, true, false},    // FLT_MAX
  };
  for (const Row& r : rows) {
    EXPECT_EQ(fp::testp_bits<F>(T::finite, r.bits), r.fin) << std::hex << r.bits;
    EXPECT_EQ(fp::testp_bits<F>(T::infinite, r.bits), r.inf) << std::hex << r.bits;
    EXPECT_EQ(fp::testp_bits<F>(T::number, r.bits), r.num) << std::hex << r.bits;
    EXPECT_EQ(fp::testp_bits<F>(T::notanumber, r.bits), r.nan) << std::hex << r.bits;
    EXPECT_EQ(fp::testp_bits<F>(T::normal, r.bits), r.norm) << std::hex << r.bits;
    EXPECT_EQ(fp::testp_bits<F>(T::subnormal, r.bits), r.sub) << std::hex << r.bits;
  }
  using D = fp::FmtF64;
  EXPECT_TRUE(fp::testp_bits<D>(T::subnormal, 0x0000000000000001ull));
  EXPECT_TRUE(fp::testp_bits<D>(T::normal, 0x8000000000000000ull));
  EXPECT_TRUE(fp::testp_bits<D>(T::notanumber, 0x7ff0000000000001ull));
  EXPECT_TRUE(fp::testp_bits<D>(T::infinite, 0xfff0000000000000ull));
  EXPECT_FALSE(fp::testp_bits<D>(T::finite, 0x7ff8000000000000ull));
  EXPECT_FALSE(fp::testp_bits<D>(T::normal, 0x000fffffffffffffull));
}

// =============================================================================================
// 16-bit arithmetic
// =============================================================================================

/// f16 value as an exact integer count of 2^-24.
__int128 f16_units24(uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  __int128 v = e == 0 ? m : __int128(m | 0x400) << (e - 1);
  return (h & 0x8000) ? -v : v;
}

/// Round x * 2^-48 (exact integer x) to f16 in mode r, by search over encodings.
uint16_t ref_f16_from_units48(__int128 x, Round r) {
  const bool neg = x < 0;
  const __int128 m = neg ? -x : x;
  auto units48 = [](uint32_t mag) -> __int128 {  // 0x7c00 stands for 2^16
    return mag == 0x7c00 ? (__int128(1) << 64) : f16_units24(uint16_t(mag)) << 24;
  };
  uint32_t lo = 0, hi = 0x7c00;
  while (lo < hi) {
    const uint32_t mid = (lo + hi + 1) / 2;
    if (units48(mid) <= m)
      lo = mid;
    else
      hi = mid - 1;
  }
  uint32_t mag = lo;
  if (units48(lo) != m && lo != 0x7c00) {
    const uint32_t up = lo + 1;
    const bool away = (r == Round::rp && !neg) || (r == Round::rm && neg);
    const bool zero = r == Round::rz || (r == Round::rp && neg) || (r == Round::rm && !neg);
    if (away)
      mag = up;
    else if (!zero) {
      const __int128 dl = m - units48(lo), dh = units48(up) - m;
      mag = dl < dh ? lo : dh < dl ? up : ((lo & 1) ? up : lo);
    }
  }
  if (x == 0) return 0;  // callers handle the sign of zero separately
  return uint16_t((neg ? 0x8000 : 0) | mag);
}

uint16_t rand_f16(Rng& g) {
  for (;;) {
    const uint16_t h = uint16_t(g.u32());
    if ((h & 0x7c00) != 0x7c00) return h;  // finite
  }
}

TEST(Half, F16AddSubMulMatchHost) {
  Rng g(5);
  int bad = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint16_t a = uint16_t(g.u32()), b = uint16_t(g.u32());
    auto want = [](_Float16 v) { return std::isnan((float)v) ? uint16_t(0x7fff) : h16(v); };
    bad += fp::f16_add(a, b) != want(hf(a) + hf(b));
    bad += fp::f16_sub(a, b) != want(hf(a) - hf(b));
    bad += fp::f16_mul(a, b) != want(hf(a) * hf(b));
  }
  EXPECT_EQ(bad, 0);
}

TEST(Half, F16FmaExactAgainstInt128) {
  Rng g(11);
  int bad = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint16_t a = rand_f16(g), b = rand_f16(g), c = rand_f16(g);
    const __int128 x = f16_units24(a) * f16_units24(b) + (f16_units24(c) << 24);
    uint16_t want;
    if (x == 0) {
      // exact zero: +0 unless both the product and c are -0/negative zero terms
      const bool pneg = ((a ^ b) & 0x8000) != 0;
      const bool pzero = f16_units24(a) == 0 || f16_units24(b) == 0;
      const bool czero = f16_units24(c) == 0;
      want = (pzero && czero && pneg && (c & 0x8000)) ? 0x8000 : 0x0000;
    } else {
      want = ref_f16_from_units48(x, Round::rn);
    }
    bad += fp::f16_fma(a, b, c) != want;
  }
  EXPECT_EQ(bad, 0);
}

TEST(Half, Bf16FmaSingleRounding) {
  // a = 140/128, b = 176/128: a*b = 24640/16384 = 192.5/128, the tie between 192/128 (even)
  // and 193/128. With c = +2^-100 the exact sum is above the tie (-> 0x3fc1); a float fma
  // would lose c and round the tie to even (0x3fc0).
  EXPECT_EQ(fp::bf16_fma(0x3f8c, 0x3fb0, 0x0d80), 0x3fc1);
  EXPECT_EQ(fp::bf16_fma(0x3f8c, 0x3fb0, 0x8d80), 0x3fc0);
  EXPECT_EQ(fp::bf16_fma(0x3f8c, 0x3fb0, 0x0000), 0x3fc0);
  EXPECT_EQ(fp::bf16_mul(0x3f8c, 0x3fb0), 0x3fc0);
  // random moderate-range triples against a long double reference (the exact value fits)
  Rng g(3);
  int bad = 0;
  for (int i = 0; i < 50000; ++i) {
    auto rb = [&](int lo, int hi) { return uint16_t(fb(g.flt(lo, hi)) >> 16); };
    const uint16_t a = rb(-8, 8), b = rb(-8, 8), c = rb(-20, 20);
    const long double x = (long double)fp::bf16_to_f32(a) * fp::bf16_to_f32(b) + fp::bf16_to_f32(c);
    if (x == 0) continue;
    bad += fp::bf16_fma(a, b, c) != ref_bf16(x, Round::rn);
    bad += fp::bf16_add(a, c) !=
           ref_bf16((long double)fp::bf16_to_f32(a) + fp::bf16_to_f32(c), Round::rn);
    bad += fp::bf16_mul(a, b) !=
           ref_bf16((long double)fp::bf16_to_f32(a) * fp::bf16_to_f32(b), Round::rn);
  }
  EXPECT_EQ(bad, 0);
}

TEST(Half, ModifiersAndSpecials) {
  // ties: 1 + 2^-11 (0x1000 is 2^-11) is the tie between 0x3c00 and 0x3c01 -> even
  EXPECT_EQ(fp::f16_add(0x3c00, 0x1000), 0x3c00);
  EXPECT_EQ(fp::f16_add(0x3c00, 0x1001), 0x3c01);  // 2^-11 * (1 + 2^-10): above the tie
  EXPECT_EQ(fp::f16_add(0x3c01, 0x1000), 0x3c02);  // tie, odd -> up
  // ftz: 0x0001 (2^-24) flushed on input; 2^-14 * 0.5 = 2^-15 (0x0200) flushed on output
  EXPECT_EQ(fp::f16_add(0x0001, 0x0000, true), 0x0000);
  EXPECT_EQ(fp::f16_add(0x0001, 0x0000, false), 0x0001);
  EXPECT_EQ(fp::f16_mul(0x0400, 0x3800, true), 0x0000);
  EXPECT_EQ(fp::f16_mul(0x0400, 0x3800, false), 0x0200);
  EXPECT_EQ(fp::f16_mul(0x8400, 0x3800, true), 0x8000);
  // sat: clamp to [0, 1], NaN -> +0
  EXPECT_EQ(fp::f16_add(0x3c00, 0x3c00, false, true), 0x3c00);
  EXPECT_EQ(fp::f16_sub(0x3800, 0x3c00, false, true), 0x0000);
  EXPECT_EQ(fp::f16_mul(0x7e00, 0x3c00, false, true), 0x0000);
  EXPECT_EQ(fp::f16_mul(0x3800, 0x3800, false, true), 0x3400);  // 0.25
  // relu: negatives -> +0, NaN -> canonical
  EXPECT_EQ(fp::f16_fma(0xbc00, 0x3c00, 0x0000, false, false, true), 0x0000);
  EXPECT_EQ(fp::f16_fma(0x7c00, 0x0000, 0x3c00, false, false, true), 0x7fff);  // Inf*0
  EXPECT_EQ(fp::f16_fma(0x3c00, 0x3c00, 0x3c00, false, false, true), 0x4000);
  EXPECT_EQ(fp::bf16_fma(0xbf80, 0x3f80, 0x0000, true), 0x0000);
  // NaN results are canonical, Inf arithmetic
  EXPECT_EQ(fp::f16_add(0x7c00, 0xfc00), 0x7fff);
  EXPECT_EQ(fp::f16_add(0x7d00, 0x3c00), 0x7fff);
  EXPECT_EQ(fp::f16_add(0x7c00, 0x3c00), 0x7c00);
  EXPECT_EQ(fp::bf16_add(0x7fc1, 0x3f80), 0x7fff);
  EXPECT_EQ(fp::f16_mul(0x7bff, 0x4000), 0x7c00);  // overflow -> Inf
  // -0 rules
  EXPECT_EQ(fp::f16_add(0x8000, 0x8000), 0x8000);
  EXPECT_EQ(fp::f16_sub(0x3c00, 0x3c00), 0x0000);
  EXPECT_EQ(fp::f16_fma(0x8000, 0x3c00, 0x8000), 0x8000);
  // neg/abs change only the sign (ftz flushes first)
  EXPECT_EQ(fp::half_neg<fp::FmtF16>(0x3c00, false), 0xbc00u);
  EXPECT_EQ(fp::half_neg<fp::FmtF16>(0x0001, true), 0x8000u);
  EXPECT_EQ(fp::half_abs<fp::FmtF16>(0x8001, true), 0x0000u);
  EXPECT_EQ(fp::half_abs<fp::FmtBF16>(0xffc1, false), 0x7fc1u);
  // ex2 / tanh on 16-bit formats
  EXPECT_EQ((fp::half_ex2<fp::FmtF16, false>(0x3c00)), 0x4000u);  // 2^1
  EXPECT_EQ((fp::half_ex2<fp::FmtF16, false>(0xfc00)), 0x0000u);  // 2^-Inf = +0
  EXPECT_EQ((fp::half_ex2<fp::FmtF16, false>(0x0001)), 0x3c00u);
  EXPECT_EQ((fp::half_ex2<fp::FmtF16, false>(0xcd80)), 0x0004u);  // 2^-22 = 4 * 2^-24 (subnormal)
  EXPECT_EQ((fp::half_ex2<fp::FmtF16, false>(0xcf00)), 0x0000u);  // 2^-28 < 2^-25: rounds to 0
  EXPECT_EQ((fp::half_ex2<fp::FmtBF16, true>(0x8001)), 0x3f80u);  // -subnormal -> 1.0
  EXPECT_EQ((fp::half_ex2<fp::FmtBF16, true>(0xc300)), 0x0000u);  // 2^-128: subnormal -> 0
  EXPECT_EQ((fp::half_ex2<fp::FmtBF16, true>(0x7fc0)), 0x7fffu);
  EXPECT_EQ(fp::half_tanh<fp::FmtF16>(0x7c00), 0x3c00u);
  EXPECT_EQ(fp::half_tanh<fp::FmtF16>(0x8000), 0x8000u);
  EXPECT_EQ(fp::half_tanh<fp::FmtBF16>(0xff80), 0xbf80u);
}

// =============================================================================================
// conversions
// =============================================================================================

TEST(Cvt, FloatToIntRoundingAndSaturation) {
  using R = Round;
  struct Row {
    float v;
    R r;
    int32_t want;
  };
  const Row rows[] = {
      {2.5f, R::rn, 2},
      {3.5f, R::rn, 4},
      {-2.5f, R::rn, -2},
      {-3.5f, R::rn, -4},
      {2.5000002f, R::rn, 3},
      {0.5f, R::rn, 0},
      {-0.5f, R::rn, 0},
      {1.4999999f, R::rn, 1},
      {2.9f, R::rz, 2},
      {-2.9f, R::rz, -2},
      {-2.1f, R::rm, -3},
      {2.9f, R::rm, 2},
      {2.1f, R::rp, 3},
      {-2.9f, R::rp, -2},
      {-0.1f, R::rp, 0},
      {0.1f, R::rm, 0},
      {3e9f, R::rz, INT32_MAX},
      {-3e9f, R::rz, INT32_MIN},
      {INFINITY, R::rn, INT32_MAX},
      {-INFINITY, R::rp, INT32_MIN},
      {2147483520.0f, R::rz, 2147483520},  // largest f32 < 2^31
      {-2147483648.0f, R::rz, INT32_MIN},
      {2147483648.0f, R::rz, INT32_MAX},
  };
  for (const Row& r : rows)
    EXPECT_EQ(fp::cvt_f32_to_s32(r.v, r.r), r.want) << r.v << " " << mode_name(r.r);
  EXPECT_EQ(fp::cvt_f32_to_u32(-1.5f, R::rz), 0u);
  EXPECT_EQ(fp::cvt_f32_to_u32(-0.7f, R::rm), 0u);
  EXPECT_EQ(fp::cvt_f32_to_u32(5e9f, R::rn), 0xffffffffu);
  EXPECT_EQ(fp::cvt_f32_to_u32(4294967040.0f, R::rz), 4294967040u);
  EXPECT_EQ(fp::cvt_f32_to_u64(1.8446744e19f, R::rz), 0xffffffffffffffffull);  // 2^64
  EXPECT_EQ(fp::cvt_f32_to_s64(-9.2233720e18f, R::rz), INT64_MIN);             // -2^63
  EXPECT_EQ(fp::cvt_f64_to_u64(18446744073709549568.0, R::rz),
            18446744073709549568ull);                                                  // 2^64-2048
  EXPECT_EQ(fp::cvt_f64_to_s64(9223372036854774784.0, R::rz), 9223372036854774784ll);  // 2^63-1024
  EXPECT_EQ(fp::cvt_f64_to_s64(9223372036854775808.0, R::rz), INT64_MAX);
  EXPECT_EQ(fp::cvt_f64_to_s64(-9223372036854775808.0, R::rz), INT64_MIN);
  EXPECT_EQ(fp::cvt_f64_to_s32(-2147483648.9, R::rz), INT32_MIN);
  EXPECT_EQ(fp::cvt_f64_to_s32(-2147483648.9, R::rm), INT32_MIN);
  EXPECT_EQ(fp::cvt_f64_to_s32(2147483647.5, R::rn), INT32_MAX);
  EXPECT_EQ(fp::cvt_f64_to_u32(4294967295.4, R::rn), 0xffffffffu);
  EXPECT_EQ(fp::cvt_f64_to_u32(4294967295.4, R::rp), 0xffffffffu);
  EXPECT_EQ(fp::cvt_f64_to_s32(4503599627370497.0, R::rn), INT32_MAX);
  // .ftz on f32 sources: a subnormal input is flushed before the integer rounding
  EXPECT_EQ(fp::cvt_f32_to_s32(std::ldexp(1.0f, -140), R::rp, false), 1);
  EXPECT_EQ(fp::cvt_f32_to_s32(std::ldexp(1.0f, -140), R::rp, true), 0);
  EXPECT_EQ(fp::cvt_f32_to_s32(-std::ldexp(1.0f, -140), R::rm, false), -1);
  EXPECT_EQ(fp::cvt_f32_to_s32(-std::ldexp(1.0f, -140), R::rm, true), 0);
}

TEST(Cvt, FloatToIntNaN) {
  // NaN -> 0 unless the source is f64 or the destination is 64-bit: then 1 << (bits - 1)
  EXPECT_EQ(fp::cvt_f32_to_s32(NAN, Round::rz), 0);
  EXPECT_EQ(fp::cvt_f32_to_u32(NAN, Round::rn), 0u);
  EXPECT_EQ(fp::cvt_f32_to_s64(NAN, Round::rz), INT64_MIN);
  EXPECT_EQ(fp::cvt_f32_to_u64(NAN, Round::rz), 0x8000000000000000ull);
  EXPECT_EQ(fp::cvt_f64_to_s32(NAN, Round::rz), INT32_MIN);
  EXPECT_EQ(fp::cvt_f64_to_u32(NAN, Round::rz), 0x80000000u);
  EXPECT_EQ(fp::cvt_f64_to_u64(NAN, Round::rz), 0x8000000000000000ull);
  EXPECT_EQ(fp::float_to_int<uint8_t>(NAN, Round::rz, true), 0x80);
  EXPECT_EQ(fp::float_to_int<int16_t>(NAN, Round::rz, true), INT16_MIN);
  EXPECT_EQ(fp::float_to_int<int16_t>(NAN, Round::rz, false), 0);
  EXPECT_EQ(fp::float_to_int<uint16_t>(-NAN, Round::rz, false), 0);
}

TEST(Cvt, IntToFloatRounding) {
  using R = Round;
  const uint64_t umax = ~uint64_t(0);
  // 2^64 - 1 lies between 2^64 - 2^40 (0x5f7fffff) and 2^64 (0x5f800000), nearer 2^64.
  EXPECT_EQ(fb(fp::cvt_u64_to_f32(umax, R::rn)), 0x5f800000u);
  EXPECT_EQ(fb(fp::cvt_u64_to_f32(umax, R::rz)), 0x5f7fffffu);
  EXPECT_EQ(fb(fp::cvt_u64_to_f32(umax, R::rm)), 0x5f7fffffu);
  EXPECT_EQ(fb(fp::cvt_u64_to_f32(umax, R::rp)), 0x5f800000u);
  // 2^24 + 1: tie between 2^24 (even) and 2^24 + 2
  EXPECT_EQ(fp::cvt_u64_to_f32(16777217, R::rn), 16777216.0f);
  EXPECT_EQ(fp::cvt_u64_to_f32(16777217, R::rz), 16777216.0f);
  EXPECT_EQ(fp::cvt_u64_to_f32(16777217, R::rp), 16777218.0f);
  EXPECT_EQ(fp::cvt_u64_to_f32(16777219, R::rn), 16777220.0f);  // tie, 2^24+2 is odd -> up
  EXPECT_EQ(fp::cvt_s64_to_f32(-16777217, R::rn), -16777216.0f);
  EXPECT_EQ(fp::cvt_s64_to_f32(-16777217, R::rm), -16777218.0f);
  EXPECT_EQ(fp::cvt_s64_to_f32(-16777217, R::rp), -16777216.0f);
  EXPECT_EQ(fp::cvt_s64_to_f32(-16777217, R::rz), -16777216.0f);
  EXPECT_EQ(fb(fp::cvt_s64_to_f32(INT64_MIN, R::rz)), 0xdf000000u);  // -2^63 exact
  EXPECT_EQ(fp::cvt_s32_to_f32(INT32_MAX, R::rz), 2147483520.0f);
  EXPECT_EQ(fp::cvt_s32_to_f32(INT32_MAX, R::rn), 2147483648.0f);
  EXPECT_EQ(fp::cvt_s64_to_f64(9007199254740993ll, R::rn), 9007199254740992.0);  // 2^53+1: tie
  EXPECT_EQ(fp::cvt_s64_to_f64(9007199254740993ll, R::rp), 9007199254740994.0);
  EXPECT_EQ(fp::cvt_u64_to_f64(umax, R::rz), 18446744073709549568.0);
  EXPECT_EQ(fp::cvt_u64_to_f64(umax, R::rn), 18446744073709551616.0);
  EXPECT_EQ(fb(fp::cvt_u64_to_f32(0, R::rm)), 0u);
  // f16 / bf16 destinations
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtF16>(65504, R::rn), 0x7bffu);
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtF16>(65520, R::rn), 0x7c00u);
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtF16>(65520, R::rz), 0x7bffu);
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtF16>(2049, R::rn), 0x6800u);  // tie -> 2048
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtF16>(2049, R::rp), 0x6801u);
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtF16>(-70000, R::rm), 0xfc00u);
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtF16>(-70000, R::rp), 0xfbffu);
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtBF16>(257, R::rn), 0x4380u);  // tie -> 256
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtBF16>(257, R::rp), 0x4381u);
  EXPECT_EQ(fp::s64_to_float_bits<fp::FmtBF16>(-1, R::rn), 0xbf80u);
}

TEST(Cvt, U64ToF32RandomAgainstLongDouble) {
  Rng g(77);
  for (Round r : kModes) {
    int bad = 0;
    for (int i = 0; i < 20000; ++i) {
      const uint64_t v = g.next() >> (g.u32() % 40);
      bad += fb(fp::cvt_u64_to_f32(v, r)) != fb(ref_f32((long double)v, r));  // exact in x87
      const int64_t s = int64_t(g.next()) >> (g.u32() % 40);
      bad += fb(fp::cvt_s64_to_f32(s, r)) != fb(ref_f32((long double)s, r));
    }
    EXPECT_EQ(bad, 0) << mode_name(r);
  }
}

TEST(Cvt, F64ToF32RandomAndEdges) {
  using R = Round;
  Rng g(8);
  for (Round r : kModes) {
    int bad = 0;
    for (int i = 0; i < 20000; ++i) {
      const double x = g.dbl(-160, 130);
      bad += fb(fp::f64_to_f32(x, r)) != fb(ref_f32(x, r));
    }
    EXPECT_EQ(bad, 0) << mode_name(r);
  }
  EXPECT_EQ(fp::f64_to_f32(1e300, R::rn), INFINITY);
  EXPECT_EQ(fp::f64_to_f32(1e300, R::rz), FLT_MAX);
  EXPECT_EQ(fp::f64_to_f32(1e300, R::rm), FLT_MAX);
  EXPECT_EQ(fp::f64_to_f32(1e300, R::rp), INFINITY);
  EXPECT_EQ(fp::f64_to_f32(-1e300, R::rm), -INFINITY);
  EXPECT_EQ(fp::f64_to_f32(-1e300, R::rp), -FLT_MAX);
  // 1.5 * 2^-149 is the tie between 2^-149 (odd) and 2^-148 (even)
  EXPECT_EQ(fb(fp::f64_to_f32(1.5 * std::ldexp(1.0, -149), R::rn)), 0x00000002u);
  EXPECT_EQ(fb(fp::f64_to_f32(1.5 * std::ldexp(1.0, -149), R::rz)), 0x00000001u);
  EXPECT_EQ(fb(fp::f64_to_f32(1e-50, R::rn)), 0u);
  EXPECT_EQ(fb(fp::f64_to_f32(1e-50, R::rp)), 1u);
  EXPECT_EQ(fb(fp::f64_to_f32(-1e-50, R::rm)), 0x80000001u);
  EXPECT_EQ(fb(fp::f64_to_f32(bd(0x7ff0000000000001ull))), 0x7fffffffu);
}

// ---- handler-level tests ---------------------------------------------------------------------

using ptx::IF_FTZ;
using ptx::IF_SAT;
using ptx::Op;
using ptx::Type;
using PR = ptx::Round;

TEST(CvtHandlers, IntToInt) {
  // cvt.s8.s32: low 8 bits, sign-extended into the register
  EXPECT_EQ(run1(inst(Op::cvt, Type::s8, Type::s32, PR::none, 0, 2), {0x1ff}), ~uint64_t(0));
  EXPECT_EQ(run1(inst(Op::cvt, Type::s8, Type::s32, PR::none, IF_SAT, 2), {300}), 127u);
  EXPECT_EQ(
      run1(inst(Op::cvt, Type::s8, Type::s32, PR::none, IF_SAT, 2), {uint64_t(-300) & 0xffffffff}),
      uint64_t(int64_t(-128)));
  EXPECT_EQ(run1(inst(Op::cvt, Type::s32, Type::u32, PR::none, IF_SAT, 2), {0xffffffff}),
            0x7fffffffu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::u32, Type::s32, PR::none, IF_SAT, 2), {0xfffffffb}), 0u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::u32, Type::s32, PR::none, 0, 2), {0xfffffffb}), 0xfffffffbu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::u64, Type::s8, PR::none, 0, 2), {0xff}), ~uint64_t(0));
  EXPECT_EQ(run1(inst(Op::cvt, Type::s64, Type::u8, PR::none, 0, 2), {0xabcd12ff}), 255u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::u8, Type::s16, PR::none, 0, 2), {0x1234}), 0x34u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::u16, Type::u64, PR::none, IF_SAT, 2), {70000}), 65535u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::s32, Type::s64, PR::none, IF_SAT, 2), {0x8000000000000000ull}),
            uint64_t(int64_t(INT32_MIN)));
  EXPECT_EQ(run1(inst(Op::cvt, Type::u32, Type::u16, PR::none, 0, 2), {0xffff12345678ull}),
            0x5678u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::s16, Type::u8, PR::none, 0, 2), {0x80}), 0x80u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::u8, Type::u64, PR::none, IF_SAT, 2), {0x100}), 0xffu);
}

TEST(CvtHandlers, FloatIntAndFloatFloat) {
  // cvt.rzi.s32.f32 -2.9 -> -2 (sign-extended)
  EXPECT_EQ(run1(inst(Op::cvt, Type::s32, Type::f32, PR::rzi, 0, 2), {fb(-2.9f)}),
            uint64_t(int64_t(-2)));
  EXPECT_EQ(run1(inst(Op::cvt, Type::u8, Type::f32, PR::rni, 0, 2), {fb(300.0f)}), 255u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::s8, Type::f64, PR::rzi, 0, 2), {db(NAN)}),
            uint64_t(int64_t(-128)));
  EXPECT_EQ(run1(inst(Op::cvt, Type::s32, Type::f16, PR::rni, 0, 2), {0x3e00}), 2u);  // 1.5 -> 2
  EXPECT_EQ(run1(inst(Op::cvt, Type::s32, Type::f16, PR::rzi, 0, 2), {0x7c00}), 0x7fffffffu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::s32, Type::f16, PR::rzi, 0, 2), {0x7e00}), 0u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::s8, Type::bf16, PR::rmi, 0, 2), {0xc020}),
            uint64_t(int64_t(-3)));
  EXPECT_EQ(run1(inst(Op::cvt, Type::u64, Type::bf16, PR::rpi, 0, 2), {0x3f81}), 2u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::s32, Type::f32, PR::rpi, IF_FTZ, 2), {0x00000005}), 0u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::s32, Type::f32, PR::rpi, 0, 2), {0x00000005}), 1u);
  // int -> float
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::s32, PR::rn, 0, 2), {uint64_t(-3) & 0xffffffff}),
            fb(-3.0f));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::u64, PR::rz, 0, 2), {~uint64_t(0)}), 0x5f7fffffu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f64, Type::s64, PR::rp, 0, 2), {9007199254740993ull}),
            db(9007199254740994.0));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::u16, PR::rn, 0, 2), {2049}), 0x6800u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::bf16, Type::s32, PR::rp, 0, 2), {257}), 0x4381u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::s32, PR::rn, IF_SAT, 2), {5}), fb(1.0f));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::s8, PR::rn, IF_SAT, 2), {0xfd}), 0u);
  // float -> float
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f64, PR::rz, 0, 2), {db(1e300)}), fb(FLT_MAX));
  EXPECT_EQ(
      run1(inst(Op::cvt, Type::f32, Type::f64, PR::rn, IF_FTZ, 2), {db(std::ldexp(1.0, -130))}),
      0u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f64, PR::rn, 0, 2), {db(std::ldexp(1.0, -130))}),
            fb(std::ldexp(1.0f, -130)));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f64, Type::f32, PR::none, 0, 2), {fb(0.1f)}),
            db(double(0.1f)));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f64, Type::f32, PR::none, IF_FTZ, 2), {0x80000001u}),
            db(-0.0));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f64, Type::f32, PR::none, 0, 2), {0x7fc00001u}),
            0x7ff8000020000000ull);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::none, IF_FTZ, 2), {0x00000010u}), 0u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::none, IF_SAT, 2), {fb(1.5f)}), fb(1.0f));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::none, 0, 2), {0xff800001u}), 0x7fffffffu);
  // integer rounding in float formats
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::rni, 0, 2), {fb(2.5f)}), fb(2.0f));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::rni, 0, 2), {fb(-0.5f)}), fb(-0.0f));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::rpi, 0, 2), {fb(-0.5f)}), fb(-0.0f));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::rmi, 0, 2), {fb(0.5f)}), fb(0.0f));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::rni, 0, 2), {fb(8388607.5f)}),
            fb(8388608.0f));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::rpi, 0, 2), {0x00000001u}), fb(1.0f));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::rpi, IF_FTZ, 2), {0x00000001u}), 0u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f32, PR::rzi, 0, 2), {fb(-INFINITY)}),
            fb(-INFINITY));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f64, Type::f64, PR::rni, 0, 2), {db(4503599627370495.5)}),
            db(4503599627370496.0));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f64, Type::f64, PR::rmi, 0, 2), {0x7ff0000000000005ull}),
            0x7ff8000000000005ull);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::f16, PR::rni, 0, 2), {0x3e00}),
            0x4000u);  // 1.5 -> 2
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::f16, PR::rpi, 0, 2), {0x3d00}),
            0x4000u);  // 1.25 -> 2
  EXPECT_EQ(run1(inst(Op::cvt, Type::bf16, Type::bf16, PR::rzi, 0, 2), {0xc020}), 0xc000u);
  // 16-bit destinations
  auto relu = ptx::IF_RELU;
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::f32, PR::rn, relu, 2), {fb(-1.0f)}), 0u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::f32, PR::rn, relu, 2), {fb(NAN)}), 0x7fffu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::f32, PR::rz, 0, 2), {fb(1e6f)}), 0x7bffu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::f32, PR::rn, 0, 2), {fb(1e6f)}), 0x7c00u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::f32, PR::rn, IF_SAT, 2), {fb(1.5f)}), 0x3c00u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::bf16, Type::f32, PR::rn, IF_SAT, 2), {fb(FLT_MAX)}),
            0x7f7fu);  // satfinite
  EXPECT_EQ(run1(inst(Op::cvt, Type::bf16, Type::f32, PR::rn, IF_SAT, 2), {fb(-INFINITY)}),
            0xff7fu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f16, PR::none, 0, 2), {0x0001}),
            fb(std::ldexp(1.0f, -24)));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::f16, PR::none, 0, 2), {0xfe00}), 0x7fffffffu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f64, Type::f16, PR::none, 0, 2), {0xc000}), db(-2.0));
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::bf16, PR::none, IF_FTZ, 2), {0x0001}), 0u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f32, Type::bf16, PR::none, 0, 2), {0x0001}), 0x00010000u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::bf16, PR::rn, 0, 2), {0x3f81}),
            0x3c08u);  // 1 + 2^-7
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::bf16, PR::rz, 0, 2), {0x4780}), 0x7bffu);  // 65536
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::bf16, PR::rn, 0, 2), {0x4780}), 0x7c00u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::bf16, Type::f16, PR::rn, 0, 2), {0x3c01}),
            0x3f80u);  // 1 + 2^-10
  EXPECT_EQ(run1(inst(Op::cvt, Type::bf16, Type::f16, PR::rp, 0, 2), {0x3c01}), 0x3f81u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16, Type::f64, PR::rn, 0, 2),
                 {db(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))}),
            0x3c01u);
}

TEST(CvtHandlers, SatVersusSatfiniteForF16) {
  // .sat and .satfinite share IF_SAT; f16 tells them apart from the source text.
  auto in = inst(Op::cvt, Type::f16, Type::f32, PR::rn, IF_SAT, 2);
  in.text = "cvt.rn.satfinite.f16.f32 %rs1, %f1;";
  EXPECT_EQ(run1(in, {fb(1e6f)}), 0x7bffu);
  EXPECT_EQ(run1(in, {fb(0.25f)}), 0x3400u);
  EXPECT_EQ(run1(in, {fb(NAN)}), 0x7fffu);
  in.text = "cvt.rn.sat.f16.f32 %rs1, %f1;";
  EXPECT_EQ(run1(in, {fb(1e6f)}), 0x3c00u);
  EXPECT_EQ(run1(in, {fb(NAN)}), 0x0000u);
}

TEST(CvtHandlers, PackedAndNarrowFormats) {
  // cvt.rn.f16x2.f32 d, a, b: a goes to the upper half
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16x2, Type::f32, PR::rn, 0, 3), {fb(1.0f), fb(2.0f)}),
            0x3c004000u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::bf16x2, Type::f32, PR::rn, 0, 3), {fb(1.0f), fb(-1.0f)}),
            0x3f80bf80u);
  // .rz.relu: -1 -> +0 (upper half); 0x3f80ffff truncates to 0x3f80 (lower half)
  EXPECT_EQ(run1(inst(Op::cvt, Type::bf16x2, Type::f32, PR::rz, ptx::IF_RELU, 3),
                 {fb(-1.0f), 0x3f80ffffu}),
            0x00003f80u);
  // tf32
  EXPECT_EQ(run1(inst(Op::cvt, Type::tf32, Type::f32, PR::rna, 0, 2), {0x3f801000u}), 0x3f802000u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::tf32, Type::f32, PR::rn, 0, 2), {0x3f801000u}), 0x3f800000u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::tf32, Type::f32, PR::rna, IF_SAT, 2), {fb(FLT_MAX)}),
            0x7f7fe000u);
  // fp8: d[15:8] = cvt(a), d[7:0] = cvt(b)
  EXPECT_EQ(run1(inst(Op::cvt, Type::e4m3x2, Type::f32, PR::rn, IF_SAT, 3), {fb(1.0f), fb(448.0f)}),
            0x387eu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::e4m3x2, Type::f32, PR::rn, IF_SAT, 3), {fb(1e9f), fb(NAN)}),
            0x7e7fu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::e5m2x2, Type::f32, PR::rn, IF_SAT | ptx::IF_RELU, 3),
                 {fb(-3.0f), fb(1.0f)}),
            0x003cu);
  // from f16x2: hi half -> d[15:8]; 448 is 0x5f00 in f16 (1.75 * 2^8)
  EXPECT_EQ(run1(inst(Op::cvt, Type::e4m3x2, Type::f16x2, PR::rn, IF_SAT, 2), {0x3c005f00u}),
            0x387eu);
  EXPECT_EQ(run1(inst(Op::cvt, Type::e5m2x2, Type::f16x2, PR::rn, IF_SAT, 2), {0x3c007c00u}),
            0x3c7bu);
  // to f16x2: a[15:8] -> d[31:16]
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16x2, Type::e4m3x2, PR::rn, 0, 2), {0x387e}), 0x3c005f00u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16x2, Type::e5m2x2, PR::rn, 0, 2), {0x3c7c}), 0x3c007c00u);
  EXPECT_EQ(run1(inst(Op::cvt, Type::f16x2, Type::e4m3x2, PR::rn, ptx::IF_RELU, 2), {0xb8ff}),
            0x00007fffu);
}

TEST(FloatHandlers, ArithmeticForms) {
  // add.rz.f32 1 + 2^-30 -> 1; add.rp.f32 -> next float; the mode is restored afterwards
  EXPECT_EQ(
      run1(inst(Op::add, Type::f32, Type::none, PR::rz), {fb(1.0f), fb(std::ldexp(1.0f, -30))}),
      fb(1.0f));
  EXPECT_EQ(
      run1(inst(Op::add, Type::f32, Type::none, PR::rp), {fb(1.0f), fb(std::ldexp(1.0f, -30))}),
      0x3f800001u);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
  EXPECT_EQ(run1(inst(Op::sub, Type::f32, Type::none, PR::none, IF_SAT), {fb(0.25f), fb(0.5f)}),
            0u);
  EXPECT_EQ(run1(inst(Op::mul, Type::f32, Type::none, PR::none, IF_FTZ), {fb(FLT_MIN), fb(0.5f)}),
            0u);
  EXPECT_EQ(run1(inst(Op::mul, Type::f64, Type::none, PR::rm), {db(-DBL_MAX), db(2.0)}),
            db(-INFINITY));
  // fma.rn.f32 and mad.f32 (no modifier: .rn, fused)
  const float a = 1.0f + std::ldexp(1.0f, -12);
  EXPECT_EQ(run1(inst(Op::fma, Type::f32, Type::none, PR::rn, 0, 4), {fb(a), fb(a), fb(-1.0f)}),
            fb(std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24)));
  EXPECT_EQ(run1(inst(Op::mad, Type::f32, Type::none, PR::none, 0, 4), {fb(a), fb(a), fb(-1.0f)}),
            fb(std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24)));
  EXPECT_EQ(run1(inst(Op::mad, Type::f64, Type::none, PR::rp, 0, 4),
                 {db(1.0), db(1.0), db(std::ldexp(1.0, -60))}),
            db(1.0 + std::ldexp(1.0, -52)));
  // div forms
  EXPECT_EQ(run1(inst(Op::div, Type::f32, Type::none, PR::rz), {fb(1.0f), fb(3.0f)}), 0x3eaaaaaau);
  EXPECT_EQ(
      run1(inst(Op::div, Type::f32, Type::none, PR::none, ptx::IF_FULL), {fb(6.0f), fb(3.0f)}),
      fb(2.0f));
  EXPECT_EQ(run1(inst(Op::div, Type::f32, Type::none, PR::none, ptx::IF_APPROX),
                 {fb(1.0f), fb(std::ldexp(1.0f, 127))}),
            0u);
  EXPECT_EQ(run1(inst(Op::div, Type::f64, Type::none, PR::rn), {db(1.0), db(3.0)}), db(1.0 / 3.0));
  // unary forms
  EXPECT_EQ(run1(inst(Op::rcp, Type::f32, Type::none, PR::none, ptx::IF_APPROX | IF_FTZ, 2),
                 {0x80000001u}),
            fb(-INFINITY));
  EXPECT_EQ(
      run1(inst(Op::rcp, Type::f64, Type::none, PR::none, ptx::IF_APPROX | IF_FTZ, 2), {db(3.0)}),
      0x3fd5555500000000ull);
  EXPECT_EQ(run1(inst(Op::sqrt, Type::f32, Type::none, PR::rp, 0, 2), {fb(2.0f)}), 0x3fb504f4u);
  EXPECT_EQ(run1(inst(Op::sqrt, Type::f64, Type::none, PR::rn, 0, 2), {db(-1.0)}), fp::kNaN64);
  EXPECT_EQ(run1(inst(Op::rsqrt, Type::f32, Type::none, PR::none, ptx::IF_APPROX, 2), {fb(-0.0f)}),
            fb(-INFINITY));
  EXPECT_EQ(run1(inst(Op::ex2, Type::f32, Type::none, PR::none, ptx::IF_APPROX | IF_FTZ, 2),
                 {fb(-130.0f)}),
            0u);
  EXPECT_EQ(run1(inst(Op::ex2, Type::f32, Type::none, PR::none, ptx::IF_APPROX, 2), {fb(-130.0f)}),
            fb(std::ldexp(1.0f, -130)));
  EXPECT_EQ(run1(inst(Op::lg2, Type::f32, Type::none, PR::none, ptx::IF_APPROX | IF_FTZ, 2),
                 {0x00000001u}),
            fb(-INFINITY));
  EXPECT_EQ(run1(inst(Op::sin, Type::f32, Type::none, PR::none, ptx::IF_APPROX, 2), {fb(INFINITY)}),
            0x7fffffffu);
  EXPECT_EQ(run1(inst(Op::cos, Type::f32, Type::none, PR::none, ptx::IF_APPROX, 2), {fb(0.0f)}),
            fb(1.0f));
  EXPECT_EQ(
      run1(inst(Op::tanh, Type::f32, Type::none, PR::none, ptx::IF_APPROX, 2), {fb(-INFINITY)}),
      fb(-1.0f));
  // abs/neg: only the sign bit (NaN payload kept), .ftz flushes
  EXPECT_EQ(run1(inst(Op::abs, Type::f32, Type::none, PR::none, 0, 2), {0xffc00001u}), 0x7fc00001u);
  EXPECT_EQ(run1(inst(Op::abs, Type::f32, Type::none, PR::none, IF_FTZ, 2), {0x80000001u}), 0u);
  EXPECT_EQ(run1(inst(Op::neg, Type::f32, Type::none, PR::none, 0, 2), {0x00000001u}), 0x80000001u);
  EXPECT_EQ(run1(inst(Op::neg, Type::f32, Type::none, PR::none, IF_FTZ, 2), {0x00000001u}),
            0x80000000u);
  EXPECT_EQ(run1(inst(Op::neg, Type::f64, Type::none, PR::none, 0, 2), {db(2.0)}), db(-2.0));
  EXPECT_EQ(run1(inst(Op::abs, Type::f64, Type::none, PR::none, 0, 2), {0xfff8000000000001ull}),
            0x7ff8000000000001ull);
  // copysign.f32 d, a, b: sign of a, magnitude of b
  EXPECT_EQ(run1(inst(Op::copysign, Type::f32), {fb(-1.0f), fb(2.0f)}), fb(-2.0f));
  EXPECT_EQ(run1(inst(Op::copysign, Type::f64), {db(3.0), db(-0.5)}), db(0.5));
}

TEST(FloatHandlers, HalfForms) {
  // f16x2: element 0 is the low half
  EXPECT_EQ(run1(inst(Op::add, Type::f16x2), {0x3c004000u, 0x3c003c00u}),
            0x40004200u);  // {2+1, 1+1}
  EXPECT_EQ(run1(inst(Op::mul, Type::bf16x2), {0x3f80c000u, 0x40004000u}), 0x4000c080u);
  EXPECT_EQ(
      run1(inst(Op::fma, Type::f16, Type::none, PR::rn, ptx::IF_RELU, 4), {0xbc00, 0x3c00, 0x0000}),
      0u);
  EXPECT_EQ(run1(inst(Op::fma, Type::bf16x2, Type::none, PR::rn, 0, 4),
                 {0x3f8c3f8cu, 0x3fb03fb0u, 0x0d808d80u}),
            0x3fc13fc0u);
  EXPECT_EQ(
      run1(inst(Op::fma, Type::f16, Type::none, PR::rn, ptx::IF_OOB, 4), {0x7fff, 0x3c00, 0x3c00}),
      0u);
  EXPECT_EQ(run1(inst(Op::neg, Type::bf16x2, Type::none, PR::none, 0, 2), {0x3f80bf80u}),
            0xbf803f80u);
  EXPECT_EQ(run1(inst(Op::abs, Type::f16x2, Type::none, PR::none, IF_FTZ, 2), {0x8001bc00u}),
            0x00003c00u);
  EXPECT_EQ(run1(inst(Op::min, Type::f16x2), {0x3c00bc00u, 0x7e000000u}), 0x3c00bc00u);
  EXPECT_EQ(run1(inst(Op::max, Type::bf16, Type::none, PR::none, ptx::IF_NAN), {0x3f80, 0x7fc0}),
            0x7fffu);
  EXPECT_EQ(run1(inst(Op::min, Type::f16, Type::none, PR::none, ptx::IF_XORSIGN | ptx::IF_ABS),
                 {0xc200, 0x4000}),
            0xc000u);
  EXPECT_EQ(
      run1(inst(Op::ex2, Type::f16x2, Type::none, PR::none, ptx::IF_APPROX, 2), {0x3c000000u}),
      0x40003c00u);
  EXPECT_EQ(run1(inst(Op::tanh, Type::bf16, Type::none, PR::none, ptx::IF_APPROX, 2), {0x0000}),
            0u);
  EXPECT_EQ(run1(inst(Op::sub, Type::f16, Type::none, PR::none, IF_SAT), {0x3800, 0x3c00}), 0u);
}

TEST(FloatHandlers, MinMaxForms) {
  EXPECT_EQ(run1(inst(Op::min, Type::f32), {fb(0.0f), fb(-0.0f)}), 0x80000000u);
  EXPECT_EQ(
      run1(inst(Op::max, Type::f32, Type::none, PR::none, ptx::IF_NAN), {fb(1.0f), 0x7f800001u}),
      0x7fffffffu);
  EXPECT_EQ(run1(inst(Op::max, Type::f32, Type::none, PR::none, ptx::IF_XORSIGN | ptx::IF_ABS),
                 {fb(-3.0f), fb(2.0f)}),
            fb(-3.0f));
  EXPECT_EQ(run1(inst(Op::min, Type::f32, Type::none, PR::none, ptx::IF_ABS, 4),
                 {fb(3.0f), fb(-5.0f), fb(-1.0f)}),
            fb(1.0f));
  EXPECT_EQ(
      run1(inst(Op::max, Type::f32, Type::none, PR::none, 0, 4), {fb(3.0f), 0x7fc00000u, fb(4.0f)}),
      fb(4.0f));
  EXPECT_EQ(run1(inst(Op::max, Type::f64), {db(-1.0), db(NAN)}), db(-1.0));
  EXPECT_EQ(run1(inst(Op::min, Type::f32, Type::none, PR::none, IF_FTZ), {0x80000001u, fb(0.0f)}),
            0x80000000u);
}

TEST(FloatHandlers, TestpWritesPredicate) {
  Harness hs;
  // lane l holds: l%4 == 0 -> 1.0, 1 -> subnormal, 2 -> NaN, 3 -> -Inf
  const uint32_t vals[4] = {0x3f800000u, 0x00000001u, 0x7fc00000u, 0xff800000u};
  for (unsigned l = 0; l < 32; ++l) hs.reg(1, l) = vals[l % 4];
  DInst d;
  d.nops = 2;
  d.op[0].kind = DOp::k_pred;
  d.op[0].slot = 0;
  d.op[1].kind = DOp::k_reg;
  d.op[1].slot = 1;
  auto run_mode = [&](uint8_t sub, LaneMask exec, uint32_t init) {
    auto in = inst(Op::testp, Type::f32, Type::none, PR::none, 0, 2);
    in.sub = sub;
    const Handler h = select_float(in);
    EXPECT_NE(h, nullptr);
    hs.w.P[0] = init;
    if (h) h(hs.cx, hs.w, d, exec);
    return hs.w.P[0];
  };
  EXPECT_EQ(run_mode(1, kFullMask, 0), 0x33333333u);  // finite: 1.0, subnormal
  EXPECT_EQ(run_mode(2, kFullMask, 0), 0x88888888u);  // infinite
  EXPECT_EQ(run_mode(3, kFullMask, 0), 0xbbbbbbbbu);  // number
  EXPECT_EQ(run_mode(4, kFullMask, 0), 0x44444444u);  // notanumber
  EXPECT_EQ(run_mode(5, kFullMask, 0), 0x11111111u);  // normal
  EXPECT_EQ(run_mode(6, kFullMask, 0), 0x22222222u);  // subnormal
  // lanes outside exec keep their predicate bits
  EXPECT_EQ(run_mode(6, 0x0000ffffu, 0xffff0000u), 0xffff2222u);
  EXPECT_EQ(run_mode(5, 0x0000000fu, 0xfffffffeu), 0xfffffff1u);
}

TEST(FloatHandlers, ExecMaskImmediatesAndAliasing) {
  Harness hs;
  for (unsigned l = 0; l < 32; ++l) {
    hs.reg(1, l) = fb(float(l));
    hs.reg(0, l) = 0xabcdu;
  }
  // add.rn.f32 %r0, %r1, 0f3F800000 on odd lanes only (immediate operand is broadcast)
  auto in = inst(Op::add, Type::f32, Type::none, PR::rn);
  DInst d = dinst(3);
  d.op[2].kind = DOp::k_imm;
  d.op[2].imm = fb(1.0f);
  const Handler h = select_float(in);
  ASSERT_NE(h, nullptr);
  h(hs.cx, hs.w, d, 0xaaaaaaaau);
  for (unsigned l = 0; l < 32; ++l) {
    if (l & 1)
      EXPECT_EQ(hs.reg(0, l), fb(float(l) + 1.0f)) << l;
    else
      EXPECT_EQ(hs.reg(0, l), 0xabcdu) << l;
  }
  // destination aliasing a source: mul.rn.f32 %r1, %r1, %r1
  DInst d2 = dinst(3);
  d2.op[0].slot = 1;
  d2.op[2].slot = 1;
  const Handler hm = select_float(inst(Op::mul, Type::f32, Type::none, PR::rn));
  ASSERT_NE(hm, nullptr);
  hm(hs.cx, hs.w, d2, kFullMask);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(hs.reg(1, l), fb(float(l) * float(l))) << l;
  // a directed-mode handler with a partial mask
  const Handler hz = select_float(inst(Op::div, Type::f64, Type::none, PR::rz));
  ASSERT_NE(hz, nullptr);
  hs.set(2, db(1.0));
  hs.set(3, db(3.0));
  DInst d3 = dinst(3);
  d3.op[0].slot = 4;
  d3.op[1].slot = 2;
  d3.op[2].slot = 3;
  hz(hs.cx, hs.w, d3, 0x1u);
  EXPECT_EQ(hs.reg(4, 0), 0x3fd5555555555555ull);  // 1/3 truncated (rn would also give ...55)
  EXPECT_EQ(hs.reg(4, 1), 0u);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(FloatHandlers, AllF32ModifierCombinationsMatchPureFunctions) {
  // Every (op, rounding, .ftz, .sat) instantiation of the f32 handlers against fp::f32_*.
  Rng g(31);
  const PR prs[] = {PR::rn, PR::rz, PR::rm, PR::rp};
  int bad = 0, runs = 0;
  for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::fma}) {
    for (unsigned ri = 0; ri < 4; ++ri) {
      for (uint32_t fl : {0u, uint32_t(IF_FTZ), uint32_t(IF_SAT), uint32_t(IF_FTZ | IF_SAT)}) {
        if (op == Op::div && (fl & IF_SAT)) continue;
        const unsigned nsrc = op == Op::fma ? 3 : 2;
        const Handler h = select_float(inst(op, Type::f32, Type::none, prs[ri], fl, nsrc + 1));
        if (!h) {
          ++bad;
          continue;
        }
        Harness hs;
        for (unsigned l = 0; l < 32; ++l)
          for (unsigned s = 1; s <= nsrc; ++s)
            hs.reg(s, l) =
                (l % 5 == 0) ? (g.u32() & 0x807fffffu) /* subnormal */ : fb(g.flt(-126, 5));
        DInst d = dinst(nsrc + 1);
        h(hs.cx, hs.w, d, kFullMask);
        ++runs;
        const bool z = fl & IF_FTZ, sa = fl & IF_SAT;
        for (unsigned l = 0; l < 32; ++l) {
          const float a = bf(uint32_t(hs.reg(1, l))), b = bf(uint32_t(hs.reg(2, l))),
                      c = bf(uint32_t(hs.reg(3, l)));
          float want;
          switch (op) {
            case Op::add:
              want = fp::f32_add(a, b, kModes[ri], z, sa);
              break;
            case Op::sub:
              want = fp::f32_sub(a, b, kModes[ri], z, sa);
              break;
            case Op::mul:
              want = fp::f32_mul(a, b, kModes[ri], z, sa);
              break;
            case Op::div:
              want = fp::f32_div(a, b, kModes[ri], z);
              break;
            default:
              want = fp::f32_fma(a, b, c, kModes[ri], z, sa);
              break;
          }
          bad += hs.reg(0, l) != fb(want);
        }
      }
    }
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(runs, 5 * 4 * 4 - 4 * 2);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

TEST(Cvt, IntToHalfRandomAgainstReference) {
  Rng g(41);
  for (Round r : kModes) {
    int bad = 0;
    for (int i = 0; i < 20000; ++i) {
      const int64_t v = int64_t(g.next()) >> (g.u32() % 64);
      bad += fp::s64_to_float_bits<fp::FmtF16>(v, r) != (v == 0 ? 0u : ref_f16((long double)v, r));
      bad +=
          fp::s64_to_float_bits<fp::FmtBF16>(v, r) != (v == 0 ? 0u : ref_bf16((long double)v, r));
    }
    EXPECT_EQ(bad, 0) << mode_name(r);
  }
}

TEST(Selectors, RejectNonFloatAndInvalidForms) {
  EXPECT_EQ(select_float(inst(Op::add, Type::s32)), nullptr);
  EXPECT_EQ(select_float(inst(Op::add, Type::u64)), nullptr);
  EXPECT_EQ(select_float(inst(Op::min, Type::s32)), nullptr);
  EXPECT_EQ(select_float(inst(Op::abs, Type::s32, Type::none, PR::none, 0, 2)), nullptr);
  EXPECT_EQ(select_float(inst(Op::div, Type::u32)), nullptr);
  EXPECT_EQ(select_float(inst(Op::div, Type::f32)), nullptr);  // needs .approx/.full/.rnd
  EXPECT_EQ(select_float(inst(Op::add, Type::f32, Type::none, PR::rni)), nullptr);
  EXPECT_EQ(select_float(inst(Op::add, Type::f16, Type::none, PR::rz)), nullptr);
  EXPECT_EQ(select_float(inst(Op::cvt, Type::f32, Type::s32, PR::rn, 0, 2)), nullptr);
  EXPECT_EQ(select_float(inst(Op::ld, Type::f32, Type::none, PR::none, 0, 2)), nullptr);
  auto mulwide = inst(Op::mul, Type::s32);
  mulwide.sub = uint8_t(ptx::MulMode::wide);
  EXPECT_EQ(select_float(mulwide), nullptr);
  EXPECT_EQ(select_cvt(inst(Op::add, Type::f32)), nullptr);
  EXPECT_EQ(select_cvt(inst(Op::cvt, Type::f32, Type::f16, PR::rni, 0, 2)),
            nullptr);  // sizes differ
  EXPECT_EQ(select_cvt(inst(Op::cvt, Type::f16, Type::f32, PR::rs, 0, 3)), nullptr);
  EXPECT_EQ(select_cvt(inst(Op::cvt, Type::s32, Type::f32, PR::rn, 0, 2)),
            nullptr);  // needs .rni..
  EXPECT_EQ(select_cvt(inst(Op::cvt, Type::f32, Type::s32, PR::rni, 0, 2)), nullptr);
  // every float arithmetic form nvcc emits has a handler
  for (Type t : {Type::f32, Type::f64}) {
    for (PR r : {PR::rn, PR::rz, PR::rm, PR::rp}) {
      EXPECT_NE(select_float(inst(Op::add, t, Type::none, r)), nullptr);
      EXPECT_NE(select_float(inst(Op::mul, t, Type::none, r)), nullptr);
      EXPECT_NE(select_float(inst(Op::fma, t, Type::none, r, 0, 4)), nullptr);
      EXPECT_NE(select_float(inst(Op::div, t, Type::none, r)), nullptr);
      EXPECT_NE(select_float(inst(Op::sqrt, t, Type::none, r, 0, 2)), nullptr);
      EXPECT_NE(select_float(inst(Op::rcp, t, Type::none, r, 0, 2)), nullptr);
    }
  }
  for (Type t : {Type::f16, Type::f16x2, Type::bf16, Type::bf16x2}) {
    EXPECT_NE(select_float(inst(Op::add, t)), nullptr);
    EXPECT_NE(select_float(inst(Op::sub, t, Type::none, PR::rn)), nullptr);
    EXPECT_NE(select_float(inst(Op::fma, t, Type::none, PR::rn, 0, 4)), nullptr);
    EXPECT_NE(select_float(inst(Op::neg, t, Type::none, PR::none, 0, 2)), nullptr);
    EXPECT_NE(select_float(inst(Op::max, t)), nullptr);
  }
  for (Type d :
       {Type::u8, Type::s16, Type::u32, Type::s64, Type::f16, Type::bf16, Type::f32, Type::f64})
    for (Type s :
         {Type::u16, Type::s8, Type::s32, Type::u64, Type::f16, Type::bf16, Type::f32, Type::f64}) {
      const bool df = d == Type::f16 || d == Type::bf16 || d == Type::f32 || d == Type::f64;
      const bool sf = s == Type::f16 || s == Type::bf16 || s == Type::f32 || s == Type::f64;
      const PR r = df ? PR::rn : sf ? PR::rzi : PR::none;
      EXPECT_NE(select_cvt(inst(Op::cvt, d, s, r, 0, 2)), nullptr);
    }
}

}  // namespace
}  // namespace simtlab::func
