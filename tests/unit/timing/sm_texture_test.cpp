// Texture fetches in the timing model: the functional executor records every texel address a
// `tex` reads and the LD/ST unit sends them through the texture cache (L1T), one access per
// 128-byte block, with the L1T hit latency; L1T misses leave through the SM's memory port.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tests/unit/timing/timing_harness.h"

namespace simtlab::testing {

namespace {

std::vector<std::string> sets(std::vector<std::string> more = {}) {
  std::vector<std::string> s = {"gpu.num_sms=1", "sm.l1i_perfect=true",
                                "sim.fixed_memory_latency=100", "sim.memory_model=fixed"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

// One warp: `fetches` dependent tex.1d fetches of texel tid * stride (the result, always 0,
// feeds the next coordinate), then out[tid] = last result.
std::string tex1d_kernel(uint32_t stride, uint32_t fetches) {
  std::string body;
  for (uint32_t k = 0; k < fetches; ++k)
    body += fmt::format(
        "  tex.1d.v4.f32.s32 {{%f1, %f2, %f3, %f4}}, [%rd1, {{%r3}}];\n"
        "  cvt.rzi.s32.f32 %r4, %f1;\n"
        "  add.s32 %r3, %r3, %r4;\n");
  return fmt::format(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 tex, .param .u64 out) {{
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r3, %r1, {};
{}  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
  ret;
}}
)",
                     stride, body);
}

// One warp: lane l samples a 2D float texture at (1.0, 2l + 1.0) with `filter`.
std::string tex2d_kernel() {
  return R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 tex, .param .u64 out) {
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 1;
  cvt.rn.f32.u32 %f5, %r2;
  add.f32 %f5, %f5, 0f3F800000;
  mov.f32 %f6, 0f3F800000;
  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f6, %f5}];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
  ret;
}
)";
}

struct TexRun {
  uint64_t cycles = 0;
  uint64_t accesses = 0, hits = 0, misses = 0, hit_reserved = 0, fill_requests = 0;
  uint64_t l1d_loads = 0;
  nlohmann::json stats;
  std::vector<float> out;
};

uint64_t kind(const nlohmann::json& v, const char* k) { return v["values"][k].get<uint64_t>(); }

TexRun run(const std::vector<std::string>& s, const std::string& ptx, func::TextureDesc t,
           size_t texels, uint32_t threads = 32) {
  TimingRunner r(timing_params(s));
  r.load(ptx);
  std::vector<float> data(texels);
  for (size_t i = 0; i < texels; ++i) data[i] = 0.0f;
  t.base = r.upload(data);
  const uint64_t h = r.dev().textures().create(t);
  const Addr out = r.upload(std::vector<float>(threads, -1.0f));
  r.launch("k", {1, 1, 1}, {threads, 1, 1}, h, out);
  TexRun x;
  x.cycles = r.last.cycles;
  x.stats = r.stats;
  const auto& l1t = r.stats["sm[0]"]["l1t"];
  x.accesses = kind(l1t["accesses"], "tex_load");
  x.hits = kind(l1t["hits"], "tex_load");
  x.misses = kind(l1t["misses"], "tex_load");
  x.hit_reserved = kind(l1t["hit_reserved"], "tex_load");
  x.fill_requests = l1t["fill_requests"]["value"].get<uint64_t>();
  x.l1d_loads = kind(r.stats["sm[0]"]["l1d"]["accesses"], "load");
  x.out = r.download<float>(out, threads);
  return x;
}

func::TextureDesc linear_1d(uint64_t width) {
  func::TextureDesc t;
  t.dims = 1;
  t.width = width;
  t.pitch = width * 4;
  return t;
}

}  // namespace

TEST(SmTexture, PointFetchesGoThroughTheTextureCacheOneAccessPerBlock) {
  // Lane l reads texel 8l: 32 lanes x 32 bytes apart = 8 distinct 128-byte blocks.
  const TexRun a = run(sets(), tex1d_kernel(8, 1), linear_1d(256), 256);
  EXPECT_EQ(a.accesses, 8u);
  EXPECT_EQ(a.misses, 8u);
  EXPECT_EQ(a.hits, 0u);
  EXPECT_EQ(a.fill_requests, 8u);  // every miss fetched its line through the memory port
  EXPECT_EQ(a.l1d_loads, 0u);      // texture fetches do not touch the L1D
  for (float v : a.out) EXPECT_EQ(v, 0.0f);
  // Texel stride 1: one block per warp.
  const TexRun b = run(sets(), tex1d_kernel(1, 1), linear_1d(256), 256);
  EXPECT_EQ(b.accesses, 1u);
  EXPECT_EQ(b.misses, 1u);
  // A second, dependent fetch of the same texels hits the lines the first one filled.
  const TexRun c = run(sets(), tex1d_kernel(8, 2), linear_1d(256), 256);
  EXPECT_EQ(c.accesses, 16u);
  EXPECT_EQ(c.misses, 8u);
  EXPECT_EQ(c.hits, 8u);
  EXPECT_EQ(c.fill_requests, 8u);
}

