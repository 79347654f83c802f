// The research mechanisms that attach to an SM (src/timing/sm/sm_policy.h): one factory per
// mechanism in sm_policies.cpp, each returning nothing when its switch is off.
#pragma once

#include <memory>
#include <vector>

#include "stats/group.h"
#include "timing/sm/sm_policy.h"

namespace simtlab::timing {

struct SmParams;
class LdstUnit;

/// Whether any SM mechanism is switched on (the SM then adds the `throttled` stall reason).
bool sm_policies_on(const SmParams& p);
/// The SM's policies, in hook order (empty when every mechanism is off).
std::vector<std::unique_ptr<SmPolicy>> make_sm_policies(const SmParams& p, stats::Group& sm,
                                                        LdstUnit& ldst);

}  // namespace simtlab::timing
