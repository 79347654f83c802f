#include "ptx/types.h"

namespace simtlab::ptx {

uint32_t type_size(Type t) {
  switch (t) {
    case Type::none:
      return 0;
    case Type::pred:
    case Type::b8:
    case Type::u8:
    case Type::s8:
    case Type::e4m3:
    case Type::e5m2:
    case Type::s4:
    case Type::u4:
    case Type::b1:
      return 1;
    case Type::b16:
    case Type::u16:
    case Type::s16:
    case Type::f16:
    case Type::bf16:
    case Type::e4m3x2:
    case Type::e5m2x2:
      return 2;
    case Type::b32:
    case Type::u32:
    case Type::s32:
    case Type::f32:
    case Type::f16x2:
    case Type::bf16x2:
    case Type::tf32:
      return 4;
    case Type::b64:
    case Type::u64:
    case Type::s64:
    case Type::f64:
      return 8;
    case Type::b128:
      return 16;
  }
  return 0;
}

TypeKind type_kind(Type t) {
  switch (t) {
    case Type::none:
      return TypeKind::none;
    case Type::pred:
      return TypeKind::pred;
    case Type::b8:
    case Type::b16:
    case Type::b32:
    case Type::b64:
    case Type::b128:
    case Type::b1:
      return TypeKind::bits;
    case Type::u8:
    case Type::u16:
    case Type::u32:
    case Type::u64:
    case Type::u4:
      return TypeKind::uint;
    case Type::s8:
    case Type::s16:
    case Type::s32:
    case Type::s64:
    case Type::s4:
      return TypeKind::sint;
    default:
      return TypeKind::flt;
  }
}

std::string_view type_name(Type t) {
  static constexpr std::string_view names[] = {
      "",    "pred", "b8",   "b16",  "b32",    "b64",    "b128",  "u8",   "u16",    "u32",
      "u64", "s8",   "s16",  "s32",  "s64",    "f16",    "f16x2", "bf16", "bf16x2", "tf32",
      "f32", "f64",  "e4m3", "e5m2", "e4m3x2", "e5m2x2", "s4",    "u4",   "b1"};
  return names[static_cast<int>(t)];
}

std::string_view space_name(Space s) {
  static constexpr std::string_view names[] = {
      "generic", "global", "shared", "shared::cluster", "local", "const", "param", "tex", "reg"};
  return names[static_cast<int>(s)];
}

std::string_view sreg_name(Sreg s) {
  static constexpr std::string_view names[] = {"%tid",
                                               "%ntid",
                                               "%ctaid",
                                               "%nctaid",
                                               "%laneid",
                                               "%warpid",
                                               "%nwarpid",
                                               "%smid",
                                               "%nsmid",
                                               "%gridid",
                                               "%lanemask_eq",
                                               "%lanemask_le",
                                               "%lanemask_lt",
                                               "%lanemask_ge",
                                               "%lanemask_gt",
                                               "%clock",
                                               "%clock_hi",
                                               "%clock64",
                                               "%globaltimer",
                                               "%globaltimer_lo",
                                               "%globaltimer_hi",
                                               "%envreg",
                                               "%dynamic_smem_size",
                                               "%total_smem_size",
                                               "%aggr_smem_size",
                                               "%reserved_smem_offset",
                                               "%pm",
                                               "%is_explicit_cluster",
                                               "%clusterid",
                                               "%nclusterid",
                                               "%cluster_ctaid",
                                               "%cluster_nctaid",
                                               "%cluster_ctarank",
                                               "%cluster_nctarank"};
  return names[static_cast<int>(s)];
}

}  // namespace simtlab::ptx
