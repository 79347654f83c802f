// `simtlab suite list|run|profile`: the workload suite (workloads/manifest.yaml).
//
// run builds every selected workload whose binary is missing or older than its source (nvcc,
// with the source's `// nvcc-flags:` line), runs each under `simtlab run` as a child process
// (N at a time with -j), keeps its stdout, stderr and stats JSON under OUT/runs/<name>/, and
// writes OUT/kernels.csv (one row per kernel launch) and OUT/workloads.csv (one row per
// workload). profile runs them in functional mode and checks each kernel's measured resources
// (threads, shared bytes, registers from the cubin, resident CTAs per SM and the limiting
// resource under its set's configuration) against the manifest.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "config/config.h"
#include "config/preset.h"
#include "timing/gpu/gpu.h"
#include "timing/gpu_params.h"
#include "tools/commands.h"
#include "tools/manifest.h"
#include "tools/paths.h"
#include "tools/tool_util.h"

namespace simtlab::tools {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct SuiteOptions {
  std::string manifest, bin_dir, out;
  std::vector<std::string> set_names, only;
  std::string gpu = config::kDefaultGpu;
  std::vector<std::string> sets;
  std::string mode;
  bool scaled = false, no_build = false, markdown = false, keep_going = true;
  unsigned jobs = 1;
  double timeout = 0;
};

std::string bin_dir_of(const SuiteOptions& o) {
  if (!o.bin_dir.empty()) return o.bin_dir;
  return default_bin_dir();
}

std::vector<const Workload*> select(const Manifest& m, const SuiteOptions& o) {
  for (const auto& s : o.set_names)
    if (!m.sets.count(s)) {
      std::string known;
      for (const auto& [k, v] : m.sets) known += (known.empty() ? "" : ", ") + k;
      fatal("simtlab suite: --set-name {}: no such set (sets: {})", s, known);
    }
  for (const auto& n : o.only)
    if (!m.find(n)) fatal("simtlab suite: --only {}: no such workload in {}", n, m.path);
  std::vector<const Workload*> out;
  for (const auto& w : m.workloads) {
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), w.name) == o.only.end())
      continue;
    if (!o.set_names.empty() && std::none_of(o.set_names.begin(), o.set_names.end(),
                                             [&](const std::string& s) { return w.in_set(s); }))
      continue;
    out.push_back(&w);
  }
  if (out.empty()) fatal("simtlab suite: no workload matches the selection");
  return out;
}

/// One workload run and what came of it.
struct RunResult {
  const Workload* w = nullptr;
  std::string status = "not run";  // passed | failed | timeout
  std::string reason;              // why it failed
  int exit_code = -1;
  double wall = 0;
  std::string dir;
  json kernels = json::array();       // the stats JSON's per-kernel entries (without stats trees)
  json kernel_stats = json::array();  // their main stats (timing mode)
  std::string config_hash, preset, mode;
};

void read_stats(RunResult& r, const std::string& path) {
  std::ifstream f(path);
  if (!f) return;
  json j;
  try {
    j = json::parse(f);
  } catch (const std::exception& e) {
    r.reason +=
        fmt::format("{}unreadable stats {}: {}", r.reason.empty() ? "" : "; ", path, e.what());
    return;
  }
  r.mode = j.value("mode", "");
  if (j.contains("config")) {
    r.config_hash = j["config"].value("hash", "");
    r.preset = j["config"].value("preset", "");
  }
  for (auto& k : j.value("kernels", json::array())) {
    json brief = k;
    json main = json::object();
    if (k.contains("stats") && k["stats"].contains("gpu")) {
      const json& g = k["stats"]["gpu"];
      for (const char* p : {"sm_total.l1d.accesses", "sm_total.l1d.misses", "mem.l2_total.accesses",
                            "mem.l2_total.misses", "mem.dram_total.reads", "mem.dram_total.writes"})
        main[p] = stat_of(g, p);
    }
    brief.erase("stats");
    r.kernels.push_back(std::move(brief));
    r.kernel_stats.push_back(std::move(main));
  }
}

