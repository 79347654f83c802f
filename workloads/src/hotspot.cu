// hotspot: transient thermal simulation of a chip (the HotSpot compact RC model) on a 2D grid.
// Each step updates every cell's temperature from its power dissipation, its four neighbours
// (lateral resistances Rx, Ry), and the ambient (vertical resistance Rz); cells on the chip
// border use themselves in place of the missing neighbour. The GPU kernel uses the "pyramid"
// (ghost-zone) scheme: a 16x16 block loads a tile with a halo of `iteration` cells, runs
// `iteration` steps in shared memory (the valid region shrinks by one cell per step), and
// writes back only its inner (16 - 2*iteration)^2 cells.
// Analog of: Rodinia hotspot, kernel calculate_temp, thesis Table 2.1 (Ch. 2 Set-1,
// register-limited; no seed label).
// Profile: 256 threads (16x16) and 36 registers/thread from thesis Table 2.1; shared memory
// 3 x 16x16 floats = 3072 B (temperature tile, power tile, result tile) as in Rodinia hotspot
// (BLOCK_SIZE 16). Baseline 3 resident blocks/SM on fermi-c2050 (thesis Table 2.6), i.e.
// 33..42 registers. Model constants (chip 16 mm x 16 mm x 0.5 mm, K_SI 100, SPEC_HEAT_SI 1.75e6,
// FACTOR_CHIP 0.5, MAX_PD 3e6, PRECISION 0.001, ambient 80) follow the published HotSpot
// model as used by Rodinia. Registers: with float-only arithmetic ptxas (sm_75) used 26; the
// original writes the constant as the double literal 2.0, which makes the update double
// precision -- kept here, it gives 35 registers (within 36 +- 2; 3 blocks/SM).
// Usage: hotspot [n] [iterations] [pyramid]   (grid n x n, default 64 x 64, 16 steps,
//        pyramid height 2 -> 8 launches of 36 blocks; scaled run 512 -> 1849 blocks/launch)
// Check: every cell against a CPU reference doing the same steps (same double promotion);
// relative error <= 1e-5 (the device may contract a*b+c into FMA, the reference does not; temperatures are
// ~330 so 1e-5 relative is ~3e-3 K, far above the rounding differences of 16 steps).
#include <algorithm>
#include <vector>

#include "wl.h"

#define BLOCK 16

