// Memory instructions (PTX ISA 9.7.9): ld/st in every state space and size with sign/zero
// extension and truncation, vector forms, generic addressing (cvta, cvta.to, isspacep), module
// variables with initializers and address relocations, dynamic shared memory placement.
#include "tests/unit/func/op_test_util.h"

#include <cstring>

namespace simtlab::testing {
namespace {

struct MemType {
  const char* name;
  unsigned bytes;
  bool sgn;
};
const MemType kMemTypes[] = {
    {"u8", 1, false},  {"s8", 1, true},   {"b8", 1, false},  {"u16", 2, false}, {"s16", 2, true},
    {"b16", 2, false}, {"u32", 4, false}, {"s32", 4, true},  {"b32", 4, false}, {"u64", 8, false},
    {"s64", 8, true},  {"b64", 8, false}, {"f32", 4, false}, {"f64", 8, false}};

std::vector<uint8_t> pattern_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  // Make sure both signs appear in every element size.
  for (size_t i = 0; i < n; i += 3) v[i] |= 0x80;
  return v;
}

uint64_t read_le(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  std::memcpy(&v, p, n);
  return v;
}

std::string kernel_header(const char* name) {
  return fmt::format(
      ".visible .entry {}(.param .u64 pin, .param .u64 pout, .param .u32 n) {{\n"
      "  .reg .pred %p<4>;\n  .reg .b16 %h<8>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"
      "  ld.param.u32 %r1, [n];\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, "
      "%tid.x;\n"
      "  mad.lo.u32 %r5, %r2, %r3, %r4;\n  setp.ge.u32 %p1, %r5, %r1;\n  @%p1 bra DONE;\n"
      "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n",
      name);
}

TEST(Memory, GlobalLoadsEveryTypeAndRegisterWidth) {
  const uint32_t n = 200;
  for (const MemType& t : kMemTypes) {
    for (unsigned rw : {16u, 32u, 64u}) {
      if (rw < t.bytes * 8) continue;
      const char* reg = rw == 16 ? "%h1" : rw == 32 ? "%r6" : "%rd5";
      std::string k = kernel_header("ldk");
      k += fmt::format("  mul.wide.u32 %rd3, %r5, {};\n  add.u64 %rd3, %rd1, %rd3;\n", t.bytes);
      k += fmt::format("  ld.global.{} {}, [%rd3];\n", t.name, reg);
      k += "  mul.wide.u32 %rd4, %r5, 8;\n  add.u64 %rd4, %rd2, %rd4;\n";
      k += fmt::format("  st.global.b{} [%rd4], {};\n", rw, reg);
      k += "DONE:\n  ret;\n}\n";
      SCOPED_TRACE(fmt::format("ld.global.{} into a {}-bit register", t.name, rw));
      PtxRunner r(ptx_module(k));
      const auto bytes = pattern_bytes(n * t.bytes, t.bytes * 31 + rw);
      Addr in = r.upload(bytes), out = r.upload(std::vector<uint64_t>(n, 0));
      r.launch("ldk", {3, 1, 1}, {96, 1, 1}, 0, in, out, n);
      auto v = r.download<uint64_t>(out, n);
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t raw = read_le(&bytes[i * t.bytes], t.bytes);
        // Signed loads sign-extend into the wider register; others zero-extend.
        const uint64_t want = wrap(t.sgn ? sval(raw, t.bytes * 8) : i128(raw), rw);
        ASSERT_EQ(v[i], want) << "thread " << i;
      }
    }
  }
}

TEST(Memory, GlobalStoresEveryTypeTruncate) {
  const uint32_t n = 200;
  for (const MemType& t : kMemTypes) {
    for (unsigned rw : {16u, 32u, 64u}) {
      if (rw < t.bytes * 8) continue;
      const char* reg = rw == 16 ? "%h1" : rw == 32 ? "%r6" : "%rd5";
      std::string k = kernel_header("stk");
      k += "  mul.wide.u32 %rd3, %r5, 8;\n  add.u64 %rd3, %rd1, %rd3;\n";
      k += fmt::format("  ld.global.b{} {}, [%rd3];\n", rw, reg);
      k += fmt::format("  mul.wide.u32 %rd4, %r5, {};\n  add.u64 %rd4, %rd2, %rd4;\n", t.bytes * 2);
      k += fmt::format("  st.global.{} [%rd4], {};\n", t.name, reg);
      k += "DONE:\n  ret;\n}\n";
      SCOPED_TRACE(fmt::format("st.global.{} from a {}-bit register", t.name, rw));
      PtxRunner r(ptx_module(k));
      const auto src = pattern_bytes(n * 8, t.bytes * 17 + rw);
      // Each thread stores into the first half of a 2*size slot; the second half must survive.
      std::vector<uint8_t> init(n * t.bytes * 2, 0xcd);
      Addr in = r.upload(src), out = r.upload(init);
      r.launch("stk", {3, 1, 1}, {96, 1, 1}, 0, in, out, n);
      auto v = r.download<uint8_t>(out, init.size());
      for (uint32_t i = 0; i < n; ++i)
        for (unsigned b = 0; b < 2 * t.bytes; ++b) {
          const uint8_t want = b < t.bytes && b < rw / 8 ? src[i * 8 + b] : 0xcd;
          ASSERT_EQ(v[i * 2 * t.bytes + b], want) << "thread " << i << " byte " << b;
        }
    }
  }
}

