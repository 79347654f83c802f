// mma_sync: every mma.sync.aligned shape and type simtlab implements (sm_80), with inline PTX
// and the per-thread fragment layouts of the PTX ISA (9.7.14.5.x "Matrix Fragments for mma"):
// each thread gathers its fragment elements from row-major A (MxK), B (KxN) and C (MxN),
// executes one mma, and scatters D by the layout; the host compares with its own product.
// Inputs are small integers (scaled by 1/4 for the float types) so every result is exact.
// Built with -arch=sm_80, run with gpu.cc_major=8 gpu.cc_minor=0 (tests/CMakeLists.txt).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

enum Case { F16_K16_F32, F16_K16_F16, F16_K8_F32, BF16_K16, BF16_K8, TF32_K4, TF32_K8, F64_K4,
            S8_K16, U8_K16, S8U8_K32_SAT, NCASES };
struct Info { const char* name; int m, n, k, ebytes, cbytes; };
__host__ __device__ inline Info info(int c) {
  switch (c) {
    case F16_K16_F32: return {"m16n8k16.f32.f16.f16.f32", 16, 8, 16, 2, 4};
    case F16_K16_F16: return {"m16n8k16.f16.f16.f16.f16", 16, 8, 16, 2, 2};
    case F16_K8_F32: return {"m16n8k8.f32.f16.f16.f32", 16, 8, 8, 2, 4};
    case BF16_K16: return {"m16n8k16.f32.bf16.bf16.f32", 16, 8, 16, 2, 4};
    case BF16_K8: return {"m16n8k8.f32.bf16.bf16.f32", 16, 8, 8, 2, 4};
    case TF32_K4: return {"m16n8k4.f32.tf32.tf32.f32", 16, 8, 4, 4, 4};
    case TF32_K8: return {"m16n8k8.f32.tf32.tf32.f32", 16, 8, 8, 4, 4};
    case F64_K4: return {"m8n8k4.f64.f64.f64.f64", 8, 8, 4, 8, 8};
    case S8_K16: return {"m16n8k16.s32.s8.s8.s32", 16, 8, 16, 1, 4};
    case U8_K16: return {"m16n8k16.s32.u8.u8.s32", 16, 8, 16, 1, 4};
    default: return {"m16n8k32.satfinite.s32.s8.u8.s32", 16, 8, 32, 1, 4};
  }
}

// Fragment element i of lane l: its (row, col) per the PTX ISA figures.
__device__ void pos_a(int c, int l, int i, int& r, int& col) {
  const int g = l >> 2, t = l & 3;
  const Info f = info(c);
  if (c == F64_K4) { r = g; col = t; return; }
  if (c == TF32_K4 || c == TF32_K8) { r = g + ((i % 2) ? 8 : 0); col = t + (i >= 2 ? 4 : 0); return; }
  if (f.ebytes == 2) { r = g + ((i == 2 || i == 3 || i == 6 || i == 7) ? 8 : 0); col = t * 2 + (i % 2) + (i >= 4 ? 8 : 0); return; }
  r = g + (((i >= 4 && i < 8) || i >= 12) ? 8 : 0);
  col = t * 4 + (i % 4) + (i >= 8 ? 16 : 0);
}
__device__ void pos_b(int c, int l, int i, int& r, int& col) {
  const int g = l >> 2, t = l & 3;
  const Info f = info(c);
  col = g;
  if (c == F64_K4) { r = t; return; }
  if (c == TF32_K4 || c == TF32_K8) { r = t + (i >= 1 ? 4 : 0); return; }
  if (f.ebytes == 2) { r = t * 2 + (i % 2) + (i >= 2 ? 8 : 0); return; }
  r = t * 4 + (i % 4) + (i >= 4 ? 16 : 0);
}
__device__ void pos_c(int c, int l, int i, int& r, int& col) {
  const int g = l >> 2, t = l & 3;
  if (c == F64_K4) { r = g; col = t * 2 + i; return; }
  r = g + (i >= 2 ? 8 : 0);
  col = t * 2 + (i % 2);
}

