#include "config/config.h"
#include "config/describer.h"
#include "config/reference.h"
#include "config/suggest.h"

#include "base/error.h"
#include "base/types.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace simtlab::config {
namespace {

namespace fs = std::filesystem;

struct CacheParams {
  uint32_t size = 16384;
  uint32_t assoc = 4;
  std::string repl = "lru";
  bool enabled = true;
  void describe(Describer& d) {
    d.param("size", size, "bytes", "Capacity of the cache", "D2MA paper Table 1").min(1).pow2();
    d.param("assoc", assoc, "ways", "Associativity", "D2MA Table 1").range(1, 64);
    d.param("repl", repl, "", "Replacement policy", "GPGPU-Sim default")
        .one_of({"lru", "fifo", "random"});
    d.param("enabled", enabled, "", "Whether the cache exists", "");
  }
};

struct SmParams {
  int32_t num_warps = 48;
  uint32_t warp_size = 32;
  double clock_ghz = 1.4;
  Cycle latency{20};
  CacheParams l1d;
  void describe(Describer& d) {
    d.param("num_warps", num_warps, "warps", "Resident warps per SM", "Fermi whitepaper").min(1);
    d.param("warp_size", warp_size, "threads", "Threads per warp", "PTX ISA")
        .check(
            [](const uint32_t& v) -> std::optional<std::string> {
              if (v % 8 == 0) return std::nullopt;
              return "must be a multiple of 8";
            },
            "multiple of 8");
    d.param("clock_ghz", clock_ghz, "GHz", "Core clock", "").min(0.1).max(5.0);
    d.param("latency", latency, "cycles", "Pipeline latency", "").max(1000);
    d.group("l1d", l1d, "L1 data cache");
  }
};

struct TopParams {
  int64_t seed = -1;
  uint64_t dram_bytes = uint64_t(1) << 30;
  std::string label = "run";
  SmParams sm;
  void describe(Describer& d) {
    d.param("seed", seed, "", "Random seed; -1 = fixed internal seed", "");
    d.param("label", label, "", "Free-form run label", "");
    d.param("dram_bytes", dram_bytes, "bytes", "Device memory size", "GTX 480 datasheet");
    d.group("sm", sm, "Streaming multiprocessor");
  }
};

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("simtlab_config_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  Config resolve(const std::string& preset, const std::vector<std::string>& overrides = {}) {
    return Config::resolve(schema_, {dir_.string()}, preset, overrides);
  }
  // The message of the UserError that `fn` throws ("" if none).
  template <typename Fn>
  static std::string error_of(Fn fn) {
    try {
      fn();
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }
  std::string override_error(const std::string& o) {
    return error_of([&] { resolve("", {o}); });
  }

  fs::path dir_;
  Schema schema_ = schema_of<TopParams>();
};

TEST_F(ConfigTest, SchemaListsParamsInDeclarationOrderWithDefaults) {
  const auto& ps = schema_.params();
  std::vector<std::string> paths;
  for (const auto& p : ps) paths.push_back(p.path);
  EXPECT_EQ(paths,
            (std::vector<std::string>{"seed", "label", "dram_bytes", "sm.num_warps", "sm.warp_size",
                                      "sm.clock_ghz", "sm.latency", "sm.l1d.size", "sm.l1d.assoc",
                                      "sm.l1d.repl", "sm.l1d.enabled"}));
  const ParamDecl* size = schema_.find("sm.l1d.size");
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->kind, Kind::kUInt32);
  EXPECT_EQ(size->default_text, "16384");
  EXPECT_EQ(size->unit, "bytes");
  EXPECT_EQ(size->description, "Capacity of the cache");
  EXPECT_EQ(size->source, "D2MA paper Table 1");
  EXPECT_EQ(size->rules_text, ">= 1, power of 2");
  EXPECT_EQ(schema_.find("sm.l1d.assoc")->rules_text, "in [1, 64]");
  const ParamDecl* repl = schema_.find("sm.l1d.repl");
  EXPECT_EQ(repl->rules_text, "one of lru, fifo, random");
  EXPECT_EQ(repl->choices, (std::vector<std::string>{"lru", "fifo", "random"}));
  EXPECT_EQ(schema_.find("sm.clock_ghz")->default_text, "1.4");
  EXPECT_EQ(schema_.find("sm.clock_ghz")->rules_text, ">= 0.1, <= 5.0");
  EXPECT_EQ(schema_.find("sm.latency")->kind, Kind::kUInt64);
  EXPECT_EQ(schema_.find("seed")->default_text, "-1");
  EXPECT_EQ(schema_.find("sm.l1d.enabled")->default_text, "true");
  ASSERT_EQ(schema_.groups().size(), 2u);
  EXPECT_EQ(schema_.groups()[0].path, "sm");
  EXPECT_EQ(schema_.groups()[1].path, "sm.l1d");
  EXPECT_EQ(schema_.groups()[1].description, "L1 data cache");
  EXPECT_EQ(schema_.find("sm.l1d"), nullptr);
  EXPECT_NE(schema_.find_group("sm.l1d"), nullptr);
}

