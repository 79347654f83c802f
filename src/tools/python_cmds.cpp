// The commands that run the simtlab Python package (python/simtlab): `simtlab report` (a
// sweep's HTML report), `simtlab annotate` (per-line statistics) and `simtlab correlate`
// (simulated against measured values, python/simtlab/correlate.py). Each replaces this process
// by `python3 -m simtlab.<module> ARGS` with the package on PYTHONPATH and $SIMTLAB set to this
// binary.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"
#include "tools/commands.h"
#include "tools/paths.h"
#include "tools/tool_util.h"

namespace simtlab::tools {

namespace fs = std::filesystem;

namespace {

/// Replace this process by `python3 -m simtlab.<module> args...` with the simtlab Python
/// package (python/; pandas and matplotlib from Debian, so Debian's python3 unless
/// $SIMTLAB_PYTHON says otherwise) on PYTHONPATH.
[[noreturn]] void exec_python_module(const std::string& cmd, const std::string& module,
                                     const std::vector<std::string>& module_args) {
  std::string py = std::getenv("SIMTLAB_PYTHON") ? std::getenv("SIMTLAB_PYTHON") : "";
  if (py.empty()) py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  const fs::path bin = exe_dir();
  std::string pkg;
  for (const fs::path& d :
       {bin / ".." / "share" / "simtlab" / "python", bin / ".." / ".." / "python"})
    if (fs::exists(d / "simtlab" / (module + ".py"))) {
      pkg = fs::weakly_canonical(d).string();
      break;
    }
  if (pkg.empty()) fatal("simtlab {}: cannot find the simtlab Python package (python/)", cmd);
  const char* old = std::getenv("PYTHONPATH");
  setenv("PYTHONPATH", (pkg + (old && *old ? ":" + std::string(old) : "")).c_str(), 1);
  std::error_code ec;
  setenv("SIMTLAB", fs::read_symlink("/proc/self/exe", ec).c_str(), 0);
  std::vector<std::string> args = {py, "-m", "simtlab." + module};
  args.insert(args.end(), module_args.begin(), module_args.end());
  std::vector<char*> av;
  for (auto& a : args) av.push_back(a.data());
  av.push_back(nullptr);
  execvp(py.c_str(), av.data());
  fatal("simtlab {}: cannot run {}: {}", cmd, py, std::strerror(errno));
}

}  // namespace

void add_report_command(CLI::App& app) {
  static std::string dir, output;
  auto* rep = app.add_subcommand(
      "report", "Write a self-contained HTML report of a sweep (figures, config diff, numbers)");
  rep->add_option("dir", dir, "The sweep's output directory")->required();
  rep->add_option("-o,--output", output, "HTML file (default: DIR/report.html)");
  rep->callback([] {
    std::vector<std::string> args = {dir};
    if (!output.empty()) args.insert(args.end(), {"-o", output});
    exec_python_module("report", "report", args);
  });
}

void add_annotate_command(CLI::App& app) {
  static std::string stats, kernel;
  static std::vector<std::string> sources;
  static bool ptx = false;
  static int top = 5;
  auto* a = app.add_subcommand(
      "annotate",
      "Print the CUDA source (or PTX) of each kernel with its hottest lines marked, from a run "
      "with --set sim.per_pc_stats=true");
  a->add_option("stats", stats, "Stats JSON written by simtlab run --stats")->required();
  a->add_option("--source", sources, "Directory to look for source files in (repeatable)");
  a->add_option("--kernel", kernel, "Only the kernel with this index, or whose name contains this");
  a->add_flag("--ptx", ptx, "Annotate PTX instructions instead of source lines");
  a->add_option("--top", top, "Top lines to list per kernel (default 5)");
  a->callback([] {
    std::vector<std::string> args = {stats, "--top", std::to_string(top)};
    for (const auto& s : sources) args.insert(args.end(), {"--source", s});
    if (!kernel.empty()) args.insert(args.end(), {"--kernel", kernel});
    if (ptx) args.push_back("--ptx");
    exec_python_module("annotate", "annotate", args);
  });
}

void add_correlate_command(CLI::App& app) {
  static std::vector<std::string> args;
  auto* c = app.add_subcommand(
      "correlate",
      "Run the rows of a CSV of measured values (programs on presets) and report each row's "
      "error, MAPE, Pearson correlation and a log-log scatter (simtlab correlate --help-format)");
  c->prefix_command();  // every argument goes to python/simtlab/correlate.py
  c->allow_extras();
  c->set_help_flag();
  c->callback([c] {
    std::vector<std::string> a = c->remaining();
    exec_python_module("correlate", "correlate", a);
  });
}

}  // namespace simtlab::tools
