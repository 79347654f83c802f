#include "func/regcheck.h"

#include <algorithm>
#include <cstdlib>

namespace simtlab::func {

uint32_t ptx_target_sm(const ptx::Module& m) {
  for (const std::string& t : m.target)
    if (t.rfind("sm_", 0) == 0) return uint32_t(std::atoi(t.c_str() + 3));
  return 75;
}

std::unique_ptr<RegAliases> build_reg_aliases(
    const Program& p, const std::function<void(const ptx::Function&, ptx::RegAlloc&)>& tweak) {
  auto out = std::make_unique<RegAliases>();
  std::vector<std::vector<AliasCopy>> per_pc(p.code.size());
  std::vector<uint32_t> roots;
  for (const ProgFunction& pf : p.funcs)
    if (!pf.builtin) roots.push_back(pf.module_func);
  const std::vector<ptx::RegAlloc> all =
      ptx::allocate_module(*p.ir, ptx::RegAllocOptions::sass(ptx_target_sm(*p.ir)), roots);
  for (const ProgFunction& pf : p.funcs) {
    if (pf.builtin || pf.reg_slot.empty()) continue;
    const ptx::Function& f = p.ir->funcs[pf.module_func];
    ptx::RegAlloc a = all[pf.module_func];
    if (tweak) tweak(f, a);
    const size_t n = f.regs.size();
    // Registers by architectural register they occupy (values and predicates apart).
    uint32_t top = 0, ptop = 0;
    for (const ptx::ArchReg& r : a.regs)
      if (r.base >= 0) {
        if (r.pred)
          ptop = std::max<uint32_t>(ptop, uint32_t(r.base) + 1);
        else
          top = std::max<uint32_t>(top, uint32_t(r.base) + r.width);
      }
    std::vector<std::vector<uint32_t>> on(top), pon(ptop);
    for (uint32_t r = 0; r < n; ++r) {
      const ptx::ArchReg& ar = a.regs[r];
      if (ar.base < 0) continue;
      if (ar.pred)
        pon[uint32_t(ar.base)].push_back(r);
      else
        for (uint32_t k = 0; k < ar.width; ++k) on[uint32_t(ar.base) + k].push_back(r);
    }
    // Slot -> register, to read the decoded destinations back.
    std::vector<int32_t> reg_of_slot(pf.nregs, -1), reg_of_pslot(pf.npreds, -1);
    for (uint32_t r = 0; r < n; ++r) {
      if (f.regs[r].is_pred())
        reg_of_pslot[pf.reg_slot[r]] = int32_t(r);
      else
        reg_of_slot[pf.reg_slot[r]] = int32_t(r);
    }
    // Alias copies of one destination register.
    auto copies_of = [&](uint32_t r, std::vector<AliasCopy>& v) {
      const ptx::ArchReg& ar = a.regs[r];
      // A constant-bank value writes no register; a spilled one writes its temporary (and
      // must not clobber a live value there) but is itself reloaded before every use, so it
      // is never a copy's target.
      if (ar.base < 0 || ar.home == ptx::RegHome::constant) return;
      const uint32_t b = uint32_t(ar.base);
      if (ar.pred) {
        for (uint32_t q : pon[b])
          if (q != r && a.regs[q].home == ptx::RegHome::reg)
            v.push_back({pf.reg_slot[r], pf.reg_slot[q], 0, 0, 0, true});
        return;
      }
      if (ar.width > 2) return;  // 128-bit values: not aliased (see the header)
      std::vector<uint32_t> seen;
      for (uint32_t k = 0; k < ar.width; ++k)
        for (uint32_t q : on[b + k]) {
          if (q == r || a.regs[q].home != ptx::RegHome::reg ||
              std::find(seen.begin(), seen.end(), q) != seen.end())
            continue;
          seen.push_back(q);
          const ptx::ArchReg& aq = a.regs[q];
          if (aq.width > 2) continue;
          const uint32_t lo = std::max(b, uint32_t(aq.base));
          const uint32_t hi = std::min(b + ar.width, uint32_t(aq.base) + aq.width);
          v.push_back({pf.reg_slot[r], pf.reg_slot[q], uint8_t(lo - b),
                       uint8_t(lo - uint32_t(aq.base)), uint8_t(hi - lo), false});
        }
    };
    for (uint32_t pc = pf.begin; pc < pf.end && pc < p.code.size(); ++pc) {
      const DInst& d = p.code[pc];
      for (uint32_t i = 0; i < d.ndst; ++i) {
        const uint16_t s = d.dst[i];
        const int32_t r = s >= kPredSlotBase ? (uint32_t(s - kPredSlotBase) < reg_of_pslot.size()
                                                    ? reg_of_pslot[s - kPredSlotBase]
                                                    : -1)
                                             : (s < reg_of_slot.size() ? reg_of_slot[s] : -1);
        if (r >= 0) copies_of(uint32_t(r), per_pc[pc]);
      }
    }
    for (uint32_t r = 0; r < n; ++r)
      if (a.regs[r].base >= 0 && !a.regs[r].pred)
        for (uint32_t k = 0; k < a.regs[r].width; ++k)
          out->shared_pairs += on[uint32_t(a.regs[r].base) + k].size() - 1;
  }
  out->begin.resize(p.code.size() + 1);
  for (size_t pc = 0; pc < p.code.size(); ++pc) {
    out->begin[pc] = uint32_t(out->copies.size());
    out->copies.insert(out->copies.end(), per_pc[pc].begin(), per_pc[pc].end());
  }
  out->begin[p.code.size()] = uint32_t(out->copies.size());
  return out;
}

void apply_reg_aliases(const RegAliases& a, Warp& w, uint32_t pc, LaneMask lanes) {
  for (uint32_t i = a.begin[pc]; i < a.begin[pc + 1]; ++i) {
    const AliasCopy& c = a.copies[i];
    if (c.pred) {
      w.P[c.to] = (w.P[c.to] & ~lanes) | (w.P[c.from] & lanes);
      continue;
    }
    uint64_t* from = w.R + size_t(c.from) * kMaxWarpSize;
    uint64_t* to = w.R + size_t(c.to) * kMaxWarpSize;
    for (LaneMask m = lanes; m; m &= m - 1) {
      const unsigned l = unsigned(__builtin_ctz(m));
      uint64_t v = to[l];
      for (uint32_t k = 0; k < c.words; ++k) {
        const uint64_t word = (from[l] >> (32 * (c.from_word + k))) & 0xffffffffu;
        const unsigned sh = 32 * (c.to_word + k);
        v = (v & ~(uint64_t(0xffffffffu) << sh)) | (word << sh);
      }
      to[l] = v;
    }
  }
}

std::shared_ptr<const ArchRegMap> build_arch_map(const Program& p, uint32_t cap) {
  auto out = std::make_shared<ArchRegMap>();
  out->cap = cap;
  out->pc.resize(p.code.size());
  out->count.assign(p.funcs.size(), 0);
  out->spilled.assign(p.funcs.size(), 0);
  ptx::RegAllocOptions opt = ptx::RegAllocOptions::sass(ptx_target_sm(*p.ir), cap);
  // .maxnreg lowers the cap of its function (allocate_module takes one cap: allocate those
  // again below).
  std::vector<uint32_t> roots;
  for (const ProgFunction& pf : p.funcs)
    if (!pf.builtin) roots.push_back(pf.module_func);
  std::vector<ptx::RegAlloc> all = ptx::allocate_module(*p.ir, opt, roots);
  for (size_t fi = 0; fi < p.funcs.size(); ++fi) {
    const ProgFunction& pf = p.funcs[fi];
    if (pf.builtin || pf.reg_slot.empty()) continue;
    const ptx::Function& f = p.ir->funcs[pf.module_func];
    ptx::RegAlloc& a = all[pf.module_func];
    if (f.maxnreg && f.maxnreg < cap) {
      ptx::RegAllocOptions o = opt;
      o.cap = f.maxnreg;
      o.callee_clobber.clear();
      a = ptx::allocate_registers(f, o);
    }
    out->count[fi] = a.count;
    out->spilled[fi] = a.spilled;
    out->max_spill_bytes = std::max(out->max_spill_bytes, a.spill_bytes);
    std::vector<int32_t> reg_of_slot(pf.nregs, -1);
    for (uint32_t r = 0; r < f.regs.size(); ++r)
      if (!f.regs[r].is_pred()) reg_of_slot[pf.reg_slot[r]] = int32_t(r);
    auto arch = [&](uint16_t slot, ArchOperand& o) {
      if (slot >= kPredSlotBase || slot >= reg_of_slot.size() || reg_of_slot[slot] < 0)
        return false;
      const ptx::ArchReg& ar = a.regs[size_t(reg_of_slot[slot])];
      if (ar.base < 0) return false;  // a constant-bank value read in place
      o.reg = uint16_t(ar.base);
      o.width = ar.width;
      return true;
    };
    for (uint32_t pc = pf.begin; pc < pf.end && pc < p.code.size(); ++pc) {
      const DInst& d = p.code[pc];
      ArchPc& ap = out->pc[pc];
      for (unsigned i = 0; i < d.nsrc; ++i) {
        ArchOperand o;
        if (!arch(d.src[i], o)) continue;
        ap.src[ap.nsrc++] = o;
        const ptx::ArchReg& ar = a.regs[size_t(reg_of_slot[d.src[i]])];
        if (ar.home == ptx::RegHome::spill && ap.nreload < 4) {
          bool dup = false;
          for (unsigned k = 0; k < ap.nreload; ++k) dup = dup || ap.reload[k].reg == o.reg;
          if (!dup) {
            if (!ap.nreload) ap.reload_offset = uint32_t(ar.spill_offset);
            ap.reload[ap.nreload++] = o;
          }
        }
      }
      for (unsigned i = 0; i < d.ndst; ++i) {
        ArchOperand o;
        if (!arch(d.dst[i], o)) continue;
        ap.dst[ap.ndst++] = o;
        const ptx::ArchReg& ar = a.regs[size_t(reg_of_slot[d.dst[i]])];
        if (ar.home == ptx::RegHome::spill && ap.nstore < 4) {
          if (!ap.nstore) ap.store_offset = uint32_t(ar.spill_offset);
          ap.store[ap.nstore++] = o;
        }
      }
      const size_t ip = d.in && !f.insts.empty() ? size_t(d.in - f.insts.data()) : SIZE_MAX;
      if (!a.spill_loads.empty() && ip < a.spill_loads.size()) {
        ap.reload_words = ap.nreload ? a.spill_loads[ip] : 0;
        ap.store_words = ap.nstore ? a.spill_stores[ip] : 0;
      }
    }
  }
  return out;
}

}  // namespace simtlab::func
