#include "timing/mem_backend.h"

#include "timing/mem/memory_system.h"

namespace simtlab::timing {

namespace {

class FixedBackend : public MemBackend {
 public:
  FixedBackend(uint64_t latency, const sim::ClockDomain* core) : latency_(latency), core_(core) {}
  std::unique_ptr<SmMemPort> port(uint32_t) override {
    return std::make_unique<FixedLatencyMemory>(latency_, core_);
  }

 private:
  uint64_t latency_;
  const sim::ClockDomain* core_;
};

class FullPort : public SmMemPort {
 public:
  FullPort(MemorySystem& m, uint32_t sm) : m_(m), sm_(sm) {}
  bool can_send() override { return m_.can_send(sm_); }
  void send(const MemReq& r) override { m_.send(sm_, r); }
  const MemResp* peek() override { return m_.peek(sm_); }
  MemResp pop() override { return m_.pop(sm_); }

 private:
  MemorySystem& m_;
  uint32_t sm_;
};

class FullBackend : public MemBackend {
 public:
  FullBackend(const GpuParams& p, sim::Simulation& sim, sim::ClockDomain& icnt,
              sim::ClockDomain& l2, sim::ClockDomain& dram, stats::Group& root)
      : mem_(p.mem, sim, MemoryDomains{icnt, l2, dram}, p.gpu.num_sms, root) {}
  std::unique_ptr<SmMemPort> port(uint32_t sm) override {
    return std::make_unique<FullPort>(mem_, sm);
  }
  void attach(uint32_t sm, sim::Component& c) override { mem_.attach_sm(sm, c); }
  void update_stats() override { mem_.update_stats(); }
  void copy_engine_write(Addr a, uint64_t n) override { mem_.copy_engine_write(a, n); }

 private:
  MemorySystem mem_;
};

}  // namespace

std::unique_ptr<MemBackend> make_memory_backend(const GpuParams& p, sim::Simulation& sim,
                                                sim::ClockDomain& core, sim::ClockDomain& icnt,
                                                sim::ClockDomain& l2, sim::ClockDomain& dram,
                                                stats::Group& root) {
  if (p.sim.memory_model == "full")
    return std::make_unique<FullBackend>(p, sim, icnt, l2, dram, root);
  return std::make_unique<FixedBackend>(p.sim.fixed_memory_latency, &core);
}

}  // namespace simtlab::timing
