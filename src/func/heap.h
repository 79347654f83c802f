// Device-side malloc/free heap (CUDA's cudaLimitMallocHeapSize, default 8 MiB per the CUDA
// Programming Guide, "Dynamic Global Memory Allocation"). Allocations come from global memory,
// so they are checked like any other allocation.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "func/memory.h"

namespace simtlab::func {

class DeviceHeap {
 public:
  explicit DeviceHeap(GlobalMemory& g) : g_(g) {}
  /// 0 when the heap limit would be exceeded (as CUDA's malloc returns NULL).
  uint64_t malloc(uint64_t size) {
    if (size > limit_ || used_ + size > limit_) return 0;
    const Addr a = g_.allocate(size ? size : 1, AllocKind::heap, "device malloc");
    if (!a) return 0;
    sizes_[a] = size;
    used_ += size;
    return a;
  }
  bool free(uint64_t a) {
    auto it = sizes_.find(a);
    if (it == sizes_.end()) return false;
    used_ -= it->second;
    sizes_.erase(it);
    g_.release(a);
    return true;
  }
  void set_limit(uint64_t bytes) { limit_ = bytes; }
  /// Forget every allocation (their memory was released with the rest of device memory).
  void clear() {
    sizes_.clear();
    used_ = 0;
  }
  uint64_t limit() const { return limit_; }

 private:
  GlobalMemory& g_;
  uint64_t limit_ = uint64_t(8) << 20;
  uint64_t used_ = 0;
  std::unordered_map<uint64_t, uint64_t> sizes_;
};

}  // namespace simtlab::func
