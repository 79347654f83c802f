// Thread-block clusters and distributed shared memory (sm_90, issue #21). Self-checking:
//   1. every cluster special register, for clusters of 2 and 4 (cudaLaunchKernelEx) and of a
//      compile-time __cluster_dims__(2, 2, 1), against values computed on the host;
//   2. a DSMEM reduction: each block sums its slice into its own shared memory, cluster.sync(),
//      rank 0 reads every peer's partial through cluster.map_shared_rank (mapa + ld);
//   3. a histogram whose bins are spread over the blocks of a cluster: every thread adds into
//      the owning block's shared memory with atomicAdd on a mapped peer address;
//   4. a grid that is not a multiple of the cluster dimensions is refused;
//   5. cudaFuncSetAttribute: the cluster width of a __cluster_dims__ kernel is not permitted,
//      a negative width is an invalid value, a cluster scheduling policy is accepted.
// Prints PASSED or FAILED.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

static int failures = 0;
#define CHECK(c, ...)                        \
  do {                                       \
    if (!(c)) {                              \
      std::printf("mismatch: " __VA_ARGS__); \
      std::printf("\n");                     \
      ++failures;                            \
    }                                        \
  } while (0)

__device__ __forceinline__ unsigned sreg_cluster_ctarank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned sreg_cluster_nctarank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned sreg_is_explicit() {
  unsigned r;
  asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }"
               : "=r"(r));
  return r;
}
#define SREG3(name, reg)                                  \
  __device__ __forceinline__ uint3 name() {               \
    uint3 v;                                              \
    asm volatile("mov.u32 %0, %%" reg ".x;" : "=r"(v.x)); \
    asm volatile("mov.u32 %0, %%" reg ".y;" : "=r"(v.y)); \
    asm volatile("mov.u32 %0, %%" reg ".z;" : "=r"(v.z)); \
    return v;                                             \
  }
SREG3(sreg_clusterid, "clusterid")
SREG3(sreg_nclusterid, "nclusterid")
SREG3(sreg_cluster_ctaid, "cluster_ctaid")
SREG3(sreg_cluster_nctaid, "cluster_nctaid")

// 14 values per block, indexed by the block's linear id.
constexpr int kRegs = 14;

__device__ void dump_regs(unsigned* out) {
  if (threadIdx.x + threadIdx.y + threadIdx.z) return;
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned* o = out + b * kRegs;
  const uint3 cid = sreg_clusterid(), ncid = sreg_nclusterid();
  const uint3 cta = sreg_cluster_ctaid(), ncta = sreg_cluster_nctaid();
  o[0] = cid.x, o[1] = cid.y, o[2] = cid.z;
  o[3] = ncid.x, o[4] = ncid.y, o[5] = ncid.z;
  o[6] = cta.x, o[7] = cta.y, o[8] = cta.z;
  o[9] = ncta.x, o[10] = ncta.y, o[11] = ncta.z;
  o[12] = sreg_cluster_ctarank() | (sreg_cluster_nctarank() << 8);
  o[13] = sreg_is_explicit();
}

__global__ void regs_kernel(unsigned* out) { dump_regs(out); }
__global__ void __cluster_dims__(2, 2, 1) regs_static_kernel(unsigned* out) { dump_regs(out); }

// Each block sums n/gridDim.x elements into its shared `part`; rank 0 of every cluster adds
// its peers' partials (read through distributed shared memory) and writes the cluster's sum.
__global__ void dsmem_reduce(const int* in, int n, int* cluster_sums) {
  __shared__ int part;
  cg::cluster_group cl = cg::this_cluster();
  if (threadIdx.x == 0) part = 0;
  __syncthreads();
  const int per = n / gridDim.x;
  int s = 0;
  for (int i = threadIdx.x; i < per; i += blockDim.x) s += in[blockIdx.x * per + i];
  atomicAdd(&part, s);
  cl.sync();
  if (cl.block_rank() == 0 && threadIdx.x == 0) {
    int total = 0;
    for (unsigned r = 0; r < cl.num_blocks(); ++r) total += *cl.map_shared_rank(&part, r);
    cluster_sums[blockIdx.x / cl.num_blocks()] = total;
  }
  cl.sync();  // peers keep their shared memory alive until rank 0 has read it
}

// Histogram of `n` bytes into 256 bins; bin b lives in the shared memory of block
// b % cluster_size of the cluster, at index b / cluster_size.
__global__ void dsmem_histogram(const unsigned char* in, int n, unsigned* hist) {
  extern __shared__ unsigned bins[];
  cg::cluster_group cl = cg::this_cluster();
  const unsigned cs = cl.num_blocks();
  const unsigned local_bins = 256 / cs;
  for (unsigned i = threadIdx.x; i < local_bins; i += blockDim.x) bins[i] = 0;
  cl.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned b = in[i];
    unsigned* remote = cl.map_shared_rank(bins, b % cs);
    atomicAdd(remote + b / cs, 1u);
  }
  cl.sync();
  for (unsigned i = threadIdx.x; i < local_bins; i += blockDim.x)
    atomicAdd(&hist[i * cs + cl.block_rank()], bins[i]);
}

