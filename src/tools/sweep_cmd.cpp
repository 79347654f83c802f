// `simtlab sweep run|status|collect|exec`: design-space sweeps from an experiment file
// (experiments/*.yaml; format in docs/experiments.md): workloads x variants x repetitions, one
// `simtlab run` each, resumable, with one tidy CSV at the end.
//
// Layout of a sweep's output directory (deterministic; the same for every backend):
//   OUT/plan.json                        the runs: id, workload, variant, repetition, command
//   OUT/experiment.yaml                  a copy of the experiment file the plan came from
//   OUT/.lock                            flock of the `sweep run` using OUT ("<pid> <host>")
//   OUT/runs/<workload>/<variant>[.r<k>]/
//        command.txt stdout.txt stderr.txt stats.json
//        .lock                           flock of the `sweep exec` running it (and its children)
//        status.json                     written last (atomically) by `sweep exec`:
//                                        {status, exit_code, reason, attempt, wall_seconds,
//                                         stderr_tail, plan_hash, stats: {bytes, mtime_ns}}
//   OUT/results.csv                      `sweep collect`
// A run counts as finished when its status.json says "passed" for the same command
// (plan_hash) and its stats.json is complete (valid JSON with every kernel; checked when the
// run ends and again whenever its size or time differ from what status.json recorded); `sweep
// run` skips those, so an interrupted sweep resumes where it stopped. Any other run (failed,
// timeout, corrupt, pending) runs again. A run that fails is retried once in the same
// invocation and then reported with its stderr tail.
//
// Names (experiment, workloads, variants) are single directory names (name_problem), so no
// experiment file or plan.json can make a sweep write outside OUT.
//
// Every run goes through `simtlab sweep exec OUT --run ID` (the local backend starts those
// itself, N at a time, each ending with it), so a cluster backend only has to start the same
// command per task. No two executions of one run overlap: each holds the run's lock while it
// (or anything its command started) lives, and a second one waits for it.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "config/config.h"
#include "config/preset.h"
#include "tools/commands.h"
#include "tools/manifest.h"
#include "tools/paths.h"
#include "tools/tool_util.h"

namespace simtlab::tools {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Variant {
  std::string name, gpu, mode;
  std::vector<std::string> sets;
};

struct Run {
  std::string id;  // "<workload>/<variant>" or "<workload>/<variant>.r<k>"
  std::string workload, variant;
  int rep = 0;
  bool self_checking = false;     // a suite workload: must end with a PASSED line
  std::vector<std::string> argv;  // the full command (simtlab run ... -- program args)
  std::string cwd;                // "" = the sweep's working directory
  std::string hash;               // of argv + cwd: a changed command is not "finished"
};

/// Per-task resources of the Slurm backend (experiment key `slurm`).
struct SlurmOptions {
  std::string partition, mem = "4G", time = "02:00:00", account;
  unsigned cpus_per_task = 1, max_parallel = 0;  // 0: no limit on the array's parallelism
  std::vector<std::string> extra;                // more `#SBATCH` options, verbatim
};

struct Experiment {
  SlurmOptions slurm;
  std::string path, name, description, baseline;
  std::vector<Variant> variants;
  std::vector<Run> runs;
  std::vector<const Workload*> suite_workloads;  // to build
  double timeout = 0;
  std::vector<std::string> config_keys;  // every key a variant or the experiment overrides
};

std::string hash_hex(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

[[noreturn]] void bad(const std::string& file, const std::string& path, const std::string& what) {
  throw UserError(fmt::format("{}: {}: {}", file, path, what));
}

/// `s` with control characters escaped (\n, \t, \x01), for messages and key paths.
std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", unsigned(c));
    else
      out += char(c);
  }
  return out;
}

/// Why `name` (an experiment, workload or variant name) cannot be one directory name under the
/// sweep's output directory, or "" when it can. A name is 1 to 128 characters of letters,
/// digits and `_ . + = @ % , -`, and does not start with '.' or '-'.
std::string name_problem(const std::string& name) {
  if (name.empty()) return "a name may not be empty";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f)
      return fmt::format("'{}' contains a control character ({}); names become directory names",
                         printable(name), printable(std::string(1, char(c))));
  if (name[0] == '/')
    return fmt::format("'{}' is an absolute path; names become directory names under --out", name);
  if (name.find_first_of("/\\") != std::string::npos) {
    std::istringstream is(name);
    std::string part;
    bool up = false;
    while (std::getline(is, part, '/')) up = up || part == "..";
    return up ? fmt::format(
                    "'{}' would leave the output directory ('..' and '/' are not "
                    "allowed in names)",
                    name)
              : fmt::format("'{}' contains '{}'; names become single directory names", name,
                            name.find('/') != std::string::npos ? '/' : '\\');
  }
  if (name == "..") return "'..' would leave the output directory";
  if (name == ".") return "'.' is the output directory itself, not a name";
  if (name[0] == '.') return fmt::format("'{}' starts with '.' (a hidden directory)", name);
  if (name[0] == '-') return fmt::format("'{}' starts with '-' (it would read as an option)", name);
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("_.+=@%,-").find(c) == std::string_view::npos)
      return fmt::format("'{}' contains '{}' (names are letters, digits and _ . + = @ % , -)", name,
                         c);
  if (name.size() > 128)
    return fmt::format("'{}...' is longer than 128 characters", name.substr(0, 20));
  return {};
}

void check_name(const std::string& file, const std::string& path, const std::string& name) {
  if (const std::string why = name_problem(name); !why.empty()) bad(file, path, why);
}

/// Two entries of one mapping with the same key: an error naming both lines (yaml-cpp keeps
/// both entries, and a lookup silently finds the first).
void no_duplicate_keys(const std::string& file, const YAML::Node& n, const std::string& path) {
  std::map<std::string, int> line;
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) continue;
    const std::string k = kv.first.as<std::string>();
    const int l = kv.first.Mark().line + 1;
    if (auto [it, fresh] = line.emplace(k, l); !fresh)
      bad(file, path.empty() ? printable(k) : path + "." + printable(k),
          fmt::format("appears twice (lines {} and {}); remove or rename one", it->second, l));
  }
}

std::vector<std::string> str_list(const std::string& file, const YAML::Node& n,
                                  const std::string& path) {
  std::vector<std::string> out;
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) bad(file, path, "expected a list of strings");
  for (size_t i = 0; i < n.size(); ++i) {
    if (!n[i].IsScalar()) bad(file, fmt::format("{}[{}]", path, i), "expected a string");
    out.push_back(n[i].as<std::string>());
  }
  return out;
}

std::string scalar(const std::string& file, const YAML::Node& m, const std::string& path,
                   const char* key, const std::string& def) {
  const YAML::Node n = m[key];
  if (!n || n.IsNull()) return def;
  if (!n.IsScalar()) bad(file, path.empty() ? key : path + "." + key, "expected a string");
  return n.as<std::string>();
}

void only_keys(const std::string& file, const YAML::Node& n, const std::string& path,
               std::initializer_list<const char*> allowed) {
  if (!n.IsMap()) bad(file, path.empty() ? "(top level)" : path, "expected a mapping");
  no_duplicate_keys(file, n, path);
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; }))
      bad(file, path.empty() ? k : path + "." + k,
          fmt::format("unknown key (expected one of: {})",
                      join(std::vector<std::string>(allowed.begin(), allowed.end()), ", ")));
  }
}

double number(const std::string& file, const YAML::Node& m, const std::string& key, double def,
              double lo, double hi, const std::string& where = "") {
  const YAML::Node n = m[key];
  if (!n || n.IsNull()) return def;
  double v = 0;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    bad(file, where.empty() ? key : where + "." + key,
        fmt::format("expected a number, got '{}'", n.IsScalar() ? n.as<std::string>() : "?"));
  }
  if (!(v >= lo && v <= hi))
    bad(file, where.empty() ? key : where + "." + key,
        fmt::format("{} is outside [{}, {}]", v, lo, hi));
  return v;
}

