// Byte layouts the PTX module implies for one kernel: its parameter buffer, its static shared
// memory (the `.shared` variables of the kernel and of every function it can call, plus the
// module-scope `.shared` variables any of them references, in ptxas's order; the total is what
// `ptxas -v` reports as "smem"), and its local frame. Dynamic shared memory
// (`.extern .shared x[]`) starts right after the static part, which is then rounded up to
// max(16, largest `.extern .shared` alignment in the module), as ptxas does.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ptx/ir.h"

namespace simtlab::ptx {

/// Bounds on static sizes, in bytes. Sizes are computed in 64 bits and anything larger is
/// rejected with a file:line:col diagnostic, so no layout offset can wrap at 32 bits:
///  - kMaxStaticBytes: one `.shared`, `.local`, `.const` or `.param` variable; the static shared
///    memory of one kernel; the local frame of one function. Far above real hardware (at most
///    228 KiB of shared memory per SM, 512 KiB of local memory per thread, a 64 KiB constant
///    bank), so only sizes that cannot be real are refused. (`.global` variables may be larger;
///    allocating them reports running out of device memory.)
///  - kMaxKernelParamBytes: a kernel's parameter space, ptxas's limit ("uses too much parameter
///    space (..., 0x7ffc max)").
inline constexpr uint64_t kMaxStaticBytes = uint64_t(16) << 20;
inline constexpr uint64_t kMaxKernelParamBytes = 0x7ffc;

struct ParamField {
  std::string name;
  uint32_t var = 0;     // Module::vars index
  uint32_t offset = 0;  // byte offset in the parameter buffer
  uint32_t size = 0;
  uint32_t align = 1;
  Type type = Type::b8;
  bool is_pointer_like = false;  // .u64/.b64/.s64 scalar (may hold a device pointer)
};

struct KernelLayout {
  std::vector<ParamField> params;
  uint32_t param_bytes = 0;
  uint32_t static_shared = 0;                            // bytes, incl. alignment padding
  uint32_t dynamic_shared_align = 0;                     // 0 = kernel uses no dynamic shared memory
  std::unordered_map<uint32_t, uint32_t> shared_offset;  // var index -> byte offset
  std::vector<uint32_t> functions;  // this kernel and every function it can call
  bool has_indirect_calls = false;
  bool recursive = false;
};

/// Layout of a function's parameter list (kernel params or .func params/returns).
std::vector<ParamField> layout_params(const Module& m, const std::vector<uint32_t>& vars,
                                      uint32_t* total_bytes);

/// Throws DiagError (at the kernel) when its static shared memory exceeds kMaxStaticBytes.
KernelLayout layout_kernel(const Module& m, uint32_t func_index);

/// Per-function local frame: `.local` variables and `.param` variables declared in the
/// body (call argument blocks), each at a byte offset inside the frame.
struct FrameLayout {
  uint32_t bytes = 0;
  uint32_t align = 16;
  std::unordered_map<uint32_t, uint32_t> offset;  // var index -> offset in frame
};
/// Throws DiagError (at the function) when the frame exceeds kMaxStaticBytes.
FrameLayout layout_frame(const Module& m, uint32_t func_index);

}  // namespace simtlab::ptx
