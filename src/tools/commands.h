// Subcommands of the `simtlab` CLI. Each registers itself on the CLI11 app.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/config.h"

namespace simtlab::tools {

/// `simtlab ptx check|cfg|dump ...`
void add_ptx_commands(CLI::App& app);
/// `simtlab run [options] -- PROGRAM [ARGS...]`
void add_run_command(CLI::App& app);
/// `simtlab suite list|run|profile ...` (workloads/manifest.yaml)
void add_suite_command(CLI::App& app);
/// `simtlab sweep run|status|collect|exec ...` (experiment files)
void add_sweep_command(CLI::App& app);
/// `simtlab report SWEEP_DIR [-o FILE]` (the Python package's HTML report)
void add_report_command(CLI::App& app);
/// `simtlab annotate RUN.json [--source DIR] [--kernel K] [--ptx]` (per-line statistics)
void add_annotate_command(CLI::App& app);
/// `simtlab correlate ROWS.csv [--out DIR] [-j N] ...` (simulated vs measured; correlate.py)
void add_correlate_command(CLI::App& app);
/// `simtlab power [--gpu PRESET] [--set ...] [--text]` (power/area model, no simulation)
void add_power_command(CLI::App& app);
/// `simtlab info [--gpu PRESET] [--markdown]`
void add_info_command(CLI::App& app);
/// The words after the command line's first `--` (the program `simtlab run` starts and its
/// arguments), split off by main() before CLI11 parses the rest.
std::vector<std::string>& program_command();
/// The configuration of `--gpu gpu --set sets...` (preset name, YAML file or gpgpusim.config),
/// validated; the effective preset and overrides (after a gpgpusim.config import) if asked.
config::Config resolve_config(const std::string& gpu, const std::vector<std::string>& sets,
                              std::vector<std::string>* effective_sets, std::string* effective_gpu);
/// The Markdown parameter reference (docs/config-reference.md).
std::string config_reference_markdown();

}  // namespace simtlab::tools