static void check_regs(const char* what, const std::vector<unsigned>& got, dim3 grid, dim3 cdim,
                       bool explicit_cluster) {
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        const unsigned b = x + grid.x * (y + grid.y * z);
        const unsigned* o = &got[b * kRegs];
        const unsigned want[kRegs] = {x / cdim.x,
                                      y / cdim.y,
                                      z / cdim.z,
                                      grid.x / cdim.x,
                                      grid.y / cdim.y,
                                      grid.z / cdim.z,
                                      x % cdim.x,
                                      y % cdim.y,
                                      z % cdim.z,
                                      cdim.x,
                                      cdim.y,
                                      cdim.z,
                                      (x % cdim.x + cdim.x * (y % cdim.y + cdim.y * (z % cdim.z))) |
                                          ((cdim.x * cdim.y * cdim.z) << 8),
                                      explicit_cluster ? 1u : 0u};
        for (int k = 0; k < kRegs; ++k)
          CHECK(o[k] == want[k], "%s block (%u,%u,%u) register %d: %u, expected %u", what, x, y, z,
                k, o[k], want[k]);
      }
}

static cudaError_t launch_clustered(const void* fn, dim3 grid, dim3 block, size_t shmem, dim3 cdim,
                                    void** args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = shmem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cdim.x;
  attr[0].val.clusterDim.y = cdim.y;
  attr[0].val.clusterDim.z = cdim.z;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelExC(&cfg, fn, args);
}

