// Tests for the fatbin reader (src/ptx/fatbin.h) against fixtures built with nvcc 13.0.88
// (tests/data/fatbin/README.md says how each was made; expected register counts etc. come from
// tests/data/fatbin/ptxas_v.txt).
#include "ptx/fatbin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "base/error.h"
#include "ptx/elf_reader.h"

namespace simtlab::ptx::fatbin {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<uint8_t> load(const std::string& name) {
  std::string path = std::string(SIMTLAB_TEST_DATA_DIR) + "/fatbin/" + name;
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "missing fixture " << path;
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

std::string fixture_path(const std::string& name) {
  return std::string(SIMTLAB_TEST_DATA_DIR) + "/fatbin/" + name;
}

// Expects `fn` to throw UserError whose message contains `needle`.
template <typename F>
void expect_user_error(F&& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected UserError containing '" << needle << "'";
  } catch (const UserError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(needle));
  }
}

std::string ptx_body(const Entry& e) {  // the text after the leading blank lines
  size_t i = e.ptx.find_first_not_of('\n');
  return i == std::string::npos ? std::string() : e.ptx.substr(i);
}

const char* kVecadd = "_Z6vecaddPKfS0_Pfi";

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

// ---- little builders for synthetic containers ------------------------------------------------

void put16(std::vector<uint8_t>& b, size_t off, uint16_t v) {
  b[off] = uint8_t(v);
  b[off + 1] = uint8_t(v >> 8);
}
void put32(std::vector<uint8_t>& b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + i] = uint8_t(v >> (8 * i));
}
void put64(std::vector<uint8_t>& b, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[off + i] = uint8_t(v >> (8 * i));
}
uint32_t get32(const std::vector<uint8_t>& b, size_t off) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(b[off + i]) << (8 * i);
  return v;
}

struct RawEntry {
  uint16_t kind = 1;
  uint64_t flags = 0x11;
  uint32_t arch = 75;
  std::vector<uint8_t> payload;
  uint32_t csz = 0;
  uint64_t usz = 0;
};

std::vector<uint8_t> make_container(const std::vector<RawEntry>& entries) {
  std::vector<uint8_t> b(16, 0);
  put32(b, 0, kContainerMagic);
  put16(b, 4, 1);
  put16(b, 6, 16);
  for (const auto& e : entries) {
    size_t off = b.size();
    size_t padded = (e.payload.size() + 7) & ~size_t(7);
    b.resize(off + 0x40 + padded, 0);
    put16(b, off, e.kind);
    put16(b, off + 2, 0x0101);
    put32(b, off + 4, 0x40);
    put64(b, off + 8, padded);
    put32(b, off + 0x10, e.csz);
    put16(b, off + 0x18, 0);
    put16(b, off + 0x1a, 9);
    put32(b, off + 0x1c, e.arch);
    put64(b, off + 0x28, e.flags);
    put64(b, off + 0x38, e.usz);
    std::memcpy(b.data() + off + 0x40, e.payload.data(), e.payload.size());
  }
  put64(b, 8, b.size() - 16);
  return b;
}

std::vector<uint8_t> text_bytes(const std::string& s) {
  std::vector<uint8_t> v(s.begin(), s.end());
  v.push_back(0);
  return v;
}

// ---- nvcc fixtures -------------------------------------------------------------------------

TEST(Fatbin, VecaddDefaultLayout) {
  auto bytes = load("vecadd_default.fatbin");
  auto es = parse(bytes.data(), bytes.size());
  ASSERT_EQ(es.size(), 3u);
  // Container 0: the device-link fatbin with an empty sm_75 cubin.
  EXPECT_EQ(es[0].kind, EntryKind::Elf);
  EXPECT_EQ(es[0].container, 0u);
  EXPECT_EQ(es[0].arch, 75u);
  EXPECT_EQ(es[0].flags, 0x11u);
  EXPECT_EQ(es[0].image.size(), 0x5a8u);
  EXPECT_EQ(es[0].offset, 0x10u);
  // Container 1: the TU's SASS (raw) and PTX (zstd).
  EXPECT_EQ(es[1].kind, EntryKind::Elf);
  EXPECT_EQ(es[1].container, 1u);
  EXPECT_EQ(es[1].raw_kind, 2u);
  EXPECT_EQ(es[1].major, 1u);
  EXPECT_EQ(es[1].minor, 8u);
  EXPECT_EQ(es[1].flags, 0x11u);
  EXPECT_EQ(es[1].image.size(), 0xca8u);
  EXPECT_TRUE(elf::is_elf(es[1].image.data(), es[1].image.size()));
  EXPECT_EQ(es[2].kind, EntryKind::Ptx);
  EXPECT_EQ(es[2].raw_kind, 1u);
  EXPECT_EQ(es[2].container, 1u);
  EXPECT_EQ(es[2].arch, 75u);
  EXPECT_EQ(es[2].major, 9u);
  EXPECT_EQ(es[2].minor, 0u);
  EXPECT_EQ(es[2].flags, 0x8011u);
  EXPECT_TRUE(es[2].compressed());
  EXPECT_EQ(es[2].unknown_flags(), 0u);
  EXPECT_EQ(es[2].offset, 0x12f0u);
  EXPECT_TRUE(es[2].source_name.empty());
  EXPECT_TRUE(es[2].options.empty());  // the {0x48, 0} options record
  // Uncompressed size 0x3e1 includes the trailing NUL; the text starts with 8 blank lines.
  EXPECT_EQ(es[2].ptx.size(), 0x3e0u);
  EXPECT_THAT(es[2].ptx,
              StartsWith("\n\n\n\n\n\n\n\n.version 9.0\n.target sm_75\n.address_size 64"));
  EXPECT_THAT(es[2].ptx, HasSubstr(std::string(".visible .entry ") + kVecadd + "("));
  EXPECT_EQ(es[2].ptx.find('\0'), std::string::npos);
}

