// The power model's view of a configuration (src/power/model.h): what the analytical area and
// energy models need from GpuParams.
#pragma once

#include "power/model.h"
#include "timing/gpu_params.h"

namespace simtlab::timing {

power::Arch power_arch(const GpuParams& p);
/// The model of a configuration (loads power.coefficients; throws UserError on a bad set).
power::Model power_model(const GpuParams& p);

}  // namespace simtlab::timing
