// Helpers for the per-instruction tests of the functional executor (int/bit/compare/...).
//
// run_op() wraps one PTX instruction in a generated kernel: every thread loads its operands
// a, b, c (as 16/32/64-bit registers or predicates) from three arrays of 64-bit slots, executes
// the instruction and stores the destination(s) back into 64-bit slots. Launches use blocks of
// 96 threads (three warps) and as many blocks as needed, the last one partially filled, so
// every lane of several warps and CTAs is checked.
//
// Expected values are computed on the host with exact (__int128) arithmetic by the test.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/func/ptx_harness.h"

namespace simtlab::testing {

using i128 = __int128;
using u128 = unsigned __int128;

// ---- value helpers ----------------------------------------------------------------------------

inline uint64_t mask_bits(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}
/// Signed value of the low `bits` bits of v.
inline i128 sval(uint64_t v, unsigned bits) {
  v &= mask_bits(bits);
  if (bits < 64 && (v >> (bits - 1)) & 1) return i128(v) - (i128(1) << bits);
  if (bits == 64) return i128(int64_t(v));
  return i128(v);
}
/// Unsigned value of the low `bits` bits of v.
inline i128 uval(uint64_t v, unsigned bits) { return i128(v & mask_bits(bits)); }
inline i128 ival(uint64_t v, unsigned bits, bool sgn) {
  return sgn ? sval(v, bits) : uval(v, bits);
}
/// The low `bits` bits of x (two's complement), zero-extended.
inline uint64_t wrap(i128 x, unsigned bits) { return uint64_t(u128(x)) & mask_bits(bits); }
inline i128 imin(unsigned bits, bool sgn) { return sgn ? -(i128(1) << (bits - 1)) : 0; }
inline i128 imax(unsigned bits, bool sgn) {
  return sgn ? (i128(1) << (bits - 1)) - 1 : (i128(1) << bits) - 1;
}

/// An integer PTX type.
struct IType {
  const char* name;  // "s32"
  unsigned bits;
  bool sgn;
};
inline const IType kS16{"s16", 16, true}, kU16{"u16", 16, false}, kS32{"s32", 32, true},
    kU32{"u32", 32, false}, kS64{"s64", 64, true}, kU64{"u64", 64, false}, kB16{"b16", 16, false},
    kB32{"b32", 32, false}, kB64{"b64", 64, false};
inline const std::vector<IType> kAllInts = {kS16, kU16, kS32, kU32, kS64, kU64};

/// Interesting values of a `bits`-wide integer (as zero-extended bit patterns) plus random ones.
inline std::vector<uint64_t> edge_values(unsigned bits, unsigned nrandom = 8, uint64_t seed = 1) {
  const uint64_t m = mask_bits(bits);
  const uint64_t smin = uint64_t(1) << (bits - 1);
  std::vector<uint64_t> v = {0,
                             1,
                             2,
                             3,
                             7,
                             m,
                             m - 1,
                             m - 2,
                             smin,
                             smin + 1,
                             smin - 1,
                             smin - 2,
                             0x5555555555555555ull & m,
                             0xAAAAAAAAAAAAAAAAull & m,
                             100,
                             m - 99};
  std::mt19937_64 rng(seed * 7919 + bits);
  for (unsigned i = 0; i < nrandom; ++i) v.push_back(rng() & m);
  return v;
}

struct OpIn {
  uint64_t a = 0, b = 0, c = 0;
};

/// All pairs of `va` x `vb` (c = 0).
inline std::vector<OpIn> pairs(const std::vector<uint64_t>& va, const std::vector<uint64_t>& vb) {
  std::vector<OpIn> r;
  for (uint64_t a : va)
    for (uint64_t b : vb) r.push_back({a, b, 0});
  return r;
}
/// Pairs with c cycling through `vc`.
inline std::vector<OpIn> triples(const std::vector<uint64_t>& va, const std::vector<uint64_t>& vb,
                                 const std::vector<uint64_t>& vc) {
  std::vector<OpIn> r;
  size_t k = 0;
  for (uint64_t a : va)
    for (uint64_t b : vb) r.push_back({a, b, vc[k++ % vc.size()]});
  return r;
}

// ---- the generated kernel ---------------------------------------------------------------------

/// Operand shapes: 0 = unused, 1 = predicate, 16/32/64 = register width.
struct OpSpec {
  OpSpec(std::string i, unsigned d_ = 32, unsigned a_ = 32, unsigned b_ = 32, unsigned c_ = 0)
      : inst(std::move(i)), d(d_), a(a_), b(b_), c(c_) {}
  std::string inst;  // instruction text with {d} {q} {a} {b} {c} placeholders
  unsigned d = 32, a = 32, b = 32, c = 0;
  unsigned q = 0;        // optional second destination (written to out2)
  std::string prologue;  // extra instructions before `inst` (may use the same placeholders)
};

inline std::string reg_name(unsigned shape, char which) {
  switch (shape) {
    case 1:
      return std::string("%p") + which;
    case 16:
      return std::string("%h") + which;
    case 32:
      return std::string("%r") + which;
    default:
      return std::string("%l") + which;
  }
}

inline void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size())
    s.replace(p, from.size(), to);
}

