// Structured mutation fuzzing of the fatbin reader, the cubin/ELF reader and registration
// (src/ptx/fatbin.h, elf_reader.h), next to the PTX fuzzer (parser_fuzz_test.cpp).
//
// Seeds: the nvcc 13 fixtures in tests/data/fatbin (containers with raw, zstd and LZ4 entries;
// rdc link and prelinked fatbins; sm_100 entries with larger headers), the same containers
// re-encoded with uncompressed entries (so mutations reach the cubins inside), the bare cubins,
// and a whole host executable. Each round takes a seed and stacks one to four mutations that know
// the format: set a container or entry header field (sizes, offsets, flags, kind) to a boundary
// value, set an ELF header or section header field of any ELF image in the input, flip bits,
// truncate, insert/delete bytes, duplicate/drop/splice containers. Every outcome must be a result
// or a simtlab::UserError (fatbin_fuzz_util.h runs every entry point, incl. from_registration()
// bounded by the buffer); anything else fails the test, a crash or sanitizer report fails the
// process, and an input taking more than a few seconds counts as a hang.
//
// Deterministic: fixed seed (SIMTLAB_FUZZ_SEED overrides it) and a fixed number of inputs
// (SIMTLAB_FUZZ_INPUTS, default 60000: a few seconds idle in a Release build), the same work on an
// idle and a busy machine; SIMTLAB_FUZZ_SECONDS=N runs for N seconds instead. The hang check uses
// the thread's CPU time, not wall time. A failing input is saved as fatbin_fuzz_failure_<n>.bin in
// the working directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "fatbin_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace simtlab::ptx::fatbin {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// CPU time of the calling thread: unlike wall time, it does not grow when the machine is busy.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
using Bytes = std::vector<uint8_t>;

struct Seed {
  std::string name;
  Bytes bytes;
};

Bytes read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

uint64_t env_u64(const char* name, uint64_t def) {
  const char* v = std::getenv(name);
  if (!v || !*v) return def;
  return std::strtoull(v, nullptr, 10);
}

void put(Bytes& b, size_t off, uint64_t v, size_t width) {
  for (size_t i = 0; i < width && off + i < b.size(); ++i) b[off + i] = uint8_t(v >> (8 * i));
}
uint64_t get(const Bytes& b, size_t off, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width && off + i < b.size(); ++i) v |= uint64_t(b[off + i]) << (8 * i);
  return v;
}

/// A container holding `entries` uncompressed (0x40-byte entry headers).
Bytes raw_container(const std::vector<Entry>& entries) {
  Bytes b(16, 0);
  put(b, 0, kContainerMagic, 4);
  put(b, 4, 1, 2);
  put(b, 6, 16, 2);
  for (const Entry& e : entries) {
    Bytes payload = e.kind == EntryKind::Ptx ? Bytes(e.ptx.begin(), e.ptx.end()) : e.image;
    if (e.kind == EntryKind::Ptx) payload.push_back(0);
    const size_t off = b.size(), padded = (payload.size() + 7) & ~size_t(7);
    b.resize(off + 0x40 + padded, 0);
    put(b, off, e.raw_kind, 2);
    put(b, off + 2, 0x0101, 2);
    put(b, off + 4, 0x40, 4);
    put(b, off + 8, padded, 8);
    put(b, off + 0x18, e.minor, 2);
    put(b, off + 0x1a, e.major, 2);
    put(b, off + 0x1c, e.arch, 4);
    put(b, off + 0x28, e.flags & ~(kFlagZstd | kFlagLz4), 8);
    std::copy(payload.begin(), payload.end(), b.begin() + ptrdiff_t(off + 0x40));
  }
  put(b, 8, b.size() - 16, 8);
  return b;
}

std::vector<Seed> load_seeds() {
  std::vector<Seed> seeds;
  const fs::path dir = fs::path(SIMTLAB_TEST_DATA_DIR) / "fatbin";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".fatbin" || e.path().filename() == "rdc_app")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    Seed s{p.filename().string(), read_file(p)};
    if (p.extension() == ".fatbin") {
      const auto es = parse(s.bytes.data(), s.bytes.size());
      // The same entries, one uncompressed container per original container.
      Bytes raw;
      for (uint32_t c = 0;; ++c) {
        std::vector<Entry> group;
        for (const Entry& e : es)
          if (e.container == c) group.push_back(e);
        if (group.empty()) break;
        Bytes one = raw_container(group);
        raw.insert(raw.end(), one.begin(), one.end());
      }
      seeds.push_back({s.name + ".raw", raw});
      for (const Entry& e : es)
        if (e.kind == EntryKind::Elf && e.image.size() > 64 && seeds.size() < 64)
          seeds.push_back({s.name + ".cubin" + std::to_string(e.offset), e.image});
    }
    seeds.push_back(std::move(s));
  }
  return seeds;
}

