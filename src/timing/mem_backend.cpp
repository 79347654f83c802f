#include "timing/mem_backend.h"

namespace simtlab::timing {

namespace {

class FixedBackend : public MemBackend {
 public:
  FixedBackend(uint64_t latency, const sim::ClockDomain* core) : latency_(latency), core_(core) {}
  std::unique_ptr<SmMemPort> port(uint32_t) override { return std::make_unique<FixedLatencyMemory>(latency_, core_); }

 private:
  uint64_t latency_;
  const sim::ClockDomain* core_;
};

}  // namespace

std::unique_ptr<MemBackend> make_memory_backend(const GpuParams& p, sim::Simulation& sim, sim::ClockDomain& core,
                                                sim::ClockDomain& icnt, sim::ClockDomain& l2, sim::ClockDomain& dram,
                                                stats::Group& root) {
  (void)sim;
  (void)icnt;
  (void)l2;
  (void)dram;
  (void)root;
  return std::make_unique<FixedBackend>(p.sim.fixed_memory_latency, &core);
}

}  // namespace simtlab::timing
