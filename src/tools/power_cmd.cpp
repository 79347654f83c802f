// `simtlab power [--gpu PRESET] [--set k=v ...]`: the power/area model of a configuration
// without running anything: area per component (SM and chip), leakage, the critical-path clock
// limit, and the power at peak activity (every lane of every SM doing an integer multiply-add
// every cycle; src/power/model.h). JSON on stdout, for scripts (experiments/tesla-sp).
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "timing/gpu/power_arch.h"
#include "tools/commands.h"

namespace simtlab::tools {

void add_power_command(CLI::App& app) {
  static std::string gpu = "fermi-gtx480";
  static std::vector<std::string> sets;
  static bool text = false;
  auto* cmd = app.add_subcommand(
      "power",
      "Power/area model of a configuration (no simulation): area, leakage, clock limit and "
      "peak-activity power as JSON");
  cmd->add_option("--gpu", gpu, "GPU preset name, preset YAML file or gpgpusim.config")
      ->capture_default_str();
  cmd->add_option("--set", sets, "Override a parameter (repeatable)");
  cmd->add_flag("--text", text, "One summary line instead of JSON");
  cmd->callback([] {
    const config::Config cfg = resolve_config(gpu, sets, nullptr, nullptr);
    const auto p = config::load<timing::GpuParams>(cfg);
    const power::Model m = timing::power_model(p);
    // One second of peak activity: energies read as watts.
    const nlohmann::json peak = m.evaluate(m.peak_activity(p.gpu.core_mhz * 1e6));
    if (text) {
      std::cout << power::summary_line(peak) << " (peak activity)\n";
      return;
    }
    nlohmann::json j = m.structure_json();
    j["peak"] = {{"power_w", peak["power_w"]}, {"energy_j", peak["energy_j"]}};
    double ff = 0, logic = 0;
    for (const auto& c : m.components()) {
      ff += c.ff_bits * (c.per_sm ? 1 : 0);
      logic += c.logic_um2 * (c.per_sm ? 1 : 0);
    }
    j["sm_ff_bits"] = ff;
    j["sm_logic_um2"] = logic;
    std::cout << j.dump(2) << "\n";
  });
}

}  // namespace simtlab::tools