/// Run the selected workloads (`mode` overrides o.mode when not empty) under OUT/runs.
std::vector<RunResult> run_all(const SuiteOptions& o, const std::vector<const Workload*>& sel,
                               const std::string& bin_dir, const std::string& out,
                               const std::string& gpu, const std::vector<std::string>& sets,
                               const std::string& mode) {
  std::error_code ec;
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  std::vector<RunResult> res(sel.size());
  struct Job {
    size_t idx;
    pid_t pid;
    std::chrono::steady_clock::time_point t0;
    bool killed = false;
  };
  std::vector<Job> running;
  size_t next = 0, done = 0, failed = 0;
  double busy = 0;  // summed wall seconds of finished runs
  const auto start = std::chrono::steady_clock::now();
  const unsigned jobs = std::max(1u, o.jobs);
  auto launch = [&](size_t i) {
    RunResult& r = res[i];
    r.w = sel[i];
    r.dir = (fs::path(out) / "runs" / r.w->name).string();
    fs::create_directories(r.dir);
    fs::remove(fs::path(r.dir) / "stats.json", ec);
    std::vector<std::string> argv = {self, "run", "--gpu", gpu};
    for (const auto& s : sets) argv.insert(argv.end(), {"--set", s});
    if (!mode.empty()) argv.insert(argv.end(), {"--mode", mode});
    argv.insert(argv.end(), {"--stats", r.dir + "/stats.json", "--no-progress", "--",
                             (fs::path(bin_dir) / r.w->binary).string()});
    const auto& args = o.scaled && !r.w->scaled_args.empty() ? r.w->scaled_args : r.w->args;
    argv.insert(argv.end(), args.begin(), args.end());
    {
      std::ofstream cmd(r.dir + "/command.txt");
      for (const auto& a : argv) cmd << a << (&a == &argv.back() ? "\n" : " ");
    }
    running.push_back(Job{i, spawn(argv, r.dir + "/stdout.txt", r.dir + "/stderr.txt"),
                          std::chrono::steady_clock::now()});
  };
  while (done < sel.size()) {
    while (running.size() < jobs && next < sel.size()) launch(next++);
    int st = 0;
    const pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid <= 0) {
      const auto now = std::chrono::steady_clock::now();
      for (auto& j : running)
        if (o.timeout > 0 && !j.killed &&
            std::chrono::duration<double>(now - j.t0).count() > o.timeout) {
          kill(j.pid, SIGTERM);  // simtlab writes the stats of an interrupted run
          j.killed = true;
        }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    auto it =
        std::find_if(running.begin(), running.end(), [&](const Job& j) { return j.pid == pid; });
    if (it == running.end()) continue;
    RunResult& r = res[it->idx];
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - it->t0).count();
    const bool killed = it->killed;
    running.erase(it);
    const std::string last = last_line(r.dir + "/stdout.txt");
    if (WIFEXITED(st)) r.exit_code = WEXITSTATUS(st);
    if (killed) {
      r.status = "timeout";
      r.reason = fmt::format("stopped after {:.0f} s (--timeout)", o.timeout);
    } else if (WIFSIGNALED(st)) {
      r.status = "failed";
      r.reason = fmt::format("killed by signal {} ({})", WTERMSIG(st), strsignal(WTERMSIG(st)));
    } else if (r.exit_code != 0 || last != "PASSED") {
      r.status = "failed";
      r.reason = r.exit_code != 0 ? fmt::format("exit code {}", r.exit_code)
                                  : "exit code 0 but the last line is not PASSED";
      if (!last.empty()) r.reason += ": " + last;
      const std::string err = last_line(r.dir + "/stderr.txt");
      if (!err.empty()) r.reason += " | " + err;
    } else {
      r.status = "passed";
    }
    read_stats(r, r.dir + "/stats.json");
    ++done;
    busy += r.wall;
    if (r.status != "passed") ++failed;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double eta = busy / double(done) * double(sel.size() - done) / double(jobs);
    std::fprintf(stderr, "[%zu/%zu] %-22s %-7s %6.1fs | %zu failed | elapsed %s, ETA %s\n", done,
                 sel.size(), r.w->name.c_str(), r.status.c_str(), r.wall, failed,
                 fmt_secs(elapsed).c_str(), fmt_secs(eta).c_str());
    if (r.status != "passed")
      std::fprintf(stderr, "    %s (see %s)\n", r.reason.c_str(), r.dir.c_str());
  }
  return res;
}

const ManifestKernel* manifest_kernel(const Workload& w, const std::string& symbol) {
  const std::string base = kernel_base_name(symbol);
  for (const auto& k : w.kernels)
    if (k.kernel == base) return &k;
  return nullptr;
}

