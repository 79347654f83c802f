#include "ext/greener/greener.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

#include "base/error.h"
#include "func/program.h"
#include "func/regcheck.h"
#include "power/model.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::ext::greener {

namespace {
using timing::Stall;

Mode parse_mode(const std::string& m) {
  if (m == "baseline") return Mode::baseline;
  if (m == "sleep_reg") return Mode::sleep_reg;
  if (m == "comp_opt") return Mode::comp_opt;
  if (m == "greener") return Mode::greener;
  throw UserError(fmt::format("greener.mode '{}' is not a power-state mode", m));
}

// Transition labels, indexed by trans_index(from, to).
const std::vector<std::string> kTransLabels = {"on_sleep", "on_off",    "sleep_on",
                                               "off_on",   "sleep_off", "off_sleep"};
unsigned trans_index(PState a, PState b) {
  if (a == PState::on) return b == PState::sleep ? 0 : 1;
  if (b == PState::on) return a == PState::sleep ? 2 : 3;
  return a == PState::sleep ? 4 : 5;
}

// Leakage and dynamic scaling from 22 nm to `nm` with the power model's technology table.
double node_factor(uint32_t nm, bool leakage) {
  const auto& t = power::technology();
  const power::TechNode* a = nullptr;
  const power::TechNode* b = nullptr;
  for (const auto& n : t) {
    if (n.nm == 22) a = &n;
    if (n.nm == nm) b = &n;
  }
  if (!a || !b) return 1.0;
  const double l = double(nm) / 22.0;
  if (leakage) return l * l * (b->vdd / a->vdd) * (b->leak / a->leak);  // area x V x density
  return l * (b->vdd / a->vdd) * (b->vdd / a->vdd);                     // C V^2
}
}  // namespace

std::shared_ptr<const PcStates> cached_states(const func::Program& prog, const func::ArchRegMap& am,
                                              uint32_t W, uint32_t enc_src, uint32_t enc_dst) {
  static std::mutex mu;
  static std::map<
      std::tuple<const func::Program*, const func::ArchRegMap*, uint32_t, uint32_t, uint32_t>,
      std::shared_ptr<const PcStates>>
      cache;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(&prog, &am, W, enc_src, enc_dst);
  auto it = cache.find(key);
  if (it != cache.end() && it->second->nsrc.size() == prog.code.size()) return it->second;
  auto s = program_states(prog, am, W, enc_src, enc_dst);
  cache[key] = s;
  return s;
}

SmGreener::SmGreener(const timing::GreenerParams& p, uint32_t num_warps, uint32_t warp_regs_per_sm,
                     stats::Group& sm)
    : p_(p),
      mode_(parse_mode(p.mode)),
      total_regs_(warp_regs_per_sm),
      warps_(num_warps),
      g_(sm.child("greener")),
      residency_(g_.vector("residency", "warp-register-cycles",
                           "Cycles x warp registers in each power state (unallocated: held by no "
                           "warp; charged OFF, or ON in baseline mode)",
                           {"on", "sleep", "off", "unallocated"})),
      transitions_(g_.vector("transitions", "transitions",
                             "Warp-register power-state changes by type", kTransLabels)),
      wake_stalls_(g_.counter("wake_stalls", "warp-checks",
                              "Issue checks of a warp that found an operand register not ON "
                              "(waiting for its wake-up)")),
      lut_lookups_(g_.counter("lut_lookups", "lookups",
                              "Moves to SLEEP/OFF checked against the run-time lookup table")),
      lut_hits_(g_.counter("lut_hits", "lookups",
                           "Moves to SLEEP/OFF cancelled because another decoded or in-flight "
                           "instruction of the warp names the register (kept ON)")),
      off_reads_(g_.counter("off_reads", "register reads",
                            "Checker: operand reads of an OFF register (data lost; must be 0)")),
      sleep_reads_(g_.counter("sleep_reads", "register reads",
                              "Checker: operand reads of a SLEEP register (must be 0)")),
      access_cycles_(g_.counter("reg_access_cycles", "register-cycles",
                                "Cycles in which a warp register was read or written, summed "
                                "over the registers of retired warps (Fig. 4.2)")),
      lifetime_cycles_(g_.counter("reg_lifetime_cycles", "register-cycles",
                                  "Warp lifetime x its allocated warp registers, retired warps")),
      leak_fj_(g_.counter("leakage_fj", "fJ",
                          "Register-cell leakage energy: residency x per-state leakage / f")),
      trans_fj_(g_.counter(
          "transition_fj", "fJ",
          "Power-state transition energy (Table 4.4 per transition, greener.trans_unit)")),
      route_fj_(g_.counter("routing_fj", "fJ",
                           "Constant routing (H-tree) leakage energy, not reduced by any mode")),
      total_fj_(g_.counter("energy_fj", "fJ", "leakage_fj + transition_fj (without routing)")),
      total_route_fj_(g_.counter("energy_routing_fj", "fJ", "energy_fj + routing_fj")),
      cycles_(g_.counter("cycles", "cycles", "Cycles accounted (the SM's simulated cycles)")) {
  g_.ratio("access_pct", "%",
           "Register access cycles as a percentage of the warp lifetime (Fig. 4.2)",
           "reg_access_cycles", "reg_lifetime_cycles", 100.0);
  const double mhz = p.core_mhz > 0 ? p.core_mhz : 1000.0;
  const double on_fj = p.leak_on_uw * node_factor(p.tech_nm, true) / mhz * 1e3;
  p_state_fj_[0] = on_fj;
  p_state_fj_[1] = on_fj * p.sleep_ratio;
  p_state_fj_[2] = on_fj * p.off_ratio;
  p_state_fj_[3] = mode_ == Mode::baseline ? on_fj : on_fj * p.off_ratio;
  p_routing_fj_ = on_fj * p.routing_ratio * double(total_regs_);
  // Table 4.4 per transition (nJ -> fJ), scaled to the node; register_file: the SM register
  // file's value shared over its warp registers.
  const double tscale = node_factor(p.tech_nm, false) *
                        (p.trans_unit == "register_file" ? 1.0 / double(total_regs_) : 1.0);
  p_trans_fj_[0] = p.e_sleep_nj * 1e6 * tscale;
  p_trans_fj_[1] = p.e_off_nj * 1e6 * tscale;
  g_.ratio("leakage_power_uw", "uW",
           "Average register-cell leakage power (leakage_fj over the accounted cycles)",
           "leakage_fj", "cycles", mhz * 1e-3);
  g_.ratio("leakage_power_routing_uw", "uW", "Average leakage power with the routing term",
           "energy_routing_fj", "cycles", mhz * 1e-3);
}

