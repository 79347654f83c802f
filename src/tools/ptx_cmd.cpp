// The `simtlab ptx` subcommands: check, cfg, passes, dump and regs (see add_ptx_commands).
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "base/error.h"
#include "ext/greener/analysis.h"
#include "func/memory.h"
#include "func/module.h"
#include "func/regcheck.h"
#include "ptx/dump.h"
#include "ptx/fatbin.h"
#include "ptx/parser.h"
#include "ptx/regalloc.h"
#include "ptx/relssp.h"
#include "tools/commands.h"

namespace simtlab::tools {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fatal("cannot open '{}'", path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

ptx::Module load(const std::vector<std::string>& files) {
  ptx::Module m;
  for (const auto& f : files) ptx::add_translation_unit(m, read_file(f), f);
  ptx::finalize_module(m);
  return m;
}

}  // namespace

void add_ptx_commands(CLI::App& app) {
  auto* ptx = app.add_subcommand("ptx", "Inspect PTX modules");
  ptx->require_subcommand(1);

  auto* check = ptx->add_subcommand("check", "Parse PTX and print each kernel's resources");
  static std::vector<std::string> check_files;
  check->add_option("files", check_files, "PTX files (several = one linked -rdc program)")
      ->required()
      ->check(CLI::ExistingFile);
  check->callback([] {
    ptx::Module m = load(check_files);
    std::cout << ptx::describe_module(m);
  });

  auto* cfg = ptx->add_subcommand("cfg", "Print basic blocks, edges and reconvergence points");
  static std::string cfg_file, cfg_kernel;
  static bool cfg_dot = false;
  cfg->add_option("file", cfg_file, "PTX file")->required()->check(CLI::ExistingFile);
  cfg->add_option("--kernel,-k", cfg_kernel, "kernel or function name")->required();
  cfg->add_flag("--dot", cfg_dot, "emit Graphviz DOT");
  cfg->callback([] {
    ptx::Module m = load({cfg_file});
    const ptx::Function* f = m.find_function(cfg_kernel);
    if (!f || !f->defined) {
      std::string names;
      for (const auto& g : m.funcs)
        if (g.defined) names += " " + g.name;
      fatal("no function '{}' in {} (defined:{})", cfg_kernel, cfg_file, names);
    }
    std::cout << ptx::dump_cfg(m, *f, cfg_dot);
  });

  auto* regs = ptx->add_subcommand(
      "regs", "Allocate architectural registers: per instruction the registers and live count");
  static std::string regs_file, regs_kernel;
  static bool regs_map = false;
  static uint32_t regs_cap = 255;
  regs->add_option("file", regs_file,
                   "PTX file, or a CUDA executable/fatbin (then ptxas's count from its cubin is "
                   "printed next to the allocation)")
      ->required()
      ->check(CLI::ExistingFile);
  regs->add_option("--kernel,-k", regs_kernel, "kernel or function name (default: all)");
  regs->add_flag("--map", regs_map, "also list every virtual register's assignment");
  regs->add_option("--cap", regs_cap, "registers per thread above which the count is reported")
      ->check(CLI::Range(1u, 255u));
  static std::vector<uint32_t> regs_reserved;
  regs->add_option("--reserve", regs_reserved,
                   "R register numbers never allocated, counted as used (with --plain; the "
                   "SASS model reserves R1 on sm_70+)")
      ->check(CLI::Range(0u, 254u));
  static bool regs_plain = false;
  regs->add_flag("--plain", regs_plain,
                 "allocate the PTX as written: no constant-bank operands, load hoisting, "
                 "stack pointer, calling convention or spilling (see docs/registers.md)");
  static bool regs_const = false, regs_no_hoist = false;
  regs->add_flag("--constant-operands", regs_const,
                 "SASS model with constant-bank operands (parameters, %ntid, immediates read "
                 "from the bank; see docs/registers.md)");
  regs->add_flag("--no-hoist", regs_no_hoist, "SASS model without load hoisting");
  static uint32_t regs_sm = 0;
  regs->add_option("--sm", regs_sm, "target for the SASS model (default: the file's .target)")
      ->check(CLI::Range(10u, 200u));
  regs->callback([] {
    // A CUDA executable (or fatbin/cubin): its PTX, and ptxas's counts from its cubins.
    ptx::Module m;
    std::map<std::string, uint32_t> cubin_regs;
    std::ifstream probe(regs_file, std::ios::binary);
    char magic[4] = {};
    probe.read(magic, 4);
    const bool binary =
        (magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F') ||
        (uint8_t(magic[0]) == 0x50 && uint8_t(magic[1]) == 0xed && uint8_t(magic[2]) == 0x55 &&
         uint8_t(magic[3]) == 0xba);
    if (binary) {
      const auto entries = ptx::fatbin::from_host_binary(regs_file);
      for (const auto& e : entries)
        if (e.kind == ptx::fatbin::EntryKind::Elf)
          for (const auto& k : ptx::fatbin::cubin_kernels(e.image)) cubin_regs[k.name] = k.regs;
      for (const ptx::fatbin::Entry* e : ptx::fatbin::select_ptx(entries, 90))
        ptx::add_translation_unit(m, e->ptx, regs_file);
      ptx::finalize_module(m);
    } else {
      m = load({regs_file});
    }
    std::vector<ptx::RegAlloc> all;
    if (regs_plain) {
      ptx::RegAllocOptions opt;
      opt.cap = regs_cap;
      opt.reserved = regs_reserved;
      for (const auto& f : m.funcs)
        all.push_back(f.defined ? ptx::allocate_registers(f, opt) : ptx::RegAlloc{});
    } else {
      uint32_t sm = regs_sm;
      for (const auto& t : m.target)
        if (!sm && t.rfind("sm_", 0) == 0) sm = uint32_t(std::atoi(t.c_str() + 3));
      ptx::RegAllocOptions opt = ptx::RegAllocOptions::sass(sm ? sm : 75, regs_cap);
      for (uint32_t r : regs_reserved) opt.reserved.push_back(r);
      if (regs_const) opt.constant_operands = true;
      if (regs_no_hoist) opt.hoist_loads = false;
      all = ptx::allocate_module(m, opt);
    }
    bool found = false;
    for (size_t i = 0; i < m.funcs.size(); ++i) {
      const auto& f = m.funcs[i];
      if (!f.defined || (!regs_kernel.empty() && f.name != regs_kernel)) continue;
      found = true;
      std::string text = ptx::format_allocation(f, all[i], regs_map);
      if (auto it = cubin_regs.find(f.name); it != cubin_regs.end())
        text.insert(text.find('\n'), fmt::format("; ptxas (cubin): {} registers", it->second));
      std::cout << text;
    }
    if (!found) {
      std::string names;
      for (const auto& g : m.funcs)
        if (g.defined) names += " " + g.name;
      fatal("no function '{}' in {} (defined:{})", regs_kernel, regs_file, names);
    }
  });

  // ---- GREENER (issue #18, src/ext/greener); also `ptx passes --pass greener` ----
  auto* gr = ptx->add_subcommand(
      "greener", "GREENER register power states per instruction (thesis ch. 4 analysis)");
  static std::string gr_file, gr_kernel;
  static uint32_t gr_w = 3, gr_src = 2, gr_dst = 1, gr_cap = 255;
  gr->add_option("file", gr_file, "PTX file")->required()->check(CLI::ExistingFile);
  gr->add_option("--kernel,-k", gr_kernel, "kernel name")->required();
  gr->add_option("--window,-W", gr_w, "threshold distance W in instructions (default 3)");
  gr->add_option("--enc-src", gr_src, "source operands that carry a state (default 2)");
  gr->add_option("--enc-dst", gr_dst, "destination operands that carry a state (default 1)");
  gr->add_option("--cap", gr_cap, "registers per thread (SASS-model allocation cap)");
  gr->callback([] {
    func::GlobalMemory mem;
    func::LoadedModule lm(mem, {{read_file(gr_file), gr_file}});
    const func::Program* p = lm.kernel(gr_kernel);
    if (!p) {
      std::string names;
      for (const auto& n : lm.kernel_names()) names += " " + n;
      fatal("no kernel '{}' in {} (kernels:{})", gr_kernel, gr_file, names);
    }
    const auto am = func::build_arch_map(*p, gr_cap);
    std::cout << ext::greener::annotate(*p, *am, gr_w, gr_src, gr_dst);
  });
  // ---- end GREENER ----

  // `ptx passes`: run compiler passes by name and print the transformed kernel. A small
  // dispatch: each pass name maps to a function over the module and the kernel.
  auto* passes = ptx->add_subcommand(
      "passes",
      "Run PTX passes (relssp, relssp-postdom, minimize, split-critical, greener) on a "
      "kernel and print the transformed code (greener: the per-instruction power states)");
  static std::string passes_file, passes_kernel;
  static std::vector<std::string> passes_list;
  static double passes_t = 0.1;
  passes->add_option("file", passes_file, "PTX file")->required()->check(CLI::ExistingFile);
  passes->add_option("--kernel,-k", passes_kernel, "kernel name")->required();
  passes
      ->add_option("--pass,-p", passes_list,
                   "passes in order, comma-separated: relssp (opt placement), relssp-postdom, "
                   "minimize (shared-region variable layout), split-critical, greener (register "
                   "power states of the unmodified kernel, W = --window)")
      ->delimiter(',')
      ->required();
  passes->add_option("--threshold,-t", passes_t, "sharing threshold t (private fraction)");
  static uint32_t passes_w = 3;
  passes->add_option("--window,-W", passes_w, "GREENER threshold distance W (default 3)");
  passes->callback([] {
    ptx::Module m = load({passes_file});
    const ptx::Function* kf = m.find_function(passes_kernel);
    if (!kf || !kf->defined) fatal("no function '{}' in {}", passes_kernel, passes_file);
    ptx::Function& f = m.funcs[m.func_index.at(passes_kernel)];
    std::string notes;
    bool greener = false;
    auto relssp = [&](ptx::RelsspOptions::Mode mode, bool minimize) {
      ptx::RelsspOptions o;
      o.mode = mode;
      o.minimize = minimize;
      o.t = passes_t;
      auto reps = ptx::run_relssp_passes(m, o);
      reps.erase(
          std::remove_if(reps.begin(), reps.end(),
                         [](const ptx::RelsspReport& r) { return r.kernel != passes_kernel; }),
          reps.end());
      notes += ptx::format_relssp_reports(m, reps);
    };
    for (const std::string& p : passes_list) {
      if (p == "relssp")
        relssp(ptx::RelsspOptions::Mode::opt, false);
      else if (p == "relssp-postdom")
        relssp(ptx::RelsspOptions::Mode::postdom, false);
      else if (p == "minimize")
        relssp(ptx::RelsspOptions::Mode::none, true);
      else if (p == "split-critical")
        notes += fmt::format("// split-critical: {} edges split\n",
                             ptx::split_edges(f, ptx::critical_edges(f)));
      else if (p == "greener")
        greener = true;
      else
        fatal("unknown pass '{}' (relssp, relssp-postdom, minimize, split-critical, greener)", p);
    }
    if (greener) {  // GREENER annotates the kernel as loaded (the decoded program)
      if (passes_list.size() != 1)
        fatal("--pass greener runs alone (it reads the kernel as loaded)");
      func::GlobalMemory mem;
      func::LoadedModule lm(mem, {{read_file(passes_file), passes_file}});
      const func::Program* prog = lm.kernel(passes_kernel);
      if (!prog) fatal("no kernel '{}' in {}", passes_kernel, passes_file);
      std::cout << ext::greener::annotate(*prog, *func::build_arch_map(*prog, 255), passes_w, 2, 1);
      return;
    }
    std::cout << notes << ptx::dump_function(m, f);
  });

  auto* dump = ptx->add_subcommand("dump", "Print the decoded IR of every function");
  static std::string dump_file;
  dump->add_option("file", dump_file, "PTX file")->required()->check(CLI::ExistingFile);
  dump->callback([] {
    ptx::Module m = load({dump_file});
    for (const auto& f : m.funcs)
      if (f.defined) std::cout << ptx::dump_function(m, f);
  });
}

}  // namespace simtlab::tools
