#include "tools/gpgpusim_import.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "base/error.h"
#include "config/value.h"

namespace simtlab::tools {

namespace {

std::vector<std::string> split(const std::string& s, const std::string& seps) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (seps.find(c) != std::string::npos) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

std::string strip(std::string s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

/// Whitespace and double quotes off both ends.
std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '"'))
    s.pop_back();
  size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t' || s[b] == '"')) ++b;
  return s.substr(b);
}

using Emit = std::function<void(const std::string& key, const std::string& value)>;
/// Maps one option's value onto simtlab parameters through `emit`. Returns false when the
/// value is a valid GPGPU-Sim setting simtlab does not model (the option is then listed as
/// ignored); throws Malformed when the value is not a valid setting at all.
using Mapper = std::function<bool(const std::string& value, const Emit& emit)>;

/// A malformed value of a modelled option; reported as "file:line: -option: <why>".
struct Malformed {
  std::string why;
};

/// An unsigned integer field of a value ("32" of "N:32:128:4"); `what` names it in errors.
uint64_t to_uint(const std::string& text, const std::string& what,
                 config::Kind kind = config::Kind::kUInt32) {
  config::Value v;
  if (auto err = config::parse_value(kind, trim(text), v))
    throw Malformed{what.empty() ? *err : what + ": " + *err};
  return std::get<uint64_t>(v);
}

/// a * b, or Malformed when it does not fit in 64 bits.
uint64_t times(uint64_t a, uint64_t b, const std::string& what) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a)
    throw Malformed{fmt::format("{}: {} x {} is too large", what, a, b)};
  return a * b;
}

/// GPGPU-Sim cache configuration strings (gpu-cache.h / the config comments):
///   [<N|S>:]<nsets>:<bsize>:<assoc>,<rep>:<wr>:<alloc>:<wr_alloc>[:<index>],<mshr>:<N>:<merge>,<mq>
/// e.g. dl1 "N:32:128:4,L:L:m:N:H,S:64:8,8" (3.x configs before sectoring have no N/S field).
/// `prefix` is the simtlab cache group.
Mapper cache_mapper(std::string prefix) {
  return [prefix](const std::string& v, const Emit& e) {
    const auto groups = split(v, ",");
    if (groups.size() < 3)
      throw Malformed{
          "expected <geometry>,<policies>,<mshr>[,<miss queue>] (e.g. "
          "N:32:128:4,L:L:m:N:H,S:64:8,8), got '" +
          v + "'"};
    auto geo = split(groups[0], ":");
    std::string kind = "N";
    if (geo.size() == 4 || (geo.size() == 3 && (trim(geo[0]) == "N" || trim(geo[0]) == "S"))) {
      kind = trim(geo[0]);
      geo.erase(geo.begin());
      if (kind != "N" && kind != "S")
        throw Malformed{"cache kind must be N (normal) or S (sectored), got '" + kind + "'"};
    }
    if (geo.size() != 3)
      throw Malformed{"expected the geometry [N|S:]<nsets>:<bsize>:<assoc>, got '" + groups[0] +
                      "'"};
    const uint64_t sets = to_uint(geo[0], "nsets"), line = to_uint(geo[1], "bsize"),
                   assoc = to_uint(geo[2], "assoc");
    e(prefix + ".size", std::to_string(times(times(sets, line, "capacity"), assoc, "capacity")));
    e(prefix + ".line", std::to_string(line));
    // simtlab caches have at most 64 ways: keep the capacity with more sets.
    e(prefix + ".assoc", std::to_string(std::min<uint64_t>(assoc, 64)));
    if (assoc > 64)
      e("@note", fmt::format("{}: {} ways imported as 64 ways (same capacity)", prefix, assoc));
    e(prefix + ".sectored", kind == "S" ? "true" : "false");
    const auto pol = split(groups[1], ":");
    if (pol.size() < 4)
      throw Malformed{"expected the policies <rep>:<wr>:<alloc>:<wr_alloc>[:<index>], got '" +
                      groups[1] + "'"};
    if (pol[0] == "L")
      e(prefix + ".repl", "lru");
    else if (pol[0] == "F")
      e(prefix + ".repl", "fifo");
    if (pol[1] == "B")
      e(prefix + ".global_write", "write_back");
    else if (pol[1] == "T" || pol[1] == "L")
      e(prefix + ".global_write", "write_through");
    if (pol[2] == "m")
      e(prefix + ".allocate", "on_miss");
    else if (pol[2] == "f")
      e(prefix + ".allocate", "on_fill");
    e(prefix + ".global_write_allocate", pol[3] == "N" ? "false" : "true");
    if (pol.size() >= 5) {
      if (pol[4] == "H")
        e(prefix + ".index", "fermi");
      else if (pol[4] == "L")
        e(prefix + ".index", "linear");
      else if (pol[4] == "X")
        e(prefix + ".index", "xor");
    }
    const auto mshr = split(groups[2], ":");
    if (mshr.size() < 3)
      throw Malformed{"expected the MSHRs <type>:<entries>:<merge>, got '" + groups[2] + "'"};
    e(prefix + ".mshrs", trim(mshr[1]));
    e(prefix + ".mshr_merge", trim(mshr[2]));
    if (groups.size() >= 4 && !trim(groups[3]).empty())
      e(prefix + ".miss_queue", trim(split(groups[3], ":")[0]));
    return true;
  };
}

