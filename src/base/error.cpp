#include "base/error.h"

#include <cstdio>
#include <cstdlib>

namespace simtlab {

std::string SourceLoc::str() const {
  return fmt::format("{}:{}:{}", file.empty() ? "<input>" : file, line, col);
}

static std::string format_diag(const SourceLoc& loc, const std::string& msg,
                               const std::string& line_text) {
  std::string out = fmt::format("{}: error: {}", loc.str(), msg);
  if (!line_text.empty()) {
    out += "\n  " + line_text + "\n  ";
    for (uint32_t i = 1; i < loc.col && i <= line_text.size(); ++i)
      out += line_text[i - 1] == '\t' ? '\t' : ' ';
    out += '^';
  }
  return out;
}

DiagError::DiagError(SourceLoc loc, const std::string& msg, const std::string& line_text)
    : UserError(format_diag(loc, msg, line_text)), loc_(std::move(loc)), msg_(msg) {}

void panic(const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "simtlab internal error (a bug in simtlab) at %s:%d: %s\n", file, line,
               msg.c_str());
  std::abort();
}

}  // namespace simtlab
