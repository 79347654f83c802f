// fdtd3d: one time step of an order-8 (radius 4) 3D finite-difference stencil,
//   out(x,y,z) = c0 in(x,y,z) + sum_{r=1..4} c_r [in(x+-r,y,z) + in(x,y+-r,z) + in(x,y,z+-r)],
// over a volume whose input carries a 4-point halo on every side. A 32 x 16 block of threads owns
// a 32 x 16 column of the output and sweeps it along z: each thread keeps the 4 points behind, the
// current point and the 4 points in front in registers (a queue shifted every step), while the
// current xy plane plus its 4-point x/y halos is staged in a shared (16+8) x (32+8) tile.
// Analog of: CUDA SDK FDTD3d, kernel FiniteDifferencesKernel (thesis Table 3.3 Set-2 and
// Table 3.7 "FDTD3d"). Algorithm as described in the SDK sample's documentation (register queue
// in z, shared tile in xy); code written here.
// Profile: 512 threads (32 x 16: the SDK's k_blockDimX = 32 and k_blockDimMaxY = 16), shared tile
// (16 + 2x4) x (32 + 2x4) floats = 3840 B (SDK shape). At 16 KB this gives 4 blocks by scratchpad
// (thesis: FDTD3d gains 2 blocks, 4 -> 6 = the 3072-thread limit of Table 3.2); on fermi-c2050's
// 1536 threads / 32768 registers it gets 2. Registers: not listed by the thesis; the natural code
// needs 47, capped to 32 with -maxrregcount (no spills) because the thesis' 4 blocks at 16 KB under
// Table 3.2 (65536 registers) require <= 32.
// Usage: fdtd3d [dimz]   (volume 96 x 160 x dimz; default dimz = 16 -> 30 blocks; scaled 256)
// Check: against a CPU evaluation of the same sum in float; |err| <= 1e-5 + 1e-5 |ref| (25 terms of
// magnitude < 1 each, summed in the same order; only FMA contraction differs, a few ulps).
// nvcc-flags: -maxrregcount=32
#include <vector>

#include "wl.h"

#define RADIUS 4
#define BDX 32
#define BDY 16

__constant__ float stencil[RADIUS + 1];

__global__ void FiniteDifferencesKernel(float* output, const float* input, int dimx, int dimy,
                                        int dimz) {
  __shared__ float tile[BDY + 2 * RADIUS][BDX + 2 * RADIUS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int gx = blockIdx.x * BDX + tx, gy = blockIdx.y * BDY + ty;
  // Padded input: (dimx + 8) x (dimy + 8) x (dimz + 8); point (x, y, z) of the output is input
  // point (x + 4, y + 4, z + 4).
  const int px = dimx + 2 * RADIUS, py = dimy + 2 * RADIUS;
  const size_t plane = size_t(px) * py;
  const float* in = input + size_t(gy + RADIUS) * px + (gx + RADIUS);
  float* out = output + size_t(gy) * dimx + gx;
  float behind[RADIUS], infront[RADIUS], current;
  // Prime the queue: input planes 0..3 behind, 4 current, 5..8 in front.
  // behind[0] is the nearest plane (z-1), behind[3] the farthest (z-4).
  for (int r = 0; r < RADIUS; ++r) behind[r] = in[size_t(RADIUS - 1 - r) * plane];
  current = in[size_t(RADIUS) * plane];
  for (int r = 0; r < RADIUS; ++r) infront[r] = in[size_t(RADIUS + 1 + r) * plane];
  const int lx = tx + RADIUS, ly = ty + RADIUS;
#pragma unroll 1
  for (int z = 0; z < dimz; ++z) {
    const float* cp = in + size_t(z + RADIUS) * plane;  // current plane at this thread's point
    if (ty < RADIUS) {  // y halos
      tile[ty][lx] = cp[-RADIUS * px];
      tile[ly + BDY][lx] = cp[BDY * px];
    }
    if (tx < RADIUS) {  // x halos
      tile[ly][tx] = cp[-RADIUS];
      tile[ly][lx + BDX] = cp[BDX];
    }
    tile[ly][lx] = current;
    __syncthreads();
    float v = stencil[0] * current;
    for (int r = 1; r <= RADIUS; ++r) {
      v += stencil[r] * (infront[r - 1] + behind[r - 1] + tile[ly - r][lx] + tile[ly + r][lx] +
                         tile[ly][lx - r] + tile[ly][lx + r]);
    }
    out[size_t(z) * dimx * dimy] = v;
    __syncthreads();
    // Advance the queue one plane in z.
    for (int r = RADIUS - 1; r > 0; --r) behind[r] = behind[r - 1];
    behind[0] = current;
    current = infront[0];
    for (int r = 0; r < RADIUS - 1; ++r) infront[r] = infront[r + 1];
    if (z + 1 < dimz) infront[RADIUS - 1] = cp[size_t(RADIUS + 1) * plane];
  }
}

int main(int argc, char** argv) {
  const int dimz = int(wl::arg_int(argc, argv, 1, 16, 1, 4096));
  const int dimx = 96, dimy = 160;
  const int px = dimx + 2 * RADIUS, py = dimy + 2 * RADIUS, pz = dimz + 2 * RADIUS;
  const size_t inN = size_t(px) * py * pz, outN = size_t(dimx) * dimy * dimz;
  std::vector<float> in(inN), out(outN), ref(outN);
  wl::Rng rng(3333);
  for (auto& v : in) v = rng.unit();
  const float c[RADIUS + 1] = {-2.5f, 0.8f, -0.2f, 0.05f, -0.0125f};
  for (int z = 0; z < dimz; ++z)
    for (int y = 0; y < dimy; ++y)
      for (int x = 0; x < dimx; ++x) {
        auto at = [&](int dx, int dy, int dz) {
          return in[(size_t(z + RADIUS + dz) * py + (y + RADIUS + dy)) * px + (x + RADIUS + dx)];
        };
        float v = c[0] * at(0, 0, 0);
        for (int r = 1; r <= RADIUS; ++r)
          v += c[r] * (at(0, 0, r) + at(0, 0, -r) + at(0, -r, 0) + at(0, r, 0) + at(-r, 0, 0) +
                       at(r, 0, 0));
        ref[(size_t(z) * dimy + y) * dimx + x] = v;
      }
  float *dIn, *dOut;
  WL_CK(cudaMalloc(&dIn, inN * 4));
  WL_CK(cudaMalloc(&dOut, outN * 4));
  WL_CK(cudaMemcpy(dIn, in.data(), inN * 4, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpyToSymbol(stencil, c, sizeof(c)));
  const dim3 threads(BDX, BDY), grid(dimx / BDX, dimy / BDY);
  FiniteDifferencesKernel<<<grid, threads>>>(dOut, dIn, dimx, dimy, dimz);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(out.data(), dOut, outN * 4, cudaMemcpyDeviceToHost));
  std::printf("fdtd3d %dx%dx%d radius=%d blocks=%d threads=%d\n", dimx, dimy, dimz, RADIUS,
              grid.x * grid.y, BDX * BDY);
  const bool ok = wl::check_close("output", out.data(), ref.data(), outN, 1e-5, 1e-5);
  WL_CK(cudaFree(dIn));
  WL_CK(cudaFree(dOut));
  return wl::finish(ok);
}