// Pack fragment elements (raw bits) into 32-bit registers, low element first.
__device__ void gather(const uint8_t* M, int ld, int eb, int n, int which, int c, int l, uint32_t* regs) {
  const int per = eb >= 4 ? 1 : 4 / eb;
  for (int j = 0; j < (n + per - 1) / per; ++j) regs[j] = 0;
  for (int i = 0; i < n; ++i) {
    int r, col;
    if (which == 0) pos_a(c, l, i, r, col); else if (which == 1) pos_b(c, l, i, r, col); else pos_c(c, l, i, r, col);
    uint32_t v = 0;
    memcpy(&v, M + (r * ld + col) * eb, eb < 4 ? eb : 4);
    regs[i / per] |= v << (8 * eb * (i % per));
  }
}
__device__ void scatter(uint8_t* M, int ld, int eb, int n, int c, int l, const uint32_t* regs) {
  const int per = eb >= 4 ? 1 : 4 / eb;
  for (int i = 0; i < n; ++i) {
    int r, col;
    pos_c(c, l, i, r, col);
    const uint32_t v = regs[i / per] >> (8 * eb * (i % per));
    memcpy(M + (r * ld + col) * eb, &v, eb < 4 ? eb : 4);
  }
}

template <int C>
__global__ void kmma(const uint8_t* A, const uint8_t* B, const uint8_t* Cm, uint8_t* D) {
  const Info f = info(C);
  const int l = threadIdx.x;
  const int na = f.m * f.k / 32, nb = f.k * f.n / 32, nc = f.m * f.n / 32;
  if (C == F64_K4) {
    int r, col;
    pos_a(C, l, 0, r, col);
    double a = ((const double*)A)[r * f.k + col];
    pos_b(C, l, 0, r, col);
    double b = ((const double*)B)[r * f.n + col];
    double c[2], d[2];
    for (int i = 0; i < 2; ++i) { pos_c(C, l, i, r, col); c[i] = ((const double*)Cm)[r * f.n + col]; }
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(d[0]), "=d"(d[1]) : "d"(a), "d"(b), "d"(c[0]), "d"(c[1]));
    for (int i = 0; i < 2; ++i) { pos_c(C, l, i, r, col); ((double*)D)[r * f.n + col] = d[i]; }
    return;
  }
  uint32_t a[8], b[4], c[4], d[4] = {};
  gather(A, f.k, f.ebytes, na, 0, C, l, a);
  gather(B, f.n, f.ebytes, nb, 1, C, l, b);
  gather(Cm, f.n, f.cbytes, nc, 2, C, l, c);
  if (C == F16_K16_F32)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  else if (C == F16_K16_F16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
  else if (C == F16_K8_F32)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  else if (C == BF16_K16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  else if (C == BF16_K8)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  else if (C == TF32_K4)
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  else if (C == TF32_K8)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  else if (C == S8_K16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  else if (C == U8_K16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  else
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  scatter(D, f.n, f.cbytes, nc, C, l, d);
}

// Host: element values and their raw encodings.
static double aval(int c, int r, int k) {
  if (c >= S8_K16) return c == U8_K16 ? (r * 7 + k * 3) % 200 : ((r * 5 + k * 11) % 41) - 20;
  return double(((r * 3 + k * 5) % 9) - 4) / 4;
}
static double bval(int c, int k, int n) {
  if (c >= S8_K16) return (c == U8_K16 || c == S8U8_K32_SAT) ? (k * 13 + n * 7) % 251 : ((k * 3 + n * 7) % 31) - 15;
  return double(((k * 7 + n * 2) % 7) - 3) / 4;
}
static double cval(int c, int r, int n) {
  if (c == S8U8_K32_SAT) return (r < 8) ? 2147483000.0 - r : -2147483000.0 + n;  // saturates
  if (c >= S8_K16) return (r * 8 + n) * 1000 - 60000;
  return double((r * 8 + n) % 11 - 5) / 2;
}
static void put(std::vector<uint8_t>& m, int idx, int eb, int c, double v, bool isc) {
  uint8_t* p = m.data() + idx * eb;
  if (eb == 8) { memcpy(p, &v, 8); return; }
  if (c >= S8_K16) {
    if (isc) { int32_t x = int32_t(v); memcpy(p, &x, 4); }
    else { int8_t x = int8_t(int(v)); memcpy(p, &x, 1); }
    return;
  }
  if (eb == 4) { float x = float(v); memcpy(p, &x, 4); return; }
  if (c == BF16_K16 || c == BF16_K8) { __nv_bfloat16 h = __float2bfloat16(float(v)); memcpy(p, &h, 2); }
  else { __half h = __float2half(float(v)); memcpy(p, &h, 2); }
}
static double get(const std::vector<uint8_t>& m, int idx, int eb, int c) {
  const uint8_t* p = m.data() + idx * eb;
  if (eb == 8) { double x; memcpy(&x, p, 8); return x; }
  if (c >= S8_K16) { int32_t x; memcpy(&x, p, 4); return x; }
  if (eb == 4) { float x; memcpy(&x, p, 4); return x; }
  __half h; memcpy(&h, p, 2); return __half2float(h);
}

template <int C>
static int run_case() {
  const Info f = info(C);
  const int cb = f.cbytes;
  std::vector<uint8_t> A(f.m * f.k * f.ebytes), B(f.k * f.n * f.ebytes), Cm(f.m * f.n * cb), D(f.m * f.n * cb, 0);
  std::vector<double> ref(f.m * f.n);
  for (int r = 0; r < f.m; ++r)
    for (int k = 0; k < f.k; ++k) put(A, r * f.k + k, f.ebytes, C, aval(C, r, k), false);
  for (int k = 0; k < f.k; ++k)
    for (int n = 0; n < f.n; ++n) put(B, k * f.n + n, f.ebytes, C, bval(C, k, n), false);
  for (int r = 0; r < f.m; ++r)
    for (int n = 0; n < f.n; ++n) {
      put(Cm, r * f.n + n, cb, C, cval(C, r, n), true);
      double acc = cval(C, r, n);
      for (int k = 0; k < f.k; ++k) {
        double a = aval(C, r, k), b = bval(C, k, n);
        if (C == S8U8_K32_SAT) b = double(uint8_t(int(b)));
        if (C == S8_K16) { a = int8_t(int(a)); b = int8_t(int(b)); }
        if (C == U8_K16) { a = uint8_t(int(a)); b = uint8_t(int(b)); }
        acc += a * b;
      }
      if (C == S8U8_K32_SAT) acc = acc > 2147483647.0 ? 2147483647.0 : acc < -2147483648.0 ? -2147483648.0 : acc;
      ref[r * f.n + n] = acc;
    }
  uint8_t *dA, *dB, *dC, *dD;
  CK(cudaMalloc(&dA, A.size())); CK(cudaMalloc(&dB, B.size()));
  CK(cudaMalloc(&dC, Cm.size())); CK(cudaMalloc(&dD, D.size()));
  CK(cudaMemcpy(dA, A.data(), A.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, B.data(), B.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dC, Cm.data(), Cm.size(), cudaMemcpyHostToDevice));
  CK(cudaMemset(dD, 0, D.size()));
  kmma<C><<<1, 32>>>(dA, dB, dC, dD);
  CK(cudaGetLastError());
  CK(cudaMemcpy(D.data(), dD, D.size(), cudaMemcpyDeviceToHost));
  cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
  int bad = 0;
  for (int i = 0; i < f.m * f.n; ++i) {
    const double got = get(D, i, cb, C);
    if (got != ref[i]) {
      if (bad < 4) printf("  %s: D[%d][%d] = %.17g, expected %.17g\n", f.name, i / f.n, i % f.n, got, ref[i]);
      ++bad;
    }
  }
  printf("mma.sync %-34s %s\n", f.name, bad ? "mismatch" : "ok");
  return bad ? 1 : 0;
}

int main() {
  int fails = 0;
  fails += run_case<F16_K16_F32>();
  fails += run_case<F16_K16_F16>();
  fails += run_case<F16_K8_F32>();
  fails += run_case<BF16_K16>();
  fails += run_case<BF16_K8>();
  fails += run_case<TF32_K4>();
  fails += run_case<TF32_K8>();
  fails += run_case<F64_K4>();
  fails += run_case<S8_K16>();
  fails += run_case<U8_K16>();
  fails += run_case<S8U8_K32_SAT>();
  printf(fails ? "FAILED\n" : "PASSED\n");
  return fails ? 1 : 0;
}