/// Read and validate the experiment, and plan its runs. Every problem (unknown key, unknown
/// workload or set, a --set the configuration refuses, a missing program) is reported here,
/// before anything runs.
Experiment load_experiment(const std::string& file, const Manifest* manifest,
                           const std::string& bin_dir, const std::string& self) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw UserError(fmt::format("{}: cannot read the experiment file", file));
  } catch (const YAML::Exception& e) {
    throw UserError(fmt::format("{}:{}:{}: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  only_keys(file, root, "",
            {"experiment", "description", "workloads", "scaled", "gpu", "mode", "set", "baseline",
             "variants", "repetitions", "timeout", "slurm"});
  Experiment x;
  x.path = file;
  x.name = scalar(file, root, "", "experiment", "");
  if (x.name.empty()) bad(file, "experiment", "missing (the experiment's name)");
  check_name(file, "experiment", x.name);  // the default --out is sweeps/<name>
  x.description = scalar(file, root, "", "description", "");
  const std::string gpu = scalar(file, root, "", "gpu", config::kDefaultGpu);
  const std::string mode = scalar(file, root, "", "mode", "timing");
  if (mode != "timing" && mode != "functional")
    bad(file, "mode", fmt::format("'{}' is not timing or functional", mode));
  const std::vector<std::string> common = str_list(file, root["set"], "set");
  const bool scaled =
      root["scaled"] && root["scaled"].IsScalar() && root["scaled"].as<std::string>() == "true";
  const int reps = int(number(file, root, "repetitions", 1, 1, 1000));
  x.timeout = number(file, root, "timeout", 0, 0, 1e7);
  if (const YAML::Node sl = root["slurm"]; sl && !sl.IsNull()) {
    only_keys(file, sl, "slurm",
              {"partition", "account", "cpus_per_task", "mem", "time", "max_parallel", "extra"});
    x.slurm.partition = scalar(file, sl, "slurm", "partition", "");
    x.slurm.account = scalar(file, sl, "slurm", "account", "");
    x.slurm.mem = scalar(file, sl, "slurm", "mem", x.slurm.mem);
    x.slurm.time = scalar(file, sl, "slurm", "time", x.slurm.time);
    x.slurm.cpus_per_task = unsigned(number(file, sl, "cpus_per_task", 1, 1, 1024, "slurm"));
    x.slurm.max_parallel = unsigned(number(file, sl, "max_parallel", 0, 0, 1e6, "slurm"));
    x.slurm.extra = str_list(file, sl["extra"], "slurm.extra");
    for (const auto& [key, v] : {std::pair{"partition", &x.slurm.partition},
                                 {"account", &x.slurm.account},
                                 {"mem", &x.slurm.mem},
                                 {"time", &x.slurm.time}})
      if (std::any_of(v->begin(), v->end(),
                      [](unsigned char c) { return c < 0x20 || c == 0x7f; }) ||
          v->find_first_of(" '\"$`\\") != std::string::npos)
        bad(file, fmt::format("slurm.{}", key),
            fmt::format("'{}' may not contain spaces, quotes, control or shell characters",
                        printable(*v)));
    // Each entry becomes one `#SBATCH` line of the job script: a line break would start a line
    // of its own (a shell command).
    for (size_t i = 0; i < x.slurm.extra.size(); ++i) {
      const std::string& e = x.slurm.extra[i];
      if (std::any_of(e.begin(), e.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
        bad(file, fmt::format("slurm.extra[{}]", i),
            fmt::format("'{}' contains a line break or control character; each entry must be "
                        "one #SBATCH option on one line",
                        printable(e)));
    }
  }

  // Variants, in file order.
  const YAML::Node vs = root["variants"];
  if (!vs || !vs.IsMap() || vs.size() == 0)
    bad(file, "variants", "missing or not a mapping of variant name -> {gpu, set, mode}");
  no_duplicate_keys(file, vs, "variants");
  std::set<std::string> keys;
  for (const std::string& s : common) keys.insert(s.substr(0, s.find('=')));
  for (const auto& kv : vs) {
    Variant v;
    v.name = kv.first.as<std::string>();
    const std::string p = "variants." + printable(v.name);
    check_name(file, p, v.name);
    const YAML::Node n = kv.second.IsNull() ? YAML::Node(YAML::NodeType::Map) : kv.second;
    only_keys(file, n, p, {"gpu", "set", "mode", "description"});
    v.gpu = scalar(file, n, p, "gpu", gpu);
    v.mode = scalar(file, n, p, "mode", mode);
    if (v.mode != "timing" && v.mode != "functional")
      bad(file, p + ".mode", fmt::format("'{}' is not timing or functional", v.mode));
    v.sets = common;
    for (const std::string& s : str_list(file, n["set"], p + ".set")) {
      v.sets.push_back(s);
      keys.insert(s.substr(0, s.find('=')));
    }
    try {
      std::vector<std::string> all = v.sets;
      all.push_back("sim.mode=" + v.mode);
      resolve_config(v.gpu, all, nullptr, nullptr);
    } catch (const UserError& e) {
      bad(file, p, e.what());
    }
    x.variants.push_back(std::move(v));
  }
  x.config_keys.assign(keys.begin(), keys.end());
  x.baseline = scalar(file, root, "", "baseline", x.variants.front().name);
  if (std::none_of(x.variants.begin(), x.variants.end(),
                   [&](const Variant& v) { return v.name == x.baseline; }))
    bad(file, "baseline", fmt::format("'{}' is not one of the variants", x.baseline));

  // Workloads: suite workloads (by name or set) or arbitrary commands.
  struct W {
    std::string name;
    const Workload* suite = nullptr;
    std::vector<std::string> command;
    std::string cwd;
  };
  std::vector<W> ws;
  std::set<std::string> seen;
  const YAML::Node wl = root["workloads"];
  if (!wl || !wl.IsSequence() || wl.size() == 0) bad(file, "workloads", "missing or empty list");
  auto need_manifest = [&](const std::string& p) {
    if (!manifest) bad(file, p, "needs the workload manifest, which was not found");
  };
  for (size_t i = 0; i < wl.size(); ++i) {
    const std::string p = fmt::format("workloads[{}]", i);
    const YAML::Node n = wl[i];
    only_keys(file, n, p, {"workload", "set", "name", "command", "cwd"});
    if (n["workload"]) {
      need_manifest(p);
      const std::string name = scalar(file, n, p, "workload", "");
      const Workload* w = manifest->find(name);
      if (!w)
        bad(file, p + ".workload",
            fmt::format("no workload '{}' in {}", printable(name), manifest->path));
      check_name(file, p + ".workload", name);
      if (seen.insert(name).second) ws.push_back({name, w, {}, ""});
    } else if (n["set"]) {
      need_manifest(p);
      const std::string set = scalar(file, n, p, "set", "");
      if (!manifest->sets.count(set))
        bad(file, p + ".set", fmt::format("no set '{}' in {}", set, manifest->path));
      for (const auto& w : manifest->workloads)
        if (w.in_set(set) && seen.insert(w.name).second) {
          check_name(file, p + ".set", w.name);
          ws.push_back({w.name, &w, {}, ""});
        }
    } else if (n["command"]) {
      W w;
      w.name = scalar(file, n, p, "name", "");
      if (w.name.empty()) bad(file, p + ".name", "a command needs a name");
      check_name(file, p + ".name", w.name);
      w.command = str_list(file, n["command"], p + ".command");
      if (w.command.empty()) bad(file, p + ".command", "empty");
      w.cwd = scalar(file, n, p, "cwd", "");
      if (!w.cwd.empty()) {
        std::error_code ec;
        if (!fs::is_directory(w.cwd, ec))
          bad(file, p + ".cwd",
              fmt::format("'{}' {}{}", printable(w.cwd),
                          fs::exists(w.cwd, ec) ? "is not a directory" : "does not exist",
                          fs::path(w.cwd).is_relative()
                              ? fmt::format(" (relative to {}, where the sweep runs)",
                                            fs::current_path().string())
                              : ""));
      }
      const fs::path prog = fs::path(w.cwd.empty() ? "." : w.cwd) / w.command[0];
      if (w.command[0].find('/') != std::string::npos && access(prog.c_str(), X_OK) != 0)
        bad(file, p + ".command[0]", fmt::format("{} is not an executable file", prog.string()));
      if (!seen.insert(w.name).second)
        bad(file, p + ".name", fmt::format("workload name '{}' appears twice", w.name));
      ws.push_back(std::move(w));
    } else {
      bad(file, p, "needs one of: workload, set, command");
    }
  }
  for (const W& w : ws)
    if (w.suite) x.suite_workloads.push_back(w.suite);

  for (const W& w : ws)
    for (const Variant& v : x.variants)
      for (int r = 0; r < reps; ++r) {
        Run run;
        run.workload = w.name;
        run.variant = v.name;
        run.rep = r;
        run.id = w.name + "/" + v.name + (reps > 1 ? fmt::format(".r{}", r) : "");
        run.self_checking = w.suite != nullptr;
        run.cwd = w.cwd;
        run.argv = {self, "run", "--gpu", v.gpu, "--mode", v.mode};
        for (const auto& s : v.sets) run.argv.insert(run.argv.end(), {"--set", s});
        run.argv.insert(run.argv.end(), {"--no-progress", "--stats", "@RUNDIR@/stats.json", "--"});
        if (w.suite) {
          run.argv.push_back((fs::path(bin_dir) / w.suite->binary).string());
          const auto& args =
              scaled && !w.suite->scaled_args.empty() ? w.suite->scaled_args : w.suite->args;
          run.argv.insert(run.argv.end(), args.begin(), args.end());
        } else {
          run.argv.insert(run.argv.end(), w.command.begin(), w.command.end());
        }
        run.hash = hash_hex(join(run.argv, "\x1f") + "\x1e" + run.cwd);
        x.runs.push_back(std::move(run));
      }
  return x;
}

json plan_json(const Experiment& x) {
  json runs = json::array();
  for (const Run& r : x.runs)
    runs.push_back({{"id", r.id},
                    {"workload", r.workload},
                    {"variant", r.variant},
                    {"rep", r.rep},
                    {"self_checking", r.self_checking},
                    {"argv", r.argv},
                    {"cwd", r.cwd},
                    {"hash", r.hash}});
  json variants = json::array();
  for (const Variant& v : x.variants)
    variants.push_back({{"name", v.name}, {"gpu", v.gpu}, {"mode", v.mode}, {"set", v.sets}});
  return {{"experiment", x.name}, {"description", x.description}, {"baseline", x.baseline},
          {"timeout", x.timeout}, {"config_keys", x.config_keys}, {"variants", variants},
          {"runs", runs}};
}

/// Why a JSON parse stopped at byte `pos` (0-based) of a file of `size` bytes, in words;
/// `what` is the parser's message (an error at the end of the input means the file was cut).
std::string json_error_text(size_t pos, uintmax_t size, const std::string& what) {
  if (size == 0) return "empty file";
  if (pos + 1 >= size || what.find("end of input") != std::string::npos ||
      what.find("missing closing quote") != std::string::npos)
    return fmt::format("not valid JSON: it ends (at byte {}) in the middle of a value; truncated?",
                       size);
  return fmt::format("not valid JSON at byte {} of {}", pos, size);
}

/// A JSON file; on failure `*err` says why ("missing", "not valid JSON at byte ...", ...) and
/// the result is null. `*err` is "" on success.
json read_json(const fs::path& p, std::string* err = nullptr) {
  if (err) err->clear();
  std::error_code ec;
  std::ifstream f(p, std::ios::binary);
  if (!f) {
    if (err) *err = fs::exists(p, ec) ? "cannot be read" : "missing";
    return json();
  }
  try {
    return json::parse(f);
  } catch (const json::parse_error& e) {
    if (err) *err = json_error_text(e.byte ? e.byte - 1 : 0, fs::file_size(p, ec), e.what());
  } catch (const std::exception& e) {
    if (err) *err = fmt::format("cannot be read: {}", e.what());
  }
  return json();
}

/// The sweep's plan (OUT/plan.json) with every field the commands use checked; an error names
/// the file and the field. Run ids are `<workload>/<variant>[.r<rep>]` of valid names, so no
/// plan can make a run write outside OUT/runs.
json load_plan(const std::string& out) {
  const fs::path path = fs::path(out) / "plan.json";
  std::string err;
  const json plan = read_json(path, &err);
  if (err == "missing")
    fatal(
        "simtlab sweep: {} holds no sweep (no plan.json); run `simtlab sweep run EXP.yaml --out "
        "{}` first",
        out, out);
  auto fail = [&](const std::string& field, const std::string& what) {
    fatal("simtlab sweep: {}: {}: {}", path.string(), field, what);
  };
  if (!err.empty()) fatal("simtlab sweep: {}: {}", path.string(), err);
  if (!plan.is_object()) fail("(top level)", "not a JSON object");
  for (const char* k : {"experiment", "description", "baseline"})
    if (plan.contains(k) && !plan[k].is_string()) fail(k, "not a string");
  if (plan.contains("timeout") && !plan["timeout"].is_number()) fail("timeout", "not a number");
  if (plan.contains("config_keys")) {
    const json& ck = plan["config_keys"];
    if (!ck.is_array() ||
        !std::all_of(ck.begin(), ck.end(), [](const json& v) { return v.is_string(); }))
      fail("config_keys", "not a list of strings");
  }
  if (!plan.contains("runs") || !plan["runs"].is_array()) fail("runs", "missing or not a list");
  std::set<std::string> ids;
  for (size_t i = 0; i < plan["runs"].size(); ++i) {
    const json& r = plan["runs"][i];
    const std::string w = fmt::format("runs[{}]", i);
    if (!r.is_object()) fail(w, "not an object");
    for (const char* k : {"id", "workload", "variant", "cwd", "hash"})
      if (!r.contains(k) || !r[k].is_string()) fail(w + "." + k, "missing or not a string");
    if (!r.contains("rep") || !r["rep"].is_number_integer() || r["rep"].get<int64_t>() < 0)
      fail(w + ".rep", "missing or not a non-negative integer");
    if (!r.contains("self_checking") || !r["self_checking"].is_boolean())
      fail(w + ".self_checking", "missing or not true/false");
    const json& argv = r.contains("argv") ? r["argv"] : json();
    if (!argv.is_array() || argv.empty() ||
        !std::all_of(argv.begin(), argv.end(), [](const json& v) { return v.is_string(); }))
      fail(w + ".argv", "missing or not a non-empty list of strings");
    for (const char* k : {"workload", "variant"})
      if (const std::string why = name_problem(r[k].get<std::string>()); !why.empty())
        fail(w + "." + k, why);
    const std::string id = r["id"].get<std::string>();
    const std::string base =
        r["workload"].get<std::string>() + "/" + r["variant"].get<std::string>();
    if (id != base && id != fmt::format("{}.r{}", base, r["rep"].get<int64_t>()))
      fail(w + ".id",
           fmt::format("'{}' is not {}[.r{}]", printable(id), base, r["rep"].get<int64_t>()));
    if (!ids.insert(id).second) fail(w + ".id", fmt::format("'{}' appears twice", id));
  }
  return plan;
}

fs::path run_dir(const std::string& out, const std::string& id) {
  return fs::path(out) / "runs" / id;
}

/// Size and modification time of a file: {"bytes": N, "mtime_ns": T}, null when it is missing.
json file_stamp(const fs::path& p) {
  struct stat sb {};
  if (stat(p.c_str(), &sb) != 0) return json();
  return {{"bytes", uint64_t(sb.st_size)},
          {"mtime_ns", int64_t(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec}};
}

/// Checks a stats file (`simtlab run --stats`) without building it in memory: valid JSON, with
/// the "simtlab" header, a "kernels" list and as many entries in it as totals.launches says.
class StatsCheck : public nlohmann::json_sax<json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return number(v); }
  bool number_unsigned(number_unsigned_t v) override { return number(int64_t(v)); }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (depth_ == 0) root_object_ = true;
    if (depth_ == 2 && in_kernels_) ++kernels_;
    ++depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      k1_ = k;
      header_ = header_ || k == "simtlab";
    } else if (depth_ == 2) {
      k2_ = k;
    }
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 1 && k1_ == "kernels") in_kernels_ = has_kernels_ = true;
    ++depth_;
    return true;
  }
  bool end_array() override {
    if (--depth_ == 1) in_kernels_ = false;
    return true;
  }
  bool parse_error(std::size_t pos, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    error_pos_ = pos ? pos - 1 : 0;
    error_what_ = ex.what();
    return false;
  }
  /// "" when the file is complete, else why not.
  static std::string check(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::error_code ec;
    if (!f) return fs::exists(p, ec) ? "stats.json cannot be read" : "stats.json is missing";
    StatsCheck c;
    const bool ok = json::sax_parse(f, &c);
    if (!ok)
      return "stats.json: " + json_error_text(c.error_pos_, fs::file_size(p, ec), c.error_what_);
    if (!c.root_object_) return "stats.json is not a JSON object";
    if (!c.header_) return "stats.json has no \"simtlab\" header (not written by simtlab run)";
    if (!c.has_kernels_) return "stats.json has no \"kernels\" list";
    if (c.launches_ < 0) return "stats.json has no totals.launches";
    if (uint64_t(c.launches_) != c.kernels_)
      return fmt::format("stats.json has {} kernel entr{} but totals.launches says {}", c.kernels_,
                         c.kernels_ == 1 ? "y" : "ies", c.launches_);
    return {};
  }

 private:
  bool number(int64_t v) {
    if (depth_ == 2 && k1_ == "totals" && k2_ == "launches") launches_ = v;
    return true;
  }
  int depth_ = 0;
  std::string k1_, k2_;
  bool root_object_ = false, header_ = false, in_kernels_ = false, has_kernels_ = false;
  uint64_t kernels_ = 0;
  int64_t launches_ = -1;
  size_t error_pos_ = 0;
  std::string error_what_;
};

