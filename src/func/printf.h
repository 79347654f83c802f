// Device printf (vprintf) formatting. The argument buffer follows the CUDA device ABI: each
// argument is stored at the next offset aligned to its size; integers narrower than int are
// promoted to 4 bytes, float to double (8), pointers and long/long long are 8 bytes
// (CUDA Programming Guide, "Formatted Output").
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace simtlab::func {

/// Format `fmt` reading arguments through `read_arg(offset, dst, size)` and strings through
/// `read_str(pointer)`. `*nargs` receives the number of arguments consumed.
std::string format_device_printf(const std::string& fmt,
                                 const std::function<void(uint64_t, void*, uint32_t)>& read_arg,
                                 const std::function<std::string(uint64_t)>& read_str, int* nargs);

}  // namespace simtlab::func