inline std::string expand(std::string s, const OpSpec& o) {
  replace_all(s, "{d}", reg_name(o.d, 'd'));
  replace_all(s, "{q}", reg_name(o.q, 'q'));
  replace_all(s, "{a}", reg_name(o.a, 'a'));
  replace_all(s, "{b}", reg_name(o.b, 'b'));
  replace_all(s, "{c}", reg_name(o.c, 'c'));
  return s;
}

inline std::string load_operand(unsigned shape, char which, const char* ptr_reg) {
  const std::string r = reg_name(shape, which);
  switch (shape) {
    case 0:
      return "";
    case 1:
      return fmt::format("  ld.global.u32 %rt, [{}];\n  setp.ne.u32 {}, %rt, 0;\n", ptr_reg, r);
    default:
      return fmt::format("  ld.global.b{} {}, [{}];\n", shape, r, ptr_reg);
  }
}

inline std::string store_result(unsigned shape, char which, const char* ptr_reg) {
  const std::string r = reg_name(shape, which);
  switch (shape) {
    case 0:
      return "";
    case 1:
      return fmt::format("  selp.u32 %rt, 1, 0, {};\n  st.global.u32 [{}], %rt;\n", r, ptr_reg);
    default:
      return fmt::format("  st.global.b{} [{}], {};\n", shape, ptr_reg, r);
  }
}

/// PTX module text with one kernel `op` for `o`.
inline std::string op_kernel(const OpSpec& o, const std::string& target = "sm_80") {
  std::string s = ".version 9.0\n.target " + target + "\n.address_size 64\n";
  s += ".visible .entry op(.param .u64 pout, .param .u64 pout2, .param .u64 pa, .param .u64 pb, "
       ".param .u64 pc, .param .u32 n) {\n"
       "  .reg .pred %pg, %pa, %pb, %pc, %pd, %pq, %p<4>;\n"
       "  .reg .b16 %ha, %hb, %hc, %hd, %hq, %h<8>;\n"
       "  .reg .b32 %ra, %rb, %rc, %rd, %rq, %rt, %ri, %rn, %r<8>;\n"
       "  .reg .b64 %la, %lb, %lc, %ld, %lq, %lo, %lo2, %lpa, %lpb, %lpc, %loff, %l<8>;\n"
       "  ld.param.u32 %rn, [n];\n"
       "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %tid.x;\n"
       "  mad.lo.u32 %ri, %r1, %r2, %r3;\n"
       "  setp.ge.u32 %pg, %ri, %rn;\n  @%pg bra DONE;\n"
       "  mul.wide.u32 %loff, %ri, 8;\n"
       "  ld.param.u64 %lo, [pout];\n  add.u64 %lo, %lo, %loff;\n"
       "  ld.param.u64 %lo2, [pout2];\n  add.u64 %lo2, %lo2, %loff;\n"
       "  ld.param.u64 %lpa, [pa];\n  add.u64 %lpa, %lpa, %loff;\n"
       "  ld.param.u64 %lpb, [pb];\n  add.u64 %lpb, %lpb, %loff;\n"
       "  ld.param.u64 %lpc, [pc];\n  add.u64 %lpc, %lpc, %loff;\n";
  s += load_operand(o.a, 'a', "%lpa");
  s += load_operand(o.b, 'b', "%lpb");
  s += load_operand(o.c, 'c', "%lpc");
  if (!o.prologue.empty()) s += "  " + expand(o.prologue, o) + "\n";
  s += "  " + expand(o.inst, o) + "\n";
  s += store_result(o.d, 'd', "%lo");
  s += store_result(o.q, 'q', "%lo2");
  s += "DONE:\n  ret;\n}\n";
  return s;
}

