#include "ext/sm_policies.h"

#include "ext/ccws/ccws.h"
#include "ext/d2ma/xfer.h"
#include "ext/dyncta/dyncta.h"
#include "func/program.h"
#include "timing/sm/ldst.h"
#include "timing/sm/sm_params.h"

namespace simtlab::timing {

bool is_l1d_load(const func::DInst& d) {
  if (d.exec != ptx::ExecClass::mem || !d.in) return false;
  if (d.in->op != ptx::Op::ld && d.in->op != ptx::Op::ldu) return false;
  return d.aspace == func::AddrSpace::global || d.aspace == func::AddrSpace::local ||
         d.aspace == func::AddrSpace::generic;
}

namespace {
using Factory = std::unique_ptr<SmPolicy> (*)(const SmParams&, stats::Group&, LdstUnit&);

std::unique_ptr<SmPolicy> make_swl(const SmParams& p, stats::Group& g, LdstUnit&) {
  if (!p.swl.warps) return nullptr;
  return std::make_unique<ccws::SwlPolicy>(p.swl, p.num_warps, g);
}
std::unique_ptr<SmPolicy> make_ccws(const SmParams& p, stats::Group& g, LdstUnit& ldst) {
  if (!p.ccws.enable) return nullptr;
  return std::make_unique<ccws::CcwsPolicy>(p.ccws, p.num_warps, g, ldst);
}
std::unique_ptr<SmPolicy> make_dyncta(const SmParams& p, stats::Group& g, LdstUnit&) {
  if (!p.dyncta.enable) return nullptr;
  return std::make_unique<dyncta::DynctaPolicy>(p.dyncta, p.num_warps, p.max_ctas, g);
}

// A measurement, not a mechanism: baseline transfer regions (d2ma.xfer_regions, src/ext/d2ma).
std::unique_ptr<SmPolicy> make_xfer(const SmParams& p, stats::Group& g, LdstUnit&) {
  if (!p.d2ma.xfer_regions) return nullptr;
  return std::make_unique<ext::d2ma::XferRegions>(p.num_warps, g);
}

// Adding a mechanism: one factory here (and its params in SmParams / GpuParams::describe).
constexpr Factory kFactories[] = {make_dyncta, make_swl, make_ccws, make_xfer};
}  // namespace

bool sm_policies_on(const SmParams& p) {
  return p.ccws.enable || p.swl.warps || p.dyncta.enable || p.d2ma.enable;
}

std::vector<std::unique_ptr<SmPolicy>> make_sm_policies(const SmParams& p, stats::Group& sm,
                                                        LdstUnit& ldst) {
  std::vector<std::unique_ptr<SmPolicy>> v;
  for (Factory f : kFactories)
    if (auto q = f(p, sm, ldst)) v.push_back(std::move(q));
  return v;
}

}  // namespace simtlab::timing
