// warp_intrinsics: __shfl_sync (incl. width and out-of-range source lane), __shfl_up_sync,
// __shfl_down_sync, __shfl_xor_sync on int/double/long long, __ballot_sync (full, divergent
// halves with their own masks, partial last warp), __any_sync, __all_sync, __activemask
// (checked only for properties guaranteed on real hardware), __popc, __clz, __brev, __ffs.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr unsigned FULL = 0xffffffffu;
constexpr int NOUT = 19;

__host__ __device__ unsigned hashv(unsigned i) {
  unsigned x = i * 2654435761u + 12345u;
  x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
  return x;
}

__global__ void fullWarps(unsigned* out) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % 32, warp = gid / 32;
  unsigned v = hashv(gid);
  unsigned* o = out + gid * NOUT;
  o[0] = __shfl_sync(FULL, v, (lane * 5 + 3) % 32);
  o[1] = __shfl_sync(FULL, v, 3, 8);
  o[2] = __shfl_up_sync(FULL, v, 3);
  o[3] = __shfl_down_sync(FULL, v, 4, 16);
  o[4] = __shfl_xor_sync(FULL, v, 1);
  o[5] = __shfl_xor_sync(FULL, v, 16);
  o[6] = __ballot_sync(FULL, v % 3 == 0);
  o[7] = (__any_sync(FULL, v % 61 == 0) ? 1 : 0) | (__any_sync(FULL, lane == warp % 32) ? 2 : 0);
  o[8] = (__all_sync(FULL, v != 0) ? 1 : 0) | (__all_sync(FULL, lane < 32 - warp % 2) ? 2 : 0);
  o[9] = __popc(v);
  o[10] = __clz(v >> (lane % 8 * 4));
  o[11] = __brev(v);
  o[12] = __ffs((int)(v & (FULL << lane)));
  if (lane % 2 == 0) o[13] = __ballot_sync(0x55555555u, lane % 4 == 0);
  else o[13] = __ballot_sync(0xaaaaaaaau, v & 1);
  unsigned m = __activemask();
  o[14] = (m >> lane) & 1;
  double dv = __shfl_sync(FULL, (double)v * 0.5, 31 - lane);
  o[15] = (unsigned)(dv * 2.0);
  long long lv = __shfl_xor_sync(FULL, ((long long)v << 20) | lane, 5);
  o[16] = (unsigned)(lv >> 20) ^ (unsigned)(lv & 0xfffff);
  o[17] = __shfl_sync(FULL, v, lane + 33);
  o[18] = __shfl_up_sync(FULL, v, 2, 8);
}

// blockDim.x = 40: the second warp has only 8 threads, so it uses mask 0xff.
__global__ void partialWarp(unsigned* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  unsigned mask = t < 32 ? FULL : 0xffu;
  unsigned width = t < 32 ? 32 : 8;
  unsigned v = hashv(1000 + t);
  out[t * 4 + 0] = __ballot_sync(mask, v & 2);
  out[t * 4 + 1] = __shfl_sync(mask, v, (lane + 1) % width);
  out[t * 4 + 2] = (__any_sync(mask, v % 5 == 0) ? 1 : 0) | (__all_sync(mask, v % 7 != 0) ? 2 : 0);
  unsigned m = __activemask();
  out[t * 4 + 3] = ((m >> lane) & 1) && (m & ~mask) == 0;
}

