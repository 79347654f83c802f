#include "config/value.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace simtlab::config {

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::kBool:
      return "bool";
    case Kind::kInt32:
      return "int32";
    case Kind::kInt64:
      return "int64";
    case Kind::kUInt32:
      return "uint32";
    case Kind::kUInt64:
      return "uint64";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
  }
  return "?";
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::optional<bool> parse_bool(std::string_view s) {
  std::string l = lower(s);
  if (l == "true" || l == "yes" || l == "on" || l == "1") return true;
  if (l == "false" || l == "no" || l == "off" || l == "0") return false;
  return std::nullopt;
}

struct IntText {
  bool negative = false;
  uint64_t magnitude = 0;
  bool overflow = false;
};

// Sign, decimal or 0x-hex digits, optional K/M/G suffix. nullopt if not an integer at all.
std::optional<IntText> parse_int_text(std::string_view s) {
  IntText r;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    r.negative = s.front() == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t scale = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'k':
      case 'K':
        scale = uint64_t(1) << 10;
        break;
      case 'm':
      case 'M':
        scale = uint64_t(1) << 20;
        break;
      case 'g':
      case 'G':
        scale = uint64_t(1) << 30;
        break;
      default:
        break;
    }
    if (scale != 1) s.remove_suffix(1);
  }
  if (s.empty()) return std::nullopt;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, r.magnitude, base);
  if (ptr != end) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    r.overflow = true;
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  if (r.magnitude > std::numeric_limits<uint64_t>::max() / scale) r.overflow = true;
  r.magnitude *= scale;
  return r;
}

std::optional<std::string> parse_signed(Kind k, std::string_view s, Value& out) {
  auto t = parse_int_text(s);
  if (!t) return fmt::format("expected an integer, got '{}'", s);
  const bool is32 = k == Kind::kInt32;
  const uint64_t max_pos = is32 ? uint64_t(std::numeric_limits<int32_t>::max())
                                : uint64_t(std::numeric_limits<int64_t>::max());
  const uint64_t max_neg = max_pos + 1;
  if (t->overflow || t->magnitude > (t->negative ? max_neg : max_pos)) {
    return fmt::format(
        "must fit in {} ({}..{}), got '{}'", kind_name(k),
        is32 ? int64_t(std::numeric_limits<int32_t>::min()) : std::numeric_limits<int64_t>::min(),
        max_pos, s);
  }
  int64_t v = t->negative ? int64_t(0 - t->magnitude) : int64_t(t->magnitude);
  out = v;
  return std::nullopt;
}

std::optional<std::string> parse_unsigned(Kind k, std::string_view s, Value& out) {
  auto t = parse_int_text(s);
  if (!t || (t->negative && t->magnitude != 0))
    return fmt::format("expected an unsigned integer, got '{}'", s);
  const uint64_t max = k == Kind::kUInt32 ? uint64_t(std::numeric_limits<uint32_t>::max())
                                          : std::numeric_limits<uint64_t>::max();
  if (t->overflow || t->magnitude > max)
    return fmt::format("must fit in {} (0..{}), got '{}'", kind_name(k), max, s);
  out = t->magnitude;
  return std::nullopt;
}

std::optional<std::string> parse_double(std::string_view s, Value& out) {
  std::string_view body = s;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  double v = 0;
  const char* end = body.data() + body.size();
  auto [ptr, ec] = std::from_chars(body.data(), end, v);
  if (body.empty() || ptr != end || ec != std::errc() || !std::isfinite(v))
    return fmt::format("expected a number, got '{}'", s);
  out = v;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> parse_value(Kind k, std::string_view text, Value& out) {
  if (k == Kind::kString) {
    out = std::string(text);
    return std::nullopt;
  }
  std::string_view s = trim(text);
  switch (k) {
    case Kind::kBool: {
      auto b = parse_bool(s);
      if (!b) return fmt::format("expected a boolean (true/false/yes/no/1/0), got '{}'", s);
      out = *b;
      return std::nullopt;
    }
    case Kind::kInt32:
    case Kind::kInt64:
      return parse_signed(k, s, out);
    case Kind::kUInt32:
    case Kind::kUInt64:
      return parse_unsigned(k, s, out);
    case Kind::kDouble:
      return parse_double(s, out);
    case Kind::kString:
      break;
  }
  return std::nullopt;
}

std::string canonical_text(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, double>) {
          std::string s = fmt::format("{}", x);
          if (s.find_first_of(".en") == std::string::npos) s += ".0";
          return s;
        } else if constexpr (std::is_same_v<T, std::string>) {
          return x;
        } else {
          return fmt::format("{}", x);
        }
      },
      v);
}

std::string display_text(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return "'" + *s + "'";
  return canonical_text(v);
}

}  // namespace simtlab::config
