// texture_array: CUDA arrays behind texture and surface objects.
//  - 2D float array (cudaMallocArray + cudaMemcpy2DToArray), bilinear filtering with clamp
//    addressing at texel-centre offsets of 0.25/0.75 (exact in the hardware's 8-bit weights)
//  - the same array with normalized coordinates and wrap addressing, point sampling
//  - uchar4 array read as normalized float (cudaReadModeNormalizedFloat)
//  - 3D array (cudaMalloc3DArray + cudaMemcpy3D both ways) sampled with tex3D
//  - a surface object written by a kernel (surf2Dwrite) and read back (cudaMemcpy2DFromArray)
// Host references use the sampling formulas of the CUDA C Programming Guide ("Texture
// Fetching"); every compared value is exact.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int W = 16, H = 8, D = 4;

__global__ void sample2d(cudaTextureObject_t t, float* out, float ox, float oy) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * W + x] = tex2D<float>(t, x + ox, y + oy);
}
__global__ void sample2d_norm(cudaTextureObject_t t, float* out) {
  int x = threadIdx.x, y = blockIdx.x;
  // normalized coordinates 1.5 texels outside the right/bottom edge wrap around
  out[y * W + x] = tex2D<float>(t, (x + W + 0.5f) / W, (y - H + 0.5f) / H);
}
__global__ void sample_uchar4(cudaTextureObject_t t, float4* out) {
  int x = threadIdx.x;
  out[x] = tex2D<float4>(t, x + 0.5f, 0.5f);
}
__global__ void sample3d(cudaTextureObject_t t, int* out) {
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  out[(z * H + y) * W + x] = tex3D<int>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}
__global__ void write_surface(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = blockIdx.x;
  surf2Dwrite(float(x * 100 + y), s, x * int(sizeof(float)), y);
}

static float texel(const std::vector<float>& a, int x, int y) {
  x = x < 0 ? 0 : x >= W ? W - 1 : x;
  y = y < 0 ? 0 : y >= H ? H - 1 : y;
  return a[y * W + x];
}

