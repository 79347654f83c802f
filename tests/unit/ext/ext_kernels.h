// Kernels for the SM mechanism tests (tests/unit/ext): run on one SM of the default
// (GTX480-like) GPU with the full memory system, output checked on the host.
#pragma once

#include <string>
#include <vector>

#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {

/// Each warp sums its own 8 lines (1 KB: lane l of warp w reads a[256 w + 32 j + l], j < 8)
/// `reps` times: intra-warp reuse that 48 warps (48 KB) thrash in a 16 KB L1D.
inline const char* kThrashPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 out, .param .u32 reps) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  shr.u32 %r5, %r4, 5;
  and.b32 %r6, %r4, 31;
  shl.b32 %r7, %r5, 8;
  add.s32 %r7, %r7, %r6;
  ld.param.u64 %rd1, [a];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r13, [reps];
  mov.u32 %r8, 0;
  mov.u32 %r9, 0;
REP:
  mov.u32 %r10, 0;
LINE:
  shl.b32 %r11, %r10, 5;
  add.s32 %r11, %r11, %r7;
  mul.wide.u32 %rd2, %r11, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r12, [%rd3];
  add.s32 %r8, %r8, %r12;
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p1, %r10, 8;
  @%p1 bra LINE;
  add.s32 %r9, %r9, 1;
  setp.lt.u32 %p2, %r9, %r13;
  @%p2 bra REP;
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd4, %rd4;
  mul.wide.u32 %rd5, %r4, 4;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r8;
  ret;
}
)";

struct KernelRun {
  bool correct = false;
  uint64_t cycles = 0;
  uint64_t l1d_load_misses = 0, l1d_load_accesses = 0;
  nlohmann::json sm0;
  bool has_group(const std::string& g) const { return sm0.contains(g); }
  uint64_t group(const std::string& g, const std::string& s) const {
    return sm0[g][s]["value"].get<uint64_t>();
  }
  bool has_stall(const std::string& r) const { return sm0["stall"]["values"].contains(r); }
  uint64_t stall(const std::string& r) const { return sm0["stall"]["values"][r].get<uint64_t>(); }
};

/// The thrash kernel on one SM: `ctas` CTAs of `threads` threads, `reps` passes.
inline KernelRun run_thrash(std::vector<std::string> sets, uint32_t ctas = 2,
                            uint32_t threads = 768, uint32_t reps = 4) {
  sets.insert(sets.begin(), "gpu.num_sms=1");
  TimingRunner r(timing_params(sets));
  r.load(kThrashPtx);
  const uint32_t n = ctas * threads;
  std::vector<uint32_t> a(size_t(n) * 8);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint32_t(i * 7 + 1);
  const Addr da = r.upload(a);
  const Addr dout = r.upload(std::vector<uint32_t>(n, 0));
  r.launch("k", {ctas, 1, 1}, {threads, 1, 1}, da, dout, reps);
  KernelRun k;
  k.cycles = r.last.cycles;
  const auto out = r.download<uint32_t>(dout, n);
  k.correct = true;
  for (uint32_t g = 0; g < n; ++g) {
    const uint32_t base = (g >> 5) * 256 + (g & 31);
    uint32_t s = 0;
    for (uint32_t j = 0; j < 8; ++j) s += a[base + 32 * j];
    if (out[g] != s * reps) k.correct = false;
  }
  k.sm0 = r.stats["sm[0]"];
  k.l1d_load_misses = k.sm0["l1d"]["misses"]["values"]["load"].get<uint64_t>();
  k.l1d_load_accesses = k.sm0["l1d"]["accesses"]["values"]["load"].get<uint64_t>();
  return k;
}

}  // namespace simtlab::testing
