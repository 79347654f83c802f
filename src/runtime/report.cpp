#include "runtime/report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

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
  if (cur->is_object() && cur->contains("total") && (*cur)["total"].is_number())
    return (*cur)["total"].get<double>();
  if (cur->is_object() && cur->contains("value") && (*cur)["value"].is_number())
    return (*cur)["value"].get<double>();
  if (cur->is_number()) return cur->get<double>();
  return 0.0;
}

}  // namespace

namespace {

bool is_formula(const json& j) { return j.is_object() && j.contains("formula"); }

/// dst += src for two stats trees of the same shape: counters, vectors and histograms add;
/// formulas are recomputed afterwards by recompute_formulas().
void merge_add(json& dst, const json& src) {
  if (!src.is_object()) return;
  if (dst.is_null()) {
    dst = src;
    return;
  }
  if (is_formula(src)) return;
  if (src.contains("unit") &&
      (src.contains("value") || src.contains("values") || src.contains("count"))) {
    if (src.contains("value") && src["value"].is_number_unsigned() &&
        dst["value"].is_number_unsigned())
      dst["value"] = dst["value"].get<uint64_t>() + src["value"].get<uint64_t>();
    if (src.contains("values") && src["values"].is_object())
      for (auto& [k, v] : src["values"].items())
        if (v.is_number_unsigned())
          dst["values"][k] = dst["values"].value(k, uint64_t(0)) + v.get<uint64_t>();
    if (src.contains("total") && src["total"].is_number_unsigned())
      dst["total"] = dst["total"].get<uint64_t>() + src["total"].get<uint64_t>();
    if (src.contains("count") && src["count"].is_number_unsigned()) {
      dst["count"] = dst["count"].get<uint64_t>() + src["count"].get<uint64_t>();
      dst["sum"] = dst["sum"].get<uint64_t>() + src["sum"].get<uint64_t>();
      for (const char* m : {"min", "max"}) {
        if (src[m].is_null()) continue;
        if (dst[m].is_null() || (m[1] == 'i' ? src[m] < dst[m] : src[m] > dst[m])) dst[m] = src[m];
      }
      if (src.contains("buckets"))
        for (size_t i = 0; i < src["buckets"].size() && i < dst["buckets"].size(); ++i)
          dst["buckets"][i]["count"] = dst["buckets"][i]["count"].get<uint64_t>() +
                                       src["buckets"][i]["count"].get<uint64_t>();
      dst["mean"] =
          dst["count"].get<uint64_t>()
              ? json(double(dst["sum"].get<uint64_t>()) / double(dst["count"].get<uint64_t>()))
              : json();
    }
    return;
  }
  for (auto& [k, v] : src.items()) {
    if (!v.is_object()) continue;
    merge_add(dst[k], v);
  }
}

/// Value of a sibling stat named `name` inside group `g` (counter value, vector total, or an
/// element "vec::label").
std::optional<double> operand(const json& g, const std::string& name) {
  const size_t sep = name.find("::");
  const std::string stat = sep == std::string::npos ? name : name.substr(0, sep);
  if (!g.contains(stat)) return std::nullopt;
  const json& s = g[stat];
  if (sep != std::string::npos) {
    const std::string label = name.substr(sep + 2);
    if (s.contains("values") && s["values"].contains(label))
      return s["values"][label].get<double>();
    return std::nullopt;
  }
  if (s.contains("total") && s["total"].is_number()) return s["total"].get<double>();
  if (s.contains("value") && s["value"].is_number()) return s["value"].get<double>();
  return std::nullopt;
}

void recompute_formulas(json& g) {
  if (!g.is_object()) return;
  for (auto& [k, v] : g.items()) {
    if (!v.is_object()) continue;
    if (is_formula(v)) {
      const std::string f = v["formula"].get<std::string>();
      const size_t slash = f.find(" / ");
      if (slash == std::string::npos) continue;
      std::string num = f.substr(0, slash), den = f.substr(slash + 3);
      double scale = 1.0;
      if (const size_t star = den.find(" * "); star != std::string::npos) {
        scale = std::atof(den.substr(star + 3).c_str());
        den = den.substr(0, star);
      }
      const auto a = operand(g, num), b = operand(g, den);
      if (a && b && *b != 0)
        v["value"] = *a / *b * scale;
      else
        v["value"] = nullptr;
    } else {
      recompute_formulas(v);
    }
  }
}

/// Sum of every child of `g` whose name starts with `prefix` (e.g. "sm[").
json sum_children(const json& g, const std::string& prefix) {
  json total;
  if (!g.is_object()) return total;
  for (auto& [k, v] : g.items())
    if (k.rfind(prefix, 0) == 0) merge_add(total, v);
  if (!total.is_null()) recompute_formulas(total);
  return total;
}

/// Add whole-chip sums: gpu.sm_total (every sm[i]), gpu.mem.l2_total (every L2 slice of every
/// partition), gpu.mem.dram_total (every DRAM channel).
void add_totals(json& gpu) {
  if (!gpu.is_object()) return;
  json sm = sum_children(gpu, "sm[");
  if (!sm.is_null()) gpu["sm_total"] = std::move(sm);
  if (!gpu.contains("mem")) return;
  json& mem = gpu["mem"];
  json l2;
  for (auto& [k, v] : mem.items())
    if (k.rfind("partition[", 0) == 0) merge_add(l2, sum_children(v, "slice["));
  if (!l2.is_null()) {
    recompute_formulas(l2);
    mem["l2_total"] = std::move(l2);
  }
  json dram = sum_children(mem, "dram[");
  if (!dram.is_null()) mem["dram_total"] = std::move(dram);
}

}  // namespace

