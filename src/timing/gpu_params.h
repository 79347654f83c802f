// The top-level GPU parameter tree (every parameter a run can set), declared with describe().
// Defaults are the fermi-gtx480 preset (the D2MA paper's GPGPU-Sim 3.2.1 baseline, Table 1);
// configs/*.yaml override them. Group layout:
//   gpu.*   chip-level: SM count, clocks, device memory, reported compute capability
//   sm.*    per-SM resources and pipeline (sm/sm_params.h)
//   mem.*   memory system below the SM (mem/memory_params.h)
//   sim.*   simulator behaviour: mode, watchdog, stack/heap limits
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/describer.h"
#include "power/power_params.h"
#include "timing/mem/memory_params.h"
#include "timing/sm/sm_params.h"

namespace simtlab::timing {

using power::PowerParams;

struct ChipParams {
  std::string name = "fermi-gtx480";
  uint32_t num_sms = 15;
  double core_mhz = 700.0;
  double icnt_mhz = 700.0;
  double l2_mhz = 700.0;
  double dram_mhz = 700.0;
  uint64_t global_mem_bytes = uint64_t(1536) << 20;
  uint32_t cc_major = 7;
  uint32_t cc_minor = 5;
  uint32_t kernel_launch_latency = 0;
  uint32_t max_concurrent_kernels = 16;
  // Thread-block clusters (sm_90): the SMs form `gpcs` graphics processing clusters of
  // consecutive SM ids (as even as possible); a cluster's CTAs run on SMs of one GPC.
  uint32_t gpcs = 1;
  uint32_t max_cluster_size = 8;
  uint32_t max_cluster_size_nonportable = 16;
  void describe(config::Describer& d) {
    d.param("name", name, "", "Name reported by cudaGetDeviceProperties", "preset name");
    d.param("num_sms", num_sms, "SMs", "Streaming multiprocessors (shader cores)",
            "D2MA paper Table 1 (15 shaders)")
        .range(1, 1024);
    d.param("core_mhz", core_mhz, "MHz",
            "SM clock (GPGPU-Sim models Fermi's 1400 MHz hot clock as 700 MHz x 2-cycle warps)",
            "GPGPU-Sim GTX480 config, -gpgpu_clock_domains")
        .range(1.0, 10000.0);
    d.param("icnt_mhz", icnt_mhz, "MHz", "Interconnect clock",
            "GPGPU-Sim GTX480 config, -gpgpu_clock_domains")
        .range(1.0, 10000.0);
    d.param("l2_mhz", l2_mhz, "MHz", "L2 / memory-partition clock",
            "GPGPU-Sim GTX480 config, -gpgpu_clock_domains")
        .range(1.0, 10000.0);
    d.param("dram_mhz", dram_mhz, "MHz", "DRAM command clock (GDDR5: 4 data transfers per clock)",
            "D2MA Table 1: 179.2 GB/s = 8 channels x 8 B x 4 x 700 MHz (GPGPU-Sim's GTX480 config "
            "uses 924 MHz with 6 channels)")
        .range(1.0, 10000.0);
    d.param("global_mem_bytes", global_mem_bytes, "bytes", "Device memory capacity",
            "GTX480: 1.5 GB GDDR5")
        .range(1 << 20, uint64_t(1) << 40);  // 1 TiB: the simulated global address window
    d.param(
         "cc_major", cc_major, "",
         "Compute capability reported to the program (major); PTX is compiled for sm_75 by nvcc 13",
         "nvcc 13 default target sm_75")
        .range(1, 20);
    d.param("cc_minor", cc_minor, "", "Compute capability reported to the program (minor)",
            "nvcc 13 default target sm_75")
        .range(0, 9);
    d.param("kernel_launch_latency", kernel_launch_latency, "cycles",
            "Core cycles between a launch and its first CTA", "assumption (GPGPU-Sim default 0)")
        .max(1000000);
    d.param("max_concurrent_kernels", max_concurrent_kernels, "kernels",
            "Kernels of different streams that may run at once (1 = one kernel at a time)",
            "Fermi: up to 16 concurrent kernels (NVIDIA Fermi compute architecture whitepaper)")
        .range(1, 128);
    d.param("gpcs", gpcs, "GPCs",
            "Graphics processing clusters: SM ids are split into this many groups of consecutive "
            "SMs (sizes differ by at most one); the CTAs of a thread-block cluster are launched "
            "together on SMs of one GPC",
            "assumption: 1 (every SM in one group) for presets without clusters")
        .range(1, 64);
    d.param("max_cluster_size", max_cluster_size, "CTAs",
            "Portable thread-block cluster size limit (larger launches fail with "
            "cudaErrorInvalidClusterSize)",
            "CUDA C++ Programming Guide, Thread Block Clusters: 8 thread blocks is the portable "
            "maximum")
        .range(1, 64);
    d.param("max_cluster_size_nonportable", max_cluster_size_nonportable, "CTAs",
            "Cluster size limit for kernels with cudaFuncAttributeNonPortableClusterSizeAllowed",
            "CUDA C++ Programming Guide: H100 supports a non-portable cluster size of 16")
        .range(1, 64);
  }
};

struct SimParams {
  std::string mode = "timing";
  uint32_t stack_bytes = 1024;
  uint64_t heap_bytes = uint64_t(8) << 20;
  uint64_t max_warp_insts_per_cta = uint64_t(1) << 32;
  uint64_t watchdog_cycles = 1000000;
  uint64_t max_kernel_cycles = 0;
  bool livelock_check = true;
  bool regalloc_check = false;
  bool its = false;
  uint32_t its_yield_backedges = 64;
  bool lpc = false;
  bool divergence_stats = false;
  std::string divergence = "ipdom";
  std::string dwf_policy = "majority";
  bool per_pc_stats = false;
  uint32_t fixed_memory_latency = 200;
  std::string memory_model = "full";
  void describe(config::Describer& d) {
    d.param("mode", mode, "",
            "functional: run kernels to completion without timing; timing: cycle-level model",
            "simtlab")
        .one_of({"functional", "timing"});
    d.param("stack_bytes", stack_bytes, "bytes", "Per-thread call stack (cudaLimitStackSize)",
            "CUDA default 1 KB (CUDA Programming Guide)")
        .range(0, 1u << 20);
    d.param("heap_bytes", heap_bytes, "bytes", "Device malloc heap (cudaLimitMallocHeapSize)",
            "CUDA default 8 MB (CUDA Programming Guide)")
        .max(uint64_t(1) << 36);
    d.param("max_warp_insts_per_cta", max_warp_insts_per_cta, "warp instructions",
            "Functional-mode watchdog: a CTA running longer is reported as an endless loop",
            "simtlab")
        .range(1000, uint64_t(1) << 48);  // 2^48: days of simulation; a sanity bound only
    d.param("watchdog_cycles", watchdog_cycles, "cycles",
            "Timing-mode deadlock watchdog: cycles without any progress", "simtlab")
        .range(100, uint64_t(1) << 48);  // 2^48: days of simulation; a sanity bound only
    d.param("max_kernel_cycles", max_kernel_cycles, "cycles",
            "Timing-mode limit per kernel launch (0 = none): a kernel still running after this "
            "many core cycles is stopped and reported like a watchdog timeout "
            "(cudaErrorLaunchTimeout)",
            "simtlab")
        .max(uint64_t(1) << 48);
    d.param("livelock_check", livelock_check, "",
            "Stop a kernel whose every running warp repeats the same loop state without any "
            "memory write on the device (a spin on a flag nobody sets): reported with a per-warp "
            "dump as cudaErrorLaunchTimeout",
            "simtlab");
    d.param("regalloc_check", regalloc_check, "",
            "Functional mode: execute kernels on architectural registers (every write also "
            "reaches the virtual registers the allocator put in the same register), so an "
            "allocation bug changes the program's output (src/func/regcheck.h)",
            "simtlab (issue #14)");
    d.param("its", its, "",
            "Independent thread scheduling (Volta): diverged thread groups of a warp are "
            "scheduled independently and wait for each other at convergence barriers at the "
            "branch's immediate post-dominator; bar.warp.sync (__syncwarp) waits for its lanes. "
            "Intra-warp spin locks complete. Off: the pre-Volta IPDOM SIMT stack "
            "(src/func/executor.cpp)",
            "GPGPU book 3.1.2; Diamos et al. 2015 (convergence barriers); NVIDIA Volta "
            "whitepaper 2017 (off by default: the presets model pre-Volta GPUs)");
    d.param("its_yield_backedges", its_yield_backedges, "back edges",
            "Independent thread scheduling: after this many back edges of one thread group "
            "without reconvergence it yields: threads waiting for it at a convergence barrier "
            "go on without it, and the next thread group of the warp runs (forward progress)",
            "assumption: the Volta yield rule is not published (book 3.1.2: 'It appears the "
            "yielded state may be used to enable other threads ... to make forward progress'); "
            "64 loop iterations keeps reconvergence after short divergent loops")
        .range(1, 1u << 20);
    d.param("lpc", lpc, "",
            "Likely convergence points on the IPDOM SIMT stack: a divergent branch inside a "
            "loop whose immediate post-dominator lies past the loop (a break or early exit) "
            "also pushes an entry at the loop's latch (the closest enclosing backward branch's "
            "block) where the paths that stay in the loop merge before the IPDOM. Needs the "
            "stack: rejected with sim.its and sim.divergence=tbc/dwf (src/ext/lpc)",
            "Fung & Aamodt, 'Thread block compaction', HPCA 2011 (likely convergence points); "
            "GPGPU book 3.4.2 (off by default: the presets model the plain IPDOM stack)");
    d.param("divergence_stats", divergence_stats, "",
            "Timing mode: SIMT stack depth histogram and stack pushes/pops (reconvergence "
            "events) per SM (the sm[i].simt group; src/ext/its/simt_stats.h)",
            "simtlab (issue #22; the statistics the divergence papers report)");
    d.param("divergence", divergence, "",
            "Timing mode: how diverged threads are grouped into warps. ipdom: the per-warp "
            "IPDOM SIMT stack; tbc: thread block compaction, a CTA-wide stack whose warps "
            "synchronise at potentially divergent branches and are compacted lane-aware "
            "(src/ext/tbc); dwf: dynamic warp formation, a per-CTA warp pool where threads "
            "join the warp at their PC after every branch, lane-aware, issued in Majority "
            "order (src/ext/dwf). Kernels with non-inlined calls keep the per-warp stack",
            "Fung & Aamodt HPCA 2011 (tbc); Fung et al. MICRO 2007 (dwf); GPGPU book 3.4.1 "
            "(off by default: the presets model the IPDOM stack)")
        .one_of({"ipdom", "tbc", "dwf"});
    d.param("dwf_policy", dwf_policy, "",
            "sim.divergence=dwf: issue order among the warp pool's warps. time: oldest arrival "
            "in the pool first; pc: smallest PC first; majority: the PC with the most threads "
            "first; minority: the PC with the fewest threads first; pdom: post-dominator "
            "priority, warps waiting at a reconvergence point that other warps still have to "
            "reach go last (majority otherwise) (src/ext/dwf/README.md)",
            "Fung et al. MICRO 2007 section 4.2 (the five policies; Majority, the paper's best, "
            "by default)")
        .one_of({"majority", "minority", "pc", "time", "pdom"});
    d.param("per_pc_stats", per_pc_stats, "",
            "Timing mode: count executions, stall slots by reason, scoreboard waits on memory vs "
            "ALU producers, register-bank and shared-memory bank conflicts, L1/L2 misses and "
            "divergence per PTX instruction, and per CUDA source line for -lineinfo builds "
            "(the `attribution` section of each kernel's stats; src/timing/sm/pc_stats.h)",
            "simtlab (issue #20)");
    d.param("fixed_memory_latency", fixed_memory_latency, "cycles",
            "Latency of every memory request when mem.model=fixed (stand-in memory system)",
            "assumption: ~200 core cycles, GTX480-class DRAM load latency")
        .range(1, 100000);
    d.param("memory_model", memory_model, "",
            "full: interconnect + L2 slices + DRAM channels (mem.*); fixed: every request takes "
            "fixed_memory_latency",
            "simtlab")
        .one_of({"full", "fixed"});
  }
};

/// Opt-in time series in the stats output (stats.interval) and the --trace size budget.
struct StatsParams {
  uint64_t interval = 0;
  void describe(config::Describer& d) {
    d.param("interval", interval, "cycles",
            "Interval statistics (0 = off): every this many core cycles of a kernel, record "
            "per-SM and chip-wide warp/thread instructions, resident warps, stall mix, L1/L2 "
            "accesses and hits and DRAM requests and row hits as compact per-kernel arrays "
            "(kernels[i].intervals, docs/outputs.md)",
            "simtlab (issue #20); AerialVision-style time series")
        .max(uint64_t(1) << 40);
  }
};

struct TraceParams {
  uint64_t max_events = 500000;
  uint64_t sample_window = 2000;
  uint64_t counter_interval = 500;
  void describe(config::Describer& d) {
    d.param("max_events", max_events, "events",
            "--trace budget of warp-state and memory slices (0 = unlimited); once reached, "
            "those slices are sampled by windows (docs/outputs.md, Trace)",
            "assumption: ~45 MB of JSON (about 90 bytes per slice), which the Perfetto UI "
            "opens quickly")
        .max(uint64_t(1) << 40);
    d.param("sample_window", sample_window, "cycles",
            "--trace sampling window: when max_events is reached, warp-state and memory slices "
            "are kept in one window of this many cycles out of every stride",
            "assumption: long enough to see several DRAM round trips (~500 cycles), short "
            "enough that a sampled 100K-cycle kernel still shows detail all along")
        .range(1, uint64_t(1) << 40);
    d.param("counter_interval", counter_interval, "cycles",
            "--trace counter tracks (IPC, memory instructions in flight, DRAM requests) are "
            "sampled every this many core cycles",
            "assumption: ~2000 samples for a 1M-cycle run")
        .range(1, uint64_t(1) << 40);
  }
};

struct GpuParams;
/// The rules the timing model's construction relies on that involve other groups (sm.cpp,
/// memory_system.cpp) and the power model of the configuration (power.coefficients must load
/// and give a complete set at a known node): part of GpuParams::validate, so every command
/// that resolves a configuration (run, power, info, sweep, the runtime) rejects the same
/// configurations. Defined in gpu_params.cpp.
std::vector<config::Issue> model_issues(const GpuParams& p);

struct GpuParams {
  ChipParams gpu;
  SmParams sm;
  MemoryParams mem;
  SimParams sim;
  StatsParams stats;
  TraceParams trace;
  PowerParams power;  // power/area model (src/power; off by default)
  void describe(config::Describer& d) {
    d.group("gpu", gpu, "Chip-level organisation and clocks");
    d.group("sm", sm, "Streaming multiprocessor resources and pipeline");
    d.group("mem", mem, "Memory system below the SMs: interconnect, L2, DRAM");
    d.group("sim", sim, "Simulator behaviour");
    d.group("stats", stats, "Interval statistics (time series in the stats output)");
    d.group("trace", trace, "--trace timeline budget and counter sampling");
    d.group("power", power, "Power, energy and area model (src/power; off by default)");
    // Research mechanisms attached to every SM (src/ext/; off by default).
    d.group("ccws", sm.ccws, "Cache-conscious wavefront scheduling (src/ext/ccws)");
    d.group("swl", sm.swl, "Static warp limiting, the CCWS baseline (src/ext/ccws)");
    d.group("dyncta", sm.dyncta, "DYNCTA dynamic CTA limit (src/ext/dyncta)");
    d.group("rfc", sm.rfc, "Register-file cache with two-level scheduling (src/ext/rfc)");
    d.group("mrpb", sm.mrpb, "Memory request prioritization buffer and L1 bypass (src/ext/mrpb)");
    d.group(
        "sharing", sm.sharing,
        "Register/scratchpad sharing between thread-block pairs (src/ext/sharing, thesis ch. 2)");
    d.group("classify", sm.classify,
            "Uniform/affine/variant value classifier, statistics only (src/ext/classify)");
    d.group("d2ma", sm.d2ma, "D2MA data-parallel DMA engine per SM (src/ext/d2ma)");
    d.group("greener", sm.greener,
            "GREENER register power states and register-file leakage (src/ext/greener, thesis "
            "ch. 4)");
  }
  /// Rules between groups (keys relative to the root).
  std::vector<config::Issue> validate() const {
    std::vector<config::Issue> r;
    if (sim.lpc && sim.its)
      r.push_back({"sim.lpc",
                   "needs the SIMT stack: it cannot be combined with sim.its (independent thread "
                   "scheduling has no likely-convergence entries)"});
    if (sim.lpc && sim.divergence != "ipdom")
      r.push_back({"sim.lpc",
                   "needs the per-warp SIMT stack: it cannot be combined with "
                   "sim.divergence=tbc/dwf (they replace the stack)"});
    if (sim.dwf_policy != "majority" && sim.divergence != "dwf")
      r.push_back({"sim.dwf_policy", "only applies with sim.divergence=dwf"});
    if (sm.rfc.enable && sm.scheduler != "two_level")
      r.push_back({"rfc.enable",
                   "needs sm.scheduler=two_level: the register-file cache holds entries only "
                   "for the warps of the two-level scheduler's active pool (Gebhart et al. 2011)"});
    if (sm.greener.on() && sm.register_numbering != "architectural")
      r.push_back({"greener.mode",
                   "needs sm.register_numbering=architectural: GREENER's states belong to "
                   "architectural (SASS) registers, as its PTXPlus analysis did (thesis 4.2)"});
    if (const uint32_t n = sm.sub_cores) {
      auto need = [&](const char* key, uint32_t v) {
        if (v % n)
          r.push_back({std::string("sm.") + key,
                       fmt::format("must be divisible by sm.sub_cores = {} (each sub-core "
                                   "gets an equal share)",
                                   n)});
      };
      if (sm.num_schedulers != n)
        r.push_back(
            {"sm.num_schedulers",
             fmt::format("must equal sm.sub_cores = {}: each sub-core has one scheduler", n)});
      need("num_reg_banks", sm.num_reg_banks);
      need("collector_units", sm.collector_units);
      need("num_sp_units", sm.num_sp_units);
      need("num_sfu_units", sm.num_sfu_units);
      need("num_dp_units", sm.num_dp_units);
      need("num_int_units", sm.num_int_units);
    }
    if (sm.max_shared_per_block_optin && sm.max_shared_per_block_optin < sm.max_shared_per_block)
      r.push_back({"sm.max_shared_per_block_optin",
                   fmt::format("must be at least sm.max_shared_per_block = {} (0 turns opt-in off)",
                               sm.max_shared_per_block)});
    if (sm.l1_shared_unified) {
      std::string bad;
      const std::vector<uint32_t> c = sm.carveout_bytes(&bad);
      const uint64_t way =
          uint64_t(sm.l1d.line) * (sm.l1d.size / (uint64_t(sm.l1d.line) * sm.l1d.assoc));
      if (c.empty()) {
        r.push_back({"sm.shared_carveouts",
                     bad.empty() ? std::string("must list at least one capacity in KB")
                                 : fmt::format("'{}' is not a capacity in KB", bad)});
      } else {
        if (c.back() != sm.shared_bytes)
          r.push_back({"sm.shared_bytes",
                       fmt::format("must equal the largest carve-out of sm.shared_carveouts "
                                   "({} bytes) when sm.l1_shared_unified",
                                   c.back())});
        for (uint32_t b : c)
          if (b >= sm.l1d.size || (sm.l1d.size - b) % way)
            r.push_back({"sm.shared_carveouts",
                         fmt::format("{} KB does not leave the L1 (sm.l1d.size {} bytes) a whole "
                                     "number of {}-byte ways",
                                     b / 1024, sm.l1d.size, way)});
      }
    }
    for (config::Issue& i : model_issues(*this)) r.push_back(std::move(i));
    return r;
  }
};

}  // namespace simtlab::timing
