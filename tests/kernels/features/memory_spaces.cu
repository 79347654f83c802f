// memory_spaces: global/constant variables with initializers, __ldg and cache-hinted loads and
// stores (__ldcg/__ldca/__ldcs/__ldlu/__ldcv, __stwb/__stcg/__stcs/__stwt), vector loads of
// every width (char4, short2, int4, float4, double2, longlong2), generic-pointer address-space
// predicates and conversions (__isGlobal/__isShared/__isConstant/__isLocal, __cvta_*), volatile
// accesses, const __restrict__ pointers, and memcpy of structs (compiled to PTX only).
#include <cuda_runtime.h>

__device__ int g_table[8] = {1, 1, 2, 3, 5, 8, 13, 21};
__device__ float g_scale = 2.5f;
__device__ const char g_text[] = "memory";
__constant__ double c_coeffs[4] = {0.5, 0.25, 0.125, 0.0625};
__constant__ int4 c_vec = {1, 2, 3, 4};

__global__ void cacheHints(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = __ldg(in + i) + __ldcg(in + (i + 1) % n) + __ldca(in + (i + 2) % n) + __ldcs(in + (i + 3) % n);
  float b = __ldlu(in + (i + 4) % n) + __ldcv(in + (i + 5) % n);
  float4 v = __ldg(reinterpret_cast<const float4*>(in) + (i / 4) % (n / 4));
  __stwb(out + i, a);
  __stcg(out + (i + n) , b);
  __stcs(out + (i + 2 * n), v.x + v.y);
  __stwt(out + (i + 3 * n), v.z + v.w + g_scale * g_table[i & 7] + (float)c_coeffs[i & 3] + c_vec.y + g_text[i % 6]);
}

__global__ void vectorWidths(const char4* c4, const short2* s2, const int4* i4, const double2* d2,
                             const longlong2* l2, const uchar2* u2, int4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  char4 a = c4[i]; short2 b = s2[i]; int4 c = i4[i]; double2 d = d2[i]; longlong2 l = l2[i]; uchar2 u = u2[i];
  out[i] = make_int4(a.x + a.w + b.x + c.x + u.x, b.y + c.y + u.y, c.z + (int)d.x, c.w + (int)d.y + (int)(l.x ^ l.y));
}

__device__ __noinline__ int classify(const void* p) {
  return __isGlobal(p) * 1 + __isShared(p) * 2 + __isConstant(p) * 4 + __isLocal(p) * 8;
}

__global__ void addressSpaces(int* out, const int* gptr) {
  __shared__ int s[32];
  int local[4] = {(int)threadIdx.x, 1, 2, 3};
  s[threadIdx.x % 32] = threadIdx.x;
  __syncthreads();
  volatile int* vs = s;
  int k = classify(gptr) + 16 * classify(&s[threadIdx.x % 32]) + 256 * classify(&c_coeffs[0]) +
          4096 * classify(&local[threadIdx.x % 4]);
  size_t sa = __cvta_generic_to_shared(&s[0]);
  size_t ga = __cvta_generic_to_global(gptr);
  size_t ca = __cvta_generic_to_constant(&c_coeffs[1]);
  int* back = (int*)__cvta_shared_to_generic(sa);
  out[blockIdx.x * blockDim.x + threadIdx.x] = k + back[threadIdx.x % 32] + vs[(threadIdx.x + 1) % 32] +
      (int)((ga ^ ca) & 1) + local[(threadIdx.x + 1) % 4];
}

struct Rec { int a; float b; double c; char d[5]; };

__global__ void structMemcpy(const Rec* in, Rec* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rec r;
  memcpy(&r, &in[i], sizeof(Rec));
  r.d[i % 5] = 'x';
  memcpy(&out[i], &r, sizeof(Rec));
}