json build_run_json(const config::Config& cfg, const std::string& mode,
                    const std::vector<KernelRecord>& kernels, double wall) {
  json j;
  j["simtlab"] = {{"version", "0.1.0"}, {"format", 1}};
  j["mode"] = mode;
  j["config"] = {{"preset", cfg.preset_name()}, {"hash", cfg.hash()}, {"values", cfg.to_json()}};
  json ks = json::array();
  json host_kernels = json::array();
  json run_gpu;
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
    e["regs_wanted"] = k.regs_wanted;
    e["ctas"] = k.result.ctas;
    e["warp_insts"] = k.result.warp_insts;
    e["thread_insts"] = k.result.thread_insts;
    e["cycles"] = k.result.cycles;
    e["ipc"] = k.result.cycles ? double(k.result.thread_insts) / double(k.result.cycles) : 0.0;
    e["start_cycle"] = k.result.end_cycle ? k.result.start_cycle : tot_cycles;
    e["end_cycle"] = k.result.end_cycle ? k.result.end_cycle : tot_cycles + k.result.cycles;
    if (k.stats.is_object()) {
      json gpu = k.stats;
      gpu.erase("trace_events");
      json extra = json::object();
      for (const char* key : {"start_cycle", "end_cycle", "occupancy"})
        if (gpu.contains(key)) {
          extra[key] = gpu[key];
          gpu.erase(key);
        }
      add_totals(gpu);
      merge_add(run_gpu, gpu);
      e["occupancy"] = extra.value("occupancy", json::object());
      e["stats"] = {{"gpu", std::move(gpu)}};
    }
    ks.push_back(std::move(e));
    host_kernels.push_back({{"name", k.name}, {"wall_seconds", k.wall_seconds}});
    tot_cycles += k.result.cycles;
    tot_warp += k.result.warp_insts;
    tot_thread += k.result.thread_insts;
    kernel_wall += k.wall_seconds;
  }
  // With concurrent kernels, elapsed GPU time is the union of the kernels' intervals.
  {
    std::vector<std::pair<uint64_t, uint64_t>> iv;
    for (const json& e : ks)
      iv.push_back({e["start_cycle"].get<uint64_t>(), e["end_cycle"].get<uint64_t>()});
    std::sort(iv.begin(), iv.end());
    uint64_t covered = 0, cur_s = 0, cur_e = 0;
    bool open = false;
    for (auto [a, b] : iv) {
      if (open && a <= cur_e) {
        cur_e = std::max(cur_e, b);
      } else {
        if (open) covered += cur_e - cur_s;
        cur_s = a;
        cur_e = b;
        open = true;
      }
    }
    if (open) covered += cur_e - cur_s;
    tot_cycles = covered;
  }
  j["kernels"] = std::move(ks);
  j["totals"] = {{"launches", kernels.size()},
                 {"cycles", tot_cycles},
                 {"warp_insts", tot_warp},
                 {"thread_insts", tot_thread},
                 {"ipc", tot_cycles ? double(tot_thread) / double(tot_cycles) : 0.0}};
  if (!run_gpu.is_null()) {
    recompute_formulas(run_gpu);
    j["stats"] = {{"gpu", std::move(run_gpu)}};
  }
  // Host-side measurements (the only part that differs between two identical runs).
  j["host"] = {{"wall_seconds", wall},
               {"kernel_wall_seconds", kernel_wall},
               {"thread_insts_per_s", rate(double(tot_thread), kernel_wall)},
               {"warp_insts_per_s", rate(double(tot_warp), kernel_wall)},
               {"cycles_per_s", rate(double(tot_cycles), kernel_wall)},
               {"kernels", std::move(host_kernels)}};
  return j;
}

