// warp_intrinsics: shuffles of every flavour and type, votes, __activemask, __match_any_sync /
// __match_all_sync (sm_70+), __syncwarp with masks, lane masks via PTX special registers, and
// the bit-count intrinsics used with ballots (compiled to PTX only, default arch).
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void shuffles(const int* in, int* out, float* fout, double* dout, long long* lout) {
  unsigned t = threadIdx.x, lane = t % 32;
  int v = in[blockIdx.x * blockDim.x + t];
  float f = v * 0.5f; double d = v * 0.25; long long l = (long long)v << 33;
  unsigned long long ul = (unsigned long long)v * 3;
  __half2 h = __floats2half2_rn(f, -f);
  int r = __shfl_sync(0xffffffff, v, 0) + __shfl_sync(0xffffffff, v, lane ^ 7, 16) +
          __shfl_up_sync(0xffffffff, v, 1) + __shfl_up_sync(0xffffffff, v, 2, 8) +
          __shfl_down_sync(0xffffffff, v, 5) + __shfl_down_sync(0xffffffff, v, 1, 4) +
          __shfl_xor_sync(0xffffffff, v, 3) + __shfl_xor_sync(0xffffffff, v, 1, 2) +
          (int)__shfl_sync(0xffffffff, (unsigned)v, 31 - lane);
  float rf = __shfl_sync(0xffffffff, f, lane + 1) + __shfl_down_sync(0xffffffff, f, 16) + __shfl_xor_sync(0xffffffff, f, 8);
  double rd = __shfl_sync(0xffffffff, d, 3) + __shfl_up_sync(0xffffffff, d, 4) + __shfl_xor_sync(0xffffffff, d, 31);
  long long rl = __shfl_sync(0xffffffff, l, 7) + __shfl_down_sync(0xffffffff, l, 2) +
                 (long long)__shfl_xor_sync(0xffffffff, ul, 16);
  __half2 rh = __shfl_xor_sync(0xffffffff, h, 1);
  out[blockIdx.x * blockDim.x + t] = r;
  fout[blockIdx.x * blockDim.x + t] = rf + __low2float(rh) + __high2float(rh);
  dout[blockIdx.x * blockDim.x + t] = rd;
  lout[blockIdx.x * blockDim.x + t] = rl;
}

__global__ void votes(const int* in, unsigned* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  int v = in[blockIdx.x * blockDim.x + t];
  unsigned b = __ballot_sync(0xffffffff, v > 0);
  int any = __any_sync(0xffffffff, v == 42);
  int all = __all_sync(0xffffffff, v != 0);
  int uni = __uni_sync(0xffffffff, v & 1);
  unsigned act = __activemask();
  unsigned sub = 0;
  if (lane < 16) {                        // divergent region with a partial mask
    sub = __ballot_sync(0x0000ffff, v & 2);
    __syncwarp(0x0000ffff);
  } else {
    sub = __activemask();
  }
  __syncwarp();
  unsigned lt, le, gt, ge, eq;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
  unsigned rank = __popc(b & lt);          // rank among lanes with v > 0 (stream compaction)
  unsigned leader = __ffs(b) - 1;
  unsigned* o = out + (blockIdx.x * blockDim.x + t) * 8;
  o[0] = b; o[1] = any | (all << 1) | (uni << 2); o[2] = act; o[3] = sub;
  o[4] = rank + (leader << 8); o[5] = lt ^ le ^ gt ^ ge ^ eq; o[6] = __clz(b) + __brev(b);
  o[7] = __popc(__ballot_sync(0xffffffff, 1));
}

__global__ void matches(const int* in, unsigned* out) {
  unsigned t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t] % 4;
  long long lv = (long long)v << 40;
  int pred = 0;
  unsigned anyMask = __match_any_sync(0xffffffff, v);
  unsigned allMask = __match_all_sync(0xffffffff, v, &pred);
  unsigned anyMask64 = __match_any_sync(0xffffffff, lv);
  unsigned allMask64 = __match_all_sync(0xffffffff, lv, &pred);
  out[blockIdx.x * blockDim.x + t] = anyMask ^ allMask ^ anyMask64 ^ allMask64 ^ pred;
}
