// coop_groups: cooperative groups inside a block: this_thread_block (thread_rank, size, sync),
// static tiled_partition<32> and <8> with cg::reduce (plus, greater), tile shuffles, meta_group_rank,
// a dynamic tiled_partition(block, 16) with its own sync, and cg::inclusive_scan on a tile.
#include <cstdio>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int T = 128, NOUT = 6;

__global__ void cgKernel(const int* in, int* out, int* blockOut) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ int sTile[T / 32];
  int r = block.thread_rank();
  int v = in[blockIdx.x * T + r];
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> oct = cg::tiled_partition<8>(block);
  int* o = out + (blockIdx.x * T + r) * NOUT;
  o[0] = cg::reduce(warp, v, cg::plus<int>());
  o[1] = cg::reduce(oct, v, cg::greater<int>());
  o[2] = warp.shfl(v, (warp.thread_rank() + 3) % 32) + oct.shfl_down(v, 1) * 1000;
  o[3] = oct.meta_group_rank() * 100 + oct.thread_rank() * 10 + (int)warp.meta_group_rank();
  o[4] = cg::inclusive_scan(oct, v);
  cg::thread_group half = cg::tiled_partition(block, 16);
  o[5] = (int)half.thread_rank() + 16 * (int)(half.size() == 16);
  half.sync();
  if (warp.thread_rank() == 0) sTile[warp.meta_group_rank()] = o[0];
  block.sync();
  if (r == 0) {
    int s = 0;
    for (int k = 0; k < T / 32; ++k) s += sTile[k];
    blockOut[blockIdx.x] = s + 100000 * (int)(block.size() == T);
  }
}

int main() {
  const int B = 4, n = B * T;
  std::vector<int> in(n), out(n * NOUT), bo(B);
  for (int i = 0; i < n; ++i) in[i] = (i * 131) % 97 - 40;
  int *din, *dout, *dbo;
  CK(cudaMalloc(&din, n * sizeof(int))); CK(cudaMalloc(&dout, n * NOUT * sizeof(int))); CK(cudaMalloc(&dbo, B * sizeof(int)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cgKernel<<<B, T>>>(din, dout, dbo);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(bo.data(), dbo, B * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    int w0 = i / 32 * 32, o0 = i / 8 * 8, lane = i % 32, ol = i % 8;
    int e[NOUT] = {0, -1000000, 0, 0, 0, 0};
    for (int k = 0; k < 32; ++k) e[0] += in[w0 + k];
    for (int k = 0; k < 8; ++k) e[1] = std::max(e[1], in[o0 + k]);
    e[2] = in[w0 + (lane + 3) % 32] + (ol + 1 < 8 ? in[i + 1] : in[i]) * 1000;
    e[3] = (i % T / 8) * 100 + ol * 10 + i % T / 32;
    for (int k = 0; k <= ol; ++k) e[4] += in[o0 + k];
    e[5] = i % 16 + 16;
    for (int k = 0; k < NOUT; ++k)
      if (out[i * NOUT + k] != e[k]) { printf("FAILED: thread %d result %d: %d vs %d\n", i, k, out[i * NOUT + k], e[k]); return 1; }
  }
  for (int b = 0; b < B; ++b) {
    int s = 100000;
    for (int k = 0; k < T; ++k) s += in[b * T + k];
    if (bo[b] != s) { printf("FAILED: block %d total %d vs %d\n", b, bo[b], s); return 1; }
  }
  printf("cooperative groups ok: block totals %d %d %d %d\n", bo[0] - 100000, bo[1] - 100000, bo[2] - 100000, bo[3] - 100000);
  cudaFree(din); cudaFree(dout); cudaFree(dbo);
  printf("PASSED\n");
  return 0;
}
