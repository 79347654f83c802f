// Thread-block clusters (sm_90): distributed shared memory addressing and the cluster barrier.
//   mapa{.shared::cluster}.{u32,u64} d, a, rank   (PTX ISA 9.7.9.19): the address of the same
//       offset as `a` in the shared memory of CTA `rank` of the cluster. Without a state space
//       `a` and `d` are generic addresses, with .shared::cluster they are 32-bit shared ones.
//   getctarank{.shared::cluster}.{u32,u64} d, a   (9.7.9.20): the rank of the CTA whose shared
//       memory `a` addresses.
//   barrier.cluster.arrive{.release,.relaxed}{.aligned} / barrier.cluster.wait{.acquire}{.aligned}
//       (9.7.13.4): split-phase barrier over every thread of the cluster (executor.cpp).
// Address encoding: memory.h (kClusterSharedBit): rank in bits 24..30 of a shared address with
// bit 31 set; addresses below the bit are this CTA's (the shared::cta window). ld/st/atom/red
// on such addresses reach the peer through cluster_shared() below (exec_mem.cpp calls it for
// any shared address outside the CTA's own memory). Bad ranks, exited peers and offsets
// outside a peer's shared memory are guest faults, as compute-sanitizer reports them.
#include <fmt/format.h>

#include "func/exec_common.h"
#include "func/executor.h"
#include "func/memory.h"

namespace simtlab::func {

using namespace ptx;

namespace {

uint32_t cluster_size(const ExecContext& cx) {
  return cx.cta->cluster ? uint32_t(cx.cta->cluster->ctas.size()) : 1;
}

/// The 32-bit shared address a generic or shared::cluster operand names (fault if neither).
uint32_t shared_addr_of(const ExecContext& cx, const Warp& w, const DInst& d, unsigned l,
                        uint64_t a, bool generic) {
  if (!generic) return uint32_t(a);
  if (a - kSharedWindow >= kWindowSize)
    guest_fault(cx, w, d, l,
                fmt::format("{}: generic address {:#x} is not in the shared memory window",
                            op_name(d.in->op), a));
  return uint32_t(a - kSharedWindow);
}

uint32_t rank_of(const ExecContext& cx, uint32_t s) {
  return (s & kClusterSharedBit) ? (s >> kClusterRankShift) & kClusterRankMask
                                 : cx.cta->cluster_rank;
}

template <bool kGeneric>
void h_mapa(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1, t2;
  Lanes a = src_lanes(w, d.op[1], t1);
  Lanes r = src_lanes(w, d.op[2], t2);
  uint64_t* D = dst_lanes(w, d.op[0]);
  const uint32_t n = cluster_size(cx);
  for_lanes(e, [&](unsigned l) {
    const uint32_t s = shared_addr_of(cx, w, d, l, a[l], kGeneric);
    const uint32_t rank = uint32_t(r[l]);
    if (rank >= n)
      guest_fault(cx, w, d, l,
                  fmt::format("mapa: CTA rank {} is outside the cluster of {} CTAs", rank, n));
    const uint32_t off = (s & kClusterSharedBit) ? (s & kClusterOffsetMask) : s;
    if (off > kClusterOffsetMask)
      guest_fault(cx, w, d, l, fmt::format("mapa: {:#x} is not a shared memory address", s));
    const uint32_t m = kClusterSharedBit | (rank << kClusterRankShift) | off;
    D[l] = kGeneric ? kSharedWindow + m : m;
  });
}

template <bool kGeneric>
void h_getctarank(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  uint64_t t1;
  Lanes a = src_lanes(w, d.op[1], t1);
  uint64_t* D = dst_lanes(w, d.op[0]);
  for_lanes(e,
            [&](unsigned l) { D[l] = rank_of(cx, shared_addr_of(cx, w, d, l, a[l], kGeneric)); });
}

template <bool kArrive>
void h_barrier_cluster(ExecContext& cx, Warp& w, const DInst& d, LaneMask e) {
  if (cx.rec) cx.rec->barrier = true;
  (void)d;
  if constexpr (kArrive) {
    cluster_arrive(cx, w, d, e);
  } else {
    // Independent thread scheduling: the warp's thread groups first gather at the wait (as at a
    // CTA barrier), so a group that has not arrived yet is not blocked behind the warp's wait.
    if (w.its && !its_bar_arrive(w, uint32_t(&d - cx.prog->code.data()), kClusterBarrierId, 0))
      return;
    cluster_wait(cx, w);  // blocks the warp (at_barrier) until the phase completes
  }
}

}  // namespace

uint8_t* cluster_shared(ExecContext& cx, const Warp& w, const DInst& d, unsigned l, uint64_t a,
                        uint32_t size, bool write, bool* remote) {
  const uint32_t rank = uint32_t(a >> kClusterRankShift) & kClusterRankMask;
  const uint32_t off = uint32_t(a) & kClusterOffsetMask;
  const uint32_t n = cluster_size(cx);
  const char* what = write ? "write" : "read";
  if (a > 0xffff'ffffull || rank >= n)
    guest_fault(cx, w, d, l,
                fmt::format("invalid distributed shared memory {} of {} bytes at shared::cluster "
                            "address {:#x}: CTA rank {} is outside the cluster of {} CTAs",
                            what, size, a, rank, n));
  Cta* t = cx.cta->cluster ? cx.cta->cluster->ctas[rank] : cx.cta;
  if (!t || t->done())
    guest_fault(cx, w, d, l,
                fmt::format("invalid distributed shared memory {} of {} bytes at shared::cluster "
                            "address {:#x}: CTA rank {} of the cluster has exited (a missing "
                            "cluster.sync() before exit?)",
                            what, size, a, rank));
  if (uint64_t(off) + size > t->shared.size())
    guest_fault(cx, w, d, l,
                fmt::format("invalid distributed shared memory {} of {} bytes at shared::cluster "
                            "address {:#x}: offset {:#x} is outside CTA rank {}'s {} bytes of "
                            "shared memory",
                            what, size, a, off, rank, t->shared.size()));
  *remote = t != cx.cta;
  return t->shared.data() + off;
}

Handler select_cluster(const Instruction& in) {
  switch (in.op) {
    case Op::mapa:
      if (in.space != Space::generic && in.space != Space::shared_cluster) return nullptr;
      return in.space == Space::generic ? &h_mapa<true> : &h_mapa<false>;
    case Op::getctarank:
      if (in.space != Space::generic && in.space != Space::shared_cluster) return nullptr;
      return in.space == Space::generic ? &h_getctarank<true> : &h_getctarank<false>;
    case Op::barrier:
      if (in.scope != Scope::cluster) return nullptr;
      return in.has(IF_ARRIVE) ? &h_barrier_cluster<true> : &h_barrier_cluster<false>;
    default:
      return nullptr;
  }
}

}  // namespace simtlab::func
