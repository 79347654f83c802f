// Source of golden_misc.ptx (nvcc 13.0: nvcc -ptx -arch=sm_75 golden_misc.cu -o golden_misc.ptx).
// Representative kernels for the golden dumps in tests/golden/ptx/: static + dynamic shared
// memory with barriers and warp shuffles, device printf (call sequence with a param block and
// a local depot), and inline PTX with a scoped register block.
#include <cstdio>

extern "C" __global__ void block_reduce(const float* in, float* out, int n) {
  extern __shared__ float partial[];
  __shared__ int count;
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  float v = i < n ? in[i] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (t == 0) count = 0;
  __syncthreads();
  if ((t & 31) == 0) {
    partial[t / 32] = v;
    atomicAdd(&count, 1);
  }
  __syncthreads();
  if (t == 0) {
    float s = 0.0f;
    for (int w = 0; w < count; ++w) s += partial[w];
    atomicAdd(out, s);
  }
}

extern "C" __global__ void say_hello(int tag, double x) {
  if (threadIdx.x == 0) printf("block %d tag %d x %f\n", blockIdx.x, tag, x);
}

extern "C" __global__ void asm_scoped(unsigned* out) {
  unsigned lane, r;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\tsetp.ne.u32 p, %1, 0;\n\tselp.b32 t, 7, 9, p;\n\t"
      "add.u32 %0, t, %1;\n\t}"
      : "=r"(r)
      : "r"(lane));
  out[threadIdx.x] = r;
}