PState SmGreener::state(uint32_t warp, uint32_t reg) const {
  const Warp& g = warps_[warp];
  return reg < g.st.size() ? g.st[reg] : PState::off;
}

void SmGreener::grow(Warp& g, uint32_t reg) {
  if (reg < g.st.size()) return;
  const PState init = mode_ == Mode::baseline    ? PState::on
                      : mode_ == Mode::sleep_reg ? PState::sleep
                                                 : PState::off;
  const size_t n = size_t(reg) + 1 - g.st.size();
  g.st.resize(reg + 1, init);
  g.wake_done.resize(reg + 1, 0);
  g.pend_src.resize(reg + 1, 0);
  g.last_access.resize(reg + 1, UINT64_MAX);
  g.access_cycles.resize(reg + 1, 0);
  count_[size_t(init)] += n;
  allocated_ += n;
}

void SmGreener::on_warp_launch(const timing::WarpSlot& w, const func::Program& prog,
                               const func::ArchRegMap& am, uint32_t nregs, uint64_t now) {
  Warp& g = warps_[w.slot];
  g = Warp{};
  g.w = &w;
  g.am = &am;
  if (mode_ == Mode::comp_opt || mode_ == Mode::greener) {
    g.hold = cached_states(prog, am, p_.window, p_.enc_src, p_.enc_dst);
    g.states = g.hold.get();
  }
  g.nregs = nregs;
  g.launch = now;
  g.active = true;
  if (nregs) grow(g, nregs - 1);
}

void SmGreener::on_warp_retire(const timing::WarpSlot& w, uint64_t now) {
  Warp& g = warps_[w.slot];
  if (!g.active) return;
  uint64_t acc = 0;
  for (uint64_t a : g.access_cycles) acc += a;
  access_cycles_ += acc;
  lifetime_cycles_ += uint64_t(g.st.size()) * (now - g.launch);
  for (PState s : g.st) --count_[size_t(s)];
  allocated_ -= g.st.size();
  g = Warp{};
}

void SmGreener::change(Warp& g, uint32_t reg, PState s) {
  const PState o = g.st[reg];
  if (o == s) return;
  ++transitions_[trans_index(o, s)];
  const bool sleep_on =
      (o == PState::sleep && s == PState::on) || (o == PState::on && s == PState::sleep);
  e_trans_fj_ += p_trans_fj_[sleep_on ? 0 : 1];
  --count_[size_t(o)];
  ++count_[size_t(s)];
  g.st[reg] = s;
  trans_fj_.value = uint64_t(std::llround(e_trans_fj_));
  total_fj_.value = leak_fj_.value + trans_fj_.value;
  total_route_fj_.value = total_fj_.value + route_fj_.value;
}