TEST(Memory, VectorLoadsAndStores) {
  struct V {
    const char* type;
    unsigned elem, count;
    const char* regs;  // destination list
  };
  const V vs[] = {{"u32", 4, 2, "{%r6, %r7}"},          {"u32", 4, 4, "{%r6, %r7, %r8, %r9}"},
                  {"u64", 8, 2, "{%rd5, %rd6}"},        {"b16", 2, 4, "{%h1, %h2, %h3, %h4}"},
                  {"s16", 2, 2, "{%r6, %r7}"},          {"u8", 1, 4, "{%r6, %r7, %r8, %r9}"},
                  {"s8", 1, 4, "{%r6, %r7, %r8, %r9}"}, {"b32", 4, 4, "{%r9, %r8, %r7, %r6}"}};
  const uint32_t n = 150;
  for (const V& vt : vs) {
    SCOPED_TRACE(fmt::format("v{}.{}", vt.count, vt.type));
    const unsigned whole = vt.elem * vt.count;
    // Load a vector, store it back as a vector at a different stride (order preserved).
    std::string k = kernel_header("vk");
    k += fmt::format("  mul.wide.u32 %rd3, %r5, {};\n  add.u64 %rd3, %rd1, %rd3;\n", whole);
    k += fmt::format("  ld.global.v{}.{} {}, [%rd3];\n", vt.count, vt.type, vt.regs);
    k += fmt::format("  mul.wide.u32 %rd4, %r5, {};\n  add.u64 %rd4, %rd2, %rd4;\n", 2 * whole);
    k += fmt::format("  st.global.v{}.{} [%rd4+{}], {};\n", vt.count, vt.type, whole, vt.regs);
    k += "DONE:\n  ret;\n}\n";
    PtxRunner r(ptx_module(k));
    const auto src = pattern_bytes(n * whole, whole);
    std::vector<uint8_t> init(n * whole * 2, 0x11);
    Addr in = r.upload(src), out = r.upload(init);
    r.launch("vk", {2, 1, 1}, {96, 1, 1}, 0, in, out, n);
    auto v = r.download<uint8_t>(out, init.size());
    for (uint32_t i = 0; i < n; ++i) {
      for (unsigned b = 0; b < whole; ++b) ASSERT_EQ(v[i * 2 * whole + b], 0x11) << "thread " << i;
      for (unsigned e = 0; e < vt.count; ++e)
        for (unsigned b = 0; b < vt.elem; ++b) {
          // With the same register list for load and store the data round-trips unchanged
          // (even when the list is not in ascending register order).
          ASSERT_EQ(v[i * 2 * whole + whole + e * vt.elem + b], src[i * whole + e * vt.elem + b])
              << "thread " << i << " element " << e;
        }
    }
  }
}

TEST(Memory, VectorElementOrderAndSignExtension) {
  // ld.v4.s8 into 32-bit registers: element k comes from byte k, sign-extended.
  PtxRunner r(ptx_module(kernel_header("vk") + R"(
  mul.wide.u32 %rd3, %r5, 4;
  add.u64 %rd3, %rd1, %rd3;
  ld.global.v4.s8 {%r6, %r7, %r8, %r9}, [%rd3];
  mul.wide.u32 %rd4, %r5, 16;
  add.u64 %rd4, %rd2, %rd4;
  st.global.v4.u32 [%rd4], {%r6, %r7, %r8, %r9};
DONE:
  ret;
})"));
  const uint32_t n = 100;
  const auto src = pattern_bytes(n * 4, 77);
  Addr in = r.upload(src), out = r.upload(std::vector<uint32_t>(n * 4, 0));
  r.launch("vk", {2, 1, 1}, {64, 1, 1}, 0, in, out, n);
  auto v = r.download<uint32_t>(out, n * 4);
  for (uint32_t i = 0; i < n * 4; ++i) ASSERT_EQ(v[i], uint32_t(wrap(sval(src[i], 8), 32))) << i;
}

