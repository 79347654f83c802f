// One simulated program run: per-kernel records, the stats file and the stderr summary.
// Owned by the Runtime; written out when the program exits (or is interrupted).
//
// Memory does not grow with the number of launches: each kernel's full stats tree is turned
// into its JSON entry when the kernel is added and written to an anonymous spool file (only
// when a stats file was asked for); the session keeps the whole-run aggregate and a few dozen
// bytes per kernel (KernelBrief) for the totals, the CSV and the summaries. CSV rows are
// appended as kernels finish, so a run that is killed keeps the rows of its finished kernels.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "func/device.h"

namespace simtlab::runtime {

/// How a kernel launch ended. Only `completed` kernels carry results; the others are recorded
/// (stats JSON, CSV) with their status so that no failed run looks like a result.
enum class KernelStatus : uint8_t {
  completed,
  fault,        // guest fault (bad address, trap, ...): cudaErrorIllegalAddress / LaunchFailure
  assert_,      // device-side assert: cudaErrorAssert
  deadlock,     // no progress (barrier that can never complete, ...)
  livelock,     // warps loop forever without changing memory, or a per-kernel limit was hit
  interrupted,  // the run was stopped by SIGINT/SIGTERM while this kernel ran (partial stats)
};
const char* status_name(KernelStatus s);

struct KernelRecord {
  std::string name;
  Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  uint32_t regs_per_thread = 0;
  std::string regs_source;     // "cubin" or "ptx-estimate"
  uint32_t regs_wanted = 0;    // before the cap for the simulated GPU (Runtime::register_alloc)
  uint32_t static_shared = 0;  // bytes of .shared the kernel declares (per CTA)
  nlohmann::json occupancy;    // resources per CTA and CTAs per SM (timing::cta_needs) for the
                               // simulated GPU; the stats tree's own copy wins in timing mode
  func::LaunchResult result;
  double wall_seconds = 0;
  KernelStatus status = KernelStatus::completed;
  std::string error;     // first line of the error report for a kernel that did not complete
  nlohmann::json stats;  // timing-mode stats tree of this launch (parsed from result.stats_json
                         // by Session::add when empty)
};

/// What the session keeps per kernel after add(): enough for totals, CSV and summaries.
struct KernelBrief {
  std::string name;
  KernelStatus status = KernelStatus::completed;
  uint64_t cycles = 0, warp_insts = 0, thread_insts = 0, start = 0, end = 0;
  double wall_seconds = 0;
  double l1_accesses = 0, l1_misses = 0, l2_accesses = 0, l2_misses = 0;
};

struct SessionOptions {
  std::string stats_path;   // --stats FILE.json
  std::string csv_path;     // --csv FILE
  std::string trace_path;   // --trace FILE.json
  bool stats_text = false;  // --stats-text
  bool quiet = false;
  bool progress = false;          // progress line (in place on a terminal, else periodic lines)
  bool progress_tty = false;      // stderr is a terminal
  double progress_interval = -1;  // seconds between progress lines (< 0: 0.5 on a tty, else 10)
};

class Session {
 public:
  Session(config::Config cfg, SessionOptions opt);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  void add(KernelRecord r);
  const SessionOptions& options() const { return opt_; }
  const config::Config& config() const { return cfg_; }
  const std::string& mode() const { return mode_; }
  void set_mode(std::string m) { mode_ = std::move(m); }
  /// Mark the run as interrupted by signal `sig` (recorded in the stats file and summary).
  void set_interrupted(int sig) { interrupted_ = sig; }
  /// Write the stats file and summary now (idempotent; also runs at destruction).
  void finish();
  /// The whole run as the stats file holds it (kernel entries read back from the spool).
  nlohmann::json to_json();
  size_t launches() const { return briefs_.size(); }

 private:
  nlohmann::json header_json(double wall) const;

  config::Config cfg_;
  SessionOptions opt_;
  std::string mode_;
  std::chrono::steady_clock::time_point start_;
  std::vector<KernelBrief> briefs_;
  nlohmann::json run_gpu_;             // sum of every kernel's stats tree (timing mode)
  std::FILE* spool_ = nullptr;         // kernel entries (JSON, one per line) when stats_path is set
  std::vector<nlohmann::json> trace_;  // per kernel: trace events (only with --trace)
  uint64_t cycles_sum_ = 0;            // cycles of the kernels added so far
  bool csv_header_checked_ = false;
  int interrupted_ = 0;
  bool finished_ = false;
};

}  // namespace simtlab::runtime
