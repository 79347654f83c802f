// lavamd: particle potential and force accumulation in a 3D grid of boxes. Every box holds 100
// particles (position record {v, x, y, z} and charge q, double precision). For every particle i
// of a home box and every particle j of the home box and of its up to 26 neighbour boxes:
//   r2 = v_i + v_j - (x_i x_j + y_i y_j + z_i z_j),  u = exp(-a2 r2),  s = 2 u,
//   f_i.v += q_j u,  f_i.{x,y,z} += q_j s (p_i - p_j).{x,y,z},   a2 = 2 alpha^2, alpha = 0.5.
// One block per home box; the block stages the home box's positions and, in turn, each
// neighbour's positions and charges in shared memory.
// Analog of: Rodinia lavaMD, kernel kernel_gpu_cuda, thesis Table 2.2 (lavaMD) and Table 4.3
// #6 (LMD). Algorithm from the Rodinia lavaMD description (Szafaryn et al.; Rodinia 2.x docs).
// Profile: 128 threads per block (thesis Table 2.2); shared 7200 B (thesis Table 2.2) laid out
//   as the original's double-precision arrays: rA_shared[100] and rB_shared[100] of
//   {v,x,y,z} doubles (3200 B each) + qB_shared[100] doubles (800 B); 100 particles per box as
//   the original's NUMBER_PAR_PER_BOX; 2 resident blocks/SM at 16 KB (thesis Section 5.2).
//   The thesis lists no register count; ours is recorded in the manifest.
// Usage: lavamd [nx] [ny] [nz]   boxes per dimension (default 14 1 1 = a chain of 14 boxes, one
//   per SM: each box costs ~25 K warp instructions per neighbour in double precision, so 28
//   boxes would take ~4.6 s in timing mode, over the CI budget; "28" gives 2 blocks per SM;
//   scaled run 4 4 4 = 64 boxes as a cube like the original's boxes1d^3).
// Check: every output component within |got - ref| <= 1e-9 * (|ref| + max |ref of that
//   component|): the device's exp differs from the host's by a few ulp and the device contracts
//   multiply-adds, so each of the <= 2700 summed terms may differ by ~1e-16 relative.
#include <algorithm>
#include <cmath>
#include <vector>

#include "wl.h"

constexpr int kParPerBox = 100;
constexpr int kThreads = 128;
constexpr double kAlpha = 0.5;

struct Vec4 {
  double v, x, y, z;
};

struct Box {
  int first;    // index of the box's first particle
  int nn;       // number of neighbour boxes (excluding itself)
  int nei[26];  // neighbour box numbers
};

