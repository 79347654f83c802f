#include "runtime/report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "power/model.h"

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

json kernel_entry(const KernelRecord& k, size_t index, uint64_t cycles_before, json* gpu_out) {
  json e;
  e["index"] = index;
  e["name"] = k.name;
  e["status"] = status_name(k.status);
  if (!k.error.empty()) e["error"] = k.error;
  e["grid"] = {k.grid.x, k.grid.y, k.grid.z};
  e["block"] = {k.block.x, k.block.y, k.block.z};
  e["static_shared_bytes"] = k.static_shared;
  e["dynamic_shared_bytes"] = k.dynamic_shared;
  e["regs_per_thread"] = k.regs_per_thread;
  e["regs_source"] = k.regs_source;
  e["regs_wanted"] = k.regs_wanted;
  e["ctas"] = k.result.ctas;
  e["warp_insts"] = k.result.warp_insts;
  e["thread_insts"] = k.result.thread_insts;
  e["cycles"] = k.result.cycles;
  e["ipc"] = k.result.cycles ? double(k.result.thread_insts) / double(k.result.cycles) : 0.0;
  e["start_cycle"] = k.result.end_cycle ? k.result.start_cycle : cycles_before;
  e["end_cycle"] = k.result.end_cycle ? k.result.end_cycle : cycles_before + k.result.cycles;
  if (k.stats.is_object()) {
    json gpu = k.stats;
    gpu.erase("trace_events");
    json extra = json::object();
    for (const char* key :
         {"start_cycle", "end_cycle", "occupancy", "attribution", "registers", "sharing", "l1_shared"})
      if (gpu.contains(key)) {
        extra[key] = gpu[key];
        gpu.erase(key);
      }
    add_totals(gpu);
    if (gpu_out) *gpu_out = gpu;
    e["occupancy"] = extra.value("occupancy", json::object());
    if (extra.contains("attribution")) e["attribution"] = std::move(extra["attribution"]);
    if (extra.contains("registers")) e["registers"] = std::move(extra["registers"]);
    if (extra.contains("sharing")) e["sharing"] = std::move(extra["sharing"]);
    if (extra.contains("l1_shared")) e["l1_shared"] = std::move(extra["l1_shared"]);
    if (gpu.contains("intervals")) {
      e["intervals"] = std::move(gpu["intervals"]);
      gpu.erase("intervals");
    }
    e["stats"] = {{"gpu", std::move(gpu)}};
  }
  if (!e.contains("occupancy") && k.occupancy.is_object()) e["occupancy"] = k.occupancy;
  return e;
}

void merge_stats(json& run_gpu, const json& kernel_gpu) {
  // power (power.enable): the first kernel's group is copied, later ones add their dynamic
  // energy (merge_add adds counters only); run_json_without_kernels sets the run's leakage.
  const bool had_power = run_gpu.is_object() && run_gpu.contains("power");
  merge_add(run_gpu, kernel_gpu);
  if (had_power && kernel_gpu.contains("power"))
    power::merge_kernel(run_gpu["power"], kernel_gpu["power"]);
}

KernelBrief kernel_brief(const json& entry) {
  KernelBrief b;
  b.name = entry["name"].get<std::string>();
  b.cycles = entry["cycles"].get<uint64_t>();
  b.warp_insts = entry["warp_insts"].get<uint64_t>();
  b.thread_insts = entry["thread_insts"].get<uint64_t>();
  b.start = entry["start_cycle"].get<uint64_t>();
  b.end = entry["end_cycle"].get<uint64_t>();
  if (entry.contains("stats")) {
    const json& st = entry["stats"]["gpu"];
    b.l1_accesses = stat_value(st, "sm_total.l1d.accesses");
    b.l1_misses = stat_value(st, "sm_total.l1d.misses");
    b.l2_accesses = stat_value(st, "mem.l2_total.accesses");
    b.l2_misses = stat_value(st, "mem.l2_total.misses");
  }
  return b;
}

