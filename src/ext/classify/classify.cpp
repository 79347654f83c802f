#include "ext/classify/classify.h"

#include <algorithm>

#include "func/record.h"
#include "func/warp.h"

namespace simtlab::ext {

using func::DInst;
using func::DOp;
using ptx::Op;

const char* vtag_name(VTag t) {
  switch (t) {
    case VTag::uniform:
      return "uniform";
    case VTag::affine:
      return "affine";
    default:
      return "variant";
  }
}

LaunchShape LaunchShape::of(const func::LaunchState& l) {
  LaunchShape s;
  const bool whole_rows = l.block.x % l.warp_size == 0;
  s.tid_x_affine = whole_rows || (l.block.count() <= l.warp_size && l.block.y * l.block.z == 1);
  s.tid_yz_uniform = whole_rows || (l.block.y == 1 && l.block.z == 1);
  return s;
}

namespace {

inline VTag vmax(VTag a, VTag b) { return a > b ? a : b; }

VTag sreg_tag(const DOp& o, const LaunchShape& s) {
  switch (o.sreg) {
    case ptx::Sreg::tid:
      if (o.comp == 0) return s.tid_x_affine ? VTag::affine : VTag::variant;
      return s.tid_yz_uniform ? VTag::uniform : VTag::variant;
    case ptx::Sreg::laneid:
      return VTag::affine;
    case ptx::Sreg::lanemask_eq:
    case ptx::Sreg::lanemask_le:
    case ptx::Sreg::lanemask_lt:
    case ptx::Sreg::lanemask_ge:
    case ptx::Sreg::lanemask_gt:
      return VTag::variant;
    default:
      return VTag::uniform;  // per warp, CTA, SM or grid
  }
}

struct Ctx {
  const func::Program& prog;
  uint32_t reg_base, pred_base;
  const LaunchShape& shape;
  WarpTags& tags;

