// Integer arithmetic, logic, shift and bit-manipulation handlers (PTX ISA 9.7.1, 9.7.2, 9.7.8).
#include <bit>

#include "func/exec_common.h"

namespace simtlab::func {

using namespace ptx;

namespace {

template <typename T>
using U = std::make_unsigned_t<T>;
template <typename T>
using S = std::make_signed_t<T>;
/// Unsigned type for wrapping multiplication: 16-bit operands would promote to (signed) int,
/// where 0xffff * 0xffff overflows.
template <typename T>
using M = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U<T>>;

template <typename T>
struct Wider;
template <>
struct Wider<int8_t> {
  using type = int16_t;
};
template <>
struct Wider<uint8_t> {
  using type = uint16_t;
};
template <>
struct Wider<int16_t> {
  using type = int32_t;
};
template <>
struct Wider<uint16_t> {
  using type = uint32_t;
};
template <>
struct Wider<int32_t> {
  using type = int64_t;
};
template <>
struct Wider<uint32_t> {
  using type = uint64_t;
};
template <>
struct Wider<int64_t> {
  using type = __int128;
};
template <>
struct Wider<uint64_t> {
  using type = unsigned __int128;
};
template <typename T>
using W = typename Wider<T>::type;
template <typename T>
struct MakeU {
  using type = std::make_unsigned_t<T>;
};
template <>
struct MakeU<__int128> {
  using type = unsigned __int128;
};
template <>
struct MakeU<unsigned __int128> {
  using type = unsigned __int128;
};
template <typename T>
using UW = typename MakeU<W<T>>::type;

// ---- generic lane loops ----------------------------------------------------------------------

template <typename T, typename F>
inline void unary(Warp& w, const DInst& d, LaneMask exec, F f) {
  uint64_t t1;
  Lanes a = src_lanes(w, d.op[1], t1);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(exec, [&](unsigned l) { D[l] = to_bits(f(from_bits<T>(a[l]))); });
}

template <typename T, typename F>
inline void binary(Warp& w, const DInst& d, LaneMask exec, F f) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(exec, [&](unsigned l) { D[l] = to_bits(f(from_bits<T>(a[l]), from_bits<T>(b[l]))); });
}

template <typename T, typename F>
inline void ternary(Warp& w, const DInst& d, LaneMask exec, F f) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(exec, [&](unsigned l) {
    D[l] = to_bits(f(from_bits<T>(a[l]), from_bits<T>(b[l]), from_bits<T>(c[l])));
  });
}

template <typename T>
T sat_add(T a, T b) {
  W<T> r = W<T>(a) + W<T>(b);
  if (r > W<T>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  if (r < W<T>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  return T(r);
}
template <typename T>
T sat_sub(T a, T b) {
  W<T> r = W<T>(a) - W<T>(b);
  if (r > W<T>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  if (r < W<T>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  return T(r);
}

// ---- add / sub with carry ---------------------------------------------------------------------

template <typename T>
void h_add(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return T(U<T>(a) + U<T>(b)); });
}
template <typename T>
void h_sub(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return T(U<T>(a) - U<T>(b)); });
}
template <typename T>
void h_add_sat(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return sat_add(a, b); });
}
template <typename T>
void h_sub_sat(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return sat_sub(a, b); });
}

/// add/sub/addc/subc with optional carry-in and carry-out (CC.CF per lane in w.carry).
template <typename T, bool Sub, bool CarryIn, bool CarryOut>
void h_addc(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  uint64_t* D = dst_lanes(w, d.op[0]);
  using UT = U<T>;
  LaneMask cout = 0;
  const LaneMask cin = w.carry;
  for_lanes(e, [&](unsigned l) {
    const UT x = UT(a[l]), y = UT(b[l]);
    const UT c = CarryIn ? UT((cin >> l) & 1) : UT(0);
    UT r;
    bool carry;
    if constexpr (!Sub) {
      const UT s = UT(x + y);
      r = UT(s + c);
      carry = s < x || r < s;
    } else {
      r = UT(x - y - c);
      carry = W<UT>(x) < W<UT>(y) + W<UT>(c);  // borrow
    }
    D[l] = to_bits(r);
    if (carry) cout |= 1u << l;
  });
  if (CarryOut) w.carry = (w.carry & ~e) | cout;
}

// ---- multiply ---------------------------------------------------------------------------------