TEST_F(ConfigTest, DefaultsLoadBackIntoTheStruct) {
  Config c = Config::defaults(schema_);
  EXPECT_EQ(c.preset_name(), "default");
  auto p = load<TopParams>(c);
  EXPECT_EQ(p.seed, -1);
  EXPECT_EQ(p.sm.num_warps, 48);
  EXPECT_EQ(p.sm.l1d.repl, "lru");
  EXPECT_EQ(p.sm.latency, Cycle(20));
  EXPECT_EQ(c.get<uint32_t>("sm.l1d.size"), 16384u);
  EXPECT_EQ(c.origin_of("sm.l1d.size"), "default");
  EXPECT_EQ(c.source_of("sm.l1d.size"), "D2MA paper Table 1");
  EXPECT_TRUE(c.is_default("sm.num_warps"));
}

TEST_F(ConfigTest, NestedGroupsLoadWithAPrefix) {
  Config c = resolve("", {"sm.l1d.size=32K", "sm.l1d.repl=fifo", "sm.latency=7"});
  auto l1 = load<CacheParams>(c, "sm.l1d");
  EXPECT_EQ(l1.size, 32768u);
  EXPECT_EQ(l1.repl, "fifo");
  SmParams sm;
  c.apply(sm, "sm");
  EXPECT_EQ(sm.l1d.size, 32768u);
  EXPECT_EQ(sm.latency, Cycle(7));
}

TEST_F(ConfigTest, InheritanceChainChildWinsAndOverridesWinOverAll) {
  write("base.yaml",
        "name: base\n"
        "description: the root\n"
        "seed: 1\n"
        "sm:\n"
        "  num_warps: 8\n"
        "  l1d:\n"
        "    size: 1024\n"
        "    assoc: 2\n");
  write("mid.yaml",
        "inherits: base\n"
        "sm:\n"
        "  num_warps: 16\n"
        "  l1d: {size: 2048}\n");
  std::string child = write("child.yaml",
                            "inherits: mid\n"
                            "description: the leaf\n"
                            "sm.l1d.size: 4096\n");
  Config c = resolve("child", {"sm.l1d.assoc=8", "sm.l1d.assoc=16"});
  EXPECT_EQ(c.get<int64_t>("seed"), 1);                 // from base
  EXPECT_EQ(c.get<int32_t>("sm.num_warps"), 16);        // mid beats base
  EXPECT_EQ(c.get<uint32_t>("sm.l1d.size"), 4096u);     // child beats mid
  EXPECT_EQ(c.get<uint32_t>("sm.l1d.assoc"), 16u);      // the last --set beats everything
  EXPECT_EQ(c.get<std::string>("sm.l1d.repl"), "lru");  // untouched default
  EXPECT_EQ(c.preset_name(), "child");
  EXPECT_EQ(c.preset_description(), "the leaf");
  ASSERT_EQ(c.preset_files().size(), 3u);
  EXPECT_EQ(fs::path(c.preset_files()[0]).filename(), "base.yaml");
  EXPECT_EQ(c.preset_files()[2], child);
  EXPECT_EQ(c.origin_of("sm.l1d.size"), child + ":3");
  EXPECT_EQ(c.origin_of("sm.l1d.assoc"), "--set");
  EXPECT_EQ(c.origin_of("sm.l1d.repl"), "default");
  // The preset may also be given as a file path.
  EXPECT_EQ(resolve(child).hash(), resolve("child").hash());
}

