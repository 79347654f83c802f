// Subcommands of the `simtlab` CLI. Each registers itself on the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

namespace simtlab::tools {

/// `simtlab ptx check|cfg|dump ...`
void add_ptx_commands(CLI::App& app);

}  // namespace simtlab::tools
