#include "ptx/lexer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace simtlab::ptx {

namespace {
bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

Lexer::Lexer(std::string_view src, std::string file) : src_(src), file_(std::move(file)) {}

std::string Lexer::line_text(uint32_t n) const {
  size_t p = 0;
  for (uint32_t l = 1; l < n && p < src_.size(); ++p)
    if (src_[p] == '\n') ++l;
  size_t e = src_.find('\n', p);
  if (e == std::string_view::npos) e = src_.size();
  std::string s(src_.substr(p, e - p));
  if (!s.empty() && s.back() == '\r') s.pop_back();
  // Keep diagnostics printable even for binary junk.
  for (char& c : s)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') ||
        static_cast<unsigned char>(c) >= 0x7f)
      c = '?';
  if (s.size() > 200) s = s.substr(0, 200) + "...";
  return s;
}

void Lexer::error(uint32_t line, uint32_t col, const std::string& msg) const {
  throw DiagError(SourceLoc{file_, line, col}, msg, line_text(line));
}

std::vector<Token> Lexer::run() {
  // PTX is plain text: a NUL byte anywhere (also in a comment or string) means the input is not
  // PTX (or was cut badly); report where it is rather than whatever token it happens to end.
  if (const size_t z = src_.find('\0'); z != std::string_view::npos) {
    const size_t nl = src_.rfind('\n', z);
    const size_t bol = nl == std::string_view::npos ? 0 : nl + 1;
    const auto line = uint32_t(1 + std::count(src_.begin(), src_.begin() + ptrdiff_t(bol), '\n'));
    error(line, uint32_t(z - bol + 1), "unexpected NUL byte (\\x00); PTX must be plain text");
  }
  std::vector<Token> out;
  out.reserve(src_.size() / 4 + 16);
  for (;;) {
    Token t = next();
    out.push_back(t);
    if (t.kind == Tok::eof) break;
  }
  return out;
}

