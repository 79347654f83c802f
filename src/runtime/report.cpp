#include "runtime/report.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace simtlab::runtime {

using nlohmann::json;

namespace {

double rate(double n, double s) { return s > 0 ? n / s : 0.0; }

/// Look up a numeric stat value in a stats tree by dotted path ("sm.l1d.misses" ...); the tree
/// stores leaves as {"value": n, ...}.
double stat_value(const json& tree, const std::string& path) {
  const json* cur = &tree;
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find('.', b);
    if (e == std::string::npos) e = path.size();
    const std::string key = path.substr(b, e - b);
    if (!cur->is_object() || !cur->contains(key)) return 0.0;
    cur = &(*cur)[key];
    b = e + 1;
  }
  if (cur->is_object() && cur->contains("value") && (*cur)["value"].is_number()) return (*cur)["value"].get<double>();
  if (cur->is_number()) return cur->get<double>();
  return 0.0;
}

}  // namespace

json build_run_json(const config::Config& cfg, const std::string& mode, const std::vector<KernelRecord>& kernels,
                    double wall) {
  json j;
  j["simtlab"] = {{"version", "0.1.0"}, {"format", 1}};
  j["mode"] = mode;
  j["config"] = {{"preset", cfg.preset_name()}, {"hash", cfg.hash()}, {"values", cfg.to_json()}};
  json ks = json::array();
  uint64_t tot_cycles = 0, tot_warp = 0, tot_thread = 0;
  double kernel_wall = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelRecord& k = kernels[i];
    json e;
    e["index"] = i;
    e["name"] = k.name;
    e["grid"] = {k.grid.x, k.grid.y, k.grid.z};
    e["block"] = {k.block.x, k.block.y, k.block.z};
    e["dynamic_shared_bytes"] = k.dynamic_shared;
    e["regs_per_thread"] = k.regs_per_thread;
    e["regs_source"] = k.regs_source;
    e["ctas"] = k.result.ctas;
    e["warp_insts"] = k.result.warp_insts;
    e["thread_insts"] = k.result.thread_insts;
    e["cycles"] = k.result.cycles;
    e["ipc"] = k.result.cycles ? double(k.result.thread_insts) / double(k.result.cycles) : 0.0;
    e["start_cycle"] = tot_cycles;
    e["wall_seconds"] = k.wall_seconds;
    if (!k.stats.is_null()) e["stats"] = k.stats;
    ks.push_back(std::move(e));
    tot_cycles += k.result.cycles;
    tot_warp += k.result.warp_insts;
    tot_thread += k.result.thread_insts;
    kernel_wall += k.wall_seconds;
  }
  j["kernels"] = std::move(ks);
  j["totals"] = {{"launches", kernels.size()},
                 {"cycles", tot_cycles},
                 {"warp_insts", tot_warp},
                 {"thread_insts", tot_thread},
                 {"ipc", tot_cycles ? double(tot_thread) / double(tot_cycles) : 0.0}};
  j["sim_rate"] = {{"thread_insts_per_s", rate(double(tot_thread), kernel_wall)},
                   {"warp_insts_per_s", rate(double(tot_warp), kernel_wall)},
                   {"cycles_per_s", rate(double(tot_cycles), kernel_wall)},
                   {"kernel_wall_seconds", kernel_wall}};
  j["wall_seconds"] = wall;
  return j;
}

std::string summary_text(const json& run) {
  const json& t = run["totals"];
  const json& r = run["sim_rate"];
  std::string s = fmt::format("simtlab: {} mode, GPU '{}' (config {}): {} kernel launch{}, {} warp instructions ({} thread)",
                              run["mode"].get<std::string>(), run["config"]["preset"].get<std::string>(),
                              run["config"]["hash"].get<std::string>(), t["launches"].get<uint64_t>(),
                              t["launches"].get<uint64_t>() == 1 ? "" : "es", t["warp_insts"].get<uint64_t>(),
                              t["thread_insts"].get<uint64_t>());
  if (t["cycles"].get<uint64_t>())
    s += fmt::format(", {} cycles, IPC {:.2f}", t["cycles"].get<uint64_t>(), t["ipc"].get<double>());
  s += fmt::format("\nsimtlab: simulated in {:.2f} s: {:.3g} thread-inst/s, {:.3g} warp-inst/s", run["wall_seconds"].get<double>(),
                   r["thread_insts_per_s"].get<double>(), r["warp_insts_per_s"].get<double>());
  if (t["cycles"].get<uint64_t>()) s += fmt::format(", {:.3g} cycles/s", r["cycles_per_s"].get<double>());
  return s + "\n";
}

