// simtlab_microbench: Google Benchmark microbenchmarks of the simulator's hot paths, without
// the CUDA runtime shim or nvcc in the loop.
//
//   BM_PtxParse/<kernels>       ptx::parse_module() of a generated module (<kernels> kernels of
//                               ~300 instructions each: integer/FP arithmetic, predicates,
//                               branches, global/shared memory, conversions)
//   BM_ModuleLoad/<kernels>     the same module through func::LoadedModule (parse + module
//                               variables) and decoding of every kernel
//   BM_FuncAlu/<ctas>           functional execution (func::step via Device::launch) of an
//                               FMA + integer loop, 256-thread CTAs
//   BM_FuncMemory/<ctas>        functional execution of a grid-stride float copy/scale loop
//   BM_FuncDivergent/<ctas>     functional execution of a loop with per-lane trip counts and a
//                               data-dependent if/else inside
//
// The execution benchmarks report thread_insts/s and warp_insts/s counters (simulated
// instructions per wall-clock second), the parse benchmarks bytes/s and ptx_insts/s.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "func/device.h"
#include "ptx/parser.h"

namespace {

using simtlab::Addr;
using simtlab::Dim3;
namespace func = simtlab::func;

const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n\n";

// ---- kernels for the execution benchmarks ---------------------------------------------------

// out[gtid] = f(iters): 4 FMA chains + LCG/xorshift integer chains, unrolled by 2.
const char* kAluKernel = R"(
.visible .entry alu(.param .u64 out, .param .u32 iters) {
  .reg .pred %p<2>; .reg .b32 %r<20>; .reg .f32 %f<12>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  ld.param.u32 %r5, [iters];
  cvt.rn.f32.u32 %f1, %r4;
  mov.f32 %f2, 0f3F800000; mov.f32 %f3, 0f40000000; mov.f32 %f4, 0f00000000;
  mul.lo.s32 %r7, %r4, -1640531535; or.b32 %r8, %r4, 1;
  mov.u32 %r6, 0;
LOOP:
  fma.rn.f32 %f1, %f1, 0f3F7FF972, 0f3F000000;
  fma.rn.f32 %f2, %f2, 0f3F7FF2E5, 0f3E800000;
  fma.rn.f32 %f3, %f3, 0f3F7FEC57, 0fBE000000;
  fma.rn.f32 %f4, %f4, 0f3F000000, %f1;
  mad.lo.s32 %r7, %r7, 1664525, 1013904223;
  shl.b32 %r9, %r8, 13; xor.b32 %r8, %r8, %r9;
  shr.u32 %r9, %r8, 17; xor.b32 %r8, %r8, %r9;
  fma.rn.f32 %f1, %f1, 0f3F7FF972, 0f3F000000;
  fma.rn.f32 %f2, %f2, 0f3F7FF2E5, 0f3E800000;
  fma.rn.f32 %f3, %f3, 0f3F7FEC57, 0fBE000000;
  fma.rn.f32 %f4, %f4, 0f3F000000, %f1;
  mad.lo.s32 %r7, %r7, 1664525, 1013904223;
  shl.b32 %r9, %r8, 5; xor.b32 %r8, %r8, %r9;
  and.b32 %r10, %r8, 255; add.s32 %r7, %r7, %r10;
  add.s32 %r6, %r6, 2;
  setp.lt.u32 %p1, %r6, %r5;
  @%p1 bra LOOP;
  add.f32 %f5, %f1, %f2; add.f32 %f5, %f5, %f3; add.f32 %f5, %f5, %f4;
  xor.b32 %r11, %r7, %r8;
  cvt.rn.f32.u32 %f6, %r11; add.f32 %f5, %f5, %f6;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f5;
  ret;
}
)";

// for (i = gtid; i < n; i += nthreads) dst[i] = 1.5f * src[i] + dst[i]   (repeated `reps` times)
const char* kMemKernel = R"(
.visible .entry mem(.param .u64 src, .param .u64 dst, .param .u32 n, .param .u32 reps) {
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .f32 %f<4>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [src]; cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [dst]; cvta.to.global.u64 %rd2, %rd2;
  ld.param.u32 %r1, [n]; ld.param.u32 %r2, [reps];
  mov.u32 %r3, %tid.x; mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ntid.x; mov.u32 %r6, %nctaid.x;
  mad.lo.s32 %r7, %r4, %r5, %r3;
  mul.lo.s32 %r8, %r5, %r6;
  mov.u32 %r10, 0;
REP:
  mov.u32 %r9, %r7;
  setp.ge.u32 %p1, %r9, %r1;
  @%p1 bra NEXT;
ELEM:
  mul.wide.u32 %rd3, %r9, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd5];
  fma.rn.f32 %f3, %f1, 0f3FC00000, %f2;
  st.global.f32 [%rd5], %f3;
  add.s32 %r9, %r9, %r8;
  setp.lt.u32 %p1, %r9, %r1;
  @%p1 bra ELEM;
