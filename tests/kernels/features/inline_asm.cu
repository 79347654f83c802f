// inline_asm: inline PTX asm: arithmetic with register constraints (r, l, f, d, h), predicates
// and setp/selp, special registers (%laneid, %warpid, %smid, %nsmid, %clock, %clock64,
// %globaltimer, %tid), vector ld/st, volatile asm with memory clobber, braces with local
// registers, and asm-defined labels/branches (compiled to PTX only).
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void inlineAsm(const int* in, int* out, float* fout, double* dout, unsigned long long* lout) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int a = in[i], b = in[(i + 1) % blockDim.x], r;
  asm("add.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  asm("mad.lo.s32 %0, %0, %1, 7;" : "+r"(r) : "r"(b));
  int m;
  asm("{\n\t"
      ".reg .pred p;\n\t"
      "setp.gt.s32 p, %1, %2;\n\t"
      "selp.s32 %0, %1, %2, p;\n\t"
      "}" : "=r"(m) : "r"(a), "r"(b));
  float f = (float)a, g;
  asm("fma.rn.f32 %0, %1, %1, 0f3F800000;" : "=f"(g) : "f"(f));   // f*f + 1.0
  double d = (double)b, e;
  asm("sqrt.rn.f64 %0, %1;" : "=d"(e) : "d"(d * d + 1.0));
  unsigned long long big;
  asm("mul.wide.s32 %0, %1, %2;" : "=l"(big) : "r"(a), "r"(b));
  unsigned short hs;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(hs) : "f"(f));
  unsigned lane, warp, sm, nsm, clk, tid;
  unsigned long long clk64, gt;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  asm volatile("mov.u32 %0, %%clock;" : "=r"(clk));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(clk64));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  asm("mov.u32 %0, %%tid.x;" : "=r"(tid));
  // Absolute value with an asm branch.
  int absA;
  asm("{\n\t"
      ".reg .pred n;\n\t"
      "mov.s32 %0, %1;\n\t"
      "setp.ge.s32 n, %1, 0;\n\t"
      "@n bra.uni DONE_%=;\n\t"
      "neg.s32 %0, %1;\n\t"
      "DONE_%=:\n\t"
      "}" : "=r"(absA) : "r"(a));
  out[i * 4 + 0] = r + m + absA;
  out[i * 4 + 1] = (int)(lane + 32 * (tid / 32 == warp ? 0 : 1));
  out[i * 4 + 2] = (int)(sm < nsm) + (int)hs;
  out[i * 4 + 3] = (int)(clk & 1);
  fout[i] = g;
  dout[i] = e;
  lout[i] = big ^ (clk64 & 0) ^ (gt & 0);
}

// Vector loads/stores and a memory-clobbering volatile store through asm.
__global__ void asmMemory(float4* data, int* flag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x, y, z, w;
  asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(x), "=f"(y), "=f"(z), "=f"(w) : "l"(data + i));
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(data + i), "f"(w), "f"(z), "f"(y), "f"(x) : "memory");
  if (i == 0) asm volatile("st.volatile.global.s32 [%0], %1;" :: "l"(flag), "r"(1) : "memory");
  asm volatile("membar.gl;" ::: "memory");
}
