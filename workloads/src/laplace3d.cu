// laplace3d: Jacobi iterations of the 7-point Laplace stencil on an NX x NY x NZ grid (Dirichlet
// boundary: boundary points are copied). Each block owns a 32x4 tile of (i,j) columns and marches
// in z; the planes k-1, k, k+1 of the tile plus its one-point x/y halo live in shared memory as
// a rotating buffer of three planes, so each point is read from global memory once per sweep.
// Analog of: GPGPU-Sim benchmark LPS (Giles' Laplace 3D), kernel GPU_laplace3d, thesis Table 4.3
// #7 (LPS).
// Profile of the original (published): 2D blocks of BLOCK_X 32 x BLOCK_Y 4 = 128 threads;
// shared float u1[3*KOFF] with KOFF = (BLOCK_X+2)*(BLOCK_Y+2), i.e. 3*34*6*4 = 2448 B. The thesis
// lists no register count for Chapter 4; ours is recorded in the manifest.
// Usage: laplace3d [n] [iterations]   (grid n^3; default 64 2 -> 2x16 blocks; scaled run 192 2)
// Check: exact. The device sums the six neighbours in a fixed order with __fadd_rn and scales
// with __fmul_rn (no FMA contraction), the CPU does the same float operations in the same order.
#include <utility>
#include <vector>

#include "wl.h"

namespace {
constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 4;
constexpr int JOFF = BLOCK_X + 2;
constexpr int KOFF = (BLOCK_X + 2) * (BLOCK_Y + 2);
constexpr float kSixth = 1.0f / 6.0f;
}  // namespace

__global__ void GPU_laplace3d(int NX, int NY, int NZ, int pitch, const float* d_u1, float* d_u2) {
  __shared__ float u1[3 * KOFF];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i0 = blockIdx.x * BLOCK_X, j0 = blockIdx.y * BLOCK_Y;
  const size_t plane = size_t(pitch) * NY;

  // This thread's interior point.
  const int i = i0 + tx, j = j0 + ty;
  const int ind = (tx + 1) + (ty + 1) * JOFF;
  const bool active = i < NX && j < NY;
  const bool edge = i == 0 || i == NX - 1 || j == 0 || j == NY - 1;

  // Halo point (no corners: the 7-point stencil does not read them). Threads 0..63 load the two
  // y-halo rows (coalesced), threads 64..71 the two x-halo columns.
  const int t = tx + ty * BLOCK_X;
  int hi = -1, hj = -1;
  if (t < 2 * BLOCK_X) {
    hi = t % BLOCK_X;
    hj = (t / BLOCK_X) * (BLOCK_Y + 1) - 1;
  } else if (t < 2 * BLOCK_X + 2 * BLOCK_Y) {
    const int m = t - 2 * BLOCK_X;
    hi = (m % 2) * (BLOCK_X + 1) - 1;
    hj = m / 2;
  }
  const int gi = i0 + hi, gj = j0 + hj;
  const bool halo = hj >= -1 && gi >= 0 && gi < NX && gj >= 0 && gj < NY;
  const int ind_h = (hi + 1) + (hj + 1) * JOFF;
  const size_t indg = size_t(j) * pitch + i, indg_h = size_t(gj) * pitch + gi;

  // Plane 0 into slot 0.
  if (active) u1[ind] = d_u1[indg];
  if (halo) u1[ind_h] = d_u1[indg_h];
  // Slot offsets of planes k-1, k and k+1 in the rotating buffer.
  int sPrev = 2 * KOFF, sCur = 0, sNext = KOFF;
  for (int k = 0; k < NZ; ++k) {
    // Plane k+1 into the slot that held plane k-2.
    if (k + 1 < NZ) {
      if (active) u1[sNext + ind] = d_u1[indg + (k + 1) * plane];
      if (halo) u1[sNext + ind_h] = d_u1[indg_h + (k + 1) * plane];
    }
    __syncthreads();
    if (active) {
      const int c = sCur + ind;
      float u2;
      if (edge || k == 0 || k == NZ - 1) {
        u2 = u1[c];
      } else {
        float s = __fadd_rn(u1[c - 1], u1[c + 1]);
        s = __fadd_rn(s, u1[c - JOFF]);
        s = __fadd_rn(s, u1[c + JOFF]);
        s = __fadd_rn(s, u1[sPrev + ind]);
        s = __fadd_rn(s, u1[sNext + ind]);
        u2 = __fmul_rn(s, kSixth);
      }
      d_u2[indg + k * plane] = u2;
    }
    __syncthreads();
    const int t0 = sPrev;
    sPrev = sCur;
    sCur = sNext;
    sNext = t0;
  }
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 64, 3, 1024));
  const int iters = int(wl::arg_int(argc, argv, 2, 2, 1, 1000));
  const int NX = n, NY = n, NZ = n;
  const int pitch = (NX + 31) / 32 * 32;
  const size_t plane = size_t(pitch) * NY, total = plane * NZ;
  std::vector<float> u(total, 0.0f), out(total);
  wl::Rng rng(7);
  for (int k = 0; k < NZ; ++k)
    for (int j = 0; j < NY; ++j)
      for (int i = 0; i < NX; ++i) u[k * plane + size_t(j) * pitch + i] = rng.unit();

  float *d1, *d2;
  WL_CK(cudaMalloc(&d1, total * sizeof(float)));
  WL_CK(cudaMalloc(&d2, total * sizeof(float)));
  WL_CK(cudaMemcpy(d1, u.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemset(d2, 0, total * sizeof(float)));
  const dim3 block(BLOCK_X, BLOCK_Y),
      grid((NX + BLOCK_X - 1) / BLOCK_X, (NY + BLOCK_Y - 1) / BLOCK_Y);
  for (int it = 0; it < iters; ++it) {
    GPU_laplace3d<<<grid, block>>>(NX, NY, NZ, pitch, d1, d2);
    WL_CK_LAUNCH();
    std::swap(d1, d2);
  }
  WL_CK(cudaMemcpy(out.data(), d1, total * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference, same float operations in the same order.
  std::vector<float> a = u, b(total, 0.0f);
  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < NZ; ++k)
      for (int j = 0; j < NY; ++j)
        for (int i = 0; i < NX; ++i) {
          const size_t c = k * plane + size_t(j) * pitch + i;
          if (i == 0 || i == NX - 1 || j == 0 || j == NY - 1 || k == 0 || k == NZ - 1) {
            b[c] = a[c];
          } else {
            float s = a[c - 1] + a[c + 1];
            s = s + a[c - pitch];
            s = s + a[c + pitch];
            s = s + a[c - plane];
            s = s + a[c + plane];
            b[c] = s * kSixth;
          }
        }
    a.swap(b);
  }
  std::printf("laplace3d n=%d iterations=%d grid=%dx%d block=%dx%d\n", n, iters, grid.x, grid.y,
              BLOCK_X, BLOCK_Y);
  const bool ok = wl::check_equal("u", out.data(), a.data(), total);
  WL_CK(cudaFree(d1));
  WL_CK(cudaFree(d2));
  return wl::finish(ok);
}
