#include "func/memory.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "base/bits.h"

namespace simtlab::func {

namespace {
constexpr uint64_t kMmapThreshold = 1 << 20;

uint8_t* backing_alloc(uint64_t size) {
  if (size >= kMmapThreshold) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
  }
  return static_cast<uint8_t*>(std::calloc(1, size ? size : 1));
}

void backing_free(uint8_t* p, uint64_t size) {
  if (!p) return;
  if (size >= kMmapThreshold)
    munmap(p, size);
  else
    std::free(p);
}
}  // namespace

GlobalMemory::GlobalMemory() = default;

GlobalMemory::~GlobalMemory() {
  for (auto& [b, a] : allocs_)
    if (a.owned) backing_free(a.data, align_up(a.size ? a.size : 1, kAllocAlign));
}

Addr GlobalMemory::allocate(uint64_t size, AllocKind kind, std::string label) {
  if (size > capacity_) return 0;  // also keeps the rounding below from wrapping
  const uint64_t rounded = align_up(size ? size : 1, kAllocAlign);
  if (in_use_ + rounded > capacity_) return 0;
  if (next_ + rounded + kAllocAlign > kGlobalEnd) return 0;
  Allocation a;
  a.base = next_;
  a.size = size;
  a.kind = kind;
  a.label = std::move(label);
  a.data = backing_alloc(rounded);
  if (!a.data) return 0;
  // Leave a gap (one alignment unit) between allocations so off-by-one overruns are caught
  // instead of landing in the neighbour.
  next_ += rounded + kAllocAlign;
  in_use_ += rounded;
  const Addr base = a.base;
  allocs_.emplace(base, std::move(a));
  last_ = nullptr;
  return base;
}

Addr GlobalMemory::map_host(void* p, uint64_t size, AllocKind kind, std::string label) {
  Allocation a;
  a.base = reinterpret_cast<Addr>(p);
  a.size = size;
  a.kind = kind;
  a.label = std::move(label);
  a.data = static_cast<uint8_t*>(p);
  a.owned = false;
  a.alias = next_alias_ + (reinterpret_cast<Addr>(p) & (kAllocAlign - 1));
  next_alias_ += align_up(size ? size : 1, kAllocAlign) + kAllocAlign;
  allocs_[a.base] = std::move(a);
  last_ = nullptr;
  return reinterpret_cast<Addr>(p);
}

bool GlobalMemory::release(Addr base) {
  auto it = allocs_.find(base);
  if (it == allocs_.end()) return false;
  if (!it->second.owned) {
    allocs_.erase(it);
    last_ = nullptr;
    return true;
  }
  in_use_ -= align_up(it->second.size ? it->second.size : 1, kAllocAlign);
  backing_free(it->second.data, align_up(it->second.size ? it->second.size : 1, kAllocAlign));
  allocs_.erase(it);
  last_ = nullptr;
  return true;
}

const Allocation* GlobalMemory::find(Addr addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  const Allocation& a = it->second;
  if (addr >= a.base && addr < a.base + std::max<uint64_t>(a.size, 1)) return &a;
  return nullptr;
}

uint8_t* GlobalMemory::translate_slow(Addr addr, uint64_t size) {
  const Allocation* a = find(addr);
  if (!a) return nullptr;
  if (addr + size > a->base + a->size || addr + size < addr) return nullptr;
  last_ = a;
  return a->data + (addr - a->base);
}

std::string GlobalMemory::describe(Addr addr) const {
  if (const Allocation* a = find(addr))
    return fmt::format("{} bytes into a {}-byte allocation at {:#x}{}", addr - a->base, a->size,
                       a->base, a->label.empty() ? "" : " ('" + a->label + "')");
  if (addr < kGlobalBase || addr >= kGlobalEnd) {
    if (addr - kSharedWindow < 3 * kWindowSize)
      return "a generic shared/local/param-window address, not global memory";
    return "not a device address (a host pointer that was never registered with the device?)";
  }
  auto it = allocs_.upper_bound(addr);
  std::string s = "not inside any live allocation";
  if (it != allocs_.begin()) {
    auto p = std::prev(it);
    s += fmt::format("; {} bytes past the end of the {}-byte allocation at {:#x}{}",
                     addr - (p->second.base + p->second.size), p->second.size, p->second.base,
                     p->second.label.empty() ? "" : " ('" + p->second.label + "')");
  } else if (it != allocs_.end()) {
    s += fmt::format("; {} bytes before the allocation at {:#x}", it->second.base - addr,
                     it->second.base);
  }
  return s;
}

}  // namespace simtlab::func
