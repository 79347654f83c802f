// Reader for the CUDA fatbin containers that nvcc 13 embeds in host programs, and for the
// per-kernel resource metadata of the cubins inside them.
//
// Format (facts from /work/shared/spec/cuda-runtime-and-fatbin.md, section 4.3; all
// little-endian; measured on nvcc 13.0.88):
//
//   Registration wrapper (`.nvFatBinSegment`, 24 bytes), the pointer given to
//   __cudaRegisterFatBinary:
//     i32 magic = 0x466243B1; i32 version; const void* data (-> container);
//     void* filename_or_fatbins
//   version 1: per-TU wrapper, `data` is the TU's container.
//   version 2: link wrapper (-rdc=true), `data` is the nvlinked container (SASS only) and
//     `filename_or_fatbins` points to a NULL-terminated array of prelinked containers
//     (`__nv_relfatbin`, one per TU, holding the relocatable cubin and the PTX).
//
//   Container (one or more concatenated in `.nv_fatbin`, each 8-byte aligned):
//     0x00 u32 magic = 0xBA55ED50   0x04 u16 version = 1   0x06 u16 header_size = 16
//     0x08 u64 payload_size (bytes of entries after the header; 0 is legal)
//
//   Entry (inside the payload; read header_size, never assume it):
//     0x00 u16 kind (1 PTX, 2 ELF cubin)   0x02 u16 0x0101   0x04 u32 header_size
//     0x08 u64 payload_size (padded; next entry at entry + header_size + payload_size)
//     0x10 u32 compressed_size (0 = raw)   0x14 u32 options_offset (-> {u32 off, u32 len}, 0 =
//     none) 0x18 u16 minor  0x1A u16 major       0x1C u32 arch (sm/compute number, e.g. 75) 0x20
//     u32 name_offset  0x24 u32 name_len (source file name, with -G only) 0x28 u64 flags  0x30 u64
//     reserved    0x38 u64 uncompressed_size (0 = raw)
//   All offsets inside an entry (options, name) are relative to the entry header.
//
//   Flags: 0x1 64-bit, 0x10 Linux (always set), 0x2 debug (-G), 0x2000 LZ4 raw block,
//   0x8000 zstd frame, 0x1000000 seen on sm_100 ELF entries. Unknown non-compression bits are
//   ignored (see Entry::unknown_flags() to log them). A compressed PTX payload decompresses to
//   NUL-terminated, NUL-padded text: it is cut at the first NUL.
//
// Every read is bounds-checked: corrupt or truncated input throws simtlab::UserError saying what
// is wrong and at which offset; never a crash, hang or out-of-bounds read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace simtlab::ptx::fatbin {

inline constexpr uint32_t kContainerMagic = 0xBA55ED50u;
inline constexpr uint32_t kWrapperMagic = 0x466243B1u;

inline constexpr uint64_t kFlag64Bit = 0x1;
inline constexpr uint64_t kFlagDebug = 0x2;
inline constexpr uint64_t kFlagLinux = 0x10;
inline constexpr uint64_t kFlagLz4 = 0x2000;
inline constexpr uint64_t kFlagZstd = 0x8000;
/// Flag bits whose meaning we know (0x1000000 is only known to appear on sm_100 ELF entries).
inline constexpr uint64_t kKnownFlags =
    kFlag64Bit | kFlagDebug | kFlagLinux | kFlagLz4 | kFlagZstd | 0x1000000;

enum class EntryKind : uint16_t { Ptx = 1, Elf = 2, Other = 0xffff };

struct Entry {
  EntryKind kind = EntryKind::Other;
  uint16_t raw_kind = 0;
  uint32_t arch = 0;  // sm/compute number, e.g. 75
  uint16_t major = 0, minor = 0;
  uint64_t flags = 0;          // raw flags (0x8000 zstd, 0x2000 lz4, 0x2 debug)
  std::string ptx;             // for Ptx: decompressed text cut at the first NUL
  std::vector<uint8_t> image;  // for Elf (and Other): decompressed payload bytes
  std::string source_name;     // with -G only, else empty
  std::string options;         // raw bytes the options record points at (e.g. " -g --dont-...",
                               // binary data on sm_100 ELF entries); empty when absent
  uint32_t container = 0;      // index of the container (in the parse result) it came from
  uint64_t offset = 0;         // offset of the entry header in the parsed input (diagnostics)

