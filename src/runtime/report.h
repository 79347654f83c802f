// Output formats of a run: the canonical stats JSON, GPGPU-Sim-compatible text, CSV rows
// for sweeps, the stderr summary, and the Chrome trace-event timeline. The Session builds
// them incrementally (kernel by kernel) so memory stays flat over many launches.
#pragma once

#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "runtime/session.h"

namespace simtlab::runtime {

/// The stats-file entry of one kernel (`index`: launch order; `cycles_before`: total cycles of
/// the earlier kernels, the start of a functional-mode kernel). When the kernel has a stats
/// tree, `*gpu_out` receives it with the whole-chip sums added (for the run aggregate).
nlohmann::json kernel_entry(const KernelRecord& k, size_t index, uint64_t cycles_before,
                            nlohmann::json* gpu_out);
/// run_gpu += kernel_gpu (counters, vectors and histograms add; formulas recomputed later).
void merge_stats(nlohmann::json& run_gpu, const nlohmann::json& kernel_gpu);
/// The numbers of an entry the session keeps in memory (wall time and status set by caller).
KernelBrief kernel_brief(const nlohmann::json& entry);
/// The run's stats document with an empty "kernels" array (totals, aggregate stats, host).
nlohmann::json run_json_without_kernels(const config::Config& cfg, const std::string& mode,
                                        const std::vector<KernelBrief>& kernels,
                                        const nlohmann::json& run_gpu, double wall_seconds,
                                        int interrupted_signal);
/// Write `run` as run.dump(2) would, with the kernel entries read from `spool` (one compact
/// JSON entry per line) as the "kernels" array; spool == nullptr writes run["kernels"].
void write_run_json(std::ostream& os, const nlohmann::json& run, std::FILE* spool);
std::string summary_text(const nlohmann::json& run);
/// Text summary whose key lines use GPGPU-Sim's names (gpu_sim_cycle, gpu_sim_insn, gpu_ipc,
/// gpu_tot_sim_cycle, gpu_tot_ipc, L1/L2 miss rates), one block per kernel.
std::string stats_text(const std::vector<KernelBrief>& kernels);
/// CSV header line, and one row per kernel (result columns empty unless it completed).
const char* csv_header();
std::string csv_row(const config::Config& cfg, const std::string& mode, size_t index,
                    const nlohmann::json& entry, const KernelBrief& k);
/// Chrome trace from per-kernel {"name", "cycles", "events"?} records.
void write_trace(const std::string& path, const std::vector<nlohmann::json>& kernels);

}  // namespace simtlab::runtime
