// Power, energy and area model (issue #13; docs/power-area.md has every formula and
// coefficient with its source). Three parts:
//  - coefficients: a YAML set (coefficients/*.yaml, built in, or a user file) of values with
//    their units, sources and the node/voltage they are given at; technology.yaml scales them
//    to the node and voltage of the run;
//  - structure: per-SM components (area, flip-flop bits, logic area) from small analytical
//    models of the SM's arrays, lanes, crossbars and conflict comparators, plus chip-level
//    L2 / crossbar; area, leakage and a critical-path clock limit follow;
//  - activity: energy per action x counts from the kernel's stats (nothing is computed per
//    cycle), plus the always-on clock/logic energy per SM-cycle and leakage x time.
// The model is a pure function of (coefficients, architecture, counters, cycles): the same
// inputs give the same JSON, and a run's energy is the sum of its kernels' dynamic energy plus
// leakage over the run's time (merge_kernel / finish_run).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simtlab::power {

/// One coefficient as written in a coefficient file.
struct Coef {
  double value = 0;
  std::string unit, source;
  uint32_t node_nm = 0;  // node it is given at (0 = the file's)
  double vdd = 0;        // voltage it is given at (0 = the file's)
};

struct CoefSet {
  std::string name, description;
  std::string storage = "flops";  // how RF, shared memory and caches are built: flops | sram
  uint32_t node_nm = 65;
  double vdd = 1.1;
  std::map<std::string, Coef> c;
};

struct TechNode {
  uint32_t nm = 0;
  double vdd = 0, leak = 0;
};

/// The built-in coefficient sets by name, or a YAML file of the same form (a path).
/// Throws UserError on an unknown name, an unreadable file or a malformed entry.
CoefSet load_coefficients(const std::string& name_or_path);
/// Parses a coefficient file's text (`what` names it in errors).
CoefSet parse_coefficients(const std::string& yaml_text, const std::string& what);
/// The technology table (coefficients/technology.yaml).
const std::vector<TechNode>& technology();
std::vector<std::string> builtin_coefficient_sets();

/// What the model needs to know of the machine (from the config; src/timing builds it).
struct Arch {
  uint32_t num_sms = 16;
  uint32_t lanes = 8;            // SPs per SM (sm.simd_width)
  uint32_t warp_width = 32;      // threads per warp (masks, stack depth)
  uint32_t num_warps = 16;       // warp slots per SM
  uint32_t rf_partitions = 8;    // register-file partitions (sm.num_reg_banks)
  uint64_t registers = 4096;     // 32-bit registers per SM
  uint64_t shared_words = 1024;  // 32-bit shared-memory words per SM
  uint32_t smem_banks = 8;
  uint32_t addr_bits = 10;    // shared-memory word-address width (L_ADDR_WIDTH)
  uint64_t imem_words = 256;  // instruction memory, 32-bit words
  uint64_t cmem_words = 64;   // constant memory, 32-bit words
  double fetch_words = 2;     // 32-bit words read per instruction fetch
  bool memory_hierarchy = false;
  uint64_t l1d_bytes = 0, l1t_bytes = 0;
  uint32_t l1_line = 128, l1c_line = 64;
  uint64_t l2_bytes = 0;  // whole chip
  uint32_t l2_line = 128, l2_slices = 0;
  uint32_t flit_bytes = 40;
  double dram_request_bytes = 128;
  double core_mhz = 300;
  bool d2ma_engine = false;  // one D2MA engine per SM (add-on, spec Sec. 1.9)
  uint32_t passes() const { return (warp_width + lanes - 1) / lanes; }
};

