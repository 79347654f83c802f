// structs: structs by value as kernel parameters and between device functions: mixed field
// types with padding, nested structs, arrays inside structs, unions, bitfields, aligned
// structs (__align__(16)), CUDA vector types, large (>256 B) parameter structs, and struct
// return values (compiled to PTX only).
#include <cuda_runtime.h>

struct Inner { char c; double d; short s; };
struct Params {
  int n; float scale; double offset; char tag; Inner inner; long long big; float coeffs[5];
  unsigned flags : 3; unsigned mode : 5; int3 dims; float4 color;
};
struct __align__(16) Aligned { float a, b, c, d; };
union Bits { float f; unsigned u; unsigned char bytes[4]; };
struct Huge { int v[100]; double w[20]; };    // 560 bytes of parameters
struct Result { double sum; int count; bool ok; };

__device__ Result combine(Params p, Aligned a, int i) {
  Result r;
  r.sum = p.offset + p.scale * i + p.coeffs[i % 5] + p.inner.d + p.inner.c + p.inner.s + a.a * a.d;
  r.count = p.flags + p.mode * 8 + p.dims.x * p.dims.y * p.dims.z;
  r.ok = p.tag == 'x' && p.color.w > 0.5f;
  return r;
}

__global__ void structKernel(Params p, Aligned a, Bits b, double2 d2, ushort4 us4, Result* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  Result r = combine(p, a, i);
  Bits bb = b;
  bb.u ^= (unsigned)i;
  r.sum += bb.f + bb.bytes[i & 3] + d2.x * d2.y + us4.x + us4.w;
  r.count += (int)(p.big >> 40);
  out[i] = r;
}

__global__ void hugeParam(Huge h, double* out) {
  int i = threadIdx.x;
  out[i] = h.v[i % 100] + h.w[i % 20];
}

__global__ void structCopy(const Params* in, Params* out, Aligned* aout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Params p = in[i];            // whole-struct load
  p.inner.s += 1;
  p.coeffs[i % 5] *= 2.0f;
  out[i] = p;                  // whole-struct store
  aout[i] = Aligned{p.scale, (float)p.offset, p.color.x, p.color.y};   // vectorised 16-byte store
}
