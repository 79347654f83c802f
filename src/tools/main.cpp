// The simtlab command-line tool.
#include <cstdio>
#include <exception>

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
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
