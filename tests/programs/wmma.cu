// wmma: the warp matrix API (tensor cores) on sm_75 PTX. Tiled GEMMs with
//  - f16 inputs and f32 accumulators in every shape (m16n16k16, m32n8k16, m8n32k16) and every
//    a/b layout combination, C loaded as the initial accumulator and D stored row- or col-major
//  - f16 accumulators (fill_fragment, mma, store)
//  - tiles staged through shared memory
//  - element-wise fragment arithmetic (alpha/beta scaling over fragment.x[])
//  - s8 and u8 inputs with s32 accumulators
// Inputs are small multiples of 1/8 so every product and sum is exact in f16/f32; the host
// reference compares bit for bit.
#include <cstdio>
#include <vector>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

// D = alpha * A*B + beta * C for an MxN output, one warp per output tile. A is MxK, B is KxN;
// ROW_A/ROW_B choose their storage, ROW_C the storage of C and D.
template <int TM, int TN, int TK, bool ROW_A, bool ROW_B, bool ROW_C>
__global__ void gemm(const half* A, const half* B, const float* C, float* D, int M, int N, int K,
                     float alpha, float beta) {
  using LA = typename std::conditional<ROW_A, wmma::row_major, wmma::col_major>::type;
  using LB = typename std::conditional<ROW_B, wmma::row_major, wmma::col_major>::type;
  const wmma::layout_t lc = ROW_C ? wmma::mem_row_major : wmma::mem_col_major;
  const int tm = blockIdx.y, tn = blockIdx.x;
  wmma::fragment<wmma::matrix_a, TM, TN, TK, half, LA> fa;
  wmma::fragment<wmma::matrix_b, TM, TN, TK, half, LB> fb;
  wmma::fragment<wmma::accumulator, TM, TN, TK, float> acc, fc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += TK) {
    const half* a = ROW_A ? A + tm * TM * K + k : A + k * M + tm * TM;
    const half* b = ROW_B ? B + k * N + tn * TN : B + tn * TN * K + k;
    wmma::load_matrix_sync(fa, a, ROW_A ? K : M);
    wmma::load_matrix_sync(fb, b, ROW_B ? N : K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  const int ldc = ROW_C ? N : M;
  const size_t off = ROW_C ? size_t(tm) * TM * N + tn * TN : size_t(tn) * TN * M + tm * TM;
  wmma::load_matrix_sync(fc, C + off, ldc, lc);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i] + beta * fc.x[i];
  wmma::store_matrix_sync(D + off, acc, ldc, lc);
}

