// Errors and diagnostics.
//  - UserError: the user's bad input (PTX syntax, config key, CUDA API misuse). Caught at the
//    tool/runtime boundary and printed; never a crash.
//  - GuestError: the simulated program misbehaved (out-of-bounds access, trap, deadlock).
//    Reported like a sanitizer: kernel, block, thread, PC, PTX line, address.
//  - SIMTLAB_ASSERT / panic: a broken invariant inside simtlab itself (a bug in simtlab).
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace simtlab {

/// A position in a source text (1-based line and column). `file` may be empty.
struct SourceLoc {
  std::string file;
  uint32_t line = 0;
  uint32_t col = 0;
  std::string str() const;
};

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& msg) : std::runtime_error(msg) {}
};

/// A diagnostic about a text input: formats as `file:line:col: error: msg` followed by the
/// offending line and a caret under the column.
class DiagError : public UserError {
 public:
  DiagError(SourceLoc loc, const std::string& msg, const std::string& line_text);
  const SourceLoc& loc() const { return loc_; }
  const std::string& message() const { return msg_; }

 private:
  SourceLoc loc_;
  std::string msg_;
};

class GuestError : public std::runtime_error {
 public:
  explicit GuestError(const std::string& msg) : std::runtime_error(msg) {}
};

/// A device-side assert() failed (CUDA reports cudaErrorAssert).
class GuestAssert : public GuestError {
 public:
  explicit GuestAssert(const std::string& msg) : GuestError(msg) {}
};

/// A barrier or wait that can never complete: the kernel would hang on hardware.
class GuestDeadlock : public GuestError {
 public:
  explicit GuestDeadlock(const std::string& msg) : GuestError(msg) {}
};

/// A kernel that would run forever (every running warp repeats a loop without changing memory)
/// or exceeded a per-kernel cycle/instruction limit. CUDA's answer to a kernel stopped by the
/// watchdog is cudaErrorLaunchTimeout.
class GuestTimeout : public GuestError {
 public:
  explicit GuestTimeout(const std::string& msg) : GuestError(msg) {}
};

/// The run was interrupted by a signal (SIGINT/SIGTERM) while simulating; engines throw it from
/// their main loops when interrupt_pending() (base/interrupt.h) is set.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int sig) : std::runtime_error("interrupted"), sig_(sig) {}
  int signal() const { return sig_; }

 private:
  int sig_;
};

[[noreturn]] void panic(const char* file, int line, const std::string& msg);

template <typename... Args>
[[noreturn]] void fatal(fmt::format_string<Args...> f, Args&&... args) {
  throw UserError(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace simtlab

#define SIMTLAB_ASSERT(cond, ...)                                                       \
  do {                                                                                  \
    if (!(cond)) [[unlikely]]                                                           \
      ::simtlab::panic(__FILE__, __LINE__, "assertion failed: " #cond " " __VA_ARGS__); \
  } while (0)
