#include "runtime/loaded_memory.h"

#include <link.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>

namespace simtlab::runtime {

namespace {

struct SegmentQuery {
  uintptr_t addr = 0;
  size_t bytes = 0;
  bool found = false;
};

int find_segment(struct dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<SegmentQuery*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_R)) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    const uintptr_t end = begin + ph.p_memsz;
    if (q->addr >= begin && q->addr < end) {
      q->bytes = end - q->addr;
      q->found = true;
      return 1;
    }
  }
  return 0;
}

/// The readable run of /proc/self/maps mappings that contains `addr`.
size_t from_proc_maps(uintptr_t addr) {
  std::FILE* f = std::fopen("/proc/self/maps", "re");
  if (!f) return 0;
  uintptr_t run_end = 0;  // end of the readable run containing addr, once found
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    uintptr_t lo = 0, hi = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &lo, &hi, perms) != 3) continue;
    const bool readable = perms[0] == 'r';
    if (run_end) {
      if (lo == run_end && readable) {
        run_end = hi;  // the next mapping continues the run
        continue;
      }
      break;
    }
    if (addr >= lo && addr < hi) {
      if (!readable) break;
      run_end = hi;
    }
  }
  std::fclose(f);
  return run_end ? size_t(run_end - addr) : 0;
}

}  // namespace

size_t readable_bytes_at(const void* p) {
  if (!p) return 0;
  SegmentQuery q;
  q.addr = reinterpret_cast<uintptr_t>(p);
  dl_iterate_phdr(find_segment, &q);
  if (q.found) return q.bytes;
  return from_proc_maps(q.addr);
}

}  // namespace simtlab::runtime
