#include "timing/gpu/power_arch.h"

#include <cmath>

namespace simtlab::timing {

power::Arch power_arch(const GpuParams& p) {
  power::Arch a;
  const PowerParams& w = p.power;
  a.num_sms = p.gpu.num_sms;
  a.lanes = w.lanes ? w.lanes : p.sm.simd_width;
  a.warp_width = w.warp_width ? w.warp_width : p.sm.warp_size;
  a.num_warps = p.sm.num_warps;
  a.rf_partitions = w.lanes ? w.lanes : p.sm.num_reg_banks;
  a.registers = p.sm.registers;
  a.shared_words = p.sm.shared_bytes / 4;
  a.smem_banks = w.lanes ? w.lanes : p.sm.smem_banks;
  a.addr_bits = w.addr_bits ? w.addr_bits
                            : uint32_t(std::ceil(std::log2(std::max<double>(a.shared_words, 2))));
  a.imem_words = w.imem_words ? w.imem_words : p.sm.l1i.size / 4;
  a.cmem_words = w.cmem_words ? w.cmem_words : p.sm.l1c.size / 4;
  a.fetch_words = std::max(1.0, p.sm.ifetch_bytes / 4.0);
  a.memory_hierarchy = w.memory_hierarchy;
  a.l1d_bytes = p.sm.l1d.size;
  a.l1t_bytes = p.sm.l1t.size;
  a.l1_line = p.sm.l1d.line;
  a.l1c_line = p.sm.l1c.line;
  a.l2_slices = p.mem.map.channels * p.mem.map.sub_partitions;
  a.l2_bytes = uint64_t(p.mem.l2.slice.size) * a.l2_slices;
  a.l2_line = p.mem.l2.slice.line;
  a.flit_bytes = p.mem.icnt.flit_size;
  a.dram_request_bytes = p.mem.l2.slice.sectored ? p.mem.l2.slice.sector : p.mem.l2.slice.line;
  a.core_mhz = p.gpu.core_mhz;
  a.d2ma_engine = w.d2ma_engine;
  return a;
}

power::Model power_model(const GpuParams& p) {
  return power::Model(power::load_coefficients(p.power.coefficients), power_arch(p),
                      p.power.tech_nm, p.power.vdd);
}

}  // namespace simtlab::timing
