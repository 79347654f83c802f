// Bit-manipulation helpers used on hot paths.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace simtlab {

template <typename To, typename From>
inline To bitcast(const From& f) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &f, sizeof(To));
  return t;
}

inline constexpr uint64_t low_mask(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : ((uint64_t(1) << bits) - 1);
}

/// Sign-extend the low `bits` bits of v to 64 bits.
inline constexpr int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64) return int64_t(v);
  const uint64_t m = uint64_t(1) << (bits - 1);
  v &= low_mask(bits);
  return int64_t((v ^ m) - m);
}

inline constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
inline constexpr bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

}  // namespace simtlab