template <typename T>
void h_mul_lo(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return T(M<T>(U<T>(a)) * M<T>(U<T>(b))); });
}
template <typename T>
void h_mul_hi(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return T((W<T>(a) * W<T>(b)) >> (sizeof(T) * 8)); });
}
template <typename T>
void h_mul_wide(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(
      e, [&](unsigned l) { D[l] = to_bits(W<T>(from_bits<T>(a[l])) * W<T>(from_bits<T>(b[l]))); });
}
template <typename T>
void h_mad_lo(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  ternary<T>(w, d, e,
             [](T a, T b, T c) { return T(M<T>(U<T>(a)) * M<T>(U<T>(b)) + M<T>(U<T>(c))); });
}
template <typename T>
void h_mad_hi(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  ternary<T>(w, d, e, [](T a, T b, T c) {
    return T(U<T>((W<T>(a) * W<T>(b)) >> (sizeof(T) * 8)) + U<T>(c));
  });
}
template <typename T>
void h_mad_hi_sat(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  ternary<T>(w, d, e,
             [](T a, T b, T c) { return sat_add(T((W<T>(a) * W<T>(b)) >> (sizeof(T) * 8)), c); });
}
template <typename T>
void h_mad_wide(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) {
    using WT = W<T>;
    D[l] = to_bits(
        WT(UW<T>(WT(from_bits<T>(a[l])) * WT(from_bits<T>(b[l]))) + UW<T>(from_bits<WT>(c[l]))));
  });
}
/// mad.lo.cc / mad.hi.cc / madc.lo / madc.hi (with .cc): product half + c (+ carry-in).
template <typename T, bool Hi, bool CarryIn, bool CarryOut>
void h_madc(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  using UT = U<T>;
  LaneMask cout = 0;
  const LaneMask cin = w.carry;
  for_lanes(e, [&](unsigned l) {
    const W<T> p = W<T>(from_bits<T>(a[l])) * W<T>(from_bits<T>(b[l]));
    const UT prod = Hi ? UT(UW<T>(p) >> (sizeof(T) * 8)) : UT(p);
    const UT cc = UT(c[l]);
    const UT ci = CarryIn ? UT((cin >> l) & 1) : UT(0);
    const UT s = UT(prod + cc);
    const UT r = UT(s + ci);
    D[l] = to_bits(r);
    if (s < prod || r < s) cout |= 1u << l;
  });
  if (CarryOut) w.carry = (w.carry & ~e) | cout;
}
template <typename T, bool Hi>
void h_mul24(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) {
    const int64_t x =
        std::is_signed_v<T> ? sext(uint64_t(U<T>(a)), 24) : int64_t(U<T>(a) & 0xffffff);
    const int64_t y =
        std::is_signed_v<T> ? sext(uint64_t(U<T>(b)), 24) : int64_t(U<T>(b) & 0xffffff);
    const int64_t p = x * y;  // 48-bit product
    return Hi ? T(uint64_t(p) >> 16) : T(p);
  });
}
template <typename T, bool Hi>
void h_mad24(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  ternary<T>(w, d, e, [](T a, T b, T c) {
    const int64_t x =
        std::is_signed_v<T> ? sext(uint64_t(U<T>(a)), 24) : int64_t(U<T>(a) & 0xffffff);
    const int64_t y =
        std::is_signed_v<T> ? sext(uint64_t(U<T>(b)), 24) : int64_t(U<T>(b) & 0xffffff);
    const int64_t p = x * y;
    return T(U<T>(Hi ? T(uint64_t(p) >> 16) : T(p)) + U<T>(c));
  });
}
/// mad24.hi.sat.s32: the product's bits 47..16 plus c, saturated to the s32 range.
void h_mad24_hi_sat(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  ternary<int32_t>(w, d, e, [](int32_t a, int32_t b, int32_t c) {
    const int64_t p = sext(uint64_t(uint32_t(a)), 24) * sext(uint64_t(uint32_t(b)), 24);
    return sat_add(int32_t(uint32_t(uint64_t(p) >> 16)), c);
  });
}
template <typename T>
void h_sad(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  ternary<T>(w, d, e, [](T a, T b, T c) {
    return T(U<T>(a < b ? U<T>(b) - U<T>(a) : U<T>(a) - U<T>(b)) + U<T>(c));
  });
}