  bool compressed() const { return flags & (kFlagLz4 | kFlagZstd); }
  uint64_t unknown_flags() const { return flags & ~kKnownFlags; }
};

/// Parse every container concatenated in [data, data+len) (8-byte aligned containers, payload 0
/// legal; zero padding after the last container is accepted).
std::vector<Entry> parse(const uint8_t* data, size_t len);
inline std::vector<Entry> parse(std::span<const uint8_t> bytes) {
  return parse(bytes.data(), bytes.size());
}

/// Parse the container starting at `data` whose length is read from its header (for runtime
/// registration, where only a pointer is known). Nothing at or past `data + max_len` is read:
/// header_size + payload_size must fit. `*consumed` receives header_size + payload_size.
/// Entries get container index 0.
std::vector<Entry> parse_one(const uint8_t* data, size_t max_len, size_t* consumed = nullptr);

/// How many bytes can be read from `p` onwards (0: `p` points at nothing readable). The runtime
/// answers from the process's memory map (runtime/loaded_memory.h), tests from their buffers.
using ReadableBytes = std::function<size_t(const void* p)>;

/// From the pointer passed to __cudaRegisterFatBinary (the 24-byte wrapper: magic 0x466243B1,
/// version 1 or 2). Version 1: the entries of `data`. Version 2: the entries of `data` (the
/// nvlinked SASS) followed by those of every prelinked fatbin in the NULL-terminated array
/// (relocatable cubin + PTX of each TU). Array elements may point at a container or at another
/// wrapper. Container indices are numbered in that order.
/// Only a pointer is known, so every pointer followed (wrapper, container, list slot) is bounded
/// by `readable`: a container's header and payload sizes must fit in the bytes readable there,
/// else UserError. Nothing outside those bounds is ever read.
std::vector<Entry> from_registration(const void* wrapper, const ReadableBytes& readable);

/// Offline: read a host executable/shared object, find `.nv_fatbin` (and `__nv_relfatbin`) and
/// parse them (in that order; container indices continue across the sections). Also accepts a
/// raw fatbin file (starts with the container magic) and a bare cubin (ELF with EM_CUDA, returned
/// as one Elf entry whose arch comes from e_flags).
std::vector<Entry> from_host_binary(const std::string& path);
/// from_host_binary() on bytes already in memory; `name` is used in error messages.
std::vector<Entry> from_host_image(std::span<const uint8_t> bytes, const std::string& name);

/// Pick the PTX entries to simulate: for each container ("module", one per TU) that holds PTX,
/// the entry with the highest arch <= max_arch. Entries from several TUs give several results, in
/// container order. Throws UserError when there is no PTX at all (asking for a rebuild with
/// `-arch=sm_XX` or `-gencode arch=compute_XX,code=compute_XX`) or when a module only has PTX
/// for archs newer than max_arch.
std::vector<const Entry*> select_ptx(const std::vector<Entry>& entries, uint32_t max_arch);

// ---- Cubin metadata ---------------------------------------------------------------------------
//
// `.nv.info` sections (sh_type SHT_CUDA_INFO = 0x70000000) are a flat list of records:
//   u8 format, u8 attribute, then by format:
//     1 EIFMT_NVAL: u16 ignored (4-byte record, no value)
//     2 EIFMT_BVAL: u16 holding an 8-bit value
//     3 EIFMT_HVAL: u16 value
//     4 EIFMT_SVAL: u16 size, then `size` bytes
// The global `.nv.info` holds {u32 symbol index, u32 value} SVAL records keyed by function
// symbol: REGCOUNT (0x2f), FRAME_SIZE (0x11), MIN_STACK_SIZE (0x12), MAX_STACK_SIZE (0x23).
// `.nv.info.<kernel>` holds the kernel's own records: MAX_THREADS (0x05, SVAL u32 x,y,z),
// REQNTID (0x10, same), PARAM_CBANK (0x0a, SVAL {u32 sym of .nv.constant0.<k>, u16 offset,
// u16 size}), CBANK_PARAM_SIZE (0x19, HVAL), KPARAM_INFO (0x17, SVAL {u32 index, u16 ordinal,
// u16 offset, u32 bits: size in bytes at bits 18..31}), MAXREG_COUNT (0x1b, HVAL),
// NUM_BARRIERS (0x4c, BVAL), EXIT_INSTR_OFFSETS (0x1c), CUDA_API_VERSION (0x37) ...
// Static shared memory is the size of the `.nv.shared.<kernel>` section; the kernel's constant
// bank 0 (driver area + parameters, ptxas' "cmem[0]") is the size of `.nv.constant0.<kernel>`.