/// The options simtlab models and how each maps onto simtlab parameters. A mapper returns
/// false when the value has a form it cannot translate (then the option counts as ignored).
const std::map<std::string, Mapper>& mappers() {
  static const std::map<std::string, Mapper> m = [] {
    std::map<std::string, Mapper> t;
    auto direct = [](const char* key) {
      return Mapper([key](const std::string& v, const Emit& e) {
        e(key, v);
        return true;
      });
    };
    t["gpgpu_shader_registers"] = direct("sm.registers");
    t["gpgpu_shader_cta"] = direct("sm.max_ctas");
    // The architecture GPGPU-Sim sizes occupancy for (20 = sm_20): its per-thread register
    // limit (CUDA C Programming Guide, technical specifications: 63 up to cc 3.0, 255 from 3.5).
    t["gpgpu_occupancy_sm_number"] = [](const std::string& v, const Emit& e) {
      char* end = nullptr;
      const long sm = std::strtol(v.c_str(), &end, 10);
      if (end == v.c_str() || *end || sm < 10 || sm > 1000)
        throw Malformed{"expected an SM version such as 20 or 70, got '" + v + "'"};
      e("sm.max_regs_per_thread", sm >= 35 ? "255" : sm >= 20 ? "63" : "124");
      return true;
    };
    t["gpgpu_num_sched_per_core"] = direct("sm.num_schedulers");
    t["gpgpu_num_reg_banks"] = direct("sm.num_reg_banks");
    t["gpgpu_operand_collector_num_units_sp"] = direct("sm.collector_units");
    t["gpgpu_num_sp_units"] = direct("sm.num_sp_units");
    t["gpgpu_num_sfu_units"] = direct("sm.num_sfu_units");
    t["gpgpu_num_dp_units"] = direct("sm.num_dp_units");
    t["gpgpu_num_int_units"] = direct("sm.num_int_units");
    t["gpgpu_stack_size_limit"] = direct("sim.stack_bytes");
    t["gpgpu_heap_size_limit"] = direct("sim.heap_bytes");
    t["gpgpu_shmem_size"] = [](const std::string& v, const Emit& e) {
      e("sm.shared_bytes", v);
      return true;
    };
    t["gpgpu_shmem_per_block"] = direct("sm.max_shared_per_block");
    t["gpgpu_n_clusters"] = [](const std::string& v, const Emit& e) {
      e("@clusters", std::to_string(to_uint(v, "")));
      return true;
    };
    t["gpgpu_n_cores_per_cluster"] = [](const std::string& v, const Emit& e) {
      e("@cores_per_cluster", std::to_string(to_uint(v, "")));
      return true;
    };
    t["gpgpu_clock_domains"] = [](const std::string& v, const Emit& e) {
      auto p = split(v, ":");
      if (p.size() != 4)
        throw Malformed{"expected <core>:<icnt>:<l2>:<dram> clocks in MHz, got '" + v + "'"};
      e("gpu.core_mhz", p[0]);
      e("gpu.icnt_mhz", p[1]);
      e("gpu.l2_mhz", p[2]);
      e("gpu.dram_mhz", p[3]);
      return true;
    };
    t["gpgpu_shader_core_pipeline"] = [](const std::string& v, const Emit& e) {
      auto p = split(v, ":");
      if (p.size() != 2) throw Malformed{"expected <threads>:<warp size>, got '" + v + "'"};
      const uint64_t threads = to_uint(p[0], "threads"), warp = to_uint(p[1], "warp size");
      if (warp == 0) throw Malformed{"warp size must be >= 1, got '" + p[1] + "'"};
      e("sm.max_threads", std::to_string(threads));
      e("sm.warp_size", std::to_string(warp));
      e("sm.num_warps", std::to_string(threads / warp));
      return true;
    };
    t["gpgpu_cache:dl1"] = cache_mapper("sm.l1d");
    t["gpgpu_cache:il1"] = cache_mapper("sm.l1i");
    t["gpgpu_const_cache:l1"] = cache_mapper("sm.l1c");
    t["gpgpu_tex_cache:l1"] = cache_mapper("sm.l1t");
    t["gpgpu_cache:dl2"] = cache_mapper("mem.l2.slice");
    t["gpgpu_l1_latency"] = direct("sm.l1d.hit_latency");
    t["gpgpu_kernel_launch_latency"] = direct("gpu.kernel_launch_latency");
    t["gpgpu_TB_launch_latency"] = direct("sm.cta_launch_latency");
    t["gpgpu_max_concurrent_kernel"] = direct("gpu.max_concurrent_kernels");
    t["ptx_opcode_latency_sfu"] = direct("sm.sfu.latency");
    t["ptx_opcode_initiation_sfu"] = direct("sm.sfu.interval");
    t["gpgpu_smem_latency"] = direct("sm.smem_latency");
    t["gpgpu_shmem_num_banks"] = direct("sm.smem_banks");
    t["gpgpu_n_mem"] = direct("mem.map.channels");
    t["gpgpu_n_sub_partition_per_mchannel"] = direct("mem.map.sub_partitions");
    t["gpgpu_l2_rop_latency"] = direct("mem.l2.rop_latency");
    t["dram_latency"] = direct("mem.l2.dram_latency");
    t["gpgpu_frfcfs_dram_sched_queue_size"] = direct("mem.dram.queue_size");
    t["gpgpu_dram_return_queue_size"] = direct("mem.dram.return_queue_size");
    t["gpgpu_dram_burst_length"] = direct("mem.dram.burst_length");
    t["dram_data_command_freq_ratio"] = direct("mem.dram.data_rate");
    t["icnt_flit_size"] = direct("mem.icnt.flit_size");
    t["gpgpu_dram_scheduler"] = [](const std::string& v, const Emit& e) {
      if (v == "0")
        e("mem.dram.scheduler", "fcfs");
      else if (v == "1")
        e("mem.dram.scheduler", "frfcfs");
      else
        throw Malformed{"expected 0 (FIFO) or 1 (FR-FCFS), got '" + v + "'"};
      return true;
    };
    t["gpgpu_dram_buswidth"] = [](const std::string& v, const Emit& e) {
      e("@buswidth", std::to_string(to_uint(v, "")));
      return true;
    };
    t["gpgpu_n_mem_per_ctrlr"] = [](const std::string& v, const Emit& e) {
      e("@mem_per_ctrlr", std::to_string(to_uint(v, "")));
      return true;
    };
    // GPGPU-Sim reads these flags as integers: 0 is off, anything else on.
    t["gpgpu_gmem_skip_L1D"] = [](const std::string& v, const Emit& e) {
      e("sm.l1d_global", to_uint(v, "") == 0 ? "true" : "false");
      return true;
    };
    t["gpgpu_flush_l1_cache"] = [](const std::string& v, const Emit& e) {
      e("sm.flush_l1_per_kernel", to_uint(v, "") == 0 ? "false" : "true");
      return true;
    };
    t["gpgpu_dram_timing_opt"] = [](const std::string& v, const Emit& e) {
      // "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:..."
      static const std::map<std::string, std::string> names = {
          {"nbk", "banks"}, {"nbkgrp", "bank_groups"},
          {"CCD", "tCCD"},  {"CCDL", "tCCDL"},
          {"RRD", "tRRD"},  {"RCD", "tRCD"},
          {"RAS", "tRAS"},  {"RP", "tRP"},
          {"RC", "tRC"},    {"CL", "tCL"},
          {"WL", "tWL"},    {"CDLR", "tWTR"},
          {"WR", "tWR"},    {"RTPL", "tRTP"}};
      // GPGPU-Sim 2.x's positional form ("2:8:12:25:...") has no names: not imported.
      if (v.find('=') == std::string::npos) return false;
      for (const std::string& kv : split(v, ":")) {
        if (trim(kv).empty()) continue;
        const size_t eq = kv.find('=');
        if (eq == std::string::npos)
          throw Malformed{"expected name=value timings separated by ':', got '" + trim(kv) + "'"};
        auto it = names.find(trim(kv.substr(0, eq)));
        if (it == names.end()) {
          std::string known;
          for (const auto& [n, _] : names) known += (known.empty() ? "" : ", ") + n;
          throw Malformed{"unknown DRAM timing '" + trim(kv.substr(0, eq)) + "' (known: " + known +
                          ")"};
        }
        e("mem.dram." + it->second, trim(kv.substr(eq + 1)));
      }
      return true;
    };
    t["gpgpu_scheduler"] = [](const std::string& v, const Emit& e) {
      const auto p = split(v, ":");
      const std::string s = p[0];
      if (s == "gto" || s == "lrr") {
        e("sm.scheduler", s);
      } else if (s == "two_level_active") {
        e("sm.scheduler", "two_level");
        if (p.size() > 1) e("sm.two_level_active", p[1]);
      } else if (s == "old" || s == "oldest") {
        e("sm.scheduler", "oldest");
      } else if (s == "rrr" || s == "warp_limiting") {
        return false;  // GPGPU-Sim policies simtlab does not model
      } else {
        throw Malformed{"unknown warp scheduler '" + s +
                        "' (GPGPU-Sim has lrr, gto, two_level_active, old, rrr, warp_limiting)"};
      }
      return true;
    };
    auto lat = [](const char* cls, const char* field, std::vector<const char*> units) {
      return Mapper([cls, field, units](const std::string& v, const Emit& e) {
        auto p = split(v, ",");
        if (p.size() > units.size())
          throw Malformed{fmt::format("expected at most {} comma-separated values, got {}",
                                      units.size(), p.size())};
        for (size_t i = 0; i < units.size() && i < p.size(); ++i)
          if (units[i]) e(fmt::format("sm.{}.{}", units[i], field), trim(p[i]));
        (void)cls;
        return true;
      });
    };
    // "ADD,MAX,MUL,MAD,DIV,SHFL" slots (GPGPU-Sim's -ptx_opcode_latency_* order).
    t["ptx_opcode_latency_int"] =
        lat("int", "latency", {"int_alu", nullptr, "int_mul", nullptr, "int_div", "warp"});
    t["ptx_opcode_initiation_int"] =
        lat("int", "interval", {"int_alu", nullptr, "int_mul", nullptr, "int_div", "warp"});
    t["ptx_opcode_latency_fp"] = lat("fp", "latency", {"fp32", "sfu", nullptr, nullptr, nullptr});
    t["ptx_opcode_initiation_fp"] =
        lat("fp", "interval", {"fp32", "sfu", nullptr, nullptr, nullptr});
    t["ptx_opcode_latency_dp"] = lat("dp", "latency", {"fp64", nullptr, nullptr, nullptr, nullptr});
    t["ptx_opcode_initiation_dp"] =
        lat("dp", "interval", {"fp64", nullptr, nullptr, nullptr, nullptr});
    t["ptx_opcode_latency_tesnor"] = direct("sm.tensor.latency");  // GPGPU-Sim's spelling
    t["ptx_opcode_latency_tensor"] = direct("sm.tensor.latency");
    t["ptx_opcode_initiation_tensor"] = direct("sm.tensor.interval");
    t["gpgpu_compute_capability_major"] = direct("gpu.cc_major");
    t["gpgpu_compute_capability_minor"] = direct("gpu.cc_minor");
    t["gpgpu_n_cluster_ejection_buffer_size"] = direct("mem.icnt.sm_ejection_buffer");
    // GPGPU-Sim's built-in crossbar (network_mode 2): packets per input / per output buffer.
    t["icnt_in_buffer_limit"] = direct("mem.icnt.input_buffer");
    t["icnt_out_buffer_limit"] = direct("mem.icnt.mem_ejection_buffer");
    // GPGPU-Sim's general operand collector pool (used when the specialised ones are off).
    t["gpgpu_operand_collector_num_units_gen"] = direct("sm.collector_units");
    t["gpgpu_perfect_inst_const_cache"] = [](const std::string& v, const Emit& e) {
      const bool on = to_uint(v, "") != 0;
      e("sm.l1i_perfect", on ? "true" : "false");
      if (on)
        e("@note",
          "gpgpu_perfect_inst_const_cache: imported for the instruction cache only "
          "(simtlab has no perfect constant cache)");
      return true;
    };
    t["gpgpu_perf_sim_memcpy"] = [](const std::string& v, const Emit& e) {
      e("mem.l2.memcpy_fills", to_uint(v, "") == 0 ? "false" : "true");
      return true;
    };
    // "<icnt to L2>:<L2 to DRAM>:<DRAM to L2>:<L2 to icnt>" queue entries.
    t["gpgpu_dram_partition_queues"] = [](const std::string& v, const Emit& e) {
      const auto p = split(v, ":");
      if (p.size() != 4)
        throw Malformed{"expected <icnt-L2>:<L2-dram>:<dram-L2>:<L2-icnt> queue sizes, got '" + v +
                        "'"};
      e("mem.l2.rop_queue", trim(p[0]));
      e("mem.l2.dram_queue", trim(p[1]));
      e("mem.l2.dram_return_queue", trim(p[2]));
      e("mem.l2.response_queue", trim(p[3]));
      return true;
    };
    t["gpgpu_memory_partition_indexing"] = [](const std::string& v, const Emit& e) {
      if (to_uint(v, "") != 0) return false;  // XOR, IPoly, PAE, random, custom: not modelled
      e("mem.map.hash", "none");
      return true;
    };
    // "dramid@<bit>;<64 mask letters>": channel bits at <bit> (the interleave), then the
    // channel-local layout of R/B/C/S bits; leading zero bits are unused address bits.
    t["gpgpu_mem_addr_mapping"] = [](const std::string& v, const Emit& e) {
      const size_t semi = v.find(';');
      if (semi == std::string::npos || trim(v.substr(0, semi)).rfind("dramid@", 0) != 0)
        return false;  // explicit D bits: simtlab's map cannot express them
      const uint64_t bit = to_uint(trim(v.substr(0, semi)).substr(7), "dramid bit");
      if (bit > 20) throw Malformed{fmt::format("dramid@{}: at most bit 20", bit)};
      std::string layout = trim(v.substr(semi + 1));
      const size_t first = layout.find_first_not_of("0.");
      if (first == std::string::npos) throw Malformed{"the mapping has no address bits"};
      layout = layout.substr(first);
      if (layout.find_first_not_of("RBCS.") != std::string::npos) return false;
      e("mem.map.interleave", std::to_string(uint64_t(1) << bit));
      e("mem.map.layout", layout);
      return true;
    };
    // Settings that are simtlab's only behaviour: accepted (imported) as they are, any other
    // setting is a mechanism simtlab lacks (then listed as ignored with ignore_reason()).
    auto only = [](std::vector<std::string> ok) {
      return Mapper([ok](const std::string& v, const Emit& e) {
        for (const auto& o : ok)
          if (trim(v) == o) {
            e("@ok", "");
            return true;
          }
        return false;
      });
    };
    t["gpgpu_simd_model"] = only({"1"});
    t["gpgpu_cache:dl2_texture_only"] = only({"0"});
    t["gpgpu_shmem_limited_broadcast"] = only({"0"});
    t["gpgpu_shmem_warp_parts"] = only({"1"});
    t["gpgpu_coalesce_arch"] = only({"20", "30", "35", "50", "60", "61", "70", "75", "80", "86"});
    t["gpgpu_max_insn_issue_per_warp"] = only({"1"});
    t["gpgpu_dual_issue_diff_exec_units"] = only({"0", "1"});
    t["dram_bnk_indexing_policy"] = only({"0"});
    t["dram_bnkgrp_indexing_policy"] = only({"1"});
    t["icnt_subnets"] = only({"2"});
    return t;
  }();
  return m;
}

}  // namespace

