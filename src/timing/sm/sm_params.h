// Per-SM parameters: resource limits (occupancy), pipeline organisation and latencies.
// Defaults: fermi-gtx480 (D2MA paper Table 1; pipeline numbers from the GPGPU-Sim GTX480
// configuration, /work/shared/testdata/gpgpusim-SM2_GTX480.config).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "config/describer.h"
#include "ext/ccws/ccws_params.h"
#include "ext/classify/classify_params.h"
#include "ext/d2ma/d2ma_params.h"
#include "ext/dyncta/dyncta_params.h"
#include "ext/greener/greener_params.h"
#include "ext/mrpb/mrpb_params.h"
#include "ext/rfc/rfc_params.h"
#include "ext/sharing/sharing_params.h"
#include "timing/mem/cache.h"

namespace simtlab::timing {

/// Latency and initiation interval of one execution class.
struct UnitTiming {
  uint32_t latency = 4;
  uint32_t interval = 1;
  void describe(config::Describer& d) {
    const char* src =
        "GPGPU-Sim GTX480 config -ptx_opcode_latency_*/-ptx_opcode_initiation_* (see sm_params.h)";
    // <= 4000: latency plus up to 31 extra SIMD passes must fit the SM's 4096-cycle writeback
    // wheel (Sm::kWheel); real latencies are at most a few hundred cycles.
    d.param("latency", latency, "cycles", "Issue-to-writeback latency", src).range(1, 4000);
    d.param("interval", interval, "cycles",
            "Initiation interval (cycles before the unit accepts the next warp)", src)
        .range(1, 10000);
  }
};

struct SmParams {
  // ---- resources (occupancy) ----
  uint32_t max_threads = 1536;
  uint32_t num_warps = 48;
  uint32_t max_ctas = 8;
  uint32_t registers = 32768;
  uint32_t reg_alloc_granularity = 64;
  uint32_t max_regs_per_thread = 63;
  uint32_t shared_bytes = 49152;
  uint32_t shared_granularity = 128;
  uint32_t max_shared_per_block = 49152;
  uint32_t max_shared_per_block_optin = 0;  // 0: no opt-in above max_shared_per_block
  // Unified L1/shared (Volta and later): l1d.size is the unified array; shared_carveouts lists
  // the shared capacities (KB) the driver may pick per kernel; the L1 gets the rest.
  bool l1_shared_unified = false;
  std::string shared_carveouts;
  uint32_t max_threads_per_block = 1024;
  uint32_t warp_size = 32;
  // ---- pipeline ----
  uint32_t simd_width = 32;  // lanes per SP unit: a warp takes warp_size/simd_width passes
  uint32_t num_schedulers = 2;
  uint32_t sub_cores = 0;  // 0: no partitioning (every scheduler reaches every unit and bank)
  std::string scheduler = "gto";
  std::string register_numbering = "virtual";
  uint32_t two_level_active = 6;
  std::string two_level_demote = "any";
  uint32_t ibuffer_entries = 2;
  uint32_t fetch_width = 1;
  uint32_t scoreboard_entries = 0;     // 0 = unlimited pending writes per warp
  uint32_t max_inflight_per_warp = 0;  // 0 = unlimited (seed 004: 1, no forwarding)
  uint32_t num_reg_banks = 16;
  uint32_t collector_units = 6;
  uint32_t num_sp_units = 2;
  uint32_t num_sfu_units = 1;
  uint32_t num_dp_units = 0;   // 0 = DP instructions run on the SFU (Fermi)
  uint32_t num_int_units = 0;  // 0 = integer instructions run on the SP units (Fermi)
  uint32_t num_ldst_units = 1;
  uint32_t branch_penalty = 0;
  uint32_t reconvergence_penalty = 0;
  uint32_t barrier_latency = 1;
  uint32_t mbarrier_try_wait_limit = 2048;
  uint32_t cta_launch_latency = 0;
  // GTX480 config: int ADD 4/1, MUL 4/2, DIV 145/8, SHFL 32/4; fp ADD/MUL 4/1, MAX 13/2;
  // dp ADD/MUL 8/8. SFU ops use the fp "MAX" slot (13/2) — an assumption, the config does not
  // name SFU latencies. Branch 4/1 and tensor 64/32 are assumptions.
  UnitTiming int_alu{4, 1}, int_mul{4, 2}, int_div{145, 8}, fp32{4, 1}, fp64{8, 8}, sfu{13, 2},
      branch{4, 1}, warp{32, 4}, tensor{64, 32};
  // ---- memory pipeline ----
  uint32_t smem_banks = 32;
  uint32_t smem_latency = 26;
  uint32_t dsmem_latency = 180;  // distributed shared memory (thread-block clusters)
  uint32_t ldst_queue = 2;
  bool l1d_global = true;
  uint32_t ifetch_bytes = 8;
  bool l1i_perfect = false;
  bool flush_l1_per_kernel = true;
  bool skip_idle_cycles = true;
  CacheParams l1d = l1d_defaults(), l1c = l1c_defaults(), l1t = l1t_defaults(),
              l1i = l1i_defaults();
  // ---- research mechanisms (src/ext/), declared as top-level groups by GpuParams ----
  CcwsParams ccws;
  SwlParams swl;
  DynctaParams dyncta;
  // Research mechanisms carried to the SM; declared as the top-level groups rfc.* and mrpb.*
  // (GpuParams::describe), not under sm.*.
  ext::RfcParams rfc;
  ext::MrpbParams mrpb;
  SharingParams sharing;          // top-level group sharing.* (src/ext/sharing, thesis ch. 2)
  ext::ClassifyParams classify;   // classify.* (src/ext/classify)
  bool divergence_stats = false;  // sim.divergence_stats, copied by Gpu: the simt group
  bool its = false;  // sim.its, copied here by Gpu (not a key of sm.*): the its stats group
  bool lpc = false;  // sim.lpc, copied by Gpu: the lpc stats group (src/ext/lpc)
  std::string divergence = "ipdom";     // sim.divergence, copied by Gpu (src/ext/tbc)
  std::string dwf_policy = "majority";  // sim.dwf_policy, copied by Gpu (src/ext/dwf)
  D2maParams d2ma;                      // top-level group d2ma.* (src/ext/d2ma)