TEST(Fatbin, CompressionModesGiveTheSameContent) {
  auto ref_bytes = load("vecadd_none.fatbin");
  auto ref = parse(ref_bytes.data(), ref_bytes.size());
  ASSERT_EQ(ref.size(), 3u);
  EXPECT_EQ(ref[2].flags, 0x11u);  // raw PTX text
  EXPECT_FALSE(ref[2].compressed());

  struct Case {
    const char* file;
    uint64_t dlink_elf_flags, elf_flags, ptx_flags;
  };
  for (const Case& c : {Case{"vecadd_default.fatbin", 0x11, 0x11, 0x8011},
                        Case{"vecadd_size.fatbin", 0x8011, 0x8011, 0x8011},
                        Case{"vecadd_speed.fatbin", 0x11, 0x11, 0x2011},
                        Case{"vecadd_none.fatbin", 0x11, 0x11, 0x11}}) {
    SCOPED_TRACE(c.file);
    auto bytes = load(c.file);
    auto es = parse(bytes.data(), bytes.size());
    ASSERT_EQ(es.size(), 3u);
    EXPECT_EQ(es[0].flags, c.dlink_elf_flags);
    EXPECT_EQ(es[1].flags, c.elf_flags);
    EXPECT_EQ(es[2].flags, c.ptx_flags);
    EXPECT_EQ(es[2].kind, EntryKind::Ptx);
    EXPECT_EQ(es[2].ptx, ref[2].ptx);
    // Cubins are the same bytes once decompressed (raw payloads are padded to 8).
    EXPECT_EQ(es[0].image, ref[0].image);
    EXPECT_EQ(es[1].image, ref[1].image);
  }
}

TEST(Fatbin, DebugBuildHasSourceNameAndOptions) {
  auto bytes = load("vecadd_debug.fatbin");
  auto es = parse(bytes.data(), bytes.size());
  ASSERT_EQ(es.size(), 3u);
  for (const auto& e : es) {
    EXPECT_EQ(e.flags, 0x8013u);  // zstd | Linux | debug | 64-bit
    EXPECT_EQ(e.flags & kFlagDebug, kFlagDebug);
    EXPECT_EQ(e.source_name, "vecadd.cu");  // the dlink entry stores "vecadd.cu " (trimmed)
  }
  EXPECT_EQ(es[0].kind, EntryKind::Elf);
  EXPECT_EQ(es[0].image.size(), 0x680u);
  EXPECT_EQ(es[1].kind, EntryKind::Elf);
  EXPECT_EQ(es[2].kind, EntryKind::Ptx);
  EXPECT_EQ(es[2].options, " -g --dont-merge-basicblocks --return-at-end ");
  EXPECT_THAT(ptx_body(es[2]), StartsWith(".version 9.0\n.target sm_75, debug\n"));
  EXPECT_THAT(es[2].ptx, HasSubstr(kVecadd));
}

TEST(Fatbin, MultiGencode) {
  auto bytes = load("vecadd_multi.fatbin");
  auto es = parse(bytes.data(), bytes.size());
  ASSERT_EQ(es.size(), 3u);
  EXPECT_EQ(es[0].kind, EntryKind::Elf);
  EXPECT_EQ(es[0].arch, 80u);
  EXPECT_EQ(es[1].kind, EntryKind::Ptx);
  EXPECT_EQ(es[1].arch, 75u);
  EXPECT_EQ(es[1].container, 1u);
  EXPECT_EQ(es[2].kind, EntryKind::Elf);
  EXPECT_EQ(es[2].arch, 80u);
  EXPECT_EQ(es[2].container, 1u);

  auto sel = select_ptx(es, 80);
  ASSERT_EQ(sel.size(), 1u);
  EXPECT_EQ(sel[0], &es[1]);
  sel = select_ptx(es, 75);
  ASSERT_EQ(sel.size(), 1u);
  EXPECT_EQ(sel[0]->arch, 75u);
  expect_user_error([&] { select_ptx(es, 70); }, "only has PTX for compute_75 or newer");
}

TEST(Fatbin, SassOnlyBuildHasNoPtx) {
  auto bytes = load("vecadd_sass.fatbin");
  auto es = parse(bytes.data(), bytes.size());
  ASSERT_EQ(es.size(), 2u);
  for (const auto& e : es) {
    EXPECT_EQ(e.kind, EntryKind::Elf);
    EXPECT_EQ(e.arch, 80u);
  }
  expect_user_error([&] { select_ptx(es, 86); }, "contains no PTX");
  expect_user_error([&] { select_ptx(es, 86); }, "`-arch=sm_80`");
  expect_user_error([&] { select_ptx(es, 86); }, "`-gencode arch=compute_80,code=compute_80`");
  // Simulating an older GPU than the SASS: suggest the simulated arch.
  expect_user_error([&] { select_ptx(es, 75); }, "`-arch=sm_75`");
  expect_user_error([&] { select_ptx({}, 75); }, "contains no PTX");
}

TEST(Fatbin, SeveralPtxArchsAndSm100Entries) {
  auto bytes = load("vecadd_archs.fatbin");
  auto es = parse(bytes.data(), bytes.size());
  ASSERT_EQ(es.size(), 5u);
  EXPECT_EQ(es[0].kind, EntryKind::Elf);
  EXPECT_EQ(es[0].arch, 100u);
  EXPECT_EQ(es[0].flags, 0x1000011u);
  EXPECT_EQ(es[0].unknown_flags(), 0u);
  EXPECT_EQ(es[0].options.size(), 16u);  // binary data on sm_100 ELF entries
  EXPECT_EQ(es[1].arch, 75u);
  EXPECT_EQ(es[2].arch, 90u);
  EXPECT_EQ(es[3].kind, EntryKind::Elf);
  EXPECT_EQ(es[3].arch, 100u);
  EXPECT_EQ(es[3].options.size(), 36u);
  EXPECT_EQ(es[4].kind, EntryKind::Ptx);
  EXPECT_EQ(es[4].arch, 100u);
  EXPECT_THAT(ptx_body(es[1]), StartsWith(".version 9.0\n.target sm_75\n"));
  EXPECT_THAT(ptx_body(es[2]), StartsWith(".version 9.0\n.target sm_90\n"));
  EXPECT_THAT(ptx_body(es[4]), StartsWith(".version 9.0\n.target sm_100\n"));

  EXPECT_EQ(select_ptx(es, 75).at(0), &es[1]);
  EXPECT_EQ(select_ptx(es, 89).at(0), &es[1]);
  EXPECT_EQ(select_ptx(es, 90).at(0), &es[2]);
  EXPECT_EQ(select_ptx(es, 99).at(0), &es[2]);
  EXPECT_EQ(select_ptx(es, 120).at(0), &es[4]);
  EXPECT_EQ(select_ptx(es, 120).size(), 1u);

  auto ks = cubin_kernels(es[3].image);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0].name, kVecadd);
  EXPECT_EQ(ks[0].regs, 12u);          // ptxas -v: sm_100, 12 registers
  EXPECT_EQ(ks[0].static_shared, 0u);  // .nv.shared.reserved.0 is not the kernel's
  EXPECT_EQ(ks[0].param_bytes, 28u);
}

