// A PTX module loaded onto a device: the parsed IR (one or more linked translation units),
// device addresses of its .global/.const variables (allocated and initialized in global
// memory), and its kernels decoded on first use.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/types.h"
#include "func/program.h"
#include "ptx/ir.h"

namespace simtlab::func {

class GlobalMemory;

struct PtxSource {
  std::string text;
  std::string name;  // for diagnostics (e.g. "app:sm_75.ptx")
};

class LoadedModule {
 public:
  /// Parse and link the sources, allocate and initialize module variables. Throws
  /// DiagError/UserError on bad PTX or when global memory is exhausted.
  LoadedModule(GlobalMemory& mem, const std::vector<PtxSource>& sources,
               const std::function<void(ptx::Module&)>& pass = {});
  ~LoadedModule();
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;

  const ptx::Module& ir() const { return ir_; }
  /// The kernel named `name` (mangled), decoded on first use; nullptr if there is none.
  const Program* kernel(const std::string& name);
  std::vector<std::string> kernel_names() const;
  /// Device address and size of a module-scope .global/.const variable; {0,0} if unknown.
  std::pair<Addr, uint64_t> symbol(const std::string& name) const;
  /// Device address of variable `var` (Module::vars index), 0 when not allocated.
  Addr var_address(uint32_t var) const;
  /// Move module variable `name` to `addr` (e.g. host-visible memory for __managed__
  /// variables), copying its current contents. Must happen before its kernels are decoded.
  bool rebind(const std::string& name, Addr addr);

 private:
  GlobalMemory& mem_;
  ptx::Module ir_;
  std::unordered_map<uint32_t, Addr> var_addr_;
  std::vector<Addr> allocations_;
  std::map<std::string, std::unique_ptr<Program>> kernels_;
};

/// Decode kernel `func_index` of `m` (exposed for tests).
std::unique_ptr<Program> decode_kernel(const LoadedModule& m, uint32_t func_index);

}  // namespace simtlab::func
