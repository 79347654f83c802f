// Test harness: run a PTX kernel on the timing model with chosen parameters (fixed-latency
// memory stand-in unless a test selects the full memory system).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "func/device.h"
#include "timing/gpu/gpu.h"
#include "timing/gpu_params.h"

namespace simtlab::testing {

/// Default parameters of the timing model (the fermi-gtx480 defaults), optionally with
/// overrides "path=value" applied through the config system.
inline timing::GpuParams timing_params(const std::vector<std::string>& sets = {}) {
  const auto schema = config::schema_of<timing::GpuParams>();
  config::Config cfg = config::Config::resolve(schema, {}, "", sets);
  timing::GpuParams p;
  cfg.apply(p);
  return p;
}

class TimingRunner {
 public:
  explicit TimingRunner(const timing::GpuParams& p) {
    auto g = std::make_unique<timing::Gpu>(p);
    gpu_ = g.get();
    dev_.set_engine(std::move(g));
    dev_.set_print_sink([this](const std::string& s) { printed += s; });
  }
  void load(const std::string& ptx) { mod_ = &dev_.load_module({{ptx, "timing_test.ptx"}}); }
  template <typename T>
  Addr upload(const std::vector<T>& v) {
    Addr a = dev_.malloc(std::max<size_t>(1, v.size() * sizeof(T)));
    dev_.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <typename T>
  std::vector<T> download(Addr a, size_t n) {
    std::vector<T> v(n);
    dev_.read(v.data(), a, n * sizeof(T));
    return v;
  }
  template <typename... A>
  func::LaunchResult launch(const std::string& kernel, Dim3 grid, Dim3 block, A... a) {
    const func::Program* k = mod_->kernel(kernel);
    const void* args[] = {static_cast<const void*>(&a)..., nullptr};
    last = dev_.launch(*k, grid, block, 0, dev_.pack_params(*k, args), 8, options);
    stats = nlohmann::json::parse(last.stats_json);
    return last;
  }
  /// A counter of SM 0 from the last launch's stats ("warp_insts", "stall" vector entries...).
  uint64_t sm0(const std::string& name) const {
    return stats["sm[0]"][name]["value"].get<uint64_t>();
  }
  uint64_t sm0_stall(const std::string& reason) const {
    return stats["sm[0]"]["stall"]["values"][reason].get<uint64_t>();
  }
  timing::Gpu& gpu() { return *gpu_; }
  func::Device& dev() { return dev_; }
  func::LaunchOptions options;  // of every launch (thread-block clusters, ...)
  func::LaunchResult last;
  nlohmann::json stats;
  std::string printed;

 private:
  func::Device dev_;
  timing::Gpu* gpu_ = nullptr;
  func::LoadedModule* mod_ = nullptr;
};

}  // namespace simtlab::testing