/// Counts of every action over an interval (a kernel, or the peak-activity reference).
struct Activity {
  double cycles = 0;                       // core cycles of the interval
  double sm_active_cycles = 0;             // summed over SMs: cycles with work
  double sm_idle_cycles = 0;               // summed over SMs: num_sms x cycles - active
  std::map<std::string, double> lane_ops;  // by execution class (thread-level operations)
  double rf_reads = 0, rf_writes = 0;      // thread-level register operand reads / writes
  double warp_insts = 0, fetches = 0, sched_slots = 0;
  double smem_passes = 0;
  double l1c_accesses = 0, l1c_fills = 0;
  double l1d_accesses = 0, l1d_fills = 0, l1d_writebacks = 0;
  double l1t_accesses = 0, l1t_fills = 0;
  double l1i_fills = 0;
  double l2_accesses = 0, l2_fills = 0, l2_writebacks = 0;
  double icnt_flits = 0;
  double dram_reads = 0, dram_writes = 0, dram_activates = 0, dram_refreshes = 0;
  bool has_lane_counters = false;  // rf_reads / lane_ops came from the SM's power counters
};

/// Counts of a kernel from its stats tree (the JSON of stats::to_json for the `gpu` group,
/// per-SM groups sm[i], mem.partition[i].slice[j], mem.dram[i], mem.icnt).
Activity activity_from_stats(const nlohmann::json& gpu, double cycles, uint32_t num_sms);

class Model {
 public:
  Model(CoefSet set, const Arch& arch, uint32_t tech_nm = 0, double vdd = 0);

  struct Component {
    std::string name;
    bool per_sm = true;
    double area_um2 = 0;   // total area of the component (per SM when per_sm)
    double ff_bits = 0;    // flip-flop storage bits (clocked every cycle)
    double logic_um2 = 0;  // combinational logic area (activity-independent switching)
    double fixed_w = 0;    // a published total power (W per instance, replaces leakage + clock)
  };
  const std::vector<Component>& components() const { return comps_; }
  double sm_area_mm2() const;
  double chip_area_mm2() const;
  /// Leakage power of the chip (W) and of one component (all instances).
  double leakage_w() const;
  double leakage_w(const Component& c) const;

  struct CriticalPath {
    double t_mad_ns = 0, t_detect_ns = 0, t_smem_ns = 0;
    double path_ns = 0;   // max(t_mad, t_detect + t_smem)
    std::string limiter;  // "mad" or "detect+smem"
    double f_max_mhz = 0;
    bool closes = false;  // f_max >= core clock
  };
  CriticalPath critical_path() const;

  /// Energy (J) by component of `a`: dynamic (actions + clock/logic) and static (leakage x
  /// cycles / f), with average power; the JSON of the stats' `power` group.
  nlohmann::json evaluate(const Activity& a) const;
  /// Activity of `cycles` cycles with every SM issuing an integer multiply-add on every lane
  /// every cycle (3 register reads and 1 write per lane, one fetch/decode per warp
  /// instruction): the reference the seed-004 synthesis power is compared with.
  Activity peak_activity(double cycles) const;
  /// Area, leakage, critical path and node: the static part of the `power` JSON.
  nlohmann::json structure_json() const;

  /// A coefficient scaled to the run's node and voltage (by its kind: a_* area, e_* energy,
  /// t_* delay, leak_* leakage density; others unscaled). Throws if missing.
  double coef(const std::string& name) const;
  uint32_t node_nm() const { return node_; }
  double vdd() const { return vdd_; }
  const Arch& arch() const { return a_; }
  const CoefSet& coefficients() const { return set_; }
  /// Energy (J) of one 32-bit access to an SRAM/flip-flop array of `bytes` bytes:
  /// e_sram_32k x sqrt(bytes / 32 KB).
  double e_array(double bytes) const;

 private:
  void build();
  const Component* find(const std::string& n) const;
  CoefSet set_;
  Arch a_;
  uint32_t node_ = 65;
  double vdd_ = 1.1;
  std::vector<Component> comps_;
};

/// Run-level power: `run` accumulates kernels' dynamic energy (call with each kernel's power
/// JSON); finish_run sets the run's static energy (leakage x seconds) and average power.
void merge_kernel(nlohmann::json& run, const nlohmann::json& kernel);
void finish_run(nlohmann::json& run, double seconds);
/// One-line text summary of a power JSON ("" if none).
std::string summary_line(const nlohmann::json& power);

}  // namespace simtlab::power