TEST_F(ConfigTest, InheritanceCycleIsReported) {
  write("a.yaml", "inherits: b\n");
  write("b.yaml", "inherits: c\n");
  write("c.yaml", "inherits: a\n");
  EXPECT_EQ(error_of([&] { resolve("a"); }), "preset inheritance cycle: a -> b -> c -> a");
}

TEST_F(ConfigTest, ValueSourceLeavesKeepTheirSource) {
  write("base.yaml",
        "sm:\n"
        "  num_warps: {value: 32, source: \"Fermi whitepaper, p. 8\"}\n"
        "  l1d:\n"
        "    size: {value: 32K, source: D2MA Table 1}\n");
  write("kid.yaml", "inherits: base\nsm: {l1d: {size: 16K}}\n");
  Config b = resolve("base");
  EXPECT_EQ(b.get<int32_t>("sm.num_warps"), 32);
  EXPECT_EQ(b.source_of("sm.num_warps"), "Fermi whitepaper, p. 8");
  EXPECT_EQ(b.get<uint32_t>("sm.l1d.size"), 32u * 1024);
  EXPECT_EQ(b.source_of("sm.l1d.size"), "D2MA Table 1");
  Config k = resolve("kid");
  EXPECT_EQ(k.source_of("sm.num_warps"), "Fermi whitepaper, p. 8");
  EXPECT_EQ(k.source_of("sm.l1d.size"), "");  // overridden without a citation
}

TEST_F(ConfigTest, UnknownKeysSuggestTheNearest) {
  EXPECT_EQ(override_error("sm.num_warp=4"),
            "unknown config key 'sm.num_warp' (did you mean 'sm.num_warps'?)");
  EXPECT_EQ(override_error("sm.l1.size=4"),
            "unknown config key 'sm.l1.size' (did you mean 'sm.l1d.size'?)");
  EXPECT_EQ(override_error("num_warps=4"),
            "unknown config key 'num_warps' (did you mean 'sm.num_warps'?)");
  EXPECT_EQ(override_error("sm.bogus=4"), "unknown config key 'sm.bogus'");
  EXPECT_EQ(override_error("sm.l1d=4"),
            "'sm.l1d' is a group, not a parameter; set one of its keys");
  EXPECT_EQ(override_error("sm.num_warps"), "override 'sm.num_warps' must be key=value");
  std::string f = write("typo.yaml", "seed: 3\nsm:\n  l1d:\n    assco: 4\n");
  EXPECT_EQ(error_of([&] { resolve("typo"); }),
            f + ":4: unknown config key 'sm.l1d.assco' (did you mean 'sm.l1d.assoc'?)");
  std::string g = write("grp.yaml", "sn:\n  num_warps: 4\n");
  EXPECT_EQ(error_of([&] { resolve("grp"); }),
            g + ":1: unknown config key 'sn' (did you mean 'sm'?)");
}

TEST_F(ConfigTest, TypeErrors) {
  EXPECT_EQ(override_error("sm.l1d.size=abc"),
            "sm.l1d.size: expected an unsigned integer, got 'abc'");
  EXPECT_EQ(override_error("sm.l1d.size=-4"),
            "sm.l1d.size: expected an unsigned integer, got '-4'");
  EXPECT_EQ(override_error("sm.num_warps=4.5"), "sm.num_warps: expected an integer, got '4.5'");
  EXPECT_EQ(override_error("sm.clock_ghz=fast"), "sm.clock_ghz: expected a number, got 'fast'");
  EXPECT_EQ(override_error("sm.l1d.enabled=maybe"),
            "sm.l1d.enabled: expected a boolean (true/false/yes/no/1/0), got 'maybe'");
  EXPECT_EQ(override_error("sm.l1d.size=5G"),
            "sm.l1d.size: must fit in uint32 (0..4294967295), got '5G'");
  EXPECT_EQ(override_error("sm.num_warps=0x80000000"),
            "sm.num_warps: must fit in int32 (-2147483648..2147483647), got '0x80000000'");
  std::string f = write("bad.yaml", "sm:\n  l1d:\n    size: abc\n");
  EXPECT_EQ(error_of([&] { resolve("bad"); }),
            f + ":3: sm.l1d.size: expected an unsigned integer, got 'abc'");
  std::string l = write("list.yaml", "seed: [1, 2]\n");
  EXPECT_EQ(error_of([&] { resolve("list"); }),
            l + ":1: seed: expected a single value, got a list");
}

