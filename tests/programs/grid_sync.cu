// grid_sync: cooperative launches. cooperative_groups::this_grid().sync() between phases of a
// grid-stride computation (a grid-wide reduction, then a normalisation that needs the total,
// then a neighbour exchange), launched with cudaLaunchCooperativeKernel and with
// cudaLaunchKernelExC + cudaLaunchAttributeCooperative; the grid is sized from
// cudaOccupancyMaxActiveBlocksPerMultiprocessor x SM count, as CUDA requires. A grid larger
// than can be resident fails with cudaErrorCooperativeLaunchTooLarge.
#include <cstdio>
#include <vector>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void phases(const int* in, int* out, int* partial, long long* total, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ int s[256];
  // Phase 1: per-block sums.
  int acc = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) acc += in[i];
  s[block.thread_rank()] = acc;
  block.sync();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (block.thread_rank() < w) s[block.thread_rank()] += s[block.thread_rank() + w];
    block.sync();
  }
  if (block.thread_rank() == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  // Phase 2: block 0 adds the partial sums.
  if (grid.thread_rank() == 0) {
    long long t = 0;
    for (int b = 0; b < gridDim.x; ++b) t += partial[b];
    *total = t;
  }
  grid.sync();
  // Phase 3: every element minus the mean (integer division), then exchange with a neighbour.
  const int mean = int(*total / n);
  for (int i = grid.thread_rank(); i < n; i += grid.size()) out[i] = in[i] - mean;
  grid.sync();
  for (int i = grid.thread_rank(); i < n; i += grid.size()) {
    const int v = out[(i + 1) % n];
    grid.sync();  // every thread reaches the same number of syncs: same trip count everywhere
    out[i] += v;
  }
}

int main() {
  int attr = 0;
  CK(cudaDeviceGetAttribute(&attr, cudaDevAttrCooperativeLaunch, 0));
  if (!attr) { printf("FAILED: cooperative launch not supported\n"); return 1; }
  int sms = 0, per_sm = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int threads = 256;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, threads, 0));
  const int blocks = per_sm * sms;
  const int n = blocks * threads;  // one element per thread keeps the phase-4 trip count uniform
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1001;
  int *din, *dout, *dpart;
  long long* dtot;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dout, n * sizeof(int)));
  CK(cudaMalloc(&dpart, blocks * sizeof(int)));
  CK(cudaMalloc(&dtot, sizeof(long long)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  long long total = 0;
  for (int v : in) total += v;
  const int mean = int(total / n);
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = (in[i] - mean) + (in[(i + 1) % n] - mean);

  void* args[] = {&din, &dout, &dpart, &dtot, (void*)&n};
  for (int variant = 0; variant < 2; ++variant) {
    CK(cudaMemset(dout, 0, n * sizeof(int)));
    if (variant == 0) {
      CK(cudaLaunchCooperativeKernel((void*)phases, blocks, threads, args, 0, 0));
    } else {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = blocks;
      cfg.blockDim = threads;
      cudaLaunchAttribute at[1];
      at[0].id = cudaLaunchAttributeCooperative;
      at[0].val.cooperative = 1;
      cfg.attrs = at;
      cfg.numAttrs = 1;
      CK(cudaLaunchKernelExC(&cfg, (void*)phases, args));
    }
    CK(cudaDeviceSynchronize());
    std::vector<int> out(n);
    long long got_total = 0;
    CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&got_total, dtot, sizeof got_total, cudaMemcpyDeviceToHost));
    if (got_total != total) { printf("FAILED: total %lld, expected %lld\n", got_total, total); return 1; }
    for (int i = 0; i < n; ++i)
      if (out[i] != want[i]) { printf("FAILED: variant %d out[%d] = %d, expected %d\n", variant, i, out[i], want[i]); return 1; }
  }

  cudaError_t e = cudaLaunchCooperativeKernel((void*)phases, blocks + 1, threads, args, 0, 0);
  if (e != cudaErrorCooperativeLaunchTooLarge) {
    printf("FAILED: oversized cooperative grid returned %s\n", cudaGetErrorName(e));
    return 1;
  }
  cudaGetLastError();
  printf("grid_sync: mean %d, 4 grid-wide barriers, both launch APIs agree\n", mean);
  CK(cudaFree(din)); CK(cudaFree(dout)); CK(cudaFree(dpart)); CK(cudaFree(dtot));
  printf("PASSED\n");
  return 0;
}