void write_csvs(const std::vector<RunResult>& res, const std::string& out) {
  std::ofstream k(fs::path(out) / "kernels.csv");
  k << "workload,kernel,kernel_base,label,sets,launch,config_hash,preset,mode,status,grid,block,"
       "ctas,regs_per_thread,shared_bytes,ctas_per_sm,cycles,warp_insts,thread_insts,ipc,"
       "l1d_accesses,l1d_misses,l2_accesses,l2_misses,dram_reads,dram_writes\n";
  std::ofstream w(fs::path(out) / "workloads.csv");
  w << "workload,binary,args,status,exit_code,wall_seconds,launches,cycles,warp_insts,"
       "thread_insts,reason\n";
  for (const RunResult& r : res) {
    uint64_t cycles = 0, winsts = 0, tinsts = 0;
    for (size_t i = 0; i < r.kernels.size(); ++i) {
      const json& e = r.kernels[i];
      const json& st = r.kernel_stats[i];
      const std::string sym = e.value("name", "");
      const ManifestKernel* mk = manifest_kernel(*r.w, sym);
      auto dims = [](const json& d) {
        return d.is_array() && d.size() == 3
                   ? fmt::format("{}x{}x{}", d[0].get<uint64_t>(), d[1].get<uint64_t>(),
                                 d[2].get<uint64_t>())
                   : std::string();
      };
      const json occ = e.value("occupancy", json::object());
      const uint64_t shared = e.value("static_shared_bytes", uint64_t(0)) +
                              e.value("dynamic_shared_bytes", uint64_t(0));
      cycles += e.value("cycles", uint64_t(0));
      winsts += e.value("warp_insts", uint64_t(0));
      tinsts += e.value("thread_insts", uint64_t(0));
      auto s = [&](const char* p) { return st.contains(p) ? num(st[p].get<double>()) : ""; };
      k << fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
          r.w->name, csv_field(sym), kernel_base_name(sym), mk ? mk->label : "",
          mk ? join(mk->sets, ";") : "", e.value("index", 0), r.config_hash, r.preset, r.mode,
          e.value("status", ""), dims(e.value("grid", json())), dims(e.value("block", json())),
          e.value("ctas", 0), e.value("regs_per_thread", 0), shared,
          occ.contains("ctas_per_sm") ? std::to_string(occ["ctas_per_sm"].get<uint64_t>()) : "",
          e.value("cycles", uint64_t(0)), e.value("warp_insts", uint64_t(0)),
          e.value("thread_insts", uint64_t(0)), num(e.value("ipc", 0.0)),
          s("sm_total.l1d.accesses"), s("sm_total.l1d.misses"), s("mem.l2_total.accesses"),
          s("mem.l2_total.misses"), s("mem.dram_total.reads"), s("mem.dram_total.writes"));
    }
    const auto& args = r.w->args;
    w << fmt::format("{},{},{},{},{},{:.3f},{},{},{},{},{}\n", r.w->name, r.w->binary,
                     csv_field(join(args, " ")), r.status, r.exit_code, r.wall, r.kernels.size(),
                     cycles, winsts, tinsts, csv_field(r.reason));
  }
}

/// Which per-SM limits bind a CTA of this shape (all that give the minimum).
std::vector<std::string> binding_limits(const timing::SmParams& sm, const timing::CtaNeeds& n,
                                        uint32_t* ctas) {
  const uint32_t by_blocks = sm.max_ctas;
  const uint32_t by_threads =
      std::min(sm.num_warps / std::max(n.warps, 1u), sm.max_threads / std::max(n.threads, 1u));
  const uint32_t by_regs = n.regs ? sm.registers / n.regs : UINT32_MAX;
  const uint32_t by_smem = n.shared ? sm.shared_bytes / n.shared : UINT32_MAX;
  *ctas = std::min({by_blocks, by_threads, by_regs, by_smem});
  std::vector<std::string> out;
  if (by_threads == *ctas) out.push_back("threads");
  if (by_regs == *ctas) out.push_back("registers");
  if (by_smem == *ctas) out.push_back("scratchpad");
  if (by_blocks == *ctas) out.push_back("blocks");
  return out;
}

void add_common(CLI::App* c, SuiteOptions& o) {
  c->add_option("--manifest", o.manifest, "Workload manifest (default: workloads/manifest.yaml)");
  c->add_option("--set-name", o.set_names,
                "Only workloads with a kernel in this set (repeatable; see `suite list`)");
  c->add_option("--only", o.only, "Only these workloads (comma-separated or repeated)")
      ->delimiter(',');
}