// ---- divide / remainder ------------------------------------------------------------------------

template <typename T, bool Rem>
void h_div(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) {
    const T x = from_bits<T>(a[l]), y = from_bits<T>(b[l]);
    T r;
    if (y == 0) {
      warn_div_zero(cx, w, d, l);
      // Hardware produces all-ones for the quotient and the dividend for the remainder.
      r = Rem ? x : T(~U<T>(0));
    } else if (std::is_signed_v<T> && x == std::numeric_limits<T>::min() && y == T(-1)) {
      r = Rem ? T(0) : x;  // overflow wraps
    } else {
      r = Rem ? T(x % y) : T(x / y);
    }
    D[l] = to_bits(r);
  });
}

// ---- min / max / abs / neg ---------------------------------------------------------------------

template <typename T>
void h_min(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return a < b ? a : b; });
}
template <typename T>
void h_max(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return a > b ? a : b; });
}
template <typename T>
void h_max_relu(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) {
    T m = a > b ? a : b;
    return m < 0 ? T(0) : m;
  });
}
template <typename T>
void h_min_relu(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) {
    T m = a < b ? a : b;
    return m < 0 ? T(0) : m;
  });
}
template <typename T>
void h_abs(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  unary<T>(w, d, e, [](T a) { return a < 0 ? T(U<T>(0) - U<T>(a)) : a; });
}
template <typename T>
void h_neg(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  unary<T>(w, d, e, [](T a) { return T(U<T>(0) - U<T>(a)); });
}

// ---- logic ------------------------------------------------------------------------------------

template <typename T>
void h_and(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return T(a & b); });
}
template <typename T>
void h_or(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return T(a | b); });
}
template <typename T>
void h_xor(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  binary<T>(w, d, e, [](T a, T b) { return T(a ^ b); });
}
template <typename T>
void h_not(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  unary<T>(w, d, e, [](T a) { return T(~a); });
}
template <typename T>
void h_cnot(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  unary<T>(w, d, e, [](T a) { return T(a == 0 ? 1 : 0); });
}

template <int Op>
void h_pred_logic(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  const LaneMask a = pred_value(w, d.op[1]);
  LaneMask r;
  if constexpr (Op == 3) {
    r = ~a;
  } else {
    const LaneMask b = pred_value(w, d.op[2]);
    r = Op == 0 ? (a & b) : Op == 1 ? (a | b) : (a ^ b);
  }
  write_pred(w, d.op[0], r, e);
}

void h_lop3(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3, t4;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3),
        lut = src_lanes(w, d.op[4], t4);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) {
    const uint32_t x = uint32_t(a[l]), y = uint32_t(b[l]), z = uint32_t(c[l]);
    const uint8_t L = uint8_t(lut[l]);
    uint32_t r = 0;
    for (int bit = 0; bit < 8; ++bit) {
      if (!((L >> bit) & 1)) continue;
      // bit index = (a?4:0) | (b?2:0) | (c?1:0) with ta=0xF0, tb=0xCC, tc=0xAA
      const uint32_t ma = (bit & 4) ? x : ~x, mb = (bit & 2) ? y : ~y, mc = (bit & 1) ? z : ~z;
      r |= ma & mb & mc;
    }
    D[l] = r;
  });
}

// ---- shifts -----------------------------------------------------------------------------------

template <typename T>
void h_shl(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  uint64_t* D = dst_lanes(w, d.op[0]);
  constexpr uint32_t bits = sizeof(T) * 8;
  for_lanes(e, [&](unsigned l) {
    const uint32_t s = uint32_t(b[l]);
    D[l] = to_bits(T(s >= bits ? U<T>(0) : U<T>(U<T>(from_bits<T>(a[l])) << s)));
  });
}
template <typename T>
void h_shr(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  uint64_t* D = dst_lanes(w, d.op[0]);
  constexpr uint32_t bits = sizeof(T) * 8;
  for_lanes(e, [&](unsigned l) {
    const uint32_t s = std::min<uint32_t>(uint32_t(b[l]), bits - 1 + (std::is_signed_v<T> ? 0 : 1));
    const T x = from_bits<T>(a[l]);
    T r;
    if constexpr (std::is_signed_v<T>)
      r = T(x >> s);
    else
      r = s >= bits ? T(0) : T(x >> s);
    D[l] = to_bits(r);
  });
}
template <bool Left, bool Wrap>
void h_shf(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) {
    const uint64_t v = (uint64_t(uint32_t(b[l])) << 32) | uint32_t(a[l]);
    uint32_t n = uint32_t(c[l]);
    n = Wrap ? (n & 31) : std::min<uint32_t>(n, 32);
    D[l] = Left ? uint32_t((v << n) >> 32) : uint32_t(v >> n);
  });
}