TEST_F(ConfigTest, RuleViolations) {
  EXPECT_EQ(override_error("sm.num_warps=-3"), "sm.num_warps: must be >= 1, got -3");
  EXPECT_EQ(override_error("sm.latency=1001"), "sm.latency: must be <= 1000, got 1001");
  EXPECT_EQ(override_error("sm.l1d.assoc=65"), "sm.l1d.assoc: must be in [1, 64], got 65");
  EXPECT_EQ(override_error("sm.l1d.size=3000"), "sm.l1d.size: must be a power of 2, got 3000");
  EXPECT_EQ(override_error("sm.l1d.size=0"), "sm.l1d.size: must be >= 1, got 0");
  EXPECT_EQ(override_error("sm.l1d.repl=plru"),
            "sm.l1d.repl: must be one of lru, fifo, random, got 'plru'");
  EXPECT_EQ(override_error("sm.warp_size=30"), "sm.warp_size: must be a multiple of 8, got 30");
  EXPECT_EQ(override_error("sm.clock_ghz=0.05"), "sm.clock_ghz: must be >= 0.1, got 0.05");
  // All violations are reported at once, in declaration order.
  EXPECT_EQ(error_of([&] {
              resolve("", {"sm.l1d.repl=x", "sm.num_warps=0"});
            }),
            "sm.num_warps: must be >= 1, got 0\nsm.l1d.repl: must be one of lru, fifo, random, "
            "got 'x'");
  // Values from a preset name their file and line.
  std::string f = write("p.yaml", "sm:\n  num_warps: 0\n");
  EXPECT_EQ(error_of([&] { resolve("p"); }), f + ":2: sm.num_warps: must be >= 1, got 0");
  // A bad value in an ancestor that the child fixes is fine.
  write("q.yaml", "inherits: p\nsm: {num_warps: 4}\n");
  EXPECT_EQ(resolve("q").get<int32_t>("sm.num_warps"), 4);
}

TEST_F(ConfigTest, ValueSpellings) {
  Config c =
      resolve("", {"sm.l1d.size=0x100", "dram_bytes=2G", "seed=-0x10", "sm.num_warps=1k",
                   "sm.l1d.enabled=no", "sm.clock_ghz=1e0", "sm.l1d.repl= fifo ", "label= a b "});
  EXPECT_EQ(c.get<uint32_t>("sm.l1d.size"), 256u);
  EXPECT_EQ(c.get<uint64_t>("dram_bytes"), uint64_t(2) << 30);
  EXPECT_EQ(c.get<int64_t>("seed"), -16);
  EXPECT_EQ(c.get<int32_t>("sm.num_warps"), 1024);
  EXPECT_FALSE(c.get<bool>("sm.l1d.enabled"));
  EXPECT_EQ(c.text("sm.clock_ghz"), "1.0");
  EXPECT_EQ(c.get<std::string>("sm.l1d.repl"), "fifo");
  EXPECT_EQ(c.get<std::string>("label"), "a b") << "override values are trimmed";
  for (const char* t : {"true", "YES", "1", "on"}) {
    Value v;
    EXPECT_FALSE(parse_value(Kind::kBool, t, v)) << t;
    EXPECT_EQ(v, Value(true)) << t;
  }
}

TEST_F(ConfigTest, UnknownPresetSuggestsAndListsAvailable) {
  write("fermi-gtx480.yaml", "description: GTX 480\n");
  write("tesla.yaml", "");
  EXPECT_EQ(error_of([&] { resolve("fermi-gtx48"); }),
            "unknown preset 'fermi-gtx48' (did you mean 'fermi-gtx480'?); searched: " +
                dir_.string() + "; available: fermi-gtx480, tesla");
  auto presets = list_presets({dir_.string()});
  ASSERT_EQ(presets.size(), 2u);
  EXPECT_EQ(presets[0].name, "fermi-gtx480");
  EXPECT_EQ(presets[0].description, "GTX 480");
}

