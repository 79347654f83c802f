// Compiler last-use bits for the register-file cache, on the decoded program: per PC, bit k set
// when DInst::src[k] names a register that the instruction reads for the last time (static
// liveness over the PTX CFG, ptx::last_uses: live after the instruction on no path).
#pragma once

#include <cstdint>
#include <vector>

#include "func/program.h"

namespace simtlab::ext {

/// Built once per program and kept in Program::last_use.
const std::vector<uint8_t>& last_use_masks(const func::Program& p);

}  // namespace simtlab::ext