int main() {
  // 1. special registers
  {
    struct Case {
      dim3 grid, cdim;
    } cases[] = {{dim3(8, 2, 1), dim3(2, 1, 1)},
                 {dim3(4, 4, 2), dim3(4, 1, 1)},
                 {dim3(4, 6, 2), dim3(1, 2, 2)}};
    for (const Case& c : cases) {
      const unsigned nb = c.grid.x * c.grid.y * c.grid.z;
      unsigned* d;
      cudaMalloc(&d, nb * kRegs * sizeof(unsigned));
      void* args[] = {&d};
      cudaError_t e = launch_clustered((const void*)regs_kernel, c.grid, dim3(64), 0, c.cdim, args);
      CHECK(e == cudaSuccess, "cluster launch: %s", cudaGetErrorString(e));
      CHECK(cudaDeviceSynchronize() == cudaSuccess, "cluster launch ran");
      std::vector<unsigned> h(nb * kRegs);
      cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
      char what[64];
      std::snprintf(what, sizeof what, "cluster (%u,%u,%u)", c.cdim.x, c.cdim.y, c.cdim.z);
      check_regs(what, h, c.grid, c.cdim, true);
      cudaFree(d);
    }
    // Compile-time cluster dimensions with an ordinary <<<>>> launch.
    {
      const dim3 grid(4, 4, 1);
      unsigned* d;
      cudaMalloc(&d, 16 * kRegs * sizeof(unsigned));
      regs_static_kernel<<<grid, 32>>>(d);
      CHECK(cudaDeviceSynchronize() == cudaSuccess, "__cluster_dims__ launch");
      std::vector<unsigned> h(16 * kRegs);
      cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
      check_regs("__cluster_dims__(2,2,1)", h, grid, dim3(2, 2, 1), true);
      cudaFree(d);
      // Compile-time cluster dimensions cannot be changed at run time (cuFuncSetAttribute:
      // CUDA_ERROR_NOT_PERMITTED); a negative dimension is an invalid value either way.
      cudaError_t e = cudaFuncSetAttribute((const void*)regs_static_kernel,
                                           cudaFuncAttributeRequiredClusterWidth, 4);
      CHECK(e == cudaErrorNotPermitted, "set the width of a __cluster_dims__ kernel: %s",
            cudaGetErrorName(e));
      e = cudaFuncSetAttribute((const void*)regs_kernel, cudaFuncAttributeRequiredClusterWidth, -2);
      CHECK(e == cudaErrorInvalidValue, "cluster width -2: %s", cudaGetErrorName(e));
      e = cudaFuncSetAttribute((const void*)regs_kernel,
                               cudaFuncAttributeClusterSchedulingPolicyPreference,
                               cudaClusterSchedulingPolicySpread);
      CHECK(e == cudaSuccess, "scheduling policy Spread: %s", cudaGetErrorName(e));
      cudaGetLastError();
    }
    // No cluster: every block is a cluster of one (and %is_explicit_cluster is false).
    {
      const dim3 grid(3, 2, 1);
      unsigned* d;
      cudaMalloc(&d, 6 * kRegs * sizeof(unsigned));
      regs_kernel<<<grid, 32>>>(d);
      CHECK(cudaDeviceSynchronize() == cudaSuccess, "plain launch");
      std::vector<unsigned> h(6 * kRegs);
      cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
      check_regs("no cluster", h, grid, dim3(1, 1, 1), false);
      cudaFree(d);
    }
  }

  // 2. DSMEM reduction, clusters of 2 and 4
  for (unsigned cs : {2u, 4u}) {
    const int blocks = 8, n = blocks * 1000;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = (i * 37 + 11) % 101 - 50;
    int *din, *dout;
    cudaMalloc(&din, n * sizeof(int));
    cudaMalloc(&dout, blocks / cs * sizeof(int));
    cudaMemcpy(din, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    int nn = n;
    void* args[] = {&din, &nn, &dout};
    cudaError_t e =
        launch_clustered((const void*)dsmem_reduce, dim3(blocks), dim3(128), 0, dim3(cs), args);
    CHECK(e == cudaSuccess, "reduce launch (cluster %u): %s", cs, cudaGetErrorString(e));
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "reduce ran (cluster %u)", cs);
    std::vector<int> got(blocks / cs);
    cudaMemcpy(got.data(), dout, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
    const int per = n / blocks;
    for (unsigned c = 0; c < blocks / cs; ++c) {
      int want = 0;
      for (unsigned i = c * cs * per; i < (c + 1) * cs * per; ++i) want += h[i];
      CHECK(got[c] == want, "reduce cluster %u of size %u: %d, expected %d", c, cs, got[c], want);
    }
    cudaFree(din);
    cudaFree(dout);
  }

  // 3. histogram with atomics into peers' shared memory
  for (unsigned cs : {2u, 4u}) {
    const int n = 20000;
    std::vector<unsigned char> h(n);
    for (int i = 0; i < n; ++i) h[i] = (unsigned char)((i * 2654435761u) >> 13);
    std::vector<unsigned> want(256, 0);
    for (int i = 0; i < n; ++i) ++want[h[i]];
    unsigned char* din;
    unsigned* dh;
    cudaMalloc(&din, n);
    cudaMalloc(&dh, 256 * sizeof(unsigned));
    cudaMemcpy(din, h.data(), n, cudaMemcpyHostToDevice);
    cudaMemset(dh, 0, 256 * sizeof(unsigned));
    int nn = n;
    void* args[] = {&din, &nn, &dh};
    // One cluster: every bin is owned by exactly one block of the grid.
    cudaError_t e = launch_clustered((const void*)dsmem_histogram, dim3(cs), dim3(256),
                                     256 / cs * sizeof(unsigned), dim3(cs), args);
    CHECK(e == cudaSuccess, "histogram launch (cluster %u): %s", cs, cudaGetErrorString(e));
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "histogram ran (cluster %u)", cs);
    std::vector<unsigned> got(256);
    cudaMemcpy(got.data(), dh, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
    for (int b = 0; b < 256; ++b)
      CHECK(got[b] == want[b], "histogram bin %d (cluster %u): %u, expected %u", b, cs, got[b],
            want[b]);
    cudaFree(din);
    cudaFree(dh);
  }

  // 4. a grid that is not a multiple of the cluster dimensions
  {
    unsigned* d;
    cudaMalloc(&d, 64 * kRegs * sizeof(unsigned));
    void* args[] = {&d};
    cudaError_t e = launch_clustered((const void*)regs_kernel, dim3(6), dim3(32), 0, dim3(4), args);
    CHECK(e == cudaErrorInvalidClusterSize, "grid 6 with cluster 4: %s, expected %s",
          cudaGetErrorName(e), cudaGetErrorName(cudaErrorInvalidClusterSize));
    cudaGetLastError();
    cudaFree(d);
  }

  // 5. cluster size limits: 16 blocks need the non-portable opt-in; occupancy query
  {
    const dim3 grid(32), cdim(16);
    unsigned* d;
    cudaMalloc(&d, 32 * kRegs * sizeof(unsigned));
    void* args[] = {&d};
    cudaError_t e = launch_clustered((const void*)regs_kernel, grid, dim3(32), 0, cdim, args);
    CHECK(e == cudaErrorInvalidClusterSize, "cluster of 16 without opt-in: %s",
          cudaGetErrorName(e));
    cudaGetLastError();
    CHECK(cudaFuncSetAttribute((const void*)regs_kernel,
                               cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess,
          "non-portable opt-in");
    e = launch_clustered((const void*)regs_kernel, grid, dim3(32), 0, cdim, args);
    CHECK(e == cudaSuccess, "cluster of 16 with opt-in: %s", cudaGetErrorName(e));
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "cluster of 16 ran");
    std::vector<unsigned> h(32 * kRegs);
    cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
    check_regs("cluster (16,1,1)", h, grid, cdim, true);
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, (const void*)regs_static_kernel) == cudaSuccess, "attrs");
    CHECK(fa.requiredClusterWidth == 2 && fa.requiredClusterHeight == 2 &&
              fa.requiredClusterDepth == 1,
          "required cluster dims %d,%d,%d", fa.requiredClusterWidth, fa.requiredClusterHeight,
          fa.requiredClusterDepth);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(128);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 4;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int nc = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&nc, (const void*)dsmem_reduce, &cfg) == cudaSuccess &&
              nc > 0,
          "max active clusters %d", nc);
    cudaFree(d);
  }

  if (failures)
    std::printf("FAILED: %d mismatches\n", failures);
  else
    std::printf("PASSED\n");
  return failures ? 1 : 0;
}
