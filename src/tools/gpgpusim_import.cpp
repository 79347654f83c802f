#include "tools/gpgpusim_import.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "base/error.h"

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

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '"'))
    s.pop_back();
  size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t' || s[b] == '"')) ++b;
  return s.substr(b);
}

using Emit = std::function<void(const std::string& key, const std::string& value)>;
using Mapper = std::function<bool(const std::string& value, const Emit& emit)>;

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
      e("@clusters", v);
      return true;
    };
    t["gpgpu_n_cores_per_cluster"] = [](const std::string& v, const Emit& e) {
      e("@cores_per_cluster", v);
      return true;
    };
    t["gpgpu_clock_domains"] = [](const std::string& v, const Emit& e) {
      auto p = split(v, ":");
      if (p.size() != 4) return false;
      e("gpu.core_mhz", p[0]);
      e("gpu.icnt_mhz", p[1]);
      e("gpu.l2_mhz", p[2]);
      e("gpu.dram_mhz", p[3]);
      return true;
    };
    t["gpgpu_shader_core_pipeline"] = [](const std::string& v, const Emit& e) {
      auto p = split(v, ":");
      if (p.size() != 2) return false;
      e("sm.max_threads", p[0]);
      e("sm.warp_size", p[1]);
      e("sm.num_warps", std::to_string(std::stoul(p[0]) / std::max(1ul, std::stoul(p[1]))));
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
      } else {
        return false;
      }
      return true;
    };
    auto lat = [](const char* cls, const char* field, std::vector<const char*> units) {
      return Mapper([cls, field, units](const std::string& v, const Emit& e) {
        auto p = split(v, ",");
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
    return t;
  }();
  return m;
}

}  // namespace

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
  // Join continuation lines of quoted values ("nbk=16:CCD=2:... \n  CL=12:...").
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  GpgpusimImport out;
  std::map<std::string, std::string> values;
  std::vector<std::string> order;
  std::istringstream in(text);
  std::string line, pending_opt, pending_val;
  bool in_quote = false;
  while (std::getline(in, line)) {
    if (in_quote) {
      pending_val += trim(line);
      if (line.find('"') != std::string::npos) {
        in_quote = false;
        values[pending_opt] = trim(pending_val);
      }
      continue;
    }
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty() || line[0] != '-') continue;
    const size_t sp = line.find_first_of(" \t");
    const std::string opt = line.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
    std::string val = sp == std::string::npos ? "" : trim(line.substr(sp));
    if (std::count(line.begin(), line.end(), '"') == 1) {
      in_quote = true;
      pending_opt = opt;
      pending_val = val;
      order.push_back(opt);
      continue;
    }
    if (!values.count(opt)) order.push_back(opt);
    values[opt] = val;
  }
  std::string clusters, cores;
  for (const std::string& opt : order) {
    auto it = mappers().find(opt);
    bool used = false;
    if (it != mappers().end()) {
      std::vector<std::pair<std::string, std::string>> emitted;
      const bool ok = it->second(values[opt], [&](const std::string& k, const std::string& v) {
        emitted.push_back({k, v});
      });
      if (ok) {
        for (auto& [k, v] : emitted) {
          if (k == "@clusters")
            clusters = v;
          else if (k == "@cores_per_cluster")
            cores = v;
          else if (schema.find(k)) {
            out.overrides.push_back(k + "=" + v);
            used = true;
          }
        }
        if (opt == "gpgpu_n_clusters" || opt == "gpgpu_n_cores_per_cluster") used = true;
      }
    }
    if (!used) out.ignored.push_back(opt);
  }
  if (!clusters.empty())
    out.overrides.push_back(fmt::format(
        "gpu.num_sms={}", std::stoul(clusters) * (cores.empty() ? 1 : std::stoul(cores))));
  return out;
}

}  // namespace simtlab::tools
