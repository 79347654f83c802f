// libFuzzer entry point for the PTX lexer/parser and the analyses behind `simtlab ptx` (built
// only with -DSIMTLAB_LIBFUZZER=ON and clang; see tests/unit/CMakeLists.txt). Run e.g.
//   build-fuzz/bin/ptx_libfuzzer -max_total_time=300 -dict=tests/data/ptx_corpus/ptx.dict \
//       /tmp/ptx_corpus tests/data/ptx_corpus
// Any exception other than simtlab::UserError (incl. DiagError) escapes and is reported as a
// crash, as are sanitizer errors and SIMTLAB_ASSERT failures.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "ptx/cfg.h"
#include "ptx/dump.h"
#include "ptx/layout.h"
#include "ptx/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace simtlab::ptx;
  try {
    Module m = parse_module(std::string(reinterpret_cast<const char*>(data), size), "fuzz.ptx");
    (void)describe_module(m);
    for (uint32_t fi = 0; fi < m.funcs.size(); ++fi) {
      const Function& f = m.funcs[fi];
      if (!f.defined) continue;
      (void)dump_function(m, f);
      (void)dump_cfg(m, f, true);
      (void)compute_liveness(f);
      for (uint32_t i = 0; i < f.insts.size(); ++i)
        if (f.insts[i].op == Op::bra) (void)reconvergence_pc(f, i);
      if (f.is_entry) (void)layout_kernel(m, fi);
    }
  } catch (const simtlab::UserError&) {
  }
  return 0;
}
