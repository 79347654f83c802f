// Simulated device memory for the functional model.
//
// Address map of the generic 64-bit address space (PTX ISA 6.4 "generic addressing"):
//   [kGlobalBase, kGlobalEnd)      global memory: cudaMalloc, module .global/.const variables,
//                                  device malloc heap. Every access is checked against the
//                                  allocation map (bounds and liveness).
//   [kSharedWindow, +4 GiB)        generic window onto the CTA's shared memory
//   [kLocalWindow,  +4 GiB)        generic window onto the thread's local memory
//   [kParamWindow,  +4 GiB)        generic window onto the kernel parameter buffer
// `.const` variables live in global memory, so a const-space address equals its global
// address (cudaGetSymbolAddress works on them, and cvta.const is the identity).
// Each allocation is backed by its own host mapping (mmap'd anonymous memory for large ones,
// so untouched pages cost nothing: the memory is sparse at page granularity).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/types.h"

namespace simtlab::func {

// The device range sits where Linux never places host mappings by default (between the
// executable/heap at ~0x55.. and mmap/stack at ~0x7f..), so device and host pointers are
// distinguishable (unified virtual addressing for cudaMemcpyDefault).
inline constexpr Addr kGlobalBase = 0x0000'0200'0000'0000ull;
inline constexpr Addr kGlobalEnd = 0x0000'0300'0000'0000ull;
inline constexpr Addr kSharedWindow = 0x0000'0300'0000'0000ull;
inline constexpr Addr kLocalWindow = 0x0000'0301'0000'0000ull;
inline constexpr Addr kParamWindow = 0x0000'0302'0000'0000ull;
/// Timing aliases of host-mapped allocations (see GlobalMemory::timing_address).
inline constexpr Addr kHostAliasBase = 0x0000'0310'0000'0000ull;
inline constexpr Addr kWindowSize = 0x1'0000'0000ull;
/// shared::cluster addresses (sm_90 distributed shared memory). A 32-bit shared-space address
/// below kClusterSharedBit is a shared::cta address (this CTA's shared memory, contained in the
/// shared::cluster window, PTX ISA 5.1.4); one with the bit set names the shared memory of the
/// CTA of rank (a >> kClusterRankShift) & kClusterRankMask in the cluster, at offset
/// a & kClusterOffsetMask. `mapa` produces them; generic addresses are kSharedWindow + that
/// 32-bit address, so cvta between generic and shared::cluster stays a subtraction.
inline constexpr uint32_t kClusterSharedBit = 0x8000'0000u;
inline constexpr uint32_t kClusterRankShift = 24;
inline constexpr uint32_t kClusterRankMask = 0x7f;
inline constexpr uint32_t kClusterOffsetMask = 0x00ff'ffffu;
/// cudaMalloc alignment (CUDA guarantees at least 256 bytes).
inline constexpr uint64_t kAllocAlign = 256;

enum class AllocKind : uint8_t { device, managed, module_global, module_const, heap, host_mapped };

struct Allocation {
  Addr base = 0;
  uint64_t size = 0;
  AllocKind kind = AllocKind::device;
  uint8_t* data = nullptr;  // host backing
  bool owned = true;        // false for host memory mapped with map_host()
  Addr alias = 0;           // host-mapped memory: a deterministic device-range address the timing
                            // model uses instead of the (run-dependent) host address
  std::string label;        // symbol name for module variables
};

class GlobalMemory {
 public:
  GlobalMemory();
  ~GlobalMemory();
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;

  /// Allocate `size` bytes (zero-filled). Returns 0 if the capacity would be exceeded.
  Addr allocate(uint64_t size, AllocKind kind, std::string label = {});
  /// Make host memory [p, p+size) device-accessible at device address == host address
  /// (managed memory, mapped pinned memory, __managed__ variables). The caller owns `p`.
  Addr map_host(void* p, uint64_t size, AllocKind kind, std::string label = {});
  /// Free an allocation by its base address. Returns false if `base` is not a live base.
  bool release(Addr base);
  /// Free every allocation (host mappings are forgotten; their owners free the memory) except
  /// those `keep` accepts. Addresses are never handed out again, so pointers into the freed
  /// allocations stay invalid (cudaDeviceReset).
  template <typename Keep>
  void release_all(Keep keep) {
    for (auto it = allocs_.begin(); it != allocs_.end();) {
      if (keep(it->second)) {
        ++it;
      } else {
        const Addr base = (it++)->first;
        release(base);
      }
    }
  }
  /// Host pointer for [addr, addr+size) if it lies entirely inside one live allocation.
  uint8_t* translate(Addr addr, uint64_t size) {
    if (last_ && addr >= last_->base && addr + size <= last_->base + last_->size &&
        addr + size >= addr)
      return last_->data + (addr - last_->base);
    return translate_slow(addr, size);
  }
  const Allocation* find(Addr addr) const;
  /// The address the timing model should use for `addr`: itself, except inside host-mapped
  /// memory, whose host addresses change from run to run (ASLR) and are replaced by the
  /// allocation's deterministic alias so timing does not depend on them.
  Addr timing_address(Addr addr) const {
    if (addr >= kGlobalBase && addr < kGlobalEnd) return addr;
    const Allocation* a = find(addr);
    return a && a->alias ? a->alias + (addr - a->base) : addr;
  }
  uint64_t bytes_in_use() const { return in_use_; }
  /// Memory-writing instructions executed on the device (stores, atomics, reductions, surface
  /// writes, calls of device-runtime functions), counted by the executor. Livelock detection
  /// compares it across time: a loop is only endless if nothing wrote memory meanwhile.
  uint64_t write_epoch = 0;
  void set_capacity(uint64_t bytes) { capacity_ = bytes; }
  uint64_t capacity() const { return capacity_; }
  /// Describe the neighbourhood of a bad address (for sanitizer-style reports).
  std::string describe(Addr addr) const;

 private:
  uint8_t* translate_slow(Addr addr, uint64_t size);
  std::map<Addr, Allocation> allocs_;
  const Allocation* last_ = nullptr;
  Addr next_ = kGlobalBase;
  Addr next_alias_ = kHostAliasBase;
  uint64_t in_use_ = 0;
  uint64_t capacity_ = uint64_t(4) << 30;  // 4 GiB default; the GPU preset sets it
};

}  // namespace simtlab::func
