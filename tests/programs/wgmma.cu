// wgmma: a warpgroup GEMM with wgmma.mma_async (sm_90a): D (64x64, f32) = A (64x64 f16) x
// B (64x64 f16), four m64n64k16 steps with A and B in shared memory through matrix descriptors,
// K-major, once in the no-swizzle canonical layout (8x16-byte core matrices, LBO 128 B between
// core matrices along K, SBO 1024 B between 8-row groups) and once in the 128-byte swizzle
// layout (rows of 128 B, 16-byte chunk index XOR row % 8, SBO 1024 B, the descriptor start
// advanced by 32 B per K step). wgmma.fence / commit_group / wait_group 0 around the steps; the
// accumulator fragment is scattered by the PTX ISA's m64nNk16 D layout and compared with the
// host product (small integers: exact). Built with -arch=sm_90a, run with gpu.cc_major=9.
// The layouts follow simtlab's reading of the PTX ISA (not checked on a Hopper GPU here).
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_fp16.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int M = 64, N = 64, K = 64;

// Byte offset of element (r, k) of a 64-row K-major operand in the chosen layout.
template <bool SWZ>
__device__ inline uint32_t off(int r, int k) {
  if (!SWZ) return (r / 8) * 1024 + (k / 8) * 128 + (r % 8) * 16 + (k % 8) * 2;
  const uint32_t a = (r / 8) * 1024 + (r % 8) * 128 + k * 2;
  return a ^ (((a >> 7) & 7) << 4);
}

__device__ inline uint64_t desc(uint32_t start, uint32_t lbo, uint32_t sbo, uint32_t swz) {
  return uint64_t((start >> 4) & 0x3fff) | uint64_t((lbo >> 4) & 0x3fff) << 16 |
         uint64_t((sbo >> 4) & 0x3fff) << 32 | uint64_t(swz) << 62;
}

template <bool SWZ>
__global__ void kwg(const __half* A, const __half* B, float* D) {
  __shared__ __align__(1024) __half sa[M * K];
  __shared__ __align__(1024) __half sb[N * K];
  const int t = threadIdx.x;
  for (int i = t; i < M * K; i += 128) {
    const int r = i / K, k = i % K;
    sa[off<SWZ>(r, k) / 2] = A[r * K + k];  // A row r
    sb[off<SWZ>(r, k) / 2] = B[k * N + r];  // B column r (K-major B)
  }
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.f;
  const uint32_t a0 = uint32_t(__cvta_generic_to_shared(sa)), b0 = uint32_t(__cvta_generic_to_shared(sb));
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int ks = 0; ks < K / 16; ++ks) {
    const uint32_t step = SWZ ? 32 : 256;
    const uint64_t da = desc(a0 + ks * step, SWZ ? 16 : 128, 1024, SWZ ? 1 : 0);
    const uint64_t db = desc(b0 + ks * step, SWZ ? 16 : 128, 1024, SWZ ? 1 : 0);
    asm volatile(
        "{ .reg .pred p; setp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0; }"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(da), "l"(db), "r"(ks > 0 ? 1 : 0));
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  const int w = t / 32, l = t % 32, g = l / 4, tg = l % 4;
  for (int q = 0; q < 32; ++q) {
    const int j = q / 4, i = q % 4;
    D[(16 * w + g + 8 * (i / 2)) * N + 8 * j + 2 * tg + (i % 2)] = d[q];
  }
}

template <bool SWZ>
static int run(const char* name) {
  std::vector<__half> A(M * K), B(K * N);
  std::vector<float> ref(M * N, 0.f), D(M * N);
  for (int i = 0; i < M * K; ++i) A[i] = __float2half(float((i * 7) % 9 - 4));
  for (int i = 0; i < K * N; ++i) B[i] = __float2half(float((i * 5) % 7 - 3));
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < N; ++c) ref[r * N + c] += __half2float(A[r * K + k]) * __half2float(B[k * N + c]);
  __half *dA, *dB;
  float* dD;
  CK(cudaMalloc(&dA, A.size() * 2)); CK(cudaMalloc(&dB, B.size() * 2)); CK(cudaMalloc(&dD, D.size() * 4));
  CK(cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice));
  kwg<SWZ><<<1, 128>>>(dA, dB, dD);
  CK(cudaGetLastError());
  CK(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost));
  cudaFree(dA); cudaFree(dB); cudaFree(dD);
  int bad = 0;
  for (int i = 0; i < M * N; ++i)
    if (D[i] != ref[i]) {
      if (bad < 4) printf("  %s: D[%d][%d] = %g, expected %g\n", name, i / N, i % N, D[i], ref[i]);
      ++bad;
    }
  printf("%-40s %s\n", name, bad ? "mismatch" : "ok");
  return bad ? 1 : 0;
}

int main() {
  int fails = run<false>("wgmma m64n64k16 x4, no swizzle");
  fails += run<true>("wgmma m64n64k16 x4, 128B swizzle");
  printf(fails ? "FAILED\n" : "PASSED\n");
  return fails ? 1 : 0;
}
