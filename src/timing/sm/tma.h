// The SM's bulk-copy / Tensor Memory Accelerator unit (timing of cp.async.bulk{.tensor}).
//
// The functional model copies the bytes when the instruction issues (exec_async.cpp); this unit
// makes the copy a memory transfer: the global byte runs of the copy (a box's in-bounds rows for
// a tensor copy) become 128-byte-block requests with the touched 32-byte sectors, sent through
// the SM's memory port one per cycle when the port accepts (after the LD/ST unit, which has
// priority), bypassing the L1 (they go to the L2 slices and DRAM like L1 misses do; loads are
// not allocated in the L1, as the TMA writes shared memory directly). A global->shared copy's
// complete_tx(bytes) on its mbarrier happens when the response of its last request arrives
// (func::mbarrier_complete_tx), not at issue, so mbarrier waits see the transfer time. Stores
// (shared->global) send write requests and join their warp's open bulk group;
// cp.async.bulk.wait_group{.read} N issues once at most N committed groups have writes not yet
// acknowledged (.read waits as long: the shared-memory reads are not timed separately).
// Transfers of a CTA that exits still drain but complete nothing.
//
// Created by the SM at the first bulk copy (the statistics in sm[i].async exist only then).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "func/warp.h"
#include "timing/mem/request.h"

namespace simtlab::stats {
class Counter;
}

namespace simtlab::timing {

class SmMemPort;

class TmaUnit {
 public:
  /// Response ids of this unit's requests carry this tag (the LD/ST unit routes them here).
  static constexpr uint64_t kTag = uint64_t(1) << 61;

  struct Counters {
    stats::Counter* insts = nullptr;      // bulk / tensor copies issued (per thread)
    stats::Counter* tensor = nullptr;     // of which tensor (TMA) copies
    stats::Counter* bytes = nullptr;      // global bytes moved (in-bounds)
    stats::Counter* requests = nullptr;   // block requests sent
    stats::Counter* latency = nullptr;    // sum over loads of issue -> last byte
    stats::Counter* port_full = nullptr;  // cycles with a request ready and the port full
  };

  TmaUnit(uint16_t sm_id, SmMemPort* port, func::GlobalMemory* gmem, Counters c)
      : sm_(sm_id), port_(port), gmem_(gmem), c_(c) {}

  /// A copy (BulkCopyHook::bulk_copy). Always takes over the complete_tx of loads.
  /// `done` (stores): called when the last write is acknowledged.
  void add(func::Cta* cta, bool to_shared, bool tensor,
           const std::vector<std::pair<uint64_t, uint32_t>>& runs, uint64_t mbar, uint32_t tx,
           uint64_t now, std::function<void()> done = {});
  /// One cycle: send the next request when the port accepts. Returns whether it sent.
  bool tick(uint64_t now);
  void on_response(const MemResp& r, uint64_t now);
  /// An exiting CTA: its transfers complete no mbarrier.
  void cta_done(const func::Cta* cta);
  bool idle() const { return xfers_.empty(); }
  /// Requests waiting to be sent.
  bool has_work() const { return !send_q_.empty(); }
  void set_gmem(func::GlobalMemory* g) { gmem_ = g; }

 private:
  struct Xfer {
    func::Cta* cta = nullptr;
    bool to_shared = true;
    uint64_t mbar = 0;
    uint32_t tx = 0;
    uint32_t outstanding = 0;
    uint64_t issued_at = 0;
    std::deque<MemReq> to_send;
    std::function<void()> done;
  };
  uint16_t sm_;
  SmMemPort* port_;
  func::GlobalMemory* gmem_;
  Counters c_;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, Xfer> xfers_;  // by transfer id
  std::deque<uint64_t> send_q_;               // transfers with requests to send, in order
};

}  // namespace simtlab::timing