std::string stats_text(const json& run) {
  std::string s;
  uint64_t tot_cycles = 0, tot_insn = 0;
  for (const json& k : run["kernels"]) {
    const uint64_t cyc = k["cycles"].get<uint64_t>(), insn = k["thread_insts"].get<uint64_t>();
    tot_cycles += cyc;
    tot_insn += insn;
    const json empty = json::object();
    const json& st = k.contains("stats") ? k["stats"] : empty;
    s += fmt::format("kernel_name = {}\n", k["name"].get<std::string>());
    s += fmt::format("kernel_launch_uid = {}\n", k["index"].get<uint64_t>() + 1);
    s += fmt::format("gpu_sim_cycle = {}\n", cyc);
    s += fmt::format("gpu_sim_insn = {}\n", insn);
    s += fmt::format("gpu_ipc = {:12.4f}\n", cyc ? double(insn) / double(cyc) : 0.0);
    s += fmt::format("gpu_tot_sim_cycle = {}\n", tot_cycles);
    s += fmt::format("gpu_tot_sim_insn = {}\n", tot_insn);
    s += fmt::format("gpu_tot_ipc = {:12.4f}\n", tot_cycles ? double(tot_insn) / double(tot_cycles) : 0.0);
    s += fmt::format("gpu_warp_insn = {}\n", k["warp_insts"].get<uint64_t>());
    const double l1a = stat_value(st, "l1d.accesses"), l1m = stat_value(st, "l1d.misses");
    const double l2a = stat_value(st, "l2.accesses"), l2m = stat_value(st, "l2.misses");
    s += fmt::format("L1D_total_cache_accesses = {}\n", uint64_t(l1a));
    s += fmt::format("L1D_total_cache_misses = {}\n", uint64_t(l1m));
    s += fmt::format("L1D_total_cache_miss_rate = {:.4f}\n", l1a ? l1m / l1a : 0.0);
    s += fmt::format("L2_total_cache_accesses = {}\n", uint64_t(l2a));
    s += fmt::format("L2_total_cache_misses = {}\n", uint64_t(l2m));
    s += fmt::format("L2_total_cache_miss_rate = {:.4f}\n", l2a ? l2m / l2a : 0.0);
  }
  return s;
}

void append_csv(const std::string& path, const json& run) {
  namespace fs = std::filesystem;
  const bool fresh = !fs::exists(path) || fs::file_size(path) == 0;
  std::ofstream f(path, std::ios::app);
  if (!f) {
    std::fprintf(stderr, "simtlab: cannot write CSV file '%s'\n", path.c_str());
    return;
  }
  if (fresh)
    f << "config_hash,preset,mode,kernel_index,kernel,grid,block,ctas,regs_per_thread,cycles,warp_insts,thread_insts,ipc,"
         "wall_seconds\n";
  for (const json& k : run["kernels"]) {
    f << run["config"]["hash"].get<std::string>() << ',' << run["config"]["preset"].get<std::string>() << ','
      << run["mode"].get<std::string>() << ',' << k["index"].get<uint64_t>() << ",\"" << k["name"].get<std::string>()
      << "\"," << fmt::format("{}x{}x{}", k["grid"][0].get<uint32_t>(), k["grid"][1].get<uint32_t>(), k["grid"][2].get<uint32_t>())
      << ',' << fmt::format("{}x{}x{}", k["block"][0].get<uint32_t>(), k["block"][1].get<uint32_t>(), k["block"][2].get<uint32_t>())
      << ',' << k["ctas"].get<uint64_t>() << ',' << k["regs_per_thread"].get<uint32_t>() << ','
      << k["cycles"].get<uint64_t>() << ',' << k["warp_insts"].get<uint64_t>() << ','
      << k["thread_insts"].get<uint64_t>() << ',' << fmt::format("{:.6f}", k["ipc"].get<double>()) << ','
      << fmt::format("{:.6f}", k["wall_seconds"].get<double>()) << '\n';
  }
}

void write_trace(const std::string& path, const std::vector<KernelRecord>& kernels) {
  json events = json::array();
  uint64_t t = 0;
  for (const KernelRecord& k : kernels) {
    if (k.stats.is_object() && k.stats.contains("trace_events")) {
      for (const json& e : k.stats["trace_events"]) events.push_back(e);
    } else {
      events.push_back({{"name", k.name}, {"cat", "kernel"}, {"ph", "X"}, {"pid", 0}, {"tid", 0}, {"ts", t},
                        {"dur", std::max<uint64_t>(1, k.result.cycles)}});
    }
    t += std::max<uint64_t>(1, k.result.cycles);
  }
  json j = {{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", {{"time_unit", "core cycles (1 us = 1 cycle)"}}}};
  std::ofstream f(path);
  if (!f) {
    std::fprintf(stderr, "simtlab: cannot write trace file '%s'\n", path.c_str());
    return;
  }
  f << j.dump() << "\n";
}

}  // namespace simtlab::runtime