// ---- mutations ------------------------------------------------------------------------------

const uint64_t kSpecials[] = {0,
                              1,
                              2,
                              7,
                              8,
                              15,
                              16,
                              0x3f,
                              0x40,
                              0x41,
                              0x7f,
                              0x80,
                              0xff,
                              0x100,
                              0xfff,
                              0x1000,
                              0xffff,
                              0x10000,
                              0x7fffffff,
                              0x80000000,
                              0xffffffff,
                              0x100000000,
                              ~uint64_t(0) >> 1,
                              ~uint64_t(0),
                              ~uint64_t(0) - 7};

/// Offsets of container headers (8-aligned container magic) and of the entry headers inside
/// them, walking the headers as far as they are consistent.
void find_headers(const Bytes& b, std::vector<size_t>& containers, std::vector<size_t>& entries) {
  for (size_t off = 0; off + 16 <= b.size(); off += 8) {
    if (get(b, off, 4) != kContainerMagic) continue;
    containers.push_back(off);
    const uint64_t hs = get(b, off + 6, 2),
                   end = std::min<uint64_t>(b.size(), off + hs + get(b, off + 8, 8));
    for (uint64_t e = off + hs; e + 0x40 <= end && entries.size() < 64;) {
      entries.push_back(size_t(e));
      const uint64_t step = get(b, e + 4, 4) + get(b, e + 8, 8);
      if (step == 0 || step > end - e) break;
      e += step;
    }
  }
}

uint64_t boundary_value(std::mt19937_64& rng, const Bytes& b, uint64_t old) {
  switch (rng() % 4) {
    case 0:
      return kSpecials[rng() % std::size(kSpecials)];
    case 1:  // near the old value
      return old + uint64_t(int64_t(rng() % 33) - 16);
    case 2:  // near the input's size
      return b.size() + uint64_t(int64_t(rng() % 33) - 16);
    default:
      return rng() >> (rng() % 64);
  }
}

void mutate_fatbin_field(Bytes& b, std::mt19937_64& rng) {
  std::vector<size_t> containers, entries;
  find_headers(b, containers, entries);
  // {offset, width} of every header field.
  static const std::pair<size_t, size_t> kContainerFields[] = {{0, 4}, {4, 2}, {6, 2}, {8, 8}};
  static const std::pair<size_t, size_t> kEntryFields[] = {
      {0, 2},    {2, 2},    {4, 4},    {8, 8},    {0x10, 4}, {0x14, 4}, {0x18, 2},
      {0x1a, 2}, {0x1c, 4}, {0x20, 4}, {0x24, 4}, {0x28, 8}, {0x38, 8}};
  size_t off, width;
  if (!entries.empty() && (containers.empty() || rng() % 3)) {
    const size_t e = entries[rng() % entries.size()];
    const auto [f, w] = kEntryFields[rng() % std::size(kEntryFields)];
    off = e + f;
    width = w;
    if (f == 0x28 && rng() % 2) {  // flags: toggle a compression / known bit
      static const uint64_t bits[] = {kFlagZstd, kFlagLz4, kFlagDebug, kFlag64Bit, 0x1000000};
      put(b, off, get(b, off, 8) ^ bits[rng() % std::size(bits)], 8);
      return;
    }
  } else if (!containers.empty()) {
    const auto [f, w] = kContainerFields[rng() % std::size(kContainerFields)];
    off = containers[rng() % containers.size()] + f;
    width = w;
  } else {
    return;
  }
  put(b, off, boundary_value(rng, b, get(b, off, width)), width);
}

