// Memory handlers: ld/ldu/st (all spaces, vectors), atom/red, cvta, isspacep, prefetch,
// tex/suld/sust (bindless objects). PTX ISA 9.7.9, 9.7.12 (atomics), 9.7.10 (textures).
#include <atomic>

#include <fmt/format.h>

#include "func/exec_common.h"
#include "func/memory.h"
#include "func/texture.h"

namespace simtlab::func {

using namespace ptx;

namespace {

const char* space_str(MemSpace s) {
  switch (s) {
    case MemSpace::global:
      return "global";
    case MemSpace::shared:
      return "shared";
    case MemSpace::local:
      return "local";
    case MemSpace::const_:
      return "const";
    case MemSpace::param:
      return "param";
    default:
      return "?";
  }
}

/// Compute the address operand of lane l (before space resolution).
inline uint64_t lane_addr(const Warp& w, const DInst& d, unsigned l) {
  uint64_t a = d.addr.off;
  if (d.addr.base_slot >= 0) a += w.R[size_t(d.addr.base_slot) * kMaxWarpSize + l];
  if (d.addr.frame) a += w.frame().local_base;
  return a & d.addr.mask;
}

[[noreturn]] void fault(const ExecContext& cx, const Warp& w, const DInst& d, unsigned l,
                        bool write, MemSpace sp, uint64_t a, uint32_t size,
                        const std::string& why) {
  guest_fault(cx, w, d, l,
              fmt::format("invalid {} {} of {} bytes at address {:#x}: {}", space_str(sp),
                          write ? "write" : "read", size, a, why));
}

/// Resolve lane l's access of `size` bytes; returns the host pointer. Records the address.
template <AddrSpace AS>
inline uint8_t* resolve(ExecContext& cx, Warp& w, const DInst& d, unsigned l, uint64_t a,
                        uint32_t size, bool write, MemSpace* out_space) {
  MemSpace sp;
  if constexpr (AS == AddrSpace::generic) {
    if (a - kSharedWindow < kWindowSize) {
      sp = MemSpace::shared;
      a -= kSharedWindow;
    } else if (a - kLocalWindow < kWindowSize) {
      sp = MemSpace::local;
      a -= kLocalWindow;
    } else if (a - kParamWindow < kWindowSize) {
      sp = MemSpace::param;
      a -= kParamWindow;
    } else {
      sp = MemSpace::global;
    }
  } else if constexpr (AS == AddrSpace::global) {
    sp = MemSpace::global;
  } else if constexpr (AS == AddrSpace::const_) {
    sp = MemSpace::const_;
  } else if constexpr (AS == AddrSpace::shared) {
    sp = MemSpace::shared;
  } else if constexpr (AS == AddrSpace::local) {
    sp = MemSpace::local;
  } else {
    sp = MemSpace::param;
  }
  if (out_space) *out_space = sp;
  if (a & (size - 1)) [[unlikely]]
    fault(cx, w, d, l, write, sp, a, size,
          fmt::format("misaligned (needs {}-byte alignment)", size));
  if (cx.rec) cx.rec->addr[l] = a;
  switch (sp) {
    case MemSpace::global:
    case MemSpace::const_: {
      uint8_t* p = cx.gmem->translate(a, size);
      if (!p) [[unlikely]]
        fault(cx, w, d, l, write, sp, a, size, cx.gmem->describe(a));
      return p;
    }
    case MemSpace::shared: {
      std::vector<uint8_t>& s = cx.cta->shared;
      if (a + size > s.size() || a + size < a) [[unlikely]] {
        if (a & kClusterSharedBit) {  // a shared::cluster address (distributed shared memory)
          bool remote = false;
          uint8_t* p = cluster_shared(cx, w, d, l, a, size, write, &remote);
          if (remote && cx.rec) cx.rec->dsmem |= 1u << l;
          return p;
        }
        fault(cx, w, d, l, write, sp, a, size,
              fmt::format("outside the CTA's {} bytes of shared memory", s.size()));
      }
      return s.data() + a;
    }
    case MemSpace::local: {
      if (a + size > w.local_stride || a + size < a) [[unlikely]]
        fault(cx, w, d, l, write, sp, a, size,
              fmt::format("outside the thread's {} bytes of local memory (stack overflow?)",
                          w.local_stride));
      return w.local + size_t(l) * w.local_stride + a;
    }
    default: {
      auto& p = cx.launch->params;
      if (write) [[unlikely]]
        fault(cx, w, d, l, write, sp, a, size, "kernel parameters are read-only");
      if (a + size > p.size() || a + size < a) [[unlikely]]
        fault(cx, w, d, l, write, sp, a, size,
              fmt::format("outside the {}-byte kernel parameter buffer", p.size()));
      return const_cast<uint8_t*>(p.data()) + a;
    }
  }
}

inline void begin_record(ExecContext& cx, const DInst& d, bool load, bool store, bool atomic) {
  if (!cx.rec) return;
  cx.rec->is_load = load;
  cx.rec->is_store = store;
  cx.rec->is_atomic = atomic;
  cx.rec->access_size = uint8_t(d.elem_size * d.vec);
}

inline void end_record(ExecContext& cx, MemSpace first) {
  if (cx.rec) cx.rec->space = first;
}

[[gnu::always_inline]] inline uint64_t load_elem(const uint8_t* p, unsigned size, bool sx) {
  uint64_t v = 0;
  std::memcpy(&v, p, size);
  if (sx && size < 8) v = uint64_t(sext(v, size * 8));
  return v;
}

// ---- ld / st ----------------------------------------------------------------------------------

template <AddrSpace AS>
void h_ld(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  begin_record(cx, d, true, false, false);
  const unsigned es = d.elem_size, n = d.vec;
  const bool sx = d.sign_extend;
  MemSpace first = MemSpace::none;
  const DOp& dst = d.op[0];
  const unsigned whole = es * n;
  if (dst.kind != DOp::k_vec) {
    uint64_t* D = dst_lanes(w, dst);
    for_lanes(e, [&](unsigned l) {
      MemSpace sp;
      const uint8_t* p = resolve<AS>(cx, w, d, l, lane_addr(w, d, l), whole, false, &sp);
      if (first == MemSpace::none) first = sp;
      if (es == 16) {
        std::memcpy(&D[l], p, 8);  // b128 loads need a vector destination; keep the low half
      } else {
        D[l] = load_elem(p, es, sx);
      }
    });
  } else {
    for_lanes(e, [&](unsigned l) {
      MemSpace sp;
      const uint8_t* p = resolve<AS>(cx, w, d, l, lane_addr(w, d, l), whole, false, &sp);
      if (first == MemSpace::none) first = sp;
      for (unsigned k = 0; k < n && k < dst.count; ++k) {
        const DOp& el = cx.prog->elems[dst.slot + k];
        if (el.kind == DOp::k_reg)
          w.R[size_t(el.slot) * kMaxWarpSize + l] = load_elem(p + k * es, es, sx);
      }
    });
  }
  end_record(cx, first);
}

template <AddrSpace AS>
void h_st(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  begin_record(cx, d, false, true, false);
  const unsigned es = d.elem_size, n = d.vec;
  MemSpace first = MemSpace::none;
  const DOp& v = d.op[1];
  const unsigned whole = es * n;
  if (v.kind != DOp::k_vec) {
    uint64_t t;
    Lanes a = src_lanes(w, v, t);
    for_lanes(e, [&](unsigned l) {
      MemSpace sp;
      uint8_t* p = resolve<AS>(cx, w, d, l, lane_addr(w, d, l), whole, true, &sp);
      if (first == MemSpace::none) first = sp;
      const uint64_t x = a[l];
      std::memcpy(p, &x, std::min(es, 8u));
    });
  } else {
    uint64_t tmp[8];
    Lanes el[8];
    for (unsigned k = 0; k < n && k < v.count; ++k)
      el[k] = src_lanes(w, cx.prog->elems[v.slot + k], tmp[k]);
    for_lanes(e, [&](unsigned l) {
      MemSpace sp;
      uint8_t* p = resolve<AS>(cx, w, d, l, lane_addr(w, d, l), whole, true, &sp);
      if (first == MemSpace::none) first = sp;
      for (unsigned k = 0; k < n && k < v.count; ++k) {
        const uint64_t x = el[k][l];
        std::memcpy(p + k * es, &x, std::min(es, 8u));
      }
    });
  }
  end_record(cx, first);
}

// ---- atomics ----------------------------------------------------------------------------------

template <typename T>
inline T f32_ftz(T v) {
  if constexpr (std::is_same_v<T, float>) {
    if (std::fpclassify(v) == FP_SUBNORMAL) return std::copysign(0.0f, v);
  }
  return v;
}

template <typename T, AtomOp OP, bool Ftz>
inline T atom_apply(T old, T b, T c) {
  if constexpr (OP == AtomOp::add) {
    if constexpr (std::is_floating_point_v<T>) {
      if constexpr (Ftz)
        return f32_ftz(T(f32_ftz(old) + f32_ftz(b)));
      else
        return T(old + b);
    } else {
      using UT = std::make_unsigned_t<T>;
      return T(UT(old) + UT(b));
    }
  } else if constexpr (OP == AtomOp::min) {
    if constexpr (std::is_floating_point_v<T>)
      return std::fmin(old, b);
    else
      return b < old ? b : old;
  } else if constexpr (OP == AtomOp::max) {
    if constexpr (std::is_floating_point_v<T>)
      return std::fmax(old, b);
    else
      return b > old ? b : old;
  } else if constexpr (OP == AtomOp::and_) {
    return T(old & b);
  } else if constexpr (OP == AtomOp::or_) {
    return T(old | b);
  } else if constexpr (OP == AtomOp::xor_) {
    return T(old ^ b);
  } else if constexpr (OP == AtomOp::exch) {
    return b;
  } else if constexpr (OP == AtomOp::cas) {
    return old == b ? c : old;
  } else if constexpr (OP == AtomOp::inc) {
    return old >= b ? T(0) : T(old + 1);
  } else if constexpr (OP == AtomOp::dec) {
    return (old == 0 || old > b) ? b : T(old - 1);
  } else {
    return old;
  }
}

/// atom (HasDst) and red. Lanes are applied one after another in lane order, which is one of
/// the orders real hardware may produce.
template <AddrSpace AS, typename T, AtomOp OP, bool HasDst, bool Ftz>
void h_atom(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  begin_record(cx, d, true, true, true);
  const unsigned ib = HasDst ? 2 : 1;
  uint64_t t1, t2;
  Lanes b = src_lanes(w, d.op[ib], t1);
  Lanes c = OP == AtomOp::cas ? src_lanes(w, d.op[ib + 1], t2) : b;
  uint64_t* D = HasDst ? dst_lanes(w, d.op[0]) : nullptr;
  MemSpace first = MemSpace::none;
  for_lanes(e, [&](unsigned l) {
    MemSpace sp;
    uint8_t* p = resolve<AS>(cx, w, d, l, lane_addr(w, d, l), sizeof(T), true, &sp);
    if (first == MemSpace::none) first = sp;
    if (sp == MemSpace::const_ || sp == MemSpace::param) [[unlikely]]
      fault(cx, w, d, l, true, sp, lane_addr(w, d, l), sizeof(T),
            "atomics need global or shared memory");
    T old;
    std::memcpy(&old, p, sizeof(T));
    const T nv = atom_apply<T, OP, Ftz>(old, from_bits<T>(b[l]), from_bits<T>(c[l]));
    std::memcpy(p, &nv, sizeof(T));
    if constexpr (HasDst) D[l] = to_bits(old);
  });
  end_record(cx, first);
}

template <AddrSpace AS, bool HasDst>
Handler pick_atom(const Instruction& in) {
  const AtomOp op = in.atom_op();
  const Type t = in.type;
  const bool ftz = t == Type::f32 && !std::count(in.extra.begin(), in.extra.end(), ".noftz");
#define A(T, O, F) return &h_atom<AS, T, AtomOp::O, HasDst, F>;
  switch (op) {
    case AtomOp::add:
      switch (t) {
        case Type::u32:
        case Type::s32:
          A(uint32_t, add, false)
        case Type::u64:
        case Type::s64:
          A(uint64_t, add, false)
        case Type::f32:
          if (ftz) {
            A(float, add, true)
          }
          A(float, add, false)
        case Type::f64:
          A(double, add, false)
        default:
          return nullptr;
      }
    case AtomOp::min:
      switch (t) {
        case Type::u32:
          A(uint32_t, min, false)
        case Type::s32:
          A(int32_t, min, false)
        case Type::u64:
          A(uint64_t, min, false)
        case Type::s64:
          A(int64_t, min, false)
        case Type::f32:
          A(float, min, false)
        case Type::f64:
          A(double, min, false)
        default:
          return nullptr;
      }
    case AtomOp::max:
      switch (t) {
        case Type::u32:
          A(uint32_t, max, false)
        case Type::s32:
          A(int32_t, max, false)
        case Type::u64:
          A(uint64_t, max, false)
        case Type::s64:
          A(int64_t, max, false)
        case Type::f32:
          A(float, max, false)
        case Type::f64:
          A(double, max, false)
        default:
          return nullptr;
      }
#define BITS(O)             \
  switch (type_size(t)) {   \
    case 4:                 \
      A(uint32_t, O, false) \
    case 8:                 \
      A(uint64_t, O, false) \
    default:                \
      return nullptr;       \
  }
    case AtomOp::and_:
      BITS(and_)
    case AtomOp::or_:
      BITS(or_)
    case AtomOp::xor_:
      BITS(xor_)
    case AtomOp::exch:
      BITS(exch)
    case AtomOp::cas:
      switch (type_size(t)) {
        case 2:
          A(uint16_t, cas, false)
        case 4:
          A(uint32_t, cas, false)
        case 8:
          A(uint64_t, cas, false)
        default:
          return nullptr;
      }
    case AtomOp::inc:
      if (t == Type::u32) {
        A(uint32_t, inc, false)
      }
      return nullptr;
    case AtomOp::dec:
      if (t == Type::u32) {
        A(uint32_t, dec, false)
      }
      return nullptr;
    default:
      return nullptr;
  }
#undef BITS
#undef A
}

// ---- cvta / isspacep ---------------------------------------------------------------------------

template <bool To>
void h_cvta(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t;
  Lanes a = src_lanes(w, d.op[1], t);
  uint64_t* D = dst_lanes(w, d.op[0]);
  uint64_t base = 0;
  switch (d.in->space) {
    case Space::shared:
    case Space::shared_cluster:  // the shared::cluster window holds the shared::cta window
      base = kSharedWindow;
      break;
    case Space::local:
      base = kLocalWindow;
      break;
    case Space::param:
      base = kParamWindow;
      break;
    default:
      break;
  }
  const uint64_t m = low_mask(type_bits(d.in->type));
  for_lanes(e, [&](unsigned l) { D[l] = (To ? a[l] - base : a[l] + base) & m; });
}

void h_isspacep(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t;
  Lanes a = src_lanes(w, d.op[1], t);
  LaneMask r = 0;
  for_lanes(e, [&](unsigned l) {
    const uint64_t x = a[l];
    bool in;
    switch (d.in->space) {
      case Space::shared:  // isspacep.shared::cta: this CTA's part of the window
        in = x - kSharedWindow < kClusterSharedBit;
        break;
      case Space::shared_cluster:
        in = x - kSharedWindow < kWindowSize;
        break;
      case Space::local:
        in = x - kLocalWindow < kWindowSize;
        break;
      case Space::param:
        in = x - kParamWindow < kWindowSize;
        break;
      case Space::global:
      case Space::const_:
        in = x >= kGlobalBase && x < kGlobalEnd;
        break;
      default:
        in = false;
    }
    if (in) r |= 1u << l;
  });
  write_pred(w, d.op[0], r, e);
}

void h_nop(ExecContext&, Warp&, const DInst&, LaneMask) {}

// ---- textures -----------------------------------------------------------------------------------

inline float unorm(uint64_t v, unsigned bits, bool sgn) {
  if (sgn) {
    const double m = double((uint64_t(1) << (bits - 1)) - 1);
    return float(std::max(-1.0, double(sext(v, bits)) / m));
  }
  return float(double(v & low_mask(bits)) / double(low_mask(bits)));
}

inline int64_t address_coord(int64_t i, int64_t n, TexAddressMode m, bool& border) {
  switch (m) {
    case TexAddressMode::wrap: {
      int64_t r = i % n;
      return r < 0 ? r + n : r;
    }
    case TexAddressMode::mirror: {
      int64_t p = i % (2 * n);
      if (p < 0) p += 2 * n;
      return p < n ? p : 2 * n - 1 - p;
    }
    case TexAddressMode::border:
      if (i < 0 || i >= n) border = true;
      return std::clamp<int64_t>(i, 0, n - 1);
    default:
      return std::clamp<int64_t>(i, 0, n - 1);
  }
}

/// Fetch texel (x,y,z) as 4 channels of 64-bit raw result bits (float bits or ints).
void fetch_texel(ExecContext& cx, const Warp& w, const DInst& d, unsigned l, const TextureDesc& t,
                 int64_t x, int64_t y, int64_t z, double out[4], bool as_float) {
  bool border = false;
  if (t.dims < 3) z = 0;  // filtering footprints reach one texel outside the used dimensions
  if (t.dims < 2) y = 0;
  x = address_coord(x, int64_t(t.width), t.address[0], border);
  if (t.dims > 1) y = address_coord(y, int64_t(t.height), t.address[1], border);
  if (t.dims > 2) z = address_coord(z, int64_t(t.depth), t.address[2], border);
  for (int k = 0; k < 4; ++k) out[k] = 0;
  if (border) return;
  const uint32_t eb = t.elem_bytes();
  const Addr a =
      t.base + uint64_t(z) * t.pitch * t.height + uint64_t(y) * t.pitch + uint64_t(x) * eb;
  const uint8_t* p = cx.gmem->translate(a, eb);
  if (!p)
    guest_fault(
        cx, w, d, l,
        fmt::format("texture fetch at {:#x} outside its allocation: {}", a, cx.gmem->describe(a)));
  if (cx.rec) {
    cx.rec->texels.push_back(a);
    cx.rec->access_size = uint8_t(std::max<uint32_t>(cx.rec->access_size, eb));
  }
  const unsigned cb = t.channel_bits / 8;
  for (unsigned k = 0; k < t.channels && k < 4; ++k) {
    uint64_t v = 0;
    std::memcpy(&v, p + k * cb, cb);
    if (t.kind == TexChannelKind::flt) {
      out[k] = cb == 4 ? double(bitcast<float>(uint32_t(v))) : cb == 8 ? bitcast<double>(v) : 0.0;
      if (cb == 2) {
        // half-precision texels
        const uint32_t h = uint32_t(v);
        const uint32_t s = (h >> 15) & 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
        double m = e == 0    ? std::ldexp(double(f), -24)
                   : e == 31 ? (f ? NAN : INFINITY)
                             : std::ldexp(double(f | 0x400), int(e) - 25);
        out[k] = s ? -m : m;
      }
    } else if (t.read_normalized_float && as_float) {
      out[k] = unorm(v, t.channel_bits, t.kind == TexChannelKind::sint);
    } else {
      out[k] = t.kind == TexChannelKind::sint ? double(sext(v, t.channel_bits)) : double(v);
    }
  }
  if (t.channels < 4 && t.kind == TexChannelKind::flt) out[3] = out[3];
}

/// tex.{1d,2d,3d}.v4.{f32,s32,u32}.{s32,f32} d, [tex, {coords}]
void h_tex(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const Instruction& in = *d.in;
  // operands: op[0] = dst vec, op[1] = texture handle (addr base reg or imm), op[2] = coords vec
  uint64_t th;
  Lanes h = src_lanes(w, d.op[1], th);
  const DOp& cv = d.op[2];
  const bool fcoord = in.type2 == Type::f32;
  const bool fresult = in.type == Type::f32;
  const unsigned ndim = in.geom == Geom::d3                             ? 3
                        : (in.geom == Geom::d2 || in.geom == Geom::a1d) ? 2
                                                                        : 1;
  if (cx.rec) {
    cx.rec->is_load = true;
    cx.rec->access_size = 0;  // the widest texel fetched (fetch_texel records each)
  }
  for_lanes(e, [&](unsigned l) {
    const TextureDesc* t = cx.textures ? cx.textures->get(h[l]) : nullptr;
    if (!t) guest_fault(cx, w, d, l, fmt::format("tex: {:#x} is not a live texture object", h[l]));
    double c[3] = {0, 0, 0};
    for (unsigned k = 0; k < ndim && k < cv.count; ++k) {
      const DOp& el = cx.prog->elems[cv.slot + k];
      uint64_t tt;
      Lanes cl = src_lanes(w, el, tt);
      c[k] = fcoord ? double(bitcast<float>(uint32_t(cl[l]))) : double(int32_t(cl[l]));
    }
    double out[4];
    if (!fcoord) {
      fetch_texel(cx, w, d, l, *t, int64_t(c[0]), int64_t(c[1]), int64_t(c[2]), out, fresult);
    } else {
      const double dims[3] = {double(t->width), double(t->height), double(t->depth)};
      for (unsigned k = 0; k < ndim; ++k)
        if (t->normalized_coords) c[k] *= dims[k];
      if (t->filter == TexFilter::point) {
        fetch_texel(cx, w, d, l, *t, int64_t(std::floor(c[0])), int64_t(std::floor(c[1])),
                    int64_t(std::floor(c[2])), out, fresult);
      } else {
        // Linear filtering: the weights are 9-bit fixed point with 8 fractional bits (CUDA C
        // Programming Guide, "Texture Fetching", linear filtering), so the fraction is rounded
        // to a multiple of 1/256 before the texels are blended.
        double b[3], fr[3];
        for (unsigned k = 0; k < 3; ++k) {
          b[k] = k < ndim ? std::floor(c[k] - 0.5) : 0.0;
          fr[k] = k < ndim ? std::round(((c[k] - 0.5) - b[k]) * 256.0) / 256.0 : 0.0;
        }
        for (double& o : out) o = 0;
        const unsigned nz = ndim > 2 ? 2 : 1, ny = ndim > 1 ? 2 : 1;
        for (unsigned dz = 0; dz < nz; ++dz)
          for (unsigned dy = 0; dy < ny; ++dy)
            for (unsigned dx = 0; dx < 2; ++dx) {
              double tmp[4];
              fetch_texel(cx, w, d, l, *t, int64_t(b[0]) + dx, int64_t(b[1]) + dy,
                          int64_t(b[2]) + dz, tmp, true);
              const double wgt = (dx ? fr[0] : 1 - fr[0]) *
                                 (ny > 1 ? (dy ? fr[1] : 1 - fr[1]) : 1) *
                                 (nz > 1 ? (dz ? fr[2] : 1 - fr[2]) : 1);
              for (int k = 0; k < 4; ++k) out[k] += wgt * tmp[k];
            }
      }
    }
    const DOp& dv = d.op[0];
    for (unsigned k = 0; k < 4 && k < dv.count; ++k) {
      const DOp& el = cx.prog->elems[dv.slot + k];
      if (el.kind != DOp::k_reg) continue;
      uint64_t bits;
      if (fresult)
        bits = bitcast<uint32_t>(float(out[k]));
      else
        bits = uint32_t(int64_t(out[k]));
      w.R[size_t(el.slot) * kMaxWarpSize + l] = bits;
    }
  });
  if (cx.rec && !cx.rec->texels.empty()) cx.rec->space = MemSpace::tex;
}

/// suld.b / sust.b (byte-addressed x coordinate, .trap on out-of-range).
template <bool Store>
void h_surf(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const Instruction& in = *d.in;
  const unsigned ia = Store ? 0 : 1;  // handle operand index
  uint64_t th;
  Lanes h = src_lanes(w, d.op[ia], th);
  const DOp& cv = d.op[ia + 1];
  const DOp& val = Store ? d.op[2] : d.op[0];
  const unsigned es = std::max(1u, type_size(in.type));
  const unsigned n = in.vec;
  const unsigned ndim = in.geom == Geom::d3                             ? 3
                        : (in.geom == Geom::d2 || in.geom == Geom::a1d) ? 2
                                                                        : 1;
  for_lanes(e, [&](unsigned l) {
    const TextureDesc* t = cx.textures ? cx.textures->get(h[l]) : nullptr;
    if (!t)
      guest_fault(cx, w, d, l, fmt::format("surface: {:#x} is not a live surface object", h[l]));
    int64_t c[3] = {0, 0, 0};
    for (unsigned k = 0; k < ndim && k < cv.count; ++k) {
      uint64_t tt;
      Lanes cl = src_lanes(w, cx.prog->elems[cv.slot + k], tt);
      c[k] = int32_t(cl[l]);
    }
    const int64_t xb = c[0];
    if (xb < 0 || uint64_t(xb) + es * n > t->width * t->elem_bytes() || c[1] < 0 ||
        uint64_t(c[1]) >= t->height || c[2] < 0 || uint64_t(c[2]) >= t->depth) {
      if (in.has(IF_TRAP))
        guest_fault(cx, w, d, l,
                    fmt::format("surface access out of range at ({}, {}, {})", c[0], c[1], c[2]));
      return;  // .clamp/.zero: ignore the access
    }
    const Addr a =
        t->base + uint64_t(c[2]) * t->pitch * t->height + uint64_t(c[1]) * t->pitch + uint64_t(xb);
    uint8_t* p = cx.gmem->translate(a, es * n);
    if (!p)
      guest_fault(cx, w, d, l, fmt::format("surface access at {:#x}: {}", a, cx.gmem->describe(a)));
    for (unsigned k = 0; k < n; ++k) {
      const DOp& el = val.kind == DOp::k_vec ? cx.prog->elems[val.slot + k] : val;
      if constexpr (Store) {
        uint64_t tt;
        Lanes v = src_lanes(w, el, tt);
        const uint64_t x = v[l];
        std::memcpy(p + k * es, &x, es);
      } else {
        uint64_t x = 0;
        std::memcpy(&x, p + k * es, es);
        if (el.kind == DOp::k_reg) w.R[size_t(el.slot) * kMaxWarpSize + l] = x;
      }
    }
  });
}

template <template <AddrSpace> class Pick>
Handler by_space(AddrSpace s) {
  switch (s) {
    case AddrSpace::global:
      return Pick<AddrSpace::global>::get();
    case AddrSpace::shared:
      return Pick<AddrSpace::shared>::get();
    case AddrSpace::local:
      return Pick<AddrSpace::local>::get();
    case AddrSpace::const_:
      return Pick<AddrSpace::const_>::get();
    case AddrSpace::kparam:
      return Pick<AddrSpace::kparam>::get();
    default:
      return Pick<AddrSpace::generic>::get();
  }
}
template <AddrSpace S>
struct PickLd {
  static Handler get() { return &h_ld<S>; }
};
template <AddrSpace S>
struct PickSt {
  static Handler get() { return &h_st<S>; }
};

}  // namespace

/// Address space of a memory instruction, given how decode resolved its operand.
Handler select_mem_for(const Instruction& in, AddrSpace as) {
  switch (in.op) {
    case Op::ld:
    case Op::ldu:
      return by_space<PickLd>(as);
    case Op::st:
      return by_space<PickSt>(as);
    case Op::atom:
      switch (as) {
        case AddrSpace::global:
          return pick_atom<AddrSpace::global, true>(in);
        case AddrSpace::shared:
          return pick_atom<AddrSpace::shared, true>(in);
        default:
          return pick_atom<AddrSpace::generic, true>(in);
      }
    case Op::red:
      switch (as) {
        case AddrSpace::global:
          return pick_atom<AddrSpace::global, false>(in);
        case AddrSpace::shared:
          return pick_atom<AddrSpace::shared, false>(in);
        default:
          return pick_atom<AddrSpace::generic, false>(in);
      }
    default:
      return nullptr;
  }
}

Handler select_mem(const Instruction& in) {
  switch (in.op) {
    case Op::cvta:
      return in.has(IF_TO) ? &h_cvta<true> : &h_cvta<false>;
    case Op::isspacep:
      return &h_isspacep;
    case Op::prefetch:
    case Op::prefetchu:
      return &h_nop;
    case Op::tex:
      return in.vec == 4 || true ? &h_tex : nullptr;
    case Op::suld:
      return &h_surf<false>;
    case Op::sust:
      return &h_surf<true>;
    default:
      return nullptr;
  }
}

}  // namespace simtlab::func
