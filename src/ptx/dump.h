// Human-readable views of the IR: the `simtlab ptx check` summary, the CFG listing/DOT graph
// of `simtlab ptx cfg`, and a canonical instruction dump used by golden tests.
#pragma once

#include <string>

#include "ptx/ir.h"

namespace simtlab::ptx {

std::string describe_module(const Module& m);
std::string dump_cfg(const Module& m, const Function& f, bool dot);
std::string dump_operand(const Module& m, const Function& f, const Instruction& in,
                         const Operand& o);
std::string dump_instruction(const Module& m, const Function& f, const Instruction& in);
std::string dump_function(const Module& m, const Function& f);

}  // namespace simtlab::ptx
