// Handlers of the sm_80 warp-level matrix instructions whose fragment layouts the PTX ISA
// specifies thread by thread (PTX ISA 9.0, 9.7.14.5 "Matrix multiply-accumulate operation using
// mma instruction" and 9.7.14.5.15/16 ldmatrix/stmatrix):
//
//   mma.sync.aligned.m16n8k8  .row.col  f16/bf16 inputs, f16 (f16 inputs only) / f32 accumulators
//   mma.sync.aligned.m16n8k16 .row.col  f16/bf16 inputs, f16 / f32 accumulators; s8/u8 (s32)
//   mma.sync.aligned.m16n8k4  / m16n8k8 .row.col tf32 inputs, f32 accumulators
//   mma.sync.aligned.m8n8k4   .row.col  f64
//   mma.sync.aligned.m16n8k32 .row.col  s8/u8 inputs, s32 accumulators (.satfinite)
//   ldmatrix.sync.aligned.m8n8.x1/.x2/.x4{.trans}.shared{::cta}.b16
//   stmatrix.sync.aligned.m8n8.x1/.x2/.x4{.trans}.shared{::cta}.b16
//
// Fragment layouts (groupID = %laneid >> 2, tig = %laneid % 4, element i of a fragment is
// packed low-first into its registers: two 16-bit or four 8-bit elements per .b32 register):
//   C/D 16x8 (f32/s32: c0..c3, f16: two registers): row = groupID (+8 for i >= 2),
//       col = tig*2 + (i & 1)
//   f16/bf16 m16n8k16: A 16x16 a0..a7: row = groupID (+8 for i in {2,3,6,7}),
//       col = tig*2 + (i & 1) (+8 for i >= 4); B 16x8 b0..b3: row = tig*2 + (i & 1) (+8 for
//       i >= 2), col = groupID
//   f16/bf16 m16n8k8: A 16x8 a0..a3: row = groupID (+8 for i >= 2), col = tig*2 + (i & 1);
//       B 8x8 b0,b1: row = tig*2 + i, col = groupID
//   tf32 m16n8k4: A a0,a1: row = groupID (+8 for a1), col = tig; B b0: row = tig, col = groupID
//   tf32 m16n8k8: A a0..a3: row = groupID (+8 for a1,a3), col = tig (+4 for a2,a3);
//       B b0,b1: row = tig (+4 for b1), col = groupID
//   f64 m8n8k4: A a0: row = groupID, col = tig; B b0: row = tig, col = groupID;
//       C/D 8x8 c0,c1: row = groupID, col = tig*2 + i
//   s8/u8 m16n8k16: A a0..a7: row = groupID (+8 for i >= 4), col = tig*4 + (i & 3);
//       B b0..b3: row = tig*4 + i, col = groupID
//   s8/u8 m16n8k32: A a0..a15: row = groupID (+8 for i in 4..7 and 12..15),
//       col = tig*4 + (i & 3) (+16 for i >= 8); B b0..b7: row = tig*4 + (i & 3) (+16 for
//       i >= 4), col = groupID
//
// Arithmetic as wmma (exec_mma.cpp): products and sums in double, rounded once to the
// accumulator type (s32 wraps, or saturates with .satfinite); tf32 inputs use the top 19 bits
// of their f32 registers.
//
// ldmatrix: threads 8j..8j+7 give the addresses of the eight 16-byte rows of matrix j (x1 uses
// threads 0-7, x2 0-15); lane l receives in destination register j the elements
// (row l/4, cols 2*(l%4), 2*(l%4)+1) of matrix j, or with .trans the elements
// (rows 2*(l%4), 2*(l%4)+1, col l/4). stmatrix is the inverse. Timing record: the rows each
// supplying lane addresses (16 bytes each) in shared memory.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "func/exec_common.h"
#include "func/executor.h"
#include "func/fp.h"
#include "func/memory.h"

