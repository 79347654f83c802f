// DRAM organisation and timing sets, as data. All times are in DRAM command-clock cycles.
//
// Each set names its source. Values a source does not give are stated per field in
// dram_timing.cpp. A zero tFAW disables the four-activate window and a zero tREFI disables
// refresh; a zero tCCDL means "same as tCCD" (no bank-group penalty).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simtlab::timing {

struct DramTiming {
  uint32_t banks = 0;
  uint32_t bank_groups = 0;   // bank group = bank mod bank_groups (lower bank bits)
  uint32_t burst_length = 0;  // beats per column command
  uint32_t data_rate = 0;     // beats per command clock (2 = DDR, 4 = QDR)
  uint32_t tRCD = 0;          // ACT -> RD/WR, same bank
  uint32_t tRP = 0;           // PRE -> ACT, same bank
  uint32_t tRAS = 0;          // ACT -> PRE, same bank
  uint32_t tRC = 0;           // ACT -> ACT, same bank
  uint32_t tCL = 0;           // RD -> first data
  uint32_t tWL = 0;           // WR -> first data
  uint32_t tWR = 0;           // end of write data -> PRE, same bank
  uint32_t tRRD = 0;          // ACT -> ACT, different banks
  uint32_t tCCD = 0;          // column -> column, different bank groups
  uint32_t tCCDL = 0;         // column -> column, same bank group (0 = tCCD)
  uint32_t tRTP = 0;          // RD -> PRE, same bank
  uint32_t tWTR = 0;          // end of write data -> RD (GPGPU-Sim's tCDLR)
  uint32_t tRTW = 0;          // RD -> WR (bus turnaround)
  uint32_t tFAW = 0;          // window holding at most four ACTs (0 = off)
  uint32_t tREFI = 0;         // refresh interval (0 = no refresh)
  uint32_t tRFC = 0;          // REF -> ACT, all banks

  /// Command cycles one burst occupies the data bus: burst_length / data_rate.
  uint32_t tBURST() const { return burst_length / data_rate; }
};

/// The registered sets ("gddr5_h5gq1h24afr", "gddr3_thesis").
std::vector<std::string> dram_timing_names();
/// The set `name`; panics on an unknown name (the config validated it).
const DramTiming& dram_timing(std::string_view name);
/// Where the set's numbers come from.
std::string_view dram_timing_source(std::string_view name);

}  // namespace simtlab::timing
