// sm90_sync: sm_90 forms of the sm_80 families (inline PTX, -arch=sm_90a, gpu.cc_major=9):
//   stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16: every stored b16 against the PTX
//     ISA rule (threads 8j..8j+7 give the row addresses of matrix j; lane l's register j holds
//     row l/4, columns 2(l%4), 2(l%4)+1 of matrix j, or with .trans rows 2(l%4), 2(l%4)+1 of
//     column l/4), rows in a scrambled order;
//   mbarrier.try_wait.parity over 4 phases of producer/consumer exchange;
//   mbarrier.arrive.expect_tx + mbarrier.complete_tx: the phase completes only when the
//     arrivals and the announced transaction bytes are both in;
//   cp.async.bulk global -> shared (mbarrier complete_tx) and shared -> global (bulk_group).
#include <cstdint>
#include <cstdio>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ inline uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }
__host__ __device__ inline int perm(int t) { return (t * 5 + 3) % 32; }

template <int X, bool T>
__global__ void kst(uint16_t* out) {
  __shared__ __align__(16) uint16_t tile[32 * 8];
  const int l = threadIdx.x;
  for (int c = 0; c < 8; ++c) tile[l * 8 + c] = 0xffff;
  __syncthreads();
  const uint32_t a = smem(&tile[perm(l) * 8]);
  uint32_t r[4];
  for (int j = 0; j < 4; ++j) r[j] = uint32_t(l * 8 + j * 2 + 1) | uint32_t(l * 8 + j * 2 + 2) << 16;
  if (X == 1 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(r[0]) : "memory");
  if (X == 2 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(a), "r"(r[0]), "r"(r[1]) : "memory");
  if (X == 4 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
  if (X == 1 && T) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a), "r"(r[0]) : "memory");
  if (X == 2 && T) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" :: "r"(a), "r"(r[0]), "r"(r[1]) : "memory");
  if (X == 4 && T) asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
  __syncthreads();
  for (int c = 0; c < 8; ++c) out[l * 8 + c] = tile[l * 8 + c];
}

template <int X, bool T>
static int check_st(const char* name) {
  uint16_t* d;
  CK(cudaMalloc(&d, 512));
  kst<X, T><<<1, 32>>>(d);
  CK(cudaGetLastError());
  std::vector<uint16_t> h(256), want(256, 0xffff);
  CK(cudaMemcpy(h.data(), d, 512, cudaMemcpyDeviceToHost));
  cudaFree(d);
  // Expected tile: value of lane l's register j, half h = l*8 + 2j + 1 + h.
  for (int j = 0; j < X; ++j)
    for (int l = 0; l < 32; ++l)
      for (int hf = 0; hf < 2; ++hf) {
        const uint16_t v = uint16_t(l * 8 + 2 * j + 1 + hf);
        int row, col;
        if (!T) { row = perm(8 * j + l / 4); col = 2 * (l % 4) + hf; }
        else { row = perm(8 * j + 2 * (l % 4) + hf); col = l / 4; }
        want[row * 8 + col] = v;
      }
  int bad = 0;
  for (int i = 0; i < 256; ++i)
    if (h[i] != want[i]) {
      if (bad < 4) printf("  %s: tile[%d][%d] = %#x, expected %#x\n", name, i / 8, i % 8, h[i], want[i]);
      ++bad;
    }
  printf("%-34s %s\n", name, bad ? "mismatch" : "ok");
  return bad ? 1 : 0;
}

__device__ inline bool try_parity(uint64_t* b, uint32_t parity) {
  uint32_t r;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(smem(b)), "r"(parity) : "memory");
  return r;
}

