// Output formats of a run: the canonical stats JSON, GPGPU-Sim-compatible text, CSV rows
// for sweeps, the stderr summary, and the Chrome trace-event timeline.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "runtime/session.h"

namespace simtlab::runtime {

nlohmann::json build_run_json(const config::Config& cfg, const std::string& mode,
                              const std::vector<KernelRecord>& kernels, double wall_seconds);
std::string summary_text(const nlohmann::json& run);
/// Text summary whose key lines use GPGPU-Sim's names (gpu_sim_cycle, gpu_sim_insn, gpu_ipc,
/// gpu_tot_sim_cycle, gpu_tot_ipc, L1/L2 miss rates), one block per kernel.
std::string stats_text(const nlohmann::json& run);
/// Append one row per kernel (header written when the file is new or empty).
void append_csv(const std::string& path, const nlohmann::json& run);
void write_trace(const std::string& path, const std::vector<KernelRecord>& kernels);

}  // namespace simtlab::runtime
