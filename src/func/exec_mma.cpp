// Handlers of the warp-level matrix instructions wmma.load / wmma.store / wmma.mma (PTX ISA
// 9.0, 9.7.14.4 "Warp Level Matrix Multiply-Accumulate Instructions"): shapes m16n16k16,
// m32n8k16 and m8n32k16 with f16/bf16/s8/u8 inputs, m16n16k8 with tf32, m8n8k4 with f64;
// f16/f32/s32/f64 accumulators; .row/.col layouts; .global/.shared/generic addresses with an
// element stride.
//
// Fragment layout. PTX leaves the mapping of matrix elements to the registers of a fragment
// unspecified ("the mapping of fragment elements to threads is unspecified"), and programs
// may only touch fragments through load/store/mma or apply the same operation to every
// element. simtlab uses one fixed mapping: the fragment's matrix (a: MxK, b: KxN, c/d: MxN)
// in row-major order is cut into 32 equal runs of E elements; lane l holds run l in its first E
// element slots (f16/bf16: two per 32-bit register, low half first; s8/u8: four per register;
// f32/tf32/s32: one; f64: one 64-bit register). When the fragment has more slots than E (the
// f16 a/b fragments of m16n16k16 hold 16 elements per lane, twice the 8 a lane needs, as on
// hardware), slot i repeats slot i mod E.
//
// Arithmetic: products and sums are formed in double and rounded once to the accumulator type
// (f16/f32 round to nearest even; s32 wraps, or saturates with .satfinite); tf32 inputs use the
// top 19 bits of their f32 registers. Hardware accumulation order is unspecified, so results
// may differ from a given GPU in the last bit of f16/f32 sums.
//
// Timing records: a load/store reports lane l as accessing the l-th contiguous run of the tile
// in memory order, so the warp touches exactly the tile's bytes.
#include <algorithm>
#include <array>
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

enum class Kind : uint8_t { load, store, mma };

struct Desc {
  Kind kind = Kind::load;
  char mat = 'a';                   // load/store: a, b, c (load), d (store)
  bool row_a = true, row_b = true;  // layouts (load/store: row_a)
  unsigned m = 0, n = 0, k = 0;
  Type ta = Type::f16, tb = Type::f16, tc = Type::f32, td = Type::f32;  // element types
  Type tmem = Type::f16;  // load/store: the element type in memory and in the fragment
  bool satfinite = false;
  std::string error;  // non-empty: a form this file does not implement
};

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
      return 32;  // f32, tf32, s32
  }
}

Desc parse(const Instruction& in) {
  Desc d;
  std::vector<Type> types;
  if (in.type != Type::none) types.push_back(in.type);
  if (in.type2 != Type::none) types.push_back(in.type2);
  std::vector<bool> layouts;
  for (const std::string& x : in.extra) {
    std::string_view s = x;
    if (!s.empty() && s[0] == '.') s.remove_prefix(1);
    if (s == "load") {
      d.kind = Kind::load;
    } else if (s == "store") {
      d.kind = Kind::store;
    } else if (s == "mma") {
      d.kind = Kind::mma;
    } else if (s == "a" || s == "b" || s == "c" || s == "d") {
      d.mat = s[0];
    } else if (s == "row" || s == "col") {
      layouts.push_back(s == "row");
    } else if (s == "satfinite") {
      d.satfinite = true;
    } else if (s.size() > 1 && s[0] == 'm' && s.find('n') != std::string_view::npos) {
      unsigned m = 0, n = 0, k = 0;
      if (std::sscanf(std::string(s).c_str(), "m%un%uk%u", &m, &n, &k) == 3) {
        d.m = m;
        d.n = n;
        d.k = k;
      }
    } else if (s == "f16" || s == "f32" || s == "bf16" || s == "tf32" || s == "f64" || s == "s8" ||
               s == "u8" || s == "s32") {
      static const std::unordered_map<std::string_view, Type> t = {
          {"f16", Type::f16}, {"f32", Type::f32}, {"bf16", Type::bf16}, {"tf32", Type::tf32},
          {"f64", Type::f64}, {"s8", Type::s8},   {"u8", Type::u8},     {"s32", Type::s32}};
      types.push_back(t.at(s));
    }
  }
  const std::string form = fmt::format("wmma.{}", fmt::join(in.extra, ""));
  const bool shape_ok = (d.m == 16 && d.n == 16 && d.k == 16) ||
                        (d.m == 32 && d.n == 8 && d.k == 16) ||
                        (d.m == 8 && d.n == 32 && d.k == 16) ||
                        (d.m == 16 && d.n == 16 && d.k == 8) || (d.m == 8 && d.n == 8 && d.k == 4);
  if (!shape_ok) d.error = fmt::format("{}: shape m{}n{}k{}", form, d.m, d.n, d.k);
  if (d.kind == Kind::mma) {
    if (layouts.size() != 2) d.error = form + ": needs two layouts";
    if (layouts.size() == 2) {
      d.row_a = layouts[0];
      d.row_b = layouts[1];
    }
    if (types.size() == 2) {  // f16 inputs: .dtype.ctype
      d.td = types[0];
      d.tc = types[1];
      d.ta = d.tb = Type::f16;
    } else if (types.size() == 4) {  // .dtype.atype.btype.ctype
      d.td = types[0];
      d.ta = types[1];
      d.tb = types[2];
      d.tc = types[3];
    } else {
      d.error = form + ": unexpected types";
    }
  } else {
    if (layouts.size() != 1) d.error = form + ": needs one layout";
    if (!layouts.empty()) d.row_a = layouts[0];
    if (types.empty()) d.error = form + ": no element type";
    if (!types.empty()) d.tmem = types.back();
  }
  return d;
}

