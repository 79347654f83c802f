#include "runtime/session.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "runtime/report.h"

namespace simtlab::runtime {

const char* status_name(KernelStatus s) {
  switch (s) {
    case KernelStatus::completed:
      return "completed";
    case KernelStatus::fault:
      return "fault";
    case KernelStatus::assert_:
      return "assert";
    case KernelStatus::deadlock:
      return "deadlock";
    case KernelStatus::livelock:
      return "livelock";
    case KernelStatus::interrupted:
      return "interrupted";
  }
  return "?";
}

namespace {
/// Whether an output file can be written (an existing writable file, or a writable directory).
bool writable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::exists(p, ec)) return !fs::is_directory(p, ec) && access(p.c_str(), W_OK) == 0;
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  return fs::is_directory(dir, ec) && access(dir.c_str(), W_OK | X_OK) == 0;
}
}  // namespace

Session::Session(config::Config cfg, SessionOptions opt)
    : cfg_(std::move(cfg)), opt_(std::move(opt)), start_(std::chrono::steady_clock::now()) {
  // `simtlab run` checks these before starting the program; a program started with the
  // SIMTLAB_* variables set by hand is at least warned before it runs.
  for (const std::string* p : {&opt_.stats_path, &opt_.csv_path, &opt_.trace_path})
    if (!p->empty() && !writable(*p))
      std::fprintf(stderr,
                   "simtlab: warning: cannot write output file '%s'; its results will be "
                   "lost\n",
                   p->c_str());
}

Session::~Session() {
  finish();
  if (spool_) std::fclose(spool_);
}

void Session::add(KernelRecord r) {
  if (r.stats.is_null() && !r.result.stats_json.empty()) {
    r.stats = nlohmann::json::parse(r.result.stats_json);
    std::string().swap(r.result.stats_json);
  }
  const uint64_t before = cycles_sum_;
  if (opt_.trace_path.size()) {
    nlohmann::json t = {{"name", r.name}, {"cycles", r.result.cycles}};
    if (r.stats.is_object() && r.stats.contains("trace_events"))
      t["events"] = std::move(r.stats["trace_events"]);
    trace_.push_back(std::move(t));
  }
  nlohmann::json gpu;
  const nlohmann::json e = kernel_entry(r, briefs_.size(), before, &gpu);
  r.stats = nullptr;
  if (!gpu.is_null()) merge_stats(run_gpu_, gpu);
  KernelBrief b = kernel_brief(e);
  b.status = r.status;
  b.wall_seconds = r.wall_seconds;
  if (!opt_.stats_path.empty()) {
    if (!spool_) spool_ = std::tmpfile();
    if (spool_) {
      const std::string line = e.dump() + "\n";
      std::fwrite(line.data(), 1, line.size(), spool_);
    }
  }
  if (!opt_.csv_path.empty()) {
    // Rows are appended as kernels finish, so an interrupted run keeps its finished kernels.
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool fresh = !csv_header_checked_ &&
                       (!fs::exists(opt_.csv_path, ec) || fs::file_size(opt_.csv_path, ec) == 0);
    csv_header_checked_ = true;
    std::ofstream f(opt_.csv_path, std::ios::app);
    if (!f) std::fprintf(stderr, "simtlab: cannot write CSV file '%s'\n", opt_.csv_path.c_str());
    if (fresh) f << csv_header();
    f << csv_row(cfg_, mode_, briefs_.size(), e, b);
  }
  cycles_sum_ += b.cycles;
  briefs_.push_back(std::move(b));
}

nlohmann::json Session::header_json(double wall) const {
  return run_json_without_kernels(cfg_, mode_, briefs_, run_gpu_, wall, interrupted_);
}

nlohmann::json Session::to_json() {
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  nlohmann::json j = header_json(wall);
  if (spool_) {
    std::rewind(spool_);
    char buf[1 << 16];
    std::string line;
    while (std::fgets(buf, sizeof buf, spool_)) {
      line += buf;
      if (line.back() != '\n') continue;
      j["kernels"].push_back(nlohmann::json::parse(line));
      line.clear();
    }
    std::fseek(spool_, 0, SEEK_END);
  }
  return j;
}

void Session::finish() {
  if (finished_) return;
  finished_ = true;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const nlohmann::json j = header_json(wall);
  if (!opt_.stats_path.empty()) {
    std::ofstream f(opt_.stats_path);
    if (!f) {
      std::fprintf(stderr, "simtlab: cannot write stats file '%s'\n", opt_.stats_path.c_str());
    } else {
      write_run_json(f, j, spool_);
      f << "\n";
    }
  }
  if (!opt_.trace_path.empty()) write_trace(opt_.trace_path, trace_);
  if (opt_.stats_text) std::fputs(stats_text(briefs_).c_str(), stderr);
  if (!opt_.quiet) std::fputs(summary_text(j).c_str(), stderr);
}

}  // namespace simtlab::runtime
