// MemoryParams: every parameter of the memory system below the SM (the `mem.*` config group),
// grouped as mem.map.* (address mapping), mem.icnt.* (interconnect), mem.l2.* (partitions and
// L2 slices) and mem.dram.* (DRAM channels). Defaults are the GTX480-class baseline of the
// D2MA paper (Table 1), completed from GPGPU-Sim's GTX480 configuration; each parameter names
// its source. Clocks are chip-level parameters (gpu.icnt_mhz, gpu.l2_mhz, gpu.dram_mhz).
#pragma once

#include "config/describer.h"
#include "timing/icnt/interconnect.h"
#include "timing/mem/address_map.h"
#include "timing/mem/dram.h"
#include "timing/mem/partition.h"

namespace simtlab::timing {

struct MemoryParams {
  AddressMapParams map;
  IcntParams icnt;
  L2Params l2;
  DramParams dram;

  void describe(config::Describer& d) {
    d.group("map", map, "Address mapping: channels, L2 slices, banks, rows, columns");
    d.group("icnt", icnt, "Interconnect between the SMs and the L2 slices");
    d.group("l2", l2, "Memory partitions: L2 slices, ROP pipeline, atomic unit");
    d.group("dram", dram, "DRAM channels");
  }
  /// Rules between the groups (keys relative to mem): the DRAM banks match the banks the
  /// address layout encodes; channel interleaving is at least an L2 line. Checked by the
  /// config layer at resolution and by the MemorySystem constructor.
  std::vector<config::Issue> validate() const;
};

}  // namespace simtlab::timing