// ---- cubin metadata (expected values from ptxas_v.txt) ---------------------------------------

TEST(Cubin, SmemKernelsMatchPtxas) {
  auto bytes = load("smem_default.fatbin");
  auto es = parse(bytes.data(), bytes.size());
  ASSERT_EQ(es.size(), 3u);
  ASSERT_EQ(es[1].kind, EntryKind::Elf);
  ASSERT_EQ(es[2].kind, EntryKind::Ptx);
  EXPECT_THAT(es[2].ptx, HasSubstr(".const .align 4 .b8 coeffs[64];"));
  for (const char* k :
       {"_Z9block_sumPKfPfi", "_Z8dyn_smemPii", "_Z11local_arrayPii", "_Z7stencilIfLi3EEvPKT_PS0_i",
        "_Z7stencilIdLi2EEvPKT_PS0_i", "_Z5scaleIfEvPT_S0_i", "_Z5scaleIiEvPT_S0_i"})
    EXPECT_THAT(es[2].ptx, HasSubstr(std::string(".visible .entry ") + k + "("));

  auto ks = cubin_kernels(es[1].image);
  ASSERT_EQ(ks.size(), 7u);
  struct Want {
    const char* name;
    uint32_t regs, smem, frame, params, cmem0, barriers, max_threads;
  };
  const Want want[] = {
      {"_Z5scaleIiEvPT_S0_i", 8, 0, 0, 16, 368, 0, 0},
      {"_Z5scaleIfEvPT_S0_i", 8, 0, 0, 16, 368, 0, 0},
      {"_Z7stencilIdLi2EEvPKT_PS0_i", 22, 0, 0, 20, 372, 0, 0},
      {"_Z7stencilIfLi3EEvPKT_PS0_i", 20, 0, 0, 20, 372, 0, 0},
      {"_Z11local_arrayPii", 64, 0, 256, 12, 364, 0, 0},
      {"_Z8dyn_smemPii", 14, 320, 0, 12, 364, 1, 0},
      {"_Z9block_sumPKfPfi", 10, 512, 0, 20, 372, 1, 128},
  };
  for (size_t i = 0; i < 7; ++i) {
    SCOPED_TRACE(want[i].name);
    EXPECT_EQ(ks[i].name, want[i].name);
    EXPECT_EQ(ks[i].regs, want[i].regs);
    EXPECT_EQ(ks[i].static_shared, want[i].smem);
    EXPECT_EQ(ks[i].local_bytes, want[i].frame);
    EXPECT_EQ(ks[i].param_bytes, want[i].params);
    EXPECT_EQ(ks[i].const0_bytes, want[i].cmem0);
    EXPECT_EQ(ks[i].barriers, want[i].barriers);
    EXPECT_EQ(ks[i].max_threads, want[i].max_threads);
    EXPECT_EQ(ks[i].param_offset, 0x160u);
    EXPECT_EQ(ks[i].max_reg_count, 0xffu);
  }
  EXPECT_EQ(ks[4].min_stack, 256u);  // "256 bytes cumulative stack size"
  EXPECT_EQ(ks[6].max_ntid[0], 128u);
  EXPECT_EQ(ks[6].max_ntid[1], 1u);
  EXPECT_EQ(ks[6].max_ntid[2], 1u);
  // block_sum(const float*, float*, int)
  ASSERT_EQ(ks[6].params.size(), 3u);
  EXPECT_EQ(ks[6].params[0].offset, 0u);
  EXPECT_EQ(ks[6].params[0].size, 8u);
  EXPECT_EQ(ks[6].params[1].offset, 8u);
  EXPECT_EQ(ks[6].params[1].size, 8u);
  EXPECT_EQ(ks[6].params[2].ordinal, 2u);
  EXPECT_EQ(ks[6].params[2].offset, 16u);
  EXPECT_EQ(ks[6].params[2].size, 4u);
}

TEST(Cubin, VecaddRegistersPerBuild) {
  struct Case {
    const char* file;
    size_t entry;
    uint32_t arch, regs;
  };
  // ptxas -v: sm_75 12 regs, -G 13 regs, sm_80 12 regs.
  for (const Case& c :
       {Case{"vecadd_default.fatbin", 1, 75, 12}, Case{"vecadd_size.fatbin", 1, 75, 12},
        Case{"vecadd_debug.fatbin", 1, 75, 13}, Case{"vecadd_multi.fatbin", 2, 80, 12},
        Case{"vecadd_sass.fatbin", 1, 80, 12}}) {
    SCOPED_TRACE(c.file);
    auto bytes = load(c.file);
    auto es = parse(bytes.data(), bytes.size());
    ASSERT_GT(es.size(), c.entry);
    ASSERT_EQ(es[c.entry].kind, EntryKind::Elf);
    EXPECT_EQ(es[c.entry].arch, c.arch);
    auto ks = cubin_kernels(es[c.entry].image);
    ASSERT_EQ(ks.size(), 1u);
    EXPECT_EQ(ks[0].name, kVecadd);
    EXPECT_EQ(ks[0].regs, c.regs);
    EXPECT_EQ(ks[0].local_bytes, 0u);
    EXPECT_EQ(ks[0].static_shared, 0u);
    EXPECT_EQ(ks[0].param_bytes, 28u);
    EXPECT_EQ(ks[0].const0_bytes, 380u);  // "380 bytes cmem[0]"
    ASSERT_EQ(ks[0].params.size(), 4u);
    EXPECT_EQ(ks[0].params[3].offset, 24u);
    EXPECT_EQ(ks[0].params[3].size, 4u);
  }
  // The dlink cubin is empty: no kernels.
  auto bytes = load("vecadd_default.fatbin");
  auto es = parse(bytes.data(), bytes.size());
  EXPECT_TRUE(cubin_kernels(es[0].image).empty());
}

