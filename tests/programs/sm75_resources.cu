// sm75_resources: what a program built for nvcc 13's default target (sm_75) may assume of the
// GPU, checked on the default preset (turing-t4):
//   1. a 1024-thread block of a kernel that needs 40+ registers per thread launches (64K
//      registers per SM; a Fermi-class 32K-register SM refuses it);
//   2. 64 KB of dynamic shared memory per block after the opt-in
//      cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize), and the same launch
//      without the opt-in fails with cudaErrorInvalidValue, as on a real cc 7.5 GPU;
//   3. the preferred carve-out attribute is accepted and read back.
// Every result is checked against a host reference; prints PASSED or FAILED.
#include <cstdio>
#include <vector>

#define CK(call)                                                              \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_));              \
      return 1;                                                               \
    }                                                                         \
  } while (0)

constexpr int kAcc = 40;

// kAcc accumulators live across the loop: the kernel needs more than kAcc registers.
__global__ void __launch_bounds__(1024) many_regs(const float* in, float* out, int iters) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[kAcc];
#pragma unroll
  for (int j = 0; j < kAcc; ++j) acc[j] = in[(t + j) % 4096];
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < kAcc; ++j) acc[j] = acc[j] * 0.5f + acc[(j + 1) % kAcc];
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < kAcc; ++j) s += acc[j] * float(j + 1);
  out[t] = s;
}

// Reverses `n` ints through dynamic shared memory (n * 4 bytes of it).
__global__ void reverse_smem(const int* in, int* out, int n) {
  extern __shared__ int buf[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = in[blockIdx.x * n + i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[blockIdx.x * n + i] = buf[n - 1 - i];
}

int main() {
  int dev = 0;
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, dev));
  printf("device: cc %d.%d, %d regs/SM, %zu B shared/block (opt-in %zu)\n", p.major, p.minor,
         p.regsPerMultiprocessor, p.sharedMemPerBlock, p.sharedMemPerBlockOptin);

  // 1. 1024 threads x 40+ registers.
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, many_regs));
  if (fa.numRegs < kAcc) {
    printf("FAILED: many_regs uses %d registers, the test needs >= %d\n", fa.numRegs, kAcc);
    return 1;
  }
  const int blocks = 2, threads = 1024, n = blocks * threads, iters = 3;
  std::vector<float> hin(4096), hout(n);
  for (int i = 0; i < 4096; ++i) hin[i] = float(i % 13) * 0.25f;
  float *din, *dout;
  CK(cudaMalloc(&din, 4096 * sizeof(float)));
  CK(cudaMalloc(&dout, n * sizeof(float)));
  CK(cudaMemcpy(din, hin.data(), 4096 * sizeof(float), cudaMemcpyHostToDevice));
  many_regs<<<blocks, threads>>>(din, dout, iters);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hout.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int t = 0; t < n; ++t) {
    float acc[kAcc];
    for (int j = 0; j < kAcc; ++j) acc[j] = hin[(t + j) % 4096];
    for (int i = 0; i < iters; ++i)
      for (int j = 0; j < kAcc; ++j) acc[j] = acc[j] * 0.5f + acc[(j + 1) % kAcc];
    float s = 0.f;
    for (int j = 0; j < kAcc; ++j) s += acc[j] * float(j + 1);
    if (hout[t] != s) {
      printf("FAILED: many_regs[%d] = %g, expected %g\n", t, hout[t], s);
      return 1;
    }
  }
  printf("many_regs: %d blocks x %d threads x %d registers OK\n", blocks, threads, fa.numRegs);

  // 2. 64 KB of dynamic shared memory: refused without the opt-in, accepted with it.
  const int words = 16384, sblocks = 3;  // 64 KB per block
  const size_t smem = words * sizeof(int);
  std::vector<int> hi(words * sblocks), ho(words * sblocks);
  for (int i = 0; i < words * sblocks; ++i) hi[i] = i * 7 + 1;
  int *di, *dn;
  CK(cudaMalloc(&di, hi.size() * sizeof(int)));
  CK(cudaMalloc(&dn, hi.size() * sizeof(int)));
  CK(cudaMemcpy(di, hi.data(), hi.size() * sizeof(int), cudaMemcpyHostToDevice));
  reverse_smem<<<sblocks, 256, smem>>>(di, dn, words);
  const cudaError_t refused = cudaGetLastError();
  if (refused != cudaErrorInvalidValue) {
    printf("FAILED: 64 KB without opt-in returned %s, expected cudaErrorInvalidValue\n",
           cudaGetErrorName(refused));
    return 1;
  }
  CK(cudaFuncSetAttribute(reverse_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  CK(cudaFuncSetAttribute(reverse_smem, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  CK(cudaFuncGetAttributes(&fa, reverse_smem));
  if (fa.maxDynamicSharedSizeBytes != int(smem) || fa.preferredShmemCarveout != 100) {
    printf("FAILED: attributes read back %d / %d\n", fa.maxDynamicSharedSizeBytes,
           fa.preferredShmemCarveout);
    return 1;
  }
  reverse_smem<<<sblocks, 256, smem>>>(di, dn, words);
  CK(cudaGetLastError());
  CK(cudaMemcpy(ho.data(), dn, ho.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < sblocks; ++b)
    for (int i = 0; i < words; ++i)
      if (ho[b * words + i] != hi[b * words + words - 1 - i]) {
        printf("FAILED: reverse_smem[%d][%d] = %d\n", b, i, ho[b * words + i]);
        return 1;
      }
  printf("reverse_smem: %d blocks x %zu B dynamic shared OK\n", sblocks, smem);
  printf("PASSED\n");
  return 0;
}