TEST(Memory, SharedMemoryAllSizesAcrossWarps) {
  // Thread t stores in shared memory, the CTA synchronizes, thread t reads the value written by
  // thread (t + 37) % n (another warp) with each access size.
  for (const MemType& t : kMemTypes) {
    SCOPED_TRACE(t.name);
    const unsigned rw = t.bytes == 8 ? 64 : 32;
    const char* reg = rw == 32 ? "%r6" : "%rd5";
    const char* reg2 = rw == 32 ? "%r7" : "%rd6";
    std::string k =
        fmt::format(R"(
.visible .entry sh(.param .u64 pin, .param .u64 pout) {{
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 8 .b8 pad[24];
  .shared .align 8 .b8 buf[{}];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mul.wide.u32 %rd3, %r1, 8;
  add.u64 %rd7, %rd1, %rd3;
  ld.global.b{} {}, [%rd7];
  mov.u64 %rd8, buf;
  mul.wide.u32 %rd9, %r1, {};
  add.u64 %rd9, %rd8, %rd9;
  st.shared.{} [%rd9], {};
  st.shared.u32 [pad+20], %r1;
  bar.sync 0;
  add.u32 %r3, %r1, 37;
  rem.u32 %r3, %r3, %r2;
  mul.wide.u32 %rd10, %r3, {};
  add.u64 %rd12, %rd8, %rd10;
  ld.shared.{} {}, [%rd12];
  add.u64 %rd11, %rd2, %rd3;
  st.global.b{} [%rd11], {};
  ret;
}}
)",
                    128 * t.bytes, rw, reg, t.bytes, t.name, reg, t.bytes, t.name, reg2, rw, reg2);
    PtxRunner r(ptx_module(k));
    const uint32_t nt = 128;
    const auto src = pattern_bytes(nt * 8, t.bytes);
    std::vector<uint64_t> in(nt);
    std::memcpy(in.data(), src.data(), nt * 8);
    Addr pin = r.upload(in), pout = r.upload(std::vector<uint64_t>(nt, 0));
    r.launch("sh", {2, 1, 1}, {nt, 1, 1}, 0, pin, pout);
    auto v = r.download<uint64_t>(pout, nt);
    for (uint32_t i = 0; i < nt; ++i) {
      const uint64_t raw = in[(i + 37) % nt] & mask_bits(t.bytes * 8);
      const uint64_t want = wrap(t.sgn ? sval(raw, t.bytes * 8) : i128(raw), rw);
      ASSERT_EQ(v[i], want) << "thread " << i;
    }
  }
}