// ---- -rdc=true ---------------------------------------------------------------------------------

TEST(Rdc, LinkedAndPrelinkedFatbins) {
  auto linked = load("rdc_nv_fatbin.fatbin");
  auto es = parse(linked.data(), linked.size());
  ASSERT_EQ(es.size(), 1u);  // the nvlinked SASS only
  EXPECT_EQ(es[0].kind, EntryKind::Elf);
  EXPECT_EQ(es[0].arch, 75u);
  expect_user_error([&] { select_ptx(es, 75); }, "contains no PTX");
  auto ks = cubin_kernels(es[0].image);
  ASSERT_EQ(ks.size(), 2u);  // the device function _Z6helperf is not a kernel
  EXPECT_EQ(ks[0].name, "_Z6kern_aPfi");
  EXPECT_EQ(ks[0].regs, 24u);  // nvlink -v: 24 registers
  EXPECT_EQ(ks[1].name, "_Z6kern_bPfi");
  EXPECT_EQ(ks[1].regs, 8u);
  EXPECT_EQ(ks[1].param_bytes, 12u);

  auto rel = load("rdc_nv_relfatbin.fatbin");
  auto rs = parse(rel.data(), rel.size());
  ASSERT_EQ(rs.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rs[i].container, i / 2);
    EXPECT_EQ(rs[i].kind, i % 2 ? EntryKind::Ptx : EntryKind::Elf);
    EXPECT_EQ(rs[i].flags, 0x8011u);
    EXPECT_EQ(rs[i].arch, 75u);
  }
  EXPECT_EQ(rs[1].options, "--compile-only  ");
  EXPECT_THAT(rs[1].ptx, HasSubstr(".visible .entry _Z6kern_aPfi("));
  EXPECT_THAT(rs[1].ptx, HasSubstr(".extern .func (.param .b32 func_retval0) _Z6helperf"));
  EXPECT_THAT(rs[3].ptx, HasSubstr(".visible .func (.param .b32 func_retval0) _Z6helperf"));
  EXPECT_THAT(rs[3].ptx, HasSubstr(".visible .entry _Z6kern_bPfi("));
  auto sel = select_ptx(rs, 75);
  ASSERT_EQ(sel.size(), 2u);  // one per TU
  EXPECT_EQ(sel[0], &rs[1]);
  EXPECT_EQ(sel[1], &rs[3]);
  // The relocatable cubins: per-TU register counts before linking (ptxas -v).
  auto ka = cubin_kernels(rs[0].image);
  ASSERT_EQ(ka.size(), 1u);
  EXPECT_EQ(ka[0].name, "_Z6kern_aPfi");
  EXPECT_EQ(ka[0].regs, 24u);
  auto kb = cubin_kernels(rs[2].image);
  ASSERT_EQ(kb.size(), 1u);
  EXPECT_EQ(kb[0].regs, 8u);
}

TEST(Registration, WrapperVersion1) {
  auto bytes = load("vecadd_default.fatbin");
  struct Wrapper {
    int32_t magic, version;
    const void* data;
    const void* field;
  } w{int32_t(kWrapperMagic), 1, bytes.data() + 0x5f8, nullptr};
  static_assert(sizeof(Wrapper) == 24);
  const Regions mem{{{&w, sizeof w}, {bytes.data(), bytes.size()}}};
  auto es = from_registration(&w, mem);
  ASSERT_EQ(es.size(), 2u);
  EXPECT_EQ(es[0].kind, EntryKind::Elf);
  EXPECT_EQ(es[1].kind, EntryKind::Ptx);
  EXPECT_THAT(es[1].ptx, HasSubstr(kVecadd));

  size_t consumed = 0;
  auto one = parse_one(bytes.data(), bytes.size(), &consumed);
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(consumed, 0x5f8u);
  one = parse_one(bytes.data() + 0x5f8, bytes.size() - 0x5f8, &consumed);
  EXPECT_EQ(one.size(), 2u);
  EXPECT_EQ(consumed, bytes.size() - 0x5f8);

  expect_user_error([&] { from_registration(nullptr, mem); }, "null");
  Wrapper bad{0x12345678, 1, bytes.data(), nullptr};
  Wrapper v3{int32_t(kWrapperMagic), 3, bytes.data(), nullptr};
  Wrapper nodata{int32_t(kWrapperMagic), 1, nullptr, nullptr};
  const Regions mem2{{{&bad, sizeof bad}, {&v3, sizeof v3}, {&nodata, sizeof nodata}}};
  expect_user_error([&] { from_registration(&bad, mem2); }, "bad fatbin wrapper magic 0x12345678");
  expect_user_error([&] { from_registration(&v3, mem2); }, "unsupported fatbin wrapper version 3");
  expect_user_error([&] { from_registration(&nodata, mem2); }, "null data pointer");
}