json run_json_without_kernels(const config::Config& cfg, const std::string& mode,
                              const std::vector<KernelBrief>& kernels, const json& run_gpu_in,
                              double wall, int interrupted) {
  json j;
  j["simtlab"] = {{"version", "0.1.0"}, {"format", 1}};
  j["mode"] = mode;
  j["config"] = {{"preset", cfg.preset_name()}, {"hash", cfg.hash()}, {"values", cfg.to_json()}};
  json host_kernels = json::array();
  uint64_t tot_warp = 0, tot_thread = 0, failed = 0;
  double kernel_wall = 0;
  for (const KernelBrief& k : kernels) {
    host_kernels.push_back({{"name", k.name}, {"wall_seconds", k.wall_seconds}});
    tot_warp += k.warp_insts;
    tot_thread += k.thread_insts;
    kernel_wall += k.wall_seconds;
    if (k.status != KernelStatus::completed) ++failed;
  }
  // With concurrent kernels, elapsed GPU time is the union of the kernels' intervals.
  uint64_t tot_cycles = 0;
  {
    std::vector<std::pair<uint64_t, uint64_t>> iv;
    iv.reserve(kernels.size());
    for (const KernelBrief& k : kernels) iv.push_back({k.start, k.end});
    std::sort(iv.begin(), iv.end());
    uint64_t cur_s = 0, cur_e = 0;
    bool open = false;
    for (auto [a, b] : iv) {
      if (open && a <= cur_e) {
        cur_e = std::max(cur_e, b);
      } else {
        if (open) tot_cycles += cur_e - cur_s;
        cur_s = a;
        cur_e = b;
        open = true;
      }
    }
    if (open) tot_cycles += cur_e - cur_s;
  }
  j["kernels"] = json::array();
  j["totals"] = {{"launches", kernels.size()},
                 {"cycles", tot_cycles},
                 {"warp_insts", tot_warp},
                 {"thread_insts", tot_thread},
                 {"ipc", tot_cycles ? double(tot_thread) / double(tot_cycles) : 0.0}};
  if (failed) j["totals"]["failed_launches"] = failed;
  if (interrupted) j["interrupted"] = {{"signal", interrupted}, {"name", strsignal(interrupted)}};
  if (!run_gpu_in.is_null()) {
    json run_gpu = run_gpu_in;
    recompute_formulas(run_gpu);
    if (run_gpu.contains("power"))  // leakage over the run's GPU time (union of kernels)
      power::finish_run(run_gpu["power"],
                        double(tot_cycles) / (run_gpu["power"]["core_mhz"].get<double>() * 1e6));
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

namespace {
/// `text` with every line after the first indented by `n` more spaces.
std::string indent_tail(const std::string& text, size_t n) {
  std::string out;
  out.reserve(text.size() + n * 16);
  const std::string pad(n, ' ');
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}
}  // namespace

void write_run_json(std::ostream& os, const json& run, std::FILE* spool) {
  // Exactly what run.dump(2) gives with the kernel entries spliced in (keys in sorted order,
  // as nlohmann::json orders them), without holding every entry in memory at once.
  os << "{";
  bool first = true;
  for (auto it = run.begin(); it != run.end(); ++it) {
    os << (first ? "\n  \"" : ",\n  \"") << it.key() << "\": ";
    first = false;
    if (it.key() != "kernels" || !spool) {
      os << indent_tail(it.value().dump(2), 2);
      continue;
    }
    std::rewind(spool);
    bool any = false;
    std::string line;
    char buf[1 << 16];
    while (std::fgets(buf, sizeof buf, spool)) {
      line += buf;
      if (line.empty() || line.back() != '\n') continue;
      line.pop_back();
      os << (any ? ",\n    " : "[\n    ") << indent_tail(json::parse(line).dump(2), 4);
      any = true;
      line.clear();
    }
    os << (any ? "\n  ]" : "[]");
  }
  os << (first ? "}" : "\n}");
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
  if (t.contains("failed_launches"))
    s += fmt::format(
        "\nsimtlab: {} kernel launch{} did not complete (see the stats file's "
        "\"status\"): the numbers above include partial work",
        t["failed_launches"].get<uint64_t>(),
        t["failed_launches"].get<uint64_t>() == 1 ? "" : "es");
  if (run.contains("interrupted"))
    s += fmt::format(
        "\nsimtlab: interrupted by {} (signal {}); stats cover the kernels that "
        "finished and the one that was running",
        run["interrupted"]["name"].get<std::string>(), run["interrupted"]["signal"].get<int>());
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
  if (run.contains("stats") && run["stats"]["gpu"].contains("power"))
    s += "\nsimtlab: " + power::summary_line(run["stats"]["gpu"]["power"]);
  s += fmt::format("\nsimtlab: simulated in {:.2f} s: {:.3g} thread-inst/s, {:.3g} warp-inst/s",
                   r["wall_seconds"].get<double>(), r["thread_insts_per_s"].get<double>(),
                   r["warp_insts_per_s"].get<double>());
  if (t["cycles"].get<uint64_t>())
    s += fmt::format(", {:.3g} cycles/s", r["cycles_per_s"].get<double>());
  return s + "\n";
}

std::string stats_text(const std::vector<KernelBrief>& kernels) {
  std::string s;
  uint64_t tot_cycles = 0, tot_insn = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelBrief& k = kernels[i];
    const uint64_t cyc = k.cycles, insn = k.thread_insts;
    tot_cycles += cyc;
    tot_insn += insn;
    s += fmt::format("kernel_name = {}\n", k.name);
    s += fmt::format("kernel_launch_uid = {}\n", i + 1);
    if (k.status != KernelStatus::completed)
      s += fmt::format("kernel_status = {}\n", status_name(k.status));
    s += fmt::format("gpu_sim_cycle = {}\n", cyc);
    s += fmt::format("gpu_sim_insn = {}\n", insn);
    s += fmt::format("gpu_ipc = {:12.4f}\n", cyc ? double(insn) / double(cyc) : 0.0);
    s += fmt::format("gpu_tot_sim_cycle = {}\n", tot_cycles);
    s += fmt::format("gpu_tot_sim_insn = {}\n", tot_insn);
    s += fmt::format("gpu_tot_ipc = {:12.4f}\n",
                     tot_cycles ? double(tot_insn) / double(tot_cycles) : 0.0);
    s += fmt::format("gpu_warp_insn = {}\n", k.warp_insts);
    const double l1a = k.l1_accesses, l1m = k.l1_misses, l2a = k.l2_accesses, l2m = k.l2_misses;
    s += fmt::format("L1D_total_cache_accesses = {}\n", uint64_t(l1a));
    s += fmt::format("L1D_total_cache_misses = {}\n", uint64_t(l1m));
    s += fmt::format("L1D_total_cache_miss_rate = {:.4f}\n", l1a ? l1m / l1a : 0.0);
    s += fmt::format("L2_total_cache_accesses = {}\n", uint64_t(l2a));
    s += fmt::format("L2_total_cache_misses = {}\n", uint64_t(l2m));
    s += fmt::format("L2_total_cache_miss_rate = {:.4f}\n", l2a ? l2m / l2a : 0.0);
  }
  return s;
}

const char* csv_header() {
  return "config_hash,preset,mode,kernel_index,kernel,grid,block,ctas,regs_per_thread,cycles,"
         "warp_insts,thread_insts,ipc,wall_seconds,status\n";
}

std::string csv_row(const config::Config& cfg, const std::string& mode, size_t index, const json& e,
                    const KernelBrief& k) {
  // A kernel that did not complete gets empty result columns and its status: it must never
  // read as a measurement.
  const bool ok = k.status == KernelStatus::completed;
  auto dims = [](const json& d) {
    return fmt::format("{}x{}x{}", d[0].get<uint32_t>(), d[1].get<uint32_t>(),
                       d[2].get<uint32_t>());
  };
  return fmt::format("{},{},{},{},\"{}\",{},{},{},{},{},{},{},{},{:.6f},{}\n", cfg.hash(),
                     cfg.preset_name(), mode, index, k.name, dims(e["grid"]), dims(e["block"]),
                     e["ctas"].get<uint64_t>(), e["regs_per_thread"].get<uint32_t>(),
                     ok ? std::to_string(k.cycles) : "", ok ? std::to_string(k.warp_insts) : "",
                     ok ? std::to_string(k.thread_insts) : "",
                     ok ? fmt::format("{:.6f}", e["ipc"].get<double>()) : "", k.wall_seconds,
                     status_name(k.status));
}

void write_trace(const std::string& path, const std::vector<json>& kernels) {
  // A budgeted trace (trace.max_events) was sampled with a stride that may have grown after
  // earlier kernels handed their events over: apply the final stride to every kernel's detail
  // (warp-state and memory slices), and keep one "trace sampled" event, the last.
  uint64_t stride = 1, window = 1;
  json sampled;
  for (const json& k : kernels)
    if (k.contains("events"))
      for (const json& e : k["events"])
        if (e.value("cat", "") == "trace" && e.value("name", "") == "trace sampled") {
          const uint64_t st = e["args"]["stride"].get<uint64_t>();
          if (st >= stride) {
            stride = st;
            window = std::max<uint64_t>(1, e["args"]["sample_window"].get<uint64_t>());
            if (sampled.is_null() || e["ts"].get<uint64_t>() < sampled["ts"].get<uint64_t>())
              sampled = e;
            else
              sampled["args"] = e["args"];
          }
        }
  auto keep = [&](const json& e) {
    if (stride == 1) return true;
    const std::string cat = e.value("cat", "");
    if (cat == "trace") return false;
    if (cat != "warp" && cat != "stall" && cat != "mem") return true;
    return (e["ts"].get<uint64_t>() / window) % stride == 0;
  };
  json events = json::array();
  uint64_t t = 0;
  for (const json& k : kernels) {
    const uint64_t cycles = k["cycles"].get<uint64_t>();
    if (k.contains("events")) {
      for (const json& e : k["events"])
        if (keep(e)) events.push_back(e);
    } else {
      events.push_back({{"name", k["name"]},
                        {"cat", "kernel"},
                        {"ph", "X"},
                        {"pid", 0},
                        {"tid", 0},
                        {"ts", t},
                        {"dur", std::max<uint64_t>(1, cycles)}});
    }
    t += std::max<uint64_t>(1, cycles);
  }
  if (!sampled.is_null()) events.push_back(sampled);
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
