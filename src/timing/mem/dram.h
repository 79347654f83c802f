// DramChannel: one DRAM channel (a memory partition's frame buffer), a Component in the DRAM
// clock domain. Cycle counts are DRAM command-clock cycles.
//
// Model: `banks` banks in `bank_groups` groups, open-page row buffers, one command per cycle
// on the command bus and one data burst at a time on the data bus. A request needs
// ceil(payload / burst_bytes) column commands, burst_bytes = bus_width x burst_length (a
// partially used burst still costs a whole one). Constraints: tRCD, tRP, tRAS, tRC, tCL,
// tWL, tWR, tRRD, tCCD/tCCDL, tRTP, tWTR, tRTW, tFAW and all-bank refresh every tREFI
// (precharge all, then REF, then no ACT for tRFC); see dram_timing.h.
//
// Queues: up to queue_size requests wait for scheduling; the scheduler (by name) chooses each
// cycle's command among them. Requests to one 128-byte block are kept in arrival order (an
// entry is schedulable only when every older entry to its block has issued), so reads never
// pass a write to the same data. A request completes when its last burst leaves the data bus;
// reads and non-write-back writes then enter the return queue (return_queue_size, reserved
// when the last burst issues) and leave through the output port, one per cycle, in completion
// order. Write-backs (MemReq::writeback) are not answered.
//
// The channel sleeps when it has nothing to do and wakes itself at the next cycle a queued
// command becomes legal; a request arriving on its input port wakes it. A channel that slept
// with an empty queue through refresh deadlines is treated as having refreshed exactly at each
// of them (banks closed, the last REF's tRFC still applies); the command log reports the
// last such REF at its deadline.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/describer.h"
#include "sim/sim.h"
#include "stats/group.h"
#include "timing/mem/address_map.h"
#include "timing/mem/dram_scheduler.h"
#include "timing/mem/dram_timing.h"
#include "timing/mem/request.h"
#include "timing/mem/ring.h"

namespace simtlab::timing {

struct DramParams {
  std::string timing = "gddr5_h5gq1h24afr";
  // Per-field overrides of the timing set; -1 keeps the set's value.
  int32_t banks = -1, bank_groups = -1, burst_length = -1, data_rate = -1;
  int32_t tRCD = -1, tRP = -1, tRAS = -1, tRC = -1, tCL = -1, tWL = -1, tWR = -1, tRRD = -1;
  int32_t tCCD = -1, tCCDL = -1, tRTP = -1, tWTR = -1, tRTW = -1, tFAW = -1, tREFI = -1;
  int32_t tRFC = -1;
  uint32_t bus_width = 8;
  std::string scheduler = "frfcfs";
  uint32_t queue_size = 64;
  uint32_t return_queue_size = 116;

  void describe(config::Describer& d);
  /// The timing set with the overrides applied.
  DramTiming resolve() const;
  /// Problems of the resolved organisation (keys relative to mem.dram), empty if none. Checked
  /// by the config layer at resolution and by the DramChannel constructor.
  std::vector<config::Issue> validate() const;
};

struct DramCommand {
  uint64_t cycle = 0;
  DramCmd cmd = DramCmd::act;
  uint32_t bank = 0;  // unused for REF
  uint64_t row = 0;
  uint64_t req_id = 0;
};

class DramChannel : public sim::Component {
 public:
  /// `map` must outlive the channel. `keep_data`: checker mode (the channel stores bytes).
  DramChannel(std::string name, const DramParams& p, const AddressMap& map, stats::Group& parent,
              bool keep_data = false);
  ~DramChannel() override;

  /// Wiring: requests arrive on `in` (this channel is its receiver), answers leave on `out`.
  void connect(sim::Port<MemReq>* in, sim::Port<MemResp>* out);
  bool tick() override;

  /// Called for every command issued (tests, tracing); no cost when unset.
  void set_command_observer(std::function<void(const DramCommand&)> f) { observer_ = std::move(f); }
  /// Brings time-integrated stats (cycles, queue occupancy) up to the current cycle (call
  /// once the channel is registered with a Simulation, before taking a stats snapshot).
  void update_stats();
  bool idle() const;
  const DramTiming& timing() const { return t_; }
  uint32_t burst_bytes() const { return burst_bytes_; }
  size_t queued() const { return order_.size(); }

 private:
  struct Entry;
  struct Bank;
  struct InFlight;

  void accept();
  void drain_completions(uint64_t now);
  bool issue(uint64_t now, uint64_t* wake);
  bool refresh_step(uint64_t now, uint64_t* wake);
  uint64_t earliest(const Entry& e, DramCmd cmd) const;
  void do_act(Entry& e, uint64_t now);
  void do_pre(uint32_t bank, uint64_t now, uint64_t req_id);
  void do_column(size_t pos, uint64_t now);
  void finish(size_t pos, uint64_t done);
  void note(DramCmd c, uint32_t bank, uint64_t row, uint64_t id, uint64_t now);
  void occupancy(uint64_t now);
  void perform(MemReq& req);

  DramParams p_;
  DramTiming t_;
  const AddressMap& map_;
  bool keep_data_;
  uint32_t burst_bytes_ = 0;
  uint32_t tburst_ = 0;
  uint32_t tccdl_ = 0;
  std::unique_ptr<DramScheduler> sched_;
  sim::Port<MemReq>* in_ = nullptr;
  sim::Port<MemResp>* out_ = nullptr;

  std::vector<Entry> slots_;
  std::vector<uint16_t> free_;
  std::vector<uint16_t> order_;  // queued entries, oldest first
  std::vector<Bank> banks_;
  std::vector<uint64_t> group_next_col_;
  uint64_t next_act_any_ = 0;  // tRRD
  uint64_t faw_[4] = {0, 0, 0, 0};
  uint32_t faw_n_ = 0;     // ACTs recorded (saturates at 4)
  uint32_t faw_head_ = 0;  // oldest of the last four
  uint64_t next_rd_ = 0;   // tWTR
  uint64_t next_wr_ = 0;   // tRTW
  uint64_t bus_free_ = 0;
  uint64_t next_refresh_ = 0;
  bool refresh_pending_ = false;
  uint64_t seq_ = 0;
  std::vector<InFlight> inflight_;  // min-heap by (done, seq)
  Ring<MemResp> returnq_;
  std::vector<DramCandidate> cand_;
  std::vector<uint16_t> cand_pos_;
  std::vector<uint16_t> row_hits_;
  uint64_t occ_last_ = 0;
  std::function<void(const DramCommand&)> observer_;
  std::unordered_map<Addr, std::vector<uint8_t>> store_;  // checker mode: block -> bytes

  stats::Group g_;
  stats::Counter& reads_;
  stats::Counter& writes_;
  stats::Counter& requests_;
  stats::Counter& row_hits_stat_;
  stats::Counter& row_misses_;
  stats::Counter& activates_;
  stats::Counter& precharges_;
  stats::Counter& refreshes_;
  stats::Counter& busy_cycles_;
  stats::Counter& cycles_;
  stats::Counter& occupancy_sum_;
  stats::Counter& latency_sum_;
  stats::Histogram& latency_;
};

}  // namespace simtlab::timing
