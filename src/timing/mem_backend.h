// The memory system as the SMs see it: a factory of per-SM ports. Two implementations:
//   fixed  every request answered after sim.fixed_memory_latency core cycles (a stand-in for
//          unit tests and quick functional-timing runs)
//   full   interconnect + L2 slices + DRAM channels (timing/mem/memory_system.h)
// selected by mem.model.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/sim.h"
#include "stats/group.h"
#include "timing/gpu_params.h"
#include "timing/sm/mem_port.h"

namespace simtlab::timing {

class MemBackend {
 public:
  virtual ~MemBackend() = default;
  virtual std::unique_ptr<SmMemPort> port(uint32_t sm) = 0;
  /// Connect SM `sm`'s component (responses wake it).
  virtual void attach(uint32_t sm, sim::Component& c) {}
  /// Bring time-integrated statistics up to date before a snapshot.
  virtual void update_stats() {}
  /// The copy engine wrote [a, a + n) of device memory (cudaMemcpy, cudaMemset): the full
  /// memory system leaves the lines in the L2 (MemorySystem::copy_engine_write).
  virtual void copy_engine_write(Addr a, uint64_t n) {
    (void)a;
    (void)n;
  }
};

std::unique_ptr<MemBackend> make_memory_backend(const GpuParams& p, sim::Simulation& sim,
                                                sim::ClockDomain& core, sim::ClockDomain& icnt,
                                                sim::ClockDomain& l2, sim::ClockDomain& dram,
                                                stats::Group& root);

}  // namespace simtlab::timing
