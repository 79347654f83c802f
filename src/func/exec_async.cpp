// Handlers of the sm_80 asynchronous-copy and synchronization instructions (PTX ISA 9.0):
//
//   cp.async.ca/.cg.shared{::cta}.global [dst], [src], cp-size{, src-size | , ignore-src}
//       (9.7.9.25.3.1): copies cp-size (4, 8 or 16; .cg only 16) bytes per thread from global
//       to shared memory; with src-size < cp-size the rest is zero-filled, with a true
//       ignore-src predicate everything is. The functional model copies at issue; the timing
//       model keeps the transfer asynchronous (the warp goes on; cp.async.wait_group waits for
//       the group's loads, src/timing/sm: DInst::async_copy / async_wait).
//   cp.async.commit_group / wait_group N / wait_all: functionally nothing to do.
//   cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar]: the copies are already complete,
//       so the arrive-on happens now (.noinc: the pending count drops by one; without .noinc it
//       is first raised by one, a net change of zero). With a timing hook whose warp still has
//       copies in flight the raise happens now and the arrive-on when they complete
//       (BulkCopyHook::cp_async_arrive, mbarrier_arrive_deferred).
//   mbarrier.init / inval / arrive{.expect_tx}{.noComplete} / arrive_drop / expect_tx /
//       complete_tx / test_wait{.parity} / try_wait{.parity} / pending_count on
//       .shared{::cta} (9.7.13.15). Each executing thread performs its operation in lane order.
//   elect.sync d|p, membermask (9.7.13.12): the lowest-numbered active lane of membermask.
//   cp.async.bulk (sm_90, 9.7.9.25.4): global->shared::cluster with
//       .mbarrier::complete_tx::bytes (the CTA's own shared memory) and shared::cta->global with
//       .bulk_group; size a multiple of 16. Copied at issue; the first form then performs
//       complete_tx(size) on its mbarrier. bulk commit_group / wait_group: nothing to do.
//   cp.async.bulk.tensor.{1..5}d (TMA, 9.7.9.25.5): .shared::cluster.global.mbarrier::
//       complete_tx::bytes{.tile} [dst], [tensorMap, {coords}], [mbar] and
//       .global.shared::cta.bulk_group{.tile} [tensorMap, {coords}], [src]. The tensor map is a
//       CUtensorMap in simtlab's encoding (func/tensor_map.h: box traversal, OOB zero fill on
//       loads / no write on stores, 32/64/128B swizzle of 16-byte chunks by address bits 7..)
//       at a generic address in the kernel parameter window or global memory. Loads complete_tx
//       the whole box's bytes (out-of-bounds elements included).
//   With a timing hook (ExecContext::bulk, the SM's TmaUnit) the data still moves at issue but
//       the hook takes over the complete_tx of global->shared copies and applies it when the
//       last byte arrives (mbarrier_complete_tx); functional mode completes at issue.
//   cp.async.bulk.prefetch{.tensor}: an L2 hint, nothing to do.
//       Not implemented: .multicast::cluster, .im2col / gather4 / scatter4 modes,
//       shared::cluster peers, interleaved tensor maps.
//
// mbarrier object layout (the 64-bit object is opaque in PTX; simtlab's own encoding):
//   bits  0..19  pending arrivals of the current phase
//   bits 20..39  expected arrival count
//   bits 40..61  tx-count (22-bit two's complement; the ISA's range is +-(2^20 - 1))
//   bit  63      phase parity
// The phase completes when the pending count and the tx-count are both zero: the parity
// flips, pending = expected, tx-count = 0. arrive returns the object as it was before the
// arrival (a "state"): test_wait with a state is true once the parity differs from the
// state's; test_wait.parity p is true once the current parity differs from p (the phase with
// parity p has completed). try_wait is test_wait here (it may return false at once; programs
// retry); the timing model holds a warp at try_wait while the phase is incomplete, at most
// sm.mbarrier_try_wait_limit cycles (mbarrier_wait_blocks, DInst::mbar_try_wait).
#include <bit>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "func/exec_common.h"
#include "func/executor.h"
#include "func/memory.h"
#include "func/tensor_map.h"

