#include "runtime/engine_factory.h"

namespace simtlab::runtime {

// Until the timing model is linked in, runs fall back to functional mode.
std::unique_ptr<func::Engine> make_timing_engine(const timing::GpuParams&, Session&) { return nullptr; }

}  // namespace simtlab::runtime