const Desc& desc_of(const Instruction& in) {
  static std::unordered_map<const Instruction*, std::pair<InsnFormKey, Desc>> cache;
  return cached_form(cache, in, parse);
}

/// The logical matrix of a fragment: rows x cols.
void dims(const Desc& d, char mat, unsigned* rows, unsigned* cols) {
  switch (mat) {
    case 'a':
      *rows = d.m;
      *cols = d.k;
      break;
    case 'b':
      *rows = d.k;
      *cols = d.n;
      break;
    default:
      *rows = d.m;
      *cols = d.n;
      break;
  }
}

/// Element slot `i` of a fragment held in the vector operand `v` of lane `l`, as raw bits.
uint64_t get_slot(const ExecContext& cx, const Warp& w, const DOp& v, unsigned l, unsigned ebits,
                  unsigned i) {
  const unsigned per = ebits >= 32 ? 1 : 32 / ebits;
  const unsigned reg = i / per, sub = i % per;
  if (reg >= v.count) return 0;
  const DOp& el = cx.prog->elems[v.slot + reg];
  uint64_t raw;
  if (el.kind == DOp::k_reg)
    raw = w.R[size_t(el.slot) * kMaxWarpSize + l];
  else if (el.kind == DOp::k_imm)
    raw = el.imm;
  else
    return 0;
  if (ebits >= 32) return ebits == 64 ? raw : (raw & 0xffffffffu);
  return (raw >> (sub * ebits)) & ((uint64_t(1) << ebits) - 1);
}

/// Write a whole fragment of lane `l` from its E logical elements (repeated across spare slots).
void put_fragment(const ExecContext& cx, Warp& w, const DOp& v, unsigned l, unsigned ebits,
                  const uint64_t* run, unsigned E) {
  const unsigned per = ebits >= 32 ? 1 : 32 / ebits;
  for (unsigned reg = 0; reg < v.count; ++reg) {
    const DOp& el = cx.prog->elems[v.slot + reg];
    if (el.kind != DOp::k_reg) continue;
    uint64_t raw = 0;
    for (unsigned sub = 0; sub < per; ++sub) {
      const uint64_t e = run[(reg * per + sub) % E];
      raw |= ebits >= 32 ? e : (e & ((uint64_t(1) << ebits) - 1)) << (sub * ebits);
    }
    w.R[size_t(el.slot) * kMaxWarpSize + l] = raw;
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
    case Type::s32: {
      if (satfinite) v = std::clamp(v, -2147483648.0, 2147483647.0);
      return uint64_t(uint32_t(int64_t(v)));  // exact integer sums wrap like hardware
    }
    default:
      return 0;
  }
}

/// The memory address of matrix element (r, c) of a tile whose layout is `row` with a stride
/// of `ld` elements of `eb` bytes.
inline uint64_t elem_addr(uint64_t base, bool row, unsigned r, unsigned c, uint64_t ld,
                          unsigned eb) {
  return base + (row ? uint64_t(r) * ld + c : uint64_t(c) * ld + r) * eb;
}

/// Resolve a tile access of lane `l` (generic, global or shared) to a host pointer.
uint8_t* tile_ptr(ExecContext& cx, Warp& w, const DInst& d, unsigned l, uint64_t a, unsigned size,
                  bool write, MemSpace* sp) {
  AddrSpace as = d.aspace;
  if (as == AddrSpace::generic) {
    if (a - kSharedWindow < kWindowSize) {
      as = AddrSpace::shared;
      a -= kSharedWindow;
    } else {
      as = AddrSpace::global;
    }
  }
  auto bad = [&](const std::string& why) {
    guest_fault(cx, w, d, l,
                fmt::format("invalid {} {} of {} bytes at address {:#x}: {}",
                            as == AddrSpace::shared ? "shared" : "global", write ? "write" : "read",
                            size, a, why));
  };
  if (a & (size - 1)) bad(fmt::format("misaligned (needs {}-byte alignment)", size));
  if (as == AddrSpace::shared) {
    *sp = MemSpace::shared;
    std::vector<uint8_t>& s = cx.cta->shared;
    if (a + size > s.size())
      bad(fmt::format("outside the CTA's {} bytes of shared memory", s.size()));
    return s.data() + a;
  }
  if (as != AddrSpace::global) bad("wmma needs a global, shared or generic address");
  *sp = MemSpace::global;
  uint8_t* p = cx.gmem->translate(a, size);
  if (!p) bad(cx.gmem->describe(a));
  return p;
}

