// tma_gemm: a pipelined Hopper-style GEMM, D (MxN f32) = A (MxK f16, row-major) x B (KxN f16,
// given as its transpose Bt, NxK row-major, i.e. K-major), -arch=sm_90a, gpu.cc_major=9.
// Each CTA computes a 64x64 tile with one consumer warpgroup (warps 0-3) and one producer warp
// (warp 4):
//   producer (one elected thread): for each 64-wide K tile, waits until stage s of a 3-stage
//     shared-memory ring is empty (mbarrier empty[s]), announces 16 KiB on full[s]
//     (mbarrier.arrive.expect_tx) and issues two TMA loads (cp.async.bulk.tensor.2d) of the
//     64x64 A and Bt tiles with the 128-byte swizzle, completing on full[s];
//   consumers: wait for full[s] (mbarrier.try_wait.parity), run four wgmma.mma_async
//     m64n64k16 steps on the stage through 128B-swizzle K-major descriptors (start advanced 32 B
//     per K step, SBO 1024 B), wgmma.commit_group / wait_group 0, then one arrival per warp on
//     empty[s] hands the stage back.
// The result is compared with a host GEMM (small integers: exact). Tensor maps come from
// cuTensorMapEncodeTiled via cudaGetDriverEntryPoint (no libcuda link).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int M = 256, N = 256, K = 512;
constexpr int BM = 64, BN = 64, BK = 64, STAGES = 3;
constexpr int TILE_BYTES = BM * BK * 2;  // 8 KiB per operand tile

__device__ inline uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ inline void wait_parity(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

__device__ inline uint64_t desc128(uint32_t start) {
  // start >> 4, leading byte offset 16 B (unused with the swizzle), stride byte offset 1024 B
  // (8 rows of 128 B), swizzle mode 1 = 128B.
  return uint64_t((start >> 4) & 0x3fff) | uint64_t(1) << 16 | uint64_t(1024 >> 4) << 32 |
         uint64_t(1) << 62;
}

struct Smem {
  __half a[STAGES][BM * BK];
  __half b[STAGES][BN * BK];
  uint64_t full[STAGES], empty[STAGES];
};

__global__ void __launch_bounds__(160) kgemm(const __grid_constant__ CUtensorMap ta,
                                             const __grid_constant__ CUtensorMap tb, float* D) {
  extern __shared__ __align__(1024) uint8_t raw[];
  Smem& s = *reinterpret_cast<Smem*>(raw + ((1024 - smem(raw) % 1024) % 1024));  // 1024-aligned
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  constexpr int KT = K / BK;
  if (t == 0) {
    for (int i = 0; i < STAGES; ++i) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&s.full[i])));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 4;" ::"r"(smem(&s.empty[i])));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (warp == 4) {  // producer
    if (lane == 0) {
      for (int kt = 0; kt < KT; ++kt) {
        const int st = kt % STAGES;
        if (kt >= STAGES) wait_parity(smem(&s.empty[st]), ((kt / STAGES) - 1) & 1);
        const uint32_t full = smem(&s.full[st]);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full), "r"(2 * TILE_BYTES)
                     : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
            ::"r"(smem(s.a[st])), "l"(reinterpret_cast<uint64_t>(&ta)), "r"(kt * BK), "r"(m0), "r"(full)
            : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
            ::"r"(smem(s.b[st])), "l"(reinterpret_cast<uint64_t>(&tb)), "r"(kt * BK), "r"(n0), "r"(full)
            : "memory");
      }
    }
    return;
  }
  // Consumers: one warpgroup.
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.f;
  for (int kt = 0; kt < KT; ++kt) {
    const int st = kt % STAGES;
    wait_parity(smem(&s.full[st]), (kt / STAGES) & 1);
    const uint32_t a0 = smem(s.a[st]), b0 = smem(s.b[st]);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int ks = 0; ks < BK / 16; ++ks) {
      const uint64_t da = desc128(a0 + ks * 32), db = desc128(b0 + ks * 32);
      asm volatile(
          "{ .reg .pred p; setp.ne.b32 p, %34, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
          "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
          "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0; }"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
            "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
            "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
            "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
          : "l"(da), "l"(db), "r"(kt > 0 || ks > 0 ? 1 : 0));
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncwarp();
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&s.empty[st])) : "memory");
  }
  const int g = lane / 4, tg = lane % 4;
  for (int q = 0; q < 32; ++q) {
    const int j = q / 4, i = q % 4;
    D[(m0 + 16 * warp + g + 8 * (i / 2)) * N + n0 + 8 * j + 2 * tg + (i % 2)] = d[q];
  }
}

int main() {
  cudaDriverEntryPointQueryResult q;
  void* fn = nullptr;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (!fn || q != cudaDriverEntryPointSuccess) { printf("FAILED: no cuTensorMapEncodeTiled\n"); return 1; }
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);

  std::vector<__half> A(size_t(M) * K), Bt(size_t(N) * K);
  for (size_t i = 0; i < A.size(); ++i) A[i] = __float2half(float(int(i * 7 % 9) - 4));
  for (size_t i = 0; i < Bt.size(); ++i) Bt[i] = __float2half(float(int(i * 5 % 7) - 3));
  std::vector<float> ref(size_t(M) * N, 0.f), D(size_t(M) * N);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float acc = 0.f;
      for (int k = 0; k < K; ++k) acc += __half2float(A[size_t(r) * K + k]) * __half2float(Bt[size_t(c) * K + k]);
      ref[size_t(r) * N + c] = acc;
    }
  __half *dA, *dB;
  float* dD;
  CK(cudaMalloc(&dA, A.size() * 2));
  CK(cudaMalloc(&dB, Bt.size() * 2));
  CK(cudaMalloc(&dD, D.size() * 4));
  CK(cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, Bt.data(), Bt.size() * 2, cudaMemcpyHostToDevice));

  CUtensorMap ta, tb;
  const cuuint64_t dimsA[2] = {K, M}, dimsB[2] = {K, N}, strides[1] = {K * 2};
  const cuuint32_t box[2] = {BK, BM}, es[2] = {1, 1};
  if (encode(&ta, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, dA, dimsA, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) ||
      encode(&tb, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, dB, dimsB, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)) {
    printf("FAILED: cuTensorMapEncodeTiled\n");
    return 1;
  }
  const int shmem = int(sizeof(Smem)) + 1024;  // + slack: the ring is aligned to 1024 B
  CK(cudaFuncSetAttribute(kgemm, cudaFuncAttributeMaxDynamicSharedMemorySize, shmem));
  kgemm<<<dim3(N / BN, M / BM), 160, shmem>>>(ta, tb, dD);
  CK(cudaGetLastError());
  CK(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < D.size(); ++i)
    if (D[i] != ref[i]) {
      if (bad < 4) printf("  D[%zu][%zu] = %g, expected %g\n", i / N, i % N, D[i], ref[i]);
      ++bad;
    }
  printf("%-40s %s\n", "TMA + wgmma 3-stage GEMM 256x256x512", bad ? "mismatch" : "ok");
  printf(bad ? "FAILED\n" : "PASSED\n");
  return bad ? 1 : 0;
}
