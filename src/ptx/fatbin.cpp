// Fatbin container / cubin metadata reader. Format notes: fatbin.h and
// /work/shared/spec/cuda-runtime-and-fatbin.md (section 4.3, 4.4).
#include "ptx/fatbin.h"

#include <elf.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <unordered_map>

#include "base/error.h"
#include "ptx/elf_reader.h"

namespace simtlab::ptx::fatbin {

namespace {

constexpr size_t kContainerHeaderSize = 16;
constexpr size_t kEntryFixedSize = 0x40;
// Sanity limits: far above anything nvcc produces, low enough that garbage sizes cannot make us
// allocate or scan absurd amounts of memory.
constexpr uint64_t kMaxUncompressed = uint64_t(1) << 30;
constexpr uint64_t kMaxContainer = uint64_t(1) << 32;
constexpr size_t kMaxPrelinked = 1 << 16;
constexpr uint32_t kShtCudaInfo = 0x70000000;
constexpr uint8_t kStoCudaEntry = 0x10;

uint16_t rd16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t rd32(const uint8_t* p) { return uint32_t(rd16(p)) | (uint32_t(rd16(p + 2)) << 16); }
uint64_t rd64(const uint8_t* p) { return uint64_t(rd32(p)) | (uint64_t(rd32(p + 4)) << 32); }

// A name field: drop trailing NULs and blanks (the dlink cubin's name is "vecadd.cu ").
std::string trim_name(const uint8_t* p, size_t n) {
  std::string s(reinterpret_cast<const char*>(p), n);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::vector<uint8_t> zstd_decompress(const uint8_t* src, size_t csz, uint64_t usz,
                                     uint64_t entry_off) {
  unsigned long long fcs = ZSTD_getFrameContentSize(src, csz);
  if (fcs == ZSTD_CONTENTSIZE_ERROR)
    fatal("fatbin entry at offset {:#x}: payload is flagged zstd (0x8000) but is not a zstd frame",
          entry_off);
  if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != usz)
    fatal(
        "fatbin entry at offset {:#x}: zstd frame content size {} differs from the header's "
        "uncompressed_size {}",
        entry_off, fcs, usz);
  // Streaming decompression with a growing buffer: memory stays proportional to the real output
  // even if uncompressed_size is garbage and the frame does not state its size.
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!dctx) fatal("fatbin: cannot allocate a zstd decompression context");
  std::vector<uint8_t> out;
  ZSTD_inBuffer in{src, csz, 0};
  size_t produced = 0;
  bool done = false;
  while (!done) {
    if (produced == out.size()) {
      if (out.size() > usz) break;  // more output than declared (reported below)
      size_t grow = std::max<size_t>(out.size(), 64 * 1024);
      out.resize(size_t(std::min<uint64_t>(uint64_t(out.size()) + grow, usz + 1)));
    }
    ZSTD_outBuffer ob{out.data(), out.size(), produced};
    size_t in_before = in.pos;
    size_t r = ZSTD_decompressStream(dctx.get(), &ob, &in);
    if (ZSTD_isError(r))
      fatal("fatbin entry at offset {:#x}: zstd decompression failed: {}", entry_off,
            ZSTD_getErrorName(r));
    bool progress = ob.pos != produced || in.pos != in_before;
    produced = ob.pos;
    done = r == 0;  // frame complete and flushed
    if (!done && !progress && ob.pos < ob.size)
      fatal("fatbin entry at offset {:#x}: zstd frame is truncated ({} compressed bytes)",
            entry_off, csz);
  }
  if (produced > usz)
    fatal(
        "fatbin entry at offset {:#x}: zstd payload decompresses to more than the {} bytes the "
        "header declares",
        entry_off, usz);
  if (produced != usz)
    fatal("fatbin entry at offset {:#x}: zstd payload decompressed to {} bytes, header says {}",
          entry_off, produced, usz);
  if (in.pos != in.size)
    fatal("fatbin entry at offset {:#x}: {} trailing bytes after the zstd frame", entry_off,
          in.size - in.pos);
  out.resize(produced);
  return out;
}

std::vector<uint8_t> lz4_decompress(const uint8_t* src, size_t csz, uint64_t usz,
                                    uint64_t entry_off) {
  // An LZ4 block expands at most ~255x; a larger claim is corruption.
  if (csz > INT_MAX || usz > INT_MAX || usz > uint64_t(csz) * 255 + 64)
    fatal("fatbin entry at offset {:#x}: implausible LZ4 sizes (compressed {}, uncompressed {})",
          entry_off, csz, usz);
  std::vector<uint8_t> out(usz);
  int r = LZ4_decompress_safe(reinterpret_cast<const char*>(src),
                              reinterpret_cast<char*>(out.data()), int(csz), int(usz));
  if (r < 0)
    fatal("fatbin entry at offset {:#x}: LZ4 block decompression failed (corrupt data)", entry_off);
  if (uint64_t(r) != usz)
    fatal("fatbin entry at offset {:#x}: LZ4 payload decompressed to {} bytes, header says {}",
          entry_off, r, usz);
  return out;
}

// Parses one container at `p` (at most `avail` readable bytes). `base` is the offset of `p` in
// the caller's input, used in messages and Entry::offset.
std::vector<Entry> parse_container(const uint8_t* p, size_t avail, uint64_t base, uint32_t index,
                                   size_t* consumed) {
  if (!p) fatal("fatbin: null container pointer");
  if (avail < kContainerHeaderSize)
    fatal("fatbin container at offset {:#x}: truncated header ({} bytes, need {})", base, avail,
          kContainerHeaderSize);
  uint32_t magic = rd32(p);
  if (magic != kContainerMagic)
    fatal("fatbin container at offset {:#x}: bad magic {:#010x} (expected {:#010x})", base, magic,
          kContainerMagic);
  uint16_t version = rd16(p + 4);
  uint16_t hs = rd16(p + 6);
  uint64_t ps = rd64(p + 8);
  if (version != 1)
    fatal("fatbin container at offset {:#x}: unsupported version {} (expected 1)", base, version);
  if (hs < kContainerHeaderSize)
    fatal("fatbin container at offset {:#x}: header size {} is smaller than {}", base, hs,
          kContainerHeaderSize);
  if (ps > kMaxContainer)
    fatal("fatbin container at offset {:#x}: implausible payload size {:#x}", base, ps);
  if (hs > avail || ps > avail - hs)
    fatal(
        "fatbin container at offset {:#x}: header ({} bytes) + payload ({} bytes) run past the "
        "end of the data ({} bytes available)",
        base, hs, ps, avail);
  const uint64_t total = hs + ps;

  std::vector<Entry> out;
  uint64_t pos = hs;
  while (pos < total) {
    const uint8_t* e = p + pos;
    const uint64_t eoff = base + pos;
    const uint64_t left = total - pos;
    if (left < kEntryFixedSize) {
      if (std::all_of(e, e + left, [](uint8_t b) { return b == 0; })) break;  // padding
      fatal(
          "fatbin entry at offset {:#x}: truncated entry header ({} bytes left in the "
          "container, need {})",
          eoff, left, kEntryFixedSize);
    }
    Entry en;
    en.raw_kind = rd16(e);
    uint32_t ehs = rd32(e + 0x04);
    uint64_t eps = rd64(e + 0x08);
    uint32_t csz = rd32(e + 0x10);
    uint32_t optoff = rd32(e + 0x14);
    en.minor = rd16(e + 0x18);
    en.major = rd16(e + 0x1a);
    en.arch = rd32(e + 0x1c);
    uint32_t noff = rd32(e + 0x20);
    uint32_t nlen = rd32(e + 0x24);
    en.flags = rd64(e + 0x28);
    uint64_t usz = rd64(e + 0x38);
    en.container = index;
    en.offset = eoff;
    en.kind = en.raw_kind == 1   ? EntryKind::Ptx
              : en.raw_kind == 2 ? EntryKind::Elf
                                 : EntryKind::Other;

    if (ehs < kEntryFixedSize)
      fatal("fatbin entry at offset {:#x}: header size {:#x} is smaller than {:#x}", eoff, ehs,
            kEntryFixedSize);
    if (ehs > left)
      fatal(
          "fatbin entry at offset {:#x}: header size {:#x} runs past the end of the container "
          "({:#x} bytes left)",
          eoff, ehs, left);
    if (eps > left - ehs)
      fatal(
          "fatbin entry at offset {:#x}: payload size {:#x} runs past the end of the container "
          "({:#x} bytes left after the {:#x}-byte header)",
          eoff, eps, left - ehs, ehs);
    const uint64_t entry_len = ehs + eps;

    if (nlen) {
      if (noff > entry_len || nlen > entry_len - noff)
        fatal(
            "fatbin entry at offset {:#x}: source name (offset {:#x}, length {}) lies outside "
            "the entry ({:#x} bytes)",
            eoff, noff, nlen, entry_len);
      en.source_name = trim_name(e + noff, nlen);
    }
    if (optoff) {
      if (optoff > ehs || ehs - optoff < 8)
        fatal(
            "fatbin entry at offset {:#x}: options record at {:#x} lies outside the {:#x}-byte "
            "header",
            eoff, optoff, ehs);
      uint32_t ooff = rd32(e + optoff), olen = rd32(e + optoff + 4);
      if (olen) {
        if (ooff > entry_len || olen > entry_len - ooff)
          fatal(
              "fatbin entry at offset {:#x}: options (offset {:#x}, length {}) lie outside the "
              "entry ({:#x} bytes)",
              eoff, ooff, olen, entry_len);
        en.options.assign(reinterpret_cast<const char*>(e + ooff), olen);
      }
    }

    const uint8_t* payload = e + ehs;
    const bool zstd = en.flags & kFlagZstd, lz4 = en.flags & kFlagLz4;
    std::vector<uint8_t> bytes;
    if (zstd && lz4)
      fatal(
          "fatbin entry at offset {:#x}: flags {:#x} name both zstd (0x8000) and LZ4 (0x2000) "
          "compression",
          eoff, en.flags);
    if (zstd || lz4) {
      if (csz == 0 || csz > eps)
        fatal(
            "fatbin entry at offset {:#x}: compressed size {:#x} is not within the {:#x}-byte "
            "payload",
            eoff, csz, eps);
      if (usz == 0 || usz > kMaxUncompressed)
        fatal("fatbin entry at offset {:#x}: implausible uncompressed size {:#x}", eoff, usz);
      bytes =
          zstd ? zstd_decompress(payload, csz, usz, eoff) : lz4_decompress(payload, csz, usz, eoff);
    } else {
      if (csz != 0 || usz != 0)
        fatal(
            "fatbin entry at offset {:#x}: the header gives compressed/uncompressed sizes "
            "({:#x}/{:#x}) but flags {:#x} name no known compression (zstd 0x8000, LZ4 "
            "0x2000); unsupported compression",
            eoff, csz, usz, en.flags);
      bytes.assign(payload, payload + eps);
    }
    if (en.kind == EntryKind::Ptx) {
      auto nul = std::find(bytes.begin(), bytes.end(), uint8_t(0));
      en.ptx.assign(bytes.begin(), nul);
    } else {
      en.image = std::move(bytes);
    }
    out.push_back(std::move(en));
    pos += entry_len;
  }
  if (consumed) *consumed = size_t(total);
  return out;
}

}  // namespace

