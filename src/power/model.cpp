#include "power/model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/error.h"

namespace simtlab::power {

using nlohmann::json;

namespace {

double log2_ceil(double x) { return x <= 1 ? 0 : std::ceil(std::log2(x)); }

/// Value of a stat node of the to_json tree: a counter's value or a vector's total.
double node_value(const json& n) {
  if (!n.is_object()) return 0;
  if (n.contains("total") && n["total"].is_number()) return n["total"].get<double>();
  if (n.contains("value") && n["value"].is_number()) return n["value"].get<double>();
  return 0;
}

/// Value at a dotted path below `g` (0 when absent).
double at(const json& g, const std::string& path) {
  const json* cur = &g;
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find('.', b);
    if (e == std::string::npos) e = path.size();
    const std::string k = path.substr(b, e - b);
    if (!cur->is_object() || !cur->contains(k)) return 0;
    cur = &(*cur)[k];
    b = e + 1;
  }
  return node_value(*cur);
}

/// Sum of `path` over the children of `g` whose names start with `prefix` ("sm[").
double sum(const json& g, const std::string& prefix, const std::string& path) {
  double s = 0;
  if (!g.is_object()) return 0;
  for (auto& [k, v] : g.items())
    if (k.rfind(prefix, 0) == 0) s += at(v, path);
  return s;
}

}  // namespace

Activity activity_from_stats(const json& gpu, double cycles, uint32_t num_sms) {
  Activity a;
  a.cycles = cycles;
  a.sm_active_cycles = sum(gpu, "sm[", "active_cycles");
  a.sm_idle_cycles = std::max(0.0, double(num_sms) * cycles - a.sm_active_cycles);
  for (auto& [k, v] : gpu.items()) {
    if (k.rfind("sm[", 0) != 0) continue;
    if (v.contains("activity")) {
      a.has_lane_counters = true;
      const json& act = v["activity"];
      a.rf_reads += node_value(act.value("rf_reads", json()));
      a.rf_writes += node_value(act.value("rf_writes", json()));
      if (act.contains("lane_ops") && act["lane_ops"].contains("values"))
        for (auto& [c, n] : act["lane_ops"]["values"].items()) a.lane_ops[c] += n.get<double>();
    }
  }
  a.warp_insts = sum(gpu, "sm[", "warp_insts");
  a.fetches = sum(gpu, "sm[", "l1i.accesses");
  a.l1i_fills = sum(gpu, "sm[", "l1i.fills");
  a.sched_slots = sum(gpu, "sm[", "issue_slots");
  a.smem_passes = sum(gpu, "sm[", "ldst.shared_passes");
  a.l1c_accesses = sum(gpu, "sm[", "l1c.accesses");
  a.l1c_fills = sum(gpu, "sm[", "l1c.fills");
  a.l1d_accesses = sum(gpu, "sm[", "l1d.accesses");
  a.l1d_fills = sum(gpu, "sm[", "l1d.fills");
  a.l1d_writebacks = sum(gpu, "sm[", "l1d.write_backs");
  a.l1t_accesses = sum(gpu, "sm[", "l1t.accesses");
  a.l1t_fills = sum(gpu, "sm[", "l1t.fills");
  if (gpu.contains("mem")) {
    const json& m = gpu["mem"];
    for (auto& [k, v] : m.items()) {
      if (k.rfind("partition[", 0) != 0) continue;
      a.l2_accesses += sum(v, "slice[", "accesses");
      a.l2_fills += sum(v, "slice[", "fills");
      a.l2_writebacks += sum(v, "slice[", "write_backs");
    }
    a.icnt_flits = at(m, "icnt.req_flits") + at(m, "icnt.resp_flits");
    a.dram_reads = sum(m, "dram[", "reads");
    a.dram_writes = sum(m, "dram[", "writes");
    a.dram_activates = sum(m, "dram[", "activates");
    a.dram_refreshes = sum(m, "dram[", "refreshes");
  }
  return a;
}

