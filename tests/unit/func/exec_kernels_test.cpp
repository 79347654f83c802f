// Self-checking CUDA kernels (tests/kernels/exec/*.cu, compiled by nvcc to PTX at build time)
// run on the functional executor with generated inputs and compared with host references
// written here in plain C++.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "tests/unit/func/ptx_harness.h"

#ifndef SIMTLAB_EXEC_PTX_DIR
#define SIMTLAB_EXEC_PTX_DIR ""
#endif

namespace simtlab::testing {
namespace {

/// Text of the nvcc-generated PTX for tests/kernels/exec/<stem>.cu ("" if it was not built).
std::string exec_ptx(const std::string& stem) {
  std::ifstream f(std::string(SIMTLAB_EXEC_PTX_DIR) + "/" + stem + ".ptx");
  if (!f) return {};
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

#define LOAD_OR_SKIP(runner, stem)                               \
  const std::string ptx_text_ = exec_ptx(stem);                  \
  if (ptx_text_.empty()) FAIL() << stem << ".ptx was not built"; \
  PtxRunner runner(ptx_text_)

std::vector<int> random_ints(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// ---- divergence -------------------------------------------------------------------------------

int ref_classify(int v) {
  if (v < 0) return -1;
  if (v == 0) return 0;
  return v < 1000 ? 1 : 2;
}

int ref_divergence(int v, unsigned tid) {
  int r = 0;
  if (v & 1) {
    r = (v & 2) ? v * 3 : v - 7;
    if ((v & 12) == 4) r ^= 0x55;
  } else {
    switch ((v >> 1) % 5) {
      case 0:
        r = 1;
        break;
      case 1:
        r = v * 4;
        break;
      case 2:
        r = -v;
        break;
      case 3:
        r = v / 3;
        break;
      default:
        r = v % 7;
        break;
    }
  }
  if (v > 100 && (v % 3 == 0 || v % 7 == 0)) r += 1000;
  if (tid % 5 == 4) return r + 100 * ref_classify(v);
  return r - ref_classify(v - 500);
}

TEST(ExecKernels, Divergence) {
  LOAD_OR_SKIP(r, "divergence");
  const int n = 1000;
  const unsigned block = 96;
  auto in = random_ints(n, -2000, 3000, 1);
  in[0] = 0;
  in[1] = 500;
  Addr pin = r.upload(in), pout = r.upload(std::vector<int>(n + 50, 12345));
  r.launch("divergence", {(n + block - 1) / block, 1, 1}, {block, 1, 1}, 0, pin, pout, n);
  auto v = r.download<int>(pout, n + 50);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(v[i], ref_divergence(in[i], unsigned(i) % block)) << "thread " << i;
  for (int i = n; i < n + 50; ++i) EXPECT_EQ(v[i], 12345);
}

// ---- loops ------------------------------------------------------------------------------------

TEST(ExecKernels, Loops) {
  LOAD_OR_SKIP(r, "loops");
  const int n = 700;
  auto in = random_ints(n, -50, 5000, 2);
  Addr pin = r.upload(in), pout = r.upload(std::vector<long long>(3 * n, 0));
  r.launch("loops", {(n + 127) / 128, 1, 1}, {128, 1, 1}, 0, pin, pout, n);
  auto v = r.download<long long>(pout, 3 * n);
  for (int i = 0; i < n; ++i) {
    const int x = in[i];
    long long acc = 0;
    for (int a = 0; a < (x & 15); ++a) {
      if (a == 7) continue;
      for (int b = a; b < 20; b += 3) {
        if ((a * b + x) % 11 == 0) break;
        acc += a * b - x;
      }
      if (acc > 100000) break;
    }
    uint32_t w = uint32_t(x) + 1;
    int steps = 0;
    while (w != 1 && steps < 300) {
      w = (w & 1) ? 3 * w + 1 : w / 2;
      ++steps;
    }
    int d = 0;
    do {
      d += 3;
    } while (d < x % 50);
    ASSERT_EQ(v[3 * i], acc) << i;
    ASSERT_EQ(v[3 * i + 1], steps) << i;
    ASSERT_EQ(v[3 * i + 2], d) << i;
  }
}

// ---- reductions -------------------------------------------------------------------------------

TEST(ExecKernels, BlockReductionWithBarriers) {
  LOAD_OR_SKIP(r, "reductions");
  const unsigned block = 512, grid = 5;
  auto in = random_ints(block * grid, -1000000, 1000000, 3);
  Addr pin = r.upload(in), pout = r.upload(std::vector<long long>(grid, 0));
  r.launch("block_sum", {grid, 1, 1}, {block, 1, 1}, 0, pin, pout);
  auto v = r.download<long long>(pout, grid);
  for (unsigned b = 0; b < grid; ++b) {
    long long s = 0;
    for (unsigned t = 0; t < block; ++t) s += in[b * block + t];
    EXPECT_EQ(v[b], s) << b;
  }
}

TEST(ExecKernels, WarpShuffleReductionsAndScan) {
  LOAD_OR_SKIP(r, "reductions");
  const unsigned block = 128, grid = 3, nt = block * grid;
  auto in = random_ints(nt, -100000, 100000, 4);
  Addr pin = r.upload(in), pout = r.upload(std::vector<int>(5 * nt, 0));
  r.launch("warp_ops", {grid, 1, 1}, {block, 1, 1}, 0, pin, pout);
  auto v = r.download<int>(pout, 5 * nt);
  for (unsigned i = 0; i < nt; ++i) {
    const unsigned lane = i % 32, base = i - lane;
    int sum = 0, mx = INT_MIN, scan = 0;
    for (unsigned k = 0; k < 32; ++k) {
      sum += in[base + k];
      mx = std::max(mx, in[base + k]);
      if (k <= lane) scan += in[base + k];
    }
    EXPECT_EQ(v[5 * i], lane == 0 ? sum : 0) << i;
    EXPECT_EQ(v[5 * i + 1], mx) << i;
    EXPECT_EQ(v[5 * i + 2], scan) << i;
    EXPECT_EQ(v[5 * i + 3], in[base + 7]) << i;
    EXPECT_EQ(v[5 * i + 4], in[base + (lane & ~7u) + 3]) << i;
  }
}

TEST(ExecKernels, SyncthreadsCountAndOr) {
  LOAD_OR_SKIP(r, "reductions");
  const unsigned block = 256, grid = 4;
  auto in = random_ints(block * grid, -5, 100, 5);
  for (unsigned t = 0; t < block; ++t) {
    in[t] = std::abs(in[t]) % 77;  // block 0: all >= 0, none == 77
    in[block + t] = std::abs(in[block + t]);
  }
  in[block + 9] = 77;  // block 1: one 77
  Addr pin = r.upload(in), pout = r.upload(std::vector<int>(3 * grid, -1));
  r.launch("sync_counts", {grid, 1, 1}, {block, 1, 1}, 0, pin, pout);
  auto v = r.download<int>(pout, 3 * grid);
  for (unsigned b = 0; b < grid; ++b) {
    int c = 0;
    bool all = true, any = false;
    for (unsigned t = 0; t < block; ++t) {
      const int x = in[b * block + t];
      c += x > 50;
      all = all && x >= 0;
      any = any || x == 77;
    }
    EXPECT_EQ(v[3 * b], c) << b;
    EXPECT_EQ(v[3 * b + 1] != 0, all) << b;
    EXPECT_EQ(v[3 * b + 2] != 0, any) << b;
  }
}

TEST(ExecKernels, ReduxSyncSm80) {
  LOAD_OR_SKIP(r, "redux_sm80");
  const unsigned block = 96, grid = 2, nt = block * grid;
  std::mt19937 rng(6);
  std::vector<uint32_t> in(nt);
  for (auto& x : in) x = rng();
  Addr pin = r.upload(in), pout = r.upload(std::vector<uint32_t>(6 * nt, 1));
  r.launch("redux", {grid, 1, 1}, {block, 1, 1}, 0, pin, pout);
  auto v = r.download<uint32_t>(pout, 6 * nt);
  for (unsigned i = 0; i < nt; ++i) {
    const unsigned lane = i % 32, base = i - lane;
    uint32_t add = 0, mn = UINT32_MAX, an = UINT32_MAX, o = 0, x = 0;
    int32_t mx = INT32_MIN;
    for (unsigned k = 0; k < 32; ++k) {
      const uint32_t e = in[base + k];
      add += e;
      mn = std::min(mn, e);
      mx = std::max(mx, int32_t(e));
      an &= e;
      o |= e;
      if (k % 2 == 0) x ^= e;
    }
    EXPECT_EQ(v[6 * i], add);
    EXPECT_EQ(v[6 * i + 1], mn);
    EXPECT_EQ(v[6 * i + 2], uint32_t(mx));
    EXPECT_EQ(v[6 * i + 3], an);
    EXPECT_EQ(v[6 * i + 4], o);
    EXPECT_EQ(v[6 * i + 5], lane % 2 == 0 ? x : 0u) << i;
  }
}

// ---- atomics ----------------------------------------------------------------------------------

TEST(ExecKernels, HistogramAtomics) {
  LOAD_OR_SKIP(r, "atomics");
  const int n = 3000;
  const unsigned block = 256, grid = (n + block - 1) / block;
  auto in = random_ints(n, 0, 1 << 20, 7);
  Addr pin = r.upload(in), gh = r.upload(std::vector<unsigned>(16, 0)),
       bh = r.upload(std::vector<unsigned>(16 * grid, 0));
  r.launch("histogram", {grid, 1, 1}, {block, 1, 1}, 0, pin, gh, bh, n);
  auto g = r.download<unsigned>(gh, 16);
  auto b = r.download<unsigned>(bh, 16 * grid);
  std::vector<unsigned> want(16, 0), wantb(16 * grid, 0);
  for (int i = 0; i < n; ++i) {
    ++want[in[i] & 15];
    ++wantb[(i / block) * 16 + (in[i] & 15)];
  }
  EXPECT_EQ(g, want);
  EXPECT_EQ(b, wantb);
}

struct Cells {
  int mn, mx;
  unsigned andv, orv, xorv, inc, dec, cas_count;
  unsigned long long sum64, max64;
  int exch;
};

TEST(ExecKernels, ContendedAtomics) {
  LOAD_OR_SKIP(r, "atomics");
  const int n = 1000;
  auto in = random_ints(n, -100000, 100000, 8);
  Cells init{INT_MAX, INT_MIN, 0xffffffffu, 0, 0, 0, 0, 0, 0, 0, -1};
  Addr pin = r.upload(in), pc = r.upload(std::vector<Cells>{init});
  r.launch("contended", {(n + 127) / 128, 1, 1}, {128, 1, 1}, 0, pin, pc, n);
  const Cells c = r.download<Cells>(pc, 1)[0];
  Cells w = init;
  for (int v : in) {
    w.mn = std::min(w.mn, v);
    w.mx = std::max(w.mx, v);
    w.andv &= ~(1u << (v & 31));
    w.orv |= 1u << ((v >> 5) & 31);
    w.xorv ^= unsigned(v) * 2654435761u;
    w.inc = w.inc >= 37 ? 0 : w.inc + 1;
    w.dec = (w.dec == 0 || w.dec > 19) ? 19 : w.dec - 1;
    w.sum64 += (unsigned long long)(long long)v << 20;
    w.max64 = std::max(w.max64, (unsigned long long)(long long)v * 0x100000001ull);
  }
  EXPECT_EQ(c.mn, w.mn);
  EXPECT_EQ(c.mx, w.mx);
  EXPECT_EQ(c.andv, w.andv);
  EXPECT_EQ(c.orv, w.orv);
  EXPECT_EQ(c.xorv, w.xorv);
  EXPECT_EQ(c.inc, w.inc);
  EXPECT_EQ(c.dec, w.dec);
  EXPECT_EQ(c.sum64, w.sum64);
  EXPECT_EQ(c.max64, w.max64);
  EXPECT_EQ(c.cas_count, unsigned(n));
  EXPECT_NE(std::find(in.begin(), in.end(), c.exch), in.end())
      << "exch left a value no thread wrote";
}

// ---- printf, calls, heap ----------------------------------------------------------------------

TEST(ExecKernels, Printf) {
  LOAD_OR_SKIP(r, "printf_calls");
  const int n = 300;
  const unsigned block = 64;
  auto in = random_ints(n, 0, 100000, 9);
  Addr pin = r.upload(in);
  r.launch("print_values", {(n + block - 1) / block, 1, 1}, {block, 1, 1}, 0, pin, n);
  std::vector<std::string> want, got;
  for (int i = 0; i < n; ++i) {
    const int v = in[i];
    if (v % 3) continue;
    char buf[256];
    std::snprintf(buf, sizeof buf, "thread %d block %d: v=%d hex=%08x ll=%lld d=%.3f s=%s c=%c",
                  i % int(block), i / int(block), v, unsigned(v), (long long)v * -123456789LL,
                  v / 8.0, (v & 1) ? "odd" : "even", char('a' + v % 26));
    want.push_back(buf);
  }
  std::istringstream ss(r.printed);
  for (std::string line; std::getline(ss, line);) got.push_back(line);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
}

long long ref_mix(int a, long long b, unsigned c, short d, char e, long long f) {
  return a * 3 + b * 5 - (long long)c + d * 7 + e * 11 + f;
}
int ref_ack(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ref_ack(m - 1, 1);
  return ref_ack(m - 1, ref_ack(m, n - 1));
}

TEST(ExecKernels, CallsRecursionFunctionPointersStructReturn) {
  LOAD_OR_SKIP(r, "printf_calls");
  const int n = 500;
  auto in = random_ints(n, 0, 5000, 10);
  Addr pin = r.upload(in), pout = r.upload(std::vector<long long>(n, 0));
  r.launch("calls", {(n + 95) / 96, 1, 1}, {96, 1, 1}, 0, pin, pout, n);
  auto v = r.download<long long>(pout, n);
  for (int i = 0; i < n; ++i) {
    const int x = in[i];
    long long want = ref_mix(x, x * 1000LL, unsigned(x) * 7u, short(x - 300), char(x & 63), -x);
    want += ref_ack(x % 3, x % 4);
    want += x % 3 == 0 ? x + 17 : x % 3 == 1 ? x * 3 : -x;
    want += (long long)x * x - (x ^ 0x3c);
    ASSERT_EQ(v[i], want) << "thread " << i << " x=" << x;
  }
}

TEST(ExecKernels, DeviceMallocFree) {
  LOAD_OR_SKIP(r, "printf_calls");
  const int n = 200;
  Addr pout = r.upload(std::vector<int>(n, 0));
  r.launch("heap", {(n + 63) / 64, 1, 1}, {64, 1, 1}, 0, pout, n);
  auto v = r.download<int>(pout, n);
  for (int i = 0; i < n; ++i) {
    const int len = 1 + i % 13;
    EXPECT_EQ(v[i], i * (len * (len - 1) / 2)) << i;
  }
}

// ---- local arrays, dynamic shared memory -----------------------------------------------------

TEST(ExecKernels, LocalArraySort) {
  LOAD_OR_SKIP(r, "memory_kernels");
  const int n = 150;
  auto in = random_ints(n * 24, -1000, 1000, 11);
  Addr pin = r.upload(in), pout = r.upload(std::vector<int>(n * 25, 0));
  r.launch("local_sort", {(n + 63) / 64, 1, 1}, {64, 1, 1}, 0, pin, pout, n);
  auto v = r.download<int>(pout, n * 25);
  for (int i = 0; i < n; ++i) {
    std::vector<int> a(in.begin() + i * 24, in.begin() + (i + 1) * 24);
    std::sort(a.begin(), a.end());
    for (int k = 0; k < 24; ++k) ASSERT_EQ(v[i * 25 + k], a[k]) << i << " " << k;
    EXPECT_EQ(v[i * 25 + 24], a[in[i * 24] & 15]) << i;
  }
}

TEST(ExecKernels, DynamicSharedMemory) {
  LOAD_OR_SKIP(r, "memory_kernels");
  for (int words : {100, 1000, 3000}) {
    const unsigned grid = 3;
    auto in = random_ints(words * grid, INT_MIN, INT_MAX, 12 + words);
    Addr pin = r.upload(in), pout = r.upload(std::vector<int>(words * grid, 0));
    r.launch("dyn_shared", {grid, 1, 1}, {128, 1, 1}, uint32_t(words * 4), pin, pout, words);
    auto v = r.download<int>(pout, words * grid);
    for (unsigned b = 0; b < grid; ++b)
      for (int k = 0; k < words; ++k) {
        const int* blk = &in[b * words];
        const int hi = int16_t(uint32_t(blk[k]) >> 16);
        ASSERT_EQ(v[b * words + k], int(uint32_t(blk[words - 1 - k]) + uint32_t(hi)))
            << words << " " << b << " " << k;
      }
  }
}

// ---- double math ------------------------------------------------------------------------------

bool within_ulps(double got, double want, int ulps) {
  if (got == want) return true;
  double lo = want, hi = want;
  for (int k = 0; k < ulps; ++k) {
    lo = std::nextafter(lo, -INFINITY);
    hi = std::nextafter(hi, INFINITY);
  }
  return got >= lo && got <= hi;
}

TEST(ExecKernels, DoubleMath) {
  LOAD_OR_SKIP(r, "double_math");
  const int n = 400;
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> dx(-100.0, 100.0), dy(-50.0, 50.0);
  std::vector<double> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = dx(rng);
    b[i] = dy(rng);
    if (b[i] == 0) b[i] = 1;
  }
  a[0] = 2.0, b[0] = 3.0;
  a[1] = 1e-300, b[1] = 1e300;
  a[2] = -0.0, b[2] = 7.0;
  Addr pa = r.upload(a), pb = r.upload(b), po = r.upload(std::vector<double>(10 * n, 0));
  r.launch("double_math", {(n + 127) / 128, 1, 1}, {128, 1, 1}, 0, pa, pb, po, n);
  auto v = r.download<double>(po, 10 * n);
  for (int i = 0; i < n; ++i) {
    const double x = a[i], y = b[i];
    const double* o = &v[10 * i];
    // Correctly rounded operations: exact equality with the host's IEEE results.
    EXPECT_EQ(o[0], x + y) << i;
    EXPECT_EQ(o[1], x * y) << i;
    EXPECT_EQ(o[2], x / y) << i;
    EXPECT_EQ(o[3], std::fma(x, y, -1.5)) << i;
    EXPECT_EQ(o[4], std::sqrt(std::fabs(x))) << i;
    EXPECT_EQ(o[5], std::fmin(x, y) - std::fmax(x, y)) << i;
    EXPECT_EQ(o[9], std::floor(x) + std::trunc(y) + double((long long)(x * 4.0))) << i;
    // Library functions: CUDA documents at most 1-2 ulp of error.
    EXPECT_TRUE(within_ulps(o[6], std::exp(x / 64.0), 2))
        << i << ": " << o[6] << " vs " << std::exp(x / 64.0);
    EXPECT_TRUE(within_ulps(o[7], std::sin(y), 2)) << i << ": " << o[7] << " vs " << std::sin(y);
    EXPECT_TRUE(within_ulps(o[8], std::log1p(std::fabs(y)), 2)) << i;
  }
}

}  // namespace
}  // namespace simtlab::testing
