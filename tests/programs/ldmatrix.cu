// ldmatrix: ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 with inline PTX (sm_80).
// Part 1 checks every destination register of every lane against the PTX ISA rule (threads
// 8j..8j+7 give the row addresses of matrix j; lane l gets row l/4, columns 2(l%4) and
// 2(l%4)+1 of matrix j, or with .trans rows 2(l%4), 2(l%4)+1 of column l/4), with rows given
// in a scrambled order. Part 2 feeds ldmatrix.x4 (A) and ldmatrix.x2.trans (B) into
// mma.sync.m16n8k16 and compares the product with the host's, so the ldmatrix and mma fragment
// layouts must agree with each other. Built with -arch=sm_80, run with gpu.cc_major=8.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_fp16.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

// Shared tile: 32 rows of 8 b16 values; value of (row, col) = row * 8 + col + 1.
// Lane t supplies the address of tile row perm(t) = (t * 5 + 3) % 32.
__host__ __device__ inline int perm(int t) { return (t * 5 + 3) % 32; }

template <int X, bool T>
__global__ void kld(uint32_t* out) {
  __shared__ __align__(16) uint16_t tile[32 * 8];
  const int l = threadIdx.x;
  for (int c = 0; c < 8; ++c) tile[l * 8 + c] = uint16_t(l * 8 + c + 1);
  __syncthreads();
  const uint32_t addr = uint32_t(__cvta_generic_to_shared(&tile[perm(l) * 8]));
  uint32_t r[4] = {0, 0, 0, 0};
  if (X == 1 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  if (X == 2 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  if (X == 4 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  if (X == 1 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  if (X == 2 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  if (X == 4 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  for (int j = 0; j < 4; ++j) out[l * 4 + j] = r[j];
}

template <int X, bool T>
static int check(const char* name) {
  uint32_t* d;
  CK(cudaMalloc(&d, 32 * 4 * 4));
  CK(cudaMemset(d, 0, 32 * 4 * 4));
  kld<X, T><<<1, 32>>>(d);
  CK(cudaGetLastError());
  std::vector<uint32_t> h(32 * 4);
  CK(cudaMemcpy(h.data(), d, h.size() * 4, cudaMemcpyDeviceToHost));
  cudaFree(d);
  int bad = 0;
  auto val = [](int row, int col) { return uint32_t(row * 8 + col + 1); };
  for (int l = 0; l < 32; ++l)
    for (int j = 0; j < 4; ++j) {
      uint32_t want = 0;
      if (j < X) {
        if (!T) {
          const int row = perm(8 * j + l / 4), col = 2 * (l % 4);
          want = val(row, col) | val(row, col + 1) << 16;
        } else {
          const int r0 = perm(8 * j + 2 * (l % 4)), r1 = perm(8 * j + 2 * (l % 4) + 1);
          want = val(r0, l / 4) | val(r1, l / 4) << 16;
        }
      }
      if (h[l * 4 + j] != want) {
        if (bad < 4) printf("  %s: lane %d reg %d = %#x, expected %#x\n", name, l, j, h[l * 4 + j], want);
        ++bad;
      }
    }
  printf("%-28s %s\n", name, bad ? "mismatch" : "ok");
  return bad ? 1 : 0;
}

// Part 2: D(16x8, f32) = A(16x16 f16, row-major) * B(16x8 f16, row-major) + 0.
__global__ void kgemm(const __half* A, const __half* B, float* D) {
  __shared__ __align__(16) __half sa[16 * 16];
  __shared__ __align__(16) __half sb[16 * 8];
  const int l = threadIdx.x;
  for (int i = l; i < 256; i += 32) sa[i] = A[i];
  for (int i = l; i < 128; i += 32) sb[i] = B[i];
  __syncthreads();
  // A: matrices (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols 8-15), (8-15, 8-15).
  const uint32_t pa = uint32_t(__cvta_generic_to_shared(&sa[(l % 16) * 16 + (l / 16) * 8]));
  // B: rows k = 0..15 of B; .trans makes the columns (n) the fragment's rows.
  const uint32_t pb = uint32_t(__cvta_generic_to_shared(&sb[(l % 16) * 8]));
  uint32_t a[4], b[2];
  float d[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
  const float z = 0.f;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(z));
  const int g = l >> 2, t = l & 3;
  D[g * 8 + 2 * t] = d[0];
  D[g * 8 + 2 * t + 1] = d[1];
  D[(g + 8) * 8 + 2 * t] = d[2];
  D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

static int gemm() {
  std::vector<__half> A(256), B(128);
  std::vector<float> ref(128, 0.f), D(128);
  for (int i = 0; i < 256; ++i) A[i] = __float2half(float((i * 7) % 9 - 4));
  for (int i = 0; i < 128; ++i) B[i] = __float2half(float((i * 5) % 7 - 3));
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n)
      for (int k = 0; k < 16; ++k) ref[r * 8 + n] += __half2float(A[r * 16 + k]) * __half2float(B[k * 8 + n]);
  __half *dA, *dB;
  float* dD;
  CK(cudaMalloc(&dA, 512)); CK(cudaMalloc(&dB, 256)); CK(cudaMalloc(&dD, 512));
  CK(cudaMemcpy(dA, A.data(), 512, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, B.data(), 256, cudaMemcpyHostToDevice));
  kgemm<<<1, 32>>>(dA, dB, dD);
  CK(cudaGetLastError());
  CK(cudaMemcpy(D.data(), dD, 512, cudaMemcpyDeviceToHost));
  cudaFree(dA); cudaFree(dB); cudaFree(dD);
  int bad = 0;
  for (int i = 0; i < 128; ++i)
    if (D[i] != ref[i]) {
      if (bad < 4) printf("  gemm: D[%d][%d] = %g, expected %g\n", i / 8, i % 8, D[i], ref[i]);
      ++bad;
    }
  printf("%-28s %s\n", "ldmatrix + mma.m16n8k16", bad ? "mismatch" : "ok");
  return bad ? 1 : 0;
}

int main() {
  int fails = 0;
  fails += check<1, false>("ldmatrix.x1");
  fails += check<2, false>("ldmatrix.x2");
  fails += check<4, false>("ldmatrix.x4");
  fails += check<1, true>("ldmatrix.x1.trans");
  fails += check<2, true>("ldmatrix.x2.trans");
  fails += check<4, true>("ldmatrix.x4.trans");
  fails += gemm();
  printf(fails ? "FAILED\n" : "PASSED\n");
  return fails ? 1 : 0;
}