Model::Model(CoefSet set, const Arch& arch, uint32_t tech_nm, double vdd)
    : set_(std::move(set)), a_(arch) {
  node_ = tech_nm ? tech_nm : set_.node_nm;
  const auto& t = technology();
  auto it = std::find_if(t.begin(), t.end(), [&](const TechNode& n) { return n.nm == node_; });
  if (it == t.end()) throw UserError(fmt::format("power: no technology node {} nm", node_));
  vdd_ = vdd > 0 ? vdd : (tech_nm ? it->vdd : set_.vdd);
  if (a_.lanes == 0 || a_.smem_banks == 0 || a_.rf_partitions == 0 || a_.num_sms == 0)
    throw UserError("power: lanes, banks, partitions and SMs must be non-zero");
  build();
}

double Model::coef(const std::string& name) const {
  auto it = set_.c.find(name);
  if (it == set_.c.end())
    throw UserError(fmt::format("power coefficients '{}': missing '{}'", set_.name, name));
  const Coef& c = it->second;
  const double n0 = c.node_nm ? c.node_nm : set_.node_nm;
  const double v0 = c.vdd > 0 ? c.vdd : set_.vdd;
  const double L = double(node_) / n0, V = vdd_ / v0;
  double leak0 = 1, leak1 = 1;
  for (const TechNode& n : technology()) {
    if (n.nm == uint32_t(n0)) leak0 = n.leak;
    if (n.nm == node_) leak1 = n.leak;
  }
  double v = c.value;
  if (name.rfind("a_", 0) == 0 || name == "d2ma_area_um2") return v * L * L;  // um^2
  if (name.rfind("e_dram", 0) == 0) return v * 1e-12;  // off chip: not scaled
  if (name.rfind("e_", 0) == 0) {
    const double si = c.unit.rfind("fJ", 0) == 0 ? 1e-15 : 1e-12;
    return v * si * L * V * V;  // J
  }
  if (name.rfind("t_", 0) == 0 && name != "t_levels_fixed") return v * L / V;
  if (name == "d2ma_power_mw") return v * L * V * V;  // power at a fixed clock: like energy
  if (name.rfind("leak_", 0) == 0) return v * V * leak1 / leak0;  // W/mm^2
  return v;
}

double Model::e_array(double bytes) const {
  return coef("e_sram_32k") * std::sqrt(std::max(bytes, 4.0) / 32768.0);
}

