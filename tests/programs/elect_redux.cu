// elect_redux: elect.sync (inline PTX, sm_90) and redux.sync (the __reduce_*_sync intrinsics).
// elect.sync: the leader is the lowest active lane of the member mask; every participating
// lane gets the leader's lane id and only the leader a true predicate. Checked with the full
// warp, with only odd lanes active (divergent), and with a member mask of lanes 4-7 and 12-15.
// redux.sync add/min/max (u32 and s32) and and/or/xor over full and partial warps, against the
// host's reductions. Built with -arch=sm_90a (elect needs sm_90), run with gpu.cc_major=9.
#include <climits>
#include <cstdint>
#include <cstdio>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ inline void elect(uint32_t mask, uint32_t* leader, uint32_t* is_leader) {
  uint32_t l, p;
  asm volatile("{ .reg .pred q; elect.sync %0|q, %2; selp.u32 %1, 1, 0, q; }"
               : "=r"(l), "=r"(p) : "r"(mask));
  *leader = l;
  *is_leader = p;
}

// out[case * 64 + lane * 2 + {0,1}] = (leader, is_leader); 0xffffffff where a lane did not take part.
__global__ void kelect(uint32_t* out) {
  const uint32_t lane = threadIdx.x;
  uint32_t l, p;
  elect(0xffffffffu, &l, &p);
  out[lane * 2] = l;
  out[lane * 2 + 1] = p;
  if (lane & 1) {  // odd lanes only
    elect(0xaaaaaaaau, &l, &p);
    out[64 + lane * 2] = l;
    out[64 + lane * 2 + 1] = p;
  }
  const uint32_t m = 0x0000f0f0u;
  if ((m >> lane) & 1) {
    elect(m, &l, &p);
    out[128 + lane * 2] = l;
    out[128 + lane * 2 + 1] = p;
  }
}

// 64 threads; values v[t]; r[case][t] results of 9 reductions, lanes t with (t % 3 != 0) in the
// partial ones (the reduction over those lanes of the warp).
__global__ void kredux(const uint32_t* v, uint32_t* r) {
  const int t = threadIdx.x;
  const uint32_t x = v[t];
  const int32_t s = int32_t(x);
  r[0 * 64 + t] = __reduce_add_sync(0xffffffffu, x);
  r[1 * 64 + t] = __reduce_min_sync(0xffffffffu, x);
  r[2 * 64 + t] = __reduce_max_sync(0xffffffffu, x);
  r[3 * 64 + t] = uint32_t(__reduce_min_sync(0xffffffffu, s));
  r[4 * 64 + t] = uint32_t(__reduce_max_sync(0xffffffffu, s));
  r[5 * 64 + t] = __reduce_and_sync(0xffffffffu, x);
  r[6 * 64 + t] = __reduce_or_sync(0xffffffffu, x);
  r[7 * 64 + t] = __reduce_xor_sync(0xffffffffu, x);
  const unsigned lane = t % 32;
  uint32_t mask = 0;
  for (int i = 0; i < 32; ++i) if (i % 3 != 0) mask |= 1u << i;
  if (lane % 3 != 0) {
    r[8 * 64 + t] = uint32_t(__reduce_min_sync(mask, s));
    r[9 * 64 + t] = __reduce_add_sync(mask, x);
  }
}

int main() {
  int fails = 0;
  uint32_t *d, h[192];
  CK(cudaMalloc(&d, sizeof h));
  CK(cudaMemset(d, 0xff, sizeof h));
  kelect<<<1, 32>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  cudaFree(d);
  const uint32_t masks[3] = {0xffffffffu, 0xaaaaaaaau, 0x0000f0f0u};
  const char* names[3] = {"elect.sync full warp", "elect.sync odd lanes", "elect.sync mask 0xf0f0"};
  for (int c = 0; c < 3; ++c) {
    const uint32_t leader = uint32_t(__builtin_ctz(masks[c]));
    int bad = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      const bool in = (masks[c] >> l) & 1;
      const uint32_t wl = in ? leader : 0xffffffffu, wp = in ? (l == leader) : 0xffffffffu;
      if (h[c * 64 + l * 2] != wl || h[c * 64 + l * 2 + 1] != wp) ++bad;
    }
    printf("%-28s %s\n", names[c], bad ? "mismatch" : "ok");
    fails += bad != 0;
  }

  uint32_t v[64], r[640], *dv, *dr;
  for (int i = 0; i < 64; ++i) v[i] = uint32_t(i * 2654435761u) ^ uint32_t(i << 3);
  CK(cudaMalloc(&dv, sizeof v));
  CK(cudaMalloc(&dr, sizeof r));
  CK(cudaMemcpy(dv, v, sizeof v, cudaMemcpyHostToDevice));
  CK(cudaMemset(dr, 0, sizeof r));
  kredux<<<1, 64>>>(dv, dr);
  CK(cudaGetLastError());
  CK(cudaMemcpy(r, dr, sizeof r, cudaMemcpyDeviceToHost));
  cudaFree(dv); cudaFree(dr);
  const char* rn[10] = {"add.u32", "min.u32", "max.u32", "min.s32", "max.s32", "and.b32",
                        "or.b32", "xor.b32", "min.s32 (partial)", "add.u32 (partial)"};
  for (int c = 0; c < 10; ++c) {
    int bad = 0;
    for (int w = 0; w < 2; ++w) {
      uint32_t add = 0, umin = UINT32_MAX, umax = 0, a = ~0u, o = 0, x = 0, padd = 0;
      int32_t smin = INT32_MAX, smax = INT32_MIN, psmin = INT32_MAX;
      for (int l = 0; l < 32; ++l) {
        const uint32_t e = v[w * 32 + l];
        add += e; umin = e < umin ? e : umin; umax = e > umax ? e : umax;
        smin = int32_t(e) < smin ? int32_t(e) : smin; smax = int32_t(e) > smax ? int32_t(e) : smax;
        a &= e; o |= e; x ^= e;
        if (l % 3 != 0) { padd += e; psmin = int32_t(e) < psmin ? int32_t(e) : psmin; }
      }
      const uint32_t want[10] = {add, umin, umax, uint32_t(smin), uint32_t(smax), a, o, x, uint32_t(psmin), padd};
      for (int l = 0; l < 32; ++l) {
        if (c >= 8 && l % 3 == 0) continue;
        if (r[c * 64 + w * 32 + l] != want[c]) ++bad;
      }
    }
    printf("redux.sync %-17s %s\n", rn[c], bad ? "mismatch" : "ok");
    fails += bad != 0;
  }
  printf(fails ? "FAILED\n" : "PASSED\n");
  return fails ? 1 : 0;
}