struct OpResult {
  std::vector<uint64_t> d, q;
};

/// Run `o` once per element of `in` (one thread each).
inline OpResult run_op(const OpSpec& o, const std::vector<OpIn>& in) {
  PtxRunner r(op_kernel(o));
  const uint32_t n = uint32_t(in.size());
  std::vector<uint64_t> a(n), b(n), c(n), zero(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = in[i].a;
    b[i] = in[i].b;
    c[i] = in[i].c;
  }
  Addr pa = r.upload(a), pb = r.upload(b), pc = r.upload(c), po = r.upload(zero),
       po2 = r.upload(zero);
  const uint32_t block = 96;
  r.launch("op", {(n + block - 1) / block, 1, 1}, {block, 1, 1}, 0, po, po2, pa, pb, pc, n);
  return {r.download<uint64_t>(po, n), r.download<uint64_t>(po2, n)};
}

/// Run and compare every thread's result with ref(a, b, c) (and, with a q destination, refq).
using RefFn = std::function<uint64_t(uint64_t, uint64_t, uint64_t)>;
inline void check_op(const OpSpec& o, const std::vector<OpIn>& in, const RefFn& ref,
                     const RefFn& refq = {}) {
  SCOPED_TRACE(o.inst);
  OpResult res;
  try {
    res = run_op(o, in);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "'" << o.inst << "' failed to run: " << e.what();
    return;
  }
  int bad = 0;
  for (size_t i = 0; i < in.size() && bad < 8; ++i) {
    const uint64_t want = ref(in[i].a, in[i].b, in[i].c);
    if (res.d[i] != want) {
      ++bad;
      ADD_FAILURE() << o.inst << " thread " << i << ": a=" << fmt::format("{:#x}", in[i].a)
                    << " b=" << fmt::format("{:#x}", in[i].b)
                    << " c=" << fmt::format("{:#x}", in[i].c) << " -> "
                    << fmt::format("{:#x}", res.d[i]) << ", expected "
                    << fmt::format("{:#x}", want);
    }
    if (refq) {
      const uint64_t wq = refq(in[i].a, in[i].b, in[i].c);
      if (res.q[i] != wq) {
        ++bad;
        ADD_FAILURE() << o.inst << " (second result) thread " << i
                      << ": a=" << fmt::format("{:#x}", in[i].a)
                      << " b=" << fmt::format("{:#x}", in[i].b)
                      << " c=" << fmt::format("{:#x}", in[i].c) << " -> "
                      << fmt::format("{:#x}", res.q[i]) << ", expected "
                      << fmt::format("{:#x}", wq);
      }
    }
  }
}

/// Runs a whole kernel and returns an error message (empty if it completed).
template <typename... A>
std::string launch_error(PtxRunner& r, const std::string& k, Dim3 grid, Dim3 block, uint32_t dyn,
                         A... a) {
  try {
    r.launch(k, grid, block, dyn, a...);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace simtlab::testing