void Model::build() {
  const Arch& a = a_;
  const bool ff = set_.storage == "flops";
  const double abit = ff ? coef("a_bit_ff") : coef("a_bit_sram");
  const double lane = coef("a_lane"), pair = coef("a_pair_bit");
  auto array = [&](std::string name, double bits, bool per_sm = true) {
    Component c{std::move(name), per_sm, bits * abit, ff ? bits : 0.0, 0.0};
    return c;
  };
  // Warp unit: per warp PC, thread mask, base register address and state; a divergence stack
  // of warp_width entries (SSY PC, other-path PC, mask, state bit) per warp (seed 004 Sec. 4).
  const double pc = log2_ceil(double(a.imem_words));
  const double base = log2_ceil(double(a.registers) / a.rf_partitions);
  const double W = a.warp_width;
  const double wbits = a.num_warps * (pc + W + base + 3) + a.num_warps * W * (2 * pc + W + 1);
  comps_.push_back({"fixed", true, coef("a_fixed"), 0, coef("a_fixed")});
  Component ws{"warp_state", true, wbits * coef("a_bit_ff"), wbits, 0};
  comps_.push_back(ws);
  comps_.push_back(array("icache", double(a.imem_words) * 32));
  comps_.push_back(array("ccache", double(a.cmem_words) * 32));
  Component rf = array("regfile", double(a.registers) * 32);
  const double rf_periph = a.rf_partitions * lane * coef("lane_split_rf");
  rf.area_um2 += rf_periph;
  rf.logic_um2 += rf_periph;
  comps_.push_back(rf);
  const double mad = a.lanes * lane * coef("lane_split_mad");
  comps_.push_back({"alu", true, mad, 0, mad});
  Component sm = array("smem", double(a.shared_words) * 32);
  const double bank_periph = a.smem_banks * lane * coef("lane_split_smem");
  sm.area_um2 += bank_periph;
  sm.logic_um2 += bank_periph;
  comps_.push_back(sm);
  const double N = a.lanes;
  const double cmp = pair * N * (N - 1) / 2 * a.addr_bits;
  comps_.push_back({"conflict", true, cmp, 0, cmp});
  const double xb = pair * N * a.smem_banks * (64 + a.addr_bits);
  comps_.push_back({"xbar", true, xb, 0, xb});
  if (a.memory_hierarchy) {
    const double tag = coef("tag_bits");
    comps_.push_back(array("l1d", double(a.l1d_bytes) * 8 + double(a.l1d_bytes) / a.l1_line * tag));
    comps_.push_back(array("l1t", double(a.l1t_bytes) * 8 + double(a.l1t_bytes) / a.l1_line * tag));
    comps_.push_back(
        array("l2", double(a.l2_bytes) * 8 + double(a.l2_bytes) / a.l2_line * tag, false));
    const double ic = pair * a.num_sms * std::max(a.l2_slices, 1u) * a.flit_bytes * 8.0;
    comps_.push_back({"icnt", false, ic, 0, ic});
    comps_.push_back({"dram", false, 0, 0, 0});  // off chip: energy only
  }
  // The rest of a published die (die_mm2 > 0): logic the model has no structure for (FP and
  // special-function units, texture, raster/ROP, memory controllers, I/O), charged as
  // synthesised logic (always-on switching and leakage per um^2).
  if (set_.c.count("die_mm2") && coef("die_mm2") > 0) {
    double modeled = 0;
    for (const auto& c : comps_) modeled += c.area_um2 * (c.per_sm ? a_.num_sms : 1);
    const double rest =
        std::max(0.0, coef("die_mm2") * 1e6 *
                              std::pow(double(node_) / (set_.c.at("die_mm2").node_nm
                                                            ? set_.c.at("die_mm2").node_nm
                                                            : set_.node_nm),
                                       2) -
                          modeled);
    comps_.push_back({"other", false, rest, 0, rest});
  }
  // D2MA engine (an add-on, after "other" so it adds to the die; spec Sec. 1.9, D2MA Table 3):
  // synthesised area and total power per shader.
  if (a_.d2ma_engine) {
    Component d{"d2ma", true, coef("d2ma_area_um2"), 0, 0};
    d.fixed_w = coef("d2ma_power_mw") * 1e-3;
    comps_.push_back(d);
  }
}

const Model::Component* Model::find(const std::string& n) const {
  for (const auto& c : comps_)
    if (c.name == n) return &c;
  return nullptr;
}

double Model::sm_area_mm2() const {
  double s = 0;
  for (const auto& c : comps_)
    if (c.per_sm) s += c.area_um2;
  return s * 1e-6;
}

double Model::chip_area_mm2() const {
  double s = 0;
  for (const auto& c : comps_) s += c.area_um2 * (c.per_sm ? a_.num_sms : 1);
  return s * 1e-6;
}

double Model::leakage_w(const Component& c) const {
  if (c.fixed_w > 0) return 0;  // its published power already includes leakage
  return coef("leak_mm2") * c.area_um2 * 1e-6 * (c.per_sm ? a_.num_sms : 1);
}

double Model::leakage_w() const {
  double s = 0;
  for (const auto& c : comps_) s += leakage_w(c);
  return s;
}

