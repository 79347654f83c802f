// Subcommands of the `simtlab` CLI. Each registers itself on the CLI11 app.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace simtlab::tools {

/// `simtlab ptx check|cfg|dump ...`
void add_ptx_commands(CLI::App& app);
/// `simtlab run [options] -- PROGRAM [ARGS...]`
void add_run_command(CLI::App& app);
/// `simtlab info [--gpu PRESET] [--markdown]`
void add_info_command(CLI::App& app);
/// The words after the command line's first `--` (the program `simtlab run` starts and its
/// arguments), split off by main() before CLI11 parses the rest.
std::vector<std::string>& program_command();
/// The Markdown parameter reference (docs/config-reference.md).
std::string config_reference_markdown();

}  // namespace simtlab::tools
