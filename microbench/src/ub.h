// Shared helpers of the calibration microbenchmarks (microbench/README.md).
// Every result is one machine-readable line on stdout:
//   ubench <name> <value> <unit>
// Lines starting with '#' describe the method; scripts/calibrate.py ignores them.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define UB_CHECK(x)                                                                            \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

inline void ub_print(const char* name, double v, const char* unit) {
  std::printf("ubench %s %.3f %s\n", name, v, unit);
}

// argv contains `name` (or no benchmark names at all: run everything).
inline bool ub_selected(int argc, char** argv, const char* name) {
  bool any = false;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    any = true;
    if (std::strcmp(argv[i], name) == 0) return true;
  }
  return !any;
}

// Value of option --key=N (or the default).
inline long long ub_opt(int argc, char** argv, const char* key, long long def) {
  const size_t n = std::strlen(key);
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], key, n) == 0 && argv[i][n] == '=') return std::atoll(argv[i] + n + 1);
  return def;
}

// SM clock in kHz as the device reports it (the simulator: gpu.core_mhz).
inline double ub_sm_khz() {
  int khz = 0;
  UB_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  return double(khz);
}
