// A small, bounds-checked, read-only ELF64 little-endian reader, used for two kinds of input:
//  - host executables / shared objects (find the `.nv_fatbin` and `__nv_relfatbin` sections);
//  - CUDA cubins (e_machine EM_CUDA = 190) embedded in fatbins (sections, symbols, `.nv.info`).
// Layout constants come from the system <elf.h>. The `.nv.info` attribute (EIATTR) record format
// is documented in fatbin.h next to cubin_kernels().
//
// Contract: the Reader does not own the bytes; every offset and size read from the file is checked
// against the buffer, and anything malformed throws simtlab::UserError naming the input, the
// structure and the offset. Nothing here trusts the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace simtlab::ptx::elf {

inline constexpr uint16_t kMachineCuda = 190;  // EM_CUDA

struct Section {
  uint32_t index = 0;
  std::string name;
  uint32_t type = 0;  // SHT_*
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t addralign = 0, entsize = 0;
};

struct Symbol {
  uint32_t index = 0;
  std::string name;
  uint8_t info = 0, other = 0;
  uint16_t shndx = 0;
  uint64_t value = 0, size = 0;
  uint8_t type() const { return info & 0xf; }  // STT_*
  uint8_t bind() const { return info >> 4; }   // STB_*
};

class Reader {
 public:
  /// Parses the ELF header and section table of [data, data+size). `what` names the input in
  /// error messages (e.g. "cubin", "host binary 'a.out'"). Throws UserError if malformed.
  Reader(const uint8_t* data, size_t size, std::string what);

  uint16_t type() const { return type_; }        // ET_*
  uint16_t machine() const { return machine_; }  // EM_*
  uint32_t flags() const { return flags_; }
  uint8_t osabi() const { return osabi_; }
  const std::string& what() const { return what_; }

  const std::vector<Section>& sections() const { return sections_; }
  /// First section with this name, or nullptr.
  const Section* find(std::string_view name) const;
  /// The bytes of a section (empty for SHT_NOBITS). Throws if the section lies outside the file.
  std::span<const uint8_t> contents(const Section& s) const;
  /// Symbols of the section with type SHT_SYMTAB (empty if there is none), names resolved
  /// through its linked string table.
  std::vector<Symbol> symbols() const;

 private:
  std::string str_at(const Section& strtab, uint64_t off, const char* ctx) const;

  const uint8_t* data_;
  size_t size_;
  std::string what_;
  uint16_t type_ = 0, machine_ = 0;
  uint32_t flags_ = 0;
  uint8_t osabi_ = 0;
  std::vector<Section> sections_;
};

/// True if the buffer starts with the ELF magic.
bool is_elf(const uint8_t* data, size_t size);

}  // namespace simtlab::ptx::elf