void add_exec(CLI::App* c, SuiteOptions& o) {
  c->add_option("--bin-dir", o.bin_dir,
                "Where the workload binaries are built (default: "
                "build/workloads next to simtlab)");
  c->add_flag("--no-build", o.no_build, "Never run nvcc; fail if a binary is missing");
  c->add_option("-j,--jobs", o.jobs, "Run this many workloads at a time")
      ->check(CLI::Range(1, 256));
  c->add_option("--timeout", o.timeout, "Stop a workload after this many seconds (0: never)")
      ->check(CLI::Range(0.0, 1e7));
}

}  // namespace

void add_suite_command(CLI::App& app) {
  static SuiteOptions o;
  auto* suite = app.add_subcommand(
      "suite", "The workload suite: list the workloads, run them, check their profiles");
  suite->require_subcommand(1);

  auto* list = suite->add_subcommand("list", "List the workloads (name, analog, kernels, sets)");
  add_common(list, o);
  list->add_flag("--markdown", o.markdown, "A Markdown table of the profiles (docs/workloads.md)");
  list->callback([] {
    const Manifest m = load_manifest(find_manifest(o.manifest));
    const auto sel = select(m, o);
    if (o.markdown) {
      std::cout << "| workload | analog of | kernel (label) | sets | threads | shared B | regs "
                   "(seed / ptxas) | resident CTAs (seed) | limited by |\n|---|---|---|---|---|"
                   "---|---|---|---|\n";
      for (const Workload* w : sel)
        for (const auto& k : w->kernels)
          std::cout << fmt::format(
              "| {} | {} {} `{}` | `{}`{} | {} | {} | {} | {} / {} | {} | {} |\n", w->name,
              w->suite, w->app, k.analog_of, k.kernel, k.label.empty() ? "" : " (" + k.label + ")",
              join(k.sets, ", "), k.threads, k.shared_bytes, k.regs ? std::to_string(*k.regs) : "–",
              k.regs_measured ? std::to_string(*k.regs_measured) : "?",
              k.resident_blocks ? std::to_string(*k.resident_blocks) : "–",
              k.limited_by.empty() ? "–" : k.limited_by);
      return;
    }
    std::cout << fmt::format("{} workloads in {}\n\n", sel.size(), m.path);
    for (const Workload* w : sel) {
      std::cout << fmt::format("{:<20} {} {}: {}{}\n", w->name, w->suite, w->app, w->binary,
                               w->args.empty() ? "" : " " + join(w->args, " "));
      for (const auto& k : w->kernels)
        std::cout << fmt::format("    {:<34} {:>5} thr {:>6} B  sets: {}\n",
                                 k.kernel + (k.label.empty() ? "" : " (" + k.label + ")"),
                                 k.threads, k.shared_bytes,
                                 k.sets.empty() ? "-" : join(k.sets, ", "));
    }
    std::cout << "\nSets:\n";
    for (const auto& [name, s] : m.sets) {
      size_t n = 0;
      for (const auto& w : m.workloads) n += w.in_set(name);
      std::cout << fmt::format("  {:<26} {:>3} workloads  --gpu {}{}  {}\n", name, n, s.gpu,
                               s.sets.empty() ? "" : " --set " + join(s.sets, " --set "),
                               s.description);
    }
  });

  auto* run = suite->add_subcommand(
      "run", "Build what is stale, run the workloads, write OUT/kernels.csv and workloads.csv");
  add_common(run, o);
  add_exec(run, o);
  run->add_option("--gpu", o.gpu, "GPU preset, preset YAML or gpgpusim.config")
      ->capture_default_str();
  run->add_option("--set", o.sets, "Override a parameter (repeatable)");
  run->add_option("--mode", o.mode, "functional or timing")
      ->check(CLI::IsMember({"functional", "timing"}));
  run->add_flag("--scaled", o.scaled, "Use each workload's scaled (larger) arguments");
  run->add_option("--out", o.out, "Output directory")->required();
  run->callback([] {
    const Manifest m = load_manifest(find_manifest(o.manifest));
    const auto sel = select(m, o);
    std::vector<std::string> sets = o.sets;
    resolve_config(o.gpu, o.mode.empty() ? sets : [&] {
      auto s = sets;
      s.push_back("sim.mode=" + o.mode);
      return s;
    }(), nullptr, nullptr);  // validate the configuration before building anything
    check_out_dir("simtlab suite: --out", o.out);
    const std::string bin_dir = bin_dir_of(o);
    build_stale(m, sel, bin_dir, o.no_build);
    const auto res = run_all(o, sel, bin_dir, o.out, o.gpu, o.sets, o.mode);
    write_csvs(res, o.out);
    size_t failed = 0;
    for (const auto& r : res) failed += r.status != "passed";
    std::fprintf(stderr, "simtlab suite: %zu passed, %zu failed; results in %s/kernels.csv\n",
                 res.size() - failed, failed, o.out.c_str());
    if (failed) std::exit(1);
  });

  auto* prof = suite->add_subcommand(
      "profile",
      "Run the workloads in functional mode and check every kernel's threads, shared bytes, "
      "registers, resident CTAs/SM and limiting resource against the manifest");
  add_common(prof, o);
  add_exec(prof, o);
  prof->add_option("--out", o.out, "Keep the runs here (default: a temporary directory)");
  prof->add_flag("--markdown", o.markdown, "Print the table as Markdown");
  prof->callback([] {
    const Manifest m = load_manifest(find_manifest(o.manifest));
    const auto sel = select(m, o);
    std::string out = o.out;
    bool temp = false;
    if (out.empty()) {
      char tmpl[] = "/tmp/simtlab-profile-XXXXXX";
      if (!mkdtemp(tmpl)) fatal("simtlab suite profile: cannot create a temporary directory");
      out = tmpl;
      temp = true;
    }
    check_out_dir("simtlab suite: --out", out);
    const std::string bin_dir = bin_dir_of(o);
    build_stale(m, sel, bin_dir, o.no_build);
    // Registers come from the cubin, so any GPU with enough registers per thread will do.
    const auto res = run_all(o, sel, bin_dir, out, "fermi-c2050", {}, "functional");
    std::map<std::string, timing::GpuParams> params;  // per set
    auto params_of = [&](const std::string& set) -> const timing::GpuParams& {
      auto it = params.find(set);
      if (it != params.end()) return it->second;
      const WorkloadSet& s = m.sets.at(set);
      config::Config cfg = resolve_config(s.gpu, s.sets, nullptr, nullptr);
      return params.emplace(set, config::load<timing::GpuParams>(cfg)).first->second;
    };
    size_t bad = 0, checked = 0;
    const char* sep = o.markdown ? " | " : "  ";
    if (o.markdown)
      std::cout << "| workload | kernel | threads | shared B | regs seed / ours | CTAs/SM seed / "
                   "ours (config) | limit seed / ours | result |\n|---|---|---|---|---|---|---|"
                   "---|\n";
    else
      std::cout << fmt::format("{:<20}{}{:<30}{}{:>7}{}{:>9}{}{:>11}{}{:>22}{}{:<28}{}{}\n",
                               "workload", sep, "kernel", sep, "threads", sep, "shared B", sep,
                               "regs seed/us", sep, "CTAs/SM seed/us", sep, "limit seed/us", sep,
                               "result");
    for (const RunResult& r : res) {
      if (r.status != "passed") {
        ++bad;
        std::cout << fmt::format("{}{}{}: the run {}: {}\n", o.markdown ? "| " : "", r.w->name, sep,
                                 r.status, r.reason);
        continue;
      }
      for (const ManifestKernel& k : r.w->kernels) {
        // Distinct launch shapes of this kernel.
        std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>> shapes;
        for (const json& e : r.kernels) {
          if (kernel_base_name(e.value("name", "")) != k.kernel) continue;
          const json& b = e["block"];
          const uint32_t threads =
              b[0].get<uint32_t>() * b[1].get<uint32_t>() * b[2].get<uint32_t>();
          const uint32_t shared =
              e.value("static_shared_bytes", 0u) + e.value("dynamic_shared_bytes", 0u);
          // ptxas's count (before any cap for the simulated GPU).
          const uint32_t regs = e.value("regs_wanted", e.value("regs_per_thread", 0u));
          shapes.insert({threads, shared, regs, b[0].get<uint32_t>()});
        }
        if (shapes.empty()) {
          ++bad;
          std::cout << fmt::format("{}{}{}{}{}MISMATCH: kernel never launched\n",
                                   o.markdown ? "| " : "", r.w->name, sep, k.kernel, sep);
          continue;
        }
        // The manifest's profile is the kernel's main launch shape; a kernel may also run with
        // other shapes (a final partial pass, say): those are listed, not checked.
        const bool profiled_shape_ran =
            std::any_of(shapes.begin(), shapes.end(), [&](const auto& sh) {
              return std::get<0>(sh) == k.threads && std::get<1>(sh) == k.shared_bytes;
            });
        for (const auto& [threads, shared, regs, bx] : shapes) {
          std::vector<std::string> why;
          if (profiled_shape_ran && (threads != k.threads || shared != k.shared_bytes)) {
            const std::string note = "other launch shape (not the manifest's profile)";
            if (o.markdown)
              std::cout << fmt::format("| {} | `{}` | {} | {} | | | | {} |\n", r.w->name, k.kernel,
                                       threads, shared, note);
            else
              std::cout << fmt::format("{:<20}{}{:<30}{}{:>7}{}{:>9}{}{}\n", r.w->name, sep,
                                       k.kernel, sep, threads, sep, shared, sep, note);
            continue;
          }
          ++checked;
          if (threads != k.threads)
            why.push_back(fmt::format("threads {} != {}", threads, k.threads));
          if (shared != k.shared_bytes)
            why.push_back(fmt::format("shared {} != {}", shared, k.shared_bytes));
          if (k.regs_measured && regs != *k.regs_measured)
            why.push_back(fmt::format("regs {} != regs_measured {}", regs, *k.regs_measured));
          if (k.regs && (regs + 2 < *k.regs || regs > *k.regs + 2))
            why.push_back(fmt::format("regs {} not within 2 of the seed's {}", regs, *k.regs));
          std::string ctas_col = "-", limit_col = "-";
          if (!k.sets.empty()) {
            const timing::GpuParams& p = params_of(k.sets[0]);
            const uint32_t used = std::min(regs, p.sm.max_regs_per_thread);
            const timing::CtaNeeds n = timing::cta_needs(p.sm, Dim3{threads, 1, 1}, used, shared);
            uint32_t ctas = 0;
            const auto lim = binding_limits(p.sm, n, &ctas);
            ctas_col = fmt::format("{}/{} ({})",
                                   k.resident_blocks ? std::to_string(*k.resident_blocks) : "-",
                                   ctas, k.sets[0]);
            limit_col =
                fmt::format("{}/{}", k.limited_by.empty() ? "-" : k.limited_by, join(lim, "+"));
            if (k.resident_blocks && ctas != *k.resident_blocks)
              why.push_back(fmt::format("{} CTAs/SM under {}, the seed reports {}", ctas, k.sets[0],
                                        *k.resident_blocks));
            if (!k.limited_by.empty()) {
              std::istringstream is(k.limited_by);
              std::string want;
              bool any = false;
              while (std::getline(is, want, ','))
                any |= std::find(lim.begin(), lim.end(), want) != lim.end();
              if (!any)
                why.push_back(fmt::format("limited by {} under {}, the seed says {}",
                                          join(lim, "+"), k.sets[0], k.limited_by));
            }
          }
          const std::string regs_col =
              fmt::format("{}/{}", k.regs ? std::to_string(*k.regs) : "-", regs);
          const std::string result = why.empty() ? "ok" : "MISMATCH: " + join(why, "; ");
          bad += !why.empty();
          if (o.markdown)
            std::cout << fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} |\n", r.w->name,
                                     k.kernel, threads, shared, regs_col, ctas_col, limit_col,
                                     result);
          else
            std::cout << fmt::format("{:<20}{}{:<30}{}{:>7}{}{:>9}{}{:>11}{}{:>22}{}{:<28}{}{}\n",
                                     r.w->name, sep, k.kernel, sep, threads, sep, shared, sep,
                                     regs_col, sep, ctas_col, sep, limit_col, sep, result);
        }
      }
    }
    std::cout << fmt::format("\n{} kernel shapes checked in {} workloads: {}\n", checked,
                             res.size(), bad ? fmt::format("{} problem(s)", bad) : "all match");
    if (temp) {
      std::error_code ec;
      if (!bad)
        fs::remove_all(out, ec);
      else
        std::cout << "runs kept in " << out << "\n";
    }
    if (bad) std::exit(1);
  });
}

}  // namespace simtlab::tools