// ---- bit manipulation ---------------------------------------------------------------------------

template <typename T>
void h_popc(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  unary<T>(w, d, e, [](T a) { return uint32_t(std::popcount(U<T>(a))); });
}
template <typename T>
void h_clz(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  unary<T>(w, d, e, [](T a) { return uint32_t(std::countl_zero(U<T>(a))); });
}
template <typename T>
void h_brev(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  unary<T>(w, d, e, [](T a) {
    U<T> x = U<T>(a), r = 0;
    for (unsigned i = 0; i < sizeof(T) * 8; ++i) r = U<T>((r << 1) | ((x >> i) & 1));
    return T(r);
  });
}
template <typename T, bool ShiftAmt>
void h_bfind(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  unary<T>(w, d, e, [](T a) -> uint32_t {
    constexpr int bits = sizeof(T) * 8;
    U<T> x = U<T>(a);
    if constexpr (std::is_signed_v<T>) {
      if (a < 0) x = U<T>(~x);
    }
    if (x == 0) return 0xffffffffu;
    const int msb = bits - 1 - std::countl_zero(x);
    return ShiftAmt ? uint32_t(bits - 1 - msb) : uint32_t(msb);
  });
}
template <typename T>
void h_bfe(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  constexpr uint32_t msb = sizeof(T) * 8 - 1;
  for_lanes(e, [&](unsigned l) {
    const U<T> x = U<T>(from_bits<T>(a[l]));
    const uint32_t pos = uint32_t(b[l]) & 0xff, len = uint32_t(c[l]) & 0xff;
    bool sbit;
    if constexpr (std::is_signed_v<T>) {
      sbit = len == 0 ? false : ((x >> std::min(msb, pos + len - 1)) & 1);
    } else {
      sbit = false;
    }
    U<T> r = 0;
    for (uint32_t i = 0; i <= msb; ++i) {
      const bool bit = i < len && pos + i <= msb ? ((x >> (pos + i)) & 1) : sbit;
      r = U<T>(r | (U<T>(bit) << i));
    }
    D[l] = to_bits(T(r));
  });
}
template <typename T>
void h_bfi(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3, t4;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3),
        n = src_lanes(w, d.op[4], t4);
  uint64_t* D = dst_lanes(w, d.op[0]);
  constexpr uint32_t bits = sizeof(T) * 8;
  for_lanes(e, [&](unsigned l) {
    const U<T> x = U<T>(from_bits<T>(a[l]));
    U<T> r = U<T>(from_bits<T>(b[l]));
    const uint32_t pos = uint32_t(c[l]) & 0xff, len = uint32_t(n[l]) & 0xff;
    for (uint32_t i = 0; i < len && pos + i < bits; ++i) {
      const U<T> m = U<T>(U<T>(1) << (pos + i));
      r = U<T>((r & ~m) | (((x >> i) & 1) ? m : U<T>(0)));
    }
    D[l] = to_bits(T(r));
  });
}
template <bool Clamp>
void h_bmsk(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) {
    uint32_t pos = uint32_t(a[l]), width = uint32_t(b[l]);
    if (Clamp) {
      pos = std::min(pos, 32u);
      width = std::min(width, 32u);
    } else {
      pos &= 31;
      width &= 31;
    }
    const uint64_t m = ((uint64_t(1) << width) - 1) << pos;
    D[l] = uint32_t(m);
  });
}
template <uint8_t Mode>
void h_prmt(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) {
    const uint64_t bytes = (uint64_t(uint32_t(b[l])) << 32) | uint32_t(a[l]);
    auto byte = [&](unsigned i) { return uint8_t(bytes >> (8 * (i & 7))); };
    const uint32_t s = uint32_t(c[l]);
    uint32_t r = 0;
    if constexpr (Mode == 0) {
      for (unsigned i = 0; i < 4; ++i) {
        const unsigned sel = (s >> (4 * i)) & 0xf;
        uint8_t v = byte(sel & 7);
        if (sel & 8) v = (v & 0x80) ? 0xff : 0x00;  // sign-replicate
        r |= uint32_t(v) << (8 * i);
      }
    } else {
      const unsigned sel = s & 3;
      unsigned idx[4];
      switch (Mode) {
        case 1:
          for (unsigned i = 0; i < 4; ++i) idx[i] = (sel + i) & 7;
          break;  // f4e
        case 2:
          for (unsigned i = 0; i < 4; ++i) idx[i] = (sel - i) & 7;
          break;  // b4e
        case 3:
          for (unsigned i = 0; i < 4; ++i) idx[i] = sel;
          break;  // rc8
        case 4:
          for (unsigned i = 0; i < 4; ++i) idx[i] = i >= sel ? i : sel;
          break;  // ecl: max(i, sel)
        case 5:
          for (unsigned i = 0; i < 4; ++i) idx[i] = i <= sel ? i : sel;
          break;  // ecr: min(i, sel)
        default:
          for (unsigned i = 0; i < 4; ++i) idx[i] = (sel & 1) * 2 + (i & 1);
          break;  // rc16
      }
      for (unsigned i = 0; i < 4; ++i) r |= uint32_t(byte(idx[i])) << (8 * i);
    }
    D[l] = r;
  });
}
template <typename TA, typename TB>
void h_dp4a(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) {
    int64_t acc = std::is_signed_v<TA> || std::is_signed_v<TB> ? int64_t(int32_t(c[l]))
                                                               : int64_t(uint32_t(c[l]));
    for (unsigned i = 0; i < 4; ++i) {
      const TA x = TA(uint8_t(a[l] >> (8 * i)));
      const TB y = TB(uint8_t(b[l] >> (8 * i)));
      acc += int64_t(x) * int64_t(y);
    }
    D[l] = uint32_t(acc);
  });
}
/// dp2a.{lo,hi}: two 16-bit halves of a times bytes 0,1 (.lo) or 2,3 (.hi) of b, plus c.
template <typename TA, typename TB, bool Hi>
void h_dp2a(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2), c = src_lanes(w, d.op[3], t3);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) {
    int64_t acc = std::is_signed_v<TA> || std::is_signed_v<TB> ? int64_t(int32_t(c[l]))
                                                               : int64_t(uint32_t(c[l]));
    for (unsigned i = 0; i < 2; ++i) {
      const TA x = TA(uint16_t(a[l] >> (16 * i)));
      const TB y = TB(uint8_t(b[l] >> (8 * (i + (Hi ? 2 : 0)))));
      acc += int64_t(x) * int64_t(y);
    }
    D[l] = uint32_t(acc);
  });
}
template <int Op>
void h_vabsdiff4(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2, t3;
  Lanes a = src_lanes(w, d.op[1], t1), b = src_lanes(w, d.op[2], t2);
  Lanes c = d.nops > 3 ? src_lanes(w, d.op[3], t3) : Lanes{&d.op[0].imm, 0};
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) {
    uint32_t r = 0, sum = 0;
    for (unsigned i = 0; i < 4; ++i) {
      const int x = uint8_t(a[l] >> (8 * i)), y = uint8_t(b[l] >> (8 * i));
      const uint32_t v = uint32_t(x > y ? x - y : y - x);
      r |= v << (8 * i);
      sum += v;
    }
    D[l] = Op == 1 ? uint32_t(sum + uint32_t(c[l])) : r;
  });
}

