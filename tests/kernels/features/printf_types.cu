// printf_types: device printf with every argument type and many conversions: char, short, int,
// unsigned, long, long long, size_t, float (promoted), double, pointers, string literals and
// strings in global/constant/local memory, many arguments, and printf in divergent code
// (compiled to PTX only).
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__device__ const char g_msg[] = "global string";
__constant__ char c_msg[16] = "constant string";

__global__ void printfTypes(const int* in, const double* din) {
  char c = 'Z'; signed char sc = -5; unsigned char uc = 250; short s = -1234; unsigned short us = 65000;
  int i = in[threadIdx.x]; unsigned u = 4000000000u; long l = -123456789012L; unsigned long ul = 1ul << 50;
  long long ll = -9000000000000000000LL; unsigned long long ull = 18000000000000000000ULL;
  size_t sz = sizeof(double4); ptrdiff_t pd = -3; int64_t i64 = INT64_MIN; uint8_t u8 = 7;
  float f = 3.25f; double d = din[threadIdx.x];
  char local[8] = {'l', 'o', 'c', 'a', 'l', 0, 0, 0};
  printf("chars: %c %d %u %hhd %hhu\n", c, sc, uc, sc, uc);
  printf("shorts: %hd %hu %d\n", s, us, (int)s);
  printf("ints: %d %i %u %x %X %o %#x %#o %+d % d %05d %-6d|\n", i, i, u, u, u, u, u, u, i, i, i, i);
  printf("longs: %ld %lu %lld %llu %llx %zu %td %lld %u\n", l, ul, ll, ull, ull, sz, pd, (long long)i64, (unsigned)u8);
  printf("floats: %f %.2f %10.4f %-10.1f| %e %E %.3e %g %G %a\n", f, f, d, d, d, d, f, d, d, d);
  double zero = din[0] * 0.0;
  printf("specials: %f %f %f\n", d / zero, -d / zero, zero / zero);
  printf("strings: [%s] [%s] [%s] [%10s] [%-10s] [%.3s]\n", "literal", g_msg, c_msg, local, "left", "truncate");
  printf("pointers: %p %p\n", in, &local[0]);
  printf("many: %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %f %f %f %f %lld %lld %s %c %u %x %d %d %d %d %d %d\n",
         1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 1.0, 2.0, 3.0, 4.0, 5LL, 6LL, "x", 'y', 9u, 10u,
         27, 28, 29, 30, 31, 32);
  printf("no args, percent: 100%%\n");
  if (threadIdx.x % 2) printf("odd thread %d of block %d\n", threadIdx.x, blockIdx.x);
  else printf("even thread %d value %.1f\n", threadIdx.x, d);
  int ret = printf("%d\n", i);
  if (ret < 0) printf("printf failed: %d\n", ret);
}
