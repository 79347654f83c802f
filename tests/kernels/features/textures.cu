// textures: bindless texture and surface objects: tex1Dfetch (linear memory), tex1D/tex2D/tex3D
// with float coordinates, normalized reads of uchar4, layered and LOD/gradient fetches,
// tex2Dgather, integer and float4 element types, surf1D/surf2D/surf3D write and read, and
// surf2Dwrite with boundary modes (compiled to PTX only).
#include <cuda_runtime.h>

__global__ void texFetch(cudaTextureObject_t lin, cudaTextureObject_t linInt, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 q = tex1Dfetch<float4>(lin, i / 4);
  out[i] = tex1Dfetch<float>(lin, i) + (float)tex1Dfetch<int>(linInt, n - 1 - i) + q.x + q.w;
}

__global__ void texArrays(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                          cudaTextureObject_t tNorm, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
  float a = tex1D<float>(t1, x + 0.5f);
  float b = tex2D<float>(t2, x + 0.5f, y + 0.5f);
  float c = tex3D<float>(t3, u, v, 0.5f);
  float4 d = tex2D<float4>(tNorm, u, v);            // uchar4 read as normalized float
  float e = tex2DLod<float>(t2, u, v, 1.5f);
  float g = tex2DGrad<float>(t2, u, v, make_float2(0.01f, 0), make_float2(0, 0.01f));
  float4 gather = tex2Dgather<float4>(t2, u, v, 0);
  float layered = tex2DLayered<float>(t2, u, v, y % 4);
  float l1 = tex1DLod<float>(t1, u, 0.0f);
  out[y * w + x] = a + b + c + d.x + d.w + e + g + gather.y + layered + l1;
}

__global__ void surfaces(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = surf2Dread<float>(s2, x * (int)sizeof(float), y);
  surf2Dwrite(v * 2.0f + 1.0f, s2, x * (int)sizeof(float), y);
  uchar4 c = surf2Dread<uchar4>(s3, x * 4, y, cudaBoundaryModeClamp);
  surf2Dwrite(make_uchar4(c.w, c.z, c.y, c.x), s3, x * 4, y, cudaBoundaryModeZero);
  if (y == 0) {
    int iv = surf1Dread<int>(s1, x * 4);
    surf1Dwrite(iv + 1, s1, x * 4);
  }
}

__global__ void surface3D(cudaSurfaceObject_t s, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x % h, z = blockIdx.x / h;
  if (x >= w || z >= d) return;
  float4 v = surf3Dread<float4>(s, x * 16, y, z);
  surf3Dwrite(make_float4(v.w, v.z, v.y, v.x + 1.0f), s, x * 16, y, z);
}
