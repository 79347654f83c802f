// cp_async: cp.async global->shared copies with inline PTX (sm_80).
// Part 1: every copy form: .ca with 4/8/16 bytes, .cg with 16, src-size zero fill, and the
// ignore-src predicate form; each thread's shared destination is checked byte by byte.
// Part 2: a 3-stage software-pipelined SGEMM (64x64x128, 16x16 output tile per 256-thread
// block, 16-wide K slices): the loads of slice s+2 are issued (cp.async + commit_group) while
// slice s is computed after cp.async.wait_group 1 (wait_all at the end); integer-valued inputs
// make the result exact. Built with -arch=sm_80, run with gpu.cc_major=8.
#include <cstdint>
#include <cstdio>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ inline uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// Part 1: out[t * 16 .. +16) = the 16 shared bytes thread t's copy wrote (0xee where untouched).
__global__ void kforms(const uint8_t* src, uint8_t* out) {
  __shared__ __align__(16) uint8_t s[128 * 16];
  const int t = threadIdx.x;  // 128 threads: 8 forms x 16 threads
  for (int i = 0; i < 16; ++i) s[t * 16 + i] = 0xee;
  __syncthreads();
  const uint32_t d = smem(&s[t * 16]);
  const uint8_t* g = src + t * 16;
  const int form = t / 16;
  const int ssz = t % 16;  // src-size for the zero-fill forms
  const bool ignore = (t & 1) != 0;
  switch (form) {
    case 0: asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d), "l"(g)); break;
    case 1: asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(d), "l"(g)); break;
    case 2: asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(d), "l"(g)); break;
    case 3: asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(g)); break;
    case 4: asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(d), "l"(g), "r"(ssz)); break;
    case 5: asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(d), "l"(g), "r"(ssz & 7)); break;
    case 6:
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %2, 0;\n"
                   "  cp.async.ca.shared.global [%0], [%1], 16, p; }" :: "r"(d), "l"(g), "r"(int(ignore)));
      break;
    default: asm volatile("cp.async.ca.shared::cta.global.L2::128B [%0], [%1], 16;" :: "r"(d), "l"(g)); break;
  }
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;");
  __syncthreads();
  for (int i = 0; i < 16; ++i) out[t * 16 + i] = s[t * 16 + i];
}

static int forms() {
  std::vector<uint8_t> src(128 * 16), out(128 * 16);
  for (int i = 0; i < 128 * 16; ++i) src[i] = uint8_t(i * 7 + 1);
  uint8_t *dsrc, *dout;
  CK(cudaMalloc(&dsrc, src.size())); CK(cudaMalloc(&dout, out.size()));
  CK(cudaMemcpy(dsrc, src.data(), src.size(), cudaMemcpyHostToDevice));
  kforms<<<1, 128>>>(dsrc, dout);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out.data(), dout, out.size(), cudaMemcpyDeviceToHost));
  cudaFree(dsrc); cudaFree(dout);
  int bad = 0;
  for (int t = 0; t < 128; ++t) {
    const int form = t / 16, ssz = t % 16;
    const int cp = form == 0 ? 4 : (form == 1 || form == 5) ? 8 : 16;
    int n = cp;  // bytes copied from global; the rest of cp zero-filled
    if (form == 4) n = ssz;
    if (form == 5) n = ssz & 7;
    if (form == 6) n = (t & 1) ? 0 : 16;
    for (int i = 0; i < 16; ++i) {
      const uint8_t want = i < n ? src[t * 16 + i] : i < cp ? 0 : 0xee;
      if (out[t * 16 + i] != want) {
        if (bad < 4) printf("  form %d thread %d byte %d = %#x, expected %#x\n", form, t, i, out[t * 16 + i], want);
        ++bad;
      }
    }
  }
  printf("%-34s %s\n", "cp.async forms", bad ? "mismatch" : "ok");
  return bad ? 1 : 0;
}

// Part 2: C (M x N) = A (M x K) * B (K x N), row-major floats.
constexpr int M = 64, N = 64, K = 128, T = 16, STAGES = 3;

__device__ inline void load_slice(float (*sa)[T], float (*sb)[T], const float* A, const float* B,
                                  int bm, int bn, int k0) {
  // 256 threads: threads 0-63 copy A's 16x16 slice, 64-127 B's, 16 bytes (4 floats) each.
  const int t = threadIdx.x;
  if (t < 64) {
    const int r = t / 4, c = (t % 4) * 4;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem(&sa[r][c])), "l"(A + (bm + r) * K + k0 + c));
  } else if (t < 128) {
    const int r = (t - 64) / 4, c = (t % 4) * 4;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(smem(&sb[r][c])), "l"(B + (k0 + r) * N + bn + c));
  }
}

__global__ void kgemm(const float* A, const float* B, float* C) {
  __shared__ __align__(16) float sa[STAGES][T][T];
  __shared__ __align__(16) float sb[STAGES][T][T];
  const int bm = blockIdx.y * T, bn = blockIdx.x * T;
  const int ty = threadIdx.x / T, tx = threadIdx.x % T;
  constexpr int S = K / T;
  for (int s = 0; s < STAGES - 1; ++s) {
    load_slice(sa[s], sb[s], A, B, bm, bn, s * T);
    asm volatile("cp.async.commit_group;");
  }
  float acc = 0.f;
  for (int s = 0; s < S; ++s) {
    const int next = s + STAGES - 1;
    if (next < S) load_slice(sa[next % STAGES], sb[next % STAGES], A, B, bm, bn, next * T);
    asm volatile("cp.async.commit_group;");  // (an empty group near the end)
    asm volatile("cp.async.wait_group %0;" :: "n"(STAGES - 1));
    __syncthreads();
    const int st = s % STAGES;
    for (int k = 0; k < T; ++k) acc += sa[st][ty][k] * sb[st][k][tx];
    __syncthreads();
  }
  asm volatile("cp.async.wait_all;");
  C[(bm + ty) * N + bn + tx] = acc;
}

static int gemm() {
  std::vector<float> A(M * K), B(K * N), C(M * N), ref(M * N, 0.f);
  for (int i = 0; i < M * K; ++i) A[i] = float((i * 7) % 11 - 5);
  for (int i = 0; i < K * N; ++i) B[i] = float((i * 3) % 7 - 3);
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < N; ++c) ref[r * N + c] += A[r * K + k] * B[k * N + c];
  float *dA, *dB, *dC;
  CK(cudaMalloc(&dA, A.size() * 4)); CK(cudaMalloc(&dB, B.size() * 4)); CK(cudaMalloc(&dC, C.size() * 4));
  CK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  kgemm<<<dim3(N / T, M / T), T * T>>>(dA, dB, dC);
  CK(cudaGetLastError());
  CK(cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost));
  cudaFree(dA); cudaFree(dB); cudaFree(dC);
  int bad = 0;
  for (int i = 0; i < M * N; ++i)
    if (C[i] != ref[i]) {
      if (bad < 4) printf("  C[%d][%d] = %g, expected %g\n", i / N, i % N, C[i], ref[i]);
      ++bad;
    }
  printf("%-34s %s\n", "3-stage cp.async SGEMM 64x64x128", bad ? "mismatch" : "ok");
  return bad ? 1 : 0;
}

int main() {
  int fails = forms();
  fails += gemm();
  printf(fails ? "FAILED\n" : "PASSED\n");
  return fails ? 1 : 0;
}
