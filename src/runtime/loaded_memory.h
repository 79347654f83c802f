// Where a pointer handed to the runtime lies in the process's memory: how many bytes can be read
// from it. Used to bound the fatbin reader at registration (__cudaRegisterFatBinary passes only a
// pointer; a corrupt size field must not make us read past the program's data).
#pragma once

#include <cstddef>

namespace simtlab::runtime {

/// Bytes readable from `p` onwards: up to the end of the loaded ELF segment (PT_LOAD of the
/// executable or a shared object, via dl_iterate_phdr) that contains it; otherwise up to the
/// end of the run of adjacent readable mappings in /proc/self/maps that contains it (heap,
/// mmap'ed data); 0 when `p` is null or not in readable memory.
size_t readable_bytes_at(const void* p);

}  // namespace simtlab::runtime