__global__ void kernel_gpu_cuda(int numBoxes, const Box* boxes, const Vec4* rv, const double* qv,
                                Vec4* fv) {
  __shared__ Vec4 rA_shared[kParPerBox];
  __shared__ Vec4 rB_shared[kParPerBox];
  __shared__ double qB_shared[kParPerBox];

  const int bx = blockIdx.x;
  const int tx = threadIdx.x;
  if (bx >= numBoxes) return;
  const double a2 = 2.0 * kAlpha * kAlpha;
  const int homeFirst = boxes[bx].first;
  const Vec4* rA = rv + homeFirst;
  Vec4* fA = fv + homeFirst;

  for (int i = tx; i < kParPerBox; i += kThreads) rA_shared[i] = rA[i];
  __syncthreads();

  const int nn = boxes[bx].nn;
  for (int k = 0; k <= nn; ++k) {
    const int nb = k == 0 ? bx : boxes[bx].nei[k - 1];
    const int nbFirst = boxes[nb].first;
    for (int j = tx; j < kParPerBox; j += kThreads) {
      rB_shared[j] = rv[nbFirst + j];
      qB_shared[j] = qv[nbFirst + j];
    }
    __syncthreads();

    for (int i = tx; i < kParPerBox; i += kThreads) {
      const Vec4 a = rA_shared[i];
      Vec4 f = fA[i];
      for (int j = 0; j < kParPerBox; ++j) {
        const Vec4 b = rB_shared[j];
        const double r2 = a.v + b.v - (a.x * b.x + a.y * b.y + a.z * b.z);
        const double u = exp(-a2 * r2);
        const double s = 2.0 * u;
        const double q = qB_shared[j];
        f.v += q * u;
        f.x += q * (s * (a.x - b.x));
        f.y += q * (s * (a.y - b.y));
        f.z += q * (s * (a.z - b.z));
      }
      fA[i] = f;
    }
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  const int nx = int(wl::arg_int(argc, argv, 1, 14, 1, 64));
  const int ny = int(wl::arg_int(argc, argv, 2, 1, 1, 64));
  const int nz = int(wl::arg_int(argc, argv, 3, 1, 1, 64));
  const int numBoxes = nx * ny * nz, n = numBoxes * kParPerBox;

  // Box list with neighbours in the 3D grid (26-neighbourhood clipped at the borders).
  std::vector<Box> boxes(numBoxes);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const int b = (z * ny + y) * nx + x;
        boxes[b].first = b * kParPerBox;
        boxes[b].nn = 0;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              if (!dx && !dy && !dz) continue;
              const int X = x + dx, Y = y + dy, Z = z + dz;
              if (X < 0 || X >= nx || Y < 0 || Y >= ny || Z < 0 || Z >= nz) continue;
              boxes[b].nei[boxes[b].nn++] = (Z * ny + Y) * nx + X;
            }
        for (int k = boxes[b].nn; k < 26; ++k) boxes[b].nei[k] = 0;
      }

  // Inputs as the original generates them: every component in {0.1, ..., 1.0}.
  std::vector<Vec4> r(n), f(n, Vec4{0, 0, 0, 0});
  std::vector<double> q(n);
  wl::Rng rr(21), rq(22);
  for (int i = 0; i < n; ++i) {
    r[i].v = rr.range(1, 10) / 10.0;
    r[i].x = rr.range(1, 10) / 10.0;
    r[i].y = rr.range(1, 10) / 10.0;
    r[i].z = rr.range(1, 10) / 10.0;
    q[i] = rq.range(1, 10) / 10.0;
  }

  // CPU reference.
  std::vector<Vec4> ref(n, Vec4{0, 0, 0, 0});
  const double a2 = 2.0 * kAlpha * kAlpha;
  for (int b = 0; b < numBoxes; ++b)
    for (int k = 0; k <= boxes[b].nn; ++k) {
      const int nb = k == 0 ? b : boxes[b].nei[k - 1];
      for (int i = 0; i < kParPerBox; ++i) {
        const Vec4 a = r[boxes[b].first + i];
        Vec4& acc = ref[boxes[b].first + i];
        for (int j = 0; j < kParPerBox; ++j) {
          const Vec4 c = r[boxes[nb].first + j];
          const double qj = q[boxes[nb].first + j];
          const double r2 = a.v + c.v - (a.x * c.x + a.y * c.y + a.z * c.z);
          const double u = std::exp(-a2 * r2), s = 2.0 * u;
          acc.v += qj * u;
          acc.x += qj * (s * (a.x - c.x));
          acc.y += qj * (s * (a.y - c.y));
          acc.z += qj * (s * (a.z - c.z));
        }
      }
    }

  Box* dBoxes;
  Vec4 *dR, *dF;
  double* dQ;
  WL_CK(cudaMalloc(&dBoxes, sizeof(Box) * numBoxes));
  WL_CK(cudaMalloc(&dR, sizeof(Vec4) * n));
  WL_CK(cudaMalloc(&dF, sizeof(Vec4) * n));
  WL_CK(cudaMalloc(&dQ, sizeof(double) * n));
  WL_CK(cudaMemcpy(dBoxes, boxes.data(), sizeof(Box) * numBoxes, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dR, r.data(), sizeof(Vec4) * n, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dQ, q.data(), sizeof(double) * n, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dF, f.data(), sizeof(Vec4) * n, cudaMemcpyHostToDevice));
  kernel_gpu_cuda<<<numBoxes, kThreads>>>(numBoxes, dBoxes, dR, dQ, dF);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(f.data(), dF, sizeof(Vec4) * n, cudaMemcpyDeviceToHost));
  std::printf("lavamd boxes=%dx%dx%d (%d) particles=%d threads=%d\n", nx, ny, nz, numBoxes, n,
              kThreads);

  // Compare component-wise with a tolerance scaled by the component's largest magnitude.
  bool ok = true;
  const char* names[4] = {"f.v", "f.x", "f.y", "f.z"};
  for (int c = 0; c < 4 && ok; ++c) {
    std::vector<double> got(n), want(n);
    double maxAbs = 0;
    for (int i = 0; i < n; ++i) {
      const double* g = &f[i].v;
      const double* w = &ref[i].v;
      got[i] = g[c];
      want[i] = w[c];
      maxAbs = std::max(maxAbs, std::fabs(w[c]));
    }
    ok = wl::check_close(names[c], got.data(), want.data(), size_t(n), 1e-9, 1e-9 * maxAbs);
  }
  WL_CK(cudaFree(dBoxes));
  WL_CK(cudaFree(dR));
  WL_CK(cudaFree(dF));
  WL_CK(cudaFree(dQ));
  return wl::finish(ok);
}
