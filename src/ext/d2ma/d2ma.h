// The D2MA engine of one SM (Jamshidi, Samadi, Mahlke, PACT 2014; spec section 1): one DMA
// controller per resident CTA with a buffer-management table (BMT), one shared AGEN issuing at
// most one global request per cycle, requests that bypass the L1D, take an L1D MSHR slot and
// leave through the SM's memory port only in cycles the LD/ST unit does not use it, responses
// written straight into the CTA's shared memory (through the functional memory: the one place
// where the timing model moves data), and the RAW check that holds a warp whose shared access
// overlaps a buffer in flight until one of its CTA's transfers completes. See README.md.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "ext/d2ma/d2ma_params.h"
#include "func/executor.h"
#include "stats/group.h"
#include "timing/mem/cache.h"
#include "timing/sm/mem_port.h"
#include "timing/sm/sm_policy.h"

namespace simtlab::timing {
struct CtaSlot;
struct WarpSlot;
class TraceSink;
}  // namespace simtlab::timing

namespace simtlab::ext::d2ma {

using timing::D2maParams;

/// One global request the AGEN generates: a 128-byte block's touched sectors, the cycles the
/// AGEN spends on it (1 per unit-stride segment, 1 per element when strided) and where each
/// byte run goes in shared memory.
struct Piece {
  uint32_t goff;  // offset in the block
  uint32_t soff;  // shared address
  uint32_t size;
};
struct Request {
  uint64_t block = 0;
  uint32_t sectors = 0;
  uint32_t cost = 1;
  std::vector<Piece> pieces;
};

/// A transfer descriptor (the BMT fields plus the bookkeeping the paper does not charge).
struct Desc {
  uint32_t sbase = 0;
  uint64_t gbase = 0;
  uint32_t n = 0;       // flat: elements; 2D: rows
  uint32_t cols = 0;    // 0 = flat
  uint32_t stride = 1;  // flat: element stride; 2D: leading dimension (elements)
  uint32_t esize = 4;
  uint32_t mode = 0;  // 0 none, 1 bank conflict, 2 halo
  uint32_t n_or_hr = 0, hc = 0;
  uint64_t hconst = 0;
  uint32_t region = 0;
};

/// The requests and constant fills of one transfer, in AGEN order (pure; unit-tested).
struct Plan {
  std::vector<Request> reqs;
  std::vector<std::pair<uint32_t, uint32_t>> fills;  // halo constant cells: shared addr, size
  uint32_t footprint = 0;                            // shared bytes written from sbase
  uint32_t paper_bytes = 0;                          // nelem << esz
};
Plan plan_transfer(const Desc& d, uint32_t segment_bytes);

class Engine : public timing::SmPolicy, public func::D2maHook {
 public:
  Engine(const D2maParams& p, uint32_t sm_id, uint32_t max_ctas, uint32_t num_warps,
         stats::Group& sm, timing::SmMemPort* below);
  ~Engine() override;

  /// The port the LD/ST unit uses: sends mark the port as taken for this cycle (the memory
  /// unit has priority); D2MA responses are taken out of the response stream here.
  timing::SmMemPort* port();
  void bind(const timing::CtaSlot* ctas, const timing::Cache* l1d, func::GlobalMemory* gmem) {
    ctas_ = ctas;
    l1d_ = l1d;
    gmem_ = gmem;
  }
  void set_gmem(func::GlobalMemory* g) { gmem_ = g; }
  /// Start of the SM's cycle (before the LD/ST unit).
  void begin_cycle(uint64_t now) { now_ = now; }
  /// The AGEN's cycle (after the LD/ST unit). Returns whether anything happened.
  bool tick(uint64_t now);
  bool idle() const { return agen_q_.empty() && outstanding_ == 0; }
  void set_trace(timing::TraceSink* t) { trace_ = t; }

  // SmPolicy
  void begin_issue(uint64_t now, const std::vector<timing::WarpSlot>& warps) override;
  bool may_issue(const timing::WarpSlot& w, const func::DInst& d) const override;
  // D2maHook
  bool d2ma_call(func::ExecContext& cx, func::Warp& w, const func::DInst& d,
                 const func::CallDesc& c, LaneMask e) override;