/// Why a passed run's stats.json is not usable, or "" when it is. `rec` is the file's stamp as
/// `sweep exec` recorded it after checking it (null: the run wrote none); a file with that
/// size and time is taken as checked, any other is checked again. A run without a stats file
/// passes only when it recorded none and is not a suite workload (a command that never
/// started the simulator, e.g. a shell script without CUDA).
std::string stats_problem(const fs::path& dir, const json& rec, bool self_checking) {
  const fs::path p = dir / "stats.json";
  const json now = file_stamp(p);
  if (now.is_null()) {
    if (rec.is_object())
      return fmt::format("stats.json is missing (the run wrote {} bytes)", rec.value("bytes", 0));
    return self_checking ? "the run wrote no stats.json" : "";
  }
  if (rec.is_object() && rec == now) return {};
  if (rec.is_object() && rec["bytes"] != now["bytes"]) {
    const std::string why = StatsCheck::check(p);
    return why.empty() ? why
                       : fmt::format("{} (the run wrote {} bytes, it now has {})", why,
                                     rec["bytes"].get<uint64_t>(), now["bytes"].get<uint64_t>());
  }
  return StatsCheck::check(p);
}

/// Why a status.json (parsed) is not one `sweep exec` writes, or "" when it is.
std::string status_problem(const json& st) {
  if (!st.is_object()) return "not a JSON object";
  if (!st.contains("status") || !st["status"].is_string()) return "field 'status' is missing";
  const std::string s = st["status"].get<std::string>();
  if (s != "passed" && s != "failed" && s != "timeout" && s != "corrupt")
    return fmt::format("field 'status' is '{}'", printable(s));
  if (!st.contains("plan_hash") || !st["plan_hash"].is_string())
    return "field 'plan_hash' is missing";
  for (const char* k : {"attempt", "exit_code"})
    if (st.contains(k) && !st[k].is_number_integer())
      return fmt::format("field '{}' is not an integer", k);
  if (st.contains("wall_seconds") && !st["wall_seconds"].is_number())
    return "field 'wall_seconds' is not a number";
  for (const char* k : {"reason", "stderr_tail"})
    if (st.contains(k) && !st[k].is_string()) return fmt::format("field '{}' is not a string", k);
  if (st.contains("stats") && !st["stats"].is_null()) {
    const json& r = st["stats"];
    if (!r.is_object() || !r.contains("bytes") || !r["bytes"].is_number_unsigned() ||
        !r.contains("mtime_ns") || !r["mtime_ns"].is_number_integer())
      return "field 'stats' is not {bytes, mtime_ns}";
  }
  return {};
}

