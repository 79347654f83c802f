// Test harness: run a PTX kernel on a functional Device with host buffers.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "func/device.h"

namespace simtlab::testing {

class PtxRunner {
 public:
  explicit PtxRunner(func::DeviceOptions opt = {}) : dev_(opt) {
    dev_.set_print_sink([this](const std::string& s) { printed += s; });
  }
  explicit PtxRunner(const std::string& ptx) : PtxRunner() { load(ptx); }
  void load(const std::string& ptx) { mod_ = &dev_.load_module({{ptx, "test.ptx"}}); }

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
  /// Launch with arguments given as raw values (each pointed to by args).
  template <typename... A>
  func::LaunchResult launch(const std::string& kernel, Dim3 grid, Dim3 block, uint32_t dyn,
                            A... a) {
    const func::Program* k = mod_->kernel(kernel);
    if (!k) throw UserError("no kernel " + kernel);
    const void* args[] = {static_cast<const void*>(&a)..., nullptr};
    return dev_.launch(*k, grid, block, dyn, dev_.pack_params(*k, args));
  }
  func::Device& dev() { return dev_; }
  func::LoadedModule& mod() { return *mod_; }
  std::string printed;

 private:
  func::Device dev_;
  func::LoadedModule* mod_ = nullptr;
};

/// Wrap a kernel body in a module header.
inline std::string ptx_module(const std::string& body) {
  return ".version 9.0\n.target sm_75\n.address_size 64\n" + body;
}

}  // namespace simtlab::testing