std::string ignore_reason(const std::string& name) {
  // Safe: no timing effect, or the only setting simtlab has. Missing: a mechanism simtlab
  // lacks (the cycle counts can differ from GPGPU-Sim's when the option matters).
  static const std::map<std::string, std::string> r = {
      // Front end, functional and reporting options.
      {"gpgpu_ptx_instruction_classification", "safe: statistics only"},
      {"gpgpu_ptx_sim_mode", "safe: functional/performance switch; simtlab uses --mode"},
      {"gpgpu_ptx_force_max_capability",
       "safe: which PTX of the fatbin GPGPU-Sim loads; simtlab picks by gpu.cc_major/cc_minor"},
      {"gpgpu_ptx_convert_to_ptxplus", "safe: PTXPlus (SASS) execution, off; simtlab runs PTX"},
      {"gpgpu_ptx_save_converted_ptxplus", "safe: PTXPlus output file"},
      {"gpgpu_memlatency_stat", "safe: statistics only"},
      {"gpgpu_runtime_stat", "safe: progress printing"},
      {"enable_ptx_file_line_stats", "safe: statistics only"},
      {"visualizer_enabled", "safe: AerialVision log"},
      {"power_simulation_enabled", "safe: power model (GPUWattch), no timing"},
      {"gpgpu_clock_gated_lanes", "safe: power model lane gating, no timing"},
      {"gpgpu_runtime_sync_depth_limit",
       "safe: dynamic parallelism limit; simtlab has no dynamic parallelism"},
      {"gpgpu_runtime_pending_launch_count_limit",
       "safe: dynamic parallelism limit; simtlab has no dynamic parallelism"},
      // Settings equal to simtlab's only behaviour are imported; other values are these.
      {"gpgpu_simd_model", "missing: only 1 (post-dominator reconvergence) is modelled"},
      {"gpgpu_cache:dl2_texture_only", "missing: only 0 (the L2 caches every access) is modelled"},
      {"gpgpu_shmem_limited_broadcast",
       "missing: only 0 (unlimited same-word broadcast) is modelled"},
      {"gpgpu_shmem_warp_parts", "missing: only 1 (the whole warp per shared-memory access)"},
      {"gpgpu_coalesce_arch",
       "missing: only Fermi-and-later coalescing (20+: one request per 128-byte block with a "
       "32-byte sector mask); 13 (GT200 half-warp segments) is not modelled"},
      {"gpgpu_max_insn_issue_per_warp",
       "missing: only 1 (no dual issue of one warp's instructions in a cycle)"},
      {"gpgpu_dual_issue_diff_exec_units", "safe: only used with dual issue, which is off"},
      {"dram_bnk_indexing_policy", "missing: only 0 (bank bits from the address mapping)"},
      {"dram_bnkgrp_indexing_policy",
       "missing: only 1 (bank group = low bank bits: bank mod groups)"},
      {"icnt_subnets", "missing: only 2 (separate request and response networks)"},
      {"gpgpu_memory_partition_indexing",
       "missing: only 0 (linear channel index) is imported; 1-5 (XOR, IPoly, PAE, random, "
       "custom hashes) are not modelled (mem.map.hash=xor is simtlab's own XOR hash)"},
      {"gpgpu_mem_addr_mapping",
       "missing: only the dramid@<bit>;<R/B/C/S mask> form is imported; explicit D "
       "(channel) bits cannot be expressed by mem.map"},
      {"gpgpu_scheduler", "missing: rrr and warp_limiting schedulers are not modelled"},
      {"gpgpu_dram_timing_opt",
       "missing: the unnamed positional form of GPGPU-Sim 2.x is not imported"},
      // Superseded by or identical to an imported option.
      {"gpgpu_shmem_sizeDefault",
       "safe: the default carve-out; equal to gpgpu_shmem_size (imported) in the shipped "
       "configurations"},
      {"gpgpu_mem_address_mask",
       "safe: selects GPGPU-Sim's built-in mapping; superseded by gpgpu_mem_addr_mapping "
       "(imported)"},
      {"gpgpu_registers_per_block",
       "missing: no per-CTA register limit besides sm.registers (equal, 65536, in QV100)"},
      {"network_mode",
       "safe: BookSim (1) or GPGPU-Sim's crossbar (2); both shipped networks are crossbars, "
       "modelled by mem.icnt (topology crossbar)"},
      {"inter_config_file",
       "safe: BookSim file not read; its crossbar values (config_fermi_islip.icnt) are the "
       "preset's mem.icnt.* values"},
      {"icnt_arbiter_algo",
       "missing: the crossbar arbitrates round robin per output; iSLIP (1) is not modelled"},
      // SM mechanisms simtlab does not have.
      {"gpgpu_pipeline_widths",
       "missing: widths of the issue/operand-collector/execute pipeline registers; simtlab "
       "limits issue by schedulers and units' initiation intervals only"},
      {"gpgpu_operand_collector_num_units_sfu",
       "missing: one collector pool (sm.collector_units, from the SP count) serves all units"},
      {"gpgpu_operand_collector_num_in_ports_sp", "missing: collector port counts"},
      {"gpgpu_operand_collector_num_out_ports_sp", "missing: collector port counts"},
      {"gpgpu_operand_collector_num_in_ports_gen", "missing: collector port counts"},
      {"gpgpu_operand_collector_num_out_ports_gen", "missing: collector port counts"},
      {"gpgpu_enable_specialized_operand_collector",
       "safe: simtlab's collector is one general pool (gpgpu_operand_collector_num_units_gen "
       "is imported as sm.collector_units)"},
      {"gpgpu_reg_file_port_throughput",
       "missing: one read per register bank per cycle (no multi-ported banks)"},
      {"gpgpu_sub_core_model",
       "missing: Volta's SM sub-cores (per-scheduler register file slice and units); "
       "simtlab's schedulers share the collectors and units"},
      {"gpgpu_tensor_core_avail", "safe: tensor instructions (wmma) always run"},
      {"gpgpu_num_tensor_core_units",
       "missing: tensor instructions use sm.tensor latency/interval on one shared unit"},
      {"gpgpu_inst_fetch_throughput",
       "missing: instructions fetched per cycle (sm.fetch_width counts warps, not "
       "instructions)"},
      // Unified L1 (Volta).
      {"gpgpu_adaptive_cache_config",
       "missing: the per-kernel L1/shared carve-out; the L1D keeps the -gpgpu_cache:dl1 size"},
      {"gpgpu_shmem_option", "missing: carve-out choices of the adaptive L1/shared split"},
      {"gpgpu_unified_l1d_size", "missing: the unified L1/shared capacity (adaptive split)"},
      {"gpgpu_l1_banks", "missing: L1D bank conflicts"},
      {"gpgpu_l1_cache_write_ratio", "missing: the L1 ways writes may allocate"},
      // DRAM.
      {"dram_dual_bus_interface",
       "missing: HBM's separate row and column command buses (one command per cycle)"},
  };
  auto it = r.find(name);
  return it == r.end() ? std::string() : it->second;
}

