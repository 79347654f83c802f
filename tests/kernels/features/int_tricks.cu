// int_tricks: 64-bit and 128-bit-style integer arithmetic: __umulhi/__mulhi/__umul64hi/__mul64hi,
// 128-bit add/multiply built from 64-bit halves with carries (add.cc/addc, mad.hi), 64-bit
// division/modulo (signed and unsigned), __sad/__usad, __hadd/__rhadd, __mul24/__umul24,
// unsigned __int128 arithmetic, and saturating/clamping idioms (compiled to PTX only).
#include <cuda_runtime.h>

struct U128 { unsigned long long lo, hi; };

__device__ U128 add128(U128 a, U128 b) {
  U128 r;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi + (r.lo < a.lo);          // carry
  return r;
}

__device__ U128 mul64x64(unsigned long long a, unsigned long long b) {
  return U128{a * b, __umul64hi(a, b)};
}

// 128-bit add with explicit PTX carry chain.
__device__ U128 add128asm(U128 a, U128 b) {
  U128 r;
  asm("add.cc.u64 %0, %2, %4;\n\taddc.u64 %1, %3, %5;"
      : "=l"(r.lo), "=l"(r.hi) : "l"(a.lo), "l"(a.hi), "l"(b.lo), "l"(b.hi));
  return r;
}

// 96-bit multiply-accumulate with 32-bit carry instructions.
__device__ void mac96(unsigned& r0, unsigned& r1, unsigned& r2, unsigned a, unsigned b) {
  asm("mad.lo.cc.u32 %0, %3, %4, %0;\n\t"
      "madc.hi.cc.u32 %1, %3, %4, %1;\n\t"
      "addc.u32 %2, %2, 0;"
      : "+r"(r0), "+r"(r1), "+r"(r2) : "r"(a), "r"(b));
}

__global__ void wideMath(const unsigned long long* a, const unsigned long long* b, unsigned long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = a[i], y = b[i] | 1;
  long long sx = (long long)x, sy = (long long)y;
  U128 p = mul64x64(x, y);
  U128 q = add128(p, U128{x, y});
  U128 r = add128asm(q, p);
  unsigned r0 = 0, r1 = 0, r2 = 0;
  for (int k = 0; k < 4; ++k) mac96(r0, r1, r2, (unsigned)(x >> (8 * k)), (unsigned)y);
  unsigned __int128 w = (unsigned __int128)x * y + r.hi;
  unsigned long long* o = out + i * 16;
  o[0] = r.lo; o[1] = r.hi; o[2] = ((unsigned long long)r2 << 32) ^ r1 ^ r0;
  o[3] = (unsigned long long)(w >> 64) ^ (unsigned long long)w;
  o[4] = (unsigned long long)__mul64hi(sx, sy);
  o[5] = __umulhi((unsigned)x, (unsigned)y) + (unsigned)__mulhi((int)x, (int)y);
  o[6] = x / y + x % y;
  o[7] = (unsigned long long)(sx / (sy | 3) + sx % (sy | 3));
  o[8] = __sad((int)x, (int)y, 5u) + __usad((unsigned)x, (unsigned)y, 7u);
  o[9] = __hadd((int)x, (int)y) + __rhadd((int)x, (int)y) + __uhadd((unsigned)x, (unsigned)y) + __urhadd((unsigned)x, (unsigned)y);
  o[10] = __mul24((int)x, (int)y) + __umul24((unsigned)x, (unsigned)y);
  o[11] = (unsigned long long)min(max(sx, -1000LL), 1000LL) + umin((unsigned)x, (unsigned)y) + ullmax(x, y);
  o[12] = (x + y < x) ? ~0ull : x + y;         // saturating add
  o[13] = (unsigned long long)((__int128)sx * sy >> 64);
  o[14] = x * 0x9e3779b97f4a7c15ull + (x >> 17) * (y << 3);
  o[15] = (unsigned long long)(unsigned)(x >> 32) * (unsigned)x;   // mul.wide.u32
}
