// spmv: y = A*x for a sparse dim x dim matrix stored in JDS (jagged diagonal storage): rows are
// sorted by decreasing number of nonzeros (perm[sorted] = original row), and the k-th nonzero of
// every row with more than k nonzeros forms jagged diagonal k, stored contiguously from
// jds_ptr[k] and padded (value 0, column 0) to a multiple of 32 rows. One thread per sorted row;
// a warp iterates over the longest row of its 32 (per-warp count zcnt[warp]), reading
// data/index coalesced along the diagonals and x by column index; y[perm[row]] = sum.
// jds_ptr and zcnt live in constant memory, as in the original.
// Analog of: Parboil spmv, kernel spmv_jds, thesis Table 4.3 #20 (SPMV).
// Profile: Parboil's host code picks the launch with compute_active_thread: for Fermi-class
// devices with more work than the GPU holds, 1536/8 = 192 threads per block and 8 blocks per SM
// (112 blocks on the 14-SM C2050), the kernel looping over the rows; no shared memory. The
// original reads x through the texture path (tex1Dfetch); we read it with __ldg (the read-only
// data path). The thesis lists no register count for Chapter 4; ours is in the manifest.
// Usage: spmv [dim]   (dim a multiple of 32, <= 393216; default 24576, more rows than the
//        112 x 192 threads so the launch is the one above; scaled run 393216)
// Check: exact. Device and CPU accumulate each row's products in the same (diagonal) order with
// a fused multiply-add (__fmaf_rn / std::fmaf); the padded entries add an exact 0.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "wl.h"

namespace {
constexpr int kThreads = 192;
constexpr int kBlocksPerSM = 8;
constexpr int kMaxDiagonals = 1024;
constexpr int kMaxWarps = 12288;
}  // namespace

__constant__ int jds_ptr_int[kMaxDiagonals];
__constant__ int sh_zcnt_int[kMaxWarps];

__global__ void spmv_jds(float* dst_vector, const float* d_data, const int* d_index,
                         const int* d_perm, const float* __restrict__ x_vec, int dim) {
  const int stride = gridDim.x * blockDim.x;
  for (int ix = blockIdx.x * blockDim.x + threadIdx.x; ix < dim; ix += stride) {
    const int bound = sh_zcnt_int[ix >> 5];
    float sum = 0.0f;
    for (int k = 0; k < bound; ++k) {
      const int j = jds_ptr_int[k] + ix;
      const int col = d_index[j];
      const float d = d_data[j];
      sum = __fmaf_rn(d, __ldg(&x_vec[col]), sum);
    }
    dst_vector[d_perm[ix]] = sum;
  }
}

int main(int argc, char** argv) {
  const int dim = int(wl::arg_int(argc, argv, 1, 24576, 32, 32 * kMaxWarps));
  if (dim % 32) {
    std::printf("FAILED: dim=%d must be a multiple of 32\n", dim);
    return 1;
  }
  // Random sparse matrix: most rows have 1..16 nonzeros, 1 in 64 rows up to 48.
  wl::Rng rng(20);
  std::vector<std::vector<int>> cols(dim);
  std::vector<std::vector<float>> vals(dim);
  for (int r = 0; r < dim; ++r) {
    const int len = rng.range(0, 63) == 0 ? rng.range(17, 48) : rng.range(1, 16);
    for (int e = 0; e < len; ++e) {
      cols[r].push_back(rng.range(0, dim - 1));
      vals[r].push_back(rng.uniform(-1.0f, 1.0f));
    }
  }
  std::vector<float> x(dim);
  for (auto& v : x) v = rng.uniform(-1.0f, 1.0f);

  // JDS layout.
  std::vector<int> perm(dim);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](int a, int b) { return cols[a].size() > cols[b].size(); });
  const int depth = int(cols[perm[0]].size());
  const int warps = dim / 32;
  std::vector<int> zcnt(warps), ptr(depth + 1);
  for (int w = 0; w < warps; ++w) zcnt[w] = int(cols[perm[w * 32]].size());
  ptr[0] = 0;
  for (int k = 0; k < depth; ++k) {
    int rowsWithK = 0;
    while (rowsWithK<dim&& int(cols[perm[rowsWithK]].size())> k) ++rowsWithK;
    ptr[k + 1] = ptr[k] + (rowsWithK + 31) / 32 * 32;
  }
  const int nnzPadded = ptr[depth];
  std::vector<float> data(nnzPadded, 0.0f);
  std::vector<int> index(nnzPadded, 0);
  for (int s = 0; s < dim; ++s) {
    const int r = perm[s];
    for (size_t k = 0; k < cols[r].size(); ++k) {
      data[ptr[k] + s] = vals[r][k];
      index[ptr[k] + s] = cols[r][k];
    }
  }
  if (depth > kMaxDiagonals) {
    std::printf("FAILED: %d diagonals exceed %d\n", depth, kMaxDiagonals);
    return 1;
  }
  // CPU reference.
  std::vector<float> ref(dim), y(dim);
  for (int r = 0; r < dim; ++r) {
    float sum = 0.0f;
    for (size_t k = 0; k < cols[r].size(); ++k) sum = std::fmaf(vals[r][k], x[cols[r][k]], sum);
    ref[r] = sum;
  }

  float *dData, *dX, *dY;
  int *dIndex, *dPerm;
  WL_CK(cudaMalloc(&dData, nnzPadded * sizeof(float)));
  WL_CK(cudaMalloc(&dIndex, nnzPadded * sizeof(int)));
  WL_CK(cudaMalloc(&dPerm, dim * sizeof(int)));
  WL_CK(cudaMalloc(&dX, dim * sizeof(float)));
  WL_CK(cudaMalloc(&dY, dim * sizeof(float)));
  WL_CK(cudaMemcpy(dData, data.data(), nnzPadded * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dIndex, index.data(), nnzPadded * sizeof(int), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dPerm, perm.data(), dim * sizeof(int), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dX, x.data(), dim * sizeof(float), cudaMemcpyHostToDevice));
  WL_CK(cudaMemset(dY, 0, dim * sizeof(float)));
  WL_CK(cudaMemcpyToSymbol(jds_ptr_int, ptr.data(), depth * sizeof(int)));
  WL_CK(cudaMemcpyToSymbol(sh_zcnt_int, zcnt.data(), warps * sizeof(int)));
  // Launch as Parboil's compute_active_thread does for Fermi (14 SMs on the C2050).
  int sms = 14;
  const int blocks = std::min(sms * kBlocksPerSM, (dim + kThreads - 1) / kThreads);
  spmv_jds<<<blocks, kThreads>>>(dY, dData, dIndex, dPerm, dX, dim);
  WL_CK_LAUNCH();
  WL_CK(cudaMemcpy(y.data(), dY, dim * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("spmv dim=%d nnz(padded)=%d diagonals=%d blocks=%d threads=%d\n", dim, nnzPadded,
              depth, blocks, kThreads);
  const bool ok = wl::check_equal("y", y.data(), ref.data(), size_t(dim));
  WL_CK(cudaFree(dData));
  WL_CK(cudaFree(dIndex));
  WL_CK(cudaFree(dPerm));
  WL_CK(cudaFree(dX));
  WL_CK(cudaFree(dY));
  return wl::finish(ok);
}