  VTag op(const DOp& o) const {
    switch (o.kind) {
      case DOp::k_reg:
        return tags.reg(reg_base + o.slot);
      case DOp::k_pred:
        return tags.pred(pred_base + o.slot);
      case DOp::k_sreg:
        return sreg_tag(o, shape);
      case DOp::k_vec: {
        VTag t = VTag::uniform;
        for (unsigned i = 0; i < o.count; ++i) t = vmax(t, op(prog.elems[o.slot + i]));
        return t;
      }
      case DOp::k_frame:
        return VTag::variant;  // per-thread local memory
      default:
        return VTag::uniform;  // immediates, sinks
    }
  }
};

VTag add_rule(VTag a, VTag b) {
  if (a == VTag::uniform)
    return b == VTag::uniform ? VTag::uniform : b == VTag::affine ? VTag::affine : VTag::variant;
  if (b == VTag::uniform && a == VTag::affine) return VTag::affine;
  return VTag::variant;
}
VTag mul_rule(VTag a, VTag b) {
  return a == VTag::uniform && b == VTag::uniform ? VTag::uniform : VTag::variant;
}
VTag shl_rule(VTag value, VTag amount) { return amount == VTag::uniform ? value : VTag::variant; }

}  // namespace

VTag classify_inst(const func::Program& prog, const DInst& d, uint32_t reg_base, uint32_t pred_base,
                   bool full_write, const LaunchShape& shape, WarpTags& tags,
                   uint32_t* writes_by_tag) {
  const ptx::Instruction& in = *d.in;
  Ctx c{prog, reg_base, pred_base, shape, tags};
  const unsigned nd = std::min<unsigned>(in.ndst, d.nops);
  // Largest tag over all sources: register operands (d.src, which includes address bases and
  // registers inside vector operands) and special registers.
  VTag all = VTag::uniform;
  for (unsigned i = 0; i < d.nsrc; ++i) {
    const uint16_t s = d.src[i];
    all = vmax(all, s >= func::kPredSlotBase ? tags.pred(pred_base + (s - func::kPredSlotBase))
                                             : tags.reg(reg_base + s));
  }
  for (unsigned j = nd; j < d.nops; ++j)
    if (d.op[j].kind == DOp::k_sreg) all = vmax(all, sreg_tag(d.op[j], shape));
  if (d.guard >= 0) all = vmax(all, tags.pred(pred_base + uint32_t(d.guard)));
  if (d.ndst == 0) return all;

  // The result tag.
  const bool integer = !ptx::is_float(in.type);
  auto src = [&](unsigned j) { return j < d.nops ? c.op(d.op[j]) : VTag::uniform; };
  VTag r = all == VTag::uniform ? VTag::uniform : VTag::variant;
  switch (in.op) {
    case Op::add:
    case Op::sub:
      if (integer && nd == 1) r = add_rule(src(1), src(2));
      break;
    case Op::mul:
    case Op::mul24:
      if (integer && nd == 1) r = mul_rule(src(1), src(2));
      break;
    case Op::mad:
    case Op::mad24:
      if (integer && nd == 1) r = add_rule(mul_rule(src(1), src(2)), src(3));
      break;
    case Op::shl:
      if (nd == 1) r = shl_rule(src(1), src(2));
      break;
    case Op::mov:
    case Op::cvta:
      if (nd == 1 && d.nops == 2) r = src(1);
      break;
    case Op::cvt:
      if (integer && !ptx::is_float(in.type2) && nd == 1) r = src(1);
      break;
    case Op::ld:
    case Op::ldu: {
      const bool broadcast = d.aspace == func::AddrSpace::const_ ||
                             d.aspace == func::AddrSpace::kparam ||
                             d.aspace == func::AddrSpace::shared;
      const VTag a =
          d.addr.base_slot >= 0 ? tags.reg(reg_base + uint32_t(d.addr.base_slot)) : VTag::uniform;
      r = broadcast && a == VTag::uniform ? VTag::uniform : VTag::variant;
      break;
    }
    case Op::vote:
    case Op::redux:
    case Op::activemask:
      r = VTag::uniform;
      break;
    case Op::atom:
    case Op::red:
    case Op::shfl:
    case Op::match:
    case Op::tex:
    case Op::tld4:
    case Op::suld:
    case Op::ldmatrix:
    case Op::mma:
    case Op::wmma:
    case Op::call:
    case Op::elect:
    case Op::bar:
    case Op::barrier:
      r = VTag::variant;
      break;
    default:
      break;
  }
  if (!full_write) r = VTag::variant;
  for (unsigned i = 0; i < d.ndst; ++i) {
    const uint16_t s = d.dst[i];
    if (s >= func::kPredSlotBase)
      tags.set_pred(pred_base + (s - func::kPredSlotBase), r);
    else
      tags.set_reg(reg_base + s, r);
    if (writes_by_tag) ++writes_by_tag[size_t(r)];
  }
  return r;
}

ValueClassifier::ValueClassifier(const ClassifyParams& p, uint32_t warps, stats::Group& sm_stats)
    : p_(p), warps_(warps), g_(sm_stats.child("classify")) {
  insts_[0] = &g_.counter("insts_uniform", "warp instructions",
                          "Warp instructions whose result (or, without one, every source) is "
                          "uniform: scalar-unit candidates");
  insts_[1] = &g_.counter("insts_affine", "warp instructions",
                          "Warp instructions whose result is affine (base + lane * stride)");
  insts_[2] = &g_.counter("insts_variant", "warp instructions",
                          "Warp instructions with a variant result or source");
  writes_[0] = &g_.counter("writes_uniform", "register writes", "Register results tagged uniform");
  writes_[1] = &g_.counter("writes_affine", "register writes", "Register results tagged affine");
  writes_[2] = &g_.counter("writes_variant", "register writes", "Register results tagged variant");
  all_ = &g_.counter("insts", "warp instructions", "Warp instructions classified");
  g_.ratio("uniform_frac", "", "Share of warp instructions that are uniform", "insts_uniform",
           "insts");
  g_.ratio("affine_frac", "", "Share of warp instructions that are affine", "insts_affine",
           "insts");
}

void ValueClassifier::on_issue(uint32_t slot, const func::Warp& fw, const func::WarpInstRecord& rec,
                               const func::LaunchState& launch, uint32_t rb, uint32_t pb) {
  WarpTags& t = warps_[slot];
  if (fw.insts == 1) {  // the warp's first instruction: a new warp in this slot
    t.regs.clear();
    t.preds.clear();
  }
  const DInst& d = *rec.inst;
  if (!d.in) return;  // function end
  const LaneMask live = fw.valid & ~fw.exited;
  const bool full = (rec.exec & live) == live && rec.exec != 0;
  uint32_t w[3] = {0, 0, 0};
  const VTag c = classify_inst(*launch.prog, d, rb, pb, full, LaunchShape::of(launch), t, w);
  ++*insts_[size_t(c)];
  for (int i = 0; i < 3; ++i) *writes_[i] += w[i];
  ++*all_;
}

}  // namespace simtlab::ext