Model::CriticalPath Model::critical_path() const {
  // EX stage paths (seed 004 Sec. 5.1-5.2): the 32-bit multiply-add, or the shared-memory
  // access behind the bank-conflict detector. Detector: one L-bit equality compare of every
  // lane pair (XNOR + AND tree: 1 + log2 L levels), an OR over the other N-1 lanes (log2 N) and
  // a priority pick of the lanes served (log2 N). Shared memory: the lane->bank crossbar
  // (log2 banks mux levels) and the bank's read mux over its words (log2(words / banks)).
  CriticalPath p;
  const double lvl = coef("t_level_ps") * 1e-3;  // ns
  const double fixed = coef("t_levels_fixed");
  const double N = a_.lanes;
  const double det_levels = 1 + log2_ceil(a_.addr_bits) + 2 * log2_ceil(N);
  const double smem_levels =
      log2_ceil(a_.smem_banks) + log2_ceil(double(a_.shared_words) / a_.smem_banks) + fixed;
  p.t_mad_ns = coef("t_mad_ns");
  p.t_detect_ns = det_levels * lvl;
  p.t_smem_ns = smem_levels * lvl;
  const double other = p.t_detect_ns + p.t_smem_ns;
  p.path_ns = std::max(p.t_mad_ns, other);
  p.limiter = p.t_mad_ns >= other ? "mad" : "detect+smem";
  p.f_max_mhz = 1e3 / p.path_ns;
  p.closes = p.f_max_mhz + 1e-9 >= a_.core_mhz;
  return p;
}

Activity Model::peak_activity(double cycles) const {
  Activity x;
  x.cycles = cycles;
  x.sm_active_cycles = cycles * a_.num_sms;
  const double lane_ops = cycles * a_.num_sms * a_.lanes;
  x.lane_ops["int_mul"] = lane_ops;
  x.rf_reads = 3 * lane_ops;
  x.rf_writes = lane_ops;
  x.warp_insts = cycles * a_.num_sms / a_.passes();
  x.fetches = x.warp_insts;
  x.sched_slots = cycles * a_.num_sms;
  x.has_lane_counters = true;
  return x;
}

json Model::structure_json() const {
  json j;
  j["coefficients"] = set_.name;
  j["node_nm"] = node_;
  j["vdd"] = vdd_;
  j["core_mhz"] = a_.core_mhz;
  json sm = json::object(), chip = json::object(), leak = json::object();
  double ts = 0, tc = 0, tl = 0;
  for (const auto& c : comps_) {
    if (c.per_sm) {
      sm[c.name] = c.area_um2 * 1e-6;
      ts += c.area_um2 * 1e-6;
    }
    const double ca = c.area_um2 * 1e-6 * (c.per_sm ? a_.num_sms : 1);
    chip[c.name] = ca;
    tc += ca;
    leak[c.name] = leakage_w(c);
    tl += leakage_w(c);
  }
  sm["sum"] = ts;
  chip["sum"] = tc;
  leak["sum"] = tl;
  j["area_mm2"] = {{"sm", sm}, {"chip", chip}};
  j["leakage_w"] = leak;
  const CriticalPath p = critical_path();
  j["critical_path"] = {{"t_mad_ns", p.t_mad_ns},    {"t_detect_ns", p.t_detect_ns},
                        {"t_smem_ns", p.t_smem_ns},  {"path_ns", p.path_ns},
                        {"limiter", p.limiter},      {"f_max_mhz", p.f_max_mhz},
                        {"closes", p.closes ? 1 : 0}};
  return j;
}

