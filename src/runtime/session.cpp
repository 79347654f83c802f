#include "runtime/session.h"

#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "runtime/report.h"

namespace simtlab::runtime {

Session::Session(config::Config cfg, SessionOptions opt)
    : cfg_(std::move(cfg)), opt_(std::move(opt)), start_(std::chrono::steady_clock::now()) {}

Session::~Session() { finish(); }

void Session::add(KernelRecord r) { kernels_.push_back(std::move(r)); }

nlohmann::json Session::to_json() const {
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return build_run_json(cfg_, mode_, kernels_, wall);
}

void Session::finish() {
  if (finished_) return;
  finished_ = true;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  nlohmann::json j = build_run_json(cfg_, mode_, kernels_, wall);
  if (!opt_.stats_path.empty()) {
    std::ofstream f(opt_.stats_path);
    if (!f)
      std::fprintf(stderr, "simtlab: cannot write stats file '%s'\n", opt_.stats_path.c_str());
    f << j.dump(2) << "\n";
  }
  if (!opt_.csv_path.empty()) append_csv(opt_.csv_path, j);
  if (!opt_.trace_path.empty()) write_trace(opt_.trace_path, kernels_);
  if (opt_.stats_text) std::fputs(stats_text(j).c_str(), stderr);
  if (!opt_.quiet) std::fputs(summary_text(j).c_str(), stderr);
}

}  // namespace simtlab::runtime