int main() {
  const int B = 3, T = 64, n = B * T;
  unsigned *dout, *dp;
  CK(cudaMalloc(&dout, n * NOUT * sizeof(unsigned))); CK(cudaMalloc(&dp, 40 * 4 * sizeof(unsigned)));
  fullWarps<<<B, T>>>(dout);
  partialWarp<<<1, 40>>>(dp);
  CK(cudaGetLastError());
  std::vector<unsigned> o(n * NOUT), p(40 * 4);
  CK(cudaMemcpy(o.data(), dout, o.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(p.data(), dp, p.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));

  auto popc = [](unsigned x) { int c = 0; while (x) { c += x & 1; x >>= 1; } return c; };
  auto clz = [](unsigned x) { int c = 0; for (int b = 31; b >= 0 && !((x >> b) & 1); --b) ++c; return c; };
  auto brev = [](unsigned x) { unsigned r = 0; for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1) << (31 - b); return r; };
  auto ffs = [](unsigned x) { for (int b = 0; b < 32; ++b) if ((x >> b) & 1) return b + 1; return 0; };
  const char* names[NOUT] = {"shfl", "shfl width 8", "shfl_up", "shfl_down width 16", "shfl_xor 1", "shfl_xor 16",
                             "ballot", "any", "all", "popc", "clz", "brev", "ffs", "divergent ballot",
                             "activemask", "shfl double", "shfl_xor long long", "shfl lane+33", "shfl_up width 8"};
  unsigned long long checksum = 0;
  for (int w = 0; w < n / 32; ++w) {
    unsigned v[32], ballot3 = 0, ballotOdd = 0;
    bool any61 = false, allNZ = true;
    for (int l = 0; l < 32; ++l) {
      v[l] = hashv(w * 32 + l);
      if (v[l] % 3 == 0) ballot3 |= 1u << l;
      if (l % 2 == 1 && (v[l] & 1)) ballotOdd |= 1u << l;
      any61 |= v[l] % 61 == 0; allNZ &= v[l] != 0;
    }
    for (int l = 0; l < 32; ++l) {
      unsigned e[NOUT];
      e[0] = v[(l * 5 + 3) % 32];
      e[1] = v[l / 8 * 8 + 3];
      e[2] = l >= 3 ? v[l - 3] : v[l];
      e[3] = l % 16 + 4 < 16 ? v[l + 4] : v[l];
      e[4] = v[l ^ 1]; e[5] = v[l ^ 16];
      e[6] = ballot3;
      e[7] = (any61 ? 1 : 0) | 2;                 // lane == warp % 32 exists for every warp
      e[8] = (allNZ ? 1 : 0) | (w % 2 == 0 ? 2 : 0);
      e[9] = popc(v[l]);
      e[10] = clz(v[l] >> (l % 8 * 4));
      e[11] = brev(v[l]);
      e[12] = ffs(v[l] & (FULL << l));
      e[13] = l % 2 == 0 ? 0x11111111u : ballotOdd;
      e[14] = 1;
      e[15] = v[31 - l];
      unsigned x = v[l ^ 5]; long long lv = ((long long)x << 20) | (l ^ 5);
      e[16] = (unsigned)(lv >> 20) ^ (unsigned)(lv & 0xfffff);
      e[17] = v[(l + 1) % 32];
      e[18] = l % 8 >= 2 ? v[l - 2] : v[l];
      for (int k = 0; k < NOUT; ++k) {
        unsigned got = o[(w * 32 + l) * NOUT + k];
        if (got != e[k]) { printf("FAILED: %s warp %d lane %d: %08x vs %08x\n", names[k], w, l, got, e[k]); return 1; }
        checksum = checksum * 31 + got;
      }
    }
  }
  printf("full warps: %d warps x %d checks ok, checksum=%016llx\n", n / 32, NOUT, checksum);

  for (int t = 0; t < 40; ++t) {
    int base = t < 32 ? 0 : 32, cnt = t < 32 ? 32 : 8;
    unsigned ballot = 0; bool any = false, all = true;
    for (int k = 0; k < cnt; ++k) {
      unsigned v = hashv(1000 + base + k);
      if (v & 2) ballot |= 1u << k;
      any |= v % 5 == 0; all &= v % 7 != 0;
    }
    unsigned e[4] = {ballot, hashv(1000 + base + (t - base + 1) % cnt), (unsigned)any | ((unsigned)all << 1), 1};
    for (int k = 0; k < 4; ++k)
      if (p[t * 4 + k] != e[k]) { printf("FAILED: partial warp thread %d check %d: %08x vs %08x\n", t, k, p[t * 4 + k], e[k]); return 1; }
  }
  printf("partial warp: ballot=%08x ok\n", p[32 * 4]);
  cudaFree(dout); cudaFree(dp);
  printf("PASSED\n");
  return 0;
}
