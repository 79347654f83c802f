#include "runtime/engine_factory.h"

#include <cstdlib>
#include <string>

#include "timing/gpu/gpu.h"

namespace simtlab::runtime {

std::unique_ptr<func::Engine> make_timing_engine(const timing::GpuParams& params,
                                                 Session& session) {
  auto gpu = std::make_unique<timing::Gpu>(params);
  gpu->enable_progress(session.options().progress, session.options().progress_tty,
                       session.options().progress_interval);
  if (!session.options().trace_path.empty()) {
    uint64_t b = 0, e = ~uint64_t(0);
    if (const char* w = std::getenv("SIMTLAB_TRACE_WINDOW"); w && *w) {
      const std::string s = w;
      const size_t c = s.find(':');
      if (c != std::string::npos) {
        if (c > 0) b = std::stoull(s.substr(0, c));
        if (c + 1 < s.size()) e = std::stoull(s.substr(c + 1));
      }
    }
    gpu->enable_trace(b, e);
  }
  return gpu;
}

}  // namespace simtlab::runtime
