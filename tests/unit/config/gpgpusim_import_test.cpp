// GPGPU-Sim gpgpusim.config import (src/tools/gpgpusim_import.cpp) against bad input: every
// malformed line, and every malformed value of a modelled option, is an error naming file:line
// and the option; unknown options and valid settings simtlab does not model are listed as
// ignored.
#include "tools/gpgpusim_import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "config/config.h"
#include "timing/gpu_params.h"

namespace simtlab::tools {
namespace {

namespace fs = std::filesystem;

class GpgpusimImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("simtlab_import_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    file_ = (dir_ / "gpgpusim.config").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  GpgpusimImport import(const std::string& text) {
    std::ofstream(file_) << text;
    return import_gpgpusim_config(file_, schema_);
  }
  // The message of the UserError the import of `text` throws ("" if none).
  std::string error(const std::string& text) {
    try {
      import(text);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }
  std::string error_of_resolve(const std::string& text) {
    try {
      resolve(text);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }
  // Import and resolve on the GTX480 preset, as `simtlab run --gpu file` does.
  config::Config resolve(const std::string& text) {
    GpgpusimImport imp = import(text);
    return config::Config::resolve(schema_, {SIMTLAB_CONFIGS_DIR}, "fermi-gtx480", imp.overrides,
                                   imp.origins);
  }

  fs::path dir_;
  std::string file_;
  config::Schema schema_ = config::schema_of<timing::GpuParams>();
};

TEST_F(GpgpusimImportTest, LinesThatAreNotOptionsAreErrors) {
  EXPECT_EQ(error("# comment\n\n-gpgpu_n_mem 8\ngarbage line\n"),
            file_ + ":4: expected an option line '-name value', got 'garbage line'");
  EXPECT_EQ(error("-gpgpu_n_mem 8\n- 3\n"), file_ + ":2: malformed option name '-'");
  EXPECT_EQ(error("-gpgpu_n$mem 8\n"), file_ + ":1: malformed option name '-gpgpu_n$mem'");
  EXPECT_EQ(error("-gpgpu_dram_timing_opt \"nbk=16:CCD=2:\n   RRD=6\n"),
            file_ + ":1: -gpgpu_dram_timing_opt: unterminated quoted value");
}

TEST_F(GpgpusimImportTest, MalformedNumbersNameTheLineAndTheOption) {
  // Issue #10: this used to say "error: stoul".
  EXPECT_EQ(error("-gpgpu_n_mem 8\n-gpgpu_n_clusters 99999999999999999999\n"),
            file_ +
                ":2: -gpgpu_n_clusters: must fit in uint32 (0..4294967295), got "
                "'99999999999999999999'");
  EXPECT_EQ(error("-gpgpu_n_cores_per_cluster x\n"),
            file_ + ":1: -gpgpu_n_cores_per_cluster: expected an unsigned integer, got 'x'");
  EXPECT_EQ(error("-gpgpu_n_mem abc\n"),
            file_ + ":1: -gpgpu_n_mem: mem.map.channels: expected an unsigned integer, got 'abc'");
  EXPECT_EQ(error("-gpgpu_n_mem\n"), file_ + ":1: -gpgpu_n_mem: missing value");
  EXPECT_EQ(error("-gpgpu_clock_domains 700.0:fast:700.0:924.0\n"),
            file_ + ":1: -gpgpu_clock_domains: gpu.icnt_mhz: expected a number, got 'fast'");
  EXPECT_EQ(error("-ptx_opcode_latency_int 4,13,x,5,145,32\n"),
            file_ +
                ":1: -ptx_opcode_latency_int: sm.int_mul.latency: expected an unsigned "
                "integer, got 'x'");
  EXPECT_EQ(error("-gpgpu_dram_buswidth 4\n-gpgpu_n_mem_per_ctrlr -2\n"),
            file_ + ":2: -gpgpu_n_mem_per_ctrlr: expected an unsigned integer, got '-2'");
  EXPECT_EQ(error("-gpgpu_gmem_skip_L1D maybe\n"),
            file_ + ":1: -gpgpu_gmem_skip_L1D: expected an unsigned integer, got 'maybe'");
}

TEST_F(GpgpusimImportTest, ValuesOutsideTheParameterRulesNameTheLineAndTheOption) {
  EXPECT_EQ(error("-gpgpu_n_mem 0\n"),
            file_ + ":1: -gpgpu_n_mem: mem.map.channels: must be in [1, 512], got 0");
  EXPECT_EQ(error("-gpgpu_n_clusters 2000\n"),
            file_ + ":1: -gpgpu_n_clusters: gpu.num_sms: must be in [1, 1024], got 2000");
  EXPECT_EQ(error("-gpgpu_n_clusters 100\n-gpgpu_n_cores_per_cluster 100\n"),
            file_ + ":1: -gpgpu_n_clusters: gpu.num_sms: must be in [1, 1024], got 10000");
  EXPECT_EQ(error("-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,S:100000:8,8\n"),
            file_ + ":1: -gpgpu_cache:dl1: sm.l1d.mshrs: must be in [1, 4096], got 100000");
}

TEST_F(GpgpusimImportTest, MalformedStructuredValues) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-gpgpu_cache:dl1 N:32:128:4\n",
       "-gpgpu_cache:dl1: expected <geometry>,<policies>,<mshr>[,<miss queue>] (e.g. "
       "N:32:128:4,L:L:m:N:H,S:64:8,8), got 'N:32:128:4'"},
      {"-gpgpu_cache:dl1 N:32:128,L:L:m:N:H,S:64:8,8\n",
       "-gpgpu_cache:dl1: expected the geometry [N|S:]<nsets>:<bsize>:<assoc>, got 'N:32:128'"},
      {"-gpgpu_cache:dl1 Q:32:128:4,L:L:m:N:H,S:64:8,8\n",
       "-gpgpu_cache:dl1: cache kind must be N (normal) or S (sectored), got 'Q'"},
      {"-gpgpu_cache:dl1 N:32:x:4,L:L:m:N:H,S:64:8,8\n",
       "-gpgpu_cache:dl1: bsize: expected an unsigned integer, got 'x'"},
      {"-gpgpu_cache:dl1 N:32:128:4,L:L,S:64:8,8\n",
       "-gpgpu_cache:dl1: expected the policies <rep>:<wr>:<alloc>:<wr_alloc>[:<index>], got "
       "'L:L'"},
      {"-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,S:64,8\n",
       "-gpgpu_cache:dl1: expected the MSHRs <type>:<entries>:<merge>, got 'S:64'"},
      {"-gpgpu_cache:dl1 N:4294967295:4294967295:4294967295,L:L:m:N:H,S:64:8,8\n",
       "-gpgpu_cache:dl1: capacity: 18446744065119617025 x 4294967295 is too large"},
      {"-gpgpu_clock_domains 700:700\n",
       "-gpgpu_clock_domains: expected <core>:<icnt>:<l2>:<dram> clocks in MHz, got '700:700'"},
      {"-gpgpu_shader_core_pipeline 1536\n",
       "-gpgpu_shader_core_pipeline: expected <threads>:<warp size>, got '1536'"},
      {"-gpgpu_shader_core_pipeline 1536:0\n",
       "-gpgpu_shader_core_pipeline: warp size must be >= 1, got '0'"},
      {"-gpgpu_dram_timing_opt nbk=16:CCD\n",
       "-gpgpu_dram_timing_opt: expected name=value timings separated by ':', got 'CCD'"},
      {"-gpgpu_dram_timing_opt nbk=16:tFOO=3\n",
       "-gpgpu_dram_timing_opt: unknown DRAM timing 'tFOO' (known: CCD, CCDL, CDLR, CL, RAS, RC, "
       "RCD, RP, RRD, RTPL, WL, WR, nbk, nbkgrp)"},
      {"-gpgpu_dram_timing_opt nbk=x\n",
       "-gpgpu_dram_timing_opt: mem.dram.banks: expected an integer, got 'x'"},
      {"-gpgpu_scheduler fastest\n",
       "-gpgpu_scheduler: unknown warp scheduler 'fastest' (GPGPU-Sim has lrr, gto, "
       "two_level_active, old, rrr, warp_limiting)"},
      {"-gpgpu_dram_scheduler 2\n",
       "-gpgpu_dram_scheduler: expected 0 (FIFO) or 1 (FR-FCFS), got '2'"},
      {"-gpgpu_occupancy_sm_number 5\n",
       "-gpgpu_occupancy_sm_number: expected an SM version such as 20 or 70, got '5'"},
      {"-ptx_opcode_latency_fp 4,13,4,5,39,7\n",
       "-ptx_opcode_latency_fp: expected at most 5 comma-separated values, got 6"},
  };
  for (const auto& [text, err] : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(error(text), file_ + ":1: " + err);
  }
}

