#include "ptx/elf_reader.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

#include "base/error.h"

namespace simtlab::ptx::elf {

namespace {

// Reads a trivially copyable struct at `off`, checking that it lies inside the buffer.
template <typename T>
T read_struct(const uint8_t* data, size_t size, uint64_t off, const std::string& what,
              const char* ctx) {
  if (off > size || size - off < sizeof(T))
    fatal("{}: truncated {} at offset {:#x} (need {} bytes, file has {})", what, ctx, off,
          sizeof(T), size);
  T t;
  std::memcpy(&t, data + off, sizeof(T));
  return t;
}

}  // namespace

bool is_elf(const uint8_t* data, size_t size) {
  return size >= 4 && std::memcmp(data, ELFMAG, SELFMAG) == 0;
}

Reader::Reader(const uint8_t* data, size_t size, std::string what)
    : data_(data), size_(size), what_(std::move(what)) {
  if (!data_ && size_) fatal("{}: null buffer", what_);
  if (!is_elf(data_, size_)) fatal("{}: not an ELF file (bad magic)", what_);
  if (size_ < EI_NIDENT) fatal("{}: truncated ELF identification", what_);
  if (data_[EI_CLASS] != ELFCLASS64)
    fatal("{}: only 64-bit ELF files are supported (EI_CLASS={})", what_, data_[EI_CLASS]);
  if (data_[EI_DATA] != ELFDATA2LSB)
    fatal("{}: only little-endian ELF files are supported (EI_DATA={})", what_, data_[EI_DATA]);
  auto eh = read_struct<Elf64_Ehdr>(data_, size_, 0, what_, "ELF header");
  type_ = eh.e_type;
  machine_ = eh.e_machine;
  flags_ = eh.e_flags;
  osabi_ = eh.e_ident[EI_OSABI];
  if (eh.e_shoff == 0) return;  // no section table
  if (eh.e_shentsize != sizeof(Elf64_Shdr))
    fatal("{}: unexpected section header size {} (expected {})", what_, eh.e_shentsize,
          sizeof(Elf64_Shdr));

  // Extended numbering: e_shnum == 0 / e_shstrndx == SHN_XINDEX store the real values in
  // section 0.
  auto sh0 = read_struct<Elf64_Shdr>(data_, size_, eh.e_shoff, what_, "section header 0");
  uint64_t shnum = eh.e_shnum ? eh.e_shnum : sh0.sh_size;
  uint32_t shstrndx = eh.e_shstrndx == SHN_XINDEX ? sh0.sh_link : eh.e_shstrndx;
  if (shnum > (size_ - std::min<uint64_t>(eh.e_shoff, size_)) / sizeof(Elf64_Shdr))
    fatal(
        "{}: section table at offset {:#x} with {} entries runs past the end of the file "
        "({} bytes)",
        what_, eh.e_shoff, shnum, size_);

  sections_.reserve(shnum);
  std::vector<uint32_t> name_offs;
  name_offs.reserve(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t off = eh.e_shoff + i * sizeof(Elf64_Shdr);
    auto sh = read_struct<Elf64_Shdr>(data_, size_, off, what_, "section header");
    Section s;
    s.index = uint32_t(i);
    s.type = sh.sh_type;
    s.flags = sh.sh_flags;
    s.addr = sh.sh_addr;
    s.offset = sh.sh_offset;
    s.size = sh.sh_size;
    s.link = sh.sh_link;
    s.info = sh.sh_info;
    s.addralign = sh.sh_addralign;
    s.entsize = sh.sh_entsize;
    name_offs.push_back(sh.sh_name);
    if (s.type != SHT_NOBITS && s.type != SHT_NULL &&
        (s.offset > size_ || s.size > size_ - s.offset))
      fatal("{}: section {} (offset {:#x}, size {:#x}) lies outside the file ({} bytes)", what_, i,
            s.offset, s.size, size_);
    sections_.push_back(std::move(s));
  }
  if (shstrndx != SHN_UNDEF) {
    if (shstrndx >= sections_.size())
      fatal("{}: section-name table index {} out of range ({} sections)", what_, shstrndx,
            sections_.size());
    const Section strtab = sections_[shstrndx];
    for (auto& s : sections_) s.name = str_at(strtab, name_offs[s.index], "section name");
  }
}

std::string Reader::str_at(const Section& strtab, uint64_t off, const char* ctx) const {
  if (strtab.type == SHT_NOBITS || strtab.offset > size_ || strtab.size > size_ - strtab.offset)
    fatal("{}: string table (section {}) has no contents inside the file", what_, strtab.index);
  if (off >= strtab.size)
    fatal("{}: {} offset {:#x} outside string table '{}' (size {:#x})", what_, ctx, off,
          strtab.name, strtab.size);
  const char* begin = reinterpret_cast<const char*>(data_ + strtab.offset + off);
  size_t max = size_t(strtab.size - off);
  const void* nul = std::memchr(begin, 0, max);
  if (!nul)
    fatal("{}: unterminated {} at offset {:#x} of string table '{}'", what_, ctx, off, strtab.name);
  return std::string(begin, static_cast<const char*>(nul));
}

const Section* Reader::find(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::span<const uint8_t> Reader::contents(const Section& s) const {
  if (s.type == SHT_NOBITS || s.type == SHT_NULL) return {};
  // Checked in the constructor; re-check in case a Section was built elsewhere.
  if (s.offset > size_ || s.size > size_ - s.offset)
    fatal("{}: section '{}' lies outside the file", what_, s.name);
  return {data_ + s.offset, size_t(s.size)};
}

std::vector<Symbol> Reader::symbols() const {
  std::vector<Symbol> out;
  const Section* symtab = nullptr;
  for (const auto& s : sections_)
    if (s.type == SHT_SYMTAB) {
      symtab = &s;
      break;
    }
  if (!symtab) return out;
  uint64_t ent = symtab->entsize ? symtab->entsize : sizeof(Elf64_Sym);
  if (ent != sizeof(Elf64_Sym))
    fatal("{}: symbol table '{}' has entry size {} (expected {})", what_, symtab->name, ent,
          sizeof(Elf64_Sym));
  if (symtab->link >= sections_.size())
    fatal("{}: symbol table '{}' links to string table {} which does not exist", what_,
          symtab->name, symtab->link);
  const Section& strtab = sections_[symtab->link];
  auto bytes = contents(*symtab);
  size_t n = bytes.size() / sizeof(Elf64_Sym);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Elf64_Sym es;
    std::memcpy(&es, bytes.data() + i * sizeof(Elf64_Sym), sizeof(es));
    Symbol s;
    s.index = uint32_t(i);
    s.info = es.st_info;
    s.other = es.st_other;
    s.shndx = es.st_shndx;
    s.value = es.st_value;
    s.size = es.st_size;
    if (es.st_name) s.name = str_at(strtab, es.st_name, "symbol name");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace simtlab::ptx::elf
