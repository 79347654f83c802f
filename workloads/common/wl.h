// Shared helpers for simtlab's workload programs (workloads/src/*.cu). Written for simtlab;
// no code from any benchmark suite.
//
// Contract of a workload program (see workloads/README.md):
//  * inputs are generated in the program from a fixed seed (wl::Rng), never read from files;
//  * every result is compared with a CPU reference, exactly or within a stated tolerance;
//  * the output is deterministic (no timings, addresses or device names) and its last line is
//    exactly `PASSED` (exit 0) or `FAILED: <what>` (exit 1);
//  * the first positional argument, where the program has one, scales the problem (wl::arg_int).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda_runtime.h>

// Check a CUDA runtime call; on error print `FAILED: <call>: <error>` and exit(1).
#define WL_CK(call)                                                                       \
  do {                                                                                    \
    cudaError_t wl_e_ = (call);                                                           \
    if (wl_e_ != cudaSuccess) {                                                           \
      std::printf("FAILED: %s: %s (%s:%d)\n", #call, cudaGetErrorString(wl_e_), __FILE__, \
                  __LINE__);                                                              \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

// Check the launch just made (cudaGetLastError) and wait for it (cudaDeviceSynchronize).
#define WL_CK_LAUNCH()              \
  do {                              \
    WL_CK(cudaGetLastError());      \
    WL_CK(cudaDeviceSynchronize()); \
  } while (0)

namespace wl {

// Deterministic 64-bit generator (SplitMix64, Steele et al., OOPSLA 2014). Same sequence on
// every host; use one per input array with its own seed.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t u32() { return uint32_t(next() >> 32); }
  // Uniform integer in [lo, hi] (inclusive).
  int range(int lo, int hi) { return lo + int(u32() % uint32_t(hi - lo + 1)); }
  // Uniform float in [0, 1) with 24 random bits (exactly representable).
  float unit() { return float(u32() >> 8) * (1.0f / 16777216.0f); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * unit(); }
};

// Positional integer argument `index` (1-based, as in argv), or `def` when absent. Exits with a
// usage message on a malformed or out-of-range value.
inline long arg_int(int argc, char** argv, int index, long def, long lo = 1, long hi = 1L << 40) {
  if (argc <= index) return def;
  char* end = nullptr;
  long v = std::strtol(argv[index], &end, 10);
  if (!end || *end || v < lo || v > hi) {
    std::printf("FAILED: argument %d '%s' must be an integer in [%ld, %ld]\n", index, argv[index],
                lo, hi);
    std::exit(1);
  }
  return v;
}

// Positional string argument, or `def` when absent.
inline std::string arg_str(int argc, char** argv, int index, const char* def) {
  return argc > index ? std::string(argv[index]) : std::string(def);
}

// Compare n floats: |got - ref| <= atol + rtol * |ref|. Prints the first mismatch and the count.
template <typename T>
bool check_close(const char* what, const T* got, const T* ref, size_t n, double rtol, double atol) {
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double g = double(got[i]), r = double(ref[i]);
    const double err = std::fabs(g - r);
    if (!(err <= atol + rtol * std::fabs(r))) {  // NaN counts as a mismatch
      if (!bad) first = i;
      ++bad;
    }
    if (err > worst) worst = err;
  }
  if (bad) {
    std::printf("FAILED: %s: %zu of %zu values differ; first at [%zu]: got %.9g, expected %.9g\n",
                what, bad, n, first, double(got[first]), double(ref[first]));
    return false;
  }
  return true;
}

// Compare n values exactly (integers, or floats computed in the same order).
template <typename T>
bool check_equal(const char* what, const T* got, const T* ref, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!(got[i] == ref[i])) {
      std::printf("FAILED: %s: [%zu] is %.17g, expected %.17g\n", what, i, double(got[i]),
                  double(ref[i]));
      return false;
    }
  return true;
}

// Print the final line and give main's return value.
inline int finish(bool ok) {
  if (ok) std::printf("PASSED\n");
  return ok ? 0 : 1;
}

}  // namespace wl
