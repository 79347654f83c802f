// gaussian: solve A x = b (n x n, float) by Gaussian elimination without pivoting on the GPU,
// one pair of launches per column t: Fan1 computes the column's multipliers
// m[i][t] = a[i][t] / a[t][t] for the rows i > t, Fan2 subtracts m[i][t] times row t from
// every row i > t of A (columns >= t) and of b. Back substitution runs on the host.
// Analog of: Rodinia gaussian, kernels Fan1 (FAN1) and Fan2 (FAN2); thesis Table 2.4 (Set-3,
// FAN2 limited by blocks), Table 3.4 (FAN1 limited by threads). Algorithm: textbook Gaussian
// elimination as described for Rodinia gaussian (Che et al., IISWC 2009).
// Profile: Fan1 1D blocks of 512 threads (the original's MAXBLOCKSIZE 512), one thread per row;
//   Fan2 2D blocks of 4 x 4 = 16 threads (the original's BLOCK_SIZE_XY 4) over a fixed
//   ceil(n/4) x ceil(n/4) grid every step (threads outside the active submatrix return at once,
//   as in the original); no shared memory. The thesis lists no register counts; ours recorded.
// Usage: gaussian [n]   (default 48: 47 launch pairs of 1 and 12x12 blocks, sized for the
//   timing-mode launch overhead of ~25 ms per launch; scaled run 160).
//   A is strictly diagonally dominant so no pivoting is needed.
// Check: exact. The device divides with IEEE division and updates with explicit __fmaf_rn,
//   the CPU reference does the same operations with '/' and std::fma in the same order, so the
//   multipliers, the reduced A and b and the back-substituted x (same host code on both) are
//   bit-identical.
#include <cmath>
#include <vector>

#include "wl.h"

constexpr int kFan1Threads = 512;
constexpr int kFan2Edge = 4;

__global__ void Fan1(float* m, const float* a, int n, int t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1 - t) return;
  m[n * (i + t + 1) + t] = a[n * (i + t + 1) + t] / a[n * t + t];
}

// xidx walks the rows below t, yidx the columns from t on.
__global__ void Fan2(const float* m, float* a, float* b, int n, int t) {
  const int xidx = blockIdx.x * blockDim.x + threadIdx.x;
  const int yidx = blockIdx.y * blockDim.y + threadIdx.y;
  if (xidx >= n - 1 - t || yidx >= n - t) return;
  const int row = xidx + 1 + t;
  const float mult = m[n * row + t];
  a[n * row + yidx + t] = __fmaf_rn(-mult, a[n * t + yidx + t], a[n * row + yidx + t]);
  if (yidx == 0) b[row] = __fmaf_rn(-mult, b[t], b[row]);
}

static void backSubstitute(const std::vector<float>& a, const std::vector<float>& b,
                           std::vector<float>& x, int n) {
  for (int i = n - 1; i >= 0; --i) {
    float s = b[i];
    for (int j = i + 1; j < n; ++j) s = std::fma(-a[size_t(i) * n + j], x[j], s);
    x[i] = s / a[size_t(i) * n + i];
  }
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 48, 2, 8192));
  const size_t nn = size_t(n) * n;

  // Strictly diagonally dominant A with entries on a 2^-8 grid; b = A * xtrue.
  std::vector<float> a(nn), b(n), m(nn, 0.0f), xtrue(n);
  wl::Rng ra(61), rx(62);
  for (int i = 0; i < n; ++i) {
    float off = 0;
    for (int j = 0; j < n; ++j)
      if (j != i) {
        a[size_t(i) * n + j] = ra.range(-256, 256) / 256.0f;
        off += std::fabs(a[size_t(i) * n + j]);
      }
    a[size_t(i) * n + i] = off + ra.range(1, 256) / 16.0f;
    xtrue[i] = float(rx.range(-8, 8));
  }
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += double(a[size_t(i) * n + j]) * xtrue[j];
    b[i] = float(s);
  }

  // CPU reference elimination, same operations as the kernels.
  std::vector<float> ra_(a), rb(b), rm(m);
  for (int t = 0; t < n - 1; ++t) {
    for (int i = t + 1; i < n; ++i)
      rm[size_t(i) * n + t] = ra_[size_t(i) * n + t] / ra_[size_t(t) * n + t];
    for (int i = t + 1; i < n; ++i) {
      const float mult = rm[size_t(i) * n + t];
      for (int j = t; j < n; ++j)
        ra_[size_t(i) * n + j] = std::fma(-mult, ra_[size_t(t) * n + j], ra_[size_t(i) * n + j]);
      rb[i] = std::fma(-mult, rb[t], rb[i]);
    }
  }

  float *dA, *dB, *dM;
  WL_CK(cudaMalloc(&dA, nn * sizeof(float)));
  WL_CK(cudaMalloc(&dB, n * sizeof(float)));
  WL_CK(cudaMalloc(&dM, nn * sizeof(float)));
  WL_CK(cudaMemcpy(dA, a.data(), nn * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dB, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dM, m.data(), nn * sizeof(float), cudaMemcpyHostToDevice));
  const int fan1Blocks = (n + kFan1Threads - 1) / kFan1Threads;
  const int fan2Grid = (n + kFan2Edge - 1) / kFan2Edge;
  for (int t = 0; t < n - 1; ++t) {
    Fan1<<<fan1Blocks, kFan1Threads>>>(dM, dA, n, t);
    WL_CK_LAUNCH();
    Fan2<<<dim3(fan2Grid, fan2Grid), dim3(kFan2Edge, kFan2Edge)>>>(dM, dA, dB, n, t);
    WL_CK_LAUNCH();
  }
  WL_CK(cudaMemcpy(a.data(), dA, nn * sizeof(float), cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(b.data(), dB, n * sizeof(float), cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(m.data(), dM, nn * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<float> x(n), rxv(n);
  backSubstitute(a, b, x, n);
  backSubstitute(ra_, rb, rxv, n);
  double maxErr = 0;
  for (int i = 0; i < n; ++i) maxErr = std::fmax(maxErr, std::fabs(double(rxv[i]) - xtrue[i]));
  std::printf("gaussian n=%d launch pairs=%d fan1 grid=%d fan2 grid=%dx%d |x - xtrue| < %s\n", n,
              n - 1, fan1Blocks, fan2Grid, fan2Grid, maxErr < 1e-3 ? "1e-3" : "NOT 1e-3");
  bool ok = wl::check_equal("multipliers", m.data(), rm.data(), nn);
  ok = ok && wl::check_equal("reduced A", a.data(), ra_.data(), nn);
  ok = ok && wl::check_equal("reduced b", b.data(), rb.data(), size_t(n));
  ok = ok && wl::check_equal("x", x.data(), rxv.data(), size_t(n));
  if (ok && !(maxErr < 1e-3)) {
    std::printf("FAILED: reference solution is %g away from the true x\n", maxErr);
    ok = false;
  }
  WL_CK(cudaFree(dA));
  WL_CK(cudaFree(dB));
  WL_CK(cudaFree(dM));
  return wl::finish(ok);
}
