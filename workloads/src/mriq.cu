// mriq: the Q matrix of non-Cartesian MRI reconstruction (Stone et al., "Accelerating advanced
// MRI reconstruction on GPUs", 2008). For every image-space point x_n:
//   Q(x_n) = sum_m |phi(k_m)|^2 * exp(i * 2*pi * k_m . x_n)
// Two kernels, as in the Parboil application:
//  * ComputePhiMag_GPU: |phi(k_m)|^2 = phiR^2 + phiI^2, one thread per k-space sample;
//  * ComputeQ_GPU: one thread per image point; the k-space samples (kx, ky, kz, phiMag) are
//    copied to __constant__ memory in chunks of 1024 and each launch adds one chunk's
//    contribution to Qr/Qi (accumulated in registers, read and written once per launch).
// Analog of: Parboil mri-q, kernels ComputePhiMag_GPU (thesis Table 4.3 #10, MR1) and
// ComputeQ_GPU (thesis Table 2.1, Ch. 2 Set-1; Table 4.3 #11, MR2).
// Profile: ComputeQ_GPU 256 threads and 24 registers (thesis Table 2.1; 5 blocks/SM in Table
// 2.6, i.e. 21..24 registers on fermi-c2050), no shared memory, 1024 k-space samples of
// 16 B per constant chunk (Parboil's published KERNEL_Q_THREADS_PER_BLOCK 256 and
// KERNEL_Q_K_ELEMS_PER_GRID 1024); ComputePhiMag_GPU 512 threads per block (Parboil's
// KERNEL_PHI_MAG_THREADS_PER_BLOCK), no shared memory.
// Sine/cosine use the SFU intrinsics __sinf/__cosf: with the accurate sinf/cosf ptxas (sm_75)
// needs 30 registers and a local-memory stack for the slow range reduction, and each sample
// costs ~78 instructions instead of ~14. ptxas then uses 25 registers (the loop is unrolled
// by 4); the file caps it at 24 with -maxrregcount=24 (no spills), giving 5 blocks/SM.
// Usage: mriq [numX] [numK]   (defaults 17920 points = 70 blocks of 256, i.e. 5 per SM, and
//        128 samples, one constant chunk; scaled run 32768 3072: 3 chunks of 1024)
// Check: phiMag exact (phiR, phiI have 12 significant bits, so the squares are exact and FMA
//        contraction cannot change the sum); Qr, Qi against a double-precision CPU reference
//        within 4e-6 * numK absolute: k in [-0.5,0.5)^3 and x in [-1/3,1/3)^3 keep the phase
//        in [-pi, pi], where __sinf/__cosf are within 2^-21.4 absolute; each term is at most
//        2 * (that + the float phase error), summed over numK terms.
// nvcc-flags: -maxrregcount=24
#include <cmath>
#include <vector>

#include "wl.h"

#define KERNEL_PHI_MAG_THREADS_PER_BLOCK 512
#define KERNEL_Q_THREADS_PER_BLOCK 256
#define KERNEL_Q_K_ELEMS_PER_GRID 1024
#define PIx2 6.2831853071795864769252867665590058f

struct kValues {
  float Kx, Ky, Kz, PhiMag;
};

__constant__ kValues ck[KERNEL_Q_K_ELEMS_PER_GRID];

__global__ void ComputePhiMag_GPU(const float* phiR, const float* phiI, float* phiMag, int numK) {
  const int i = blockIdx.x * KERNEL_PHI_MAG_THREADS_PER_BLOCK + threadIdx.x;
  if (i < numK) {
    const float r = phiR[i], im = phiI[i];
    phiMag[i] = r * r + im * im;
  }
}

// Adds samples [kGlobalIndex, min(numK, kGlobalIndex + 1024)) from ck to Qr/Qi.
__global__ void ComputeQ_GPU(int numK, int kGlobalIndex, const float* x, const float* y,
                             const float* z, float* Qr, float* Qi) {
  const int xIndex = blockIdx.x * KERNEL_Q_THREADS_PER_BLOCK + threadIdx.x;
  const float sx = x[xIndex], sy = y[xIndex], sz = z[xIndex];
  float sQr = Qr[xIndex], sQi = Qi[xIndex];
  for (int kIndex = 0; kIndex < KERNEL_Q_K_ELEMS_PER_GRID && kGlobalIndex < numK;
       ++kIndex, ++kGlobalIndex) {
    const float expArg = PIx2 * (ck[kIndex].Kx * sx + ck[kIndex].Ky * sy + ck[kIndex].Kz * sz);
    sQr += ck[kIndex].PhiMag * __cosf(expArg);
    sQi += ck[kIndex].PhiMag * __sinf(expArg);
  }
  Qr[xIndex] = sQr;
  Qi[xIndex] = sQi;
}

