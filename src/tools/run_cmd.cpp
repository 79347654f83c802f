// `simtlab run [options] -- PROGRAM [ARGS...]` and `simtlab info [--gpu PRESET]`.
//
// run validates the whole configuration first (so `--set sm.bogus=1` fails before anything
// runs), checks that PROGRAM loads libcudart.so.13 dynamically (nvcc -cudart shared), then
// replaces itself with PROGRAM (execvp) with LD_LIBRARY_PATH pointing at simtlab's
// libcudart.so.13 and the configuration in SIMTLAB_* variables. stdin/stdout/stderr and the
// exit code are the program's own.
#include <elf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/error.h"
#include "config/config.h"
#include "config/preset.h"
#include "config/reference.h"
#include "timing/gpu_params.h"
#include "tools/commands.h"
#include "tools/gpgpusim_import.h"
#include "tools/paths.h"
#include "tools/tool_util.h"

namespace simtlab::tools {

namespace fs = std::filesystem;

namespace {

/// DT_NEEDED entries of an ELF file (empty if not a dynamic ELF).
/// What `simtlab run` needs to know about the program it starts.
struct ElfInfo {
  bool is_elf = false;
  bool has_fatbin = false;          // a .nv_fatbin section: the program carries CUDA code
  std::vector<std::string> needed;  // DT_NEEDED libraries
};

ElfInfo inspect_elf(const std::string& path) {
  ElfInfo info;
  std::vector<std::string>& out = info.needed;
  std::ifstream f(path, std::ios::binary);
  if (!f) return info;
  std::vector<char> img((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (img.size() < sizeof(Elf64_Ehdr) || std::memcmp(img.data(), ELFMAG, SELFMAG) != 0) return info;
  info.is_elf = true;
  Elf64_Ehdr eh;
  std::memcpy(&eh, img.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shoff == 0) return info;
  auto shdr = [&](size_t i) {
    Elf64_Shdr s{};
    const size_t off = eh.e_shoff + i * sizeof(Elf64_Shdr);
    if (off + sizeof s <= img.size()) std::memcpy(&s, img.data() + off, sizeof s);
    return s;
  };
  const Elf64_Shdr names = eh.e_shstrndx < eh.e_shnum ? shdr(eh.e_shstrndx) : Elf64_Shdr{};
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr s = shdr(i);
    const size_t no = names.sh_offset + s.sh_name;
    if (names.sh_size && s.sh_name < names.sh_size && no < img.size() &&
        std::string_view(img.data() + no, strnlen(img.data() + no, img.size() - no)) ==
            ".nv_fatbin")
      info.has_fatbin = true;
    if (s.sh_type != SHT_DYNAMIC || s.sh_link >= eh.e_shnum) continue;
    const Elf64_Shdr str = shdr(s.sh_link);
    for (size_t o = s.sh_offset;
         o + sizeof(Elf64_Dyn) <= s.sh_offset + s.sh_size && o + sizeof(Elf64_Dyn) <= img.size();
         o += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      std::memcpy(&d, img.data() + o, sizeof d);
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag != DT_NEEDED) continue;
      const size_t so = str.sh_offset + d.d_un.d_val;
      if (so >= img.size()) continue;
      out.emplace_back(img.data() + so, strnlen(img.data() + so, img.size() - so));
    }
  }
  return info;
}

std::string find_program(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return prog;
  const std::string found = find_tool(prog);
  return found.empty() ? prog : found;
}

/// Fail unless `path` (an output file option) can be written: an existing file must be a
/// writable regular file, a new one needs an existing writable directory.
void check_writable(const char* option, const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  const fs::path p(path);
  if (fs::exists(p, ec)) {
    if (fs::is_directory(p, ec)) fatal("simtlab run: {} {}: is a directory", option, path);
    if (access(p.c_str(), W_OK) != 0)
      fatal("simtlab run: {} {}: cannot write it: {}", option, path, std::strerror(errno));
    return;
  }
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    fatal("simtlab run: {} {}: directory {} does not exist", option, path, dir.string());
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    fatal("simtlab run: {} {}: cannot create files in {}: {}", option, path, dir.string(),
          std::strerror(errno));
}

struct RunOptions {
  std::string gpu = config::kDefaultGpu;
  std::vector<std::string> sets;
  std::string mode;
  std::string stats, csv, trace, trace_window;
  bool stats_text = false, quiet = false, no_progress = false;
  double progress_interval = -1;
  std::vector<std::string> command;
};

}  // namespace

std::vector<std::string>& program_command() {
  static std::vector<std::string> cmd;
  return cmd;
}

config::Config resolve_config(const std::string& gpu, const std::vector<std::string>& sets,
                              std::vector<std::string>* effective_sets,
                              std::string* effective_gpu) {
  const auto schema = config::schema_of<timing::GpuParams>();
  std::vector<std::string> all = sets;
  std::vector<std::string> origins;  // "file:line" of imported overrides, "" for --set
  std::string preset = gpu;
  if (is_gpgpusim_config(gpu)) {
    // Imported options become overrides on top of the GTX480 preset; user --set wins.
    GpgpusimImport imp = import_gpgpusim_config(gpu, schema);
    if (!imp.ignored.empty()) {
      std::string why;
      for (const auto& o : imp.ignored) {
        const std::string r = ignore_reason(o);
        why += fmt::format("\n  -{}: {}", o, r.empty() ? "unknown to simtlab" : r);
      }
      std::fprintf(stderr, "simtlab: %s: ignoring %zu option(s) simtlab does not model:%s\n",
                   gpu.c_str(), imp.ignored.size(), why.c_str());
    }
    for (const auto& n : imp.notes)
      std::fprintf(stderr, "simtlab: %s: %s\n", gpu.c_str(), n.c_str());
    preset = "fermi-gtx480";
    std::vector<std::string> merged = imp.overrides;
    merged.insert(merged.end(), all.begin(), all.end());
    all = std::move(merged);
    origins = imp.origins;
    origins.resize(all.size());
  }
  if (effective_sets) *effective_sets = all;
  if (effective_gpu) *effective_gpu = preset;
  return config::Config::resolve(schema, preset_dirs(), preset, all, origins);
}

void add_run_command(CLI::App& app) {
  static RunOptions o;
  auto* run = app.add_subcommand(
      "run",
      "Run an unmodified CUDA program (built with nvcc -cudart shared) on the simulated GPU");
  // The default GPU: $SIMTLAB_GPU when set (a session or test harness may pin one), else
  // config::kDefaultGpu.
  if (const char* env_gpu = std::getenv("SIMTLAB_GPU"); env_gpu && *env_gpu) o.gpu = env_gpu;
  run->add_option("--gpu", o.gpu,
                  "GPU preset name, preset YAML file, or GPGPU-Sim gpgpusim.config file "
                  "(default: $SIMTLAB_GPU if set, else " +
                      std::string(config::kDefaultGpu) + ")")
      ->capture_default_str();
  run->add_option("--set", o.sets, "Override a parameter: --set sm.num_schedulers=4 (repeatable)");
  run->add_option("--mode", o.mode, "functional (no timing) or timing (cycle-level)")
      ->check(CLI::IsMember({"functional", "timing"}));
  run->add_option("--stats", o.stats,
                  "Write the stats JSON (config, per-kernel and whole-run stats) to FILE");
  run->add_flag("--stats-text", o.stats_text,
                "Print a GPGPU-Sim-style text summary (gpu_sim_cycle, gpu_ipc, ...) on stderr");
  run->add_option("--csv", o.csv, "Append one CSV row per kernel to FILE (for sweeps)");
  run->add_option("--trace", o.trace,
                  "Write a Chrome trace-event timeline (open in Perfetto / chrome://tracing)");
  run->add_option("--trace-window", o.trace_window, "Limit the trace to core cycles BEGIN:END");
  run->add_flag("--quiet,-q", o.quiet, "No summary or progress line on stderr");
  run->add_flag("--no-progress", o.no_progress, "No progress line (terminal or log)");
  run->add_option("--progress-interval", o.progress_interval,
                  "Seconds between progress lines (default: 0.5 on a terminal, where the line is "
                  "rewritten in place; 10 otherwise, one plain line each time, for batch logs)");
  run->add_option("command", o.command, "-- PROGRAM [ARGS...]");
  run->footer(
      "Everything after -- is the program and its arguments; its stdin/stdout/stderr and exit code "
      "are untouched.");
  run->callback([] {
    if (!program_command().empty())
      o.command.insert(o.command.end(), program_command().begin(), program_command().end());
    if (o.command.empty())
      throw CLI::RequiredError("PROGRAM (simtlab run [options] -- PROGRAM [ARGS...])");
    std::vector<std::string> sets = o.sets;
    if (!o.mode.empty()) sets.push_back("sim.mode=" + o.mode);
    std::vector<std::string> eff_sets;
    std::string eff_gpu;
    config::Config cfg = resolve_config(o.gpu, sets, &eff_sets, &eff_gpu);  // validates everything
    // Output files are checked now, not after a long simulation.
    check_writable("--stats", o.stats);
    check_writable("--csv", o.csv);
    check_writable("--trace", o.trace);
    const std::string prog = find_program(o.command[0]);
    if (access(prog.c_str(), F_OK) != 0) fatal("simtlab run: program '{}' not found", o.command[0]);
    if (access(prog.c_str(), X_OK) != 0) fatal("simtlab run: '{}' is not executable", prog);
    // A program with CUDA code (.nv_fatbin) must load libcudart.so dynamically, or the real
    // runtime linked into it would run instead of simtlab. An ELF without CUDA code is a
    // launcher (a shell, gdb, python, ...): its children that load libcudart.so.13 dynamically
    // get the simulated GPU through the environment set below.
    const ElfInfo elf = inspect_elf(prog);
    if (elf.is_elf) {
      bool shared = false;
      for (const auto& n : elf.needed)
        if (n.rfind("libcudart.so", 0) == 0) shared = true;
      if (!shared && elf.has_fatbin)
        fatal(
            "simtlab run: {} links the CUDA runtime statically (nvcc's default), so simtlab "
            "cannot provide the GPU; rebuild it with `nvcc -cudart shared ...`",
            prog);
    }
    const std::string libdir = library_dir();
    if (libdir.empty())
      fatal("simtlab run: cannot find simtlab's libcudart.so.13 next to the simtlab binary");
    const char* old = std::getenv("LD_LIBRARY_PATH");
    setenv("LD_LIBRARY_PATH", (libdir + (old && *old ? ":" + std::string(old) : "")).c_str(), 1);
    setenv("SIMTLAB_GPU", eff_gpu.c_str(), 1);
    std::string joined;
    for (const auto& s : eff_sets) joined += s + "\n";
    setenv("SIMTLAB_SET", joined.c_str(), 1);
    std::string dirs;
    for (const auto& d : preset_dirs()) dirs += (dirs.empty() ? "" : ":") + d;
    setenv("SIMTLAB_PRESET_DIRS", dirs.c_str(), 1);
    auto abs = [](const std::string& p) { return p.empty() ? p : fs::absolute(p).string(); };
    setenv("SIMTLAB_STATS", abs(o.stats).c_str(), 1);
    setenv("SIMTLAB_CSV", abs(o.csv).c_str(), 1);
    setenv("SIMTLAB_TRACE", abs(o.trace).c_str(), 1);
    setenv("SIMTLAB_TRACE_WINDOW", o.trace_window.c_str(), 1);
    setenv("SIMTLAB_STATS_TEXT", o.stats_text ? "1" : "0", 1);
    setenv("SIMTLAB_QUIET", o.quiet ? "1" : "0", 1);
    setenv("SIMTLAB_PROGRESS", o.no_progress ? "0" : "1", 1);
    if (o.progress_interval >= 0)
      setenv("SIMTLAB_PROGRESS_INTERVAL", std::to_string(o.progress_interval).c_str(), 1);
    std::vector<char*> argv;
    for (auto& a : o.command) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(prog.c_str(), argv.data());
    fatal("simtlab run: cannot execute {}: {}", prog, std::strerror(errno));
  });
}

void add_info_command(CLI::App& app) {
  static std::string gpu;
  static std::vector<std::string> sets;
  static bool markdown = false;
  auto* info = app.add_subcommand(
      "info", "List GPU presets and every parameter (type, default, unit, description, source)");
  info->add_option("--gpu", gpu,
                   "Show the values of this preset (name, YAML file or gpgpusim.config)");
  info->add_option("--set", sets, "Apply overrides before showing values");
  info->add_flag("--markdown", markdown, "Print the Markdown reference (docs/config-reference.md)");
  info->callback([] {
    const auto schema = config::schema_of<timing::GpuParams>();
    if (markdown) {
      std::cout << config_reference_markdown();
      return;
    }
    // An unusable configuration fails before anything is printed.
    std::optional<config::Config> cfg;
    if (!gpu.empty()) cfg = resolve_config(gpu, sets, nullptr, nullptr);
    std::cout << "Presets:\n";
    for (const auto& p : config::list_presets(preset_dirs()))
      std::cout << fmt::format("  {:<14} {}{}{}\n", p.name, p.description,
                               p.inherits.empty() ? "" : " (inherits " + p.inherits + ")",
                               p.name == config::kDefaultGpu ? " [default]" : "");
    std::cout << "\n";
    if (gpu.empty()) {
      std::cout << config::reference_text(schema);
    } else {
      std::cout << fmt::format("Configuration '{}' (hash {}):\n", cfg->preset_name(), cfg->hash());
      std::cout << config::reference_text(schema, &*cfg);
    }
  });
}

std::string config_reference_markdown() {
  const auto schema = config::schema_of<timing::GpuParams>();
  return "# simtlab configuration reference\n\n"
         "Generated from the parameter declarations by `simtlab info --markdown`; a test keeps "
         "this file "
         "current. Set any parameter with `simtlab run --set path=value`, or in a preset YAML file "
         "under "
         "`configs/`.\n\n"
         "The defaults below are the built-in base values (the fermi-gtx480 preset, which every "
         "preset inherits from); the GPU simtlab uses when none is named is the `" +
         std::string(config::kDefaultGpu) + "` preset (`configs/" + config::kDefaultGpu +
         ".yaml`).\n\n" + config::reference_markdown(schema);
}

}  // namespace simtlab::tools