bool SmGreener::lut_names(const Warp& g, uint32_t reg, uint32_t pc, uint64_t now) const {
  uint32_t seen = 0;
  const uint32_t cap = p_.lut_entries ? p_.lut_entries : UINT32_MAX;
  auto in = [reg](uint32_t base, uint32_t width) { return reg >= base && reg < base + width; };
  for (const Entry& e : g.inflight) {
    if (seen++ >= cap) return false;
    if (e.pc == pc) continue;
    for (unsigned i = 0; i < e.nsrc; ++i)
      if (in(e.src[i], e.src_w[i])) return true;
    for (unsigned i = 0; i < e.ndst; ++i)
      if (in(e.dst[i], e.dst_w[i])) return true;
  }
  // Decoded instructions waiting in the instruction buffer.
  const timing::WarpSlot& w = *g.w;
  if (!w.fw || w.func_done || w.ibuf == 0 || now < w.ibuf_ready) return false;
  const uint32_t base = w.fw->frame().reg_base;
  const uint32_t head = w.fw->pc();
  for (uint32_t i = 0; i < w.ibuf; ++i) {
    if (seen++ >= cap) return false;
    const uint32_t q = head + i;
    if (q >= g.am->pc.size()) break;
    if (q == pc) continue;
    const func::ArchPc& ap = g.am->pc[q];
    for (unsigned k = 0; k < ap.nsrc; ++k)
      if (in(base + ap.src[k].reg, ap.src[k].width)) return true;
    for (unsigned k = 0; k < ap.ndst; ++k)
      if (in(base + ap.dst[k].reg, ap.dst[k].width)) return true;
  }
  return false;
}

void SmGreener::set_state(Warp& g, uint32_t warp, uint32_t reg, PState s, uint32_t pc,
                          uint64_t now) {
  (void)warp;
  grow(g, reg);
  if (mode_ == Mode::baseline) return;
  if (s != PState::on && mode_ == Mode::greener) {
    ++lut_lookups_;
    if (lut_names(g, reg, pc, now)) {
      ++lut_hits_;
      s = PState::on;
    }
  }
  g.wake_done[reg] = 0;
  change(g, reg, s);
}

void SmGreener::touch(Warp& g, uint32_t reg, uint64_t now) {
  grow(g, reg);
  if (g.last_access[reg] != now) {
    g.last_access[reg] = now;
    ++g.access_cycles[reg];
  }
}

Stall SmGreener::check(const timing::WarpSlot& w, uint32_t pc, const func::ArchPc& ap,
                       uint32_t reg_base, uint64_t now) {
  (void)pc;
  if (mode_ == Mode::baseline) return Stall::issued;
  Warp& g = warps_[w.slot];
  auto each = [&](auto&& f) {
    for (unsigned i = 0; i < ap.nsrc; ++i)
      for (uint32_t k = 0; k < ap.src[i].width; ++k) f(reg_base + ap.src[i].reg + k);
    for (unsigned i = 0; i < ap.ndst; ++i)
      for (uint32_t k = 0; k < ap.dst[i].width; ++k) f(reg_base + ap.dst[i].reg + k);
  };
  bool reserved = false;
  each([&](uint32_t r) {
    grow(g, r);
    reserved = reserved || g.pend_src[r] != 0;
  });
  if (reserved) return Stall::scoreboard;  // RAR/WAR: a state is still to be set
  bool wait = false;
  each([&](uint32_t r) {
    if (g.st[r] == PState::on) return;
    if (!g.wake_done[r])
      g.wake_done[r] = now + (g.st[r] == PState::sleep ? p_.wake_sleep : p_.wake_off);
    if (now >= g.wake_done[r]) {
      g.wake_done[r] = 0;
      change(g, r, PState::on);
      return;
    }
    wait = true;
    next_wake_ = std::min(next_wake_, g.wake_done[r]);
  });
  if (!wait) return Stall::issued;
  ++wake_stalls_;
  return Stall::wake_up;
}

