// One simulated program run: per-kernel records, the stats file and the stderr summary.
// Owned by the Runtime; written out when the program exits.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "func/device.h"

namespace simtlab::runtime {

struct KernelRecord {
  std::string name;
  Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  uint32_t regs_per_thread = 0;
  std::string regs_source;   // "cubin" or "ptx-estimate"
  uint32_t regs_wanted = 0;  // before the cap for the simulated GPU (Runtime::register_alloc)
  func::LaunchResult result;
  double wall_seconds = 0;
  nlohmann::json stats;  // timing-mode stats tree of this launch (empty in functional mode)
};

struct SessionOptions {
  std::string stats_path;   // --stats FILE.json
  std::string csv_path;     // --csv FILE
  std::string trace_path;   // --trace FILE.json
  bool stats_text = false;  // --stats-text
  bool quiet = false;
  bool progress = false;  // progress line on a terminal
};

class Session {
 public:
  Session(config::Config cfg, SessionOptions opt);
  ~Session();
  void add(KernelRecord r);
  const SessionOptions& options() const { return opt_; }
  const config::Config& config() const { return cfg_; }
  const std::string& mode() const { return mode_; }
  void set_mode(std::string m) { mode_ = std::move(m); }
  /// Write the stats file and summary now (idempotent; also runs at destruction).
  void finish();
  nlohmann::json to_json() const;

 private:
  config::Config cfg_;
  SessionOptions opt_;
  std::string mode_;
  std::vector<KernelRecord> kernels_;
  std::chrono::steady_clock::time_point start_;
  bool finished_ = false;
};

}  // namespace simtlab::runtime
