// atomics_all: every atomic function available on sm_75, on global and shared memory, with all
// operand types and the _block/_system scoped variants (compiled to PTX only).
#include <cuda_runtime.h>
#include <cuda_fp16.h>

struct AtomicBufs {
  int i[16]; unsigned u[16]; unsigned long long ull[16]; long long ll[8]; float f[4]; double d[4];
  unsigned short us[4]; __half h[4]; __half2 h2[4];
};

__global__ void globalAtomics(AtomicBufs* b, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int r = 0;
  r += atomicAdd(&b->i[0], 1);
  r += atomicAdd(&b->u[0], 2u);
  r += (int)atomicAdd(&b->ull[0], 3ull);
  atomicAdd(&b->f[0], 0.5f);
  atomicAdd(&b->d[0], 0.25);
  atomicAdd(&b->h[0], __float2half(1.0f));
  atomicAdd(&b->h2[0], __floats2half2_rn(1.0f, 2.0f));
  r += atomicSub(&b->i[1], 1);
  r += atomicSub(&b->u[1], 1u);
  r += atomicExch(&b->i[2], t);
  r += atomicExch(&b->u[2], (unsigned)t);
  r += (int)atomicExch(&b->ull[2], (unsigned long long)t);
  r += (int)atomicExch(&b->f[1], (float)t);
  r += atomicMin(&b->i[3], t);   r += atomicMax(&b->i[4], t);
  r += atomicMin(&b->u[3], t);   r += atomicMax(&b->u[4], t);
  r += (int)atomicMin(&b->ull[3], (unsigned long long)t); r += (int)atomicMax(&b->ull[4], (unsigned long long)t);
  r += (int)atomicMin(&b->ll[0], (long long)-t); r += (int)atomicMax(&b->ll[1], (long long)t);
  r += atomicInc(&b->u[5], 17u);
  r += atomicDec(&b->u[6], 17u);
  r += atomicCAS(&b->i[5], 0, t);
  r += atomicCAS(&b->u[7], 0u, (unsigned)t);
  r += (int)atomicCAS(&b->ull[5], 0ull, (unsigned long long)t);
  r += atomicCAS(&b->us[0], (unsigned short)0, (unsigned short)t);
  r += atomicAnd(&b->i[6], ~t);  r += atomicOr(&b->i[7], t);   r += atomicXor(&b->i[8], t);
  r += atomicAnd(&b->u[8], ~t);  r += atomicOr(&b->u[9], t);   r += atomicXor(&b->u[10], t);
  r += (int)atomicAnd(&b->ull[6], ~0ull << (t % 64)); r += (int)atomicOr(&b->ull[7], 1ull << (t % 64));
  r += (int)atomicXor(&b->ull[8], 1ull << (t % 64));
  // Scoped variants.
  r += atomicAdd_block(&b->i[9], 1);   r += atomicAdd_system(&b->i[10], 1);
  atomicAdd_block(&b->f[2], 1.0f);    atomicAdd_system(&b->d[1], 1.0);
  r += atomicCAS_block(&b->i[11], 0, 1); r += atomicCAS_system(&b->i[12], 0, 1);
  r += atomicExch_block(&b->i[13], t); r += atomicMax_system(&b->i[14], t);
  r += atomicOr_block(&b->u[11], 1u << (t % 32)); r += atomicInc_system(&b->u[12], 100u);
  // Result unused: compiles to red.* instead of atom.*.
  atomicAdd(&b->i[15], 1);
  atomicAdd(&b->ull[9], 1ull);
  atomicAdd(&b->d[2], 1.0);
  out[t] = r;
}

__global__ void sharedAtomics(int* out, float* fout, double* dout) {
  __shared__ int si[4];
  __shared__ unsigned su[4];
  __shared__ unsigned long long sull[2];
  __shared__ float sf;
  __shared__ double sd;
  int t = threadIdx.x;
  if (t == 0) { si[0] = si[1] = si[2] = 0; si[3] = 1 << 30; su[0] = su[1] = su[2] = su[3] = 0; sull[0] = sull[1] = 0; sf = 0; sd = 0; }
  __syncthreads();
  atomicAdd(&si[0], t);
  atomicMax(&si[1], t);
  atomicMin(&si[3], t);
  atomicCAS(&si[2], 0, t + 1);
  atomicOr(&su[0], 1u << (t % 32));
  atomicXor(&su[1], (unsigned)t);
  atomicInc(&su[2], 7u);
  atomicExch(&su[3], (unsigned)t);
  atomicAdd(&sull[0], (unsigned long long)t);
  atomicCAS(&sull[1], 0ull, (unsigned long long)t);
  atomicAdd(&sf, 1.0f);
  atomicAdd(&sd, 0.5);
  __syncthreads();
  if (t == 0) {
    out[blockIdx.x * 8 + 0] = si[0]; out[blockIdx.x * 8 + 1] = si[1]; out[blockIdx.x * 8 + 2] = si[2];
    out[blockIdx.x * 8 + 3] = si[3]; out[blockIdx.x * 8 + 4] = su[0]; out[blockIdx.x * 8 + 5] = su[1];
    out[blockIdx.x * 8 + 6] = su[2] + su[3]; out[blockIdx.x * 8 + 7] = (int)(sull[0] + sull[1]);
    fout[blockIdx.x] = sf; dout[blockIdx.x] = sd;
  }
}

// Atomics through generic pointers that may point to shared or global memory.
__device__ __noinline__ int genericAtomic(int* p, int v) { return atomicAdd(p, v) + atomicMax(p + 1, v); }

__global__ void genericAtomics(int* g, int* out) {
  __shared__ int s[2];
  if (threadIdx.x == 0) { s[0] = 0; s[1] = 0; }
  __syncthreads();
  int a = genericAtomic(s, threadIdx.x);
  int b = genericAtomic(g, threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + s[0] + s[1];
}