void h_wmma(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const Desc& ds = desc_of(*d.in);
  if (!ds.error.empty())
    guest_fault(cx, w, d, std::countr_zero(e), "unsupported PTX instruction " + ds.error);
  if (e != w.active() || e != (w.valid & ~w.exited))
    guest_fault(cx, w, d, std::countr_zero(e),
                "wmma needs every thread of the warp (.sync.aligned: all threads must execute the "
                "same wmma instruction)");
  const unsigned lanes = kMaxWarpSize;
  if (ds.kind == Kind::mma) {
    const DOp &vd = d.op[0], &va = d.op[1], &vb = d.op[2], &vc = d.op[3];
    const unsigned M = ds.m, N = ds.n, K = ds.k;
    const unsigned Ea = M * K / lanes, Eb = K * N / lanes, Ec = M * N / lanes;
    std::vector<double> A(M * K), B(K * N), C(M * N);
    for (unsigned l = 0; l < lanes; ++l) {
      for (unsigned i = 0; i < Ea; ++i)
        A[l * Ea + i] = to_double(ds.ta, get_slot(cx, w, va, l, bits_of_type(ds.ta), i));
      for (unsigned i = 0; i < Eb; ++i)
        B[l * Eb + i] = to_double(ds.tb, get_slot(cx, w, vb, l, bits_of_type(ds.tb), i));
      for (unsigned i = 0; i < Ec; ++i)
        C[l * Ec + i] = to_double(ds.tc, get_slot(cx, w, vc, l, bits_of_type(ds.tc), i));
    }
    std::vector<uint64_t> D(M * N);
    for (unsigned r = 0; r < M; ++r)
      for (unsigned c = 0; c < N; ++c) {
        double acc = C[r * N + c];
        for (unsigned q = 0; q < K; ++q) acc += A[r * K + q] * B[q * N + c];
        D[r * N + c] = from_double(ds.td, acc, ds.satfinite);
      }
    for (unsigned l = 0; l < lanes; ++l)
      put_fragment(cx, w, vd, l, bits_of_type(ds.td), &D[l * Ec], Ec);
    return;
  }
  // load / store
  const bool load = ds.kind == Kind::load;
  const DOp& v = load ? d.op[0] : d.op[1];
  const DOp& so = d.op[2];
  unsigned rows, cols;
  dims(ds, ds.mat, &rows, &cols);
  const unsigned ebits = bits_of_type(ds.tmem), eb = ebits / 8;
  const unsigned E = rows * cols / lanes;
  const bool row = ds.row_a;
  const unsigned first = std::countr_zero(e);
  uint64_t base = d.addr.off;
  if (d.addr.base_slot >= 0) base += w.R[size_t(d.addr.base_slot) * kMaxWarpSize + first];
  base &= d.addr.mask;
  uint64_t ld = row ? cols : rows;  // default stride: the tile's own leading dimension
  if (so.kind == DOp::k_reg)
    ld = uint32_t(w.R[size_t(so.slot) * kMaxWarpSize + first]);
  else if (so.kind == DOp::k_imm)
    ld = uint32_t(so.imm);
  if (cx.rec) {
    cx.rec->is_load = load;
    cx.rec->is_store = !load;
    cx.rec->access_size = uint8_t(E * eb);
  }
  MemSpace space = MemSpace::none;
  // Functional access, element by element (every element is bounds-checked).
  std::vector<uint64_t> run(E);
  for (unsigned l = 0; l < lanes; ++l) {
    if (!load)
      for (unsigned i = 0; i < E; ++i) run[i] = get_slot(cx, w, v, l, ebits, i);
    for (unsigned i = 0; i < E; ++i) {
      const unsigned idx = l * E + i, r = idx / cols, c = idx % cols;
      uint8_t* p = tile_ptr(cx, w, d, l, elem_addr(base, row, r, c, ld, eb), eb, !load, &space);
      if (load) {
        uint64_t x = 0;
        std::memcpy(&x, p, eb);
        run[i] = x;
      } else {
        std::memcpy(p, &run[i], eb);
      }
    }
    if (load) put_fragment(cx, w, v, l, ebits, run.data(), E);
  }
  if (cx.rec) {
    // Lane l reports the l-th contiguous run of the tile in memory order.
    const unsigned line = row ? cols : rows;  // elements per tile line in memory
    uint64_t a = base;
    if (space == MemSpace::shared && (a - kSharedWindow < kWindowSize)) a -= kSharedWindow;
    for (unsigned l = 0; l < lanes; ++l) {
      const unsigned idx = l * E, outer = idx / line, inner = idx % line;
      cx.rec->addr[l] = a + (uint64_t(outer) * ld + inner) * eb;
    }
    cx.rec->space = space;
  }
}

}  // namespace

Handler select_mma(const Instruction& in) { return in.op == ptx::Op::wmma ? &h_wmma : nullptr; }

}  // namespace simtlab::func
