// PowerParams: the `power.*` config group (src/power, docs/power-area.md). Off by default: with
// power.enable=false nothing is counted, computed or written (every other stat is unchanged).
#pragma once

#include <cstdint>
#include <string>

#include "config/describer.h"

namespace simtlab::power {

struct PowerParams {
  bool enable = false;
  std::string coefficients = "gtx480-40";
  uint32_t tech_nm = 0;
  double vdd = 0.0;
  bool memory_hierarchy = true;
  uint32_t imem_words = 0;
  uint32_t cmem_words = 0;
  uint32_t warp_width = 0;
  uint32_t lanes = 0;
  uint32_t addr_bits = 0;
  bool d2ma_engine = false;

  void describe(config::Describer& d) {
    d.param("enable", enable, "",
            "Power, energy and area model: per kernel and per run energy (J) and average power "
            "(W) by component, dynamic/static, area per SM and chip, critical-path clock limit "
            "(the `power` group of the stats; computed from counters at kernel end)",
            "simtlab (issue #13); off by default");
    d.param("coefficients", coefficients, "",
            "Coefficient set: a built-in name (tesla-synth-65, gtx480-40; "
            "src/power/coefficients/*.yaml) or a path to a YAML file of the same form",
            "assumption: the GTX480-class set for the default Fermi preset");
    d.param("tech_nm", tech_nm, "nm",
            "Technology node the model reports at (0 = the coefficient file's node); "
            "coefficients are scaled by src/power/coefficients/technology.yaml",
            "simtlab: nodes 65/45/40/32/28/22 nm")
        .check(
            [](const uint32_t& v) -> std::optional<std::string> {
              if (v == 0 || v == 65 || v == 45 || v == 40 || v == 32 || v == 28 || v == 22)
                return std::nullopt;
              return "must be 0, 65, 45, 40, 32, 28 or 22";
            },
            "one of 0, 65, 45, 40, 32, 28, 22");
    d.param("vdd", vdd, "V", "Supply voltage (0 = the node's nominal Vdd, technology.yaml)",
            "ITRS 2007 HP Vdd per node as tabulated in McPAT (Li et al., MICRO 2009)")
        .range(0.0, 2.0);
    d.param("memory_hierarchy", memory_hierarchy, "",
            "Charge area, leakage and energy of the L1 data/texture caches, L2, crossbar and "
            "DRAM (false: a design without them, whose simulated memory path is only the "
            "functional route to global memory)",
            "assumption: a GPU has them; seed 004 Sec. 2.1 removes the whole cache hierarchy");
    d.param("imem_words", imem_words, "instructions",
            "Instruction memory of the power/area model, 32-bit words (0 = sm.l1i.size / 4)",
            "assumption: the simulated I-cache")
        .max(1u << 24);
    d.param("cmem_words", cmem_words, "words",
            "Constant memory of the power/area model, 32-bit words (0 = sm.l1c.size / 4)",
            "assumption: the simulated constant cache")
        .max(1u << 24);
    d.param("warp_width", warp_width, "threads",
            "Warp width of the hardware modelled for area (thread masks, divergence-stack "
            "entries; 0 = sm.warp_size): seed 004's 64-SP point widens warps to 64",
            "assumption: the simulated warp size")
        .max(1024);
    d.param("lanes", lanes, "SPs",
            "SPs per SM of the hardware modelled for area/power, with one register-file "
            "partition and one shared-memory bank per SP (0 = sm.simd_width, "
            "sm.num_reg_banks, sm.smem_banks): seed 004's 64-SP point, wider than simtlab's "
            "32-thread warps, is modelled but not simulated",
            "assumption: the simulated SIMD width")
        .max(1024);
    d.param("addr_bits", addr_bits, "bits",
            "Shared-memory word-address width of the conflict comparators (L_ADDR_WIDTH; 0 = "
            "log2(sm.shared_bytes / 4))",
            "seed 004 Table 4.2: L_ADDR_WIDTH is the total shared-memory address width")
        .max(32);
    d.param("d2ma_engine", d2ma_engine, "",
            "Charge one D2MA engine per SM as an add-on component (area and power of its 45 nm "
            "synthesis, scaled to the node; coefficients d2ma_area_um2, d2ma_power_mw)",
            "D2MA paper Table 3 (spec d2ma-and-configurable-ppa.md Sec. 1.9); off by default");
  }
};

}  // namespace simtlab::power