NEXT:
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p2, %r10, %r2;
  @%p2 bra REP;
  ret;
}
)";

// out[gtid] = per-lane loop of (gtid * 2654435761) % 64 trips with a Collatz-style if/else.
const char* kDivKernel = R"(
.visible .entry div(.param .u64 out) {
  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mul.lo.s32 %r5, %r4, -1640531535;
  shr.u32 %r6, %r5, 26;
  or.b32 %r7, %r5, 1;
  mov.u32 %r8, 0;
  setp.eq.u32 %p1, %r6, 0;
  @%p1 bra DONE;
LOOP:
  and.b32 %r9, %r7, 1;
  setp.eq.u32 %p2, %r9, 0;
  @%p2 bra EVEN;
  mad.lo.s32 %r7, %r7, 3, 1;
  shr.u32 %r10, %r7, 11;
  xor.b32 %r7, %r7, %r10;
  bra.uni JOIN;
EVEN:
  shr.u32 %r7, %r7, 1;
  add.s32 %r7, %r7, %r8;
JOIN:
  add.s32 %r8, %r8, 1;
  setp.lt.u32 %p3, %r8, %r6;
  @%p3 bra LOOP;
DONE:
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)";

// ---- generated module for the parse benchmarks ----------------------------------------------

// One kernel with a mix of the instruction forms nvcc emits; `k` makes names unique.
std::string generated_kernel(int k) {
  std::string s;
  s += ".visible .entry gen" + std::to_string(k) +
       "(.param .u64 a, .param .u64 b, .param .u32 n) {\n"
       "  .reg .pred %p<8>; .reg .b32 %r<64>; .reg .f32 %f<32>; .reg .b64 %rd<16>;\n"
       "  .shared .align 4 .b8 smem[1024];\n"
       "  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u32 %r1, [n];\n"
       "  cvta.to.global.u64 %rd3, %rd1; cvta.to.global.u64 %rd4, %rd2;\n"
       "  mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;\n"
       "  mad.lo.s32 %r5, %r3, %r4, %r2;\n"
       "  setp.ge.s32 %p1, %r5, %r1;\n"
       "  @%p1 bra $L__END;\n";
  for (int b = 0; b < 12; ++b) {
    const std::string L = "$L__BB" + std::to_string(b);
    s += L + ":\n";
    s += "  mul.wide.s32 %rd5, %r5, 4;\n  add.s64 %rd6, %rd3, %rd5;\n  ld.global.f32 %f1, [%rd6+" +
         std::to_string(4 * b) + "];\n";
    s += "  fma.rn.f32 %f2, %f1, 0f3F000000, 0f3F800000;\n  mul.rn.f32 %f3, %f2, %f1;\n";
    s += "  add.f32 %f4, %f3, %f2;\n  max.f32 %f5, %f4, 0f00000000;\n";
    s += "  cvt.rzi.s32.f32 %r6, %f5;\n  shl.b32 %r7, %r6, 2;\n  and.b32 %r8, %r7, 1020;\n";
    s += "  mov.u32 %r9, smem;\n  add.s32 %r10, %r9, %r8;\n  st.shared.f32 [%r10], %f5;\n";
    s += "  bar.sync 0;\n  ld.shared.f32 %f6, [%r10+4];\n";
    s += "  setp.gt.f32 %p2, %f6, %f1;\n  selp.f32 %f7, %f6, %f1, %p2;\n";
    s += "  xor.b32 %r11, %r5, " + std::to_string(b * 7919) + ";\n  popc.b32 %r12, %r11;\n";
    s += "  setp.eq.s32 %p3, %r12, 3;\n  @%p3 bra " + L + "_skip;\n";
    s += "  add.s64 %rd7, %rd4, %rd5;\n  st.global.f32 [%rd7], %f7;\n  atom.global.add.u32 %r13, "
         "[%rd7], 1;\n";
    s += L + "_skip:\n";
  }
  s += "$L__END:\n  ret;\n}\n\n";
  return s;
}

