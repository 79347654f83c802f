// GREENER timing model (thesis ch. 4, §4.2.3-4.2.4; spec §3.5-3.7): one per SM, present only
// with greener.mode != none (the SM holds a null pointer otherwise).
//
// Per warp register (a warp slot's architectural register: 32 lanes x 32 bit) a power state
// ON / SLEEP / OFF; registers no warp holds are "unallocated" (charged OFF, or ON in baseline).
//  - Issue readiness (check): after the RAW/WAW scoreboard, (1) the extended scoreboard: an
//    operand register whose state an issued instruction has yet to set at read-operands
//    (RAR/WAR reservation) blocks the warp (Stall::scoreboard); (2) every operand register
//    (sources and destinations) must be ON: a SLEEP/OFF one gets a wake-up signal and becomes
//    ON wake_sleep / wake_off cycles later; until then Stall::wake_up.
//  - Read operands (on_read, when the operand collector has read all of an instruction's
//    banks): each source register takes its encoded state (comp_opt/greener), or SLEEP
//    (sleep_reg, and operands beyond the encoded ones); the source reservation is released.
//    A register the instruction also writes keeps ON until its write-back.
//  - Write-back (on_write): each destination takes its encoded state (sleep_reg: SLEEP).
//  - Run-time correction (greener): a move to SLEEP/OFF caused by the instruction at PC is
//    cancelled (the register stays ON) when another instruction of the same warp, at a
//    different PC, that is decoded (in the instruction buffer) or issued but not yet written
//    back names the register (the per-warp lookup table, inserted at decode, removed after
//    write-back).
//  - Accounting: residency per state (warp-register-cycles), transitions by type, wake-up
//    stalls, lookup-table hits, per-register access cycles over the warp's lifetime (Fig.
//    4.2), leakage energy = residency x per-state leakage / f + transitions x Table 4.4
//    energies, and the constant routing (H-tree) term separately.
//  - Checker: an operand read while its register is not ON (OFF: its data was destroyed)
//    counts in off_reads / sleep_reads; with correct wake-up both stay 0.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "ext/greener/analysis.h"
#include "ext/greener/greener_params.h"
#include "stats/group.h"
#include "timing/sm/stall.h"

namespace simtlab::func {
struct ArchPc;
struct ArchRegMap;
struct Program;
}  // namespace simtlab::func

namespace simtlab::timing {
struct WarpSlot;
}

namespace simtlab::ext::greener {

enum class Mode : uint8_t { baseline, sleep_reg, comp_opt, greener };

class SmGreener {
 public:
  SmGreener(const timing::GreenerParams& p, uint32_t num_warps, uint32_t warp_regs_per_sm,
            stats::Group& sm);

  /// A warp starts in `slot` holding `nregs` warp registers (allocated OFF; baseline ON,
  /// sleep_reg SLEEP).
  void on_warp_launch(const timing::WarpSlot& w, const func::Program& prog,
                      const func::ArchRegMap& am, uint32_t nregs, uint64_t now);
  void on_warp_retire(const timing::WarpSlot& w, uint64_t now);

  /// Issue readiness of the warp's next instruction `pc` (frame registers from `reg_base`):
  /// Stall::issued when it may issue, else scoreboard (RAR/WAR reservation) or wake_up.
  timing::Stall check(const timing::WarpSlot& w, uint32_t pc, const func::ArchPc& ap,
                      uint32_t reg_base, uint64_t now);
  /// The instruction issued: reserve its sources, enter it in the lookup table.
  void on_issue(const timing::WarpSlot& w, uint32_t pc, const func::ArchPc& ap, uint32_t reg_base,
                uint64_t age, uint64_t now);
  /// Its operands were read (operand collector).
  void on_read(uint32_t warp, uint64_t age, uint64_t now);
  /// Register `reg` (absolute, `width` consecutive) of `warp` was written back.
  void on_write(uint32_t warp, uint32_t reg, uint32_t width, uint64_t now);
  /// Account `k` cycles of residency in the current states.
  void account(uint64_t k);
  /// Earliest pending wake-up completion after `now` (UINT64_MAX: none): idle-cycle skipping.
  uint64_t next_wake(uint64_t now) const { return next_wake_ > now ? next_wake_ : UINT64_MAX; }
  void begin_cycle() { next_wake_ = UINT64_MAX; }

  Mode mode() const { return mode_; }
  PState state(uint32_t warp, uint32_t reg) const;  // tests

 private:
  struct Entry {
    uint64_t age = 0;
    uint32_t pc = 0;
    uint8_t nsrc = 0, ndst = 0, dst_left = 0;
    bool read = false;
    uint32_t src[8] = {}, dst[4] = {};  // absolute first registers
    uint8_t src_w[8] = {}, dst_w[4] = {};
    PState src_s[8] = {}, dst_s[4] = {};
    bool dst_done[4] = {};
  };
  struct Warp {
    const timing::WarpSlot* w = nullptr;
    const func::ArchRegMap* am = nullptr;
    const PcStates* states = nullptr;
    std::shared_ptr<const PcStates> hold;
    uint32_t nregs = 0;
    uint64_t launch = 0;
    std::vector<PState> st;
    std::vector<uint64_t> wake_done;  // 0 = not waking
    std::vector<uint16_t> pend_src;   // RAR/WAR reservations
    std::vector<uint64_t> last_access, access_cycles;
    std::deque<Entry> inflight;
    bool active = false;
  };

  void grow(Warp& g, uint32_t reg);
  void set_state(Warp& g, uint32_t warp, uint32_t reg, PState s, uint32_t pc, uint64_t now);
  void change(Warp& g, uint32_t reg, PState s);
  bool lut_names(const Warp& g, uint32_t reg, uint32_t pc, uint64_t now) const;
  void touch(Warp& g, uint32_t reg, uint64_t now);
  void retire_entry(Warp& g);

  timing::GreenerParams p_;
  Mode mode_;
  uint32_t total_regs_;
  std::vector<Warp> warps_;
  uint64_t count_[3] = {};  // allocated warp registers per state
  uint64_t allocated_ = 0;
  uint64_t next_wake_ = UINT64_MAX;
  double p_state_fj_[4] = {};  // per warp-register-cycle: on, sleep, off, unallocated
  double p_routing_fj_ = 0;    // per SM-cycle
  double p_trans_fj_[2] = {};  // per warp-register transition: SLEEP <-> ON, other
  double e_leak_fj_ = 0, e_route_fj_ = 0, e_trans_fj_ = 0;

  stats::Group& g_;
  stats::Vector& residency_;
  stats::Vector& transitions_;
  stats::Counter& wake_stalls_;
  stats::Counter& lut_lookups_;
  stats::Counter& lut_hits_;
  stats::Counter& off_reads_;
  stats::Counter& sleep_reads_;
  stats::Counter& access_cycles_;
  stats::Counter& lifetime_cycles_;
  stats::Counter& leak_fj_;
  stats::Counter& trans_fj_;
  stats::Counter& route_fj_;
  stats::Counter& total_fj_;
  stats::Counter& total_route_fj_;
  stats::Counter& cycles_;
};

/// The analysis of `prog` for (W, enc_src, enc_dst), computed once per program and shared by
/// the SMs.
std::shared_ptr<const PcStates> cached_states(const func::Program& prog, const func::ArchRegMap& am,
                                              uint32_t W, uint32_t enc_src, uint32_t enc_dst);

}  // namespace simtlab::ext::greener
