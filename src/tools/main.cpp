// The simtlab command-line tool.
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/error.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"simtlab: a cycle-level GPU architecture simulator for unmodified CUDA programs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "simtlab 0.1.0");
  simtlab::tools::add_run_command(app);
  simtlab::tools::add_info_command(app);
  simtlab::tools::add_ptx_commands(app);
  simtlab::tools::add_suite_command(app);
  simtlab::tools::add_sweep_command(app);
  simtlab::tools::add_report_command(app);
  simtlab::tools::add_annotate_command(app);
  simtlab::tools::add_correlate_command(app);
  simtlab::tools::add_power_command(app);
  // Everything after the first `--` belongs to the program `simtlab run` starts: CLI11 never
  // sees it (a repeatable option such as --set would otherwise swallow the program's own
  // arguments).
  int ours = argc;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--") {
      ours = i;
      break;
    }
  if (ours < argc) {
    std::vector<std::string>& cmd = simtlab::tools::program_command();
    for (int i = ours + 1; i < argc; ++i) cmd.emplace_back(argv[i]);
  }
  try {
    app.parse(ours, argv);
  } catch (const CLI::ParseError& e) {
    // Help and --version exit 0; every usage error exits 2 (the shell convention).
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const simtlab::DiagError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const simtlab::UserError& e) {
    std::fprintf(stderr, "simtlab: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simtlab: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