int main() {
  std::vector<float> h(W * H);
  for (int i = 0; i < W * H; ++i) h[i] = float((i * 37) % 101) - 50.0f;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  CK(cudaMallocArray(&arr, &fd, W, H));
  CK(cudaMemcpy2DToArray(arr, 0, 0, h.data(), W * sizeof(float), W * sizeof(float), H,
                         cudaMemcpyHostToDevice));
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t lin;
  CK(cudaCreateTextureObject(&lin, &rd, &td, nullptr));
  float* dout;
  CK(cudaMalloc(&dout, W * H * sizeof(float)));
  std::vector<float> out(W * H);
  const float offs[2][2] = {{0.75f, 0.25f}, {0.5f, 1.0f}};
  for (auto& o : offs) {
    sample2d<<<H, W>>>(lin, dout, o[0], o[1]);
    CK(cudaMemcpy(out.data(), dout, W * H * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const float cx = x + o[0] - 0.5f, cy = y + o[1] - 0.5f;
        const int bx = int(std::floor(cx)), by = int(std::floor(cy));
        const float a = cx - bx, b = cy - by;
        const float want = (1 - a) * (1 - b) * texel(h, bx, by) + a * (1 - b) * texel(h, bx + 1, by) +
                           (1 - a) * b * texel(h, bx, by + 1) + a * b * texel(h, bx + 1, by + 1);
        if (out[y * W + x] != want) {
          printf("FAILED: bilinear (%d,%d) offset (%g,%g): %g, expected %g\n", x, y, o[0], o[1],
                 out[y * W + x], want);
          return 1;
        }
      }
  }
  double lsum = 0;
  for (float v : out) lsum += v;

  td.filterMode = cudaFilterModePoint;
  td.normalizedCoords = 1;
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
  cudaTextureObject_t wrap;
  CK(cudaCreateTextureObject(&wrap, &rd, &td, nullptr));
  sample2d_norm<<<H, W>>>(wrap, dout);
  CK(cudaMemcpy(out.data(), dout, W * H * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      if (out[y * W + x] != h[y * W + x]) {
        printf("FAILED: wrap (%d,%d): %g, expected %g\n", x, y, out[y * W + x], h[y * W + x]);
        return 1;
      }

  // uchar4 read as normalized float.
  std::vector<uchar4> c(W);
  for (int x = 0; x < W; ++x) c[x] = make_uchar4(x * 17, 255 - x, 0, 255);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t carr;
  CK(cudaMallocArray(&carr, &cd, W, 1));
  CK(cudaMemcpy2DToArray(carr, 0, 0, c.data(), W * 4, W * 4, 1, cudaMemcpyHostToDevice));
  rd.res.array.array = carr;
  memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t ct;
  CK(cudaCreateTextureObject(&ct, &rd, &td, nullptr));
  float4* d4;
  CK(cudaMalloc(&d4, W * sizeof(float4)));
  sample_uchar4<<<1, W>>>(ct, d4);
  std::vector<float4> o4(W);
  CK(cudaMemcpy(o4.data(), d4, W * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int x = 0; x < W; ++x)
    if (o4[x].x != c[x].x / 255.0f || o4[x].y != c[x].y / 255.0f || o4[x].z != 0.0f ||
        o4[x].w != 1.0f) {
      printf("FAILED: uchar4 %d: %g %g %g %g\n", x, o4[x].x, o4[x].y, o4[x].z, o4[x].w);
      return 1;
    }

  // 3D array of ints, copied in and out with cudaMemcpy3D.
  std::vector<int> v(W * H * D), back(W * H * D, 0);
  for (int i = 0; i < W * H * D; ++i) v[i] = i * 3 - 7;
  cudaChannelFormatDesc id = cudaCreateChannelDesc<int>();
  cudaArray_t a3;
  CK(cudaMalloc3DArray(&a3, &id, make_cudaExtent(W, H, D)));
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(v.data(), W * sizeof(int), W, H);
  p.dstArray = a3;
  p.extent = make_cudaExtent(W, H, D);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  memset(&p, 0, sizeof p);
  p.srcArray = a3;
  p.dstPtr = make_cudaPitchedPtr(back.data(), W * sizeof(int), W, H);
  p.extent = make_cudaExtent(W, H, D);
  p.kind = cudaMemcpyDeviceToHost;
  CK(cudaMemcpy3D(&p));
  if (back != v) { printf("FAILED: cudaMemcpy3D round trip\n"); return 1; }
  rd.res.array.array = a3;
  memset(&td, 0, sizeof td);
  cudaTextureObject_t t3;
  CK(cudaCreateTextureObject(&t3, &rd, &td, nullptr));
  int* di;
  CK(cudaMalloc(&di, W * H * D * sizeof(int)));
  sample3d<<<D, dim3(W, H)>>>(t3, di);
  CK(cudaMemcpy(back.data(), di, W * H * D * sizeof(int), cudaMemcpyDeviceToHost));
  if (back != v) { printf("FAILED: tex3D\n"); return 1; }

  // Surface writes into a fresh array.
  cudaArray_t sarr;
  CK(cudaMallocArray(&sarr, &fd, W, H, cudaArraySurfaceLoadStore));
  rd.res.array.array = sarr;
  cudaSurfaceObject_t so;
  CK(cudaCreateSurfaceObject(&so, &rd));
  write_surface<<<H, W>>>(so);
  CK(cudaMemcpy2DFromArray(out.data(), W * sizeof(float), sarr, 0, 0, W * sizeof(float), H,
                           cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      if (out[y * W + x] != float(x * 100 + y)) { printf("FAILED: surface (%d,%d)\n", x, y); return 1; }

  printf("texture_array: bilinear sum %.4f, uchar4[3]=(%.4f,%.4f), 3D ok, surface ok\n", lsum,
         o4[3].x, o4[3].y);
  CK(cudaDestroyTextureObject(lin)); CK(cudaDestroyTextureObject(wrap));
  CK(cudaDestroyTextureObject(ct)); CK(cudaDestroyTextureObject(t3));
  CK(cudaDestroySurfaceObject(so));
  CK(cudaFreeArray(arr)); CK(cudaFreeArray(carr)); CK(cudaFreeArray(a3)); CK(cudaFreeArray(sarr));
  printf("PASSED\n");
  return 0;
}
