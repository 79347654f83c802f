// Uniform / affine / variant value classifier (Collange, Defour, Zhang, Euro-Par 2010; GPGPU
// book 3.5, Table 3.1): every register of every warp carries a tag, set at each write by
// propagating the tags of the instruction's sources:
//  - uniform (U): the same value in every lane; affine (A): base + lane * stride;
//    variant (V): anything else;
//  - sources: immediates, kernel parameters and special registers that are the same for the
//    whole warp (%ctaid, %ntid, %nctaid, %warpid ...) are U; %laneid is A; %tid.x is A when the
//    block's x extent is a multiple of the warp size (a warp then holds consecutive x), else V;
//    %tid.y/.z are U under the same condition (or when the block is one-dimensional);
//  - integer add/sub: U+U=U, U+A=A+U=A, otherwise V; integer mul: U*U=U, otherwise V; shl:
//    a << U has a's tag, a << A/V is V (Table 3.1, which is conservative: A+A and U*A are V);
//    mad is mul then add; mov and integer cvt/cvta copy the tag;
//  - loads from constant, kernel-parameter or shared memory at a uniform address broadcast one
//    value (U); every other load, atomics, shuffles, matches, textures and calls are V;
//    vote/redux/activemask give one value to the whole warp (U);
//  - any other instruction is U when all its sources are U, else V;
//  - a write by only some of the warp's live lanes (divergence or a guard predicate) leaves a
//    mix of old and new values: V (Kim et al. 2013 call the expansion "eager").
// An instruction is counted under the tag of its result (the largest over its destinations);
// one without a destination (store, branch) under the largest tag of its sources: a uniform
// instruction could run on a scalar unit, an affine one on an affine unit (the book's
// "scalarisable" opportunity).
//
// The classifier observes the functional model's executed instructions (sm/issue.cpp calls
// on_issue after each step); it changes nothing that is simulated.
#pragma once

#include <cstdint>
#include <vector>

#include "ext/classify/classify_params.h"
#include "func/program.h"
#include "stats/group.h"

namespace simtlab::func {
struct Warp;
struct WarpInstRecord;
struct LaunchState;
}  // namespace simtlab::func

namespace simtlab::ext {

enum class VTag : uint8_t { uniform = 0, affine = 1, variant = 2 };
const char* vtag_name(VTag t);

/// Tags of one warp's registers (absolute value and predicate slots, as the functional model
/// lays out call frames).
struct WarpTags {
  std::vector<VTag> regs, preds;
  VTag reg(uint32_t a) const { return a < regs.size() ? regs[a] : VTag::uniform; }
  VTag pred(uint32_t a) const { return a < preds.size() ? preds[a] : VTag::uniform; }
  void set_reg(uint32_t a, VTag t) {
    if (a >= regs.size()) regs.resize(a + 1, VTag::uniform);
    regs[a] = t;
  }
  void set_pred(uint32_t a, VTag t) {
    if (a >= preds.size()) preds.resize(a + 1, VTag::uniform);
    preds[a] = t;
  }
};

/// What the special registers are for a launch (see above).
struct LaunchShape {
  bool tid_x_affine = true;
  bool tid_yz_uniform = true;
  static LaunchShape of(const func::LaunchState& l);
};

/// Propagates the tags of one executed instruction `d` (in the frame with the given bases) and
/// returns the instruction's class. `full_write`: every live lane of the warp executed it.
VTag classify_inst(const func::Program& prog, const func::DInst& d, uint32_t reg_base,
                   uint32_t pred_base, bool full_write, const LaunchShape& shape, WarpTags& tags,
                   uint32_t* writes_by_tag = nullptr);

class ValueClassifier {
 public:
  ValueClassifier(const ClassifyParams& p, uint32_t warps, stats::Group& sm_stats);
  /// After warp slot `slot` executed `rec` (its func::Warp state is after the instruction) in
  /// the call frame whose first value/predicate slots are `reg_base`/`pred_base`.
  void on_issue(uint32_t slot, const func::Warp& fw, const func::WarpInstRecord& rec,
                const func::LaunchState& launch, uint32_t reg_base, uint32_t pred_base);
  const WarpTags& tags(uint32_t slot) const { return warps_[slot]; }

 private:
  ClassifyParams p_;
  std::vector<WarpTags> warps_;
  stats::Group& g_;
  stats::Counter* insts_[3];
  stats::Counter* writes_[3];
  stats::Counter* all_ = nullptr;
};

}  // namespace simtlab::ext
