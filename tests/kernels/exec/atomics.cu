// atomics: global and shared histograms, min/max/and/or/xor/exch/CAS/inc/dec on contended
// addresses, 64-bit atomics. Host reference: ref_atomics.
#include <cuda_runtime.h>

extern "C" __global__ void histogram(const int* in, unsigned* global_hist, unsigned* block_hist, int n) {
  __shared__ unsigned h[16];
  if (threadIdx.x < 16) h[threadIdx.x] = 0;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int bin = in[i] & 15;
    atomicAdd(&h[bin], 1u);
    atomicAdd(&global_hist[bin], 1u);
  }
  __syncthreads();
  if (threadIdx.x < 16) block_hist[blockIdx.x * 16 + threadIdx.x] = h[threadIdx.x];
}

struct Cells {
  int mn, mx;
  unsigned andv, orv, xorv, inc, dec, cas_count;
  unsigned long long sum64, max64;
  int exch;
};

extern "C" __global__ void contended(const int* in, Cells* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int v = in[i];
  atomicMin(&c->mn, v);
  atomicMax(&c->mx, v);
  atomicAnd(&c->andv, ~(1u << (v & 31)));
  atomicOr(&c->orv, 1u << ((v >> 5) & 31));
  atomicXor(&c->xorv, unsigned(v) * 2654435761u);
  atomicInc(&c->inc, 37u);
  atomicDec(&c->dec, 19u);
  atomicAdd(&c->sum64, (unsigned long long)(v) << 20);
  atomicMax(&c->max64, (unsigned long long)(v) * 0x100000001ull);
  atomicExch(&c->exch, v);
  // lock-free increment with a CAS loop
  unsigned old = c->cas_count, assumed;
  do {
    assumed = old;
    old = atomicCAS(&c->cas_count, assumed, assumed + 1);
  } while (old != assumed);
}