  /// The CTA in slot `c` finished: its queued transfers are dropped and late responses
  /// discarded (a CTA may end without reading a buffer in flight).
  void cta_done(uint32_t c);
  /// Tests: is warp slot `s` waiting for a transfer (RAW squash)?
  bool waiting(uint32_t s) const { return waiting_[s] != 0; }

 private:
  // armed: all_warps ignition, some warps arrived (the RAW check already holds the buffer).
  enum class State : uint8_t { free, armed, ready, generating, draining, done };
  struct Entry {
    State state = State::free;
    bool valid = false;  // holds a buffer (sbase)
    Desc desc;
    Plan plan;
    uint32_t epoch = 0;     // generations ignited
    uint32_t done_gen = 0;  // generations completed
    uint32_t arrivals = 0;  // all_warps: arrivals for generation epoch + 1
    size_t next = 0;        // next request to send
    uint32_t cost_left = 0;
    uint32_t outstanding = 0;
    uint64_t t_exec = 0, t_first = 0, t_last = 0;
    bool sent_any = false;
  };
  struct Ctrl {
    const void* cta = nullptr;  // binding: the func::Cta and its start cycle
    uint64_t start = 0;
    uint64_t bind = 0;  // binding number (0 = unbound); pending requests carry it
    uint32_t esize = 4, mode = 0, n_or_hr = 0, hc = 0;
    uint64_t hconst = 0;
    std::vector<Entry> e;
    std::vector<uint32_t> waiters;             // warp slots
    std::vector<std::vector<uint32_t>> execn;  // [warp slot][entry]: generations seen
    uint32_t inflight = 0;
    bool idle = false;  // trace: no buffer in flight since idle_since (a compute period)
    uint64_t idle_since = 0;
  };
  struct Pending {
    uint32_t ctrl, entry;
    uint64_t bind;
    Request req;
  };
  class Port;

  Ctrl& ctrl_of(const timing::WarpSlot& w);
  bool in_flight(const Entry& x) const {
    return x.state == State::armed || x.state == State::ready || x.state == State::generating ||
           x.state == State::draining;
  }
  void ignite(uint32_t c, uint32_t k, uint64_t now);
  /// A buffer of controller `c` becomes in flight (armed or ignited) at `now`: ends the
  /// compute period the trace shows since its previous transfers completed.
  void busy(uint32_t c, uint64_t now);
  void complete(uint32_t c, uint32_t k, uint64_t now);
  void on_response(const timing::MemResp& r);
  uint8_t* shared_of(uint32_t c, uint32_t addr, uint32_t size);

  D2maParams p_;
  uint32_t sm_;
  uint32_t nbuf_;
  bool all_warps_;
  bool round_robin_;
  uint32_t nwarps_;
  timing::SmMemPort* below_;
  std::unique_ptr<Port> port_;
  const timing::CtaSlot* ctas_ = nullptr;
  const timing::Cache* l1d_ = nullptr;
  func::GlobalMemory* gmem_ = nullptr;
  timing::TraceSink* trace_ = nullptr;
  std::vector<Ctrl> ctrls_;
  mutable std::vector<uint8_t> waiting_;  // per warp slot: WAIT_DMA
  mutable const timing::WarpSlot* cur_ = nullptr;
  std::deque<std::pair<uint32_t, uint32_t>> agen_q_;  // (ctrl, entry) FIFO by ignition
  std::vector<Pending> pend_;
  std::vector<uint32_t> pend_free_;
  uint32_t outstanding_ = 0;
  uint64_t next_bind_ = 1;
  uint64_t now_ = 0, ldst_sent_at_ = UINT64_MAX;

  stats::Group& g_;
  stats::Counter& cfg_calls_;
  stats::Counter& ignitions_;
  stats::Counter& replays_;
  stats::Counter& requests_;
  stats::Counter& bytes_;
  stats::Counter& fill_bytes_;
  stats::Counter& halo_stores_;
  stats::Counter& agen_busy_;
  stats::Counter& port_lost_;
  stats::Counter& port_full_;
  stats::Counter& mshr_full_;
  stats::Counter& raw_squashes_;  // (counted from may_issue)
  stats::Counter& wait_cycles_;
  stats::Counter& all_wait_cycles_;
  stats::Counter& releases_;
  stats::Counter& transfers_;
  stats::Counter& agen_time_;
  stats::Counter& mem_time_;
  stats::Counter& agen_span_;
  stats::Histogram& concurrent_;
};

}  // namespace simtlab::ext::d2ma