TEST(Registration, WrapperVersion2WalksPrelinkedFatbins) {
  auto linked = load("rdc_nv_fatbin.fatbin");
  auto rel = load("rdc_nv_relfatbin.fatbin");
  size_t first = 0;
  parse_one(rel.data(), rel.size(), &first);
  ASSERT_EQ(first, 0x708u);
  struct Wrapper {
    int32_t magic, version;
    const void* data;
    const void* field;
  };
  // Elements may be containers or (per-TU) wrappers.
  Wrapper tu2{int32_t(kWrapperMagic), 1, rel.data() + first, nullptr};
  const void* prelinked[] = {rel.data(), &tu2, nullptr};
  Wrapper w{int32_t(kWrapperMagic), 2, linked.data(), prelinked};
  Regions mem{{{&w, sizeof w},
               {&tu2, sizeof tu2},
               {prelinked, sizeof prelinked},
               {linked.data(), linked.size()},
               {rel.data(), rel.size()}}};
  auto es = from_registration(&w, mem);
  ASSERT_EQ(es.size(), 5u);
  EXPECT_EQ(es[0].kind, EntryKind::Elf);
  EXPECT_EQ(es[0].container, 0u);
  EXPECT_EQ(es[1].container, 1u);
  EXPECT_EQ(es[2].container, 1u);
  EXPECT_EQ(es[3].container, 2u);
  EXPECT_EQ(es[4].container, 2u);
  auto sel = select_ptx(es, 75);
  ASSERT_EQ(sel.size(), 2u);
  EXPECT_THAT(sel[0]->ptx, HasSubstr("_Z6kern_aPfi"));
  EXPECT_THAT(sel[1]->ptx, HasSubstr("_Z6kern_bPfi"));

  // An empty prelinked list (not yet filled in) or none at all.
  const void* empty[] = {nullptr};
  Wrapper w_empty{int32_t(kWrapperMagic), 2, linked.data(), empty};
  Wrapper w_null{int32_t(kWrapperMagic), 2, linked.data(), nullptr};
  mem.bufs.insert(mem.bufs.end(),
                  {{&w_empty, sizeof w_empty}, {empty, sizeof empty}, {&w_null, sizeof w_null}});
  EXPECT_EQ(from_registration(&w_empty, mem).size(), 1u);
  EXPECT_EQ(from_registration(&w_null, mem).size(), 1u);

  std::vector<uint8_t> junk(64, 0xab);
  const void* bad[] = {rel.data(), junk.data(), nullptr};
  Wrapper w_bad{int32_t(kWrapperMagic), 2, linked.data(), bad};
  mem.bufs.insert(mem.bufs.end(),
                  {{junk.data(), junk.size()}, {bad, sizeof bad}, {&w_bad, sizeof w_bad}});
  expect_user_error([&] { from_registration(&w_bad, mem); }, "prelinked fatbin #1: bad magic");
}

// Issue #10 item 7: __cudaRegisterFatBinary passes only a pointer; an oversized header or
// payload size used to make the reader run off the program's data (segfault). Every read is now
// bounded by the memory readable at each pointer.
TEST(Registration, OversizedSizesAreBoundedByReadableMemory) {
  auto bytes = load("vecadd_default.fatbin");
  struct Wrapper {
    int32_t magic, version;
    const void* data;
    const void* field;
  };
  const size_t second = 0x5f8;  // the second container (SASS + PTX)
  const size_t avail = bytes.size() - second;
  for (int field = 0; field < 2; ++field) {
    std::vector<uint8_t> b = bytes;
    std::string want;
    if (field == 0) {
      put16(b, second + 6, 0xffff);  // header_size
      want = fmt::format(
          "fatbin: fatbin container at offset 0x0: header (65535 bytes) + payload ({} bytes) run "
          "past the end of the data ({} bytes available)",
          get32(b, second + 8), avail);
    } else {
      put64(b, second + 8, 0xfffffff0);  // payload_size
      want = fmt::format(
          "fatbin: fatbin container at offset 0x0: header (16 bytes) + payload (4294967280 bytes) "
          "run past the end of the data ({} bytes available)",
          avail);
    }
    Wrapper w{int32_t(kWrapperMagic), 1, b.data() + second, nullptr};
    const Regions mem{{{&w, sizeof w}, {b.data(), b.size()}}};
    try {
      from_registration(&w, mem);
      ADD_FAILURE() << "field " << field << " accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()), want);
    }
  }
  // An entry's sizes are bounded by its container (which is bounded by readable memory).
  {
    std::vector<uint8_t> b = bytes;
    put64(b, second + 16 + 8, 0x7fffffff);  // first entry's payload_size
    Wrapper w{int32_t(kWrapperMagic), 1, b.data() + second, nullptr};
    const Regions mem{{{&w, sizeof w}, {b.data(), b.size()}}};
    expect_user_error([&] { from_registration(&w, mem); },
                      "fatbin: fatbin entry at offset 0x10: payload size 0x7fffffff runs past the "
                      "end of the container");
  }
  // Pointers into nothing readable, or too few readable bytes.
  Wrapper w{int32_t(kWrapperMagic), 1, bytes.data() + second, nullptr};
  expect_user_error([&] { from_registration(&w, Regions{}); },
                    "bytes are readable there, need at least 4 (the pointer does not point into "
                    "the program's loaded data)");
  expect_user_error(
      [&] {
        from_registration(&w, Regions{{{&w, 8}}});
      },
      "__cudaRegisterFatBinary: fatbin wrapper at ");
  expect_user_error(
      [&] {
        from_registration(&w, Regions{{{&w, 8}}});
      },
      ": 8 bytes are readable there, need at least 24");
  expect_user_error(
      [&] {
        from_registration(&w, Regions{{{&w, sizeof w}}});
      },
      "fatbin: fatbin container at ");
  expect_user_error(
      [&] {
        from_registration(&w, Regions{{{&w, sizeof w}, {bytes.data(), bytes.size() - 8}}});
      },
      fmt::format("run past the end of the data ({} bytes available)", avail - 8));
  const void* list[] = {bytes.data(), nullptr};
  Wrapper w2{int32_t(kWrapperMagic), 2, nullptr, list};
  expect_user_error(
      [&] {
        from_registration(&w2, Regions{{{&w2, sizeof w2}, {list, 8}, {bytes.data(), second}}});
      },
      "fatbin wrapper (version 2): prelinked list slot #1 at ");
  EXPECT_EQ(from_registration(
                &w2, Regions{{{&w2, sizeof w2}, {list, sizeof list}, {bytes.data(), second}}})
                .size(),
            1u);
}

