// Strong types for the quantities simtlab passes between units, plus small helpers.
// Contract: arithmetic on a strong type keeps its unit; converting to a raw number is explicit
// via .v. Cycle counts are in the clock domain of whoever owns them (see sim/clock.h).
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace simtlab {

template <typename Tag, typename T>
struct Strong {
  T v{};
  constexpr Strong() = default;
  constexpr explicit Strong(T x) : v(x) {}
  constexpr auto operator<=>(const Strong&) const = default;
  constexpr Strong operator+(Strong o) const { return Strong(v + o.v); }
  constexpr Strong operator-(Strong o) const { return Strong(v - o.v); }
  constexpr Strong& operator+=(Strong o) {
    v += o.v;
    return *this;
  }
  constexpr Strong& operator-=(Strong o) {
    v -= o.v;
    return *this;
  }
  constexpr Strong& operator++() {
    ++v;
    return *this;
  }
};

struct CycleTag {};
struct AddrTag {};
struct BytesTag {};

/// A count of clock cycles in one clock domain.
using Cycle = Strong<CycleTag, uint64_t>;
/// A byte count (sizes, lengths).
using Bytes = Strong<BytesTag, uint64_t>;
/// A simulated-device address. Device addresses are plain 64-bit values in the PTX model.
using Addr = uint64_t;
/// One bit per lane of a warp (warp size <= 32 in the NVIDIA model; lane 0 is bit 0).
using LaneMask = uint32_t;

inline constexpr unsigned kMaxWarpSize = 32;
inline constexpr LaneMask kFullMask = 0xffffffffu;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  constexpr uint64_t count() const { return uint64_t(x) * y * z; }
  constexpr bool operator==(const Dim3&) const = default;
};

}  // namespace simtlab

template <typename Tag, typename T>
struct std::hash<simtlab::Strong<Tag, T>> {
  size_t operator()(const simtlab::Strong<Tag, T>& s) const { return std::hash<T>()(s.v); }
};
