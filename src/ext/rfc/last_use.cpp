#include "ext/rfc/last_use.h"

#include <algorithm>
#include <memory>

#include "ptx/cfg.h"
#include "ptx/ir.h"

namespace simtlab::ext {

const std::vector<uint8_t>& last_use_masks(const func::Program& p) {
  if (p.last_use) return *p.last_use;
  auto masks = std::make_shared<std::vector<uint8_t>>(p.code.size(), 0);
  std::vector<uint32_t> uses;
  for (const func::ProgFunction& pf : p.funcs) {
    if (pf.builtin || !p.ir || pf.module_func >= p.ir->funcs.size()) continue;
    const ptx::Function& f = p.ir->funcs[pf.module_func];
    const auto last = ptx::last_uses(f);
    for (uint32_t i = 0; i < f.insts.size() && pf.begin + i < pf.end; ++i) {
      const uint32_t pc = pf.begin + i;
      if (p.code[pc].in != &f.insts[i] || last[i].empty()) continue;
      // DInst::src lists the registers in ptx::inst_uses order (func/decode.cpp).
      ptx::inst_uses(f.insts[i], uses);
      uint8_t m = 0;
      for (size_t k = 0; k < uses.size() && k < 8; ++k)
        if (std::binary_search(last[i].begin(), last[i].end(), uses[k])) m |= uint8_t(1u << k);
      (*masks)[pc] = m;
    }
  }
  p.last_use = masks;
  return *p.last_use;
}

}  // namespace simtlab::ext