// ---- host binaries -------------------------------------------------------------------------

TEST(HostBinary, RdcExecutable) {
  auto es = from_host_binary(fixture_path("rdc_app"));
  ASSERT_EQ(es.size(), 5u);  // .nv_fatbin: 1 container; __nv_relfatbin: 2 containers
  EXPECT_EQ(es[0].container, 0u);
  EXPECT_EQ(es[0].kind, EntryKind::Elf);
  EXPECT_EQ(es[1].container, 1u);
  EXPECT_EQ(es[3].container, 2u);
  auto sel = select_ptx(es, 75);
  ASSERT_EQ(sel.size(), 2u);
  EXPECT_THAT(sel[0]->ptx, HasSubstr(".visible .entry _Z6kern_aPfi("));
  EXPECT_THAT(sel[1]->ptx, HasSubstr(".visible .entry _Z6kern_bPfi("));
  // Same content as the extracted section blobs.
  auto rel = load("rdc_nv_relfatbin.fatbin");
  auto rs = parse(rel.data(), rel.size());
  EXPECT_EQ(es[2].ptx, rs[1].ptx);
  EXPECT_EQ(es[4].ptx, rs[3].ptx);
}

TEST(HostBinary, RawFatbinCubinAndErrors) {
  auto es = from_host_binary(fixture_path("vecadd_default.fatbin"));
  EXPECT_EQ(es.size(), 3u);

  // A bare cubin: arch from e_flags.
  auto bytes = load("smem_default.fatbin");
  auto fs = parse(bytes.data(), bytes.size());
  auto cub = from_host_image(fs[1].image, "smem.cubin");
  ASSERT_EQ(cub.size(), 1u);
  EXPECT_EQ(cub[0].kind, EntryKind::Elf);
  EXPECT_EQ(cub[0].arch, 75u);
  EXPECT_EQ(cub[0].image, fs[1].image);

  expect_user_error([] { from_host_binary(fixture_path("does-not-exist")); }, "cannot open");
  expect_user_error([] { from_host_binary(fixture_path("README.md")); },
                    "is neither an ELF file nor a fatbin");
  // The test executable itself is an ELF without device code.
  expect_user_error([] { from_host_binary("/proc/self/exe"); }, "has no .nv_fatbin section");
  // cubin_kernels() refuses host ELF files.
  auto host = load("rdc_app");
  expect_user_error([&] { cubin_kernels(host); }, "not a CUDA ELF image");
}

// ---- concatenation, padding, synthetic entries -----------------------------------------------

TEST(Fatbin, ConcatenatedContainersAndEmptyPayload) {
  auto a = load("vecadd_default.fatbin");
  auto b = load("smem_default.fatbin");
  std::vector<uint8_t> empty(16, 0);
  put32(empty, 0, kContainerMagic);
  put16(empty, 4, 1);
  put16(empty, 6, 16);  // payload_size 0 is legal

  std::vector<uint8_t> all = a;
  all.insert(all.end(), empty.begin(), empty.end());
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), 8, 0);  // section padding
  auto es = parse(all.data(), all.size());
  ASSERT_EQ(es.size(), 6u);
  EXPECT_EQ(es[2].container, 1u);
  EXPECT_EQ(es[3].container, 3u);  // container 2 was the empty one
  EXPECT_EQ(es[5].container, 4u);
  EXPECT_EQ(es[3].offset, a.size() + 16 + 0x10);
  EXPECT_EQ(select_ptx(es, 75).size(), 2u);

  EXPECT_TRUE(parse(empty.data(), empty.size()).empty());
  EXPECT_TRUE(parse(nullptr, 0).empty());
  size_t consumed = 0;
  EXPECT_TRUE(parse_one(empty.data(), empty.size(), &consumed).empty());
  EXPECT_EQ(consumed, 16u);

  // A container whose payload_size is too small for its entry.
  auto c1 = make_container({RawEntry{2, 0x11, 75, {1, 2, 3}}});
  ASSERT_EQ(c1.size() % 8, 0u);
  std::vector<uint8_t> odd = c1;
  put64(odd, 8, get32(odd, 8) - 5);  // the entry's payload now overruns the container
  expect_user_error([&] { parse(odd.data(), odd.size()); }, "runs past the end of the container");
}