json Model::evaluate(const Activity& x) const {
  const Arch& a = a_;
  const double f = a.core_mhz * 1e6;
  const double seconds = x.cycles / f;
  const double add = coef("e_int_add"), mul = coef("e_int_mul");
  const double fadd = coef("e_fp_add"), fmul = coef("e_fp_mul");
  auto lane_energy = [&](const std::string& c) {
    if (c == "int_mul") return mul;
    if (c == "int_div") return coef("int_div_muls") * mul;
    if (c == "fp32") return fadd + fmul;
    if (c == "fp64") return coef("fp64_factor") * (fadd + fmul);
    if (c == "sfu") return coef("sfu_fp_muls") * fmul;
    if (c == "tensor") return coef("tensor_fmas") * (fadd + fmul);
    return add;  // int_alu, mem (address add), branch, barrier, warp, nop
  };
  std::map<std::string, double> dyn;
  for (const auto& c : comps_) dyn[c.name] = 0;
  // Actions.
  for (const auto& [c, n] : x.lane_ops) dyn["alu"] += n * lane_energy(c);
  const double wire = coef("e_wire_bit_mm");
  const double d_sm = std::sqrt(sm_area_mm2()) / 2;  // mm, operand / bank crossbar wires
  const double rf_ops = x.rf_reads + x.rf_writes;
  dyn["regfile"] += rf_ops * e_array(double(a.registers) * 4 / a.rf_partitions);
  dyn["xbar"] += rf_ops * 32 * wire * d_sm;  // operand-collector moves
  const double bank_words = std::min<double>(a.lanes, a.smem_banks);
  dyn["smem"] += x.smem_passes * bank_words * e_array(double(a.shared_words) * 4 / a.smem_banks);
  dyn["xbar"] += x.smem_passes * a.lanes * 64 * wire * d_sm;
  dyn["conflict"] += x.smem_passes * double(a.lanes) * (a.lanes - 1) / 2 * a.addr_bits * add / 32;
  const double e_i = e_array(double(a.imem_words) * 4);
  dyn["icache"] += x.fetches * a.fetch_words * e_i + x.l1i_fills * (a.l1_line / 4.0) * e_i;
  dyn["fixed"] +=
      x.warp_insts * coef("e_decode_adds") * add + x.sched_slots * coef("e_sched_adds") * add;
  const double e_c = e_array(double(a.cmem_words) * 4);
  dyn["ccache"] += x.l1c_accesses * e_c + x.l1c_fills * (a.l1c_line / 4.0) * e_c;
  if (a.memory_hierarchy) {
    // A cache access reads its tag set and one 32-byte sector (8 words); a fill or write-back
    // moves a whole line.
    const double tag = coef("tag_bits");
    auto cache = [&](double bytes, uint32_t line, double acc, double fills, double wbs) {
      const double e = e_array(bytes), e_tag = e_array(bytes / line * tag / 8);
      return acc * (8 * e + e_tag) + (fills + wbs) * (line / 4.0) * e;
    };
    dyn["l1d"] +=
        cache(double(a.l1d_bytes), a.l1_line, x.l1d_accesses, x.l1d_fills, x.l1d_writebacks);
    dyn["l1t"] += cache(double(a.l1t_bytes), a.l1_line, x.l1t_accesses, x.l1t_fills, 0);
    dyn["l2"] += cache(double(a.l2_bytes) / std::max(a.l2_slices, 1u), a.l2_line, x.l2_accesses,
                       x.l2_fills, x.l2_writebacks);
    dyn["icnt"] += x.icnt_flits * a.flit_bytes * 8 * wire * coef("icnt_mm");
    dyn["dram"] +=
        (x.dram_reads + x.dram_writes) * (a.dram_request_bytes / 4) * coef("e_dram_32b") +
        x.dram_activates * coef("e_dram_act") + x.dram_refreshes * coef("e_dram_ref");
  }
  // Always-on part: flip-flop clocking and combinational switching per clocked cycle; an SM
  // without work is clocked at idle_clock_fraction.
  const double e_clk = coef("e_clk_bit"), e_logic = coef("e_logic_um2");
  const double sm_cycles = x.sm_active_cycles + coef("idle_clock_fraction") * x.sm_idle_cycles;
  double clock_total = 0;
  for (const auto& c : comps_) {
    const double e =
        (e_clk * c.ff_bits + e_logic * c.logic_um2) * (c.per_sm ? sm_cycles : x.cycles);
    dyn[c.name] += e;
    clock_total += e;
    // A component with a published power: that power while its SM is clocked.
    if (c.fixed_w > 0) dyn[c.name] += c.fixed_w * sm_cycles / f;
  }
  json ed = json::object(), es = json::object(), pd = json::object(), ps = json::object(),
       lw = json::object();
  double td = 0, ts = 0, tl = 0;
  for (const auto& c : comps_) {
    const double d = dyn[c.name], l = leakage_w(c), s = l * seconds;
    ed[c.name] = d;
    es[c.name] = s;
    lw[c.name] = l;
    pd[c.name] = seconds > 0 ? d / seconds : 0.0;
    ps[c.name] = l;
    td += d;
    ts += s;
    tl += l;
  }
  ed["sum"] = td;
  es["sum"] = ts;
  lw["sum"] = tl;
  pd["sum"] = seconds > 0 ? td / seconds : 0.0;
  ps["sum"] = tl;
  json j = structure_json();
  j["seconds"] = seconds;
  j["energy_j"] = {{"dynamic", ed}, {"static", es}, {"sum", td + ts}};
  j["power_w"] = {
      {"dynamic", pd}, {"static", ps}, {"sum", seconds > 0 ? (td + ts) / seconds : 0.0}};
  j["energy_j"]["clock"] = clock_total;
  double lane_ops = 0;
  for (const auto& [c, n] : x.lane_ops) lane_ops += n;
  j["activity"] = {{"lane_ops", lane_ops},
                   {"rf_reads", x.rf_reads},
                   {"rf_writes", x.rf_writes},
                   {"smem_passes", x.smem_passes},
                   {"sm_active_cycles", x.sm_active_cycles},
                   {"sm_idle_cycles", x.sm_idle_cycles}};
  return j;
}