std::vector<Entry> parse_one(const uint8_t* data, size_t max_len, size_t* consumed) {
  return parse_container(data, max_len, 0, 0, consumed);
}

std::vector<Entry> parse(const uint8_t* data, size_t len) {
  std::vector<Entry> out;
  if (len == 0) return out;
  if (!data) fatal("fatbin: null data pointer with length {}", len);
  size_t off = 0;
  uint32_t index = 0;
  while (off < len) {
    size_t left = len - off;
    // Zero padding after the last container (sections are padded to their alignment).
    if ((left < 4 || rd32(data + off) != kContainerMagic) &&
        std::all_of(data + off, data + len, [](uint8_t b) { return b == 0; }))
      break;
    size_t consumed = 0;
    auto entries = parse_container(data + off, left, off, index++, &consumed);
    for (auto& e : entries) out.push_back(std::move(e));
    off += consumed;
    size_t aligned = (off + 7) & ~size_t(7);
    off = std::min(aligned, len);
  }
  return out;
}

std::vector<Entry> from_registration(const void* wrapper, const ReadableBytes& readable) {
  if (!wrapper) fatal("__cudaRegisterFatBinary: null fatbin wrapper pointer");
  // Bytes readable at `p`, at least `need` of them, else a UserError naming `what`.
  auto bound = [&](const void* p, size_t need, const std::string& what) {
    const size_t avail = readable ? readable(p) : 0;
    if (avail < need)
      fatal(
          "{} at {}: {} bytes are readable there, need at least {} (the pointer does not point "
          "into the program's loaded data)",
          what, fmt::ptr(p), avail, need);
    return avail;
  };
  const auto* w = static_cast<const uint8_t*>(wrapper);
  const size_t wavail = bound(w, 4, "__cudaRegisterFatBinary: fatbin wrapper");
  uint32_t magic = rd32(w);
  if (magic == kContainerMagic) return parse_one(w, wavail);  // a bare container
  if (magic != kWrapperMagic)
    fatal("__cudaRegisterFatBinary: bad fatbin wrapper magic {:#010x} (expected {:#010x})", magic,
          kWrapperMagic);
  bound(w, 24, "__cudaRegisterFatBinary: fatbin wrapper");
  uint32_t version = rd32(w + 4);
  const uint8_t* data = nullptr;
  const void* field = nullptr;
  std::memcpy(&data, w + 8, sizeof(data));
  std::memcpy(&field, w + 16, sizeof(field));

  std::vector<Entry> out;
  uint32_t index = 0;
  auto add = [&](const uint8_t* container, const std::string& what) {
    std::vector<Entry> es;
    try {
      es = parse_one(container, bound(container, kContainerHeaderSize, "fatbin container"));
    } catch (const UserError& e) {
      fatal("{}: {}", what, e.what());
    }
    for (auto& e : es) {
      e.container = index;
      out.push_back(std::move(e));
    }
    ++index;
  };

  if (version == 1) {
    if (!data) fatal("fatbin wrapper (version 1) has a null data pointer");
    add(data, "fatbin");
    return out;
  }
  if (version != 2)
    fatal("__cudaRegisterFatBinary: unsupported fatbin wrapper version {} (expected 1 or 2)",
          version);
  if (data) add(data, "linked fatbin");
  const auto* const* arr = static_cast<const uint8_t* const*>(field);
  if (!arr) return out;
  for (size_t i = 0;; ++i) {
    if (i >= kMaxPrelinked)
      fatal(
          "fatbin wrapper (version 2): prelinked fatbin list is not NULL-terminated within {} "
          "entries",
          kMaxPrelinked);
    bound(arr + i, sizeof(void*),
          fmt::format("fatbin wrapper (version 2): prelinked list slot #{}", i));
    const uint8_t* elem = arr[i];
    if (!elem) break;
    std::string what = fmt::format("prelinked fatbin #{}", i);
    bound(elem, 4, what);
    uint32_t m = rd32(elem);
    if (m == kWrapperMagic) {
      bound(elem, 24, what + " (wrapper)");
      const uint8_t* inner = nullptr;
      std::memcpy(&inner, elem + 8, sizeof(inner));
      if (!inner) fatal("{}: wrapper has a null data pointer", what);
      add(inner, what);
    } else if (m == kContainerMagic) {
      add(elem, what);
    } else {
      fatal("{}: bad magic {:#010x} (expected a fatbin container {:#010x} or wrapper {:#010x})",
            what, m, kContainerMagic, kWrapperMagic);
    }
  }
  return out;
}