TEST(Fatbin, SyntheticEntries) {
  // Kind 4 (e.g. LTO-IR) -> Other, payload kept.
  auto c = make_container({RawEntry{4, 0x11, 90, {9, 8, 7, 6}}});
  auto es = parse(c.data(), c.size());
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].kind, EntryKind::Other);
  EXPECT_EQ(es[0].raw_kind, 4u);
  EXPECT_EQ(es[0].arch, 90u);
  ASSERT_EQ(es[0].image.size(), 8u);  // padded payload
  EXPECT_EQ(es[0].image[0], 9u);

  // Unknown non-compression flag bits are ignored but reported.
  c = make_container(
      {RawEntry{1, 0x11 | (uint64_t(1) << 40) | 0x400, 75, text_bytes(".version 9.0")}});
  es = parse(c.data(), c.size());
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].ptx, ".version 9.0");
  EXPECT_EQ(es[0].unknown_flags(), (uint64_t(1) << 40) | 0x400);

  // Sizes of compressed data without a known compression flag: unsupported compression.
  c = make_container({RawEntry{1, 0x4011, 75, text_bytes("abc"), 4, 4}});
  expect_user_error([&] { parse(c.data(), c.size()); }, "no known compression");
  // Both zstd and LZ4.
  c = make_container({RawEntry{1, 0xa011, 75, text_bytes("abc"), 4, 4}});
  expect_user_error([&] { parse(c.data(), c.size()); }, "both zstd (0x8000) and LZ4 (0x2000)");
  // zstd flag on data that is not a zstd frame.
  c = make_container({RawEntry{1, 0x8011, 75, text_bytes("not zstd"), 9, 9}});
  expect_user_error([&] { parse(c.data(), c.size()); }, "is not a zstd frame");
  // Compressed size larger than the payload.
  c = make_container({RawEntry{1, 0x2011, 75, text_bytes("abc"), 100, 4}});
  expect_user_error([&] { parse(c.data(), c.size()); }, "compressed size 0x64 is not within");
  // LZ4 raw block: a literal-only block "hello" (token 0x50) decodes to 5 bytes.
  c = make_container({RawEntry{1, 0x2011, 75, {0x50, 'h', 'e', 'l', 'l', 'o'}, 6, 5}});
  es = parse(c.data(), c.size());
  EXPECT_EQ(es.at(0).ptx, "hello");
  // ...and must produce exactly uncompressed_size bytes.
  c = make_container({RawEntry{1, 0x2011, 75, {0x50, 'h', 'e', 'l', 'l', 'o'}, 6, 7}});
  expect_user_error([&] { parse(c.data(), c.size()); }, "LZ4");

  // Flip the zstd frame content size of a real entry: mismatch with the header.
  auto real = load("vecadd_default.fatbin");
  auto bad = real;
  put64(bad, 0x12f0 + 0x38, 0x3e2);  // uncompressed_size 0x3e1 -> 0x3e2
  expect_user_error([&] { parse(bad.data(), bad.size()); },
                    "zstd frame content size 993 differs from the header's uncompressed_size 994");
}

TEST(Fatbin, ErrorMessagesNameTheOffset) {
  auto bytes = load("vecadd_default.fatbin");
  expect_user_error([&] { parse(bytes.data(), 0x700); },
                    "fatbin container at offset 0x5f8: header (16 bytes) + payload (3784 bytes) "
                    "run past the end of the data (264 bytes available)");
  auto bad = bytes;
  bad[0x5f8] ^= 0xff;
  expect_user_error([&] { parse(bad.data(), bad.size()); },
                    "fatbin container at offset 0x5f8: bad magic 0xba55edaf");
  bad = bytes;
  put32(bad, 0x12f0 + 4, 0x20);  // PTX entry header size below 0x40
  expect_user_error([&] { parse(bad.data(), bad.size()); },
                    "fatbin entry at offset 0x12f0: header size 0x20 is smaller than 0x40");
  bad = bytes;
  put16(bad, 4, 2);
  expect_user_error([&] { parse(bad.data(), bad.size()); },
                    "fatbin container at offset 0x0: unsupported version 2");
  expect_user_error([&] { parse(bytes.data(), 5); }, "truncated header (5 bytes, need 16)");
}

// ---- robustness ------------------------------------------------------------------------------

const char* kFixtures[] = {"vecadd_default.fatbin", "vecadd_size.fatbin",     "vecadd_speed.fatbin",
                           "vecadd_none.fatbin",    "vecadd_debug.fatbin",    "vecadd_multi.fatbin",
                           "vecadd_sass.fatbin",    "vecadd_archs.fatbin",    "smem_default.fatbin",
                           "rdc_nv_fatbin.fatbin",  "rdc_nv_relfatbin.fatbin"};

// Iteration multiplier for the randomized tests: SIMTLAB_FUZZ_SCALE=50 for a long run.
int fuzz_scale() {
  const char* v = std::getenv("SIMTLAB_FUZZ_SCALE");
  int n = v ? std::atoi(v) : 1;
  return n > 0 ? n : 1;
}

// Runs everything a caller would run on parsed input. Only UserError may escape.
void exercise(const uint8_t* data, size_t len) {
  auto es = parse(data, len);
  for (const auto& e : es)
    if (e.kind == EntryKind::Elf) {
      try {
        cubin_kernels(e.image);
      } catch (const UserError&) {
      }
    }
  try {
    select_ptx(es, 90);
  } catch (const UserError&) {
  }
}

TEST(Robustness, EveryTruncationFailsCleanlyExceptAtContainerBoundaries) {
  for (const char* name : kFixtures) {
    SCOPED_TRACE(name);
    auto bytes = load(name);
    std::vector<size_t> boundaries{0};
    for (size_t off = 0; off < bytes.size();) {
      size_t consumed = 0;
      parse_one(bytes.data() + off, bytes.size() - off, &consumed);
      off += consumed;
      boundaries.push_back(off);
    }
    for (size_t len = 0; len <= bytes.size(); ++len) {
      // Copy into an exactly-sized buffer so that ASan catches any over-read.
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);
      bool ok = true;
      try {
        exercise(cut.data(), cut.size());
      } catch (const UserError&) {
        ok = false;
      }
      bool boundary = std::find(boundaries.begin(), boundaries.end(), len) != boundaries.end();
      EXPECT_EQ(ok, boundary) << "length " << len;
      if (len < boundaries[1] && len % 7 == 0) {  // cut inside the first container
        EXPECT_THROW(parse_one(cut.data(), cut.size()), UserError) << "length " << len;
      }
    }
  }
}

TEST(Robustness, GarbageIsRejected) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 2000 * fuzz_scale(); ++i) {
    std::vector<uint8_t> junk(rng() % 256);
    for (auto& b : junk) b = uint8_t(rng());
    if (i % 2 && junk.size() >= 16) {  // plausible container header over random entries
      put32(junk, 0, kContainerMagic);
      put16(junk, 4, 1);
      put16(junk, 6, 16);
      put64(junk, 8, rng() % 2 ? junk.size() - 16 : rng());
    }
    try {
      exercise(junk.data(), junk.size());
    } catch (const UserError&) {
    }
    try {
      cubin_kernels(junk);
    } catch (const UserError&) {
    }
    try {
      from_host_image(junk, "junk");
    } catch (const UserError&) {
    }
  }
  std::vector<uint8_t> text = text_bytes("hello, this is not a fatbin at all");
  expect_user_error([&] { parse(text.data(), text.size()); }, "bad magic");
}

