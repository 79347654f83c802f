// Source of golden_cfg.ptx (nvcc 13.0: nvcc -ptx -arch=sm_75 golden_cfg.cu -o golden_cfg.ptx).
// Small kernels whose control-flow graphs and reconvergence points are checked by hand in
// tests/golden/ptx/. Regenerating the PTX is never needed for the tests; if it is
// regenerated, re-derive the IPDOMs in tests/golden/ptx/README.md.

// A loop with a data-dependent break: two ways out of the loop.
extern "C" __global__ void loop_break(const int* in, int* out, int n, int key) {
  int i = 0;
  int found = -1;
  for (; i < n; ++i) {
    if (in[i] == key) {
      found = i;
      break;
    }
  }
  out[threadIdx.x] = found;
}

// Nested if/else with a different atomic in every arm, so nvcc keeps real branches.
extern "C" __global__ void nested_if(const int* in, int* out) {
  int t = threadIdx.x;
  int v = in[t];
  if (v > 0) {
    if (v > 100)
      atomicAdd(&out[0], v);
    else
      atomicMax(&out[1], v);
    atomicOr(&out[2], v);
  } else {
    atomicMin(&out[3], v);
  }
  out[t + 4] = v;
}

// Early return: threads that leave early never reconverge with the others before exit.
extern "C" __global__ void early_return(const float* in, float* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float x = in[t];
  if (x < 0.0f) {
    out[t] = 0.0f;
    return;
  }
  out[t] = x * 2.0f;
}

// A device function with several return points, kept out of line.
extern "C" __device__ __noinline__ int classify(int v) {
  if (v < 0) return -1;
  if (v == 0) return 0;
  if (v > 1000) {
    asm volatile("exit;");
  }
  return 1;
}

extern "C" __global__ void multi_exit(const int* in, int* out) {
  int t = threadIdx.x;
  out[t] = classify(in[t]);
}