/// The state of a run: "passed"; "failed" or "timeout" (as its status.json says); "corrupt"
/// (its status.json, or a passed run's stats.json, is unreadable or incomplete: the reason says
/// which and why); "pending" (no status.json, or one for another command). `*status` gets the
/// status.json (with status and reason replaced for a corrupt run; null when there is none).
/// `check_stats` false skips the stats check (a cheap progress count).
std::string run_state(const std::string& out, const json& run, json* status = nullptr,
                      bool check_stats = true) {
  const fs::path dir = run_dir(out, run["id"].get<std::string>());
  std::string err;
  json st = read_json(dir / "status.json", &err);
  auto corrupt = [&](const std::string& why) {
    if (status) *status = {{"status", "corrupt"}, {"reason", why}};
    return std::string("corrupt");
  };
  if (err == "missing") {
    if (status) *status = json();
    return "pending";
  }
  if (!err.empty()) return corrupt("status.json: " + err);
  if (const std::string why = status_problem(st); !why.empty())
    return corrupt("status.json: " + why);
  if (status) *status = st;
  if (st["plan_hash"] != run["hash"]) return "pending";
  const std::string state = st["status"].get<std::string>();
  if (state == "passed" && check_stats) {
    const std::string why =
        stats_problem(dir, st.value("stats", json()), run["self_checking"].get<bool>());
    if (!why.empty()) {
      if (status) {
        (*status)["status"] = "corrupt";
        (*status)["reason"] = "corrupt stats: " + why;
      }
      return "corrupt";
    }
  }
  return state;
}

/// Set by SIGINT, SIGTERM and SIGHUP in `sweep exec` (the signal's number).
volatile sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int sig) { g_stop = sig; }
/// The run's process group (its command's pid) once started. Its group is not the terminal's,
/// so `sweep exec` passes job control on: stopped (Ctrl-Z) and continued with it.
volatile sig_atomic_t g_group = 0;
extern "C" void on_tstp(int) {
  if (g_group) kill(-pid_t(g_group), SIGSTOP);
  raise(SIGSTOP);
}
extern "C" void on_cont(int) {
  if (g_group) kill(-pid_t(g_group), SIGCONT);
}