TEST_F(ConfigTest, HashIsStableAndTracksValues) {
  Config a = Config::defaults(schema_);
  Config b = Config::defaults(schema_);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.hash().size(), 16u);
  EXPECT_EQ(a.canonical_text(),
            "dram_bytes=1073741824\nlabel=run\nseed=-1\nsm.clock_ghz=1.4\nsm.l1d.assoc=4\n"
            "sm.l1d.enabled=true\nsm.l1d.repl=lru\nsm.l1d.size=16384\nsm.latency=20\n"
            "sm.num_warps=48\nsm.warp_size=32\n");
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : a.canonical_text()) h = (h ^ ch) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  EXPECT_EQ(a.hash(), hex);
  Config c = a.with_overrides({"sm.l1d.assoc=8"});
  EXPECT_NE(c.hash(), a.hash());
  // Same values spelled differently hash the same.
  EXPECT_EQ(a.with_overrides({"sm.l1d.size=16K"}).hash(), a.hash());
  EXPECT_EQ(a.with_overrides({"sm.l1d.assoc=8"}, "gpgpusim.config").hash(), c.hash());
  EXPECT_EQ(a.with_overrides({"sm.l1d.assoc=8"}, "gpgpusim.config").origin_of("sm.l1d.assoc"),
            "gpgpusim.config");
}

TEST_F(ConfigTest, JsonIsNestedAndTyped) {
  Config c = resolve("", {"sm.l1d.enabled=false"});
  nlohmann::json j = c.to_json();
  EXPECT_EQ(j["seed"], -1);
  EXPECT_EQ(j["sm"]["num_warps"], 48);
  EXPECT_EQ(j["sm"]["clock_ghz"], 1.4);
  EXPECT_EQ(j["sm"]["l1d"]["size"], 16384);
  EXPECT_EQ(j["sm"]["l1d"]["repl"], "lru");
  EXPECT_EQ(j["sm"]["l1d"]["enabled"], false);
  EXPECT_TRUE(j["sm"]["l1d"]["size"].is_number_unsigned());
}