namespace simtlab::func {

namespace {

using ptx::Instruction;
using ptx::Op;

bool has_mod(const Instruction& in, std::string_view m) {
  for (const std::string& s : in.extra)
    if (s == m) return true;
  return false;
}

/// The address operand `j` of lane `l` as written (register + offset or a symbol's address).
uint64_t operand_addr(const Warp& w, const DInst& d, unsigned j, unsigned l) {
  const DOp& o = d.op[j];
  if (o.kind == DOp::k_reg)
    return w.R[size_t(o.slot) * kMaxWarpSize + l] + uint64_t(d.in->ops[j].imm);
  if (o.kind == DOp::k_frame) return o.imm + w.frame().local_base;
  return o.imm;
}

uint64_t operand_val(const Warp& w, const DOp& o, unsigned l) {
  if (o.kind == DOp::k_reg) return w.R[size_t(o.slot) * kMaxWarpSize + l];
  if (o.kind == DOp::k_pred) return (pred_value(w, o) >> l) & 1;
  return o.imm;
}

/// Shared-memory pointer of lane `l`'s operand `j` (a .shared::cta address, or a generic
/// address in the shared window when the instruction names no state space).
uint8_t* shared_at(ExecContext& cx, const Warp& w, const DInst& d, unsigned j, unsigned l,
                   unsigned size, bool generic, uint64_t* off = nullptr) {
  uint64_t a = operand_addr(w, d, j, l);
  if (generic) {
    if (a - kSharedWindow >= kWindowSize)
      guest_fault(cx, w, d, l,
                  fmt::format("address {:#x} is not in shared memory (the instruction needs a "
                              "shared::cta address)",
                              a));
    a -= kSharedWindow;
  }
  a &= 0xffff'ffffull;
  std::vector<uint8_t>& s = cx.cta->shared;
  if (a & (size - 1))
    guest_fault(cx, w, d, l,
                fmt::format("invalid shared access of {} bytes at address {:#x}: misaligned "
                            "(needs {}-byte alignment)",
                            size, a, size));
  if (a + size > s.size() &&
      (a & kClusterSharedBit)) {  // a peer's (mbarrier.arrive.shared::cluster)
    bool remote;
    if (off) *off = a;
    return cluster_shared(cx, w, d, l, a, size, true, &remote);
  }
  if (a + size > s.size())
    guest_fault(cx, w, d, l,
                fmt::format("invalid shared access of {} bytes at address {:#x}: outside the "
                            "CTA's {} bytes of shared memory",
                            size, a, s.size()));
  if (off) *off = a;
  return s.data() + a;
}

// ---- cp.async --------------------------------------------------------------------------------

void h_cp_async(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const unsigned size = unsigned(d.op[2].imm);
  if (d.op[2].kind != DOp::k_imm || (size != 4 && size != 8 && size != 16))
    guest_fault(cx, w, d, std::countr_zero(e), "cp.async: cp-size must be 4, 8 or 16");
  const bool generic_dst = d.in->space != ptx::Space::shared;
  const bool has4 = d.nops > 3 && d.op[3].kind != DOp::k_none;
  const bool ignore_pred = has4 && d.op[3].kind == DOp::k_pred;
  if (cx.rec) {
    cx.rec->is_load = true;
    cx.rec->access_size = uint8_t(size);
    cx.rec->space = MemSpace::global;
  }
  for_lanes(e, [&](unsigned l) {
    unsigned n = size;
    if (has4) {
      const uint64_t v = operand_val(w, d.op[3], l);
      n = ignore_pred ? (v ? 0 : size) : unsigned(std::min<uint64_t>(v, size));
    }
    uint8_t buf[16] = {};
    uint64_t src = operand_addr(w, d, 1, l);
    if (src & (size - 1))
      guest_fault(
          cx, w, d, l,
          fmt::format("invalid global read of {} bytes at address {:#x}: misaligned", size, src));
    if (cx.rec) cx.rec->addr[l] = src;
    if (n) {
      const uint8_t* p = cx.gmem->translate(src, n);
      if (!p)
        guest_fault(cx, w, d, l,
                    fmt::format("invalid global read of {} bytes at address {:#x}: {}", n, src,
                                cx.gmem->describe(src)));
      std::memcpy(buf, p, n);
    }
    std::memcpy(shared_at(cx, w, d, 0, l, size, generic_dst), buf, size);
  });
}

void h_nop_async(ExecContext&, Warp&, const DInst&, LaneMask) {}

// ---- mbarrier --------------------------------------------------------------------------------

constexpr uint64_t kCountMask = (1u << 20) - 1;
constexpr uint64_t kTxMask = (1u << 22) - 1;

struct Mbar {
  uint32_t pending, expected;
  int32_t tx;
  bool phase;
};

Mbar unpack(uint64_t v) {
  Mbar m;
  m.pending = uint32_t(v & kCountMask);
  m.expected = uint32_t((v >> 20) & kCountMask);
  const uint32_t t = uint32_t((v >> 40) & kTxMask);
  m.tx = int32_t(t << 10) >> 10;
  m.phase = (v >> 63) & 1;
  return m;
}

uint64_t pack(const Mbar& m) {
  return uint64_t(m.pending & kCountMask) | uint64_t(m.expected & kCountMask) << 20 |
         (uint64_t(uint32_t(m.tx)) & kTxMask) << 40 | uint64_t(m.phase) << 63;
}

enum class MbOp : uint8_t {
  init,
  inval,
  arrive,
  arrive_drop,
  expect_tx,
  complete_tx,
  test_wait,
  pending_count,
  bad
};

struct MbDesc {
  MbOp op = MbOp::bad;
  bool expect_tx = false;  // arrive.expect_tx / arrive_drop.expect_tx
  bool parity = false;
  bool generic = false;
  bool cp_async = false;  // cp.async.mbarrier.arrive
  bool noinc = false;
};

MbDesc parse_mb(const Instruction& in) {
  MbDesc m;
  m.generic = in.space == ptx::Space::generic;
  m.parity = has_mod(in, ".parity");
  m.expect_tx = has_mod(in, ".expect_tx");
  if (in.op == Op::cp) {
    m.cp_async = true;
    m.op = MbOp::arrive;
    m.noinc = has_mod(in, ".noinc");
    return m;
  }
  if (has_mod(in, ".init"))
    m.op = MbOp::init;
  else if (has_mod(in, ".inval"))
    m.op = MbOp::inval;
  else if (has_mod(in, ".arrive"))
    m.op = MbOp::arrive;
  else if (has_mod(in, ".arrive_drop"))
    m.op = MbOp::arrive_drop;
  else if (has_mod(in, ".expect_tx"))
    m.op = MbOp::expect_tx;
  else if (has_mod(in, ".complete_tx"))
    m.op = MbOp::complete_tx;
  else if (has_mod(in, ".test_wait") || has_mod(in, ".try_wait"))
    m.op = MbOp::test_wait;
  else if (has_mod(in, ".pending_count"))
    m.op = MbOp::pending_count;
  // shared::cluster: only arrive may name a peer CTA's mbarrier (exec_cluster.cpp addresses).
  if (in.space == ptx::Space::shared_cluster && m.op != MbOp::arrive) m.op = MbOp::bad;
  return m;
}

void complete_if_done(Mbar& m) {
  if (m.pending == 0 && m.tx == 0) {
    m.phase = !m.phase;
    m.pending = m.expected;
  }
}

template <MbOp OP>
void h_mbarrier(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const MbDesc md = parse_mb(*d.in);  // cheap: a few string compares per warp instruction
  if constexpr (OP == MbOp::pending_count) {
    uint64_t t;
    Lanes s = src_lanes(w, d.op[1], t);
    uint64_t* D = dst_lanes(w, d.op[0]);
    for_lanes(e, [&](unsigned l) { D[l] = unpack(s[l]).pending; });
    return;
  } else {
    // Operand positions: a destination first (state / waitComplete) unless the first
    // operand is the address.
    const unsigned a = d.in->ndst ? 1 : 0;
    LaneMask wait_true = 0;
    uint64_t* D = (d.in->ndst && d.op[0].kind == DOp::k_reg) ? dst_lanes(w, d.op[0]) : nullptr;
    if (cx.rec) {
      cx.rec->is_atomic = OP != MbOp::test_wait;
      cx.rec->is_load = true;
      cx.rec->is_store = OP != MbOp::test_wait;
      cx.rec->access_size = 8;
      cx.rec->space = MemSpace::shared;
    }
    bool polled = false;  // test_wait: the first lane whose phase is incomplete was noted
    for_lanes(e, [&](unsigned l) {
      uint64_t off;
      uint8_t* p = shared_at(cx, w, d, a, l, 8, md.generic, &off);
      if (cx.rec) cx.rec->addr[l] = off;
      uint64_t raw;
      std::memcpy(&raw, p, 8);
      Mbar m = unpack(raw);
      auto opnd = [&](unsigned j) { return operand_val(w, d.op[j], l); };
      auto bad = [&](const char* why) {
        guest_fault(cx, w, d, l, fmt::format("mbarrier at shared address {:#x}: {}", off, why));
      };
      if constexpr (OP == MbOp::init) {
        const uint64_t c = opnd(a + 1);
        if (c < 1 || c > kCountMask) bad("init count must be in [1, 2^20 - 1]");
        m = Mbar{uint32_t(c), uint32_t(c), 0, false};
      } else if constexpr (OP == MbOp::inval) {
        raw = 0;
        std::memcpy(p, &raw, 8);
        return;
      } else if constexpr (OP == MbOp::expect_tx || OP == MbOp::complete_tx) {
        const int64_t tx = int64_t(opnd(a + 1) & 0xffffffffu);
        m.tx += int32_t(OP == MbOp::expect_tx ? tx : -tx);
        if (m.tx > int32_t(kCountMask) || m.tx < -int32_t(kCountMask)) bad("tx-count out of range");
        if (OP == MbOp::complete_tx) complete_if_done(m);
      } else if constexpr (OP == MbOp::arrive || OP == MbOp::arrive_drop) {
        if (D) D[l] = raw;
        if (md.cp_async && cx.bulk && cx.bulk->cp_async_arrive(w, l, off)) {
          // Timing: the arrive-on happens when the warp's cp.async copies complete
          // (mbarrier_arrive_deferred); without .noinc the pending count is raised now.
          if (!md.noinc) {
            ++m.pending;
            raw = pack(m);
            std::memcpy(p, &raw, 8);
          }
          return;
        }
        if (md.cp_async && !md.noinc) return;  // net change zero (copies already complete)
        uint32_t count = 1;
        unsigned next = a + 1;
        if (md.expect_tx) {
          const int64_t tx = int64_t(opnd(next++) & 0xffffffffu);
          m.tx += int32_t(tx);
          if (m.tx > int32_t(kCountMask)) bad("tx-count out of range");
        } else if (!md.cp_async && d.nops > next && d.op[next].kind != DOp::k_none) {
          count = uint32_t(opnd(next));
        }
        if (m.expected == 0 && m.pending == 0) bad("arrive on an uninitialized mbarrier");
        if (count > m.pending) bad("arrive count exceeds the pending count of the phase");
        if (OP == MbOp::arrive_drop) m.expected -= std::min(count, m.expected);
        m.pending -= count;
        complete_if_done(m);
      } else if constexpr (OP == MbOp::test_wait) {
        const uint64_t s = opnd(a + 1);
        const bool want = md.parity ? bool(s & 1) : bool(s >> 63);  // the phase waited for
        if (m.phase != want) {
          wait_true |= 1u << l;
        } else if (!polled) {
          polled = true;
          w.mbar_poll = MbarPoll{w.insts, uint32_t(&d - cx.prog->code.data()), uint32_t(off),
                                 uint8_t(want), true};
        }
        return;
      }
      raw = pack(m);
      std::memcpy(p, &raw, 8);
    });
    if constexpr (OP == MbOp::test_wait) write_pred(w, d.op[0], wait_true, e);
  }
}

// ---- cp.async.bulk (sm_90, non-tensor) ------------------------------------------------------

/// Apply complete_tx(bytes) to the mbarrier at shared offset `off` (fault when out of range).
void mbar_complete_tx(ExecContext& cx, const Warp& w, const DInst& d, unsigned l, uint8_t* p,
                      uint64_t off, uint32_t bytes) {
  uint64_t raw;
  std::memcpy(&raw, p, 8);
  Mbar m = unpack(raw);
  m.tx -= int32_t(bytes);
  if (m.tx < -int32_t(kCountMask))
    guest_fault(cx, w, d, l,
                fmt::format("mbarrier at shared address {:#x}: tx-count out of range", off));
  complete_if_done(m);
  raw = pack(m);
  std::memcpy(p, &raw, 8);
}

/// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
/// (a CTA's own shared memory: clusters of one CTA) and
/// cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size. The copy happens at issue;
/// the global->shared form then performs complete_tx(size) on the mbarrier.
template <bool kToShared>
void h_bulk(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  for_lanes(e, [&](unsigned l) {
    const uint64_t size = operand_val(w, d.op[2], l) & 0xffffffffu;
    if (size % 16)
      guest_fault(cx, w, d, l, fmt::format("cp.async.bulk: size {} is not a multiple of 16", size));
    if (!size) return;
    const uint64_t g = operand_addr(w, d, kToShared ? 1 : 0, l);
    if (g % 16)
      guest_fault(cx, w, d, l,
                  fmt::format("cp.async.bulk: global address {:#x} is not 16-byte aligned", g));
    uint8_t* gp = cx.gmem->translate(g, size);
    if (!gp)
      guest_fault(cx, w, d, l,
                  fmt::format("invalid global {} of {} bytes at address {:#x}: {}",
                              kToShared ? "read" : "write", size, g, cx.gmem->describe(g)));
    // The shared side: check the whole range through its first and last 16 bytes.
    uint8_t* sp = shared_at(cx, w, d, kToShared ? 0 : 1, l, 16, false);
    const uint64_t so = uint64_t(sp - cx.cta->shared.data());
    if (so + size > cx.cta->shared.size())
      guest_fault(cx, w, d, l,
                  fmt::format("cp.async.bulk: shared range [{:#x}, +{}) is outside the CTA's {} "
                              "bytes of shared memory",
                              so, size, cx.cta->shared.size()));
    uint64_t off = ~uint64_t(0);
    uint8_t* mp = kToShared ? shared_at(cx, w, d, 3, l, 8, false, &off) : nullptr;
    if (kToShared)
      std::memcpy(sp, gp, size);
    else
      std::memcpy(gp, sp, size);
    bool deferred = false;
    if (cx.bulk) {
      std::vector<std::pair<uint64_t, uint32_t>> runs{{g, uint32_t(size)}};
      deferred = cx.bulk->bulk_copy(w, l, kToShared, false, runs, off, uint32_t(size));
    }
    if (kToShared && !deferred) mbar_complete_tx(cx, w, d, l, mp, off, uint32_t(size));
  });
}

// ---- cp.async.bulk.tensor (TMA) -------------------------------------------------------------

/// The tensor map at generic address `a` (the kernel parameter window or global memory).
TensorMapBits read_tensor_map(ExecContext& cx, const Warp& w, const DInst& d, unsigned l,
                              uint64_t a) {
  TensorMapBits m;
  const uint8_t* p = nullptr;
  if (a % 64)
    guest_fault(cx, w, d, l,
                fmt::format("cp.async.bulk.tensor: tensor map address {:#x} is not 64-byte "
                            "aligned",
                            a));
  if (a - kParamWindow < kWindowSize) {
    const uint64_t o = a - kParamWindow;
    if (o + 128 <= cx.launch->params.size()) p = cx.launch->params.data() + o;
  } else {
    p = cx.gmem->translate(a, 128);
  }
  if (!p)
    guest_fault(cx, w, d, l,
                fmt::format("cp.async.bulk.tensor: tensor map address {:#x} is not 128 bytes of "
                            "parameter or global memory",
                            a));
  std::memcpy(&m, p, sizeof m);
  if (m.magic != TensorMapBits::kMagic)
    guest_fault(cx, w, d, l,
                fmt::format("cp.async.bulk.tensor: no tensor map at {:#x} (not made by "
                            "cuTensorMapEncodeTiled)",
                            a));
  return m;
}

/// cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes{.tile}
///     [dstMem], [tensorMap, {c0, .., cN-1}], [mbar]   (the CTA's own shared memory)
/// cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group{.tile} [tensorMap, {coords}], [srcMem]
/// Loads zero-fill out-of-bounds elements and perform complete_tx(box bytes) on the mbarrier;
/// stores skip them. The shared image is swizzled as the map says (tensor_map.h).
template <bool kToShared>
void h_tensor(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  const unsigned jm = kToShared ? 1 : 0, jc = jm + 1, js = kToShared ? 0 : 2;
  unsigned dims = 0;
  for (const std::string& s : d.in->extra)
    if (s.size() == 3 && s[0] == '.' && s[2] == 'd' && s[1] >= '1' && s[1] <= '5')
      dims = unsigned(s[1] - '0');
  std::vector<TensorRun> runs;
  std::vector<uint8_t> img;
  for_lanes(e, [&](unsigned l) {
    const TensorMapBits m = read_tensor_map(cx, w, d, l, operand_addr(w, d, jm, l));
    const DOp& cv = d.op[jc];
    if (cv.kind != DOp::k_vec || cv.count != m.rank || dims != m.rank)
      guest_fault(cx, w, d, l,
                  fmt::format("cp.async.bulk.tensor.{}d: the tensor map has rank {} ({} "
                              "coordinates given)",
                              dims, m.rank, cv.kind == DOp::k_vec ? cv.count : 0));
    int32_t c[5] = {};
    for (unsigned k = 0; k < m.rank; ++k)
      c[k] = int32_t(uint32_t(operand_val(w, cx.prog->elems[cv.slot + k], l)));
    const uint64_t bytes = tensor_box_runs(m, c, runs);
    uint64_t so;
    shared_at(cx, w, d, js, l, 16, false, &so);
    if (so + bytes > cx.cta->shared.size())
      guest_fault(cx, w, d, l,
                  fmt::format("cp.async.bulk.tensor: the {}-byte box at shared address {:#x} is "
                              "outside the CTA's {} bytes of shared memory",
                              bytes, so, cx.cta->shared.size()));
    const uint32_t span = tensor_map_swizzle_bytes(m.swizzle);
    if (span && so % 128)
      guest_fault(cx, w, d, l,
                  fmt::format("cp.async.bulk.tensor: swizzled box at shared address {:#x} is "
                              "not 128-byte aligned",
                              so));
    uint8_t* sh = cx.cta->shared.data();
    img.assign(bytes, 0);
    std::vector<std::pair<uint64_t, uint32_t>> gruns;
    for (const TensorRun& r : runs) {
      if (!r.in_bounds) continue;
      uint8_t* gp = cx.gmem->translate(r.gaddr, r.bytes);
      if (!gp)
        guest_fault(cx, w, d, l,
                    fmt::format("cp.async.bulk.tensor: invalid global {} of {} bytes at address "
                                "{:#x}: {}",
                                kToShared ? "read" : "write", r.bytes, r.gaddr,
                                cx.gmem->describe(r.gaddr)));
      if (kToShared) std::memcpy(img.data() + r.boff, gp, r.bytes);
      gruns.emplace_back(r.gaddr, r.bytes);
    }
    // Shared side, 16-byte chunk by chunk (the swizzle permutes whole chunks).
    for (uint64_t o = 0; o < bytes;) {
      const uint64_t a = so + o;
      const uint32_t n = uint32_t(std::min<uint64_t>(16 - (a & 15), bytes - o));
      const uint64_t t = tensor_swizzle(m, a);
      if (kToShared)
        std::memcpy(sh + t, img.data() + o, n);
      else
        std::memcpy(img.data() + o, sh + t, n);
      o += n;
    }
    if (!kToShared) {
      for (const TensorRun& r : runs)
        if (r.in_bounds)
          std::memcpy(cx.gmem->translate(r.gaddr, r.bytes), img.data() + r.boff, r.bytes);
    }
    uint64_t off = ~uint64_t(0);
    uint8_t* mp = kToShared ? shared_at(cx, w, d, 3, l, 8, false, &off) : nullptr;
    if (cx.rec) cx.rec->addr[l] = m.addr;
    const bool deferred =
        cx.bulk && cx.bulk->bulk_copy(w, l, kToShared, true, gruns, off, uint32_t(bytes));
    if (kToShared && !deferred) mbar_complete_tx(cx, w, d, l, mp, off, uint32_t(bytes));
  });
}

// ---- elect -----------------------------------------------------------------------------------

void h_elect(ExecContext&, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t;
  Lanes m = src_lanes(w, d.op[2], t);
  const LaneMask cand = e & LaneMask(m[unsigned(std::countr_zero(e))]);
  const unsigned leader = cand ? unsigned(std::countr_zero(cand)) : 32;
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e, [&](unsigned l) { D[l] = leader; });
  write_pred(w, d.op[1], cand ? LaneMask(1u << leader) : 0, e);
}

}  // namespace