namespace eiattr {
inline constexpr uint8_t kFmtNval = 1, kFmtBval = 2, kFmtHval = 3, kFmtSval = 4;
inline constexpr uint8_t kMaxThreads = 0x05;
inline constexpr uint8_t kParamCbank = 0x0a;
inline constexpr uint8_t kReqNtid = 0x10;
inline constexpr uint8_t kFrameSize = 0x11;
inline constexpr uint8_t kMinStackSize = 0x12;
inline constexpr uint8_t kKparamInfo = 0x17;
inline constexpr uint8_t kCbankParamSize = 0x19;
inline constexpr uint8_t kMaxRegCount = 0x1b;
inline constexpr uint8_t kExitInstrOffsets = 0x1c;
inline constexpr uint8_t kMaxStackSize = 0x23;
inline constexpr uint8_t kRegCount = 0x2f;
inline constexpr uint8_t kCudaApiVersion = 0x37;
inline constexpr uint8_t kNumBarriers = 0x4c;
}  // namespace eiattr

/// One `.nv.info` record.
struct Attribute {
  uint8_t format = 0;
  uint8_t code = 0;
  uint16_t value = 0;         // BVAL/HVAL value; SVAL size
  std::vector<uint8_t> data;  // SVAL payload
  uint32_t offset = 0;        // offset of the record in its section
  /// The i-th little-endian u32 of an SVAL payload; throws UserError if out of range.
  uint32_t u32(size_t i) const;
};

/// Decode the records of one `.nv.info` section; `what` names it in error messages.
std::vector<Attribute> parse_nv_info(std::span<const uint8_t> bytes, const std::string& what);

struct KernelParam {
  uint32_t ordinal = 0, offset = 0, size = 0;  // from KPARAM_INFO, offset into the param area
};

struct KernelInfo {
  std::string name;
  uint32_t regs = 0;
  uint32_t static_shared = 0;
  uint32_t local_bytes = 0;  // frame size
  uint32_t max_threads = 0;  // product of MAX_THREADS (__launch_bounds__), 0 if absent
  uint32_t param_bytes = 0;
  // Extra facts.
  uint32_t max_ntid[3] = {0, 0, 0};  // MAX_THREADS x,y,z
  uint32_t req_ntid[3] = {0, 0, 0};  // REQNTID x,y,z
  uint32_t min_stack = 0;            // MIN_STACK_SIZE ("cumulative stack size")
  uint32_t barriers = 0;             // NUM_BARRIERS
  uint32_t max_reg_count = 0;        // MAXREG_COUNT (0xff = unconstrained)
  uint32_t param_offset = 0;         // offset of the parameters in constant bank 0
  uint32_t const0_bytes = 0;         // size of .nv.constant0.<kernel>
  std::vector<KernelParam> params;   // sorted by ordinal
};

/// Per-kernel resources from a cubin's `.nv.info` sections, symbol table and
/// `.nv.shared.<kernel>` / `.nv.constant0.<kernel>` sections. Kernels are the STT_FUNC symbols
/// marked as entries (st_other bit 0x10) or owning a `.nv.constant0.<name>` section; device
/// functions are not listed. Order: symbol table order.
std::vector<KernelInfo> cubin_kernels(const std::vector<uint8_t>& elf_image);
std::vector<KernelInfo> cubin_kernels(std::span<const uint8_t> elf_image);

}  // namespace simtlab::ptx::fatbin
