// Parameters of GREENER (`greener.*`): compiler-directed register power states (Jatala,
// "Hardware and Software Optimizations for GPU Resource Management", PhD thesis, IIT Kanpur
// 2018, chapter 4; spec resource-sharing-relssp-greener.md §3). See src/ext/greener/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/describer.h"

namespace simtlab::timing {

struct GreenerParams {
  std::string mode = "none";
  uint32_t window = 3;
  uint32_t wake_sleep = 1, wake_off = 2;
  uint32_t enc_src = 2, enc_dst = 1;
  uint32_t lut_entries = 0;
  uint32_t tech_nm = 22;
  double leak_on_uw = 7.0;
  double sleep_ratio = 0.25, off_ratio = 0.05;
  double routing_ratio = 1.276;
  double e_sleep_nj = 0.0373, e_off_nj = 0.11774;
  std::string trans_unit = "warp_register";
  double core_mhz = 0;  // copied from gpu.core_mhz by the Gpu (not a key)

  bool on() const { return mode != "none"; }

  void describe(config::Describer& d) {
    d.param("mode", mode, "",
            "Register power states per warp register: none (off: no tracking, no stats); "
            "baseline (tracked, always ON: the reference leakage); sleep_reg (Warped Register "
            "File: every register to SLEEP after each access, unallocated OFF); comp_opt (the "
            "compile-time states alone); greener (comp_opt plus the run-time lookup table). "
            "Needs sm.register_numbering=architectural",
            "Jatala thesis ch. 4 (seed 001) 4.2 and 4.3.1, the four compared variants")
        .one_of({"none", "baseline", "sleep_reg", "comp_opt", "greener"});
    d.param("window", window, "instructions",
            "W: threshold distance (instructions) from which a register's next access is far "
            "(SLEEP/OFF)",
            "thesis 4.2.1 and Table 4.5: W = 3 gives the lowest energy for the most kernels")
        .range(1, 254);
    d.param("wake_sleep", wake_sleep, "cycles", "Wake-up latency SLEEP -> ON",
            "thesis 4.3.1: 1 cycle (CACTI-P gives 0.0058 ns, Table 4.4; sweep X = 2, 3, 4)")
        .range(1, 64);
    d.param("wake_off", wake_off, "cycles", "Wake-up latency OFF -> ON",
            "thesis 4.3.1: 2 cycles, from McPAT (CACTI-P 0.0175 ns, Table 4.4; sweep 2X)")
        .range(1, 128);
    d.param("enc_src", enc_src, "operands",
            "Source operands per instruction that carry a power state (the others go to SLEEP "
            "after their read)",
            "thesis 4.2.2: 2 sources + 1 destination (6 bits per instruction)")
        .range(0, 8);
    d.param("enc_dst", enc_dst, "operands",
            "Destination operands per instruction that carry a power state (the others go to "
            "SLEEP after write-back)",
            "thesis 4.2.2: 1 destination")
        .range(0, 4);
    d.param("lut_entries", lut_entries, "instructions",
            "Run-time lookup table entries per warp (decoded, not yet written-back "
            "instructions, oldest first); 0 = every such instruction",
            "assumption: the thesis sizes the table (1280 B, 4.3.5) from a measured average "
            "below 2 entries per warp and states no capacity limit; 0 models none")
        .range(0, 64);
    d.param("tech_nm", tech_nm, "nm",
            "Technology node of the leakage parameters (scaled from 22 nm with the power "
            "model's technology table: area x (L/22)^2, Vdd, leakage density)",
            "thesis Table 4.2: 22 nm; 45 and 32 nm sensitivity (4.3.3)")
        .one_of(std::vector<uint32_t>{22, 32, 45});
    d.param("leak_on_uw", leak_on_uw, "uW",
            "Leakage of one ON warp register (32 lanes x 32 bit) at 22 nm",
            "calibrated: simtlab power --gpu configs/kepler-k20x-greener.yaml (22 nm, 64K "
            "registers, 32 banks) gives 0.2017 W register-file leakage for 14 SMs = 7.0 uW per "
            "warp register (2048 per SM); the thesis gives no absolute value")
        .range(0.0, 1e6);
    d.param("sleep_ratio", sleep_ratio, "fraction",
            "Leakage of a SLEEP (drowsy, data kept at the retention voltage) register relative "
            "to ON",
            "assumption: drowsy retention at ~1/3 Vdd leaks about a quarter of the active cell "
            "(subthreshold current falls with V through DIBL); the thesis takes it from "
            "CACTI-P's SRAM_vccmin without printing it")
        .range(0.0, 1.0);
    d.param("off_ratio", off_ratio, "fraction",
            "Leakage of an OFF (power-gated) register relative to ON (the sleep transistor's "
            "own leakage)",
            "assumption: a gated cell keeps ~5% through the header/footer transistor; thesis "
            "sets SRAM_vccmin = 0 V in CACTI-P without printing the result")
        .range(0.0, 1.0);
    d.param("routing_ratio", routing_ratio, "fraction",
            "Constant routing (H-tree) leakage of the register file relative to its all-ON "
            "cell leakage; not reduced by any mode, reported separately (with routing)",
            "derived from the thesis's own numbers: GREENER saves 47.24% without routing and "
            "20.76% with it (5.4), so routing = 0.4724/0.2076 - 1 = 1.276 x the cell leakage")
        .range(0.0, 100.0);
    d.param("e_sleep_nj", e_sleep_nj, "nJ", "Energy of one SLEEP <-> ON transition",
            "thesis Table 4.4 (CACTI-P): 0.0373 nJ");
    d.param("e_off_nj", e_off_nj, "nJ",
            "Energy of one OFF <-> ON transition (also charged for SLEEP <-> OFF)",
            "thesis Table 4.4 (CACTI-P): 0.11774 nJ; SLEEP <-> OFF: assumption, as OFF <-> ON");
    d.param("trans_unit", trans_unit, "",
            "What one Table 4.4 transition energy (e_sleep_nj, e_off_nj) is charged for: "
            "warp_register (each state change of one warp register costs the full value) or "
            "register_file (the value is the SM register file's, as Table 4.4's area row "
            "0.04709 mm^2 is; a warp register's change costs value / warp registers per SM)",
            "thesis 4.3.5 and Table 4.4 give the energies 'for the configuration used' without "
            "saying per what; warp_register is the literal reading. The thesis's energies are "
            "its power reductions x its cycle overheads (1 - (1 - 47.24%) x 1.0053 = 46.96%, "
            "1 - (1 - 41.86%) x 1.0148 = 41.0%) and W moves Table 4.5's energies by a few %: "
            "both need transitions small next to leakage, which register_file gives and the "
            "literal reading does not (docs/results/thesis-ch4.md reports both)")
        .one_of({"warp_register", "register_file"});
  }
  std::vector<config::Issue> validate() const {
    std::vector<config::Issue> r;
    if (wake_off < wake_sleep)
      r.push_back({"wake_off", "must not be below wake_sleep (an OFF register is deeper)"});
    return r;
  }
};

}  // namespace simtlab::timing
