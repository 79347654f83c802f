// Structured mutation fuzzing of the PTX lexer/parser and the analyses behind `simtlab ptx`.
//
// Seeds are the files in tests/data/ptx_corpus (real nvcc 13 output plus small hand-written
// cases for features that once broke the parser). Each round takes a seed and stacks one to
// four mutations: delete/duplicate/swap tokens and lines, flip bytes, truncate, insert random
// bytes or tokens from a PTX dictionary, splice lines from another seed. Every outcome must be a
// successful parse (then the dumps, CFG, liveness, register allocation and layouts must run too) or
// a simtlab::DiagError/UserError. Any other exception fails the test; a crash, assert or sanitizer
// report fails the process. Inputs that take more than a few seconds count as hangs.
//
// Deterministic: the seed is fixed (SIMTLAB_FUZZ_SEED overrides it) and so is the number of
// inputs (SIMTLAB_FUZZ_INPUTS, default 20000: about 5 s idle in a Release build), so a run does
// the same work on an idle and on a busy machine. SIMTLAB_FUZZ_SECONDS=N runs for N seconds
// instead (long fuzzing sessions). The hang check uses the thread's CPU time, not wall time. A
// failing input is written to the working directory as ptx_fuzz_failure_<n>.ptx; after fixing the
// bug, minimize it by hand and add it to the corpus.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

#include "ptx/cfg.h"
#include "ptx/dump.h"
#include "ptx/layout.h"
#include "ptx/regalloc.h"
#include "ptx_test_util.h"

namespace simtlab::ptx {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// CPU time of the calling thread: unlike wall time, it does not grow when the machine is busy.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Seed {
  std::string name, text;
};

std::vector<Seed> load_corpus() {
  std::vector<Seed> seeds;
  for (const auto& e : fs::directory_iterator(SIMTLAB_PTX_CORPUS_DIR))
    if (e.path().extension() == ".ptx")
      seeds.push_back({e.path().filename().string(), testing::read_text(e.path().string())});
  std::sort(seeds.begin(), seeds.end(),
            [](const Seed& a, const Seed& b) { return a.name < b.name; });
  return seeds;
}

uint64_t env_u64(const char* name, uint64_t def) {
  const char* v = std::getenv(name);
  if (!v || !*v) return def;
  return std::strtoull(v, nullptr, 10);
}

/// Parse and run everything `simtlab ptx check/cfg/dump/regs` runs on the result.
void exercise(const std::vector<std::pair<std::string, std::string>>& units) {
  Module m;
  for (const auto& [name, text] : units) add_translation_unit(m, text, name);
  finalize_module(m);
  (void)describe_module(m);
  for (uint32_t fi = 0; fi < m.funcs.size(); ++fi) {
    const Function& f = m.funcs[fi];
    if (!f.defined) continue;
    (void)dump_function(m, f);
    (void)dump_cfg(m, f, false);
    (void)dump_cfg(m, f, true);
    (void)compute_liveness(f);
    (void)format_allocation(f, allocate_registers(f), true);
    for (uint32_t i = 0; i < f.insts.size(); ++i)
      if (f.insts[i].op == Op::bra) (void)reconvergence_pc(f, i);
    (void)layout_frame(m, fi);
    if (f.is_entry) (void)layout_kernel(m, fi);
  }
}

enum class Outcome { ok, diag, failure };

struct Result {
  Outcome outcome = Outcome::ok;
  std::string what;
};

Result run_one(const std::vector<std::pair<std::string, std::string>>& units) {
  try {
    exercise(units);
    return {};
  } catch (const DiagError& e) {
    return {Outcome::diag, e.what()};
  } catch (const UserError& e) {
    return {Outcome::diag, e.what()};
  } catch (const std::exception& e) {
    return {Outcome::failure, std::string("unexpected exception: ") + e.what()};
  } catch (...) {
    return {Outcome::failure, "unexpected non-standard exception"};
  }
}

// ---- mutations ------------------------------------------------------------------------------

/// Byte ranges [begin, end) of rough tokens: identifier/number/directive runs or single
/// punctuation characters (whitespace is not a token).
std::vector<std::pair<size_t, size_t>> tokens(const std::string& s) {
  std::vector<std::pair<size_t, size_t>> out;
  auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
           c == '.' || c == ':';
  };
  for (size_t i = 0; i < s.size();) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (word(s[i]))
      while (j < s.size() && word(s[j])) ++j;
    out.emplace_back(i, j);
    i = j;
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> lines(const std::string& s) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t b = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n') {
      out.emplace_back(b, i + 1);
      b = i + 1;
    }
  if (b < s.size()) out.emplace_back(b, s.size());
  return out;
}