TEST_F(GpgpusimImportTest, UnknownOptionsAndUnmodelledSettingsAreIgnored) {
  GpgpusimImport imp = import(
      "-gpgpu_some_new_option 3\n-gpgpu_scheduler warp_limiting:2:4\n"
      "-gpgpu_dram_timing_opt 2:8:12:25:10:35:9:10\n-gpgpu_n_mem 4\n");
  EXPECT_EQ(imp.ignored, (std::vector<std::string>{"gpgpu_some_new_option", "gpgpu_scheduler",
                                                   "gpgpu_dram_timing_opt"}));
  EXPECT_EQ(imp.overrides, (std::vector<std::string>{"mem.map.channels=4"}));
  EXPECT_EQ(imp.origins, (std::vector<std::string>{file_ + ":4: -gpgpu_n_mem"}));
}

TEST_F(GpgpusimImportTest, RulesBetweenParametersNameTheOptionsLine) {
  EXPECT_EQ(error_of_resolve("-gpgpu_n_mem 4\n-gpgpu_cache:dl1 N:24:128:4,L:L:m:N:H,S:64:8,8\n"),
            file_ +
                ":2: -gpgpu_cache:dl1: sm.l1d.index: the fermi set index needs 32 or 64 sets "
                "(size 12288 / (line 128 x assoc 4) = 24 sets), got 'fermi'");
  EXPECT_EQ(error_of_resolve("-gpgpu_dram_timing_opt \"nbk=8:CCD=2\"\n"),
            file_ +
                ":1: -gpgpu_dram_timing_opt: mem.dram.banks: must equal the 16 banks "
                "mem.map.layout encodes (4 B bits), got 8");
  config::Config cfg = resolve("\n-gpgpu_n_mem 4\n");
  EXPECT_EQ(cfg.origin_of("mem.map.channels"), file_ + ":2: -gpgpu_n_mem");
}