std::vector<Entry> from_host_binary(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fatal("cannot open '{}': {}", path, std::strerror(errno));
  std::vector<uint8_t> buf((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) fatal("cannot read '{}'", path);
  return from_host_image(buf, path);
}

std::vector<Entry> from_host_image(std::span<const uint8_t> buf, const std::string& name) {
  if (buf.size() >= 4 && rd32(buf.data()) == kContainerMagic) {
    try {
      return parse(buf.data(), buf.size());
    } catch (const UserError& e) {
      fatal("'{}': {}", name, e.what());
    }
  }
  if (!elf::is_elf(buf.data(), buf.size())) fatal("'{}' is neither an ELF file nor a fatbin", name);
  elf::Reader r(buf.data(), buf.size(), fmt::format("'{}'", name));

  if (r.machine() == elf::kMachineCuda) {  // a bare cubin
    Entry e;
    e.kind = EntryKind::Elf;
    e.raw_kind = 2;
    uint32_t sm = (r.flags() >> 8) & 0xff;  // nvcc 13: bits 8..15; older: low byte
    e.arch = sm ? sm : (r.flags() & 0xff);
    e.image.assign(buf.begin(), buf.end());
    return {std::move(e)};
  }

  std::vector<Entry> out;
  uint32_t base_index = 0;
  bool found = false;
  for (const char* sec : {".nv_fatbin", "__nv_relfatbin"}) {
    const elf::Section* s = r.find(sec);
    if (!s) continue;
    found = true;
    auto bytes = r.contents(*s);
    std::vector<Entry> es;
    try {
      es = parse(bytes.data(), bytes.size());
    } catch (const UserError& e) {
      fatal("'{}' section {}: {}", name, sec, e.what());
    }
    uint32_t n_containers = 0;
    for (auto& e : es) {
      n_containers = std::max(n_containers, e.container + 1);
      e.container += base_index;
      out.push_back(std::move(e));
    }
    base_index += n_containers;
  }
  if (!found)
    fatal("'{}' has no .nv_fatbin section: it contains no CUDA device code (build it with nvcc)",
          name);
  return out;
}

std::vector<const Entry*> select_ptx(const std::vector<Entry>& entries, uint32_t max_arch) {
  // Group PTX entries by container, keeping first-appearance order.
  std::vector<uint32_t> order;
  std::map<uint32_t, std::vector<const Entry*>> groups;
  uint32_t best_elf = 0, any_elf = 0;
  for (const auto& e : entries) {
    if (e.kind == EntryKind::Elf) {
      any_elf = std::max(any_elf, e.arch);
      if (e.arch <= max_arch) best_elf = std::max(best_elf, e.arch);
    }
    if (e.kind != EntryKind::Ptx) continue;
    auto [it, inserted] = groups.try_emplace(e.container);
    if (inserted) order.push_back(e.container);
    it->second.push_back(&e);
  }
  if (groups.empty()) {
    uint32_t xx = best_elf ? best_elf : max_arch;
    std::string have = any_elf ? fmt::format(" (it only holds SASS, up to sm_{})", any_elf)
                               : std::string(entries.empty() ? " (it is empty)" : "");
    fatal(
        "the program's fatbin contains no PTX{}; simtlab simulates PTX. Rebuild with "
        "`-arch=sm_{}` (embeds SASS and PTX) or add `-gencode arch=compute_{},code=compute_{}` "
        "to your -gencode options",
        have, xx, xx, xx);
  }
  std::vector<const Entry*> out;
  for (uint32_t c : order) {
    const Entry* best = nullptr;
    uint32_t lowest = UINT32_MAX;
    for (const Entry* e : groups[c]) {
      lowest = std::min(lowest, e->arch);
      if (e->arch <= max_arch && (!best || e->arch > best->arch)) best = e;
    }
    if (!best)
      fatal(
          "fatbin module #{} only has PTX for compute_{} or newer, but the simulated GPU is "
          "sm_{}; rebuild with `-arch=sm_{}` or `-gencode arch=compute_{},code=compute_{}`, or "
          "simulate a GPU of that compute capability (`simtlab run --set gpu.cc_major={} --set "
          "gpu.cc_minor={} ...`)",
          c, lowest, max_arch, max_arch, max_arch, max_arch, lowest / 10, lowest % 10);
    out.push_back(best);
  }
  return out;
}

// ---- cubin metadata -------------------------------------------------------------------------

uint32_t Attribute::u32(size_t i) const {
  if (format != eiattr::kFmtSval || data.size() < 4 * (i + 1))
    fatal("EIATTR {:#04x} record at offset {:#x}: value #{} missing (record has {} bytes)", code,
          offset, i, data.size());
  return rd32(data.data() + 4 * i);
}

std::vector<Attribute> parse_nv_info(std::span<const uint8_t> bytes, const std::string& what) {
  std::vector<Attribute> out;
  size_t pos = 0;
  while (pos < bytes.size()) {
    if (bytes.size() - pos < 4)
      fatal("{}: truncated EIATTR record at offset {:#x} ({} bytes left, need 4)", what, pos,
            bytes.size() - pos);
    Attribute a;
    a.offset = uint32_t(pos);
    a.format = bytes[pos];
    a.code = bytes[pos + 1];
    a.value = rd16(bytes.data() + pos + 2);
    pos += 4;
    switch (a.format) {
      case eiattr::kFmtNval:
        a.value = 0;
        break;
      case eiattr::kFmtBval:
        a.value &= 0xff;
        break;
      case eiattr::kFmtHval:
        break;
      case eiattr::kFmtSval:
        if (a.value > bytes.size() - pos)
          fatal("{}: EIATTR {:#04x} record at offset {:#x} declares {} bytes but only {} remain",
                what, a.code, a.offset, a.value, bytes.size() - pos);
        a.data.assign(bytes.begin() + pos, bytes.begin() + pos + a.value);
        pos += a.value;
        break;
      default:
        fatal("{}: EIATTR record at offset {:#x} has unknown format {} (attribute {:#04x})", what,
              a.offset, a.format, a.code);
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<KernelInfo> cubin_kernels(const std::vector<uint8_t>& elf_image) {
  return cubin_kernels(std::span<const uint8_t>(elf_image));
}

std::vector<KernelInfo> cubin_kernels(std::span<const uint8_t> elf_image) {
  elf::Reader r(elf_image.data(), elf_image.size(), "cubin");
  if (r.machine() != elf::kMachineCuda)
    fatal("cubin: not a CUDA ELF image (e_machine {}, expected {})", r.machine(),
          elf::kMachineCuda);
  const auto syms = r.symbols();

  // Symbol-keyed records ({u32 symbol, u32 value}) may appear in any .nv.info section.
  struct SymFacts {
    bool has_regs = false;
    uint32_t regs = 0, frame = 0, min_stack = 0;
  };
  std::unordered_map<uint32_t, SymFacts> facts;
  std::unordered_map<uint32_t, const elf::Section*> info_by_text;  // text section -> .nv.info.<k>
  std::unordered_map<uint32_t, std::vector<Attribute>> attrs_by_section;
  for (const auto& s : r.sections()) {
    if (s.type != kShtCudaInfo) continue;
    auto attrs = parse_nv_info(r.contents(s), fmt::format("cubin section {}", s.name));
    for (const auto& a : attrs) {
      if (a.code != eiattr::kRegCount && a.code != eiattr::kFrameSize &&
          a.code != eiattr::kMinStackSize)
        continue;
      if (a.format != eiattr::kFmtSval) continue;
      auto what = fmt::format("cubin section {}", s.name);
      if (a.data.size() < 8)
        fatal("{}: EIATTR {:#04x} record at offset {:#x} has {} bytes, expected 8", what, a.code,
              a.offset, a.data.size());
      auto& f = facts[a.u32(0)];
      if (a.code == eiattr::kRegCount) {
        f.regs = a.u32(1);
        f.has_regs = true;
      } else if (a.code == eiattr::kFrameSize) {
        f.frame = a.u32(1);
      } else {
        f.min_stack = a.u32(1);
      }
    }
    if (s.name != ".nv.info" && s.info != 0) info_by_text.emplace(s.info, &s);
    attrs_by_section.emplace(s.index, std::move(attrs));
  }

  std::vector<KernelInfo> out;
  for (const auto& sym : syms) {
    if (sym.type() != STT_FUNC || sym.name.empty()) continue;
    const elf::Section* const0 = r.find(".nv.constant0." + sym.name);
    if (!(sym.other & kStoCudaEntry) && !const0) continue;
    KernelInfo k;
    k.name = sym.name;
    if (auto it = facts.find(sym.index); it != facts.end()) {
      k.regs = it->second.regs;
      k.local_bytes = it->second.frame;
      k.min_stack = it->second.min_stack;
      if (!it->second.has_regs && sym.shndx < r.sections().size())
        k.regs = r.sections()[sym.shndx].info >> 24;
    } else if (sym.shndx < r.sections().size()) {
      // Older cubins keep the register count in the top byte of the text section's sh_info.
      k.regs = r.sections()[sym.shndx].info >> 24;
    }
    if (const elf::Section* sh = r.find(".nv.shared." + sym.name))
      k.static_shared = uint32_t(sh->size);
    if (const0) k.const0_bytes = uint32_t(const0->size);

    const elf::Section* info = r.find(".nv.info." + sym.name);
    if (!info) {
      auto it = info_by_text.find(sym.shndx);
      if (it != info_by_text.end()) info = it->second;
    }
    if (info) {
      const std::string what = fmt::format("cubin section {}", info->name);
      auto need = [&](const Attribute& a, size_t n) {
        if (a.format != eiattr::kFmtSval || a.data.size() < n)
          fatal(
              "{}: EIATTR {:#04x} record at offset {:#x} has format {} and {} bytes, expected "
              "an SVAL of {} bytes",
              what, a.code, a.offset, a.format, a.data.size(), n);
      };
      bool have_param_size = false;
      for (const auto& a : attrs_by_section[info->index]) {
        switch (a.code) {
          case eiattr::kMaxThreads:
            need(a, 12);
            for (int i = 0; i < 3; ++i) k.max_ntid[i] = a.u32(i);
            k.max_threads = k.max_ntid[0] * k.max_ntid[1] * k.max_ntid[2];
            break;
          case eiattr::kReqNtid:
            need(a, 12);
            for (int i = 0; i < 3; ++i) k.req_ntid[i] = a.u32(i);
            break;
          case eiattr::kParamCbank:
            need(a, 8);
            k.param_offset = a.u32(1) & 0xffff;
            if (!have_param_size) k.param_bytes = a.u32(1) >> 16;
            break;
          case eiattr::kCbankParamSize:
            k.param_bytes = a.value;
            have_param_size = true;
            break;
          case eiattr::kKparamInfo: {
            need(a, 12);
            KernelParam p;
            p.ordinal = a.u32(1) & 0xffff;
            p.offset = a.u32(1) >> 16;
            p.size = a.u32(2) >> 18;
            k.params.push_back(p);
            break;
          }
          case eiattr::kMaxRegCount:
            k.max_reg_count = a.value;
            break;
          case eiattr::kNumBarriers:
            k.barriers = a.value;
            break;
          default:
            break;  // other attributes are not needed by the simulator
        }
      }
    }
    std::sort(k.params.begin(), k.params.end(),
              [](const KernelParam& a, const KernelParam& b) { return a.ordinal < b.ordinal; });
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace simtlab::ptx::fatbin
