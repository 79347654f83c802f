// Recursive-descent PTX parser (PTX ISA up to 9.0, what CUDA 13 emits).
//
// Contract:
//  - parse_module() turns PTX text into a Module with every operand decoded and type-checked,
//    labels resolved, and CFG/IPDOM analyses run (cfg.h).
//  - Any syntax or semantic error throws DiagError "file:line:col: error: ..." with the
//    offending line and a caret. The parser never crashes, asserts or loops forever on bad
//    input (fuzzed in tests/unit/ptx/parser_fuzz_test.cpp).
//  - Several translation units (nvcc -rdc=true) are linked by parsing them into one Module with
//    add_translation_unit(): `.extern` declarations bind to `.visible`/`.weak` definitions in
//    other units; non-visible module symbols stay private to their unit.
#pragma once

#include <string>
#include <string_view>

#include "ptx/ir.h"

namespace simtlab::ptx {

/// Parse one PTX module. `file` names the source in diagnostics.
Module parse_module(std::string text, std::string file = "<ptx>");

/// Parse another translation unit into `m` (linking by name as described above).
void add_translation_unit(Module& m, std::string text, std::string file);

/// Check cross-unit consistency after all units are added: every called function is defined
/// or a known device-runtime builtin (vprintf, malloc, free, __assertfail, ...).
void finalize_module(Module& m);

/// Names of the device-runtime functions the executor implements itself.
bool is_builtin_function(std::string_view name);

}  // namespace simtlab::ptx
