// bf16_sm80: native sm_80 bfloat16 arithmetic (fma.rn.bf16/bf16x2, min/max, neg/abs),
// conversions and bf16 atomics. Built with -arch=sm_80 (PTX only).
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void bf16Native(const __nv_bfloat16* a, const __nv_bfloat16* b, const __nv_bfloat162* a2,
                           __nv_bfloat16* out, __nv_bfloat162* out2, float* fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 x = a[i], y = b[i];
  __nv_bfloat16 f = __hfma(x, y, x);
  __nv_bfloat16 r = __hfma_relu(x, y, __hneg(y)) + __hmax_nan(x, y) + __hmin(x, y) + __habs(f);
  __nv_bfloat162 v = a2[i];
  __nv_bfloat162 w = __hfma2(v, v, v) + __hmul2(v, __floats2bfloat162_rn(0.5f, 2.0f));
  w = __hmax2(w, __hneg2(v));
  out[i] = f + r + x * y - y / x;
  out2[i] = w;
  fout[i] = __bfloat162float(out[i]) + __low2float(w) + __high2float(w) + (__hgt(x, y) ? 1.0f : 0.0f);
  atomicAdd(&out[n], x);
  atomicAdd(&out2[n], v);
}