void SmGreener::on_issue(const timing::WarpSlot& w, uint32_t pc, const func::ArchPc& ap,
                         uint32_t reg_base, uint64_t age, uint64_t now) {
  (void)now;
  Warp& g = warps_[w.slot];
  Entry e;
  e.age = age;
  e.pc = pc;
  e.nsrc = ap.nsrc;
  e.ndst = ap.ndst;
  e.dst_left = ap.ndst;
  auto enc = [&](bool src, unsigned i) {
    switch (mode_) {
      case Mode::baseline:
        return PState::on;
      case Mode::sleep_reg:
        return PState::sleep;
      default:
        break;
    }
    if (!g.states || pc >= g.states->nsrc.size()) return PState::sleep;
    if (src) return i < g.states->nsrc[pc] ? g.states->src_state(pc, i) : PState::sleep;
    return i < g.states->ndst[pc] ? g.states->dst_state(pc, i) : PState::sleep;
  };
  for (unsigned i = 0; i < ap.nsrc; ++i) {
    e.src[i] = reg_base + ap.src[i].reg;
    e.src_w[i] = ap.src[i].width;
    e.src_s[i] = enc(true, i);
    if (mode_ != Mode::baseline)
      for (uint32_t k = 0; k < ap.src[i].width; ++k) {
        grow(g, e.src[i] + k);
        ++g.pend_src[e.src[i] + k];
      }
  }
  for (unsigned i = 0; i < ap.ndst; ++i) {
    e.dst[i] = reg_base + ap.dst[i].reg;
    e.dst_w[i] = ap.dst[i].width;
    e.dst_s[i] = enc(false, i);
  }
  e.read = ap.nsrc == 0;
  if (e.read && !e.dst_left) return;
  g.inflight.push_back(e);
}

void SmGreener::on_read(uint32_t warp, uint64_t age, uint64_t now) {
  Warp& g = warps_[warp];
  auto it = std::find_if(g.inflight.begin(), g.inflight.end(),
                         [age](const Entry& e) { return e.age == age; });
  if (it == g.inflight.end() || it->read) return;
  Entry& e = *it;
  auto written = [&e](uint32_t r) {
    for (unsigned j = 0; j < e.ndst; ++j)
      if (r >= e.dst[j] && r < e.dst[j] + e.dst_w[j]) return true;
    return false;
  };
  for (unsigned i = 0; i < e.nsrc; ++i)
    for (uint32_t k = 0; k < e.src_w[i]; ++k) {
      const uint32_t r = e.src[i] + k;
      touch(g, r, now);
      if (g.st[r] == PState::off) ++off_reads_;
      if (g.st[r] == PState::sleep) ++sleep_reads_;
      if (mode_ == Mode::baseline) continue;
      if (g.pend_src[r]) --g.pend_src[r];
    }
  // States after all reads (a register named twice is read before it sleeps).
  if (mode_ != Mode::baseline)
    for (unsigned i = 0; i < e.nsrc; ++i)
      for (uint32_t k = 0; k < e.src_w[i]; ++k) {
        const uint32_t r = e.src[i] + k;
        if (!written(r)) set_state(g, warp, r, e.src_s[i], e.pc, now);
      }
  e.read = true;
  if (!e.dst_left) g.inflight.erase(it);
}

void SmGreener::on_write(uint32_t warp, uint32_t reg, uint32_t width, uint64_t now) {
  Warp& g = warps_[warp];
  for (auto it = g.inflight.begin(); it != g.inflight.end(); ++it) {
    Entry& e = *it;
    for (unsigned j = 0; j < e.ndst; ++j) {
      if (e.dst_done[j] || e.dst[j] != reg) continue;
      e.dst_done[j] = true;
      --e.dst_left;
      for (uint32_t k = 0; k < width; ++k) {
        touch(g, reg + k, now);
        set_state(g, warp, reg + k, e.dst_s[j], e.pc, now);
      }
      if (!e.dst_left && e.read) g.inflight.erase(it);
      return;
    }
  }
  for (uint32_t k = 0; k < width; ++k) touch(g, reg + k, now);  // a spill reload
}

void SmGreener::account(uint64_t k) {
  const uint64_t un = allocated_ < total_regs_ ? total_regs_ - allocated_ : 0;
  residency_[0] += k * count_[0];
  residency_[1] += k * count_[1];
  residency_[2] += k * count_[2];
  residency_[3] += k * un;
  cycles_ += k;
  e_leak_fj_ +=
      double(k) * (double(count_[0]) * p_state_fj_[0] + double(count_[1]) * p_state_fj_[1] +
                   double(count_[2]) * p_state_fj_[2] + double(un) * p_state_fj_[3]);
  e_route_fj_ += double(k) * p_routing_fj_;
  leak_fj_.value = uint64_t(std::llround(e_leak_fj_));
  route_fj_.value = uint64_t(std::llround(e_route_fj_));
  total_fj_.value = leak_fj_.value + trans_fj_.value;
  total_route_fj_.value = total_fj_.value + route_fj_.value;
}

}  // namespace simtlab::ext::greener
