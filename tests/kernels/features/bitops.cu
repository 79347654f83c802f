// bitops: bit-manipulation intrinsics: __popc/__popcll, __clz/__clzll, __ffs/__ffsll, __brev/
// __brevll, __byte_perm, __funnelshift_l/_r/_lc/_rc, __fns, bfind/bfe/bfi/prmt via inline PTX,
// rotates, masks and 64-bit shifts by variable amounts (compiled to PTX only).
#include <cuda_runtime.h>

__global__ void bitOps(const unsigned* a, const unsigned long long* b, unsigned* out, unsigned long long* lout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = a[(i + 1) % n];
  unsigned long long u = b[i];
  unsigned s = i % 32;
  unsigned* o = out + i * 16;
  o[0] = __popc(x) + __popcll(u);
  o[1] = __clz(x) + __clzll(u);
  o[2] = __ffs(x) + __ffsll(u);
  o[3] = __brev(x);
  o[4] = __byte_perm(x, y, 0x5140) ^ __byte_perm(x, y, 0x3210) ^ __byte_perm(x, 0, 0x0123);
  o[5] = __funnelshift_l(x, y, s) ^ __funnelshift_r(x, y, s);
  o[6] = __funnelshift_lc(x, y, s + 7) ^ __funnelshift_rc(x, y, s + 7);
  o[7] = __fns(x, 0, 3) + __fns(x, 31, -2);
  unsigned bf, be, bi;
  asm("bfind.u32 %0, %1;" : "=r"(bf) : "r"(x));
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(be) : "r"(x), "r"(s), "r"(5u));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(bi) : "r"(y), "r"(x), "r"(s), "r"(4u));
  o[8] = bf; o[9] = be; o[10] = bi;
  o[11] = (x << s) | (x >> ((32 - s) & 31));   // rotate (becomes shf)
  o[12] = x & (x - 1);                          // clear lowest set bit
  o[13] = x & -x;                               // isolate lowest set bit
  o[14] = (x >> s) & ((1u << (s / 2)) - 1);
  o[15] = ~x ^ (x | y) ^ (x & ~y);
  unsigned long long* l = lout + i * 6;
  l[0] = __brevll(u);
  l[1] = u << (s + 20);
  l[2] = u >> (s + 1);
  l[3] = (unsigned long long)((long long)u >> (s + 3));
  l[4] = (u << s) | (u >> ((64 - s) & 63));
  l[5] = u & (u - 1) & ~(1ull << (63 - s));
}