/// `sweep exec`: one run, start to status.json. With `parent` (the local backend passes its
/// pid) the process ends when that parent does, SIGKILL included. One execution of a run at a
/// time: OUT/runs/<id>/.lock is held (flock) by this process and, inherited, by everything it
/// starts; a second execution waits for it. The run's command leads a process group of its own:
/// a signal to `sweep exec` is passed on to the whole group, and whatever the command leaves
/// running in it is killed when the command ends.
int exec_run(const std::string& out, const std::string& id, int attempt, pid_t parent) {
  if (parent > 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) return 128 + SIGTERM;  // the parent died before prctl
  }
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  sa.sa_handler = on_tstp;
  sigaction(SIGTSTP, &sa, nullptr);
  sa.sa_handler = on_cont;
  sigaction(SIGCONT, &sa, nullptr);
  const json plan = load_plan(out);
  const json* run = nullptr;
  for (const json& r : plan["runs"])
    if (r["id"] == id) run = &r;
  if (!run) fatal("simtlab sweep exec: no run '{}' in {}/plan.json", printable(id), out);
  const fs::path dir = run_dir(out, id);
  fs::create_directories(dir);
  FileLock lock;
  std::string holder;
  if (!lock.try_lock((dir / ".lock").string(), /*inherit=*/true, &holder)) {
    std::fprintf(stderr,
                 "simtlab sweep exec: %s is still being executed by %s (or a process it "
                 "started); waiting for it to end\n",
                 id.c_str(), holder.c_str());
    while (!lock.try_lock((dir / ".lock").string(), true, nullptr)) {
      if (g_stop) return 128 + g_stop;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (run_state(out, *run) == "passed") {
      std::fprintf(stderr,
                   "simtlab sweep exec: %s passed in that execution; not running it again\n",
                   id.c_str());
      return 0;
    }
  }
  if (g_stop) return 128 + g_stop;
  std::error_code ec;
  for (const char* f : {"status.json", "stats.json"}) fs::remove(dir / f, ec);
  std::vector<std::string> argv;
  for (const json& a : (*run)["argv"]) {
    std::string s = a.get<std::string>();
    if (const size_t at = s.find("@RUNDIR@"); at != std::string::npos)
      s.replace(at, 8, fs::absolute(dir).string());
    argv.push_back(s);
  }
  write_file_atomic((dir / "command.txt").string(), join(argv, " ") + "\n");
  const std::string cwd = (*run)["cwd"].get<std::string>();
  json s;
  s["plan_hash"] = (*run)["hash"];
  s["attempt"] = attempt;
  if (!cwd.empty() && !fs::is_directory(cwd, ec)) {
    s.update({{"status", "failed"},
              {"exit_code", -1},
              {"wall_seconds", 0.0},
              {"reason", fmt::format("the working directory '{}' does not exist (relative to {})",
                                     cwd, fs::current_path().string())},
              {"stderr_tail", ""}});
    write_file_atomic((dir / "status.json").string(), s.dump(2) + "\n");
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  {
    // The child starts in the run's cwd; our own paths are absolute by now.
    const fs::path here = fs::current_path();
    if (!cwd.empty()) fs::current_path(cwd);
    pid = spawn(argv, fs::absolute(here / dir / "stdout.txt").string(),
                fs::absolute(here / dir / "stderr.txt").string(), /*own_group=*/true);
    g_group = pid;
    if (!cwd.empty()) fs::current_path(here);
  }
  const double timeout = plan.value("timeout", 0.0);
  int st = 0;
  bool timed_out = false;
  int stopping = 0;
  std::chrono::steady_clock::time_point stop_t;
  for (;;) {
    // Wait without reaping: while the command is a zombie its process group id stays ours.
    siginfo_t info{};
    if (waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
      break;
    const auto now = std::chrono::steady_clock::now();
    const double el = std::chrono::duration<double>(now - t0).count();
    if (g_stop && !stopping) {
      stopping = g_stop;
      stop_t = now;
      kill(-pid, stopping == SIGHUP ? SIGTERM : stopping);
    }
    if (stopping && now - stop_t > std::chrono::seconds(10)) kill(-pid, SIGKILL);
    if (timeout > 0 && el > timeout && !timed_out) {
      kill(-pid, SIGTERM);  // simtlab still writes the stats of the interrupted kernel
      timed_out = true;
    }
    if (timed_out && el > timeout + 30) kill(-pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  g_group = 0;
  kill(-pid, SIGKILL);  // what the command left running in its group ends with it
  waitpid(pid, &st, 0);
  if (stopping) {
    std::fprintf(stderr, "simtlab sweep exec: %s stopped by %s; no status written\n", id.c_str(),
                 strsignal(stopping));
    return 128 + stopping;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s["wall_seconds"] = wall;
  s["exit_code"] = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  const std::string last = last_line((dir / "stdout.txt").string());
  std::string status = "passed", reason;
  if (timed_out) {
    status = "timeout";
    reason = fmt::format("stopped after {:.0f} s (timeout)", timeout);
  } else if (WIFSIGNALED(st)) {
    status = "failed";
    reason = fmt::format("killed by signal {} ({})", WTERMSIG(st), strsignal(WTERMSIG(st)));
  } else if (WEXITSTATUS(st) != 0) {
    status = "failed";
    reason = fmt::format("exit code {}", WEXITSTATUS(st));
  } else if ((*run)["self_checking"].get<bool>() && last != "PASSED") {
    status = "failed";
    reason = "the program did not print PASSED";
  }
  if (status != "passed" && !last.empty()) reason += ": " + last;
  // A passed run's stats must be complete: the resume redoes it otherwise.
  json stamp;
  if (status == "passed") {
    const fs::path sp = dir / "stats.json";
    stamp = file_stamp(sp);
    const std::string why =
        stamp.is_null() ? ((*run)["self_checking"].get<bool>() ? "the run wrote no stats.json" : "")
                        : StatsCheck::check(sp);
    if (!why.empty()) {
      status = "corrupt";
      reason = "corrupt stats: " + why;
      stamp = json();
    }
  }
  s["status"] = status;
  s["reason"] = reason;
  s["stats"] = stamp;
  s["stderr_tail"] = status == "passed" ? "" : tail_lines((dir / "stderr.txt").string(), 10);
  write_file_atomic((dir / "status.json").string(), s.dump(2) + "\n");
  return status == "passed" ? 0 : 1;
}

struct Counts {
  size_t passed = 0, failed = 0, corrupt = 0, pending = 0;
};

/// The local backend: `simtlab sweep exec` children, `jobs` at a time; a failed run is tried
/// once more. Returns the number of runs that did not pass.
size_t run_local(const std::string& out, const json& plan, const std::vector<std::string>& todo,
                 unsigned jobs, const std::string& self) {
  struct Job {
    std::string id;
    int attempt;
    pid_t pid;
    std::chrono::steady_clock::time_point t0;
  };
  std::deque<std::pair<std::string, int>> queue;
  for (const auto& id : todo) queue.push_back({id, 1});
  std::vector<Job> running;
  const size_t total = todo.size();
  size_t done = 0, failed = 0;
  double busy = 0;
  const auto start = std::chrono::steady_clock::now();
  const fs::path logs = fs::path(out) / "logs";
  fs::create_directories(logs);
  while (!queue.empty() || !running.empty()) {
    while (running.size() < jobs && !queue.empty()) {
      auto [id, attempt] = queue.front();
      queue.pop_front();
      std::string flat = id;
      std::replace(flat.begin(), flat.end(), '/', '~');
      const std::string log = (logs / (flat + ".log")).string();
      running.push_back({id, attempt,
                         spawn({self, "sweep", "exec", out, "--run", id, "--attempt",
                                std::to_string(attempt), "--parent", std::to_string(getpid())},
                               log, log),
                         std::chrono::steady_clock::now()});
    }
    int st = 0;
    const pid_t pid = waitpid(-1, &st, 0);
    if (pid < 0) break;
    auto it =
        std::find_if(running.begin(), running.end(), [&](const Job& j) { return j.pid == pid; });
    if (it == running.end()) continue;
    const Job j = *it;
    running.erase(it);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - j.t0).count();
    json status;
    const json* run = nullptr;
    for (const json& r : plan["runs"])
      if (r["id"] == j.id) run = &r;
    const std::string state = run ? run_state(out, *run, &status) : "failed";
    if (state != "passed" && j.attempt == 1) {
      std::fprintf(stderr, "simtlab sweep: %s %s (%s); trying it once more\n", j.id.c_str(),
                   state.c_str(), status.value("reason", std::string("no status written")).c_str());
      queue.push_back({j.id, 2});
      continue;
    }
    ++done;
    busy += wall;
    if (state != "passed") {
      ++failed;
      std::fprintf(stderr, "simtlab sweep: %s %s after 2 attempts: %s\n%s\n", j.id.c_str(),
                   state.c_str(), status.value("reason", std::string("no status written")).c_str(),
                   status.value("stderr_tail", std::string()).c_str());
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double eta = busy / double(done) * double(total - done) / double(jobs);
    std::fprintf(stderr, "[%zu/%zu] %zu failed, %zu running | %-34s %6.1fs | elapsed %s, ETA %s\n",
                 done, total, failed, running.size(), j.id.c_str(), wall, fmt_secs(elapsed).c_str(),
                 fmt_secs(eta).c_str());
  }
  return failed;
}

/// Run a command, capturing its stdout; returns the exit status (-1 if it could not start).
int capture(const std::vector<std::string>& argv, std::string* out) {
  char tmpl[] = "/tmp/simtlab-sweep-XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) return -1;
  close(fd);
  int st = 0;
  try {
    const pid_t pid = spawn(argv, tmpl, std::string(tmpl) + ".err");
    waitpid(pid, &st, 0);
  } catch (const UserError&) {
    std::remove(tmpl);
    return -1;
  }
  std::ifstream f(tmpl);
  std::stringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  std::ifstream e(std::string(tmpl) + ".err");
  std::stringstream es;
  es << e.rdbuf();
  if (!es.str().empty()) *out += es.str();
  std::remove(tmpl);
  std::remove((std::string(tmpl) + ".err").c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/// The Slurm backend: one job array per attempt, a task per run, each task running
/// `simtlab sweep exec OUT --run ID`; the job's progress from `squeue` while it is queued or
/// running and from the runs' status.json files; `sacct`, where accounting is configured,
/// names the Slurm state of a task that died without writing its status. Runs that did not pass are
/// submitted once more. Returns the number of runs that did not pass. Nothing Slurm-specific is
/// written outside OUT/slurm.
size_t run_slurm(const std::string& out, const json& plan, std::vector<std::string> todo,
                 const SlurmOptions& so, const std::string& name, const std::string& self) {
  const std::string sbatch = find_tool("sbatch", "SBATCH"), squeue = find_tool("squeue", "SQUEUE");
  if (sbatch.empty() || squeue.empty())
    fatal("simtlab sweep: --backend slurm needs sbatch and squeue on PATH");
  const fs::path dir = fs::absolute(fs::path(out) / "slurm");
  fs::create_directories(dir);
  const std::string abs_out = fs::absolute(out).string();
  const auto start = std::chrono::steady_clock::now();
  const size_t total = todo.size();
  for (int attempt = 1; attempt <= 2 && !todo.empty(); ++attempt) {
    const std::string tasks = (dir / fmt::format("attempt{}.tasks", attempt)).string();
    write_file_atomic(tasks, join(todo, "\n") + "\n");
    std::string sh = "#!/bin/bash\n";
    sh += fmt::format("#SBATCH --job-name=simtlab-{}\n", name);
    sh += fmt::format("#SBATCH --array=0-{}{}\n", todo.size() - 1,
                      so.max_parallel ? fmt::format("%{}", so.max_parallel) : "");
    sh += fmt::format("#SBATCH --output={}/attempt{}_%a.log\n", dir.string(), attempt);
    sh += fmt::format("#SBATCH --cpus-per-task={}\n#SBATCH --mem={}\n#SBATCH --time={}\n",
                      so.cpus_per_task, so.mem, so.time);
    if (!so.partition.empty()) sh += fmt::format("#SBATCH --partition={}\n", so.partition);
    if (!so.account.empty()) sh += fmt::format("#SBATCH --account={}\n", so.account);
    for (const auto& e : so.extra) sh += "#SBATCH " + e + "\n";
    sh += fmt::format("cd '{}'\n", fs::current_path().string());
    sh += fmt::format("id=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" '{}')\n", tasks);
    sh += fmt::format("exec '{}' sweep exec '{}' --run \"$id\" --attempt {}\n", self, abs_out,
                      attempt);
    const std::string script = (dir / fmt::format("attempt{}.sh", attempt)).string();
    write_file_atomic(script, sh);
    std::string reply;
    const int rc = capture({sbatch, "--parsable", script}, &reply);
    const std::string jid = reply.substr(0, reply.find_first_of(";\n"));
    if (rc != 0 || jid.empty() || jid.find_first_not_of("0123456789") != std::string::npos)
      fatal("simtlab sweep: sbatch {} failed (exit {}): {}", script, rc, reply);
    std::fprintf(stderr, "simtlab sweep: submitted Slurm job array %s (%zu tasks, attempt %d)\n",
                 jid.c_str(), todo.size(), attempt);
    size_t last_done = SIZE_MAX;
    for (;;) {
      std::string q;
      const int qrc = capture({squeue, "-h", "-j", jid, "-r", "-o", "%i %T"}, &q);
      size_t queued = 0;
      std::istringstream is(q);
      std::string line;
      while (std::getline(is, line))
        if (!line.empty() && line.find("Invalid job id") == std::string::npos) ++queued;
      if (qrc != 0 && q.find("Invalid job id") == std::string::npos)
        fatal("simtlab sweep: squeue failed (exit {}): {}", qrc, q);
      size_t done = 0, failed = 0;
      for (const json& r : plan["runs"]) {
        if (std::find(todo.begin(), todo.end(), r["id"].get<std::string>()) == todo.end()) continue;
        const std::string st = run_state(out, r, nullptr, /*check_stats=*/false);
        if (st != "pending") ++done;
        if (st != "pending" && st != "passed") ++failed;
      }
      if (done != last_done) {
        const double el =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string eta =
            done ? fmt_secs(el / double(done) * double(todo.size() - done)) : std::string("?");
        std::fprintf(stderr,
                     "[%zu/%zu] %zu failed, %zu queued or running (attempt %d) | elapsed %s, "
                     "ETA %s\n",
                     done, todo.size(), failed, queued, attempt, fmt_secs(el).c_str(), eta.c_str());
        last_done = done;
      }
      if (queued == 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    // Slurm's own verdict on tasks that wrote no status (TIMEOUT, OUT_OF_MEMORY, NODE_FAIL,
    // ...), when accounting is there to ask (sacct needs slurmdbd; status.json is what counts).
    std::map<size_t, std::string> slurm_state;
    if (const std::string sacct = find_tool("sacct", "SACCT"); !sacct.empty()) {
      std::string acc;
      if (capture({sacct, "-n", "-P", "-X", "-j", jid, "-o", "JobID,State"}, &acc) == 0) {
        std::istringstream is(acc);
        std::string line;
        while (std::getline(is, line)) {
          const size_t us = line.find('_'), bar = line.find('|');
          if (us == std::string::npos || bar == std::string::npos || bar < us) continue;
          const std::string task = line.substr(us + 1, bar - us - 1);
          if (!task.empty() && task.find_first_not_of("0123456789") == std::string::npos)
            slurm_state[std::stoul(task)] = line.substr(bar + 1);
        }
      }
    }
    std::vector<std::string> again;
    for (const auto& id : todo) {
      const json* run = nullptr;
      for (const json& r : plan["runs"])
        if (r["id"] == id) run = &r;
      json st;
      const std::string state = run ? run_state(out, *run, &st) : "pending";
      if (state == "passed") continue;
      again.push_back(id);
      const size_t idx = size_t(&id - todo.data());
      const std::string why =
          state == "pending"
              ? fmt::format("the task wrote no status{} (see {}/attempt{}_{}.log)",
                            slurm_state.count(idx) ? "; Slurm says " + slurm_state[idx] : "",
                            dir.string(), attempt, idx)
              : st.value("reason", "");
      if (attempt == 1)
        std::fprintf(stderr, "simtlab sweep: %s %s (%s); trying it once more\n", id.c_str(),
                     state.c_str(), why.c_str());
      else
        std::fprintf(stderr, "simtlab sweep: %s %s after 2 attempts: %s\n%s\n", id.c_str(),
                     state.c_str(), why.c_str(), st.value("stderr_tail", std::string()).c_str());
    }
    todo = std::move(again);
  }
  (void)total;
  return todo.size();
}

/// A JSON scalar as a CSV field.
std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return num(v.get<double>());
  return v.is_null() ? "" : v.dump();
}

/// Every scalar of a stats tree, by dotted path, skipping per-instance subtrees (sm[3],
/// dram[0], partition[1], ...) whose sums are in *_total; a stat node gives its value/total.
void flatten_stats(const json& node, const std::string& path, std::map<std::string, double>& out) {
  if (!node.is_object()) {
    if (node.is_number()) out[path] = node.get<double>();
    return;
  }
  for (const char* k : {"value", "total"})
    if (node.contains(k) && node[k].is_number()) {
      out[path] = node[k].get<double>();
      // A vector stat (stall reasons, instruction classes): each named value too.
      if (node.contains("values") && node["values"].is_object())
        for (const auto& [vk, vv] : node["values"].items())
          if (vv.is_number()) out[path + "." + vk] = vv.get<double>();
      return;
    }
  for (const auto& [k, v] : node.items()) {
    if (k.find('[') != std::string::npos || k == "desc" || k == "unit" || k == "formula") continue;
    flatten_stats(v, path.empty() ? k : path + "." + k, out);
  }
}

const json* config_value(const json& values, const std::string& key) {
  const json* cur = &values;
  size_t b = 0;
  while (b <= key.size()) {
    size_t e = key.find('.', b);
    if (e == std::string::npos) e = key.size();
    const std::string k = key.substr(b, e - b);
    if (!cur->is_object() || !cur->contains(k)) return nullptr;
    cur = &(*cur)[k];
    b = e + 1;
  }
  return cur;
}

/// `sweep collect`: one row per run x kernel launch (a failed run without stats: one row with
/// its status), config columns for every overridden key, then every scalar stat (sorted), then
/// the host-time columns (the only ones that differ between two runs of the same sweep).
// Columns: experiment, workload, variant, baseline (1/0), rep, run_status, preset,
// config_hash, cfg:<key> ..., kernel, kernel_base, launch, kernel_status, grid, block,
// regs_per_thread, shared_bytes, ctas_per_sm, cycles, warp_insts, thread_insts,
// stat:<dotted path> ..., host_run_seconds, host_kernel_seconds.
size_t collect(const std::string& out, const std::string& csv_path) {
  const json plan = load_plan(out);
  std::vector<std::string> keys;
  for (const json& k : plan.value("config_keys", json::array()))
    keys.push_back(k.get<std::string>());
  struct Row {
    std::vector<std::string> fixed;
    std::map<std::string, double> stats;
    std::string host_run, host_kernel;
  };
  std::vector<Row> rows;
  std::set<std::string> stat_names;
  for (const json& r : plan["runs"]) {
    json status;
    std::string state = run_state(out, r, &status);
    const fs::path stats_path = run_dir(out, r["id"].get<std::string>()) / "stats.json";
    std::string err;
    json stats = read_json(stats_path, &err);
    auto base_row = [&] {
      return std::vector<std::string>{plan.value("experiment", ""),
                                      r["workload"].get<std::string>(),
                                      r["variant"].get<std::string>(),
                                      r["variant"] == plan.value("baseline", "") ? "1" : "0",
                                      std::to_string(r["rep"].get<int64_t>()),
                                      state};
    };
    const std::string host_run = status.is_object() && status.contains("wall_seconds")
                                     ? num(status["wall_seconds"].get<double>())
                                     : "";
    // The run's kernel rows; a stats file that does not parse, or has a field of the wrong
    // type, makes the run `corrupt` (one row without kernel columns, and a warning naming the
    // file and the field), never a row of empty or partial numbers passed off as complete.
    std::vector<Row> mine;
    try {
      if (!err.empty() && err != "missing") throw UserError(err);
      if (!stats.is_null() && !stats.is_object()) throw UserError("not a JSON object");
      auto field = [](const json& o, const std::string& where, const char* k, json::value_t t,
                      const json& def) -> json {
        if (!o.is_object() || !o.contains(k) || o[k].is_null()) return def;
        const json& v = o[k];
        const bool ok = t == json::value_t::number_unsigned  ? v.is_number_unsigned()
                        : t == json::value_t::number_integer ? v.is_number_integer()
                        : t == json::value_t::string         ? v.is_string()
                        : t == json::value_t::object         ? v.is_object()
                        : t == json::value_t::array          ? v.is_array()
                                                             : true;
        if (!ok)
          throw UserError(fmt::format("{}{}: not {}", where.empty() ? "" : where + ".", k,
                                      t == json::value_t::string   ? "a string"
                                      : t == json::value_t::object ? "an object"
                                      : t == json::value_t::array  ? "a list"
                                                                   : "an integer"));
        return v;
      };
      using vt = json::value_t;
      const json cfg = field(stats, "", "config", vt::object, json::object());
      const std::string preset = field(cfg, "config", "preset", vt::string, "").get<std::string>();
      const std::string hash = field(cfg, "config", "hash", vt::string, "").get<std::string>();
      std::vector<std::string> base = base_row();
      base.push_back(preset);
      base.push_back(hash);
      for (const auto& k : keys) {
        const json* v = cfg.contains("values") ? config_value(cfg["values"], k) : nullptr;
        base.push_back(v ? scalar_text(*v) : "");
      }
      const json kernels = field(stats, "", "kernels", vt::array, json::array());
      const json host_obj = field(stats, "", "host", vt::object, json::object());
      const json host = field(host_obj, "host", "kernels", vt::array, json::array());
      if (state == "passed" && stats.is_object()) {
        const json totals = field(stats, "", "totals", vt::object, json::object());
        const json launches = field(totals, "totals", "launches", vt::number_unsigned, json());
        if (!launches.is_null() && launches.get<uint64_t>() != kernels.size())
          throw UserError(fmt::format("{} kernel entries but totals.launches says {}",
                                      kernels.size(), launches.get<uint64_t>()));
      }
      for (size_t ki = 0; ki < kernels.size(); ++ki) {
        const json& k = kernels[ki];
        const std::string where = fmt::format("kernels[{}]", ki);
        if (!k.is_object()) throw UserError(where + ": not an object");
        auto u64 = [&](const char* key) {
          return field(k, where, key, vt::number_unsigned, 0).get<uint64_t>();
        };
        auto dims = [&](const char* key) {
          const json d = field(k, where, key, vt::array, json::array());
          if (d.empty()) return std::string();
          if (d.size() != 3 || !std::all_of(d.begin(), d.end(),
                                            [](const json& v) { return v.is_number_unsigned(); }))
            throw UserError(fmt::format("{}.{}: not three unsigned integers", where, key));
          return fmt::format("{}x{}x{}", d[0].get<uint64_t>(), d[1].get<uint64_t>(),
                             d[2].get<uint64_t>());
        };
        Row row;
        row.fixed = base;
        const std::string sym = field(k, where, "name", vt::string, "").get<std::string>();
        const json occ = field(k, where, "occupancy", vt::object, json::object());
        row.fixed.insert(row.fixed.end(),
                         {sym, kernel_base_name(sym), std::to_string(u64("index")),
                          field(k, where, "status", vt::string, "").get<std::string>(),
                          dims("grid"), dims("block"), std::to_string(u64("regs_per_thread")),
                          std::to_string(u64("static_shared_bytes") + u64("dynamic_shared_bytes")),
                          occ.contains("ctas_per_sm") ? scalar_text(occ["ctas_per_sm"]) : "",
                          std::to_string(u64("cycles")), std::to_string(u64("warp_insts")),
                          std::to_string(u64("thread_insts"))});
        const json kst = field(k, where, "stats", vt::object, json::object());
        if (kst.contains("gpu")) flatten_stats(kst["gpu"], "", row.stats);
        row.host_run = host_run;
        row.host_kernel =
            ki < host.size() && host[ki].is_object() && host[ki].contains("wall_seconds")
                ? scalar_text(host[ki]["wall_seconds"])
                : "";
        mine.push_back(std::move(row));
      }
      if (mine.empty()) {
        Row row;
        row.fixed = base;
        row.fixed.resize(base.size() + 12);
        row.host_run = host_run;
        mine.push_back(std::move(row));
      }
    } catch (const UserError& e) {
      if (state == "passed" || state == "corrupt") {
        state = "corrupt";
        std::fprintf(stderr, "simtlab sweep: warning: %s: %s; run %s counts as corrupt\n",
                     stats_path.string().c_str(), e.what(), r["id"].get<std::string>().c_str());
      }
      mine.clear();
      Row row;
      row.fixed = base_row();
      row.fixed.resize(row.fixed.size() + 2 + keys.size() + 12);
      row.host_run = host_run;
      mine.push_back(std::move(row));
    }
    for (Row& row : mine) {
      for (const auto& [n, v] : row.stats) stat_names.insert(n);
      rows.push_back(std::move(row));
    }
  }
  std::ostringstream csv;
  std::vector<std::string> header = {"experiment", "workload",   "variant", "baseline",
                                     "rep",        "run_status", "preset",  "config_hash"};
  for (const auto& k : keys) header.push_back("cfg:" + k);
  for (const char* h :
       {"kernel", "kernel_base", "launch", "kernel_status", "grid", "block", "regs_per_thread",
        "shared_bytes", "ctas_per_sm", "cycles", "warp_insts", "thread_insts"})
    header.push_back(h);
  for (const auto& n : stat_names) header.push_back("stat:" + n);
  header.insert(header.end(), {"host_run_seconds", "host_kernel_seconds"});
  for (size_t i = 0; i < header.size(); ++i) csv << (i ? "," : "") << csv_field(header[i]);
  csv << "\n";
  for (const Row& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.fixed.size(); ++i) line += (i ? "," : "") + csv_field(row.fixed[i]);
    for (const auto& n : stat_names) {
      auto it = row.stats.find(n);
      line += "," + (it == row.stats.end() ? std::string() : num(it->second));
    }
    line += "," + row.host_run + "," + row.host_kernel;
    csv << line << "\n";
  }
  write_file_atomic(csv_path, csv.str());
  return rows.size();
}

/// --out must be a sweep's directory (it has plan.json), a new or empty directory, or (with
/// --force-out) anything: a sweep writes runs/, logs/, results.csv, ... into it, and a mistyped
/// --out must not mix those with unrelated files. A directory holding only the lock file of a
/// sweep that stopped before writing its plan counts as empty.
void check_out_target(const std::string& out, bool force) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec)) fatal("simtlab sweep: --out {} is not a directory", out);
  if (fs::exists(fs::path(out) / "plan.json", ec) || force) return;
  for (const auto& e : fs::directory_iterator(out, ec)) {
    const std::string n = e.path().filename().string();
    if (n == ".lock" || n == "plan.json.tmp") continue;
    fatal(
        "simtlab sweep: --out {} is a non-empty directory that holds no sweep (no plan.json; it "
        "has '{}'); give an empty or new directory, or --force-out to use it anyway",
        out, printable(n));
  }
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  static std::string file, out, manifest, bin_dir, backend = "local", run_id, csv;
  static unsigned jobs = 1;
  static int attempt = 1;
  static bool no_build = false, dry_run = false, force_out = false;
  static pid_t parent = 0;
  auto* sweep = app.add_subcommand(
      "sweep", "Design-space sweeps: workloads x variants from an experiment file, resumable");
  sweep->require_subcommand(1);
  auto default_out = [](const std::string& exp_name) {
    return out.empty() ? (fs::path("sweeps") / exp_name).string() : out;
  };
  auto self = [] {
    std::error_code ec;
    return fs::read_symlink("/proc/self/exe", ec).string();
  };

  auto* run = sweep->add_subcommand("run", "Run every unfinished run of an experiment");
  run->add_option("experiment", file, "Experiment file (YAML)")->required();
  run->add_option("--out", out, "Output directory (default: sweeps/<experiment name>)");
  run->add_option("-j,--jobs", jobs, "Runs at a time (local backend)")->check(CLI::Range(1, 1024));
  run->add_option("--backend", backend, "Where the runs execute")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str();
  run->add_option("--manifest", manifest, "Workload manifest (default: workloads/manifest.yaml)");
  run->add_option("--bin-dir", bin_dir, "Workload binaries (default: build/workloads)");
  run->add_flag("--no-build", no_build, "Never run nvcc; fail if a workload binary is missing");
  run->add_flag("--dry-run", dry_run, "Validate and print the plan; run nothing");
  run->add_flag("--force-out", force_out,
                "Use --out even when it is a non-empty directory that holds no sweep");
  run->callback([&, default_out, self] {
    std::unique_ptr<Manifest> m;
    try {
      m = std::make_unique<Manifest>(load_manifest(find_manifest(manifest)));
    } catch (const UserError&) {
      if (!manifest.empty()) throw;  // a manifest given explicitly must load
    }
    const std::string bins = bin_dir.empty() ? default_bin_dir() : bin_dir;
    const Experiment x = load_experiment(file, m.get(), fs::absolute(bins).string(), self());
    const std::string o = default_out(x.name);
    if (dry_run) {
      std::cout << fmt::format("experiment {}: {} runs ({} variants; baseline {}) -> {}\n", x.name,
                               x.runs.size(), x.variants.size(), x.baseline, o);
      for (const Run& r : x.runs) std::cout << "  " << r.id << ": " << join(r.argv, " ") << "\n";
      return;
    }
    check_out_target(o, force_out);
    check_out_dir("simtlab sweep: --out", o);
    // One `sweep run` per output directory at a time (flock: a sweep that dies, even by
    // SIGKILL, leaves no stale lock behind).
    FileLock lock;
    std::string holder;
    if (!lock.try_lock((fs::path(o) / ".lock").string(), /*inherit=*/false, &holder))
      fatal(
          "simtlab sweep: {} is in use by another `simtlab sweep run` ({}); wait for it to "
          "finish, or stop it, before running a sweep into the same directory",
          o, holder);
    if (m && !x.suite_workloads.empty()) build_stale(*m, x.suite_workloads, bins, no_build);
    const json plan = plan_json(x);
    write_file_atomic((fs::path(o) / "plan.json").string(), plan.dump(2) + "\n");
    fs::copy_file(file, fs::path(o) / "experiment.yaml", fs::copy_options::overwrite_existing);
    std::vector<std::string> todo;
    for (const json& r : plan["runs"]) {
      json st;
      const std::string id = r["id"].get<std::string>();
      const std::string state = run_state(o, r, &st);
      if (state == "passed") continue;
      todo.push_back(id);
      if (state == "corrupt")
        std::fprintf(stderr, "simtlab sweep: %s: %s; running it again\n", id.c_str(),
                     st.value("reason", "").c_str());
      if (const std::string who = lock_holder((run_dir(o, id) / ".lock").string()); !who.empty())
        std::fprintf(stderr,
                     "simtlab sweep: %s is still being executed by %s (an earlier sweep's); it "
                     "runs again once that execution ends\n",
                     id.c_str(), who.c_str());
    }
    std::fprintf(stderr, "simtlab sweep: %s: %zu runs, %zu finished before, %zu to run (-j %u)\n",
                 x.name.c_str(), x.runs.size(), x.runs.size() - todo.size(), todo.size(), jobs);
    const size_t failed = todo.empty()         ? 0
                          : backend == "slurm" ? run_slurm(o, plan, todo, x.slurm, x.name, self())
                                               : run_local(o, plan, todo, jobs, self());
    const size_t rows = collect(o, (fs::path(o) / "results.csv").string());
    std::fprintf(stderr, "simtlab sweep: %zu of %zu runs passed; %zu rows in %s/results.csv\n",
                 x.runs.size() - failed, x.runs.size(), rows, o.c_str());
    if (failed) std::exit(1);
  });

  auto* status = sweep->add_subcommand("status", "Finished, failed and pending runs of a sweep");
  status->add_option("dir", out, "The sweep's output directory")->required();
  status->callback([] {
    const json plan = load_plan(out);
    Counts c;
    std::string detail;
    for (const json& r : plan["runs"]) {
      json st;
      const std::string s = run_state(out, r, &st);
      const std::string id = r["id"].get<std::string>();
      if (s == "passed") {
        ++c.passed;
        continue;
      }
      if (s == "pending") {
        ++c.pending;
        if (const std::string who = lock_holder((run_dir(out, id) / ".lock").string());
            !who.empty())
          detail += fmt::format("  {} running ({})\n", id, who);
        continue;
      }
      ++(s == "corrupt" ? c.corrupt : c.failed);
      detail += fmt::format(
          "  {} {}{}: {}\n", id, s,
          st.contains("attempt") ? fmt::format(" (attempt {})", st["attempt"].get<int>()) : "",
          st.value("reason", ""));
      const std::string tail = st.value("stderr_tail", "");
      if (!tail.empty()) {
        std::istringstream is(tail);
        std::string line;
        while (std::getline(is, line)) detail += "      | " + line + "\n";
      }
    }
    std::cout << fmt::format("{}: {} runs: {} passed, {} failed, {} pending{}\n",
                             plan.value("experiment", ""), plan["runs"].size(), c.passed, c.failed,
                             c.pending, c.corrupt ? fmt::format(", {} corrupt", c.corrupt) : "")
              << detail;
  });

  auto* coll = sweep->add_subcommand("collect", "Write the sweep's tidy CSV (run x kernel rows)");
  coll->add_option("dir", out, "The sweep's output directory")->required();
  coll->add_option("--csv", csv, "Output file (default: DIR/results.csv)");
  coll->callback([] {
    const std::string path = csv.empty() ? (fs::path(out) / "results.csv").string() : csv;
    const size_t rows = collect(out, path);
    std::fprintf(stderr, "simtlab sweep: %zu rows in %s\n", rows, path.c_str());
  });

  auto* ex = sweep->add_subcommand("exec", "Execute one run of a planned sweep (used by backends)");
  ex->add_option("dir", out, "The sweep's output directory")->required();
  ex->add_option("--run", run_id, "Run id (workload/variant[.rK])")->required();
  ex->add_option("--attempt", attempt, "Attempt number recorded in status.json")
      ->check(CLI::Range(1, 100));
  ex->add_option("--parent", parent,
                 "End when this process (the sweep that started the run) ends (local backend)")
      ->group("");
  ex->callback([] { std::exit(exec_run(out, run_id, attempt, parent)); });
}

}  // namespace simtlab::tools