void mutate_elf_field(Bytes& b, std::mt19937_64& rng) {
  std::vector<size_t> elfs;
  for (size_t i = 0; i + 64 <= b.size(); ++i)
    if (b[i] == 0x7f && b[i + 1] == 'E' && b[i + 2] == 'L' && b[i + 3] == 'F') elfs.push_back(i);
  if (elfs.empty()) return;
  const size_t base = elfs[rng() % elfs.size()];
  static const std::pair<size_t, size_t> kHeader[] = {{0x04, 1}, {0x05, 1}, {0x12, 2},
                                                      {0x20, 8}, {0x28, 8}, {0x30, 4},
                                                      {0x3a, 2}, {0x3c, 2}, {0x3e, 2}};
  static const std::pair<size_t, size_t> kSection[] = {
      {0, 4}, {4, 4}, {8, 8}, {0x18, 8}, {0x20, 8}, {0x28, 4}, {0x2c, 4}, {0x30, 8}, {0x38, 8}};
  const uint64_t shoff = get(b, base + 0x28, 8), shnum = get(b, base + 0x3c, 2);
  size_t off, width;
  if (shnum && shoff < b.size() && rng() % 4) {
    const uint64_t sh = base + shoff + 64 * (rng() % shnum);
    const auto [f, w] = kSection[rng() % std::size(kSection)];
    if (sh + f + w > b.size()) return;
    off = size_t(sh + f);
    width = w;
    if (rng() % 3 == 0) {  // or a byte inside the section's contents (.nv.info, .symtab, ...)
      const uint64_t so = get(b, size_t(sh + 0x18), 8), ss = get(b, size_t(sh + 0x20), 8);
      if (ss && so < b.size() - base) {
        const uint64_t p = base + so + rng() % ss;
        if (p < b.size()) b[size_t(p)] = uint8_t(rng() % 2 ? rng() : b[size_t(p)] ^ 1);
      }
      return;
    }
  } else {
    const auto [f, w] = kHeader[rng() % std::size(kHeader)];
    off = base + f;
    width = w;
  }
  put(b, off, boundary_value(rng, b, get(b, off, width)), width);
}

Bytes mutate(Bytes b, std::mt19937_64& rng, const std::vector<Seed>& seeds) {
  auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  const int rounds = 1 + int(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    switch (rng() % 12) {
      case 0:
      case 1:
      case 2:
        mutate_fatbin_field(b, rng);
        break;
      case 3:
      case 4:
        mutate_elf_field(b, rng);
        break;
      case 5:  // flip a bit
        if (!b.empty()) b[pick(b.size())] ^= uint8_t(1u << (rng() % 8));
        break;
      case 6:  // random bytes somewhere
        for (int i = 0, n = 1 + int(rng() % 8); i < n && !b.empty(); ++i)
          b[pick(b.size())] = uint8_t(rng());
        break;
      case 7:  // truncate
        b.resize(pick(b.size() + 1));
        break;
      case 8: {  // insert or delete a few bytes (shifts everything after)
        const size_t at = pick(b.size() + 1), n = 1 + pick(16);
        if (rng() % 2)
          b.insert(b.begin() + ptrdiff_t(at), n, uint8_t(rng() % 2 ? 0 : rng()));
        else
          b.erase(b.begin() + ptrdiff_t(at), b.begin() + ptrdiff_t(std::min(b.size(), at + n)));
        break;
      }
      case 9: {  // duplicate or drop a container
        std::vector<size_t> cs, es;
        find_headers(b, cs, es);
        if (cs.empty()) break;
        const size_t i = pick(cs.size());
        const size_t end = i + 1 < cs.size() ? cs[i + 1] : b.size();
        Bytes one(b.begin() + ptrdiff_t(cs[i]), b.begin() + ptrdiff_t(end));
        if (rng() % 2)
          b.insert(b.begin() + ptrdiff_t(end), one.begin(), one.end());
        else
          b.erase(b.begin() + ptrdiff_t(cs[i]), b.begin() + ptrdiff_t(end));
        break;
      }
      default: {  // splice a range from another seed
        const Bytes& o = seeds[pick(seeds.size())].bytes;
        if (o.empty()) break;
        const size_t from = pick(o.size()), n = 1 + pick(std::min<size_t>(512, o.size() - from));
        const size_t at = pick(b.size() + 1);
        if (rng() % 2) {
          b.insert(b.begin() + ptrdiff_t(at), o.begin() + ptrdiff_t(from),
                   o.begin() + ptrdiff_t(from + n));
        } else {
          for (size_t k = 0; k < n && at + k < b.size(); ++k) b[at + k] = o[from + k];
        }
        break;
      }
    }
  }
  return b;
}

enum class Outcome { ok, failure };

struct Result {
  Outcome outcome = Outcome::ok;
  std::string what;
  fuzz::Counts counts;
};

