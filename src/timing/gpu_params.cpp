#include "timing/gpu_params.h"

#include <fmt/format.h>

#include "base/error.h"
#include "timing/gpu/power_arch.h"

namespace simtlab::timing {

std::vector<config::Issue> model_issues(const GpuParams& p) {
  std::vector<config::Issue> r;
  const SmParams& sm = p.sm;
  const bool arch = sm.register_numbering == "architectural";
  // The SM's mechanisms that replace or rename the same state (sm.cpp checks them again).
  if (sm.sharing.on() && sm.rfc.enable)
    r.push_back({"sharing.mode", "cannot be combined with rfc.enable"});
  if (arch && sm.rfc.enable)
    r.push_back({"rfc.enable",
                 "works on virtual register numbers: it cannot be combined with "
                 "sm.register_numbering=architectural"});
  if (p.sim.divergence != "ipdom") {
    std::vector<std::string> with;
    if (p.sim.its) with.push_back("sim.its");
    if (arch) with.push_back("sm.register_numbering=architectural");
    if (sm.sharing.on()) with.push_back("sharing.mode");
    if (sm.rfc.enable) with.push_back("rfc.enable");
    if (sm.greener.on()) with.push_back("greener.mode");
    if (!with.empty())
      r.push_back({"sim.divergence",
                   fmt::format("{} replaces the per-warp SIMT stack: it cannot be combined with {}",
                               p.sim.divergence, fmt::join(with, ", "))});
  }
  // Two L2 partitions split the SMs in two (memory_system.cpp).
  if (p.mem.l2.partitions == 2 && p.gpu.num_sms < 2)
    r.push_back({"mem.l2.partitions", "two L2 partitions need at least two SMs (gpu.num_sms)"});
  // The power model of this configuration (built by `simtlab power` and by power.enable).
  try {
    (void)power_model(p);
  } catch (const std::exception& e) {  // UserError, or a YAML error of a coefficient file
    r.push_back({"power.coefficients", e.what()});
  }
  return r;
}

}  // namespace simtlab::timing