TEST(SmTexture, HitsTakeTheTextureCacheHitLatencyAndMissesTheMemoryLatency) {
  // Two dependent fetches: the first misses (memory latency), the second hits (L1T latency).
  const auto cycles = [](std::vector<std::string> more) {
    return run(sets(std::move(more)), tex1d_kernel(1, 2), linear_1d(256), 256).cycles;
  };
  const uint64_t base = cycles({});
  EXPECT_EQ(cycles({"sm.l1t.hit_latency=45"}) - base, 10u);  // default 35
  // Memory latency is on the critical path three times: the parameter load (constant
  // cache miss), the texture miss and the final store; without the fetches only twice.
  EXPECT_EQ(cycles({"sim.fixed_memory_latency=130"}) - base, 3 * 30u);
  const auto no_tex = [](std::vector<std::string> more) {
    return run(sets(std::move(more)), tex1d_kernel(1, 0), linear_1d(256), 256).cycles;
  };
  EXPECT_EQ(no_tex({"sim.fixed_memory_latency=130"}) - no_tex({}), 2 * 30u);
  // The L1D's latency has nothing to do with texture fetches.
  EXPECT_EQ(cycles({"sm.l1d.hit_latency=80"}), base);
  // Three dependent fetches: two of them hit.
  const uint64_t three = run(sets(), tex1d_kernel(1, 3), linear_1d(256), 256).cycles;
  const uint64_t three_slow =
      run(sets({"sm.l1t.hit_latency=45"}), tex1d_kernel(1, 3), linear_1d(256), 256).cycles;
  EXPECT_EQ(three_slow - three, 20u);
}

TEST(SmTexture, LinearFilteringReadsEveryTexelOfTheFootprint) {
  // 32 x 64 floats, one 128-byte row per block. Lane l samples (1.0, 2l + 1.0): point
  // sampling reads texel (1, 2l + 1) (32 blocks); bilinear filtering reads x 0..1 of rows 2l
  // and 2l + 1 (64 blocks).
  func::TextureDesc t;
  t.dims = 2;
  t.width = 32;
  t.height = 64;
  t.pitch = 128;
  const TexRun point = run(sets(), tex2d_kernel(), t, 32 * 64);
  EXPECT_EQ(point.accesses, 32u);
  EXPECT_EQ(point.misses, 32u);
  t.filter = func::TexFilter::linear;
  const TexRun lin = run(sets(), tex2d_kernel(), t, 32 * 64);
  EXPECT_EQ(lin.accesses, 64u);
  EXPECT_EQ(lin.misses, 64u);
  EXPECT_EQ(lin.fill_requests, 64u);
  // Border addressing: border texels read no memory. With 32 rows, lanes 0..15 read rows
  // 0..31 (32 blocks); the footprints of lanes 16..31 (rows 32..63) are all border.
  t.height = 32;
  t.address[1] = func::TexAddressMode::border;
  const TexRun border = run(sets(), tex2d_kernel(), t, 32 * 32);
  EXPECT_EQ(border.accesses, 32u);
}

TEST(SmTexture, TextureMissesReachTheL2) {
  // The full memory system: each L1T miss is one tex_load access of the L2.
  const TexRun a = run(sets({"sim.memory_model=full"}), tex1d_kernel(8, 2), linear_1d(256), 256);
  EXPECT_EQ(a.accesses, 16u);
  EXPECT_EQ(a.misses, 8u);
  uint64_t l2_tex = 0;  // the per-kernel stats have the slices, not the l2_total sums
  for (const auto& [name, part] : a.stats["mem"].items())
    if (name.rfind("partition[", 0) == 0)
      for (const auto& [sname, slice] : part.items())
        if (sname.rfind("slice[", 0) == 0) l2_tex += kind(slice["accesses"], "tex_load");
  EXPECT_EQ(l2_tex, 8u);
}

}  // namespace simtlab::testing