void merge_kernel(json& run, const json& k) {
  if (!k.is_object() || !k.contains("energy_j")) return;
  if (run.is_null()) {
    run = k;
    return;
  }
  for (auto& [c, v] : k["energy_j"]["dynamic"].items())
    run["energy_j"]["dynamic"][c] = run["energy_j"]["dynamic"].value(c, 0.0) + v.get<double>();
  run["energy_j"]["clock"] =
      run["energy_j"].value("clock", 0.0) + k["energy_j"].value("clock", 0.0);
  for (auto& [c, v] : k["activity"].items())
    run["activity"][c] = run["activity"].value(c, 0.0) + v.get<double>();
}

void finish_run(json& run, double seconds) {
  if (!run.is_object() || !run.contains("leakage_w")) return;
  run["seconds"] = seconds;
  double td = 0, ts = 0;
  for (auto& [c, l] : run["leakage_w"].items()) {
    if (c == "sum") continue;
    const double d = run["energy_j"]["dynamic"].value(c, 0.0);
    run["energy_j"]["static"][c] = l.get<double>() * seconds;
    run["power_w"]["dynamic"][c] = seconds > 0 ? d / seconds : 0.0;
    run["power_w"]["static"][c] = l.get<double>();
    td += d;
    ts += l.get<double>() * seconds;
  }
  run["energy_j"]["static"]["sum"] = ts;
  run["energy_j"]["sum"] = td + ts;
  run["power_w"]["dynamic"]["sum"] = seconds > 0 ? td / seconds : 0.0;
  run["power_w"]["static"]["sum"] = run["leakage_w"]["sum"];
  run["power_w"]["sum"] = seconds > 0 ? (td + ts) / seconds : 0.0;
}

std::string summary_line(const json& p) {
  if (!p.is_object() || !p.contains("power_w")) return "";
  const json& cp = p["critical_path"];
  return fmt::format(
      "power: {:.4g} J ({:.4g} dynamic, {:.4g} static), average {:.4g} W; area {:.4g} mm^2 "
      "({:.4g} per SM) at {} nm; clock limit {:.0f} MHz ({}){}",
      p["energy_j"]["sum"].get<double>(), p["energy_j"]["dynamic"]["sum"].get<double>(),
      p["energy_j"]["static"]["sum"].get<double>(), p["power_w"]["sum"].get<double>(),
      p["area_mm2"]["chip"]["sum"].get<double>(), p["area_mm2"]["sm"]["sum"].get<double>(),
      p["node_nm"].get<uint32_t>(), cp["f_max_mhz"].get<double>(), cp["limiter"].get<std::string>(),
      cp["closes"].get<int>() ? ""
                              : fmt::format(": fails at {:.0f} MHz", p["core_mhz"].get<double>()));
}

}  // namespace simtlab::power