Token Lexer::next() {
  // Skip whitespace and comments.
  for (;;) {
    if (pos_ >= src_.size()) break;
    char c = src_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '*') {
      uint32_t l0 = line_, c0 = uint32_t(pos_ - line_start_ + 1);
      pos_ += 2;
      for (;;) {
        if (pos_ + 1 >= src_.size()) error(l0, c0, "unterminated /* comment");
        if (src_[pos_] == '*' && src_[pos_ + 1] == '/') {
          pos_ += 2;
          break;
        }
        if (src_[pos_] == '\n') {
          ++line_;
          line_start_ = pos_ + 1;
        }
        ++pos_;
      }
    } else {
      break;
    }
  }
  Token t;
  t.line = line_;
  t.col = uint32_t(pos_ - line_start_ + 1);
  if (pos_ >= src_.size()) {
    t.kind = Tok::eof;
    return t;
  }
  const size_t start = pos_;
  const char c = src_[pos_];
  auto finish = [&](Tok k) {
    t.kind = k;
    t.text = src_.substr(start, pos_ - start);
    return t;
  };

  if (c == '.' && pos_ + 1 < src_.size() && ident_char(src_[pos_ + 1])) {
    ++pos_;
    while (pos_ < src_.size() && ident_char(src_[pos_])) ++pos_;
    // Fold `::qualifier` parts: .shared::cta, .L2::cache_hint, .L2::128B
    while (pos_ + 2 < src_.size() && src_[pos_] == ':' && src_[pos_ + 1] == ':' &&
           ident_char(src_[pos_ + 2])) {
      pos_ += 2;
      while (pos_ < src_.size() && ident_char(src_[pos_])) ++pos_;
    }
    return finish(Tok::dot);
  }
  if (ident_start(c)) {
    ++pos_;
    while (pos_ < src_.size() && ident_char(src_[pos_])) ++pos_;
    if (pos_ - start == 1 && (c == '%' || c == '$'))
      error(t.line, t.col, std::string("stray '") + c + "'");
    return finish(Tok::ident);
  }
  if (std::isdigit(static_cast<unsigned char>(c))) {
    // Hex float bit patterns: 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX
    if (c == '0' && pos_ + 1 < src_.size() &&
        (src_[pos_ + 1] == 'f' || src_[pos_ + 1] == 'F' || src_[pos_ + 1] == 'd' ||
         src_[pos_ + 1] == 'D')) {
      const bool dbl = src_[pos_ + 1] == 'd' || src_[pos_ + 1] == 'D';
      const size_t want = dbl ? 16 : 8;
      pos_ += 2;
      uint64_t v = 0;
      size_t n = 0;
      while (pos_ < src_.size() && hexval(src_[pos_]) >= 0) {
        v = (v << 4) | uint64_t(hexval(src_[pos_]));
        ++pos_;
        ++n;
      }
      if (n != want)
        error(t.line, t.col,
              dbl ? "f64 literal needs exactly 16 hex digits after 0d"
                  : "f32 literal needs exactly 8 hex digits after 0f");
      t.ival = v;
      return finish(dbl ? Tok::f64bits : Tok::f32bits);
    }
    if (c == '0' && pos_ + 1 < src_.size() && (src_[pos_ + 1] == 'x' || src_[pos_ + 1] == 'X')) {
      pos_ += 2;
      uint64_t v = 0;
      size_t n = 0;
      while (pos_ < src_.size() && hexval(src_[pos_]) >= 0) {
        if (n >= 16) error(t.line, t.col, "hex literal does not fit in 64 bits");
        v = (v << 4) | uint64_t(hexval(src_[pos_]));
        ++pos_;
        ++n;
      }
      if (n == 0) error(t.line, t.col, "hex literal without digits");
      if (pos_ < src_.size() && src_[pos_] == 'U') ++pos_;
      t.ival = v;
      return finish(Tok::integer);
    }
    if (c == '0' && pos_ + 1 < src_.size() && (src_[pos_ + 1] == 'b' || src_[pos_ + 1] == 'B')) {
      pos_ += 2;
      uint64_t v = 0;
      size_t n = 0;
      while (pos_ < src_.size() && (src_[pos_] == '0' || src_[pos_] == '1')) {
        if (n >= 64) error(t.line, t.col, "binary literal does not fit in 64 bits");
        v = (v << 1) | uint64_t(src_[pos_] - '0');
        ++pos_;
        ++n;
      }
      if (pos_ < src_.size() && src_[pos_] == 'U') ++pos_;
      t.ival = v;
      return finish(Tok::integer);
    }
    size_t p = pos_;
    while (p < src_.size() && std::isdigit(static_cast<unsigned char>(src_[p]))) ++p;
    if (p < src_.size() && (src_[p] == '.' || src_[p] == 'e' || src_[p] == 'E') &&
        !(src_[p] == '.' && p + 1 < src_.size() &&
          std::isalpha(static_cast<unsigned char>(src_[p + 1])))) {
      // Decimal float: digits [. digits] [e[+-]digits]
      if (src_[p] == '.') {
        ++p;
        while (p < src_.size() && std::isdigit(static_cast<unsigned char>(src_[p]))) ++p;
      }
      if (p < src_.size() && (src_[p] == 'e' || src_[p] == 'E')) {
        ++p;
        if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
        if (p >= src_.size() || !std::isdigit(static_cast<unsigned char>(src_[p])))
          error(t.line, t.col, "malformed floating-point exponent");
        while (p < src_.size() && std::isdigit(static_cast<unsigned char>(src_[p]))) ++p;
      }
      std::string s(src_.substr(pos_, p - pos_));
      t.fval = std::strtod(s.c_str(), nullptr);
      pos_ = p;
      return finish(Tok::decfloat);
    }
    // Decimal or octal integer.
    const bool octal = c == '0' && p - pos_ > 1;
    uint64_t v = 0;
    for (size_t i = pos_; i < p; ++i) {
      const unsigned d = unsigned(src_[i] - '0');
      if (octal && d > 7) error(t.line, t.col, "invalid digit in octal literal");
      const uint64_t base = octal ? 8 : 10;
      if (v > (~uint64_t(0) - d) / base)
        error(t.line, t.col, "integer literal does not fit in 64 bits");
      v = v * base + d;
    }
    pos_ = p;
    if (pos_ < src_.size() && src_[pos_] == 'U') ++pos_;
    t.ival = v;
    return finish(Tok::integer);
  }
  if (c == '"') {
    ++pos_;
    while (pos_ < src_.size() && src_[pos_] != '"' && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && pos_ + 1 < src_.size()) ++pos_;
      ++pos_;
    }
    if (pos_ >= src_.size() || src_[pos_] != '"') error(t.line, t.col, "unterminated string");
    ++pos_;
    return finish(Tok::string);
  }
  if (c == ':' && pos_ + 1 < src_.size() && src_[pos_ + 1] == ':') {
    pos_ += 2;
    return finish(Tok::punct);
  }
  static constexpr std::string_view puncts = ",;:{}[]()+-!@<>=|*/~&^?";
  if (puncts.find(c) != std::string_view::npos) {
    ++pos_;
    return finish(Tok::punct);
  }
  auto non_text = [](char ch) {
    const auto u = static_cast<unsigned char>(ch);
    return (u < 0x20 && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\f' && ch != '\v') ||
           u >= 0x7f;
  };
  if (non_text(c))
    error(t.line, t.col,
          fmt::format("unexpected byte 0x{:02x} (not PTX text)", static_cast<unsigned char>(c)));
  // `.` followed by a binary byte: name the byte (at its own column), not the dot.
  if (c == '.' && pos_ + 1 < src_.size() && non_text(src_[pos_ + 1]))
    error(t.line, t.col + 1,
          fmt::format("unexpected byte 0x{:02x} (not PTX text)",
                      static_cast<unsigned char>(src_[pos_ + 1])));
  error(t.line, t.col, fmt::format("unexpected character '{}'", c));
}

}  // namespace simtlab::ptx
