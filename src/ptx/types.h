// PTX data types, state spaces and the small enums that encode instruction modifiers.
// Source: NVIDIA PTX ISA 9.0, sections 5.1 (state spaces), 5.2 (types) and chapter 9
// (instruction modifiers). Everything here is decoded once by the parser; nothing on the
// execution path ever looks at strings.
#pragma once

#include <cstdint>
#include <string_view>

namespace simtlab::ptx {

enum class Type : uint8_t {
  none,
  pred,
  b8,
  b16,
  b32,
  b64,
  b128,
  u8,
  u16,
  u32,
  u64,
  s8,
  s16,
  s32,
  s64,
  f16,
  f16x2,
  bf16,
  bf16x2,
  tf32,
  f32,
  f64,
  e4m3,
  e5m2,
  e4m3x2,
  e5m2x2,
  s4,
  u4,
  b1,
};

enum class TypeKind : uint8_t { none, pred, bits, uint, sint, flt };

/// Size in bytes of a value of the type (pred counts as 1 byte in memory; none is 0).
uint32_t type_size(Type t);
/// Size in bits.
inline uint32_t type_bits(Type t) {
  return t == Type::b1 ? 1 : (t == Type::s4 || t == Type::u4) ? 4 : type_size(t) * 8;
}
TypeKind type_kind(Type t);
inline bool is_float(Type t) { return type_kind(t) == TypeKind::flt; }
inline bool is_signed(Type t) { return type_kind(t) == TypeKind::sint; }
std::string_view type_name(Type t);

enum class Space : uint8_t {
  generic,  // no state-space qualifier: generic addressing
  global,
  shared,  // .shared / .shared::cta
  shared_cluster,
  local,
  const_,
  param,  // .param (kernel or function parameters)
  tex,
  reg,
};
std::string_view space_name(Space s);

/// Rounding modifiers (.rn .rz .rm .rp for floats, .rni .rzi .rmi .rpi for float->int/round).
enum class Round : uint8_t { none, rn, rz, rm, rp, rna, rni, rzi, rmi, rpi, rs };

/// Comparison operators of setp/set/slct (ordered, unsigned-int and unordered-float forms).
enum class Cmp : uint8_t {
  none,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  lo,
  ls,
  hi,
  hs,
  equ,
  neu,
  ltu,
  leu,
  gtu,
  geu,
  num,
  nan,
};

/// The boolean combining operation of setp/set (`setp.lt.and.s32 p, a, b, c`) and bar.red.
enum class BoolOp : uint8_t { none, and_, or_, xor_, popc };

/// mul/mad result selection.
enum class MulMode : uint8_t { none, lo, hi, wide };

/// atom/red/redux operation.
enum class AtomOp : uint8_t { none, add, inc, dec, exch, cas, min, max, and_, or_, xor_ };

enum class ShflMode : uint8_t { none, up, down, bfly, idx };
enum class VoteMode : uint8_t { none, all, any, uni, ballot };

/// Memory-consistency semantics and scope (accepted; a single coherent memory implements
/// them trivially in the functional model).
enum class Sem : uint8_t { none, weak, relaxed, acquire, release, acq_rel, sc, volatile_, mmio };
enum class Scope : uint8_t { none, cta, cluster, gpu, sys };

/// Cache operators on ld/st (PTX ISA 9.7.9.1). The timing model uses them for bypass.
enum class CacheOp : uint8_t { none, ca, cg, cs, lu, cv, wb, wt };

/// Texture/surface geometry.
enum class Geom : uint8_t { none, d1, d2, d3, a1d, a2d, cube, acube, d2ms, a2dms };

/// Special registers (PTX ISA 10). Vector ones take a component x/y/z.
enum class Sreg : uint8_t {
  tid,
  ntid,
  ctaid,
  nctaid,
  laneid,
  warpid,
  nwarpid,
  smid,
  nsmid,
  gridid,
  lanemask_eq,
  lanemask_le,
  lanemask_lt,
  lanemask_ge,
  lanemask_gt,
  clock,
  clock_hi,
  clock64,
  globaltimer,
  globaltimer_lo,
  globaltimer_hi,
  envreg,
  dynamic_smem_size,
  total_smem_size,
  aggr_smem_size,
  reserved_smem_offset,
  pm,
  is_explicit_cluster,
  clusterid,
  nclusterid,
  cluster_ctaid,
  cluster_nctaid,
  cluster_ctarank,
  cluster_nctarank,
};
std::string_view sreg_name(Sreg s);

}  // namespace simtlab::ptx
