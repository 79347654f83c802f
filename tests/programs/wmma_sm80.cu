// wmma_sm80: the sm_80 element types of the warp matrix API, built with -arch=sm_80 and run
// on the default GPU reporting compute capability 8.0 (tests/CMakeLists.txt): bf16 inputs
// (m16n16k16), tf32 inputs (m16n16k8, __float_to_tf32 on the fragment elements) and double
// (m8n8k4), each against a host reference; inputs are small multiples of 1/8 so every result
// is exact.
#include <cstdio>
#include <vector>
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int N, int K) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 1.0f);
  const int tm = blockIdx.y, tn = blockIdx.x;
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, A + tm * 16 * K + k, K);
    wmma::load_matrix_sync(fb, B + tn * 16 * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(D + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

__global__ void gemm_tf32(const float* A, const float* B, float* D, int N, int K) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  const int tm = blockIdx.y, tn = blockIdx.x;
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(fa, A + tm * 16 * K + k, K);
    wmma::load_matrix_sync(fb, B + k * N + tn * 16, N);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(D + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

__global__ void gemm_f64(const double* A, const double* B, const double* C, double* D, int N, int K) {
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  const int tm = blockIdx.y, tn = blockIdx.x, M = gridDim.y * 8;
  wmma::load_matrix_sync(acc, C + tn * 8 * M + tm * 8, M, wmma::mem_col_major);
  for (int k = 0; k < K; k += 4) {
    wmma::load_matrix_sync(fa, A + k * M + tm * 8, M);
    wmma::load_matrix_sync(fb, B + k * N + tn * 8, N);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(D + tn * 8 * M + tm * 8, acc, M, wmma::mem_col_major);
}

static float v(int i, int m, int o) { return float((i * m) % 13 - o) / 8; }

int main() {
  const int M = 32, N = 32, K = 32;
  // bf16: A row-major MxK, B col-major (B^T row-major NxK).
  {
    std::vector<__nv_bfloat16> a(M * K), b(N * K);
    std::vector<float> af(M * K), bf(N * K);
    for (int i = 0; i < M * K; ++i) { af[i] = v(i, 7, 6); a[i] = __float2bfloat16(af[i]); }
    for (int i = 0; i < N * K; ++i) { bf[i] = v(i, 5, 5); b[i] = __float2bfloat16(bf[i]); }
    __nv_bfloat16 *dA, *dB;
    float* dD;
    CK(cudaMalloc(&dA, M * K * 2)); CK(cudaMalloc(&dB, N * K * 2)); CK(cudaMalloc(&dD, M * N * 4));
    CK(cudaMemcpy(dA, a.data(), M * K * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b.data(), N * K * 2, cudaMemcpyHostToDevice));
    gemm_bf16<<<dim3(N / 16, M / 16), 32>>>(dA, dB, dD, N, K);
    CK(cudaGetLastError());
    std::vector<float> d(M * N);
    CK(cudaMemcpy(d.data(), dD, M * N * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        float s = 1.0f;
        for (int k = 0; k < K; ++k) s += af[i * K + k] * bf[j * K + k];
        if (d[i * N + j] != s) { printf("FAILED: bf16 D[%d][%d] = %g, expected %g\n", i, j, d[i * N + j], s); return 1; }
      }
    printf("bf16 D[0][0]=%g D[31][31]=%g\n", d[0], d[M * N - 1]);
  }
  // tf32: both row-major. Inputs with more mantissa bits than tf32 keeps are truncated by
  // __float_to_tf32 (round to nearest); the values here have few bits so rounding is exact.
  {
    std::vector<float> a(M * K), b(K * N);
    for (int i = 0; i < M * K; ++i) a[i] = v(i, 3, 6);
    for (int i = 0; i < K * N; ++i) b[i] = v(i, 11, 4);
    float *dA, *dB, *dD;
    CK(cudaMalloc(&dA, M * K * 4)); CK(cudaMalloc(&dB, K * N * 4)); CK(cudaMalloc(&dD, M * N * 4));
    CK(cudaMemcpy(dA, a.data(), M * K * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b.data(), K * N * 4, cudaMemcpyHostToDevice));
    gemm_tf32<<<dim3(N / 16, M / 16), 32>>>(dA, dB, dD, N, K);
    CK(cudaGetLastError());
    std::vector<float> d(M * N);
    CK(cudaMemcpy(d.data(), dD, M * N * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        float s = 0;
        for (int k = 0; k < K; ++k) s += a[i * K + k] * b[k * N + j];
        if (d[i * N + j] != s) { printf("FAILED: tf32 D[%d][%d] = %g, expected %g\n", i, j, d[i * N + j], s); return 1; }
      }
    printf("tf32 D[0][0]=%g D[31][31]=%g\n", d[0], d[M * N - 1]);
  }
  // f64: A col-major, B row-major, C/D col-major.
  {
    std::vector<double> a(M * K), b(K * N), c(M * N);
    for (int i = 0; i < M * K; ++i) a[i] = v(i, 7, 3) / 3.0;  // not representable in f32
    for (int i = 0; i < K * N; ++i) b[i] = v(i, 5, 2);
    for (int i = 0; i < M * N; ++i) c[i] = v(i, 2, 1);
    double *dA, *dB, *dC, *dD;
    CK(cudaMalloc(&dA, M * K * 8)); CK(cudaMalloc(&dB, K * N * 8));
    CK(cudaMalloc(&dC, M * N * 8)); CK(cudaMalloc(&dD, M * N * 8));
    CK(cudaMemcpy(dA, a.data(), M * K * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b.data(), K * N * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, c.data(), M * N * 8, cudaMemcpyHostToDevice));
    gemm_f64<<<dim3(N / 8, M / 8), 32>>>(dA, dB, dC, dD, N, K);
    CK(cudaGetLastError());
    std::vector<double> d(M * N);
    CK(cudaMemcpy(d.data(), dD, M * N * 8, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double s = c[j * M + i];
        for (int k = 0; k < K; ++k) s += a[k * M + i] * b[k * N + j];
        const double err = d[j * M + i] - s;
        worst = err > worst ? err : (-err > worst ? -err : worst);
      }
    if (worst > 1e-12) { printf("FAILED: f64 error %g\n", worst); return 1; }
    printf("f64 max error below 1e-12\n");
  }
  printf("PASSED\n");
  return 0;
}