__global__ void calculate_temp(int iteration, const float* power, const float* temp_src,
                               float* temp_dst, int cols, int rows, int border_cols,
                               int border_rows, float Cap, float Rx, float Ry, float Rz,
                               float step) {
  __shared__ float temp_on_cuda[BLOCK][BLOCK];
  __shared__ float power_on_cuda[BLOCK][BLOCK];
  __shared__ float temp_t[BLOCK][BLOCK];

  const float amb_temp = 80.0f;
  const float step_div_cap = step / Cap;
  const float rx_1 = 1.0f / Rx, ry_1 = 1.0f / Ry, rz_1 = 1.0f / Rz;
  const int tx = threadIdx.x, ty = threadIdx.y;

  // Each block produces an inner tile of (BLOCK - 2*iteration)^2 cells; its loaded tile starts
  // `border` cells up/left of that.
  const int inner_rows = BLOCK - iteration * 2, inner_cols = BLOCK - iteration * 2;
  const int blk_y = inner_rows * blockIdx.y - border_rows;
  const int blk_x = inner_cols * blockIdx.x - border_cols;
  const int blk_y_max = blk_y + BLOCK - 1, blk_x_max = blk_x + BLOCK - 1;
  const int y = blk_y + ty, x = blk_x + tx;
  const int index = cols * y + x;
  const bool on_chip = y >= 0 && y < rows && x >= 0 && x < cols;
  if (on_chip) {
    temp_on_cuda[ty][tx] = temp_src[index];
    power_on_cuda[ty][tx] = power[index];
  }
  __syncthreads();

  // Part of the tile that lies on the chip.
  const int valid_y_min = blk_y < 0 ? -blk_y : 0;
  const int valid_y_max = blk_y_max > rows - 1 ? BLOCK - 1 - (blk_y_max - rows + 1) : BLOCK - 1;
  const int valid_x_min = blk_x < 0 ? -blk_x : 0;
  const int valid_x_max = blk_x_max > cols - 1 ? BLOCK - 1 - (blk_x_max - cols + 1) : BLOCK - 1;
  // Neighbour coordinates, clamped at the chip border (the cell stands in for its missing
  // neighbour).
  const int n = max(ty - 1, valid_y_min), s = min(ty + 1, valid_y_max);
  const int w = max(tx - 1, valid_x_min), e = min(tx + 1, valid_x_max);
  const bool valid = tx >= valid_x_min && tx <= valid_x_max && ty >= valid_y_min &&
                     ty <= valid_y_max;

  bool computed = false;
  for (int i = 0; i < iteration; ++i) {
    computed = false;
    // After step i only cells at distance > i from the tile edge hold correct values.
    if (tx >= i + 1 && tx <= BLOCK - i - 2 && ty >= i + 1 && ty <= BLOCK - i - 2 && valid) {
      computed = true;
      const float t = temp_on_cuda[ty][tx];
      const float tn = temp_on_cuda[n][tx], ts = temp_on_cuda[s][tx];
      const float tw = temp_on_cuda[ty][w], te = temp_on_cuda[ty][e];
      const float p = power_on_cuda[ty][tx];
      // As in the original, the constant 2.0 is a double literal, so the update is evaluated
      // in double precision and rounded to float when stored.
      temp_t[ty][tx] = t + step_div_cap * (p + (ts + tn - 2.0 * t) * ry_1 +
                                           (te + tw - 2.0 * t) * rx_1 + (amb_temp - t) * rz_1);
    }
    __syncthreads();
    if (i == iteration - 1) break;
    if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];
    __syncthreads();
  }
  // Only the inner cells computed in the last step are written.
  if (computed) temp_dst[index] = temp_t[ty][tx];
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 64, 4, 1 << 13));
  const int total_iters = int(wl::arg_int(argc, argv, 2, 16, 1, 1 << 20));
  const int pyramid = int(wl::arg_int(argc, argv, 3, 2, 1, 7));
  const int rows = n, cols = n;

  // HotSpot model constants.
  const float t_chip = 0.0005f, chip_height = 0.016f, chip_width = 0.016f;
  const float k_si = 100.0f, spec_heat_si = 1.75e6f, factor_chip = 0.5f, max_pd = 3.0e6f;
  const float precision = 0.001f, amb_temp = 80.0f;
  const float grid_height = chip_height / rows, grid_width = chip_width / cols;
  const float Cap = factor_chip * spec_heat_si * t_chip * grid_width * grid_height;
  const float Rx = grid_width / (2.0f * k_si * t_chip * grid_height);
  const float Ry = grid_height / (2.0f * k_si * t_chip * grid_width);
  const float Rz = t_chip / (k_si * grid_height * grid_width);
  const float max_slope = max_pd / (factor_chip * t_chip * spec_heat_si);
  const float step = precision / max_slope;

  const size_t cells = size_t(rows) * cols;
  std::vector<float> temp(cells), power(cells), out(cells);
  wl::Rng rt(11), rp(12);
  for (size_t i = 0; i < cells; ++i) temp[i] = rt.uniform(320.0f, 340.0f);
  for (size_t i = 0; i < cells; ++i) power[i] = rp.uniform(0.0f, 2.0f);

  // CPU reference: the same explicit update, one step at a time.
  std::vector<float> ref = temp, nxt(cells);
  {
    const float sdc = step / Cap, rx1 = 1.0f / Rx, ry1 = 1.0f / Ry, rz1 = 1.0f / Rz;
    for (int it = 0; it < total_iters; ++it) {
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          const float t = ref[size_t(r) * cols + c];
          const float tn = ref[size_t(std::max(r - 1, 0)) * cols + c];
          const float ts = ref[size_t(std::min(r + 1, rows - 1)) * cols + c];
          const float tw = ref[size_t(r) * cols + std::max(c - 1, 0)];
          const float te = ref[size_t(r) * cols + std::min(c + 1, cols - 1)];
          const float p = power[size_t(r) * cols + c];
          nxt[size_t(r) * cols + c] =
              float(t + sdc * (p + (ts + tn - 2.0 * t) * ry1 + (te + tw - 2.0 * t) * rx1 +
                               (amb_temp - t) * rz1));
        }
      ref.swap(nxt);
    }
  }

  float *d_power, *d_temp[2];
  const size_t bytes = cells * sizeof(float);
  WL_CK(cudaMalloc(&d_power, bytes));
  WL_CK(cudaMalloc(&d_temp[0], bytes));
  WL_CK(cudaMalloc(&d_temp[1], bytes));
  WL_CK(cudaMemcpy(d_power, power.data(), bytes, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_temp[0], temp.data(), bytes, cudaMemcpyHostToDevice));

  // Halo width = pyramid height; the grid covers the chip with inner tiles.
  const int border = pyramid;
  const int inner = BLOCK - 2 * pyramid;
  const int block_cols = (cols + inner - 1) / inner, block_rows = (rows + inner - 1) / inner;
  const dim3 threads(BLOCK, BLOCK), grid(block_cols, block_rows);
  int src = 0, launches = 0;
  for (int t = 0; t < total_iters; t += pyramid) {
    const int iters = std::min(pyramid, total_iters - t);
    calculate_temp<<<grid, threads>>>(iters, d_power, d_temp[src], d_temp[1 - src], cols, rows,
                                      border, border, Cap, Rx, Ry, Rz, step);
    WL_CK_LAUNCH();
    src = 1 - src;
    ++launches;
  }
  WL_CK(cudaMemcpy(out.data(), d_temp[src], bytes, cudaMemcpyDeviceToHost));
  std::printf("hotspot grid=%dx%d iterations=%d pyramid=%d launches=%d blocks=%dx%d\n", rows,
              cols, total_iters, pyramid, launches, block_cols, block_rows);
  const bool ok = wl::check_close("temperature", out.data(), ref.data(), cells, 1e-5, 0.0);
  WL_CK(cudaFree(d_power));
  WL_CK(cudaFree(d_temp[0]));
  WL_CK(cudaFree(d_temp[1]));
  return wl::finish(ok);
}