  // GREENER (src/ext/greener, thesis ch. 4): top-level group greener.*
  GreenerParams greener;

  static CacheParams l1d_defaults() { return CacheParams{}; }
  static CacheParams l1c_defaults() {
    // GTX480 config -gpgpu_const_cache:l1 N:64:64:2 (64 sets x 64 B x 2 ways = 8 KB), no write.
    CacheParams c;
    c.size = 8192;
    c.line = 64;
    c.assoc = 2;
    c.mshrs = 2;
    c.mshr_merge = 32;
    c.miss_queue = 4;
    c.hit_latency = Cycle(1);
    c.index = "linear";
    c.cite.size = "GTX480 config gpgpu_const_cache:l1 N:64:64:2";
    c.cite.line = "GTX480 config gpgpu_const_cache:l1 (64 B lines)";
    c.cite.assoc = "GTX480 config gpgpu_const_cache:l1 (2-way)";
    c.cite.mshrs = "GTX480 config gpgpu_const_cache:l1 (S:2:32)";
    c.cite.mshr_merge = "GTX480 config gpgpu_const_cache:l1 (S:2:32)";
    c.cite.miss_queue = "GTX480 config gpgpu_const_cache:l1 (miss queue 4)";
    c.cite.hit_latency = "assumption: constant-cache hits are operand-speed (1 cycle)";
    c.cite.index = "GTX480 config gpgpu_const_cache:l1 (L = linear)";
    return c;
  }
  static CacheParams l1t_defaults() {
    // GTX480 config -gpgpu_tex_cache:l1 N:4:128:24 (4 sets x 128 B x 24 ways = 12 KB).
    CacheParams c;
    c.size = 12288;
    c.line = 128;
    c.assoc = 24;
    c.mshrs = 128;
    c.mshr_merge = 4;
    c.miss_queue = 8;
    c.hit_latency = Cycle(35);
    c.index = "linear";
    c.cite.size = "GTX480 config gpgpu_tex_cache:l1 N:4:128:24";
    c.cite.assoc = "GTX480 config gpgpu_tex_cache:l1 (24-way)";
    c.cite.mshrs = "GTX480 config gpgpu_tex_cache:l1 (T:128:4)";
    c.cite.mshr_merge = "GTX480 config gpgpu_tex_cache:l1 (T:128:4)";
    c.cite.hit_latency = "assumption: as the L1D (gpgpu_l1_latency 35)";
    c.cite.index = "GTX480 config gpgpu_tex_cache:l1 (L = linear)";
    return c;
  }
  static CacheParams l1i_defaults() {
    // GTX480 config -gpgpu_cache:il1 N:4:128:4 (4 sets x 128 B x 4 ways = 2 KB).
    CacheParams c;
    c.size = 2048;
    c.line = 128;
    c.assoc = 4;
    c.mshrs = 2;
    c.mshr_merge = 32;
    c.miss_queue = 4;
    c.hit_latency = Cycle(1);
    c.index = "linear";
    c.cite.size = "GTX480 config gpgpu_cache:il1 N:4:128:4";
    c.cite.assoc = "GTX480 config gpgpu_cache:il1 (4-way)";
    c.cite.mshrs = "GTX480 config gpgpu_cache:il1 (S:2:32)";
    c.cite.mshr_merge = "GTX480 config gpgpu_cache:il1 (S:2:32)";
    c.cite.miss_queue = "GTX480 config gpgpu_cache:il1 (miss queue 4)";
    c.cite.hit_latency = "assumption: fetch + decode in one cycle on a hit";
    c.cite.index = "GTX480 config gpgpu_cache:il1 (L = linear)";
    return c;
  }