// ---- selection ------------------------------------------------------------------------------

/// Every integer type; PICK_NO8 leaves out the 8-bit ones (PTX allows them only for some ops).
#define PICK(H)                                                       \
  if (in.type == Type::s8) return &H<int8_t>;                         \
  if (in.type == Type::u8 || in.type == Type::b8) return &H<uint8_t>; \
  PICK_NO8(H)

#define PICK_NO8(H)        \
  switch (in.type) {       \
    case Type::s16:        \
      return &H<int16_t>;  \
    case Type::s32:        \
      return &H<int32_t>;  \
    case Type::s64:        \
      return &H<int64_t>;  \
    case Type::u16:        \
    case Type::b16:        \
      return &H<uint16_t>; \
    case Type::u32:        \
    case Type::b32:        \
      return &H<uint32_t>; \
    case Type::u64:        \
    case Type::b64:        \
      return &H<uint64_t>; \
    default:               \
      return nullptr;      \
  }

#define PICK_CARRY(H, ...)              \
  switch (in.type) {                    \
    case Type::s32:                     \
    case Type::u32:                     \
    case Type::b32:                     \
      return &H<uint32_t, __VA_ARGS__>; \
    case Type::s64:                     \
    case Type::u64:                     \
    case Type::b64:                     \
      return &H<uint64_t, __VA_ARGS__>; \
    default:                            \
      return nullptr;                   \
  }

