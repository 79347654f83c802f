// WarpInstRecord: what the functional executor reports for one executed warp instruction.
// The timing model (src/timing) consumes these records; it never recomputes values.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "base/types.h"
#include "ptx/types.h"

namespace simtlab::func {

struct DInst;

/// Memory space an access resolved to (generic accesses are resolved per lane; a warp
/// access that mixes spaces reports the space of its first active lane).
enum class MemSpace : uint8_t { none, global, shared, local, const_, param, tex };

struct WarpInstRecord {
  const DInst* inst = nullptr;  // static information: opcode, exec class, registers, PTX line
  uint32_t pc = 0;
  LaneMask active = 0;  // lanes enabled by the SIMT stack when issued
  LaneMask exec = 0;    // lanes that executed (active and guard predicate true)

  // memory (valid when space != none)
  MemSpace space = MemSpace::none;
  bool is_load = false, is_store = false, is_atomic = false;
  uint8_t access_size = 0;                // bytes per lane (vector accesses: the whole vector)
  std::array<Addr, kMaxWarpSize> addr{};  // per-lane address in `space` (exec lanes only)
  // Texture fetches (space == tex; addr unused): the global address of every texel read, lane
  // by lane in lane order, each access_size bytes. A point-sampled fetch reads one texel, linear
  // filtering 2, 4 or 8 (1D, 2D, 3D); border texels read no memory. For CUDA arrays these are
  // addresses in the array's storage.
  std::vector<Addr> texels;
  // Shared-space accesses: lanes that reached another CTA's shared memory of the cluster
  // (distributed shared memory, sm_90); their addr is the shared::cluster address.
  LaneMask dsmem = 0;

  // control
  bool branch = false;     // a bra/call/ret/exit
  bool divergent = false;  // split the warp
  uint32_t next_pc = 0;    // PC of the warp after this instruction (top of SIMT stack)
  uint32_t reconv_pc = 0;  // reconvergence PC pushed by a divergent branch
  bool barrier = false;    // bar/barrier: the warp now waits (or arrived) at a CTA barrier
  bool warp_done = false;  // every thread of the warp has exited
  bool mem_fence = false;  // membar/fence
  // relssp: this instruction completed the block's release (every live thread of the CTA has
  // executed relssp, or the last ones that had not exited); the timing model frees the lock.
  bool relssp_release = false;
};

}  // namespace simtlab::func
