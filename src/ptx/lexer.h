// Hand-written PTX lexer. Produces tokens with 1-based line/column positions.
// Identifiers follow PTX ISA 4.4: [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+.
// `.name` tokens are directives/modifiers; `::` suffixes are folded into them
// (`.shared::cta`, `.L2::128B`). Numbers: decimal, 0x hex, 0b binary, octal, `0f`/`0F`
// (f32 bits) and `0d`/`0D` (f64 bits) hex floats, decimal floats. Comments are skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace simtlab::ptx {

enum class Tok : uint8_t { eof, ident, dot, integer, f32bits, f64bits, decfloat, string, punct };

struct Token {
  Tok kind = Tok::eof;
  std::string_view text;  // points into the source
  uint32_t line = 0, col = 0;
  uint64_t ival = 0;  // integer value / float bits
  double fval = 0;    // decimal float value
  bool is(char c) const { return kind == Tok::punct && text.size() == 1 && text[0] == c; }
};

class Lexer {
 public:
  Lexer(std::string_view src, std::string file);
  /// Tokenize the whole input. Throws DiagError on a malformed token.
  std::vector<Token> run();
  /// The text of 1-based line `n` (for diagnostics).
  std::string line_text(uint32_t n) const;
  [[noreturn]] void error(uint32_t line, uint32_t col, const std::string& msg) const;
  const std::string& file() const { return file_; }

 private:
  Token next();
  std::string_view src_;
  std::string file_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace simtlab::ptx
