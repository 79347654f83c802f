// What the fatbin fuzzers (tests/unit/ptx/fatbin_fuzz_test.cpp, fatbin_libfuzzer.cpp) run on one
// input: everything the runtime and `simtlab` run on a fatbin or host binary. Only
// simtlab::UserError may escape a step; each step catches it so that later steps still run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "base/error.h"
#include "ptx/fatbin.h"

namespace simtlab::ptx::fatbin::fuzz {

/// Readable memory for from_registration(): exactly the listed buffers.
struct Regions {
  std::vector<std::pair<const void*, size_t>> bufs;
  size_t operator()(const void* p) const {
    const auto a = reinterpret_cast<uintptr_t>(p);
    for (const auto& [b, n] : bufs) {
      const auto s = reinterpret_cast<uintptr_t>(b);
      if (a >= s && a < s + n) return size_t(s + n - a);
    }
    return 0;
  }
};

struct Counts {
  size_t ok = 0, rejected = 0;  // steps that succeeded / threw UserError
};

template <typename F>
void step(Counts& c, F&& f) {
  try {
    f();
    ++c.ok;
  } catch (const UserError&) {
    ++c.rejected;
  }
}

inline void use_entries(const std::vector<Entry>& es, Counts& c) {
  for (const Entry& e : es)
    if (e.kind == EntryKind::Elf) step(c, [&] { (void)cubin_kernels(e.image); });
  step(c, [&] { (void)select_ptx(es, 90); });
}

/// Runs every reader entry point on [data, data+len). `data` should be an exactly sized heap
/// copy so that AddressSanitizer sees any read past its end.
inline Counts exercise(const uint8_t* data, size_t len) {
  Counts c;
  // Offline: concatenated containers (objcopy'd .nv_fatbin), host binaries and bare cubins.
  step(c, [&] { use_entries(parse(data, len), c); });
  step(c, [&] { use_entries(from_host_image(std::span<const uint8_t>(data, len), "fuzz"), c); });
  if (len == 0) return c;

  // Registration: only pointers are known; every read must stay inside `data` and the wrappers.
  struct Wrapper {
    int32_t magic, version;
    const void* data;
    const void* field;
  };
  static_assert(sizeof(Wrapper) == 24);
  // Containers start at 8-byte aligned offsets; take the first few that carry the magic.
  std::vector<const uint8_t*> starts;
  for (size_t off = 0; off + 4 <= len && starts.size() < 4; off += 8) {
    uint32_t m;
    std::memcpy(&m, data + off, 4);
    if (m == kContainerMagic) starts.push_back(data + off);
  }
  if (starts.empty()) starts.push_back(data);
  std::vector<const void*> list(starts.begin() + 1, starts.end());
  list.push_back(nullptr);
  Wrapper v1{int32_t(kWrapperMagic), 1, starts[0], nullptr};
  Wrapper v2{int32_t(kWrapperMagic), 2, starts[0], list.data()};
  const Regions mem{{{data, len},
                     {&v1, sizeof v1},
                     {&v2, sizeof v2},
                     {list.data(), list.size() * sizeof(void*)}}};
  step(c, [&] { use_entries(from_registration(&v1, mem), c); });
  step(c, [&] { use_entries(from_registration(&v2, mem), c); });
  // The pointer itself may be a bare container or a wrapper inside the data.
  step(c, [&] { use_entries(from_registration(data, mem), c); });
  return c;
}

}  // namespace simtlab::ptx::fatbin::fuzz
