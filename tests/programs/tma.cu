// tma: cp.async.bulk.tensor (the Tensor Memory Accelerator) with tensor maps made by
// cuTensorMapEncodeTiled, obtained through cudaGetDriverEntryPoint (the program does not link
// libcuda). Inline PTX, -arch=sm_90a, gpu.cc_major=9. Every case is checked against a host
// reference of the shared-memory image the PTX ISA defines:
//   2D float loads of a 100x70 tensor at boxes inside, across the right/bottom edges and at
//     negative coordinates (out-of-bounds elements zero-filled), with each swizzle mode
//     (none, 32B, 64B, 128B: the 16-byte chunk index bits 4.. of the shared address XORed with
//     address bits 7..);
//   a 1D load past the end, a 3D load across two edges, a 2D load with element strides 2x1;
//   a 2D TMA store (shared::cta -> global, bulk_group) across the edges: out-of-bounds
//     elements are not written;
//   the driver's argument checks (misaligned address, box dim > 256, inner box wider than the
//     swizzle span) return CUDA_ERROR_INVALID_VALUE; an unknown driver symbol is not found.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

static PFN_cuTensorMapEncodeTiled_v12000 encode;

__device__ inline uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

constexpr int kSmem = 8192;

// Load one box at coordinates c[0..rank) into a 1024-byte aligned shared buffer and copy the
// raw shared bytes to out (bytes of them).
template <int RANK>
__global__ void kload(const __grid_constant__ CUtensorMap tm, int4 c, uint8_t* out, int bytes) {
  __shared__ __align__(1024) uint8_t buf[kSmem];
  __shared__ __align__(8) uint64_t bar;
  for (int i = threadIdx.x; i < kSmem; i += blockDim.x) buf[i] = 0xee;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)), "r"(bytes));
    const uint64_t t = reinterpret_cast<uint64_t>(&tm);
    if (RANK == 1)
      asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                   ::"r"(smem(buf)), "l"(t), "r"(c.x), "r"(smem(&bar)) : "memory");
    if (RANK == 2)
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   ::"r"(smem(buf)), "l"(t), "r"(c.x), "r"(c.y), "r"(smem(&bar)) : "memory");
    if (RANK == 3)
      asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.tile [%0], [%1, {%2, %3, %4}], [%5];"
                   ::"r"(smem(buf)), "l"(t), "r"(c.x), "r"(c.y), "r"(c.z), "r"(smem(&bar)) : "memory");
  }
  uint32_t done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(smem(&bar)) : "memory");
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) out[i] = buf[i];
}

// Store a box (shared bytes from `in`) at 2D coordinates c.
__global__ void kstore(const __grid_constant__ CUtensorMap tm, int4 c, const uint8_t* in, int bytes) {
  __shared__ __align__(1024) uint8_t buf[kSmem];
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) buf[i] = in[i];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 ::"l"(reinterpret_cast<uint64_t>(&tm)), "r"(c.x), "r"(c.y), "r"(smem(buf)) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

struct Tensor {
  int rank;
  uint64_t dims[5];
  std::vector<float> h;
  float* d = nullptr;
  uint64_t stride(int i) const {  // bytes between consecutive elements of dimension i
    uint64_t s = 4;
    for (int j = 0; j < i; ++j) s *= dims[j];
    return s;
  }
};