const std::vector<std::string>& dictionary() {
  static const std::vector<std::string> d = {
      "{",
      "}",
      "(",
      ")",
      "[",
      "]",
      ",",
      ";",
      ":",
      "@",
      "!",
      "+",
      "-",
      "|",
      "<",
      ">",
      "=",
      "_",
      ".reg",
      ".b32",
      ".b64",
      ".u32",
      ".s64",
      ".f32",
      ".f64",
      ".pred",
      ".v2",
      ".v4",
      ".v8",
      ".global",
      ".shared",
      ".local",
      ".const",
      ".param",
      ".align 16",
      ".align 0",
      ".align 3",
      ".entry",
      ".func",
      ".visible",
      ".extern",
      ".weak",
      ".common",
      ".maxntid",
      ".reqntid",
      ".minnctapersm",
      ".maxnreg",
      ".pragma \"nounroll\";",
      ".callprototype",
      ".file 1 \"x\"",
      ".loc 1 2 3",
      ".section .debug_info {",
      ".version 9.0",
      ".target sm_75",
      ".address_size 32",
      "%r1",
      "%rd1",
      "%p1",
      "%f1",
      "%fd1",
      "%tid.x",
      "%ntid",
      "%envreg99",
      "%laneid",
      "WARP_SZ",
      "0",
      "1",
      "-1",
      "4294967295",
      "0x8000000000000000",
      "-9223372036854775808",
      "18446744073709551615",
      "99999999999999999999",
      "0f3F800000",
      "0d3FF0000000000000",
      "0f",
      "1.5e308",
      "1e-400",
      "0b101",
      "017",
      "09",
      "[%rd1+-4]",
      "[%rd1+4]",
      "[0]",
      "{%r1, %r2}",
      "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}",
      "%r<1000>",
      "%r<0>",
      "[4294967296]",
      "[65536][65536][65536]",
      "= {1, 2, {3}, -4}",
      "generic(",
      "bra",
      "bra.uni",
      "ret;",
      "exit;",
      "trap;",
      "call.uni",
      "call",
      "ld.global.u32",
      "st.shared.v4.f32",
      "mov.b64",
      "cvt.rn.bf16x2.f32",
      "setp.eq.s32",
      "selp.b32",
      "shfl.sync.down.b32",
      "vote.ballot.sync.b32",
      "atom.global.cas.b32",
      "tex.2d.v4.f32.f32",
      "bar.red.popc.u32",
      "mad.wide.u32",
      "$L__BB0_1:",
      "$L__BB0_1",
      "L:",
      "/*",
      "*/",
      "//",
      "\"",
      "\\",
      "::",
  };
  return d;
}

std::string mutate(std::string s, std::mt19937_64& rng, const std::vector<Seed>& seeds) {
  auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  const int rounds = 1 + int(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    switch (rng() % 12) {
      case 0: {  // delete a token
        auto t = tokens(s);
        if (t.empty()) break;
        auto [b, e] = t[pick(t.size())];
        s.erase(b, e - b);
        break;
      }
      case 1: {  // duplicate a token
        auto t = tokens(s);
        if (t.empty()) break;
        auto [b, e] = t[pick(t.size())];
        s.insert(b, s.substr(b, e - b) + " ");
        break;
      }
      case 2: {  // swap two tokens
        auto t = tokens(s);
        if (t.size() < 2) break;
        auto x = t[pick(t.size())], y = t[pick(t.size())];
        if (x.first > y.first) std::swap(x, y);
        if (x.second > y.first) break;
        const std::string a = s.substr(x.first, x.second - x.first);
        const std::string c = s.substr(y.first, y.second - y.first);
        s.replace(y.first, c.size(), a);
        s.replace(x.first, a.size(), c);
        break;
      }
      case 3: {  // delete a line
        auto l = lines(s);
        if (l.empty()) break;
        auto [b, e] = l[pick(l.size())];
        s.erase(b, e - b);
        break;
      }
      case 4: {  // duplicate a line
        auto l = lines(s);
        if (l.empty()) break;
        auto [b, e] = l[pick(l.size())];
        s.insert(b, s.substr(b, e - b));
        break;
      }
      case 5: {  // swap two lines
        auto l = lines(s);
        if (l.size() < 2) break;
        auto x = l[pick(l.size())], y = l[pick(l.size())];
        if (x.first > y.first) std::swap(x, y);
        if (x.first == y.first) break;
        const std::string a = s.substr(x.first, x.second - x.first);
        const std::string c = s.substr(y.first, y.second - y.first);
        s.replace(y.first, c.size(), a);
        s.replace(x.first, a.size(), c);
        break;
      }
      case 6: {  // flip bits of a byte
        if (s.empty()) break;
        s[pick(s.size())] ^= char(1 + rng() % 255);
        break;
      }
      case 7:  // truncate
        s.resize(pick(s.size() + 1));
        break;
      case 8: {  // insert random bytes
        const size_t at = pick(s.size() + 1);
        std::string junk(1 + rng() % 4, '\0');
        for (char& c : junk) c = char(rng() % 256);
        s.insert(at, junk);
        break;
      }
      case 9:
      case 10: {  // insert a dictionary token at a token boundary
        auto t = tokens(s);
        const size_t at =
            t.empty() ? 0 : (rng() % 2 ? t[pick(t.size())].first : t[pick(t.size())].second);
        const auto& d = dictionary();
        s.insert(at, " " + d[pick(d.size())] + " ");
        break;
      }
      default: {  // splice a line from another seed
        const std::string& other = seeds[pick(seeds.size())].text;
        auto lo = lines(other);
        auto l = lines(s);
        if (lo.empty()) break;
        auto [b, e] = lo[pick(lo.size())];
        const size_t at = l.empty() ? 0 : l[pick(l.size())].first;
        s.insert(at, other.substr(b, e - b));
        break;
      }
    }
  }
  return s;
}

