// The workload manifest reader (src/tools/manifest.h): the shipped manifest parses, every error
// names the file and the key path, and kernel symbols map to their base names.
#include "tools/manifest.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "base/error.h"

namespace simtlab::tools {
namespace {

std::string write_tmp(const std::string& text) {
  static int n = 0;
  const std::string path = ::testing::TempDir() + "/manifest_" + std::to_string(::getpid()) + "_" +
                           std::to_string(n++) + ".yaml";
  std::ofstream(path) << text;
  return path;
}

const char* kHead = R"(sets:
  s1: {description: "one", gpu: fermi-c2050, set: ["sm.shared_bytes=16K"]}
workloads:
)";

const char* kGood = R"(- name: w
  binary: w
  args: ["1"]
  analog: {suite: S, app: A}
  source: "src"
  check: "exact"
  kernels:
    - kernel: k
      analog_of: K
      sets: [s1]
      threads: 256
      shared_bytes: 3072
      regs: 36
      regs_measured: 35
      resident_blocks: 3
      limited_by: registers
)";

std::string error_of(const std::string& text) {
  try {
    load_manifest(write_tmp(text));
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Manifest, ParsesEveryField) {
  const Manifest m = load_manifest(write_tmp(std::string(kHead) + kGood));
  ASSERT_EQ(m.workloads.size(), 1u);
  const Workload& w = m.workloads[0];
  EXPECT_EQ(w.name, "w");
  EXPECT_EQ(w.args, std::vector<std::string>{"1"});
  EXPECT_EQ(w.suite, "S");
  ASSERT_EQ(w.kernels.size(), 1u);
  const ManifestKernel& k = w.kernels[0];
  EXPECT_EQ(k.threads, 256u);
  EXPECT_EQ(k.shared_bytes, 3072u);
  EXPECT_EQ(k.regs.value(), 36u);
  EXPECT_EQ(k.regs_measured.value(), 35u);
  EXPECT_EQ(k.resident_blocks.value(), 3u);
  EXPECT_EQ(k.limited_by, "registers");
  EXPECT_TRUE(w.in_set("s1"));
  EXPECT_FALSE(w.in_set("s2"));
  EXPECT_EQ(m.sets.at("s1").sets, std::vector<std::string>{"sm.shared_bytes=16K"});
}

TEST(Manifest, ErrorsNameTheKeyPath) {
  auto bad = [](const std::string& from, const std::string& to) {
    std::string t = std::string(kHead) + kGood;
    t.replace(t.find(from), from.size(), to);
    return error_of(t);
  };
  EXPECT_NE(
      bad("threads: 256", "threads: many")
          .find("workloads[0] (w).kernels[0].threads: expected a non-negative integer, got 'many'"),
      std::string::npos);
  EXPECT_NE(
      bad("sets: [s1]", "sets: [s9]").find("workloads[0] (w).kernels[0].sets[0]: unknown set 's9'"),
      std::string::npos);
  EXPECT_NE(bad("regs: 36", "regz: 36").find("workloads[0] (w).kernels[0].regz: unknown key"),
            std::string::npos);
  EXPECT_NE(bad("  check: \"exact\"\n", "").find("workloads[0] (w).check: missing"),
            std::string::npos);
  EXPECT_NE(bad("name: w", "name: W-1").find("workloads[0].name: 'W-1' is not [a-z0-9_]+"),
            std::string::npos);
  EXPECT_NE(
      bad("limited_by: registers", "limited_by: luck").find(".limited_by: 'luck' is not one of"),
      std::string::npos);
  // A duplicate name, and a YAML syntax error with its line and column.
  EXPECT_NE(error_of(std::string(kHead) + kGood + kGood)
                .find("workloads[1].name: duplicate workload name 'w'"),
            std::string::npos);
  EXPECT_NE(error_of("sets: {a: [}\n").find(":1:"), std::string::npos);
  EXPECT_NE(error_of("sets: {}\n").find("workloads: missing or not a list"), std::string::npos);
  EXPECT_NE(error_of(std::string(kHead) + kGood).find("(no error)"), std::string::npos);
}

TEST(Manifest, MissingFile) {
  std::string err = "(no error)";
  try {
    load_manifest("/nonexistent/manifest.yaml");
  } catch (const UserError& e) {
    err = e.what();
  }
  EXPECT_NE(err.find("/nonexistent/manifest.yaml: cannot read"), std::string::npos);
}

TEST(Manifest, KernelBaseNames) {
  EXPECT_EQ(kernel_base_name("_Z14calculate_tempiPf"), "calculate_temp");
  EXPECT_EQ(kernel_base_name("_Z6VecAddPKfS0_Pfi"), "VecAdd");
  EXPECT_EQ(kernel_base_name("_Z24convolutionColumnsKernelILi8EEvPfPKfiii"),
            "convolutionColumnsKernel");
  EXPECT_EQ(kernel_base_name("_ZN2ns6nested3fooEv"), "foo");
  EXPECT_EQ(kernel_base_name("_ZN2ns3barILi4EEEvPi"), "bar");
  EXPECT_EQ(kernel_base_name("_ZL6staticPi"), "static");
  EXPECT_EQ(kernel_base_name("extern_c_kernel"), "extern_c_kernel");
  EXPECT_EQ(kernel_base_name("_Z"), "_Z");
  EXPECT_EQ(kernel_base_name("_Z99x"), "_Z99x");  // length past the end: unchanged
}

}  // namespace
}  // namespace simtlab::tools
