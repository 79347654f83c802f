// local_arrays: per-thread arrays in local memory: dynamically indexed int/float/double arrays,
// arrays of structs, 2D local arrays, a local array passed to a __noinline__ function (stack
// frame), large local arrays and vectorised local accesses (compiled to PTX only).
#include <cuda_runtime.h>

struct Particle { float x, y, z; int id; double mass; };

__device__ __noinline__ int sumArray(const int* a, int n) {
  int s = 0;
  for (int k = 0; k < n; ++k) s += a[k];
  return s;
}

__global__ void localArrays(const int* idx, int* out, double* dout) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int a[32];
  float f[16];
  double d[8];
  int grid[6][6];
  for (int k = 0; k < 32; ++k) a[k] = k * t;
  for (int k = 0; k < 16; ++k) f[k] = k * 0.5f;
  for (int k = 0; k < 8; ++k) d[k] = k * 0.25;
  for (int r = 0; r < 6; ++r) for (int c = 0; c < 6; ++c) grid[r][c] = r * c + t;
  int j = idx[t] & 31;
  a[j] += 7;                               // dynamic store
  f[j & 15] *= 2.0f;
  d[j & 7] -= 1.0;
  grid[j % 6][(j / 6) % 6] = -1;
  out[t] = a[(j * 7) & 31] + (int)f[(j + 3) & 15] + grid[(j + 1) % 6][j % 6] + sumArray(a, j + 1);
  dout[t] = d[(j + 5) & 7];
}

__global__ void localStructs(const int* idx, float* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  Particle p[8];
  for (int k = 0; k < 8; ++k) p[k] = Particle{k * 1.0f, k * 2.0f, k * 3.0f, k + t, k * 0.5};
  int j = idx[t] & 7;
  p[j].x += 1.0f; p[j].mass *= 2.0;
  Particle q = p[(j + 1) & 7];
  out[t] = q.x + q.y + q.z + q.id + (float)q.mass + p[j].x;
}

// A large local array (bubble sort) that cannot live in registers.
__global__ void bigLocal(const unsigned* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v[64];
  for (int k = 0; k < 64; ++k) v[k] = in[(t * 64 + k) % 4096];
  for (int i = 0; i < 63; ++i)
    for (int k = 0; k < 63 - i; ++k)
      if (v[k] > v[k + 1]) { unsigned tmp = v[k]; v[k] = v[k + 1]; v[k + 1] = tmp; }
  out[t] = v[in[t] & 63] + v[0] * 3 + v[63];
}