TEST_F(GpgpusimImportTest, PreSectoringCacheStringsImport) {
  // GPGPU-Sim's TeslaC2050 configuration: no N/S field, four policy fields.
  GpgpusimImport imp = import("-gpgpu_cache:dl2 64:128:16,L:B:m:W,A:32:4,4\n");
  EXPECT_TRUE(imp.ignored.empty());
  config::Config cfg = resolve("-gpgpu_cache:dl2 64:128:16,L:B:m:W,A:32:4,4\n");
  EXPECT_EQ(cfg.get<uint32_t>("mem.l2.slice.size"), 131072u);
  EXPECT_EQ(cfg.get<bool>("mem.l2.slice.sectored"), false);
  EXPECT_EQ(cfg.get<uint32_t>("mem.l2.slice.mshrs"), 32u);
  EXPECT_EQ(cfg.get<uint32_t>("mem.l2.slice.miss_queue"), 4u);
}

TEST_F(GpgpusimImportTest, TheTestedConfigurationsImportAndResolve) {
  for (const char* name : {"gpgpusim-SM2_GTX480.config", "gpgpusim-SM7_QV100.config"}) {
    SCOPED_TRACE(name);
    const std::string path = std::string(SIMTLAB_TEST_DATA_DIR) + "/gpgpusim/" + name;
    GpgpusimImport imp = import_gpgpusim_config(path, schema_);
    ASSERT_EQ(imp.overrides.size(), imp.origins.size());
    EXPECT_NO_THROW(config::Config::resolve(schema_, {SIMTLAB_CONFIGS_DIR}, "fermi-gtx480",
                                            imp.overrides, imp.origins));
  }
}

// Every option of the two shipped configurations is either imported or has a documented
// reason in ignore_reason() (safe to ignore, or the mechanism simtlab lacks).
TEST_F(GpgpusimImportTest, EveryIgnoredOptionOfTheShippedConfigsHasAReason) {
  for (const char* name : {"gpgpusim-SM2_GTX480.config", "gpgpusim-SM7_QV100.config"}) {
    SCOPED_TRACE(name);
    const std::string path = std::string(SIMTLAB_TEST_DATA_DIR) + "/gpgpusim/" + name;
    GpgpusimImport imp = import_gpgpusim_config(path, schema_);
    EXPECT_FALSE(imp.ignored.empty());
    for (const std::string& o : imp.ignored) EXPECT_NE(ignore_reason(o), "") << o;
  }
  EXPECT_EQ(ignore_reason("gpgpu_some_new_option"), "");
}

