// Placeholder used only until the floating-point handlers land.
#include "func/exec_common.h"
namespace simtlab::func {
Handler select_float(const ptx::Instruction&) { return nullptr; }
Handler select_cvt(const ptx::Instruction&) { return nullptr; }
}  // namespace simtlab::func