bool is_gpgpusim_config(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::is_regular_file(path)) return false;
  if (fs::path(path).filename() == "gpgpusim.config" || fs::path(path).extension() == ".config")
    return true;
  std::ifstream f(path);
  std::string line;
  for (int i = 0; i < 50 && std::getline(f, line); ++i)
    if (line.rfind("-gpgpu_", 0) == 0 || line.rfind("-ptx_", 0) == 0) return true;
  return false;
}

GpgpusimImport import_gpgpusim_config(const std::string& path, const config::Schema& schema) {
  std::ifstream f(path);
  if (!f) fatal("cannot read GPGPU-Sim config '{}'", path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  GpgpusimImport out;
  struct Option {
    std::string value;
    int line = 0;
  };
  std::map<std::string, Option> values;  // a repeated option: the last one wins (GPGPU-Sim)
  std::vector<std::string> order;
  const auto at = [&](int line) { return fmt::format("{}:{}", path, line); };
  std::istringstream in(text);
  std::string line, pending_opt, pending_val;
  int line_no = 0, pending_line = 0;
  bool in_quote = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (in_quote) {
      // Continuation of a quoted value ("nbk=16:CCD=2:... \n  CL=12:...").
      pending_val += trim(line);
      if (line.find('"') != std::string::npos) {
        in_quote = false;
        values[pending_opt] = Option{trim(pending_val), pending_line};
      }
      continue;
    }
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    line = strip(line);  // not trim: a closing quote must stay for the count below
    if (line.empty()) continue;
    if (line[0] != '-')
      fatal("{}: expected an option line '-name value', got '{}'", at(line_no), line);
    const size_t sp = line.find_first_of(" \t");
    const std::string opt = line.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
    if (opt.empty() || opt.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789_:") != std::string::npos)
      fatal("{}: malformed option name '-{}'", at(line_no), opt);
    std::string val = sp == std::string::npos ? "" : trim(line.substr(sp));
    if (!values.count(opt)) order.push_back(opt);
    if (std::count(line.begin(), line.end(), '"') == 1) {
      in_quote = true;
      pending_opt = opt;
      pending_val = val;
      pending_line = line_no;
      continue;
    }
    values[opt] = Option{val, line_no};
  }
  if (in_quote) fatal("{}: -{}: unterminated quoted value", at(pending_line), pending_opt);

  // Modelled options: map, then check each value against its parameter's type and rules here,
  // so errors name the line and the option.
  const auto fail = [&](const std::string& opt, const std::string& why) {
    fatal("{}: -{}: {}", at(values[opt].line), opt, why);
  };
  const auto add = [&](const std::string& opt, const std::string& key, const std::string& v) {
    const config::ParamDecl* d = schema.find(key);
    if (!d) return false;
    config::Value parsed;
    if (auto err = config::parse_value(d->kind, v, parsed)) fail(opt, key + ": " + *err);
    if (auto msg = d->validate(parsed))
      fail(opt, fmt::format("{}: {}, got {}", key, *msg, config::display_text(parsed)));
    out.overrides.push_back(key + "=" + v);
    out.origins.push_back(fmt::format("{}: -{}", at(values[opt].line), opt));
    return true;
  };
  std::string clusters_opt, cores, buswidth_opt, per_ctrlr;
  uint64_t clusters = 0, buswidth = 0;
  for (const std::string& opt : order) {
    auto it = mappers().find(opt);
    bool used = false;
    if (it != mappers().end()) {
      const std::string& v = values[opt].value;
      if (v.empty()) fail(opt, "missing value");
      std::vector<std::pair<std::string, std::string>> emitted;
      bool ok = false;
      try {
        ok = it->second(v, [&](const std::string& k, const std::string& x) {
          emitted.push_back({k, x});
        });
      } catch (const Malformed& m) {
        fail(opt, m.why);
      }
      if (ok) {
        for (auto& [k, x] : emitted) {
          if (k == "@clusters") {
            clusters_opt = opt;
            clusters = std::stoull(x);
          } else if (k == "@cores_per_cluster") {
            cores = x;
          } else if (k == "@buswidth") {
            buswidth_opt = opt;
            buswidth = std::stoull(x);
          } else if (k == "@mem_per_ctrlr") {
            per_ctrlr = x;
          } else if (k == "@note") {
            out.notes.push_back(x);
          } else if (k == "@ok") {
            used = true;
          } else {
            used = add(opt, k, x) || used;
          }
        }
        if (opt == "gpgpu_n_clusters" || opt == "gpgpu_n_cores_per_cluster" ||
            opt == "gpgpu_dram_buswidth" || opt == "gpgpu_n_mem_per_ctrlr")
          used = true;
      }
    }
    if (!used) out.ignored.push_back(opt);
  }
  // Products of two options (the numbers were checked by their mappers; std::stoull cannot
  // fail on them). Reported at the first option's line.
  if (!clusters_opt.empty()) {
    const uint64_t n = clusters * (cores.empty() ? 1 : std::stoull(cores));
    add(clusters_opt, "gpu.num_sms", std::to_string(n));
  }
  // Same-address atomics: the fermi-gtx480 base preset has Fermi's one per 9 clocks; Kepler and
  // later do one per clock (GK110 whitepaper: 9x Fermi), so a config for compute capability
  // 3.0+ gets 1 (GPGPU-Sim has no option for it).
  if (auto it = values.find("gpgpu_compute_capability_major");
      it != values.end() && !it->second.value.empty() &&
      it->second.value.find_first_not_of("0123456789") == std::string::npos &&
      it->second.value.size() < 4 && std::stoul(it->second.value) >= 3) {
    add("gpgpu_compute_capability_major", "mem.l2.atomic_same_addr_interval", "1");
    out.notes.push_back(
        "compute capability " + it->second.value +
        ": same-address atomics at one per clock (mem.l2.atomic_same_addr_interval=1; Kepler "
        "GK110 whitepaper: 9x Fermi's rate)");
  }
  // Data-bus bytes per channel = chips per controller x bytes per chip.
  if (!buswidth_opt.empty())
    add(buswidth_opt, "mem.dram.bus_width",
        std::to_string(buswidth * (per_ctrlr.empty() ? 1 : std::stoull(per_ctrlr))));
  return out;
}

}  // namespace simtlab::tools
