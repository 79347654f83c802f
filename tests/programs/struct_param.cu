// struct_param: structs passed by value as kernel parameters: mixed char/short/int/float/double/
// long long fields with padding, an embedded array, CUDA vector types (float3, int2, double2),
// a 256-byte struct, and dim3. One kernel copies its parameters back verbatim (checks the byte
// layout of the parameter buffer, field by field); another computes with them (values chosen to be exact).
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

struct Params {
  int n;
  float scale;
  double offset;
  char tag;       // followed by padding
  short s;
  long long big;
  float coeffs[3];
};
struct Small { char c; double d; };
struct Big { int v[64]; };

struct Echo {       // what the echo kernel writes back
  Params p; Small sm; float3 f3; int2 i2; double2 d2; unsigned char u8; dim3 g; int sumBig;
};

__global__ void echo(Params p, Small sm, float3 f3, int2 i2, double2 d2, unsigned char u8,
                     dim3 g, Big big, Echo* out) {
  int s = 0;
  for (int k = 0; k < 64; ++k) s += big.v[k] * (k + 1);
  out->p = p; out->sm = sm; out->f3 = f3; out->i2 = i2; out->d2 = d2; out->u8 = u8; out->g = g;
  out->sumBig = s;
}

__host__ __device__ double evalOne(const Params& p, const Small& sm, float3 v, int i) {
  double r = p.offset + (double)(p.scale * (float)i) + p.coeffs[i % 3];
  r += v.x + v.y * v.z + p.tag + p.s + (double)(p.big % 1000) + sm.c + sm.d;
  return r;
}

__global__ void compute(Params p, float3 v, Small sm, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) out[i] = evalOne(p, sm, v, i);
}

int main() {
  Params p;
  p.n = 777; p.scale = 0.5f; p.offset = -1234.25; p.tag = 'A'; p.s = -300;
  p.big = 123456789012345LL; p.coeffs[0] = 0.125f; p.coeffs[1] = -2.0f; p.coeffs[2] = 8.5f;
  Small sm; sm.c = -5; sm.d = 0.0625;
  float3 f3 = make_float3(1.5f, -2.25f, 4.0f);
  int2 i2 = make_int2(-7, 1 << 30);
  double2 d2 = make_double2(3.141592653589793, -1e300);
  unsigned char u8 = 250;
  dim3 g(11, 12, 13);
  Big big; int sumBig = 0;
  for (int k = 0; k < 64; ++k) { big.v[k] = k * k - 100; sumBig += big.v[k] * (k + 1); }

  Echo* dEcho; double* dOut;
  CK(cudaMalloc(&dEcho, sizeof(Echo)));
  CK(cudaMemset(dEcho, 0, sizeof(Echo)));
  CK(cudaMalloc(&dOut, p.n * sizeof(double)));
  echo<<<1, 1>>>(p, sm, f3, i2, d2, u8, g, big, dEcho);
  compute<<<(p.n + 127) / 128, 128>>>(p, f3, sm, dOut);
  CK(cudaGetLastError());
  Echo e; memset(&e, 0, sizeof e);
  std::vector<double> out(p.n);
  CK(cudaMemcpy(&e, dEcho, sizeof(Echo), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(out.data(), dOut, p.n * sizeof(double), cudaMemcpyDeviceToHost));

  bool pOk = e.p.n == p.n && e.p.scale == p.scale && e.p.offset == p.offset && e.p.tag == p.tag &&
             e.p.s == p.s && e.p.big == p.big && e.p.coeffs[0] == p.coeffs[0] &&
             e.p.coeffs[1] == p.coeffs[1] && e.p.coeffs[2] == p.coeffs[2];
  if (!pOk) { printf("FAILED: Params echo (n=%d scale=%f offset=%f tag=%d s=%d big=%lld)\n",
      e.p.n, e.p.scale, e.p.offset, e.p.tag, e.p.s, e.p.big); return 1; }
  if (e.sm.c != sm.c || e.sm.d != sm.d) { printf("FAILED: Small echo\n"); return 1; }
  if (e.f3.x != f3.x || e.f3.y != f3.y || e.f3.z != f3.z) { printf("FAILED: float3 echo\n"); return 1; }
  if (e.i2.x != i2.x || e.i2.y != i2.y) { printf("FAILED: int2 echo\n"); return 1; }
  if (e.d2.x != d2.x || e.d2.y != d2.y) { printf("FAILED: double2 echo\n"); return 1; }
  if (e.u8 != u8) { printf("FAILED: uchar echo %d\n", e.u8); return 1; }
  if (e.g.x != 11 || e.g.y != 12 || e.g.z != 13) { printf("FAILED: dim3 echo\n"); return 1; }
  if (e.sumBig != sumBig) { printf("FAILED: Big sum %d, expected %d\n", e.sumBig, sumBig); return 1; }
  printf("echo ok: sizeof(Params)=%zu sizeof(Small)=%zu sizeof(Big)=%zu sumBig=%d\n",
         sizeof(Params), sizeof(Small), sizeof(Big), sumBig);

  for (int i = 0; i < p.n; ++i) {
    double ref = evalOne(p, sm, f3, i);
    if (out[i] != ref) { printf("FAILED: compute[%d] = %.17g, expected %.17g\n", i, out[i], ref); return 1; }
  }
  printf("compute ok: out[0]=%.4f out[%d]=%.4f\n", out[0], p.n - 1, out[p.n - 1]);
  cudaFree(dEcho); cudaFree(dOut);
  printf("PASSED\n");
  return 0;
}
