// Creates the timing engine for a run (implemented by the timing library); returns nullptr
// when this build has no timing model.
#pragma once

#include <memory>

#include "func/device.h"
#include "runtime/session.h"
#include "timing/gpu_params.h"

namespace simtlab::runtime {

std::unique_ptr<func::Engine> make_timing_engine(const timing::GpuParams& params, Session& session);

}  // namespace simtlab::runtime
