// dynamic_shared: extern __shared__ arrays of different element types (aliasing one dynamic
// buffer), static and dynamic shared memory in one kernel, shared memory accessed through
// generic pointers and a __noinline__ helper, 2D shared tiles, vector (float4/double2) shared
// accesses and __cvta_generic_to_shared (compiled to PTX only).
#include <cuda_runtime.h>

extern __shared__ float dynF[];

__device__ __noinline__ void stagePtr(float* p, int t, float v) { p[t] = v; }

__global__ void dynShared(const float* in, float* out, int n) {
  extern __shared__ double dynD[];       // same dynamic buffer, different type
  __shared__ int counts[32];
  __shared__ float tile[16][17];
  int t = threadIdx.x;
  if (t < 32) counts[t] = 0;
  float v = in[blockIdx.x * blockDim.x + t];
  stagePtr(dynF, t, v);                   // generic pointer into shared memory
  tile[t % 16][t / 16 % 17] = v;
  __syncthreads();
  atomicAdd(&counts[t % 32], 1);
  double acc = 0;
  for (int k = 0; k < 4; ++k) acc += dynF[(t + k) % blockDim.x];
  __syncthreads();
  dynD[t] = acc;                          // reuse as doubles
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = (float)dynD[(t + 1) % blockDim.x] + tile[(t + 3) % 16][0] + counts[t % 32];
}

__global__ void vectorShared(const float4* in, float4* out) {
  extern __shared__ float4 dyn4[];
  __shared__ double2 sd[64];
  int t = threadIdx.x;
  dyn4[t] = in[blockIdx.x * blockDim.x + t];
  if (t < 64) sd[t] = make_double2(t, -t);
  __syncthreads();
  float4 a = dyn4[blockDim.x - 1 - t];
  double2 b = sd[t % 64];
  unsigned saddr = (unsigned)__cvta_generic_to_shared(&dyn4[t]);
  out[blockIdx.x * blockDim.x + t] = make_float4(a.x + (float)b.x, a.y + (float)b.y, a.z, a.w + (float)(saddr & 0xf));
}

// Only a dynamic buffer, carved into several typed regions by offsets given at run time.
__global__ void carved(int* out, int nInts, int nShorts) {
  extern __shared__ unsigned char raw[];
  int* ints = (int*)raw;
  short* shorts = (short*)(raw + nInts * sizeof(int));
  char* chars = (char*)(shorts + nShorts);
  int t = threadIdx.x;
  if (t < nInts) ints[t] = t * 3;
  if (t < nShorts) shorts[t] = (short)-t;
  chars[t] = (char)t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = ints[t % nInts] + shorts[t % nShorts] + chars[blockDim.x - 1 - t];
}