std::string generated_module(int kernels) {
  std::string s = kHeader;
  for (int k = 0; k < kernels; ++k) s += generated_kernel(k);
  return s;
}

size_t count_insts(const simtlab::ptx::Module& m) {
  size_t n = 0;
  for (const auto& f : m.funcs) n += f.insts.size();
  return n;
}

void BM_PtxParse(benchmark::State& state) {
  const std::string text = generated_module(int(state.range(0)));
  size_t insts = 0;
  for (auto _ : state) {
    simtlab::ptx::Module m = simtlab::ptx::parse_module(text, "generated.ptx");
    insts = count_insts(m);
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
  state.counters["ptx_insts"] = double(insts);
  state.counters["ptx_insts/s"] =
      benchmark::Counter(double(insts), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PtxParse)->Arg(10)->Arg(200)->Unit(benchmark::kMillisecond);

void BM_ModuleLoad(benchmark::State& state) {
  const int kernels = int(state.range(0));
  const std::string text = generated_module(kernels);
  func::Device dev;
  for (auto _ : state) {
    func::LoadedModule& m = dev.load_module({{text, "generated.ptx"}});
    for (int k = 0; k < kernels; ++k) benchmark::DoNotOptimize(m.kernel("gen" + std::to_string(k)));
    dev.unload_module(&m);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
}
BENCHMARK(BM_ModuleLoad)->Arg(200)->Unit(benchmark::kMillisecond);

// Launch `kernel` once per iteration and report simulated instructions per second.
template <typename... A>
void run_launches(benchmark::State& state, func::Device& dev, const func::Program& k, Dim3 grid,
                  Dim3 block, A... a) {
  const void* args[] = {static_cast<const void*>(&a)..., nullptr};
  uint64_t warp = 0, thread = 0;
  for (auto _ : state) {
    func::LaunchResult r = dev.launch(k, grid, block, 0, dev.pack_params(k, args));
    warp += r.warp_insts;
    thread += r.thread_insts;
  }
  state.counters["thread_insts/s"] =
      benchmark::Counter(double(thread), benchmark::Counter::kIsRate);
  state.counters["warp_insts/s"] = benchmark::Counter(double(warp), benchmark::Counter::kIsRate);
  state.counters["lanes/warp_inst"] = warp ? double(thread) / double(warp) : 0.0;
}

const func::Program& kernel_of(func::Device& dev, const char* body, const char* name) {
  func::LoadedModule& m =
      dev.load_module({{std::string(kHeader) + body, std::string(name) + ".ptx"}});
  const func::Program* k = m.kernel(name);
  if (!k) throw std::runtime_error(std::string("no kernel ") + name);
  return *k;
}

void BM_FuncAlu(benchmark::State& state) {
  func::Device dev;
  const func::Program& k = kernel_of(dev, kAluKernel, "alu");
  const uint32_t ctas = uint32_t(state.range(0));
  const Addr out = dev.malloc(uint64_t(ctas) * 256 * 4);
  run_launches(state, dev, k, Dim3{ctas, 1, 1}, Dim3{256, 1, 1}, out, uint32_t(256));
}
BENCHMARK(BM_FuncAlu)->Arg(15)->Arg(60)->Unit(benchmark::kMillisecond);

void BM_FuncMemory(benchmark::State& state) {
  func::Device dev;
  const func::Program& k = kernel_of(dev, kMemKernel, "mem");
  const uint32_t ctas = uint32_t(state.range(0));
  const uint32_t n = 1u << 20;  // 4 MB per array
  const Addr src = dev.malloc(uint64_t(n) * 4), dst = dev.malloc(uint64_t(n) * 4);
  std::vector<float> init(n, 1.0f);
  dev.write(src, init.data(), init.size() * 4);
  run_launches(state, dev, k, Dim3{ctas, 1, 1}, Dim3{256, 1, 1}, src, dst, n, uint32_t(1));
}
BENCHMARK(BM_FuncMemory)->Arg(60)->Unit(benchmark::kMillisecond);

void BM_FuncDivergent(benchmark::State& state) {
  func::Device dev;
  const func::Program& k = kernel_of(dev, kDivKernel, "div");
  const uint32_t ctas = uint32_t(state.range(0));
  const Addr out = dev.malloc(uint64_t(ctas) * 256 * 4);
  run_launches(state, dev, k, Dim3{ctas, 1, 1}, Dim3{256, 1, 1}, out);
}
BENCHMARK(BM_FuncDivergent)->Arg(60)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