namespace simtlab::func {

namespace {

using ptx::Instruction;
using ptx::Type;

unsigned bits_of_type(Type t) {
  switch (t) {
    case Type::f16:
    case Type::bf16:
      return 16;
    case Type::s8:
    case Type::u8:
      return 8;
    case Type::f64:
      return 64;
    default:
      return 32;
  }
}

double to_double(Type t, uint64_t b) {
  switch (t) {
    case Type::f16:
      return fp::decode<fp::FmtF16>(b);
    case Type::bf16:
      return fp::decode<fp::FmtBF16>(b);
    case Type::tf32:
      return double(fp::f32_of(uint32_t(b) & 0xffffe000u));
    case Type::f32:
      return double(fp::f32_of(uint32_t(b)));
    case Type::f64:
      return fp::f64_of(b);
    case Type::s8:
      return double(int8_t(b));
    case Type::u8:
      return double(uint8_t(b));
    case Type::s32:
      return double(int32_t(b));
    default:
      return 0;
  }
}

uint64_t from_double(Type t, double v, bool satfinite) {
  switch (t) {
    case Type::f16:
      return fp::f64_to_f16(v);
    case Type::f32:
      return fp::bits_of(fp::f64_to_f32(v));
    case Type::f64:
      return fp::bits_of(v);
    case Type::s32:
      if (satfinite) v = std::clamp(v, -2147483648.0, 2147483647.0);
      return uint64_t(uint32_t(int64_t(v)));
    default:
      return 0;
  }
}

enum class Frag : uint8_t { a, b, c };

struct MmaDesc {
  unsigned m = 0, n = 0, k = 0;
  Type ta = Type::none, tb = Type::none, tc = Type::none, td = Type::none;
  bool satfinite = false;
  std::string error;
};

MmaDesc parse_mma(const Instruction& in) {
  MmaDesc d;
  std::vector<Type> types;
  if (in.type != Type::none) types.push_back(in.type);
  if (in.type2 != Type::none) types.push_back(in.type2);
  std::vector<bool> layouts;
  for (const std::string& x : in.extra) {
    std::string_view s = x;
    if (!s.empty() && s[0] == '.') s.remove_prefix(1);
    static const std::unordered_map<std::string_view, Type> tt = {
        {"f16", Type::f16}, {"f32", Type::f32}, {"bf16", Type::bf16}, {"tf32", Type::tf32},
        {"f64", Type::f64}, {"s8", Type::s8},   {"u8", Type::u8},     {"s32", Type::s32}};
    if (s == "row" || s == "col") {
      layouts.push_back(s == "row");
    } else if (s == "satfinite") {
      d.satfinite = true;
    } else if (auto it = tt.find(s); it != tt.end()) {
      types.push_back(it->second);
    } else if (s.size() > 1 && s[0] == 'm' && s.find('n') != std::string_view::npos) {
      std::sscanf(std::string(s).c_str(), "m%un%uk%u", &d.m, &d.n, &d.k);
    }
  }
  if (in.has(ptx::IF_SAT)) d.satfinite = true;
  const std::string form = full_mnemonic(in);
  if (types.size() == 4) {  // .dtype.atype.btype.ctype
    d.td = types[0];
    d.ta = types[1];
    d.tb = types[2];
    d.tc = types[3];
  } else if (types.size() == 2 && (types[0] == Type::f16 || types[0] == Type::f32)) {
    d.td = types[0];  // m8n8k4 f16 form .dtype.ctype: not implemented (Volta quad-pair layout)
    d.tc = types[1];
    d.error = form + ": only the .dtype.atype.btype.ctype forms are implemented";
    return d;
  } else {
    d.error = form + ": unexpected types";
    return d;
  }
  if (layouts.size() != 2 || !layouts[0] || layouts[1])
    d.error = form + ": only .row.col is implemented";
  const auto shape = [&](unsigned m, unsigned n, unsigned k) {
    return d.m == m && d.n == n && d.k == k;
  };
  const bool f16ish = (d.ta == Type::f16 || d.ta == Type::bf16) && d.tb == d.ta;
  const bool i8 = (d.ta == Type::s8 || d.ta == Type::u8) && (d.tb == Type::s8 || d.tb == Type::u8);
  bool ok = false;
  if (f16ish && (shape(16, 8, 8) || shape(16, 8, 16)))
    ok = (d.td == Type::f32 && d.tc == Type::f32) ||
         (d.ta == Type::f16 && d.td == Type::f16 && d.tc == Type::f16);
  else if (d.ta == Type::tf32 && d.tb == Type::tf32 && (shape(16, 8, 4) || shape(16, 8, 8)))
    ok = d.td == Type::f32 && d.tc == Type::f32;
  else if (d.ta == Type::f64 && shape(8, 8, 4))
    ok = d.tb == Type::f64 && d.tc == Type::f64 && d.td == Type::f64;
  else if (i8 && (shape(16, 8, 16) || shape(16, 8, 32)))
    ok = d.td == Type::s32 && d.tc == Type::s32;
  if (!ok && d.error.empty()) d.error = form + ": shape/type combination not implemented";
  return d;
}

const MmaDesc& mma_desc(const Instruction& in) {
  static std::unordered_map<const Instruction*, std::pair<InsnFormKey, MmaDesc>> cache;
  return cached_form(cache, in, parse_mma);
}

/// Row and column of element `i` of fragment `f` held by lane `l` (layouts in the header).
void elem_pos(const MmaDesc& d, Frag f, unsigned l, unsigned i, unsigned* r, unsigned* c) {
  const unsigned g = l >> 2, t = l & 3;
  if (f == Frag::c) {
    if (d.m == 8) {  // f64 m8n8k4
      *r = g;
      *c = t * 2 + i;
    } else {
      *r = g + (i >= 2 ? 8 : 0);
      *c = t * 2 + (i & 1);
    }
    return;
  }
  const Type ty = d.ta;
  if (ty == Type::f64) {
    if (f == Frag::a)
      *r = g, *c = t;
    else
      *r = t, *c = g;
    return;
  }
  if (ty == Type::tf32) {
    if (f == Frag::a) {
      *r = g + ((i & 1) ? 8 : 0);
      *c = t + (i >= 2 ? 4 : 0);
    } else {
      *r = t + (i >= 1 ? 4 : 0);
      *c = g;
    }
    return;
  }
  if (ty == Type::f16 || ty == Type::bf16) {
    if (f == Frag::a) {
      *r = g + ((i & 2) ? 8 : 0);
      *c = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    } else {
      *r = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);
      *c = g;
    }
    return;
  }
  // s8 / u8
  if (f == Frag::a) {
    *r = g + ((i & 4) ? 8 : 0);
    *c = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
  } else {
    *r = t * 4 + (i & 3) + (i >= 4 ? 16 : 0);
    *c = g;
  }
}

/// Element `i` of the fragment in vector operand `v` of lane `l` (raw bits).
uint64_t frag_get(const ExecContext& cx, const Warp& w, const DOp& v, unsigned l, unsigned ebits,
                  unsigned i) {
  const unsigned per = ebits >= 32 ? 1 : 32 / ebits;
  const unsigned reg = i / per, sub = i % per;
  const DOp* el = &v;
  if (v.kind == DOp::k_vec) {
    if (reg >= v.count) return 0;
    el = &cx.prog->elems[v.slot + reg];
  } else if (reg != 0) {
    return 0;
  }
  uint64_t raw;
  if (el->kind == DOp::k_reg)
    raw = w.R[size_t(el->slot) * kMaxWarpSize + l];
  else if (el->kind == DOp::k_imm)
    raw = el->imm;
  else
    return 0;
  if (ebits >= 32) return ebits == 64 ? raw : (raw & 0xffffffffu);
  return (raw >> (sub * ebits)) & ((uint64_t(1) << ebits) - 1);
}

void h_mma_sync(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const MmaDesc& ds = mma_desc(*d.in);
  if (!ds.error.empty())
    guest_fault(cx, w, d, std::countr_zero(e), "unsupported PTX instruction " + ds.error);
  if (e != (w.valid & ~w.exited))
    guest_fault(cx, w, d, std::countr_zero(e),
                "mma.sync.aligned needs every thread of the warp to execute it together");
  const unsigned M = ds.m, N = ds.n, K = ds.k, lanes = kMaxWarpSize;
  const unsigned Ea = M * K / lanes, Eb = K * N / lanes, Ec = M * N / lanes;
  const unsigned ba = bits_of_type(ds.ta), bb = bits_of_type(ds.tb), bc = bits_of_type(ds.tc),
                 bd = bits_of_type(ds.td);
  double A[16 * 32] = {}, B[32 * 8] = {}, C[16 * 8] = {};
  for (unsigned l = 0; l < lanes; ++l) {
    unsigned r, c;
    for (unsigned i = 0; i < Ea; ++i) {
      elem_pos(ds, Frag::a, l, i, &r, &c);
      A[r * K + c] = to_double(ds.ta, frag_get(cx, w, d.op[1], l, ba, i));
    }
    for (unsigned i = 0; i < Eb; ++i) {
      elem_pos(ds, Frag::b, l, i, &r, &c);
      B[r * N + c] = to_double(ds.tb, frag_get(cx, w, d.op[2], l, bb, i));
    }
    for (unsigned i = 0; i < Ec; ++i) {
      elem_pos(ds, Frag::c, l, i, &r, &c);
      C[r * N + c] = to_double(ds.tc, frag_get(cx, w, d.op[3], l, bc, i));
    }
  }
  uint64_t D[16 * 8];
  for (unsigned r = 0; r < M; ++r)
    for (unsigned c = 0; c < N; ++c) {
      double acc = C[r * N + c];
      for (unsigned q = 0; q < K; ++q) acc += A[r * K + q] * B[q * N + c];
      D[r * N + c] = from_double(ds.td, acc, ds.satfinite);
    }
  // Write the destination fragment (registers are written after every source was read, so
  // d may alias c).
  const DOp& vd = d.op[0];
  const unsigned per = bd >= 32 ? 1 : 32 / bd;
  for (unsigned l = 0; l < lanes; ++l) {
    const unsigned nregs = vd.kind == DOp::k_vec ? vd.count : 1;
    for (unsigned reg = 0; reg < nregs; ++reg) {
      const DOp& el = vd.kind == DOp::k_vec ? cx.prog->elems[vd.slot + reg] : vd;
      if (el.kind != DOp::k_reg) continue;
      uint64_t raw = 0;
      for (unsigned sub = 0; sub < per; ++sub) {
        const unsigned i = reg * per + sub;
        if (i >= Ec) break;
        unsigned r, c;
        elem_pos(ds, Frag::c, l, i, &r, &c);
        const uint64_t x = D[r * N + c];
        raw |= bd >= 32 ? x : (x & ((uint64_t(1) << bd) - 1)) << (sub * bd);
      }
      w.R[size_t(el.slot) * kMaxWarpSize + l] = raw;
    }
  }
}

// ---- ldmatrix / stmatrix ---------------------------------------------------------------------

struct MatDesc {
  unsigned num = 1;
  bool trans = false;
  std::string error;
};

MatDesc parse_mat(const Instruction& in) {
  MatDesc m;
  bool shape = false;
  for (const std::string& s : in.extra) {
    if (s == ".x1")
      m.num = 1;
    else if (s == ".x2")
      m.num = 2;
    else if (s == ".x4")
      m.num = 4;
    else if (s == ".trans")
      m.trans = true;
    else if (s == ".m8n8")
      shape = true;
    else if (s.starts_with(".m"))
      m.error = full_mnemonic(in) + ": only .m8n8 is implemented";
  }
  if (!shape && m.error.empty()) m.error = full_mnemonic(in) + ": needs .m8n8";
  if (in.type != Type::b16 && m.error.empty())
    m.error = full_mnemonic(in) + ": only .b16 is implemented";
  if (in.space != ptx::Space::shared && in.space != ptx::Space::generic && m.error.empty())
    m.error = full_mnemonic(in) + ": only .shared::cta is implemented";
  return m;
}

const MatDesc& mat_desc(const Instruction& in) {
  static std::unordered_map<const Instruction*, std::pair<InsnFormKey, MatDesc>> cache;
  return cached_form(cache, in, parse_mat);
}

/// The shared-memory offset of lane `l`'s address operand (operand `j` of the instruction).
uint64_t shared_operand(ExecContext& cx, const Warp& w, const DInst& d, unsigned j, unsigned l) {
  const DOp& o = d.op[j];
  const ptx::Operand& po = d.in->ops[j];
  uint64_t a =
      o.kind == DOp::k_reg ? w.R[size_t(o.slot) * kMaxWarpSize + l] + uint64_t(po.imm) : o.imm;
  if (d.in->space == ptx::Space::generic) {
    if (a - kSharedWindow >= kWindowSize)
      guest_fault(cx, w, d, l,
                  fmt::format("address {:#x} is not in shared memory (the instruction needs a "
                              "shared::cta address)",
                              a));
    a -= kSharedWindow;
  }
  return a & 0xffff'ffffull;
}

uint8_t* shared_ptr(ExecContext& cx, const Warp& w, const DInst& d, unsigned l, uint64_t a,
                    unsigned size, bool write) {
  std::vector<uint8_t>& s = cx.cta->shared;
  if (a & (size - 1))
    guest_fault(cx, w, d, l,
                fmt::format("invalid shared {} of {} bytes at address {:#x}: misaligned (needs "
                            "{}-byte alignment)",
                            write ? "write" : "read", size, a, size));
  if (a + size > s.size())
    guest_fault(cx, w, d, l,
                fmt::format("invalid shared {} of {} bytes at address {:#x}: outside the CTA's {} "
                            "bytes of shared memory",
                            write ? "write" : "read", size, a, s.size()));
  return s.data() + a;
}

template <bool kLoad>
void h_matrix(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const MatDesc& md = mat_desc(*d.in);
  if (!md.error.empty())
    guest_fault(cx, w, d, std::countr_zero(e), "unsupported PTX instruction " + md.error);
  if (e != (w.valid & ~w.exited))
    guest_fault(cx, w, d, std::countr_zero(e),
                fmt::format("{}.sync.aligned needs every thread of the warp to execute it together",
                            kLoad ? "ldmatrix" : "stmatrix"));
  const unsigned addr_op = kLoad ? 1 : 0, vec_op = kLoad ? 0 : 1;
  // Row pointers: row r of matrix j comes from lane 8j + r.
  uint8_t* rows[32] = {};
  uint64_t row_addr[32] = {};
  for (unsigned t = 0; t < 8 * md.num; ++t) {
    row_addr[t] = shared_operand(cx, w, d, addr_op, t);
    rows[t] = shared_ptr(cx, w, d, t, row_addr[t], 16, !kLoad);
  }
  const DOp& v = d.op[vec_op];
  for (unsigned j = 0; j < md.num; ++j) {
    const DOp& el = v.kind == DOp::k_vec ? cx.prog->elems[v.slot + std::min(j, v.count - 1u)] : v;
    for (unsigned l = 0; l < kMaxWarpSize; ++l) {
      uint16_t* p0;
      uint16_t* p1;
      if (!md.trans) {
        uint8_t* row = rows[8 * j + l / 4];
        p0 = reinterpret_cast<uint16_t*>(row + (l % 4) * 4);
        p1 = p0 + 1;
      } else {
        p0 = reinterpret_cast<uint16_t*>(rows[8 * j + (l % 4) * 2] + (l / 4) * 2);
        p1 = reinterpret_cast<uint16_t*>(rows[8 * j + (l % 4) * 2 + 1] + (l / 4) * 2);
      }
      if constexpr (kLoad) {
        if (el.kind != DOp::k_reg) continue;
        uint16_t a, b;
        std::memcpy(&a, p0, 2);
        std::memcpy(&b, p1, 2);
        w.R[size_t(el.slot) * kMaxWarpSize + l] = uint64_t(a) | uint64_t(b) << 16;
      } else {
        const uint64_t raw =
            el.kind == DOp::k_reg ? w.R[size_t(el.slot) * kMaxWarpSize + l] : el.imm;
        const uint16_t a = uint16_t(raw), b = uint16_t(raw >> 16);
        std::memcpy(p0, &a, 2);
        std::memcpy(p1, &b, 2);
      }
    }
  }
  if (cx.rec) {
    cx.rec->is_load = kLoad;
    cx.rec->is_store = !kLoad;
    cx.rec->access_size = 16;
    cx.rec->space = MemSpace::shared;
    for (unsigned t = 0; t < kMaxWarpSize; ++t) cx.rec->addr[t] = row_addr[t % (8 * md.num)];
  }
}

// ---- wgmma (sm_90a) ---------------------------------------------------------------------------
//
// wgmma.mma_async.sync.aligned.m64nNk16.{f32,f16}.{f16,bf16}.{f16,bf16} d, a-desc, b-desc,
// scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b (PTX ISA 9.0, 9.7.15): A and B
// from shared memory through matrix descriptors (bits 0-13 start address >> 4, 16-29 leading
// byte offset >> 4, 32-45 stride byte offset >> 4, 62-63 swizzle: 0 none, 1 128B, 2 64B, 3 32B),
// K-major only (imm-trans 0). Canonical K-major layouts: without swizzle, element (r, k) of the
// operand (r = row of A / column of B) is in the 8x16-byte core matrix (r/8, k/8) at
// start + (r/8)*SBO + (k/8)*LBO, row r%8 at 16*(r%8), column k%8; with a W-byte swizzle (W = 32,
// 64, 128) row r is at start + (r/8)*SBO + (r%8)*W and the 16-byte chunk bits 4.. of the
// address are XORed with address bits 7.. (log2(W/16) bits), as on hardware (atoms aligned).
// Each warp of the warpgroup computes its own 16 rows (warp w % 4: rows 16(w%4)..+15), so warps
// run independently. Accumulator fragment: register 4j + i of lane l (groupID g = l/4,
// t = l%4) holds D(16(w%4) + g + 8(i/2), 8j + 2t + (i%2)); f16 accumulators pack elements 2q,
// 2q+1 of that order into register q. scale-d false: D = A*B. fence / commit_group /
// wait_group: nothing to do (the product is written at issue).

struct WgDesc {
  unsigned n = 0;
  Type tab = Type::none, td = Type::none;
  std::string error;
};

WgDesc parse_wg(const Instruction& in) {
  WgDesc d;
  std::vector<Type> types;
  if (in.type != Type::none) types.push_back(in.type);
  if (in.type2 != Type::none) types.push_back(in.type2);
  for (const std::string& x : in.extra) {
    if (x == ".f16") types.push_back(Type::f16);
    if (x == ".bf16") types.push_back(Type::bf16);
    if (x == ".f32") types.push_back(Type::f32);
    unsigned m = 0, n = 0, k = 0;
    if (x.starts_with(".m") && std::sscanf(x.c_str(), ".m%un%uk%u", &m, &n, &k) == 3) {
      if (m != 64 || k != 16 || n % 8 || n < 8 || n > 256)
        d.error = full_mnemonic(in) + ": only m64nNk16 is implemented";
      d.n = n;
    }
  }
  if (types.size() != 3 || types[1] != types[2] ||
      (types[1] != Type::f16 && types[1] != Type::bf16) ||
      (types[0] != Type::f32 && !(types[0] == Type::f16 && types[1] == Type::f16)))
    d.error = full_mnemonic(in) + ": only f16/bf16 inputs with f32 (or f16) accumulators";
  else {
    d.td = types[0];
    d.tab = types[1];
  }
  if (in.ops.size() != 8 || in.ops[1].kind == ptx::OperandKind::vec)
    d.error = full_mnemonic(in) + ": only A and B from shared-memory descriptors are implemented";
  if (!d.n && d.error.empty()) d.error = full_mnemonic(in) + ": no shape";
  return d;
}

const WgDesc& wg_desc(const Instruction& in) {
  static std::unordered_map<const Instruction*, std::pair<InsnFormKey, WgDesc>> cache;
  return cached_form(cache, in, parse_wg);
}

/// Shared-memory offset of element (r, k) of a K-major operand with descriptor `desc`.
uint64_t wg_addr(uint64_t desc, unsigned r, unsigned k) {
  const uint64_t start = (desc & 0x3fff) << 4, lbo = ((desc >> 16) & 0x3fff) << 4,
                 sbo = ((desc >> 32) & 0x3fff) << 4;
  const unsigned swz = unsigned(desc >> 62);
  if (swz == 0) return start + (r / 8) * sbo + (k / 8) * lbo + (r % 8) * 16 + (k % 8) * 2;
  const unsigned bits = swz == 1 ? 3 : swz == 2 ? 2 : 1;  // 128B, 64B, 32B
  const uint64_t W = 16u << bits;
  const uint64_t a = start + (r / 8) * sbo + (r % 8) * W + k * 2;
  return a ^ (((a >> 7) & ((1u << bits) - 1)) << 4);
}

void h_wgmma(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const WgDesc& ds = wg_desc(*d.in);
  if (!ds.error.empty())
    guest_fault(cx, w, d, std::countr_zero(e), "unsupported PTX instruction " + ds.error);
  if (e != kFullMask)
    guest_fault(cx, w, d, std::countr_zero(e),
                "wgmma.mma_async.sync.aligned needs all 32 threads of every warp of the warpgroup");
  const auto& ops = d.in->ops;
  if (ops[6].imm != 0 || ops[7].imm != 0)
    guest_fault(cx, w, d, 0,
                "unsupported PTX instruction " + full_mnemonic(*d.in) +
                    ": transposed (MN-major) operands are not implemented");
  const double sa = int64_t(ops[4].imm) < 0 ? -1 : 1, sb = int64_t(ops[5].imm) < 0 ? -1 : 1;
  const LaneMask scale_d = pred_value(w, d.op[3]);
  const unsigned N = ds.n, wi = w.index % 4;
  std::vector<uint8_t>& sh = cx.cta->shared;
  auto read = [&](uint64_t desc, unsigned r, unsigned k) {
    const uint64_t a = wg_addr(desc, r, k) & 0xffff'ffffull;
    if (a + 2 > sh.size())
      guest_fault(cx, w, d, 0,
                  fmt::format("wgmma: operand address {:#x} outside the CTA's {} bytes of shared "
                              "memory",
                              a, sh.size()));
    uint16_t v;
    std::memcpy(&v, sh.data() + a, 2);
    return to_double(ds.tab, v);
  };
  const uint64_t da = w.R[size_t(d.op[1].slot) * kMaxWarpSize],
                 db = w.R[size_t(d.op[2].slot) * kMaxWarpSize];
  if (d.op[1].kind != DOp::k_reg || d.op[2].kind != DOp::k_reg)
    guest_fault(cx, w, d, 0, "wgmma: the descriptors must be registers");
  double A[16][16], B[256][16];
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned k = 0; k < 16; ++k) A[r][k] = sa * read(da, 16 * wi + r, k);
  for (unsigned n = 0; n < N; ++n)
    for (unsigned k = 0; k < 16; ++k) B[n][k] = sb * read(db, n, k);
  const DOp& vd = d.op[0];
  const bool f32 = ds.td == Type::f32;
  const unsigned elems = N / 2;  // per lane
  for (unsigned l = 0; l < kMaxWarpSize; ++l) {
    const unsigned g = l / 4, t = l % 4;
    uint64_t out[128] = {};
    for (unsigned q = 0; q < elems; ++q) {
      const unsigned j = q / 4, i = q % 4;
      const unsigned r = g + 8 * (i / 2), c = 8 * j + 2 * t + (i % 2);
      const unsigned reg = f32 ? q : q / 2, sub = f32 ? 0 : q % 2;
      const DOp& el = cx.prog->elems[vd.slot + std::min<unsigned>(reg, vd.count - 1u)];
      double acc = 0;
      if ((scale_d >> l) & 1 && el.kind == DOp::k_reg) {
        const uint64_t raw = w.R[size_t(el.slot) * kMaxWarpSize + l];
        acc = f32 ? double(fp::f32_of(uint32_t(raw)))
                  : fp::decode<fp::FmtF16>((raw >> (16 * sub)) & 0xffff);
      }
      for (unsigned k = 0; k < 16; ++k) acc += A[r][k] * B[c][k];
      out[q] = from_double(ds.td, acc, false);
    }
    const unsigned nregs = f32 ? elems : elems / 2;
    for (unsigned reg = 0; reg < nregs && reg < vd.count; ++reg) {
      const DOp& el = cx.prog->elems[vd.slot + reg];
      if (el.kind != DOp::k_reg) continue;
      w.R[size_t(el.slot) * kMaxWarpSize + l] =
          f32 ? out[reg] : (out[2 * reg] & 0xffff) | (out[2 * reg + 1] & 0xffff) << 16;
    }
  }
}

void h_wg_nop(ExecContext&, Warp&, const DInst&, LaneMask) {}

}  // namespace

unsigned wgmma_n_of(const Instruction& in) {
  if (in.op != ptx::Op::wgmma || in.extra.empty() || in.extra[0] != ".mma_async") return 0;
  return wg_desc(in).n;
}

Handler select_mma_sync(const Instruction& in) {
  if (in.op == ptx::Op::wgmma) {
    if (in.extra.empty()) return nullptr;
    const std::string& k = in.extra[0];
    if (k == ".mma_async") return &h_wgmma;
    if (k == ".fence" || k == ".commit_group" || k == ".wait_group") return &h_wg_nop;
    return nullptr;
  }
  switch (in.op) {
    case ptx::Op::mma:
      return &h_mma_sync;
    case ptx::Op::ldmatrix:
      return &h_matrix<true>;
    case ptx::Op::stmatrix:
      return &h_matrix<false>;
    default:
      return nullptr;
  }
}

}  // namespace simtlab::func