static CUresult make_map(CUtensorMap* m, const Tensor& t, const uint32_t* box, const uint32_t* es,
                         CUtensorMapSwizzle sw, void* addr = nullptr) {
  uint64_t strides[4];
  for (int i = 1; i < t.rank; ++i) strides[i - 1] = t.stride(i);
  return encode(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, t.rank, addr ? addr : t.d, t.dims, strides,
                box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

// Expected shared image: box elements in order (dim 0 fastest), element i of dimension d at
// coordinate c[d] + i*es[d]; out-of-bounds elements are 0; then the swizzle permutes 16-byte
// chunks by address bits 7.. (the buffer is 1024-byte aligned).
static std::vector<uint8_t> expect_load(const Tensor& t, const int* c, const uint32_t* box,
                                        const uint32_t* es, int swz_bytes) {
  uint32_t n[5] = {1, 1, 1, 1, 1};
  size_t total = 1;
  for (int d = 0; d < t.rank; ++d) { n[d] = (box[d] + es[d] - 1) / es[d]; total *= n[d]; }
  std::vector<float> lin(total);
  for (size_t k = 0; k < total; ++k) {
    size_t r = k, off = 0;
    bool oob = false;
    for (int d = 0; d < t.rank; ++d) {
      const int64_t x = int64_t(c[d]) + int64_t(r % n[d]) * es[d];
      r /= n[d];
      if (x < 0 || x >= int64_t(t.dims[d])) oob = true;
      off += size_t(x) * (t.stride(d) / 4);
    }
    lin[k] = oob ? 0.f : t.h[off];
  }
  std::vector<uint8_t> img(total * 4);
  const uint32_t mask = swz_bytes == 128 ? 7 : swz_bytes == 64 ? 3 : swz_bytes == 32 ? 1 : 0;
  for (size_t a = 0; a < img.size(); ++a) {
    const size_t s = a ^ (((a >> 7) & mask) << 4);
    std::memcpy(&img[s], reinterpret_cast<uint8_t*>(lin.data()) + a, 1);
  }
  return img;
}

static int failures = 0;

template <int RANK>
static int run_load(const char* name, const Tensor& t, int4 c, const uint32_t* box,
                    const uint32_t* es, CUtensorMapSwizzle sw, int swz_bytes) {
  CUtensorMap m;
  CUresult r = make_map(&m, t, box, es, sw);
  if (r != CUDA_SUCCESS) { printf("%-40s encode failed (%d)\n", name, int(r)); ++failures; return 1; }
  const int cc[4] = {c.x, c.y, c.z, c.w};
  std::vector<uint8_t> want = expect_load(t, cc, box, es, swz_bytes);
  uint8_t* d;
  CK(cudaMalloc(&d, want.size()));
  kload<RANK><<<1, 128>>>(m, c, d, int(want.size()));
  CK(cudaGetLastError());
  std::vector<uint8_t> got(want.size());
  CK(cudaMemcpy(got.data(), d, got.size(), cudaMemcpyDeviceToHost));
  cudaFree(d);
  int bad = 0;
  for (size_t i = 0; i < want.size(); i += 4)
    if (std::memcmp(&got[i], &want[i], 4)) {
      if (bad < 3) {
        float g, w;
        std::memcpy(&g, &got[i], 4);
        std::memcpy(&w, &want[i], 4);
        printf("  %s: shared byte %zu = %g, expected %g\n", name, i, g, w);
      }
      ++bad;
    }
  printf("%-40s %s\n", name, bad ? "mismatch" : "ok");
  failures += bad != 0;
  return 0;
}

int main() {
  cudaDriverEntryPointQueryResult q;
  void* fn = nullptr;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (!fn || q != cudaDriverEntryPointSuccess) { printf("FAILED: no cuTensorMapEncodeTiled\n"); return 1; }
  encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  void* nf = reinterpret_cast<void*>(1);
  cudaError_t e = cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &nf, 12000, cudaEnableDefault, &q);
  const bool notfound_ok = q == cudaDriverEntryPointSymbolNotFound && nf == nullptr;
  printf("%-40s %s\n", "unknown driver symbol not found", notfound_ok ? "ok" : "mismatch");
  failures += !notfound_ok;
  (void)e;

  // 2D tensor 100 x 70 floats.
  Tensor t2{2, {100, 70}};
  t2.h.resize(100 * 70);
  for (size_t i = 0; i < t2.h.size(); ++i) t2.h[i] = float(i + 1);
  CK(cudaMalloc(&t2.d, t2.h.size() * 4));
  CK(cudaMemcpy(t2.d, t2.h.data(), t2.h.size() * 4, cudaMemcpyHostToDevice));
  const uint32_t one[5] = {1, 1, 1, 1, 1};
  const uint32_t b32x16[2] = {32, 16}, b16x16[2] = {16, 16}, b8x16[2] = {8, 16};
  run_load<2>("2D box 32x16 inside, no swizzle", t2, {8, 5, 0, 0}, b32x16, one, CU_TENSOR_MAP_SWIZZLE_NONE, 0);
  run_load<2>("2D box 32x16 across edges, no swizzle", t2, {80, 60, 0, 0}, b32x16, one, CU_TENSOR_MAP_SWIZZLE_NONE, 0);
  run_load<2>("2D box 32x16 negative coords", t2, {-5, -3, 0, 0}, b32x16, one, CU_TENSOR_MAP_SWIZZLE_NONE, 0);
  run_load<2>("2D box 8x16 swizzle 32B", t2, {3, 2, 0, 0}, b8x16, one, CU_TENSOR_MAP_SWIZZLE_32B, 32);
  run_load<2>("2D box 16x16 swizzle 64B across edge", t2, {90, 1, 0, 0}, b16x16, one, CU_TENSOR_MAP_SWIZZLE_64B, 64);
  run_load<2>("2D box 32x16 swizzle 128B", t2, {4, 9, 0, 0}, b32x16, one, CU_TENSOR_MAP_SWIZZLE_128B, 128);
  run_load<2>("2D box 32x16 swizzle 128B across edges", t2, {72, 62, 0, 0}, b32x16, one, CU_TENSOR_MAP_SWIZZLE_128B, 128);
  const uint32_t es21[2] = {2, 1};
  run_load<2>("2D box 32x16 element strides 2x1", t2, {10, 3, 0, 0}, b32x16, es21, CU_TENSOR_MAP_SWIZZLE_NONE, 0);

  // 1D: 100 floats, box 32 at 80 (12 elements past the end).
  Tensor t1{1, {100}};
  t1.h.assign(t2.h.begin(), t2.h.begin() + 100);
  CK(cudaMalloc(&t1.d, 400));
  CK(cudaMemcpy(t1.d, t1.h.data(), 400, cudaMemcpyHostToDevice));
  const uint32_t b1[1] = {32};
  run_load<1>("1D box 32 past the end", t1, {80, 0, 0, 0}, b1, one, CU_TENSOR_MAP_SWIZZLE_NONE, 0);

  // 3D: 20 x 10 x 6, box 8x4x3 across the x and z edges.
  Tensor t3{3, {20, 10, 6}};
  t3.h.resize(20 * 10 * 6);
  for (size_t i = 0; i < t3.h.size(); ++i) t3.h[i] = float(1000 + i);
  CK(cudaMalloc(&t3.d, t3.h.size() * 4));
  CK(cudaMemcpy(t3.d, t3.h.data(), t3.h.size() * 4, cudaMemcpyHostToDevice));
  const uint32_t b3[3] = {8, 4, 3};
  run_load<3>("3D box 8x4x3 across edges", t3, {16, 2, 4, 0}, b3, one, CU_TENSOR_MAP_SWIZZLE_NONE, 0);

  // 2D store: box 32x16 at (80, 60): only the 20x10 in-bounds part is written.
  {
    std::vector<float> box(32 * 16);
    for (size_t i = 0; i < box.size(); ++i) box[i] = -float(i + 1);
    CUtensorMap m;
    if (make_map(&m, t2, b32x16, one, CU_TENSOR_MAP_SWIZZLE_NONE) != CUDA_SUCCESS) { printf("FAILED: encode\n"); return 1; }
    uint8_t* d;
    CK(cudaMalloc(&d, box.size() * 4));
    CK(cudaMemcpy(d, box.data(), box.size() * 4, cudaMemcpyHostToDevice));
    kstore<<<1, 128>>>(m, {80, 60, 0, 0}, d, int(box.size() * 4));
    CK(cudaGetLastError());
    std::vector<float> got(t2.h.size());
    CK(cudaMemcpy(got.data(), t2.d, got.size() * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int y = 0; y < 70; ++y)
      for (int x = 0; x < 100; ++x) {
        const bool in = x >= 80 && y >= 60;
        const float w = in ? box[(y - 60) * 32 + (x - 80)] : t2.h[y * 100 + x];
        if (got[y * 100 + x] != w) {
          if (bad < 3) printf("  store: (%d, %d) = %g, expected %g\n", x, y, got[y * 100 + x], w);
          ++bad;
        }
      }
    printf("%-40s %s\n", "2D store across edges (OOB not written)", bad ? "mismatch" : "ok");
    failures += bad != 0;
    cudaFree(d);
  }

  // Driver argument checks.
  {
    CUtensorMap m;
    int bad = 0;
    const uint32_t b300[2] = {300, 1}, b64[2] = {64, 8};
    bad += make_map(&m, t2, b32x16, one, CU_TENSOR_MAP_SWIZZLE_NONE,
                    reinterpret_cast<uint8_t*>(t2.d) + 4) != CUDA_ERROR_INVALID_VALUE;
    bad += make_map(&m, t2, b300, one, CU_TENSOR_MAP_SWIZZLE_NONE) != CUDA_ERROR_INVALID_VALUE;
    bad += make_map(&m, t2, b64, one, CU_TENSOR_MAP_SWIZZLE_128B) != CUDA_ERROR_INVALID_VALUE;
    Tensor odd{2, {99, 70}};  // row stride 396 bytes: not a multiple of 16
    odd.d = t2.d;
    bad += make_map(&m, odd, b32x16, one, CU_TENSOR_MAP_SWIZZLE_NONE) != CUDA_ERROR_INVALID_VALUE;
    printf("%-40s %s\n", "encode argument checks", bad ? "mismatch" : "ok");
    failures += bad != 0;
  }
  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