TEST(Memory, LocalArraysArePerThread) {
  // Every thread fills its own local array, then reads it back in reverse with computed indices;
  // a thread seeing another thread's data (or stale data) changes the sum.
  PtxRunner r(ptx_module(R"(
.visible .entry loc(.param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .local .align 8 .b8 arr[128];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 1000, %r1;
  mov.u32 %r4, 0;
  mov.u64 %rd1, arr;
FILL:
  mul.lo.u32 %r5, %r4, %r3;
  add.u32 %r5, %r5, %r4;
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.local.u32 [%rd3], %r5;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, 32;
  @%p1 bra FILL;
  st.local.u8 [arr+127], %r1;
  st.local.u16 [arr+124], %r3;
  mov.u32 %r6, 0;
  mov.u32 %r4, 31;
READ:
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.local.u32 %r7, [%rd3];
  mul.lo.u32 %r7, %r7, %r4;
  add.u32 %r6, %r6, %r7;
  sub.u32 %r4, %r4, 1;
  setp.ne.u32 %p2, %r4, 0;
  @%p2 bra READ;
  ld.local.u8 %r8, [arr+127];
  ld.local.u16 %r9, [arr+124];
  mad.lo.u32 %r6, %r8, 65536, %r6;
  add.u32 %r6, %r6, %r9;
  mov.u32 %r11, %ntid.x;
  mad.lo.u32 %r10, %r2, %r11, %r1;
  mul.wide.u32 %rd4, %r10, 4;
  ld.param.u64 %rd5, [pout];
  add.u64 %rd5, %rd5, %rd4;
  st.global.u32 [%rd5], %r6;
  ret;
})"));
  const uint32_t nb = 3, nt = 80;
  Addr out = r.upload(std::vector<uint32_t>(nb * nt, 0));
  r.launch("loc", {nb, 1, 1}, {nt, 1, 1}, 0, out);
  auto v = r.download<uint32_t>(out, nb * nt);
  for (uint32_t b = 0; b < nb; ++b)
    for (uint32_t t = 0; t < nt; ++t) {
      const uint32_t id = b * 1000 + t;
      uint32_t arr[32];
      for (uint32_t k = 0; k < 32; ++k) arr[k] = k * id + k;
      // bytes 124..127 (element 31) were overwritten by the u16/u8 stores
      uint8_t* bytes = reinterpret_cast<uint8_t*>(arr);
      bytes[127] = uint8_t(t);
      bytes[124] = uint8_t(id);
      bytes[125] = uint8_t(id >> 8);
      uint32_t sum = 0;
      for (uint32_t k = 31; k != 0; --k) sum += arr[k] * k;
      sum += uint32_t(t & 0xff) * 65536 + (id & 0xffff);
      ASSERT_EQ(v[b * nt + t], sum) << "block " << b << " thread " << t;
    }
}

TEST(Memory, SharedAndLocalAddressesWrapIn32Bits) {
  // Shared and local addresses are 32 bits wide: register + instruction offset wraps modulo
  // 2^32. nvcc emits `sub.u32 a, a, 64; ld.shared.u32 v, [a+68]` (Rodinia nw): for a = 0 the
  // register holds 0xffffffc0 and the access is at 4, not 0x100000004. The same with a 64-bit
  // register, for stores, atomics and local memory.
  PtxRunner r(ptx_module(R"(
.visible .entry wrap(.param .u64 pout) {
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 sm[64];
  .local .align 4 .b32 lo[8];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  mad.lo.u32 %r5, %r1, 3, 7;
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  sub.u32 %r6, %r4, 64;
  ld.shared.u32 %r7, [%r6+68];
  bar.sync 0;
  cvt.u64.u32 %rd1, %r6;
  st.shared.u32 [%rd1+64], %r1;
  atom.shared.add.u32 %r8, [%r6+64], 1000;
  bar.sync 0;
  ld.shared.u32 %r9, [%r4];
  mov.u32 %r10, lo;
  sub.u32 %r11, %r10, 16;
  st.local.u32 [%r11+20], %r5;
  ld.local.u32 %r12, [%r10+4];
  add.u32 %r14, %r7, %r9;
  add.u32 %r14, %r14, %r12;
  ld.param.u64 %rd2, [pout];
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r14;
  ret;
})"));
  const uint32_t nt = 32;
  Addr out = r.upload(std::vector<uint32_t>(nt, 0));
  r.launch("wrap", {1, 1, 1}, {nt, 1, 1}, 0, out);
  auto v = r.download<uint32_t>(out, nt);
  for (uint32_t t = 0; t < nt; ++t) {
    // sm[t + 1] as first stored (sm[32] was never written: 0), sm[t] after the store of t
    // and the atomic add of 1000, lo[1] = 3t + 7.
    const uint32_t next = t + 1 < nt ? 3 * (t + 1) + 7 : 0;
    ASSERT_EQ(v[t], next + (t + 1000) + (3 * t + 7)) << "thread " << t;
  }
}

TEST(Memory, WrappedSharedAddressOutsideTheCtaStillFaults) {
  // 0xffffff00 + 512 wraps to 0x100, just past the 256 bytes of shared memory: the fault
  // names the wrapped address.
  PtxRunner r(ptx_module(R"(
.visible .entry wrapfault() {
  .reg .b32 %r<8>;
  .shared .align 4 .b32 sm[64];
  mov.u32 %r1, sm;
  sub.u32 %r2, %r1, 256;
  ld.shared.u32 %r3, [%r2+512];
  ret;
})"));
  try {
    r.launch("wrapfault", {1, 1, 1}, {1, 1, 1}, 0);
    ADD_FAILURE() << "no guest error";
  } catch (const GuestError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "invalid shared read of 4 bytes at address 0x100: outside the CTA's 256 "
                  "bytes of shared memory"),
              std::string::npos)
        << e.what();
  }
}

TEST(Memory, ModuleVariablesInitializersAndRelocations) {
  PtxRunner r(ptx_module(R"(
.const .align 4 .u32 tbl[6] = {11, 22, 33, 44, 55, 0xffffffff};
.global .align 4 .u32 bar[3] = {2, 3, 5};
.global .align 2 .s16 neg[2] = {-2, 300};
.global .align 8 .u64 parr[3] = {generic(bar), generic(bar)+4, generic(bar)+8};
.global .align 8 .u64 pconst = generic(tbl)+20;
.global .align 4 .u32 zeroed[4];
.visible .entry mv(.param .u64 pout) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [pout];
  ld.const.u32 %r1, [tbl+8];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd2, %r2, 4;
  mov.u64 %rd3, tbl;
  add.u64 %rd3, %rd3, %rd2;
  ld.const.u32 %r3, [%rd3];
  ld.global.u64 %rd4, [parr+16];
  ld.u32 %r4, [%rd4];
  ld.global.u64 %rd5, [pconst];
  ld.u32 %r5, [%rd5];
  ld.global.s16 %r6, [neg];
  ld.global.s16 %r7, [neg+2];
  ld.global.u32 %r8, [zeroed+12];
  ld.global.u32 %r9, [bar+4];
  add.u32 %r9, %r9, %r2;
  st.global.u32 [bar+4], %r9;
  mul.wide.u32 %rd6, %r2, 32;
  add.u64 %rd6, %rd1, %rd6;
  st.global.v4.u32 [%rd6], {%r1, %r3, %r4, %r5};
  st.global.v4.u32 [%rd6+16], {%r6, %r7, %r8, %r9};
  ret;
})"));
  Addr out = r.upload(std::vector<uint32_t>(6 * 8, 0));
  r.launch("mv", {1, 1, 1}, {6, 1, 1}, 0, out);
  auto v = r.download<uint32_t>(out, 6 * 8);
  const uint32_t tbl[6] = {11, 22, 33, 44, 55, 0xffffffff};
  uint32_t bar1 = 3;
  for (uint32_t t = 0; t < 6; ++t) {
    EXPECT_EQ(v[t * 8 + 0], 33u);
    EXPECT_EQ(v[t * 8 + 1], tbl[t]);
    EXPECT_EQ(v[t * 8 + 2], 5u);
    EXPECT_EQ(v[t * 8 + 3], 0xffffffffu);
    EXPECT_EQ(v[t * 8 + 4], 0xfffffffeu);
    EXPECT_EQ(v[t * 8 + 5], 300u);
    EXPECT_EQ(v[t * 8 + 6], 0u);
    // All lanes read bar[1] before any stores it (one warp instruction at a time).
    EXPECT_EQ(v[t * 8 + 7], bar1 + t);
  }
  // The host sees module variables through symbol().
  auto [addr, size] = r.mod().symbol("bar");
  ASSERT_NE(addr, 0u);
  EXPECT_EQ(size, 12u);
  auto bar = r.download<uint32_t>(addr, 3);
  EXPECT_EQ(bar[0], 2u);
  EXPECT_EQ(bar[1], 3u + 5u);  // the last lane's store wins within one warp instruction
  EXPECT_EQ(bar[2], 5u);
  auto [paddr, psize] = r.mod().symbol("parr");
  EXPECT_EQ(psize, 24u);
  auto p = r.download<uint64_t>(paddr, 3);
  EXPECT_EQ(p[0], addr);
  EXPECT_EQ(p[1], addr + 4);
  EXPECT_EQ(p[2], addr + 8);
}

TEST(Memory, GenericAddressingCvtaAndIsspacep) {
  // Generic pointers to shared, local and global memory: converted with cvta, used with plain
  // ld/st, classified with isspacep, and converted back with cvta.to.
  PtxRunner r(ptx_module(R"(
.visible .entry gen(.param .u64 pg, .param .u64 pout) {
  .reg .pred %p<8>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<24>;
  .shared .align 4 .b8 sh[512];
  .local .align 4 .b8 lo[16];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [pg];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.u32 %rd4, %r1, 4;
  // shared through a generic pointer
  mov.u64 %rd5, sh;
  cvta.shared.u64 %rd6, %rd5;
  add.u64 %rd7, %rd6, %rd4;
  add.u32 %r2, %r1, 1000;
  st.u32 [%rd7], %r2;
  bar.sync 0;
  ld.shared.u32 %r3, [%rd5+8];
  // local through a generic pointer
  mov.u64 %rd8, lo;
  cvta.local.u64 %rd9, %rd8;
  add.u32 %r4, %r1, 2000;
  st.u32 [%rd9+4], %r4;
  ld.local.u32 %r5, [lo+4];
  // global through a generic pointer (pg is already generic)
  add.u64 %rd10, %rd1, %rd4;
  ld.u32 %r6, [%rd10];
  add.u64 %rd11, %rd3, %rd4;
  ld.global.u32 %r7, [%rd11];
  // classification
  isspacep.shared %p1, %rd7;
  isspacep.local %p2, %rd9;
  isspacep.global %p3, %rd10;
  isspacep.global %p4, %rd7;
  isspacep.shared %p5, %rd10;
  isspacep.local %p6, %rd7;
  selp.u32 %r8, 1, 0, %p1;
  selp.u32 %r9, 2, 0, %p2;
  selp.u32 %r10, 4, 0, %p3;
  selp.u32 %r11, 8, 0, %p4;
  selp.u32 %r12, 16, 0, %p5;
  selp.u32 %r13, 32, 0, %p6;
  or.b32 %r8, %r8, %r9;
  or.b32 %r8, %r8, %r10;
  or.b32 %r8, %r8, %r11;
  or.b32 %r8, %r8, %r12;
  or.b32 %r8, %r8, %r13;
  // round trip back to the shared window offset
  cvta.to.shared.u64 %rd12, %rd7;
  sub.u64 %rd13, %rd12, %rd5;
  mov.b64 {%r14, %r16}, %rd13;
  cvta.to.local.u64 %rd14, %rd9;
  sub.u64 %rd15, %rd14, %rd8;
  mov.b64 {%r15, %r17}, %rd15;
  mul.wide.u32 %rd16, %r1, 32;
  add.u64 %rd16, %rd2, %rd16;
  st.global.v4.u32 [%rd16], {%r3, %r5, %r6, %r7};
  st.global.v4.u32 [%rd16+16], {%r8, %r14, %r15, %r2};
  ret;
})"));
  const uint32_t nt = 100;
  std::vector<uint32_t> g(nt);
  for (uint32_t i = 0; i < nt; ++i) g[i] = i * 7 + 3;
  Addr pg = r.upload(g), out = r.upload(std::vector<uint32_t>(nt * 8, 0));
  r.launch("gen", {1, 1, 1}, {nt, 1, 1}, 0, pg, out);
  auto v = r.download<uint32_t>(out, nt * 8);
  for (uint32_t t = 0; t < nt; ++t) {
    const uint32_t* f = &v[t * 8];
    EXPECT_EQ(f[0], 1002u) << t;  // sh[2] written by thread 2
    EXPECT_EQ(f[1], 2000u + t) << t;
    EXPECT_EQ(f[2], g[t]) << t;
    EXPECT_EQ(f[3], g[t]) << t;
    EXPECT_EQ(f[4], 1u | 2u | 4u) << t;  // only the matching spaces
    EXPECT_EQ(f[5], t * 4) << t;
    EXPECT_EQ(f[6], 0u) << t;
  }
}

TEST(Memory, KernelParametersDirectAndGeneric) {
  PtxRunner r(ptx_module(R"(
.visible .entry prm(.param .u64 pout, .param .align 8 .b8 s[24], .param .s8 c, .param .u16 h) {
  .reg .b16 %h<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [pout];
  ld.param.u32 %r1, [s+4];
  ld.param.v2.u32 {%r2, %r3}, [s+8];
  ld.param.u64 %rd2, [s+16];
  ld.param.s8 %r4, [c];
  ld.param.u16 %h1, [h];
  mov.u64 %rd3, s;
  cvta.param.u64 %rd4, %rd3;
  ld.u32 %r5, [%rd4];
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  st.global.u32 [%rd1+8], %r3;
  st.global.u32 [%rd1+12], %r4;
  st.global.u64 [%rd1+16], %rd2;
  st.global.u16 [%rd1+24], %h1;
  st.global.u32 [%rd1+28], %r5;
  ret;
})"));
  struct S {
    uint32_t a, b, c, d;
    uint64_t e;
  } s{0x01020304, 0xa0b0c0d0, 77, 0xfffffff0, 0x123456789abcdef0ull};
  int8_t c = -5;
  uint16_t h = 0xbeef;
  Addr out = r.upload(std::vector<uint32_t>(8, 0));
  r.launch("prm", {1, 1, 1}, {1, 1, 1}, 0, out, s, c, h);
  auto v = r.download<uint32_t>(out, 8);
  EXPECT_EQ(v[0], s.b);
  EXPECT_EQ(v[1], s.c);
  EXPECT_EQ(v[2], s.d);
  EXPECT_EQ(v[3], uint32_t(-5));
  EXPECT_EQ(v[4] | (uint64_t(v[5]) << 32), s.e);
  EXPECT_EQ(v[6] & 0xffff, 0xbeefu);
  EXPECT_EQ(v[7], s.a);
}

TEST(Memory, DynamicSharedPlacedAfterStatic) {
  // Static shared variables come first; the .extern array starts at the next multiple of its
  // alignment, does not overlap them, and spans the launch's dynamic size.
  PtxRunner r(ptx_module(R"(
.extern .shared .align 16 .b8 dsm[];
.visible .entry dyn(.param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b8 st1[20];
  .shared .align 2 .b8 st2[6];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  ld.param.u64 %rd1, [pout];
  mov.u64 %rd2, dsm;
  mov.u64 %rd3, st1;
  mov.u64 %rd4, st2;
  mov.u32 %r9, %dynamic_smem_size;
  // each thread fills 4-byte words of dsm up to %dynamic_smem_size
  mul.lo.u32 %r3, %r1, 4;
FILL:
  setp.ge.u32 %p1, %r3, %r9;
  @%p1 bra FILLED;
  mul.wide.u32 %rd5, %r3, 1;
  add.u64 %rd6, %rd2, %rd5;
  add.u32 %r4, %r3, 0x5000;
  st.shared.u32 [%rd6], %r4;
  mul.lo.u32 %r5, %r2, 4;
  add.u32 %r3, %r3, %r5;
  bra FILL;
FILLED:
  setp.eq.u32 %p2, %r1, 0;
  mov.u32 %r10, 0x1111;
  mov.u32 %r11, 0x2222;
  @%p2 st.shared.u32 [st1+16], %r10;
  @%p2 st.shared.u16 [st2+4], %r11;
  bar.sync 0;
  // thread t reads back dsm word t (written by some thread) and the statics
  mul.wide.u32 %rd7, %r1, 4;
  add.u64 %rd8, %rd2, %rd7;
  ld.shared.u32 %r6, [%rd8];
  ld.shared.u32 %r7, [st1+16];
  ld.shared.u16 %r8, [st2+4];
  mul.wide.u32 %rd9, %r1, 48;
  add.u64 %rd9, %rd1, %rd9;
  st.global.v4.u32 [%rd9], {%r6, %r7, %r8, %r9};
  st.global.u64 [%rd9+16], %rd2;
  st.global.u64 [%rd9+24], %rd3;
  st.global.u64 [%rd9+32], %rd4;
  ret;
})"));
  const uint32_t nt = 64, dyn = 1000;
  Addr out = r.upload(std::vector<uint64_t>(nt * 6, 0));
  r.launch("dyn", {2, 1, 1}, {nt, 1, 1}, dyn, out);
  auto v = r.download<uint32_t>(out, nt * 12);
  for (uint32_t t = 0; t < nt; ++t) {
    const uint32_t* f = &v[t * 12];
    EXPECT_EQ(f[0], t * 4 + 0x5000) << t;
    EXPECT_EQ(f[1], 0x1111u);
    EXPECT_EQ(f[2], 0x2222u);
    EXPECT_EQ(f[3], dyn);
    const uint64_t dsm = f[4] | (uint64_t(f[5]) << 32);
    const uint64_t st1 = f[6] | (uint64_t(f[7]) << 32);
    const uint64_t st2 = f[8] | (uint64_t(f[9]) << 32);
    // st1 (20 bytes, align 4) and st2 (6 bytes, align 2) in some order, aligned, disjoint; the
    // dynamic array starts at the first 16-byte boundary after both.
    EXPECT_EQ(st1 % 4, 0u);
    EXPECT_EQ(st2 % 2, 0u);
    EXPECT_TRUE(st1 + 20 <= st2 || st2 + 6 <= st1) << st1 << " " << st2;
    const uint64_t end = std::max(st1 + 20, st2 + 6);
    EXPECT_EQ(dsm, (end + 15) / 16 * 16);
  }
}

TEST(Memory, ConstLoadsEveryTypeAndGenericConstPointers) {
  const auto bytes = pattern_bytes(8 * 64, 5);
  std::string init = "{";
  for (size_t i = 0; i < bytes.size(); ++i) init += (i ? ", " : "") + std::to_string(bytes[i]);
  init += "}";
  for (const MemType& t : kMemTypes) {
    SCOPED_TRACE(t.name);
    const unsigned rw = t.bytes == 8 ? 64 : 32;
    const char* reg = rw == 32 ? "%r6" : "%rd5";
    std::string k = ".const .align 8 .b8 cdata[512] = " + init + ";\n" + kernel_header("ck");
    k += fmt::format(
        "  mul.wide.u32 %rd3, %r5, {};\n  mov.u64 %rd6, cdata;\n  add.u64 %rd3, %rd6, %rd3;\n",
        t.bytes);
    k += fmt::format("  ld.const.{} {}, [%rd3];\n", t.name, reg);
    // the same datum through a generic pointer (cvta.const), classified by isspacep.const
    k += fmt::format(
        "  cvta.const.u64 %rd7, %rd3;\n  ld.{} {}, [%rd7];\n  isspacep.const %p2, %rd7;\n", t.name,
        rw == 32 ? "%r7" : "%rd8");
    k += "  selp.u32 %r8, 1, 0, %p2;\n";
    k += "  mul.wide.u32 %rd4, %r5, 24;\n  add.u64 %rd4, %rd2, %rd4;\n";
    k += fmt::format(
        "  st.global.b{} [%rd4], {};\n  st.global.b{} [%rd4+8], {};\n  st.global.u32 [%rd4+16], "
        "%r8;\n",
        rw, reg, rw, rw == 32 ? "%r7" : "%rd8");
    k += "DONE:\n  ret;\n}\n";
    PtxRunner r(ptx_module(k));
    const uint32_t n = 512 / t.bytes;
    Addr out = r.upload(std::vector<uint64_t>(3 * n, 0));
    r.launch("ck", {(n + 63) / 64, 1, 1}, {64, 1, 1}, 0, Addr(0), out, n);
    auto v = r.download<uint64_t>(out, 3 * n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t raw = read_le(&bytes[i * t.bytes], t.bytes);
      const uint64_t want = wrap(t.sgn ? sval(raw, t.bytes * 8) : i128(raw), rw);
      ASSERT_EQ(v[3 * i], want) << i;
      ASSERT_EQ(v[3 * i + 1], want) << i;
      ASSERT_EQ(v[3 * i + 2], 1u) << i;
    }
  }
}

TEST(Memory, KernelParametersOfEveryType) {
  std::string params, body;
  unsigned off = 0;
  for (size_t k = 0; k < 12; ++k) {
    const MemType& t = kMemTypes[k];
    params += fmt::format(", .param .{} p{}", t.name, k);
    const unsigned rw = t.bytes == 8 ? 64 : 32;
    body += fmt::format("  ld.param.{} {}, [p{}];\n  st.global.b{} [%rd1+{}], {};\n", t.name,
                        rw == 32 ? "%r1" : "%rd2", k, rw, off, rw == 32 ? "%r1" : "%rd2");
    off += 8;
  }
  PtxRunner r(
      ptx_module(".visible .entry pk(.param .u64 pout" + params +
                 ") {\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [pout];\n" +
                 body + "  ret;\n}\n"));
  Addr out = r.upload(std::vector<uint64_t>(12, 0));
  const uint8_t u8 = 0xf3;
  const int8_t s8 = -7;
  const uint8_t b8 = 0x81;
  const uint16_t u16 = 0xfedc;
  const int16_t s16 = -300;
  const uint16_t b16 = 0x8001;
  const uint32_t u32 = 0x87654321;
  const int32_t s32 = -5;
  const uint32_t b32 = 0xdeadbeef;
  const uint64_t u64 = 0xfedcba9876543210ull;
  const int64_t s64 = -1234567890123ll;
  const uint64_t b64 = 0x8000000000000001ull;
  r.launch("pk", {1, 1, 1}, {3, 1, 1}, 0, out, u8, s8, b8, u16, s16, b16, u32, s32, b32, u64, s64,
           b64);
  auto v = r.download<uint64_t>(out, 12);
  const uint64_t want[] = {0xf3,       0xfffffff9, 0x81,       0xfedc, uint32_t(-300), 0x8001,
                           0x87654321, 0xfffffffb, 0xdeadbeef, u64,    uint64_t(s64),  b64};
  for (size_t k = 0; k < 12; ++k) EXPECT_EQ(v[k], want[k]) << kMemTypes[k].name;
}

TEST(Memory, OrderedAndScopedLoadsStores) {
  PtxRunner r(ptx_module(kernel_header("os") + R"(
  mul.wide.u32 %rd3, %r5, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.acquire.gpu.global.u32 %r6, [%rd4];
  ld.relaxed.sys.global.u32 %r7, [%rd4];
  ld.global.lu.u32 %r8, [%rd4];
  ld.global.cg.u32 %r9, [%rd4];
  ld.global.cs.u32 %r10, [%rd4];
  add.u32 %r6, %r6, %r7;
  add.u32 %r6, %r6, %r8;
  add.u32 %r6, %r6, %r9;
  add.u32 %r6, %r6, %r10;
  add.u64 %rd5, %rd2, %rd3;
  st.release.gpu.global.u32 [%rd5], %r6;
  st.relaxed.cta.global.u32 [%rd5+512], %r7;
  st.global.cs.u32 [%rd5+1024], %r8;
  st.volatile.global.u32 [%rd5+1536], %r9;
DONE:
  ret;
})"));
  const uint32_t n = 128;
  std::vector<uint32_t> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i * 31 + 7;
  Addr pin = r.upload(in), out = r.upload(std::vector<uint32_t>(4 * n, 0));
  r.launch("os", {2, 1, 1}, {64, 1, 1}, 0, pin, out, n);
  auto v = r.download<uint32_t>(out, 4 * n);
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(v[i], 5 * in[i]) << i;
    EXPECT_EQ(v[n + i], in[i]) << i;
    EXPECT_EQ(v[2 * n + i], in[i]) << i;
    EXPECT_EQ(v[3 * n + i], in[i]) << i;
  }
}

TEST(Memory, LduAndNonCoherentLoads) {
  PtxRunner r(ptx_module(kernel_header("nc") + R"(
  mul.wide.u32 %rd3, %r5, 4;
  add.u64 %rd4, %rd1, %rd3;
  ldu.global.u32 %r6, [%rd1];
  ld.global.nc.u32 %r7, [%rd4];
  ld.global.ca.u32 %r8, [%rd4];
  ld.volatile.global.u32 %r9, [%rd4];
  add.u32 %r6, %r6, %r7;
  add.u32 %r6, %r6, %r8;
  add.u32 %r6, %r6, %r9;
  add.u64 %rd5, %rd2, %rd3;
  st.global.wb.u32 [%rd5], %r6;
DONE:
  ret;
})"));
  const uint32_t n = 130;
  std::vector<uint32_t> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i * i + 9;
  Addr pin = r.upload(in), out = r.upload(std::vector<uint32_t>(n, 0));
  r.launch("nc", {2, 1, 1}, {96, 1, 1}, 0, pin, out, n);
  auto v = r.download<uint32_t>(out, n);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(v[i], in[0] + 3 * in[i]) << i;
}

}  // namespace
}  // namespace simtlab::testing
