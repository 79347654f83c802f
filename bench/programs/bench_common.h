// Shared helpers of the simtlab benchmark programs (bench/programs/*.cu).
//
// Every program is an ordinary CUDA program: build it with `nvcc -cudart shared` and run it on
// a GPU or under `simtlab run`. Each one checks its own result and prints PASSED (exit 0) or
// FAILED: ... (exit 1). Optional command-line arguments scale the problem size; the defaults
// are what scripts/bench.sh runs.
#pragma once

#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

// Abort main() with a message if a CUDA runtime call fails.
#define CUDA_CHECK(call)                                           \
  do {                                                             \
    cudaError_t err_ = (call);                                     \
    if (err_ != cudaSuccess) {                                     \
      printf("FAILED: %s: %s\n", #call, cudaGetErrorString(err_)); \
      return 1;                                                    \
    }                                                              \
  } while (0)

// Integer argument argv[i] if present and positive, else `def`.
static inline long arg_or(int argc, char** argv, int i, long def) {
  if (argc > i) {
    long v = strtol(argv[i], nullptr, 0);
    if (v > 0) return v;
  }
  return def;
}