Handler select_async(const Instruction& in) {
  if (in.op == Op::elect) return in.ops.size() == 3 ? &h_elect : nullptr;
  if (in.op == Op::cp) {
    if (!has_mod(in, ".async")) return nullptr;
    if (has_mod(in, ".bulk")) {
      if (has_mod(in, ".prefetch")) return &h_nop_async;  // an L2 hint: nothing to do
      if (has_mod(in, ".multicast::cluster") || has_mod(in, ".im2col") ||
          has_mod(in, ".im2col::w") || has_mod(in, ".im2col::w::128") ||
          has_mod(in, ".tile::gather4") || has_mod(in, ".tile::scatter4"))
        return nullptr;  // multicast, im2col and gather/scatter modes: not implemented
      if (has_mod(in, ".tensor")) {
        if (in.space == ptx::Space::shared_cluster && in.space2 == ptx::Space::global &&
            has_mod(in, ".mbarrier::complete_tx::bytes") && in.ops.size() == 4)
          return &h_tensor<true>;
        if (in.space == ptx::Space::global && in.space2 == ptx::Space::shared &&
            has_mod(in, ".bulk_group") && in.ops.size() == 3)
          return &h_tensor<false>;
        return nullptr;
      }
      if (has_mod(in, ".commit_group") || has_mod(in, ".wait_group") ||
          has_mod(in, ".wait_group.read"))
        return &h_nop_async;
      if (in.space == ptx::Space::shared_cluster && in.space2 == ptx::Space::global &&
          has_mod(in, ".mbarrier::complete_tx::bytes") && in.ops.size() == 4)
        return &h_bulk<true>;
      if (in.space == ptx::Space::global && in.space2 == ptx::Space::shared &&
          has_mod(in, ".bulk_group") && in.ops.size() == 3)
        return &h_bulk<false>;
      return nullptr;
    }
    if (has_mod(in, ".commit_group") || has_mod(in, ".wait_group") || has_mod(in, ".wait_all"))
      return &h_nop_async;
    if (has_mod(in, ".mbarrier"))
      return in.space == ptx::Space::shared_cluster ? nullptr : &h_mbarrier<MbOp::arrive>;
    if (in.space2 != ptx::Space::global || in.ops.size() < 3) return nullptr;
    if (in.space != ptx::Space::shared) return nullptr;
    return &h_cp_async;
  }
  if (in.op == Op::mbarrier) {
    switch (parse_mb(in).op) {
      case MbOp::init:
        return &h_mbarrier<MbOp::init>;
      case MbOp::inval:
        return &h_mbarrier<MbOp::inval>;
      case MbOp::arrive:
        return &h_mbarrier<MbOp::arrive>;
      case MbOp::arrive_drop:
        return &h_mbarrier<MbOp::arrive_drop>;
      case MbOp::expect_tx:
        return &h_mbarrier<MbOp::expect_tx>;
      case MbOp::complete_tx:
        return &h_mbarrier<MbOp::complete_tx>;
      case MbOp::test_wait:
        return &h_mbarrier<MbOp::test_wait>;
      case MbOp::pending_count:
        return &h_mbarrier<MbOp::pending_count>;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

bool mbarrier_complete_tx(GlobalMemory& gmem, Cta& cta, uint64_t off, uint32_t bytes) {
  if (off % 8 || off + 8 > cta.shared.size()) return false;
  uint8_t* p = cta.shared.data() + off;
  uint64_t raw;
  std::memcpy(&raw, p, 8);
  Mbar m = unpack(raw);
  m.tx -= int32_t(bytes);
  complete_if_done(m);
  raw = pack(m);
  std::memcpy(p, &raw, 8);
  ++gmem.write_epoch;  // a waiting warp's state changes (the livelock detector's epoch)
  return true;
}

bool mbarrier_arrive_deferred(GlobalMemory& gmem, Cta& cta, uint64_t off) {
  if (off % 8 || off + 8 > cta.shared.size()) return false;
  uint8_t* p = cta.shared.data() + off;
  uint64_t raw;
  std::memcpy(&raw, p, 8);
  Mbar m = unpack(raw);
  if (m.pending == 0) return false;  // (an invalidated or reinitialized barrier)
  --m.pending;
  complete_if_done(m);
  raw = pack(m);
  std::memcpy(p, &raw, 8);
  ++gmem.write_epoch;
  return true;
}

bool read_mbarrier(const Cta& cta, uint64_t off, MbarrierState* out) {
  if (off % 8 || off + 8 > cta.shared.size()) return false;
  uint64_t raw;
  std::memcpy(&raw, cta.shared.data() + off, 8);
  const Mbar m = unpack(raw);
  *out = MbarrierState{m.pending, m.expected, m.tx, m.phase};
  return true;
}

bool mbarrier_wait_blocks(const Cta& cta, const Warp& w, const DInst& d, LaneMask lanes) {
  if (!d.in || d.in->op != Op::mbarrier || !lanes || d.nops < 3) return false;
  const MbDesc md = parse_mb(*d.in);
  if (md.op != MbOp::test_wait) return false;
  for (unsigned l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    uint64_t a = operand_addr(w, d, 1, l);
    if (md.generic) {
      if (a - kSharedWindow >= kWindowSize) return false;
      a -= kSharedWindow;
    }
    a &= 0xffff'ffffull;
    if (a % 8 || a + 8 > cta.shared.size()) return false;
    uint64_t raw;
    std::memcpy(&raw, cta.shared.data() + a, 8);
    const Mbar m = unpack(raw);
    const uint64_t s = operand_val(w, d.op[2], l);
    const bool done = md.parity ? (m.phase != bool(s & 1)) : (m.phase != bool(s >> 63));
    if (done) return false;
  }
  return true;
}

bool is_async_copy(const Instruction& in) {
  return in.op == Op::cp && has_mod(in, ".async") && !has_mod(in, ".bulk") &&
         !has_mod(in, ".commit_group") && !has_mod(in, ".wait_group") &&
         !has_mod(in, ".wait_all") && !has_mod(in, ".mbarrier");
}

int async_wait_groups(const Instruction& in) {
  if (in.op != Op::cp || !has_mod(in, ".async") || has_mod(in, ".bulk")) return -1;
  if (has_mod(in, ".wait_all")) return 0;
  if (has_mod(in, ".wait_group") && !in.ops.empty() && in.ops[0].kind == ptx::OperandKind::imm)
    return int(in.ops[0].imm);
  return -1;
}

bool is_async_commit(const Instruction& in) {
  return in.op == Op::cp && has_mod(in, ".async") && !has_mod(in, ".bulk") &&
         has_mod(in, ".commit_group");
}

}  // namespace simtlab::func