int main(int argc, char** argv) {
  const int numX = int(wl::arg_int(argc, argv, 1, 17920, 1, 1 << 26));
  const int numK = int(wl::arg_int(argc, argv, 2, 128, 1, 1 << 24));
  if (numX % KERNEL_Q_THREADS_PER_BLOCK) {
    std::printf("FAILED: numX must be a multiple of %d\n", KERNEL_Q_THREADS_PER_BLOCK);
    return 1;
  }
  // Sample positions in [-0.5, 0.5)^3 (k-space in cycles per field of view, image space in
  // fields of view), so |2*pi*k.x| <= 3*pi/2.
  std::vector<float> kx(numK), ky(numK), kz(numK), phiR(numK), phiI(numK);
  std::vector<float> x(numX), y(numX), z(numX);
  wl::Rng rk(31), rp(32), rx(33);
  for (int m = 0; m < numK; ++m) {
    kx[m] = rk.unit() - 0.5f;
    ky[m] = rk.unit() - 0.5f;
    kz[m] = rk.unit() - 0.5f;
    phiR[m] = float(rp.range(-2048, 2047)) / 2048.0f;
    phiI[m] = float(rp.range(-2048, 2047)) / 2048.0f;
  }
  for (int n = 0; n < numX; ++n) {
    x[n] = (rx.unit() - 0.5f) * (2.0f / 3.0f);
    y[n] = (rx.unit() - 0.5f) * (2.0f / 3.0f);
    z[n] = (rx.unit() - 0.5f) * (2.0f / 3.0f);
  }

  float *d_phiR, *d_phiI, *d_phiMag, *d_x, *d_y, *d_z, *d_Qr, *d_Qi;
  const size_t kb = size_t(numK) * sizeof(float), xb = size_t(numX) * sizeof(float);
  WL_CK(cudaMalloc(&d_phiR, kb));
  WL_CK(cudaMalloc(&d_phiI, kb));
  WL_CK(cudaMalloc(&d_phiMag, kb));
  WL_CK(cudaMalloc(&d_x, xb));
  WL_CK(cudaMalloc(&d_y, xb));
  WL_CK(cudaMalloc(&d_z, xb));
  WL_CK(cudaMalloc(&d_Qr, xb));
  WL_CK(cudaMalloc(&d_Qi, xb));
  WL_CK(cudaMemcpy(d_phiR, phiR.data(), kb, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_phiI, phiI.data(), kb, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_x, x.data(), xb, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_y, y.data(), xb, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_z, z.data(), xb, cudaMemcpyHostToDevice));
  WL_CK(cudaMemset(d_Qr, 0, xb));
  WL_CK(cudaMemset(d_Qi, 0, xb));

  const int phi_blocks = (numK + KERNEL_PHI_MAG_THREADS_PER_BLOCK - 1) /
                         KERNEL_PHI_MAG_THREADS_PER_BLOCK;
  ComputePhiMag_GPU<<<phi_blocks, KERNEL_PHI_MAG_THREADS_PER_BLOCK>>>(d_phiR, d_phiI, d_phiMag,
                                                                      numK);
  WL_CK_LAUNCH();
  std::vector<float> phiMag(numK), ref_phiMag(numK);
  WL_CK(cudaMemcpy(phiMag.data(), d_phiMag, kb, cudaMemcpyDeviceToHost));
  for (int m = 0; m < numK; ++m) ref_phiMag[m] = phiR[m] * phiR[m] + phiI[m] * phiI[m];
  bool ok = wl::check_equal("phiMag", phiMag.data(), ref_phiMag.data(), size_t(numK));

  // Host packs the samples into kValues and sends them 1024 at a time.
  std::vector<kValues> kv(numK);
  for (int m = 0; m < numK; ++m) kv[m] = {kx[m], ky[m], kz[m], phiMag[m]};
  int launches = 0;
  for (int start = 0; start < numK; start += KERNEL_Q_K_ELEMS_PER_GRID) {
    const int n = std::min(KERNEL_Q_K_ELEMS_PER_GRID, numK - start);
    WL_CK(cudaMemcpyToSymbol(ck, kv.data() + start, size_t(n) * sizeof(kValues)));
    ComputeQ_GPU<<<numX / KERNEL_Q_THREADS_PER_BLOCK, KERNEL_Q_THREADS_PER_BLOCK>>>(
        numK, start, d_x, d_y, d_z, d_Qr, d_Qi);
    WL_CK_LAUNCH();
    ++launches;
  }
  std::vector<float> Qr(numX), Qi(numX), ref_Qr(numX), ref_Qi(numX);
  WL_CK(cudaMemcpy(Qr.data(), d_Qr, xb, cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(Qi.data(), d_Qi, xb, cudaMemcpyDeviceToHost));
  const double two_pi = 6.2831853071795864769252867665590058;
  for (int n = 0; n < numX; ++n) {
    double qr = 0, qi = 0;
    for (int m = 0; m < numK; ++m) {
      const double arg =
          two_pi * (double(kx[m]) * x[n] + double(ky[m]) * y[n] + double(kz[m]) * z[n]);
      qr += double(ref_phiMag[m]) * std::cos(arg);
      qi += double(ref_phiMag[m]) * std::sin(arg);
    }
    ref_Qr[n] = float(qr);
    ref_Qi[n] = float(qi);
  }
  std::printf("mriq numX=%d numK=%d q_blocks=%d q_launches=%d phimag_blocks=%d\n", numX, numK,
              numX / KERNEL_Q_THREADS_PER_BLOCK, launches, phi_blocks);
  const double atol = 4e-6 * numK;
  ok = ok && wl::check_close("Qr", Qr.data(), ref_Qr.data(), size_t(numX), 0.0, atol);
  ok = ok && wl::check_close("Qi", Qi.data(), ref_Qi.data(), size_t(numX), 0.0, atol);
  WL_CK(cudaFree(d_phiR));
  WL_CK(cudaFree(d_phiI));
  WL_CK(cudaFree(d_phiMag));
  WL_CK(cudaFree(d_x));
  WL_CK(cudaFree(d_y));
  WL_CK(cudaFree(d_z));
  WL_CK(cudaFree(d_Qr));
  WL_CK(cudaFree(d_Qi));
  return wl::finish(ok);
}