  /// shared_carveouts in bytes, ascending; empty (and *bad set) when the list does not parse.
  std::vector<uint32_t> carveout_bytes(std::string* bad = nullptr) const {
    std::vector<uint32_t> v;
    size_t i = 0;
    while (i < shared_carveouts.size()) {
      size_t j = shared_carveouts.find(',', i);
      if (j == std::string::npos) j = shared_carveouts.size();
      std::string t = shared_carveouts.substr(i, j - i);
      while (!t.empty() && t.front() == ' ') t.erase(t.begin());
      while (!t.empty() && t.back() == ' ') t.pop_back();
      char* end = nullptr;
      const unsigned long kb = t.empty() ? 0 : std::strtoul(t.c_str(), &end, 10);
      if (t.empty() || *end || kb > (1u << 14)) {
        if (bad) *bad = t;
        return {};
      }
      v.push_back(uint32_t(kb * 1024));
      i = j + 1;
    }
    std::sort(v.begin(), v.end());
    return v;
  }
  /// Sub-core (processing block) count, 1 when the SM is not partitioned.
  uint32_t parts() const { return sub_cores ? sub_cores : 1; }

  void describe(config::Describer& d) {
    const char* t1 = "D2MA paper Table 1";
    const char* g = "GPGPU-Sim GTX480 config";
    d.param("max_threads", max_threads, "threads", "Resident threads per SM", t1).range(1, 65536);
    d.param("num_warps", num_warps, "warps", "Resident warps per SM (warp slots)",
            "1536 threads / 32")
        .range(1, 2048);
    d.param("max_ctas", max_ctas, "CTAs", "Resident CTAs per SM", t1).range(1, 256);
    d.param("registers", registers, "registers", "32-bit registers per SM", t1).range(1, 1u << 24);
    d.param("reg_alloc_granularity", reg_alloc_granularity, "registers",
            "Registers are allocated per warp in units of this many (CUDA occupancy calculator, cc "
            "2.x: 64)",
            "CUDA Occupancy Calculator")
        .range(1, 4096);
    d.param("max_regs_per_thread", max_regs_per_thread, "registers",
            "Most registers a thread can address. A kernel that wants more (its cubin was built "
            "for a larger GPU) or whose launch bounds cannot fit is simulated with what ptxas "
            "would allocate for this GPU; the spill code it would add is modelled only with "
            "register_numbering = architectural",
            "CUDA C Programming Guide, technical specifications: 63 for compute capability 2.x")
        .range(1, 255);
    d.param("shared_bytes", shared_bytes, "bytes", "Shared memory per SM", t1).range(0, 1u << 24);
    d.param("shared_granularity", shared_granularity, "bytes",
            "Shared-memory allocation unit per CTA", "CUDA Occupancy Calculator, cc 2.x: 128")
        .range(1, 1u << 16)
        .pow2();
    d.param("max_shared_per_block", max_shared_per_block, "bytes", "Shared memory one CTA may use",
            "Fermi: 48 KB")
        .range(0, 1u << 24);
    d.param("max_shared_per_block_optin", max_shared_per_block_optin, "bytes",
            "Shared memory one CTA may use after the kernel opts in with cudaFuncSetAttribute("
            "cudaFuncAttributeMaxDynamicSharedMemorySize); without it a CTA gets at most "
            "max_shared_per_block (0: no opt-in, max_shared_per_block is the only limit)",
            "CUDA C Programming Guide, Compute Capabilities (7.x: shared memory above 48 KB per "
            "block needs an explicit opt-in); 0 for Fermi/Kepler, which have none")
        .range(0, 1u << 24);
    d.param("l1_shared_unified", l1_shared_unified, "",
            "One SRAM array serves the L1 data cache and shared memory (Volta and later): "
            "l1d.size is the whole array, the driver picks each kernel's shared capacity from "
            "shared_carveouts (the kernel's cudaFuncAttributePreferredSharedMemoryCarveout hint, "
            "else the smallest carve-out that keeps the occupancy of the largest), and the L1 "
            "gets the rest (in whole ways of l1d). An SM switches carve-out only while it holds "
            "no CTA; shared_bytes must equal the largest carve-out",
            "Volta tuning guide 1.4.3.1 (unified L1/shared, carve-out chosen per kernel); "
            "false: Fermi/Kepler split the array at boot, as the seeds' machines do");
    d.param("shared_carveouts", shared_carveouts, "KB",
            "Comma-separated shared-memory capacities (KB) of the unified array the driver may "
            "choose from (l1_shared_unified); empty when not unified",
            "per preset: CUDA C Programming Guide, Compute Capabilities (e.g. 7.0: 0, 8, 16, "
            "32, 64, 96 KB)");
    d.param("max_threads_per_block", max_threads_per_block, "threads", "Threads per CTA limit",
            "CUDA, cc >= 2.0: 1024")
        .range(1, 65536);
    d.param("warp_size", warp_size, "threads", "Threads per warp", t1).one_of({32});
    d.param("simd_width", simd_width, "lanes",
            "Lanes per SP/INT unit; a warp instruction takes warp_size/simd_width passes (seed "
            "004's warp rows)",
            t1)
        .one_of({1, 2, 4, 8, 16, 32});
    d.param("num_schedulers", num_schedulers, "schedulers",
            "Warp schedulers per SM (warps are split among them)", g)
        .range(1, 8);
    d.param("sub_cores", sub_cores, "sub-cores",
            "Processing blocks per SM (0: none, every scheduler reaches every unit). With N: "
            "warp slot w belongs to sub-core w mod N, which alone uses its scheduler, its "
            "num_reg_banks/N register banks, collector_units/N collectors and 1/N of the SP, "
            "INT, SFU and DP units; the LD/ST path (L1, shared memory) stays shared. Needs "
            "num_schedulers = N and every partitioned count divisible by N",
            "Volta whitepaper (2017), 'Volta SM': the SM is partitioned into four processing "
            "blocks, each with its own warp scheduler, dispatch unit, 64 KB register file and "
            "units; 0 for Fermi/Kepler")
        .max(8);
    d.param("scheduler", scheduler, "",
            "Warp scheduling policy (owf: owner warp first, for resource sharing: owner > "
            "unshared > non-owner warps, GTO within a class; thesis 2.3.2; cta_gto: the warps "
            "of the CTA that issued last first, then oldest first: the CTA-prioritising "
            "scheduling of thread block compaction, Fung & Aamodt HPCA 2011)",
            t1)
        .one_of({"lrr", "gto", "oldest", "two_level", "owf", "cta_gto"});
    d.param("register_numbering", register_numbering, "",
            "Register numbers the register banks and the scoreboard see: virtual = PTX registers "
            "in declaration order (one slot per register, as GPGPU-Sim's PTX mode); "
            "architectural = the SASS-model allocation of src/ptx/regalloc.h (64-bit values in "
            "two banks, values above max_regs_per_thread spilled to local memory with reloads "
            "and stores issued as LD/ST instructions; stats group `regalloc`)",
            "virtual: the numbering simtlab's presets were validated with; architectural: "
            "issue #14, docs/registers.md")
        .one_of({"virtual", "architectural"});
    d.param("two_level_active", two_level_active, "warps",
            "Active-pool size per scheduler of the two-level scheduler",
            "Gebhart et al. 2011 / GPGPU-Sim two_level_active:6")
        .range(1, 64);
    d.param("two_level_demote", two_level_demote, "",
            "Which dependence stall moves a warp out of the two-level active pool (when others "
            "wait): any = any pending register write; long_latency = only while the warp waits "
            "for a global/local/texture load (the register-file-cache paper's scheduler)",
            "any: simtlab's original two-level scheduler; long_latency: Gebhart et al. ISCA "
            "2011 (warps leave the pool on long-latency operations)")
        .one_of({"any", "long_latency"});
    d.param("ibuffer_entries", ibuffer_entries, "instructions", "Instruction-buffer slots per warp",
            g)
        .range(1, 16);
    d.param("fetch_width", fetch_width, "warps/cycle", "Warps the fetch stage serves per cycle",
            "GPGPU-Sim")
        .range(1, 8);
    d.param("scoreboard_entries", scoreboard_entries, "registers",
            "Pending register writes tracked per warp (0 = unlimited; Coon et al. keep 3-4)",
            "GPGPU book 3.2")
        .max(64);
    d.param("max_inflight_per_warp", max_inflight_per_warp, "instructions",
            "Instructions of one warp in the pipeline at once (0 = unlimited): 1 is seed 004's "
            "in-order pipeline without forwarding, where a warp is not eligible until its "
            "previous instruction writes back (reported as a scoreboard stall)",
            "assumption: unlimited (scoreboard only); seed 004 Sec. 4 uses 1")
        .max(64);
    d.param("num_reg_banks", num_reg_banks, "banks",
            "Register-file banks (bank = (reg + warp) mod banks)", g)
        .range(1, 64);
    d.param("collector_units", collector_units, "units",
            "Operand-collector units (instructions gathering operands)", g)
        .range(1, 64);
    d.param("num_sp_units", num_sp_units, "units", "SP (single-precision / integer) units", g)
        .range(1, 16);
    d.param("num_sfu_units", num_sfu_units, "units", "Special-function units", g).range(1, 16);
    d.param("num_dp_units", num_dp_units, "units", "Double-precision units (0: DP runs on the SFU)",
            g)
        .max(16);
    d.param("num_int_units", num_int_units, "units",
            "Integer units (0: integer runs on the SP units)", g)
        .max(16);
    d.param("num_ldst_units", num_ldst_units, "units", "Load/store units", g).range(1, 4);
    d.param("branch_penalty", branch_penalty, "cycles",
            "Extra cycles before a warp may issue after a taken branch", "assumption")
        .max(100);
    d.param("reconvergence_penalty", reconvergence_penalty, "cycles",
            "Extra cycles charged when a divergent warp pushes/pops its SIMT stack", "assumption")
        .max(100);
    d.param("barrier_latency", barrier_latency, "cycles",
            "Cycles from the last arrival to the release of a barrier", "assumption")
        .range(1, 1000);
    d.param("mbarrier_try_wait_limit", mbarrier_try_wait_limit, "cycles",
            "Longest an mbarrier.try_wait on an incomplete phase holds its warp before it "
            "returns false (0: try_wait never waits, like test_wait)",
            "assumption: the PTX ISA (mbarrier.test_wait/try_wait) leaves the time limit "
            "system-dependent; 2048 cycles covers a DRAM-latency bulk copy, so a waiting warp "
            "issues about once per transfer")
        .max(1000000);
    d.param("cta_launch_latency", cta_launch_latency, "cycles", "Cycles to launch a CTA onto an SM",
            "assumption")
        .max(100000);
    d.group("int_alu", int_alu, "Integer add/logic/shift/compare/move");
    d.group("int_mul", int_mul, "Integer multiply / multiply-add");
    d.group("int_div", int_div, "Integer divide / remainder");
    d.group("fp32", fp32, "Single-precision add/mul/fma");
    d.group("fp64", fp64, "Double-precision arithmetic");
    d.group("sfu", sfu, "Transcendentals, reciprocal, square root, f32 divide");
    d.group("branch", branch, "Branches, calls, returns");
    d.group("warp", warp, "Warp shuffles, votes, reductions");
    d.group("tensor", tensor, "Tensor-core matrix operations");
    d.param("smem_banks", smem_banks, "banks", "Shared-memory banks (4 bytes wide)",
            "GTX480 config -gpgpu_shmem_num_banks 32")
        .range(1, 64)
        .pow2();
    d.param("smem_latency", smem_latency, "cycles", "Shared-memory access latency (conflict-free)",
            "GTX480 config -gpgpu_smem_latency 26")
        .range(1, 1000);
    d.param("dsmem_latency", dsmem_latency, "cycles",
            "Distributed shared memory: latency of an access to another CTA's shared memory over "
            "the SM-to-SM network of the GPC (thread-block clusters, sm_90); each 32-byte "
            "segment of a warp's remote accesses occupies the SM's network port one cycle",
            "assumption: ~180 cycles, the H100 SM-to-SM latency Luo et al. 2024 (arXiv "
            "2402.13499) report, as recalled (their table could not be read here); "
            "ClusterSim (GPGPU-Sim extension for Hopper clusters, configs/tested-cfgs/SM90_H100) "
            "models it as -sm_2_sm_network_latency 171")
        .range(1, 10000);
    d.param("ldst_queue", ldst_queue, "instructions", "Memory instructions the LD/ST unit buffers",
            "assumption (GPGPU-Sim: one instruction in the LD/ST pipeline register plus one)")
        .range(1, 64);
    d.param("l1d_global", l1d_global, "",
            "Cache global loads in the L1D (Fermi default; false = L2 only)",
            "GTX480 config -gpgpu_gmem_skip_L1D 0");
    d.param("ifetch_bytes", ifetch_bytes, "bytes",
            "Bytes per instruction in the instruction-cache address space",
            "SASS encodings are 8 bytes (Fermi-Pascal)")
        .range(1, 64);
    d.param("l1i_perfect", l1i_perfect, "",
            "Every instruction fetch hits (after l1i.hit_latency): removes I-cache effects from "
            "studies and tests",
            "simtlab (GPGPU-Sim has no equivalent)");
    d.param("flush_l1_per_kernel", flush_l1_per_kernel, "",
            "Write back and invalidate the L1 data, constant and texture caches when a kernel "
            "starts (never the instruction cache: a function's code and address do not change "
            "between launches)",
            "GTX480 config -gpgpu_flush_l1_cache 1; PTX ISA (ld cache operators, .ca): the "
            "driver invalidates global L1 lines between dependent grids");
    d.param("skip_idle_cycles", skip_idle_cycles, "",
            "Simulator speed-up: an SM whose warps all wait (memory, long latencies) sleeps until "
            "its next event "
            "and accounts the skipped cycles exactly; results are identical either way (not used "
            "with two_level)",
            "simtlab");
    d.group("l1d", l1d, "L1 data cache");
    d.group("l1c", l1c, "Constant cache (also kernel parameters)");
    d.group("l1t", l1t, "Texture cache");
    d.group("l1i", l1i, "Instruction cache");
  }
};

}  // namespace simtlab::timing