TEST_F(GpgpusimImportTest, ShippedConfigsIgnoreExactlyTheseOptions) {
  const std::string dir = std::string(SIMTLAB_TEST_DATA_DIR) + "/gpgpusim/";
  EXPECT_EQ(
      import_gpgpusim_config(dir + "gpgpusim-SM2_GTX480.config", schema_).ignored,
      (std::vector<std::string>{
          "gpgpu_ptx_instruction_classification", "gpgpu_ptx_sim_mode",
          "gpgpu_ptx_force_max_capability", "gpgpu_ptx_convert_to_ptxplus",
          "gpgpu_ptx_save_converted_ptxplus", "gpgpu_pipeline_widths", "gpgpu_shmem_sizeDefault",
          "gpgpu_operand_collector_num_units_sfu", "gpgpu_operand_collector_num_in_ports_sp",
          "gpgpu_operand_collector_num_out_ports_sp", "network_mode", "inter_config_file",
          "gpgpu_mem_address_mask", "gpgpu_memlatency_stat", "gpgpu_runtime_stat",
          "enable_ptx_file_line_stats", "visualizer_enabled", "power_simulation_enabled"}));
  GpgpusimImport v = import_gpgpusim_config(dir + "gpgpusim-SM7_QV100.config", schema_);
  for (const char* o : {"gpgpu_sub_core_model", "gpgpu_adaptive_cache_config", "gpgpu_l1_banks",
                        "gpgpu_memory_partition_indexing", "dram_dual_bus_interface",
                        "icnt_arbiter_algo", "gpgpu_reg_file_port_throughput"})
    EXPECT_NE(std::find(v.ignored.begin(), v.ignored.end(), o), v.ignored.end()) << o;
  EXPECT_EQ(v.ignored.size(), 33u);
}

TEST_F(GpgpusimImportTest, KeplerAndLaterGetOneSameAddressAtomicPerClock) {
  // Fermi (the base preset): one per 9 clocks; compute capability 3.0+: one per clock.
  EXPECT_EQ(resolve("-gpgpu_compute_capability_major 2\n")
                .get<uint64_t>("mem.l2.atomic_same_addr_interval"),
            9u);
  EXPECT_EQ(resolve("-gpgpu_compute_capability_major 7\n")
                .get<uint64_t>("mem.l2.atomic_same_addr_interval"),
            1u);
  EXPECT_EQ(resolve("-gpgpu_compute_capability_major 3\n")
                .get<uint64_t>("mem.l2.atomic_same_addr_interval"),
            1u);
}

TEST_F(GpgpusimImportTest, MemcpyQueuesAndAddressMappingImport) {
  config::Config cfg = resolve(
      "-gpgpu_perf_sim_memcpy 0\n-gpgpu_dram_partition_queues 8:16:32:48\n"
      "-gpgpu_mem_addr_mapping dramid@9;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR."
      "RBBBCCCB.CCCSSSSS\n-gpgpu_n_cluster_ejection_buffer_size 24\n"
      "-gpgpu_memory_partition_indexing 0\n-gpgpu_coalesce_arch 70\n");
  EXPECT_EQ(cfg.get<bool>("mem.l2.memcpy_fills"), false);
  EXPECT_EQ(cfg.get<uint32_t>("mem.l2.rop_queue"), 8u);
  EXPECT_EQ(cfg.get<uint32_t>("mem.l2.dram_queue"), 16u);
  EXPECT_EQ(cfg.get<uint32_t>("mem.l2.dram_return_queue"), 32u);
  EXPECT_EQ(cfg.get<uint32_t>("mem.l2.response_queue"), 48u);
  EXPECT_EQ(cfg.get<uint32_t>("mem.map.interleave"), 512u);
  EXPECT_EQ(cfg.get<std::string>("mem.map.layout"), "RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS");
  EXPECT_EQ(cfg.get<uint32_t>("mem.icnt.sm_ejection_buffer"), 24u);
  EXPECT_EQ(cfg.get<std::string>("mem.map.hash"), "none");
  EXPECT_EQ(resolve("-gpgpu_perf_sim_memcpy 1\n").get<bool>("mem.l2.memcpy_fills"), true);
  // Settings simtlab cannot express are listed as ignored (with their reasons).
  GpgpusimImport imp = import(
      "-gpgpu_memory_partition_indexing 2\n-gpgpu_coalesce_arch 13\n"
      "-gpgpu_mem_addr_mapping DDDD.RRRR.BBBB.CCCC.SSSS\n-gpgpu_max_insn_issue_per_warp 2\n");
  EXPECT_EQ(imp.ignored,
            (std::vector<std::string>{"gpgpu_memory_partition_indexing", "gpgpu_coalesce_arch",
                                      "gpgpu_mem_addr_mapping", "gpgpu_max_insn_issue_per_warp"}));
  EXPECT_TRUE(imp.overrides.empty());
  EXPECT_EQ(error("-gpgpu_dram_partition_queues 64:64\n"),
            file_ +
                ":1: -gpgpu_dram_partition_queues: expected <icnt-L2>:<L2-dram>:<dram-L2>:"
                "<L2-icnt> queue sizes, got '64:64'");
}

}  // namespace
}  // namespace simtlab::tools