// f16 accumulator, A and B staged through shared memory (one 16x16x16 step per tile).
__global__ void gemm_f16acc_shared(const half* A, const half* B, half* D, int N, int K) {
  __shared__ half sa[16 * 16], sb[16 * 16];
  const int tm = blockIdx.y, tn = blockIdx.x, lane = threadIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;
  wmma::fill_fragment(acc, __float2half(0.5f));
  for (int k = 0; k < K; k += 16) {
    for (int i = lane; i < 256; i += 32) {
      sa[i] = A[(tm * 16 + i / 16) * K + k + i % 16];
      sb[i] = B[(k + i / 16) * N + tn * 16 + i % 16];
    }
    __syncwarp();
    wmma::load_matrix_sync(fa, sa, 16);
    wmma::load_matrix_sync(fb, sb, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncwarp();
  }
  wmma::store_matrix_sync(D + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

template <typename T>
__global__ void gemm_int(const T* A, const T* B, int* D, int N, int K) {
  const int tm = blockIdx.y, tn = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 7);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, A + tm * 16 * K + k, K);
    wmma::load_matrix_sync(fb, B + tn * 16 * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(D + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

static float va(int i) { return float((i * 7) % 11 - 5) / 8; }
static float vb(int i) { return float((i * 5) % 13 - 6) / 8; }
static float vc(int i) { return float((i * 3) % 7 - 3) / 4; }

template <int TM, int TN, int TK, bool RA, bool RB, bool RC>
static int run_gemm(const char* name, double* checksum) {
  const int M = 2 * 32, N = 2 * 32, K = 3 * 16;
  std::vector<float> a(M * K), b(K * N), c(M * N);
  std::vector<half> ah(M * K), bh(K * N);
  // Logical A[i][k], B[k][j], C[i][j]; stored per layout.
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      a[i * K + k] = va(i * K + k);
      ah[RA ? i * K + k : k * M + i] = __float2half(a[i * K + k]);
    }
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) {
      b[k * N + j] = vb(k * N + j);
      bh[RB ? k * N + j : j * K + k] = __float2half(b[k * N + j]);
    }
  std::vector<float> cs(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      c[i * N + j] = vc(i * N + j);
      cs[RC ? i * N + j : j * M + i] = c[i * N + j];
    }
  half *dA, *dB;
  float *dC, *dD;
  CK(cudaMalloc(&dA, M * K * 2)); CK(cudaMalloc(&dB, K * N * 2));
  CK(cudaMalloc(&dC, M * N * 4)); CK(cudaMalloc(&dD, M * N * 4));
  CK(cudaMemcpy(dA, ah.data(), M * K * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, bh.data(), K * N * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dC, cs.data(), M * N * 4, cudaMemcpyHostToDevice));
  gemm<TM, TN, TK, RA, RB, RC><<<dim3(N / TN, M / TM), 32>>>(dA, dB, dC, dD, M, N, K, 2.0f, -0.5f);
  CK(cudaGetLastError());
  std::vector<float> d(M * N);
  CK(cudaMemcpy(d.data(), dD, M * N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0;
      for (int k = 0; k < K; ++k) s += a[i * K + k] * b[k * N + j];
      const float want = 2.0f * s + -0.5f * c[i * N + j];
      const float got = d[RC ? i * N + j : j * M + i];
      if (got != want) {
        printf("FAILED: %s D[%d][%d] = %g, expected %g\n", name, i, j, got, want);
        return 1;
      }
      *checksum += got;
    }
  CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC)); CK(cudaFree(dD));
  return 0;
}

template <typename T>
static int run_int(const char* name, long long* checksum) {
  const int M = 32, N = 32, K = 64;
  std::vector<T> a(M * K), bcol(N * K);
  for (int i = 0; i < M * K; ++i) a[i] = T((i * 37) % 255 - (T(-1) < 0 ? 127 : 0));
  for (int i = 0; i < N * K; ++i) bcol[i] = T((i * 91) % 255 - (T(-1) < 0 ? 127 : 0));
  T *dA, *dB;
  int* dD;
  CK(cudaMalloc(&dA, M * K)); CK(cudaMalloc(&dB, N * K)); CK(cudaMalloc(&dD, M * N * 4));
  CK(cudaMemcpy(dA, a.data(), M * K, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, bcol.data(), N * K, cudaMemcpyHostToDevice));
  gemm_int<T><<<dim3(N / 16, M / 16), 32>>>(dA, dB, dD, N, K);
  CK(cudaGetLastError());
  std::vector<int> d(M * N);
  CK(cudaMemcpy(d.data(), dD, M * N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      int s = 7;
      for (int k = 0; k < K; ++k) s += int(a[i * K + k]) * int(bcol[j * K + k]);
      if (d[i * N + j] != s) { printf("FAILED: %s D[%d][%d] = %d, expected %d\n", name, i, j, d[i * N + j], s); return 1; }
      *checksum += s;
    }
  CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dD));
  return 0;
}

int main() {
  double sum = 0;
  if (run_gemm<16, 16, 16, true, false, true>("m16n16k16 row.col", &sum)) return 1;
  if (run_gemm<16, 16, 16, false, true, false>("m16n16k16 col.row", &sum)) return 1;
  if (run_gemm<16, 16, 16, true, true, false>("m16n16k16 row.row", &sum)) return 1;
  if (run_gemm<16, 16, 16, false, false, true>("m16n16k16 col.col", &sum)) return 1;
  if (run_gemm<32, 8, 16, true, false, true>("m32n8k16", &sum)) return 1;
  if (run_gemm<8, 32, 16, false, true, false>("m8n32k16", &sum)) return 1;

  // f16 accumulators through shared memory.
  const int M = 32, N = 32, K = 32;
  std::vector<half> a(M * K), b(K * N);
  std::vector<float> af(M * K), bf(K * N);
  for (int i = 0; i < M * K; ++i) { af[i] = va(i) / 2; a[i] = __float2half(af[i]); }
  for (int i = 0; i < K * N; ++i) { bf[i] = vb(i); b[i] = __float2half(bf[i]); }
  half *dA, *dB, *dD;
  CK(cudaMalloc(&dA, M * K * 2)); CK(cudaMalloc(&dB, K * N * 2)); CK(cudaMalloc(&dD, M * N * 2));
  CK(cudaMemcpy(dA, a.data(), M * K * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, b.data(), K * N * 2, cudaMemcpyHostToDevice));
  gemm_f16acc_shared<<<dim3(N / 16, M / 16), 32>>>(dA, dB, dD, N, K);
  CK(cudaGetLastError());
  std::vector<half> d(M * N);
  CK(cudaMemcpy(d.data(), dD, M * N * 2, cudaMemcpyDeviceToHost));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.5f;
      for (int k = 0; k < K; ++k) s += af[i * K + k] * bf[k * N + j];
      if (__half2float(d[i * N + j]) != s) {
        printf("FAILED: f16 accumulator D[%d][%d] = %g, expected %g\n", i, j, __half2float(d[i * N + j]), s);
        return 1;
      }
      sum += s;
    }
  long long isum = 0;
  if (run_int<signed char>("s8", &isum)) return 1;
  if (run_int<unsigned char>("u8", &isum)) return 1;
  printf("wmma: checksum %.4f, integer checksum %lld\n", sum, isum);
  printf("PASSED\n");
  return 0;
}