std::string summary_text(const json& run) {
  const json& t = run["totals"];
  const json& r = run["host"];
  std::string s = fmt::format(
      "simtlab: {} mode, GPU '{}' (config {}): {} kernel launch{}, {} warp instructions ({} "
      "thread)",
      run["mode"].get<std::string>(), run["config"]["preset"].get<std::string>(),
      run["config"]["hash"].get<std::string>(), t["launches"].get<uint64_t>(),
      t["launches"].get<uint64_t>() == 1 ? "" : "es", t["warp_insts"].get<uint64_t>(),
      t["thread_insts"].get<uint64_t>());
  if (t["cycles"].get<uint64_t>())
    s +=
        fmt::format(", {} cycles, IPC {:.2f}", t["cycles"].get<uint64_t>(), t["ipc"].get<double>());
  if (run.contains("stats") && run["stats"]["gpu"].contains("sm_total")) {
    const json& g = run["stats"]["gpu"];
    const json& st = g["sm_total"]["stall"]["values"];
    uint64_t slots = 0;
    for (auto& [k, v] : st.items()) slots += v.get<uint64_t>();
    std::vector<std::pair<uint64_t, std::string>> top;
    for (auto& [k, v] : st.items()) top.push_back({v.get<uint64_t>(), k});
    std::sort(top.rbegin(), top.rend());
    s += "\nsimtlab: issue slots:";
    for (size_t i = 0; i < top.size() && i < 4 && slots; ++i)
      s += fmt::format("{} {:.0f}% {}", i ? "," : "", 100.0 * double(top[i].first) / double(slots),
                       top[i].second);
    auto rate = [&](const std::string& path) { return stat_value(g, path); };
    const double l1a = rate("sm_total.l1d.accesses"), l2a = rate("mem.l2_total.accesses");
    if (l1a) s += fmt::format("; L1D miss rate {:.0f}%", 100.0 * rate("sm_total.l1d.misses") / l1a);
    if (l2a) s += fmt::format(", L2 {:.0f}%", 100.0 * rate("mem.l2_total.misses") / l2a);
    const double rh = rate("mem.dram_total.row_hits"), rm = rate("mem.dram_total.row_misses");
    if (rh + rm) s += fmt::format(", DRAM row-buffer hits {:.0f}%", 100.0 * rh / (rh + rm));
  }
  s += fmt::format("\nsimtlab: simulated in {:.2f} s: {:.3g} thread-inst/s, {:.3g} warp-inst/s",
                   r["wall_seconds"].get<double>(), r["thread_insts_per_s"].get<double>(),
                   r["warp_insts_per_s"].get<double>());
  if (t["cycles"].get<uint64_t>())
    s += fmt::format(", {:.3g} cycles/s", r["cycles_per_s"].get<double>());
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
    const json& st = k.contains("stats") ? k["stats"]["gpu"] : empty;
    s += fmt::format("kernel_name = {}\n", k["name"].get<std::string>());
    s += fmt::format("kernel_launch_uid = {}\n", k["index"].get<uint64_t>() + 1);
    s += fmt::format("gpu_sim_cycle = {}\n", cyc);
    s += fmt::format("gpu_sim_insn = {}\n", insn);
    s += fmt::format("gpu_ipc = {:12.4f}\n", cyc ? double(insn) / double(cyc) : 0.0);
    s += fmt::format("gpu_tot_sim_cycle = {}\n", tot_cycles);
    s += fmt::format("gpu_tot_sim_insn = {}\n", tot_insn);
    s += fmt::format("gpu_tot_ipc = {:12.4f}\n",
                     tot_cycles ? double(tot_insn) / double(tot_cycles) : 0.0);
    s += fmt::format("gpu_warp_insn = {}\n", k["warp_insts"].get<uint64_t>());
    const double l1a = stat_value(st, "sm_total.l1d.accesses"),
                 l1m = stat_value(st, "sm_total.l1d.misses");
    const double l2a = stat_value(st, "mem.l2_total.accesses"),
                 l2m = stat_value(st, "mem.l2_total.misses");
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
    f << "config_hash,preset,mode,kernel_index,kernel,grid,block,ctas,regs_per_thread,cycles,warp_"
         "insts,thread_insts,ipc,"
         "wall_seconds\n";
  for (const json& k : run["kernels"]) {
    f << run["config"]["hash"].get<std::string>() << ','
      << run["config"]["preset"].get<std::string>() << ',' << run["mode"].get<std::string>() << ','
      << k["index"].get<uint64_t>() << ",\"" << k["name"].get<std::string>() << "\","
      << fmt::format("{}x{}x{}", k["grid"][0].get<uint32_t>(), k["grid"][1].get<uint32_t>(),
                     k["grid"][2].get<uint32_t>())
      << ','
      << fmt::format("{}x{}x{}", k["block"][0].get<uint32_t>(), k["block"][1].get<uint32_t>(),
                     k["block"][2].get<uint32_t>())
      << ',' << k["ctas"].get<uint64_t>() << ',' << k["regs_per_thread"].get<uint32_t>() << ','
      << k["cycles"].get<uint64_t>() << ',' << k["warp_insts"].get<uint64_t>() << ','
      << k["thread_insts"].get<uint64_t>() << ',' << fmt::format("{:.6f}", k["ipc"].get<double>())
      << ','
      << fmt::format("{:.6f}",
                     run["host"]["kernels"][k["index"].get<size_t>()]["wall_seconds"].get<double>())
      << '\n';
  }
}

void write_trace(const std::string& path, const std::vector<KernelRecord>& kernels) {
  json events = json::array();
  uint64_t t = 0;
  for (const KernelRecord& k : kernels) {
    if (k.stats.is_object() && k.stats.contains("trace_events")) {
      for (const json& e : k.stats["trace_events"]) events.push_back(e);
    } else {
      events.push_back({{"name", k.name},
                        {"cat", "kernel"},
                        {"ph", "X"},
                        {"pid", 0},
                        {"tid", 0},
                        {"ts", t},
                        {"dur", std::max<uint64_t>(1, k.result.cycles)}});
    }
    t += std::max<uint64_t>(1, k.result.cycles);
  }
  json j = {{"traceEvents", events},
            {"displayTimeUnit", "ns"},
            {"otherData", {{"time_unit", "core cycles (1 us = 1 cycle)"}}}};
  std::ofstream f(path);
  if (!f) {
    std::fprintf(stderr, "simtlab: cannot write trace file '%s'\n", path.c_str());
    return;
  }
  f << j.dump() << "\n";
}

}  // namespace simtlab::runtime