std::string escape_for_log(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 400)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\t' || (u >= 0x20 && u < 0x7f))
      out += c;
    else
      out += fmt::format("\\x{:02x}", u);
  }
  return out;
}

// ---- tests ----------------------------------------------------------------------------------

TEST(PtxFuzz, EverySeedParses) {
  const auto seeds = load_corpus();
  ASSERT_GE(seeds.size(), 10u) << "corpus " << SIMTLAB_PTX_CORPUS_DIR;
  for (const Seed& s : seeds) {
    Result r = run_one({{s.name, s.text}});
    EXPECT_EQ(r.outcome, Outcome::ok) << s.name << ": " << r.what;
  }
}

TEST(PtxFuzz, TruncationsOfSmallSeeds) {
  // Cut small seeds at (up to) 600 evenly spaced bytes each, every byte for the smallest: the
  // truncated-file path of every construct in them.
  const auto seeds = load_corpus();
  size_t runs = 0;
  for (const Seed& s : seeds) {
    if (s.text.size() > 6000) continue;
    const size_t stride = 1 + s.text.size() / 600;
    for (size_t n = 0; n < s.text.size(); n += stride) {
      Result r = run_one({{s.name, s.text.substr(0, n)}});
      ASSERT_NE(r.outcome, Outcome::failure) << s.name << " cut at " << n << ": " << r.what;
      ++runs;
    }
  }
  EXPECT_GT(runs, 3000u);
}

TEST(PtxFuzz, MutationsNeverCrash) {
  const auto seeds = load_corpus();
  ASSERT_FALSE(seeds.empty());
  const uint64_t seconds = env_u64("SIMTLAB_FUZZ_SECONDS", 0);  // 0: count-bounded
  const uint64_t inputs = env_u64("SIMTLAB_FUZZ_INPUTS", 20000);
  const uint64_t seed = env_u64("SIMTLAB_FUZZ_SEED", 0x5eed2024);
  std::mt19937_64 rng(seed);
  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  size_t runs = 0, ok = 0, diags = 0, failures = 0;
  while (seconds ? Clock::now() < deadline : runs < inputs) {
    const Seed& s = seeds[rng() % seeds.size()];
    const std::string input = mutate(s.text, rng, seeds);
    std::vector<std::pair<std::string, std::string>> units{{"fuzz.ptx", input}};
    // Sometimes link the mutant with an intact seed, as `ptx check a.ptx b.ptx` would.
    if (rng() % 8 == 0) units.insert(units.begin(), {seeds[rng() % seeds.size()].name, s.text});
    const double t0 = thread_cpu_seconds();
    Result r = run_one(units);
    const double secs = thread_cpu_seconds() - t0;
    ++runs;
    if (r.outcome == Outcome::ok) ++ok;
    if (r.outcome == Outcome::diag) ++diags;
    if (r.outcome == Outcome::failure || secs > 5.0) {
      ++failures;
      const std::string file = fmt::format("ptx_fuzz_failure_{}.ptx", failures);
      std::ofstream(file, std::ios::binary) << input;
      ADD_FAILURE() << (secs > 5.0 ? fmt::format("slow input: CPU time ({:.1f} s)", secs) : r.what)
                    << "\nseed file " << s.name << ", input saved to " << file << ":\n"
                    << escape_for_log(input);
      if (failures >= 5) break;
    }
  }
  std::printf("ptx fuzz: %zu inputs (seed %llu): %zu parsed, %zu diagnosed, %zu failures\n", runs,
              static_cast<unsigned long long>(seed), ok, diags, failures);
  EXPECT_GT(runs, 0u);
  EXPECT_GT(diags, 0u);
}

}  // namespace
}  // namespace simtlab::ptx