TEST_F(ConfigTest, DumpYamlRoundTrips) {
  write("src.yaml",
        "sm:\n  l1d:\n    size: {value: 64K, source: \"a, b\"}\n    repl: fifo\nlabel: \"yes\"\n");
  Config c = resolve("src", {"sm.clock_ghz=2"});
  std::string yaml = c.dump_yaml();
  EXPECT_NE(yaml.find("# hash: " + c.hash()), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("size: 65536  # a, b"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("label: \"yes\""), std::string::npos) << yaml;
  std::string f = write("dumped.yaml", yaml);
  Config d = resolve(f);
  EXPECT_EQ(d.hash(), c.hash());
  EXPECT_EQ(d.preset_name(), "src");
}

TEST_F(ConfigTest, ReferenceMarkdownHasARowPerParam) {
  std::string md = reference_markdown(schema_);
  EXPECT_NE(md.find("## Top level\n"), std::string::npos) << md;
  EXPECT_NE(md.find("## `sm.l1d`\n\nL1 data cache\n\n| Key | Type | Default | Unit | Rules | "
                    "Description | Source |\n|---|---|---|---|---|---|---|\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `sm.l1d.size` | uint32 | `16384` | bytes | >= 1, power of 2 | Capacity of "
                    "the cache | D2MA paper Table 1 |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `sm.l1d.repl` | string | `\"lru\"` |  | one of lru, fifo, random | "
                    "Replacement policy | GPGPU-Sim default |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `seed` | int64 | `-1` |"), std::string::npos) << md;
  EXPECT_LT(md.find("`sm.num_warps`"), md.find("## `sm.l1d`"));
}

TEST_F(ConfigTest, ReferenceTextShowsValuesAndOrigins) {
  std::string plain = reference_text(schema_);
  EXPECT_NE(plain.find("[sm.l1d] L1 data cache\n  sm.l1d.size = 16384 bytes  (uint32; >= 1, "
                       "power of 2)\n      Capacity of the cache. Source: D2MA paper Table 1\n"),
            std::string::npos)
      << plain;
  Config c = resolve("", {"sm.l1d.size=32K"});
  std::string t = reference_text(schema_, &c);
  EXPECT_NE(t.find("  sm.l1d.size = 32768 bytes  (uint32; >= 1, power of 2; default 16384; "
                   "from --set)\n      Capacity of the cache\n"),
            std::string::npos)
      << t;
}

TEST_F(ConfigTest, DuplicateYamlKeysAreRejectedWithPathAndLines) {
  std::string f = write("dup1.yaml", "seed: 1\nseed: 2\n");
  EXPECT_EQ(error_of([&] { resolve("dup1"); }),
            f + ":2: duplicate key 'seed' (first given at line 1)");
  f = write("dup2.yaml", "sm:\n  l1d:\n    size: 4K\n    assoc: 2\n    size: 8K\n");
  EXPECT_EQ(error_of([&] { resolve("dup2"); }),
            f + ":5: duplicate key 'sm.l1d.size' (first given at line 3)");
  // The same parameter spelled dotted and nested.
  f = write("dup3.yaml", "sm.l1d.size: 4K\nsm:\n  l1d:\n    size: 8K\n");
  EXPECT_EQ(error_of([&] { resolve("dup3"); }),
            f + ":4: duplicate key 'sm.l1d.size' (first given at line 1)");
  f = write("dup4.yaml", "seed: {value: 1, value: 2}\n");
  EXPECT_EQ(error_of([&] { resolve("dup4"); }),
            f + ":1: duplicate key 'seed.value' (first given at line 1)");
  f = write("dup5.yaml", "name: a\nname: b\n");
  EXPECT_EQ(error_of([&] { resolve("dup5"); }),
            f + ":2: duplicate key 'name' (first given at line 1)");
  f = write("dup6.yaml", "sm:\n  num_warps: 4\nsm:\n  warp_size: 16\n");
  EXPECT_EQ(error_of([&] { resolve("dup6"); }),
            f + ":3: duplicate key 'sm' (first given at line 1)");
  // Different keys are fine.
  write("ok.yaml", "sm:\n  num_warps: 4\n  l1d: {size: 4K}\nsm.warp_size: 16\n");
  EXPECT_EQ(resolve("ok").get<uint32_t>("sm.warp_size"), 16u);
}

// Struct-level rules: a struct with validate() is checked after every parameter passed.
struct Window {
  uint32_t lo = 1, hi = 8;
  void describe(Describer& d) {
    d.param("lo", lo, "", "Lower end", "");
    d.param("hi", hi, "", "Upper end", "");
  }
  std::vector<Issue> validate() const {
    if (lo > hi) return {Issue("lo", fmt::format("must not exceed hi ({})", hi))};
    return {};
  }
};

struct Checked {
  int32_t depth = -1;
  Window a, b;
  void describe(Describer& d) {
    d.param("depth", depth, "entries", "Depth; -1 = the built-in depth", "")
        .min(-1)
        .effective([](const int32_t& v, const ValueLookup& get) -> std::optional<Effective> {
          if (v != -1) return std::nullopt;
          return Effective{std::to_string(4 + std::get<uint64_t>(get("a.lo"))), "built-in depth",
                           "the built-in table"};
        });
    d.group("a", a, "First window");
    d.group("b", b, "Second window");
  }
  std::vector<Issue> validate() const {
    std::vector<Issue> r;
    if (a.hi + b.hi > 100) r.push_back(Issue("", "a.hi + b.hi must not exceed 100"));
    if (depth == 0) r.push_back(Issue("depth", "must not be 0", "zero"));
    return r;
  }
};

class StructCheckTest : public ConfigTest {
 protected:
  Config resolve_checked(const std::string& preset, const std::vector<std::string>& overrides,
                         const std::vector<std::string>& origins = {}) {
    return Config::resolve(checked_, {dir_.string()}, preset, overrides, origins);
  }
  std::string checked_error(const std::vector<std::string>& overrides,
                            const std::vector<std::string>& origins = {}) {
    return error_of([&] { resolve_checked("", overrides, origins); });
  }
  Schema checked_ = schema_of<Checked>();
};

TEST_F(StructCheckTest, ChecksAreRegisteredInnermostFirst) {
  ASSERT_EQ(checked_.checks().size(), 3u);
  EXPECT_EQ(checked_.checks()[0].prefix, "a");
  EXPECT_EQ(checked_.checks()[1].prefix, "b");
  EXPECT_EQ(checked_.checks()[2].prefix, "");
  EXPECT_TRUE(schema_.checks().empty());  // structs without validate() add none
}

TEST_F(StructCheckTest, ViolationsNameTheKeyPathTheRuleAndTheValue) {
  EXPECT_EQ(checked_error({"a.lo=9"}), "a.lo: must not exceed hi (8), got 9");
  EXPECT_EQ(checked_error({"a.lo=9", "b.lo=10", "b.hi=3"}),
            "a.lo: must not exceed hi (8), got 9\nb.lo: must not exceed hi (3), got 10");
  EXPECT_EQ(checked_error({"a.hi=90", "b.hi=20"}), "a.hi + b.hi must not exceed 100");
  EXPECT_EQ(checked_error({"depth=0"}), "depth: must not be 0, got zero");
  EXPECT_EQ(checked_error({"a.lo=8"}), "");  // lo == hi is fine
  // Per-parameter rules are reported first; struct checks run only when they all pass.
  EXPECT_EQ(checked_error({"depth=-2", "a.lo=9"}), "depth: must be >= -1, got -2");
}

TEST_F(StructCheckTest, AStructWhosePartFailedIsNotChecked) {
  // The top-level rule would fail too (90 + 20 > 100) but b failed first.
  EXPECT_EQ(checked_error({"a.hi=90", "b.hi=20", "b.lo=30"}),
            "b.lo: must not exceed hi (20), got 30");
}

TEST_F(StructCheckTest, PresetValuesAndImportedOverridesNameTheirOrigin) {
  std::string f = write("w.yaml", "a:\n  lo: 9\n");
  EXPECT_EQ(error_of([&] { resolve_checked("w", {}); }),
            f + ":2: a.lo: must not exceed hi (8), got 9");
  EXPECT_EQ(checked_error({"a.lo=9", "b.lo=2"}, {"imp.config:3: -opt", ""}),
            "imp.config:3: -opt: a.lo: must not exceed hi (8), got 9");
  EXPECT_EQ(checked_error({"a.loo=1"}, {"imp.config:4: -x"}),
            "imp.config:4: -x: unknown config key 'a.loo' (did you mean 'a.lo'?)");
  Config c = resolve_checked("", {"a.lo=2", "b.lo=2"}, {"imp.config:3: -opt", ""});
  EXPECT_EQ(c.origin_of("a.lo"), "imp.config:3: -opt");
  EXPECT_EQ(c.origin_of("b.lo"), "--set");
}

TEST_F(StructCheckTest, FormatIssuesJoinsPrefixKeyMessageAndValue) {
  EXPECT_EQ(format_issues("mem.map", {Issue("layout", "needs at least one R and one C bit"),
                                      Issue("", "is inconsistent", "7")}),
            "mem.map.layout: needs at least one R and one C bit\nmem.map: is inconsistent, got 7");
  EXPECT_EQ(format_issues("", {Issue("lo", "must not exceed hi (8)")}),
            "lo: must not exceed hi (8)");
}

TEST_F(StructCheckTest, InfoShowsTheValueAPlaceholderStandsFor) {
  Config c = resolve_checked("", {"a.lo=3"});
  std::string t = reference_text(checked_, &c);
  EXPECT_NE(t.find("  depth = 7 entries  (int32; >= -1; -1: the value of built-in depth)\n"
                   "      Depth; -1 = the built-in depth. Source: the built-in table\n"),
            std::string::npos)
      << t;
  c = resolve_checked("", {"depth=5"});
  t = reference_text(checked_, &c);
  EXPECT_NE(t.find("  depth = 5 entries  (int32; >= -1; default -1; from --set)\n"),
            std::string::npos)
      << t;
}

TEST(Suggest, EditDistanceAndNearest) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(nearest("SM.NUM_WARPS", {"sm.num_warps"}), "sm.num_warps");
  EXPECT_EQ(nearest("size", {"sm.l1d.size", "sm.l2.size"}), std::nullopt);
  EXPECT_EQ(nearest("zzzzzz", {"sm.num_warps"}), std::nullopt);
}

struct Dup {
  uint32_t a = 1, b = 2;
  void describe(Describer& d) {
    d.param("a", a, "", "", "");
    d.param("a", b, "", "", "");
  }
};

struct Reserved {
  uint32_t a = 1;
  void describe(Describer& d) { d.param("name", a, "", "", ""); }
};

TEST(ConfigDeathTest, DeclarationBugsPanic) {
  EXPECT_DEATH(schema_of<Dup>(), "config path declared twice: a");
  EXPECT_DEATH(schema_of<Reserved>(), "top-level config name 'name' is reserved");
}

}  // namespace
}  // namespace simtlab::config
