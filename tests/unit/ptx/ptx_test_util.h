// Helpers shared by the PTX front-end tests (test_ptx_parser, test_ptx_fuzz).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "base/error.h"
#include "ptx/ir.h"
#include "ptx/parser.h"

namespace simtlab::ptx::testing {

/// The three module directives every test module starts with (lines 1-3).
inline constexpr const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

/// Parse `kHeader + body` as file "t.ptx".
inline Module parse(const std::string& body) {
  return parse_module(std::string(kHeader) + body, "t.ptx");
}

/// Parse a kernel `k` whose body (declarations and instructions) is `body`. The body starts
/// on line 6: lines 4-5 are `.visible .entry k(.param .u64 k_p)` and `{`.
inline Module parse_kernel(const std::string& body) {
  return parse(".visible .entry k(.param .u64 k_p)\n{\n" + body + "}\n");
}

inline const Function& fn(const Module& m, const std::string& name) {
  const Function* f = m.find_function(name);
  if (!f) throw std::runtime_error("no function " + name);
  return *f;
}

/// Index of the last register called `name` (scoped registers may shadow earlier ones).
inline uint32_t reg_id(const Function& f, const std::string& name) {
  for (size_t i = f.regs.size(); i-- > 0;)
    if (f.regs[i].name == name) return uint32_t(i);
  throw std::runtime_error("no register " + name);
}

/// The diagnostic a text produces: "line:col: message", or "no error".
inline std::string diag(const std::string& text, const std::string& file = "t.ptx") {
  try {
    parse_module(text, file);
  } catch (const DiagError& e) {
    return std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " + e.message();
  }
  return "no error";
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace simtlab::ptx::testing