// mad(c).hi with carry: the high half of a signed product differs from the unsigned one.
#define PICK_CARRY_S(H, ...)            \
  switch (in.type) {                    \
    case Type::s32:                     \
      return &H<int32_t, __VA_ARGS__>;  \
    case Type::u32:                     \
    case Type::b32:                     \
      return &H<uint32_t, __VA_ARGS__>; \
    case Type::s64:                     \
      return &H<int64_t, __VA_ARGS__>;  \
    case Type::u64:                     \
    case Type::b64:                     \
      return &H<uint64_t, __VA_ARGS__>; \
    default:                            \
      return nullptr;                   \
  }

bool is_int(Type t) {
  const TypeKind k = type_kind(t);
  return k == TypeKind::sint || k == TypeKind::uint || k == TypeKind::bits;
}

}  // namespace

Handler select_int(const Instruction& in) {
  const bool cc = in.has(IF_CC);
  const bool sat = in.has(IF_SAT);
  switch (in.op) {
    case Op::add:
      if (!is_int(in.type)) return nullptr;
      if (cc) {
        PICK_CARRY(h_addc, false, false, true)
      }
      if (sat) {
        if (in.type == Type::s32) return &h_add_sat<int32_t>;
        return nullptr;
      }
      PICK_NO8(h_add)
    case Op::sub:
      if (!is_int(in.type)) return nullptr;
      if (cc) {
        PICK_CARRY(h_addc, true, false, true)
      }
      if (sat) {
        if (in.type == Type::s32) return &h_sub_sat<int32_t>;
        return nullptr;
      }
      PICK_NO8(h_sub)
    case Op::addc:
      if (cc) {
        PICK_CARRY(h_addc, false, true, true)
      }
      PICK_CARRY(h_addc, false, true, false)
    case Op::subc:
      if (cc) {
        PICK_CARRY(h_addc, true, true, true)
      }
      PICK_CARRY(h_addc, true, true, false)
    case Op::mul:
      if (!is_int(in.type)) return nullptr;
      switch (in.mul_mode()) {
        case MulMode::hi:
          PICK_NO8(h_mul_hi)
        case MulMode::wide:
          switch (in.type) {
            case Type::s16:
              return &h_mul_wide<int16_t>;
            case Type::u16:
              return &h_mul_wide<uint16_t>;
            case Type::s32:
              return &h_mul_wide<int32_t>;
            case Type::u32:
              return &h_mul_wide<uint32_t>;
            default:
              return nullptr;
          }
        default:
          PICK_NO8(h_mul_lo)
      }
    case Op::mad:
      if (!is_int(in.type)) return nullptr;
      if (cc) {
        if (in.mul_mode() == MulMode::hi) {
          PICK_CARRY_S(h_madc, true, false, true)
        }
        PICK_CARRY(h_madc, false, false, true)
      }
      switch (in.mul_mode()) {
        case MulMode::hi:
          if (sat) {
            if (in.type == Type::s32) return &h_mad_hi_sat<int32_t>;
            return nullptr;
          }
          PICK_NO8(h_mad_hi)
        case MulMode::wide:
          switch (in.type) {
            case Type::s16:
              return &h_mad_wide<int16_t>;
            case Type::u16:
              return &h_mad_wide<uint16_t>;
            case Type::s32:
              return &h_mad_wide<int32_t>;
            case Type::u32:
              return &h_mad_wide<uint32_t>;
            default:
              return nullptr;
          }
        default:
          PICK_NO8(h_mad_lo)
      }
    case Op::madc:
      if (in.mul_mode() == MulMode::hi) {
        if (cc) {
          PICK_CARRY_S(h_madc, true, true, true)
        }
        PICK_CARRY_S(h_madc, true, true, false)
      }
      if (cc) {
        PICK_CARRY(h_madc, false, true, true)
      }
      PICK_CARRY(h_madc, false, true, false)
    case Op::mul24:
      if (in.type == Type::s32)
        return in.mul_mode() == MulMode::hi ? &h_mul24<int32_t, true> : &h_mul24<int32_t, false>;
      if (in.type == Type::u32)
        return in.mul_mode() == MulMode::hi ? &h_mul24<uint32_t, true> : &h_mul24<uint32_t, false>;
      return nullptr;
    case Op::mad24:
      if (in.type == Type::s32 && sat && in.mul_mode() == MulMode::hi) return &h_mad24_hi_sat;
      if (in.type == Type::s32)
        return in.mul_mode() == MulMode::hi ? &h_mad24<int32_t, true> : &h_mad24<int32_t, false>;
      if (in.type == Type::u32)
        return in.mul_mode() == MulMode::hi ? &h_mad24<uint32_t, true> : &h_mad24<uint32_t, false>;
      return nullptr;
    case Op::sad:
      PICK_NO8(h_sad)
    case Op::div:
      if (!is_int(in.type)) return nullptr;
      switch (in.type) {
        case Type::s16:
          return &h_div<int16_t, false>;
        case Type::s32:
          return &h_div<int32_t, false>;
        case Type::s64:
          return &h_div<int64_t, false>;
        case Type::u16:
          return &h_div<uint16_t, false>;
        case Type::u32:
          return &h_div<uint32_t, false>;
        case Type::u64:
          return &h_div<uint64_t, false>;
        default:
          return nullptr;
      }
    case Op::rem:
      switch (in.type) {
        case Type::s16:
          return &h_div<int16_t, true>;
        case Type::s32:
          return &h_div<int32_t, true>;
        case Type::s64:
          return &h_div<int64_t, true>;
        case Type::u16:
          return &h_div<uint16_t, true>;
        case Type::u32:
          return &h_div<uint32_t, true>;
        case Type::u64:
          return &h_div<uint64_t, true>;
        default:
          return nullptr;
      }
    case Op::min:
      if (!is_int(in.type)) return nullptr;
      if (in.has(IF_RELU)) {
        if (in.type == Type::s32) return &h_min_relu<int32_t>;
        return nullptr;
      }
      PICK_NO8(h_min)
    case Op::max:
      if (!is_int(in.type)) return nullptr;
      if (in.has(IF_RELU)) {
        if (in.type == Type::s32) return &h_max_relu<int32_t>;
        return nullptr;
      }
      PICK_NO8(h_max)
    case Op::abs:
      if (!is_int(in.type)) return nullptr;
      PICK_NO8(h_abs)
    case Op::neg:
      if (!is_int(in.type)) return nullptr;
      PICK_NO8(h_neg)
    case Op::and_:
      if (in.type == Type::pred) return &h_pred_logic<0>;
      PICK_NO8(h_and)
    case Op::or_:
      if (in.type == Type::pred) return &h_pred_logic<1>;
      PICK_NO8(h_or)
    case Op::xor_:
      if (in.type == Type::pred) return &h_pred_logic<2>;
      PICK_NO8(h_xor)
    case Op::not_:
      if (in.type == Type::pred) return &h_pred_logic<3>;
      PICK_NO8(h_not)
    case Op::cnot:
      PICK_NO8(h_cnot)
    case Op::lop3:
      return &h_lop3;
    case Op::shl:
      switch (in.type) {
        case Type::b16:
        case Type::u16:
        case Type::s16:
          return &h_shl<uint16_t>;
        case Type::b32:
        case Type::u32:
        case Type::s32:
          return &h_shl<uint32_t>;
        case Type::b64:
        case Type::u64:
        case Type::s64:
          return &h_shl<uint64_t>;
        default:
          return nullptr;
      }
    case Op::shr:
      switch (in.type) {
        case Type::s16:
          return &h_shr<int16_t>;
        case Type::s32:
          return &h_shr<int32_t>;
        case Type::s64:
          return &h_shr<int64_t>;
        case Type::b16:
        case Type::u16:
          return &h_shr<uint16_t>;
        case Type::b32:
        case Type::u32:
          return &h_shr<uint32_t>;
        case Type::b64:
        case Type::u64:
          return &h_shr<uint64_t>;
        default:
          return nullptr;
      }
    case Op::shf: {
      const bool left = in.has(IF_LEFT), wrap = in.has(IF_WRAP);
      if (left) return wrap ? &h_shf<true, true> : &h_shf<true, false>;
      return wrap ? &h_shf<false, true> : &h_shf<false, false>;
    }
    case Op::popc:
      switch (in.type) {
        case Type::b32:
        case Type::u32:
        case Type::s32:
          return &h_popc<uint32_t>;
        case Type::b64:
        case Type::u64:
        case Type::s64:
          return &h_popc<uint64_t>;
        default:
          return nullptr;
      }
    case Op::clz:
      switch (in.type) {
        case Type::b32:
        case Type::u32:
        case Type::s32:
          return &h_clz<uint32_t>;
        case Type::b64:
        case Type::u64:
        case Type::s64:
          return &h_clz<uint64_t>;
        default:
          return nullptr;
      }
    case Op::brev:
      switch (in.type) {
        case Type::b32:
        case Type::u32:
        case Type::s32:
          return &h_brev<uint32_t>;
        case Type::b64:
        case Type::u64:
        case Type::s64:
          return &h_brev<uint64_t>;
        default:
          return nullptr;
      }
    case Op::bfind: {
      const bool sh = in.has(IF_SHIFTAMT);
      switch (in.type) {
        case Type::u32:
          return sh ? &h_bfind<uint32_t, true> : &h_bfind<uint32_t, false>;
        case Type::s32:
          return sh ? &h_bfind<int32_t, true> : &h_bfind<int32_t, false>;
        case Type::u64:
          return sh ? &h_bfind<uint64_t, true> : &h_bfind<uint64_t, false>;
        case Type::s64:
          return sh ? &h_bfind<int64_t, true> : &h_bfind<int64_t, false>;
        default:
          return nullptr;
      }
    }
    case Op::bfe:
      switch (in.type) {
        case Type::u32:
          return &h_bfe<uint32_t>;
        case Type::s32:
          return &h_bfe<int32_t>;
        case Type::u64:
          return &h_bfe<uint64_t>;
        case Type::s64:
          return &h_bfe<int64_t>;
        default:
          return nullptr;
      }
    case Op::bfi:
      switch (in.type) {
        case Type::b32:
        case Type::u32:
        case Type::s32:
          return &h_bfi<uint32_t>;
        case Type::b64:
        case Type::u64:
        case Type::s64:
          return &h_bfi<uint64_t>;
        default:
          return nullptr;
      }
    case Op::bmsk:
      return in.has(IF_CLAMP) ? &h_bmsk<true> : &h_bmsk<false>;
    case Op::prmt:
      switch (in.sub) {
        case 0:
          return &h_prmt<0>;
        case 1:
          return &h_prmt<1>;
        case 2:
          return &h_prmt<2>;
        case 3:
          return &h_prmt<3>;
        case 4:
          return &h_prmt<4>;
        case 5:
          return &h_prmt<5>;
        default:
          return &h_prmt<6>;
      }
    case Op::dp4a: {
      const bool as = in.type == Type::s32, bs = in.type2 == Type::s32;
      if (as && bs) return &h_dp4a<int8_t, int8_t>;
      if (as) return &h_dp4a<int8_t, uint8_t>;
      if (bs) return &h_dp4a<uint8_t, int8_t>;
      return &h_dp4a<uint8_t, uint8_t>;
    }
    case Op::dp2a: {
      const bool as = in.type == Type::s32, bs = in.type2 == Type::s32,
                 hi = in.mul_mode() == MulMode::hi;
      if (as && bs) return hi ? &h_dp2a<int16_t, int8_t, true> : &h_dp2a<int16_t, int8_t, false>;
      if (as) return hi ? &h_dp2a<int16_t, uint8_t, true> : &h_dp2a<int16_t, uint8_t, false>;
      if (bs) return hi ? &h_dp2a<uint16_t, int8_t, true> : &h_dp2a<uint16_t, int8_t, false>;
      return hi ? &h_dp2a<uint16_t, uint8_t, true> : &h_dp2a<uint16_t, uint8_t, false>;
    }
    case Op::vabsdiff4:
      if (in.type == Type::u32 && in.type2 == Type::u32)
        return in.atom_op() == AtomOp::add ? &h_vabsdiff4<1> : &h_vabsdiff4<0>;
      return nullptr;
    default:
      return nullptr;
  }
}

}  // namespace simtlab::func