// Random mutations of real fixtures: headers (where corruption is interesting) get most of the
// hits; sizes are sometimes set to boundary values. Only success or UserError are acceptable.
TEST(Robustness, RandomMutationsOfFixtures) {
  std::mt19937_64 rng(20250101);
  const uint64_t specials[] = {0,
                               1,
                               7,
                               8,
                               0x3f,
                               0x40,
                               0xffff,
                               0x7fffffff,
                               0xffffffff,
                               0x100000000ull,
                               ~uint64_t(0),
                               ~uint64_t(0) - 15};
  size_t successes = 0, failures = 0;
  for (const char* name : kFixtures) {
    SCOPED_TRACE(name);
    const auto bytes = load(name);
    // Offsets of container and entry headers.
    std::vector<size_t> headers;
    for (const auto& e : parse(bytes.data(), bytes.size())) headers.push_back(e.offset);
    for (size_t off = 0; off < bytes.size();) {
      headers.push_back(off);
      size_t consumed = 0;
      parse_one(bytes.data() + off, bytes.size() - off, &consumed);
      off += consumed;
    }
    for (int iter = 0; iter < 600 * fuzz_scale(); ++iter) {
      auto m = bytes;
      int n = 1 + int(rng() % 4);
      for (int k = 0; k < n; ++k) {
        size_t pos;
        if (rng() % 4 != 0) {
          pos = headers[rng() % headers.size()] + rng() % 0x60;
        } else {
          pos = rng() % m.size();
        }
        if (pos >= m.size()) pos = rng() % m.size();
        switch (rng() % 3) {
          case 0:
            m[pos] ^= uint8_t(1u << (rng() % 8));
            break;
          case 1:
            m[pos] = uint8_t(rng());
            break;
          default: {
            uint64_t v = specials[rng() % std::size(specials)];
            size_t w = (rng() % 2) ? 4 : 8;
            pos &= ~size_t(3);
            for (size_t b = 0; b < w && pos + b < m.size(); ++b) m[pos + b] = uint8_t(v >> (8 * b));
          }
        }
      }
      if (rng() % 8 == 0) m.resize(rng() % (m.size() + 1));
      try {
        exercise(m.data(), m.size());
        ++successes;
      } catch (const UserError&) {
        ++failures;
      }
    }
  }
  // Both outcomes must actually occur, or the test is not exercising anything.
  EXPECT_GT(successes, 100u);
  EXPECT_GT(failures, 100u);
}

TEST(Robustness, RandomMutationsOfCubinsAndHostBinary) {
  std::mt19937_64 rng(777);
  auto fb = load("smem_default.fatbin");
  auto es = parse(fb.data(), fb.size());
  const auto cubin = es[1].image;
  const auto host = load("rdc_app");
  // Offsets worth hitting: ELF header, section headers, .nv.info sections.
  elf::Reader r(cubin.data(), cubin.size(), "cubin");
  std::vector<std::pair<size_t, size_t>> hot{{0, 64}};
  for (const auto& s : r.sections())
    if (s.type == 0x70000000 || s.type == 2 /*SHT_SYMTAB*/) hot.push_back({s.offset, s.size});
  size_t shoff = get32(cubin, 0x28);
  hot.push_back({shoff, cubin.size() - shoff});
  size_t ok = 0;
  for (int iter = 0; iter < 3000 * fuzz_scale(); ++iter) {
    auto m = cubin;
    int n = 1 + int(rng() % 3);
    for (int k = 0; k < n; ++k) {
      auto [start, len] = hot[rng() % hot.size()];
      size_t pos = start + (len ? rng() % len : 0);
      if (pos >= m.size()) continue;
      m[pos] = (rng() % 2) ? uint8_t(rng()) : uint8_t(m[pos] ^ (1u << (rng() % 8)));
    }
    try {
      cubin_kernels(m);
      ++ok;
    } catch (const UserError&) {
    }
  }
  EXPECT_GT(ok, 0u);
  for (int iter = 0; iter < 500 * fuzz_scale(); ++iter) {
    auto m = host;
    for (int k = 0; k < 3; ++k) {
      size_t pos = (rng() % 2) ? rng() % 64 : rng() % m.size();
      m[pos] = uint8_t(rng());
    }
    try {
      from_host_image(m, "mutated");
    } catch (const UserError&) {
    }
  }
}

TEST(NvInfo, RecordFormats) {
  std::vector<uint8_t> b = {
      4, 0x2f, 8,    0, 1, 0, 0, 0, 12, 0, 0, 0,  // SVAL REGCOUNT {sym 1, 12}
      3, 0x19, 0x1c, 0,                           // HVAL CBANK_PARAM_SIZE 28
      2, 0x4c, 1,    0,                           // BVAL NUM_BARRIERS 1
      1, 0x21, 0,    0,                           // NVAL
  };
  auto as = parse_nv_info(b, "test");
  ASSERT_EQ(as.size(), 4u);
  EXPECT_EQ(as[0].code, eiattr::kRegCount);
  EXPECT_EQ(as[0].u32(0), 1u);
  EXPECT_EQ(as[0].u32(1), 12u);
  EXPECT_THROW(as[0].u32(2), UserError);
  EXPECT_EQ(as[1].value, 28u);
  EXPECT_EQ(as[2].value, 1u);
  EXPECT_EQ(as[3].format, eiattr::kFmtNval);
  EXPECT_EQ(as[3].offset, 20u);

  auto t = b;
  t.resize(10);
  expect_user_error([&] { parse_nv_info(t, "sec"); },
                    "sec: EIATTR 0x2f record at offset 0x0 declares 8 bytes but only 6 remain");
  t = b;
  t.resize(14);
  expect_user_error([&] { parse_nv_info(t, "sec"); }, "truncated EIATTR record at offset 0xc");
  t = b;
  t[12] = 9;
  expect_user_error([&] { parse_nv_info(t, "sec"); }, "unknown format 9");
}

}  // namespace
}  // namespace simtlab::ptx::fatbin
