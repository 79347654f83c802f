// grid3d: 3D grids with 3D blocks: every thread records an encoding of its blockIdx/threadIdx
// (checks the x/y/z special registers and gridDim/blockDim), then a 7-point stencil over a
// 24x16x8 volume with clamped boundaries (4x4x4 blocks), and a 2D grid of 3D blocks.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int X = 24, Y = 16, Z = 8;

__global__ void writeIds(int* ids, int* dims) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  int W = gridDim.x * blockDim.x, H = gridDim.y * blockDim.y;
  int idx = (z * H + y) * W + x;
  ids[idx] = blockIdx.x + 10 * blockIdx.y + 100 * blockIdx.z +
             1000 * (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  if (idx == 0) {
    dims[0] = gridDim.x; dims[1] = gridDim.y; dims[2] = gridDim.z;
    dims[3] = blockDim.x; dims[4] = blockDim.y; dims[5] = blockDim.z;
  }
}

__device__ __host__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

__global__ void stencil7(const int* in, int* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= X || y >= Y || z >= Z) return;
  auto at = [&](int a, int b, int c) { return in[(clampi(c, 0, Z - 1) * Y + clampi(b, 0, Y - 1)) * X + clampi(a, 0, X - 1)]; };
  out[(z * Y + y) * X + x] = 6 * at(x, y, z) - at(x - 1, y, z) - at(x + 1, y, z) - at(x, y - 1, z) -
                             at(x, y + 1, z) - at(x, y, z - 1) - at(x, y, z + 1);
}

// Linearizes blockIdx (2D grid) and threadIdx (3D block) into one index.
__global__ void linearIndex(int* out) {
  int block = blockIdx.y * gridDim.x + blockIdx.x;
  int thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int perBlock = blockDim.x * blockDim.y * blockDim.z;
  out[block * perBlock + thread] = block * 1000 + thread;
}

int main() {
  dim3 block(8, 4, 2), grid(X / 8, Y / 4, Z / 2);   // 3 x 4 x 4 blocks of 64 threads
  const int n = X * Y * Z;
  int *dids, *ddims, *dout, *dlin;
  CK(cudaMalloc(&dids, n * sizeof(int))); CK(cudaMalloc(&ddims, 6 * sizeof(int)));
  CK(cudaMalloc(&dout, n * sizeof(int))); CK(cudaMalloc(&dlin, 6 * 5 * 60 * sizeof(int)));
  writeIds<<<grid, block>>>(dids, ddims);
  dim3 sblock(4, 4, 4), sgrid((X + 3) / 4, (Y + 3) / 4, (Z + 3) / 4);
  stencil7<<<sgrid, sblock>>>(dids, dout);
  linearIndex<<<dim3(6, 5), dim3(5, 4, 3)>>>(dlin);
  CK(cudaGetLastError());
  std::vector<int> ids(n), out(n), lin(6 * 5 * 60); int dims[6];
  CK(cudaMemcpy(ids.data(), dids, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(lin.data(), dlin, lin.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(dims, ddims, sizeof dims, cudaMemcpyDeviceToHost));
  if (dims[0] != 3 || dims[1] != 4 || dims[2] != 4 || dims[3] != 8 || dims[4] != 4 || dims[5] != 2) {
    printf("FAILED: dims %d %d %d / %d %d %d\n", dims[0], dims[1], dims[2], dims[3], dims[4], dims[5]); return 1; }
  for (int z = 0; z < Z; ++z) for (int y = 0; y < Y; ++y) for (int x = 0; x < X; ++x) {
    int ref = x / 8 + 10 * (y / 4) + 100 * (z / 2) + 1000 * (x % 8 + 8 * (y % 4 + 4 * (z % 2)));
    if (ids[(z * Y + y) * X + x] != ref) { printf("FAILED: id at (%d,%d,%d) = %d, expected %d\n", x, y, z, ids[(z * Y + y) * X + x], ref); return 1; }
  }
  long long sum = 0;
  auto at = [&](int a, int b, int c) { return ids[(clampi(c, 0, Z - 1) * Y + clampi(b, 0, Y - 1)) * X + clampi(a, 0, X - 1)]; };
  for (int z = 0; z < Z; ++z) for (int y = 0; y < Y; ++y) for (int x = 0; x < X; ++x) {
    int ref = 6 * at(x, y, z) - at(x - 1, y, z) - at(x + 1, y, z) - at(x, y - 1, z) - at(x, y + 1, z) - at(x, y, z - 1) - at(x, y, z + 1);
    if (out[(z * Y + y) * X + x] != ref) { printf("FAILED: stencil at (%d,%d,%d)\n", x, y, z); return 1; }
    sum += ref * (long long)(x + 1);
  }
  for (int b = 0; b < 30; ++b) for (int t = 0; t < 60; ++t)
    if (lin[b * 60 + t] != b * 1000 + t) { printf("FAILED: linearIndex block %d thread %d\n", b, t); return 1; }
  printf("grid3d: ids ok, stencil weighted sum=%lld, linear index ok\n", sum);
  cudaFree(dids); cudaFree(ddims); cudaFree(dout); cudaFree(dlin);
  printf("PASSED\n");
  return 0;
}
