// Typed parameter values: the kinds a parameter may have, the variant that carries a value,
// and the text <-> value conversions shared by presets, --set overrides and docs.
//
// Contract:
//  - parse_value accepts, per kind:
//      bool     true/false/yes/no/on/off/1/0 (case-insensitive)
//      integers decimal or 0x-hex, optional leading '-' (signed kinds only), optional suffix
//               K/M/G (case-insensitive, x1024 each), e.g. 48K = 49152, 0x10M
//      double   decimal or scientific notation, finite values only
//      string   any text (kept verbatim)
//    Surrounding whitespace is ignored for every kind except string.
//  - canonical_text is the one spelling used for hashing and dumps: integers in decimal,
//    doubles in shortest round-trip form with a '.', 'e' or 'n' (always re-parseable as double),
//    bools as true/false, strings verbatim. parse_value(k, canonical_text(v)) == v.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

namespace simtlab::config {

enum class Kind : uint8_t { kBool, kInt32, kInt64, kUInt32, kUInt64, kDouble, kString };

/// Signed kinds are stored as int64_t, unsigned kinds as uint64_t.
using Value = std::variant<bool, int64_t, uint64_t, double, std::string>;

/// The C++ field types a parameter may have.
template <typename T>
concept ParamType = std::is_same_v<T, bool> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t> ||
    std::is_same_v<T, double> || std::is_same_v<T, std::string>;

template <typename T>
concept NumericParam = ParamType<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, std::string>;

template <typename T>
concept IntegerParam = NumericParam<T> && std::is_integral_v<T>;

template <ParamType T>
constexpr Kind kind_of() {
  if constexpr (std::is_same_v<T, bool>)
    return Kind::kBool;
  else if constexpr (std::is_same_v<T, int32_t>)
    return Kind::kInt32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return Kind::kInt64;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return Kind::kUInt32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return Kind::kUInt64;
  else if constexpr (std::is_same_v<T, double>)
    return Kind::kDouble;
  else
    return Kind::kString;
}

/// "bool", "int32", "int64", "uint32", "uint64", "double", "string".
std::string_view kind_name(Kind k);

/// Parses `text` as a value of kind `k` into `out`. On failure returns the message without the
/// key path, e.g. "expected an unsigned integer, got 'abc'".
std::optional<std::string> parse_value(Kind k, std::string_view text, Value& out);

/// Canonical spelling (see the contract above).
std::string canonical_text(const Value& v);

/// Spelling for messages: strings in single quotes ('plru'), everything else canonical.
std::string display_text(const Value& v);

template <ParamType T>
Value to_value(const T& x) {
  if constexpr (std::is_same_v<T, int32_t>)
    return Value(int64_t(x));
  else if constexpr (std::is_same_v<T, uint32_t>)
    return Value(uint64_t(x));
  else
    return Value(x);
}

/// Converts a Value holding the storage type of T back to T (narrowing is the caller's
/// responsibility: parse_value already range-checked 32-bit kinds).
template <ParamType T>
T from_value(const Value& v) {
  if constexpr (std::is_same_v<T, int32_t>)
    return static_cast<int32_t>(std::get<int64_t>(v));
  else if constexpr (std::is_same_v<T, uint32_t>)
    return static_cast<uint32_t>(std::get<uint64_t>(v));
  else
    return std::get<T>(v);
}

}  // namespace simtlab::config
