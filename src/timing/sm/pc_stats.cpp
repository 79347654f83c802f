#include "timing/sm/pc_stats.h"

#include <map>
#include <tuple>

#include "func/program.h"
#include "ptx/ir.h"

namespace simtlab::timing {

using nlohmann::json;

bool PcCounters::any() const {
  if (execs || transactions || rf_bank_conflicts || smem_extra_passes || divergent) return true;
  for (uint64_t v : stalls)
    if (v) return true;
  return false;
}

namespace {

// Every counter in column order (see pc_stats_columns).
std::vector<uint64_t> values(const PcCounters& c) {
  std::vector<uint64_t> v{c.execs, c.thread_insts};
  uint64_t total = 0;
  for (size_t r = 0; r < size_t(Stall::count_); ++r) {
    if (r == size_t(Stall::idle)) continue;
    v.push_back(c.stalls[r]);
    if (r != size_t(Stall::issued)) total += c.stalls[r];
  }
  v.push_back(total);
  for (uint64_t x : {c.sb_mem, c.sb_alu, c.rf_bank_conflicts, c.smem_extra_passes, c.transactions,
                     c.l1_misses, c.l2_misses, c.divergent})
    v.push_back(x);
  return v;
}

}  // namespace

std::vector<std::string> pc_stats_columns() {
  std::vector<std::string> c{"execs", "thread_insts"};
  const auto labels = stall_labels(true, true, true);  // every Stall value
  for (size_t r = 0; r < size_t(Stall::count_); ++r)
    if (r != size_t(Stall::idle)) c.push_back("stall_" + labels[r]);
  c.push_back("stall_total");
  for (const char* n : {"sb_mem", "sb_alu", "rf_bank_conflicts", "smem_extra_passes",
                        "transactions", "l1_misses", "l2_misses", "divergent"})
    c.push_back(n);
  return c;
}

json pc_stats_json(const PcStats& s, const func::Program& prog) {
  const std::vector<std::string> cols = pc_stats_columns();
  const ptx::Module& m = *prog.ir;
  json files = json::array();
  for (const std::string& f : m.files) files.push_back(f);
  if (files.empty()) files.push_back("");

  // Per instruction.
  json pcs = json::array(), fn = json::array(), ptx_line = json::array(), text = json::array(),
       file = json::array(), line = json::array();
  std::vector<json> colv(cols.size(), json::array());
  // Per source line: (file, line) -> summed counters; instructions without .loc go to (0, 0).
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> lines;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> line_insts;
  for (size_t pc = 0; pc < s.pc.size() && pc < prog.code.size(); ++pc) {
    const PcCounters& c = s.pc[pc];
    if (!c.any()) continue;
    const func::DInst& d = prog.code[pc];
    const std::vector<uint64_t> v = values(c);
    pcs.push_back(pc);
    fn.push_back(prog.funcs[d.func].name);
    const ptx::Instruction* in = d.in;
    ptx_line.push_back(in ? in->line : 0);
    text.push_back(in ? std::string(in->text) : std::string("<end of function>"));
    const uint32_t sf = in ? in->src_file : 0, sl = in ? in->src_line : 0;
    file.push_back(sf);
    line.push_back(sl);
    for (size_t k = 0; k < v.size(); ++k) colv[k].push_back(v[k]);
    auto& acc = lines[{sf, sl}];
    if (acc.empty()) acc.assign(v.size(), 0);
    for (size_t k = 0; k < v.size(); ++k) acc[k] += v[k];
    ++line_insts[{sf, sl}];
  }
  json inst = {{"pc", pcs},    {"function", fn}, {"ptx_line", ptx_line},
               {"text", text}, {"file", file},   {"line", line}};
  for (size_t k = 0; k < cols.size(); ++k) inst[cols[k]] = std::move(colv[k]);

  json lf = json::array(), ll = json::array(), ln = json::array();
  std::vector<json> lcol(cols.size(), json::array());
  for (const auto& [key, v] : lines) {
    lf.push_back(key.first);
    ll.push_back(key.second);
    ln.push_back(line_insts[key]);
    for (size_t k = 0; k < v.size(); ++k) lcol[k].push_back(v[k]);
  }
  json lj = {{"file", lf}, {"line", ll}, {"instructions", ln}};
  for (size_t k = 0; k < cols.size(); ++k) lj[cols[k]] = std::move(lcol[k]);

  return {{"files", files},
          {"ptx_file", m.file},
          {"columns", cols},
          {"instructions", inst},
          {"lines", lj}};
}

}  // namespace simtlab::timing