Result run_one(const Bytes& input) {
  // An exactly sized heap copy: AddressSanitizer reports any read past its end.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[std::max<size_t>(input.size(), 1)]);
  std::copy(input.begin(), input.end(), copy.get());
  try {
    Result r;
    r.counts = fuzz::exercise(copy.get(), input.size());
    return r;
  } catch (const std::exception& e) {
    return {Outcome::failure, std::string("unexpected exception: ") + e.what(), {}};
  } catch (...) {
    return {Outcome::failure, "unexpected non-standard exception", {}};
  }
}

// ---- tests ----------------------------------------------------------------------------------

TEST(FatbinFuzz, EverySeedIsRead) {
  const auto seeds = load_seeds();
  ASSERT_GE(seeds.size(), 20u) << SIMTLAB_TEST_DATA_DIR;
  for (const Seed& s : seeds) {
    Result r = run_one(s.bytes);
    EXPECT_EQ(r.outcome, Outcome::ok) << s.name << ": " << r.what;
    EXPECT_GT(r.counts.ok, 0u) << s.name;
  }
  // The re-encoded seeds hold the same entries as the originals.
  for (const Seed& s : seeds) {
    if (!s.name.ends_with(".fatbin")) continue;
    const auto it = std::find_if(seeds.begin(), seeds.end(),
                                 [&](const Seed& o) { return o.name == s.name + ".raw"; });
    ASSERT_NE(it, seeds.end());
    const auto a = parse(s.bytes.data(), s.bytes.size());
    const auto b = parse(it->bytes.data(), it->bytes.size());
    ASSERT_EQ(a.size(), b.size()) << s.name;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].ptx, b[i].ptx) << s.name << " entry " << i;
      EXPECT_EQ(a[i].image, b[i].image) << s.name << " entry " << i;
      EXPECT_EQ(a[i].container, b[i].container) << s.name << " entry " << i;
    }
  }
}

TEST(FatbinFuzz, LibFuzzerDriverRunsOnTheSeeds) {
  // The libFuzzer entry point (fatbin_libfuzzer.cpp) is built into this test so that it is
  // compiled and run in every build, not only with -DSIMTLAB_LIBFUZZER=ON.
  for (const Seed& s : load_seeds())
    EXPECT_EQ(LLVMFuzzerTestOneInput(s.bytes.data(), s.bytes.size()), 0) << s.name;
  EXPECT_EQ(LLVMFuzzerTestOneInput(nullptr, 0), 0);
}

TEST(FatbinFuzz, MutationsNeverCrash) {
  const auto seeds = load_seeds();
  ASSERT_FALSE(seeds.empty());
  const uint64_t seconds = env_u64("SIMTLAB_FUZZ_SECONDS", 0);  // 0: count-bounded
  const uint64_t inputs = env_u64("SIMTLAB_FUZZ_INPUTS", 60000);
  const uint64_t seed = env_u64("SIMTLAB_FUZZ_SEED", 0xfa7b1);
  std::mt19937_64 rng(seed);
  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  size_t runs = 0, failures = 0, steps_ok = 0, steps_rejected = 0;
  while (seconds ? Clock::now() < deadline : runs < inputs) {
    const Seed& s = seeds[rng() % seeds.size()];
    const Bytes input = mutate(s.bytes, rng, seeds);
    const double t0 = thread_cpu_seconds();
    Result r = run_one(input);
    const double secs = thread_cpu_seconds() - t0;
    ++runs;
    steps_ok += r.counts.ok;
    steps_rejected += r.counts.rejected;
    if (r.outcome == Outcome::failure || secs > 5.0) {
      ++failures;
      const std::string file = "fatbin_fuzz_failure_" + std::to_string(failures) + ".bin";
      std::ofstream(file, std::ios::binary)
          .write(reinterpret_cast<const char*>(input.data()), std::streamsize(input.size()));
      ADD_FAILURE() << (secs > 5.0 ? "slow input: CPU time (" + std::to_string(secs) + " s)"
                                   : r.what)
                    << "\nseed " << s.name << ", input saved to " << file;
      if (failures >= 5) break;
    }
  }
  std::printf("fatbin fuzz: %zu inputs (seed %llu): %zu steps read, %zu rejected, %zu failures\n",
              runs, static_cast<unsigned long long>(seed), steps_ok, steps_rejected, failures);
  EXPECT_GT(runs, 0u);
  // Both outcomes must occur, or the mutations are not reaching anything.
  EXPECT_GT(steps_ok, runs);
  EXPECT_GT(steps_rejected, runs / 4);
}

}  // namespace
}  // namespace simtlab::ptx::fatbin
