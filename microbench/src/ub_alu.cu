// Dependent-chain latency of arithmetic instructions (Jia et al. 2018, Sec. "Instruction latency":
// a chain of instructions each reading the previous result, timed with the SM clock).
//
// Method (one warp, all lanes active): a warm-up chain of kWarm instructions, then
//   t0 = clock64(); chain of kN dependent instructions; t1 = clock64();
// The warm-up chain ends just before t0 is read, so the first timed instruction waits one full
// latency after the last warm-up one: in an in-order pipeline t1 - t0 = kN x latency exactly
// (the second clock read issues the cycle after the last timed instruction). The value reported
// is (t1 - t0) / kN in cycles; the kernel runs the measured code twice in a loop and keeps the
// second pass (the first one warms the SM's instruction cache). Operands other than the chained
// register are immediates (floating point; cannot be folded without fast-math) or kernel parameters
// (integer; ptxas would fold add-immediate chains), so one register is read per instruction (fp)
// and the chain has no register-bank conflicts of its own.
//   ubench alu.<op> <cycles/instruction> cycles
//   ubench alu.<op>.raw <t1 - t0> cycles          (for kN instructions)
//   ubench clock.overhead <t1 - t0 with nothing between> cycles
#include "ub.h"

constexpr int kWarm = 8;
constexpr int kN = 64;

#define UB_CHAIN_KERNEL(NAME, T, C, INSTR)                                                        \
  __global__ void NAME(T* io, long long* dt, unsigned a, unsigned b) {                            \
    T x = io[threadIdx.x];                                                                        \
    long long d = 0;                                                                              \
    _Pragma("unroll 1") for (int rep = 0; rep < 2; ++rep) {                                       \
      _Pragma("unroll") for (int i = 0; i < kWarm;                                                \
                             ++i) asm volatile(INSTR : C(x) : "r"(a), "r"(b));                    \
      long long t0 = clock64();                                                                   \
      _Pragma("unroll") for (int i = 0; i < kN; ++i) asm volatile(INSTR : C(x) : "r"(a), "r"(b)); \
      long long t1 = clock64();                                                                   \
      d = t1 - t0;                                                                                \
    }                                                                                             \
    io[threadIdx.x] = x;                                                                          \
    if (threadIdx.x == 0) dt[0] = d;                                                              \
  }

// %0 is the chained register, %1 and %2 are the integer kernel parameters a and b.
UB_CHAIN_KERNEL(k_fadd, float, "+f", "add.f32 %0, %0, 0f3F800001;")
UB_CHAIN_KERNEL(k_fmul, float, "+f", "mul.f32 %0, %0, 0f3F800001;")
UB_CHAIN_KERNEL(k_ffma, float, "+f", "fma.rn.f32 %0, %0, 0f3F800001, 0f3F800000;")
UB_CHAIN_KERNEL(k_iadd, unsigned, "+r", "add.u32 %0, %0, %1;")
UB_CHAIN_KERNEL(k_imad, unsigned, "+r", "mad.lo.u32 %0, %0, %1, %2;")
UB_CHAIN_KERNEL(k_sin, float, "+f", "sin.approx.f32 %0, %0;")
UB_CHAIN_KERNEL(k_ex2, float, "+f", "ex2.approx.ftz.f32 %0, %0;")
UB_CHAIN_KERNEL(k_rsqrt, float, "+f", "rsqrt.approx.f32 %0, %0;")
UB_CHAIN_KERNEL(k_dadd, double, "+d", "add.f64 %0, %0, 0d3FF0000000000001;")
UB_CHAIN_KERNEL(k_dfma, double, "+d", "fma.rn.f64 %0, %0, 0d3FF0000000000001, 0d3FF0000000000000;")

__global__ void k_clock(long long* dt) {
  long long t0 = clock64();
  long long t1 = clock64();
  if (threadIdx.x == 0) dt[0] = t1 - t0;
}

template <typename T>
static void run_chain(int argc, char** argv, const char* op,
                      void (*kern)(T*, long long*, unsigned, unsigned)) {
  if (!ub_selected(argc, argv, op)) return;
  T* io;
  long long* dt;
  UB_CHECK(cudaMalloc(&io, 32 * sizeof(T)));
  UB_CHECK(cudaMalloc(&dt, sizeof(long long)));
  T init[32];
  for (int i = 0; i < 32; ++i) init[i] = T(1 + i % 3);
  UB_CHECK(cudaMemcpy(io, init, sizeof init, cudaMemcpyHostToDevice));
  long long d = 0;
  kern<<<1, 32>>>(io, dt, 3u, 5u);
  UB_CHECK(cudaGetLastError());
  UB_CHECK(cudaMemcpy(&d, dt, sizeof d, cudaMemcpyDeviceToHost));
  char name[64];
  std::snprintf(name, sizeof name, "alu.%s", op);
  ub_print(name, double(d) / kN, "cycles");
  std::snprintf(name, sizeof name, "alu.%s.raw", op);
  ub_print(name, double(d), "cycles");
  UB_CHECK(cudaFree(io));
  UB_CHECK(cudaFree(dt));
}

int main(int argc, char** argv) {
  std::printf(
      "# ub_alu: dependent chains of %d instructions after a %d-instruction warm-up chain\n", kN,
      kWarm);
  run_chain<float>(argc, argv, "fadd", k_fadd);
  run_chain<float>(argc, argv, "fmul", k_fmul);
  run_chain<float>(argc, argv, "ffma", k_ffma);
  run_chain<unsigned>(argc, argv, "iadd", k_iadd);
  run_chain<unsigned>(argc, argv, "imad", k_imad);
  run_chain<float>(argc, argv, "sin", k_sin);
  run_chain<float>(argc, argv, "ex2", k_ex2);
  run_chain<float>(argc, argv, "rsqrt", k_rsqrt);
  run_chain<double>(argc, argv, "dadd", k_dadd);
  run_chain<double>(argc, argv, "dfma", k_dfma);
  if (ub_selected(argc, argv, "clock")) {
    long long* dt;
    long long d = 0;
    UB_CHECK(cudaMalloc(&dt, sizeof(long long)));
    for (int rep = 0; rep < 2; ++rep) {
      k_clock<<<1, 32>>>(dt);
      UB_CHECK(cudaMemcpy(&d, dt, sizeof d, cudaMemcpyDeviceToHost));
    }
    ub_print("clock.overhead", double(d), "cycles");
    UB_CHECK(cudaFree(dt));
  }
  return 0;
}