// errors[0]: try_wait phases; errors[1]: expect_tx/complete_tx.
__global__ void kmbar(uint32_t* errors) {
  __shared__ uint64_t bar, txbar;
  __shared__ uint32_t data[128];
  const int t = threadIdx.x, n = blockDim.x;
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(&bar)), "r"(n) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(&txbar)), "r"(1) : "memory");
  }
  __syncthreads();
  for (int ph = 0; ph < 4; ++ph) {
    data[t] = uint32_t(t * 7 + ph);
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" :: "r"(smem(&bar)) : "memory");
    while (!try_parity(&bar, ph & 1)) {}
    if (data[(t + 5) % n] != uint32_t(((t + 5) % n) * 7 + ph)) atomicAdd(&errors[0], 1);
    __syncthreads();
  }
  // Thread 0 arrives announcing 256 transaction bytes; warps 1..3 complete 64 + 64 + 128.
  if (t == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" :: "r"(smem(&txbar)) : "memory");
  __syncthreads();
  if (try_parity(&txbar, 0)) atomicAdd(&errors[1], 1);  // 256 bytes outstanding
  __syncthreads();
  if (t == 32 || t == 64)
    asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 64;" :: "r"(smem(&txbar)) : "memory");
  __syncthreads();
  if (try_parity(&txbar, 0)) atomicAdd(&errors[1], 1);  // 128 bytes outstanding
  __syncthreads();
  if (t == 96) asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 128;" :: "r"(smem(&txbar)) : "memory");
  __syncthreads();
  if (!try_parity(&txbar, 0)) atomicAdd(&errors[1], 1);  // complete
  // Next phase: expect_tx first, then the arrival; complete_tx finishes it.
  __syncthreads();
  if (t == 0) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 32;" :: "r"(smem(&txbar)) : "memory");
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&txbar)) : "memory");
  }
  __syncthreads();
  if (try_parity(&txbar, 1)) atomicAdd(&errors[1], 1);
  __syncthreads();
  if (t == 127) asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 32;" :: "r"(smem(&txbar)) : "memory");
  __syncthreads();
  if (!try_parity(&txbar, 1)) atomicAdd(&errors[1], 1);
}

// cp.async.bulk: thread 0 announces 1024 bytes (arrive.expect_tx) and copies them global ->
// shared with complete_tx on the mbarrier; everyone waits on parity 0, checks the tile,
// increments it, and thread 0 writes it back shared -> global in a bulk group.
__global__ void kbulk(const uint32_t* in, uint32_t* out, uint32_t* errors) {
  __shared__ __align__(128) uint32_t tile[256];
  __shared__ uint64_t bar;
  const int t = threadIdx.x;
  const uint32_t* src = in + blockIdx.x * 256;
  if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bar)) : "memory");
  __syncthreads();
  if (t == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" :: "r"(smem(&bar)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
                 :: "r"(smem(tile)), "l"(src), "r"(smem(&bar)) : "memory");
  }
  while (!try_parity(&bar, 0)) {}
  for (int i = t; i < 256; i += blockDim.x)
    if (tile[i] != src[i]) atomicAdd(&errors[2], 1);
  __syncthreads();
  for (int i = t; i < 256; i += blockDim.x) tile[i] += 1;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (t == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;"
                 :: "l"(out + blockIdx.x * 256), "r"(smem(tile)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

int main() {
  int fails = 0;
  fails += check_st<1, false>("stmatrix.x1");
  fails += check_st<2, false>("stmatrix.x2");
  fails += check_st<4, false>("stmatrix.x4");
  fails += check_st<1, true>("stmatrix.x1.trans");
  fails += check_st<2, true>("stmatrix.x2.trans");
  fails += check_st<4, true>("stmatrix.x4.trans");
  uint32_t *de, err[3];
  CK(cudaMalloc(&de, sizeof err));
  CK(cudaMemset(de, 0, sizeof err));
  kmbar<<<2, 128>>>(de);
  CK(cudaGetLastError());
  CK(cudaMemcpy(err, de, sizeof err, cudaMemcpyDeviceToHost));
  printf("%-34s %s\n", "mbarrier.try_wait.parity phases", err[0] ? "mismatch" : "ok");
  printf("%-34s %s\n", "mbarrier expect_tx / complete_tx", err[1] ? "mismatch" : "ok");
  fails += (err[0] != 0) + (err[1] != 0);
  {
    std::vector<uint32_t> h(512), o(512);
    for (int i = 0; i < 512; ++i) h[i] = uint32_t(i * 2654435761u);
    uint32_t *din, *dout, e3[3];
    CK(cudaMalloc(&din, 2048)); CK(cudaMalloc(&dout, 2048));
    CK(cudaMemcpy(din, h.data(), 2048, cudaMemcpyHostToDevice));
    CK(cudaMemset(de, 0, sizeof err));
    kbulk<<<2, 64>>>(din, dout, de);
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), dout, 2048, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(e3, de, sizeof err, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 512; ++i) bad += o[i] != h[i] + 1;
    printf("%-34s %s\n", "cp.async.bulk g2s (mbarrier) + s2g", (bad || e3[2]) ? "mismatch" : "ok");
    fails += (bad || e3[2]) ? 1 : 0;
    cudaFree(din); cudaFree(dout);
  }
  printf(fails ? "FAILED\n" : "PASSED\n");
  return fails ? 1 : 0;
}
