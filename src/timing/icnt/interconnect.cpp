#include "timing/icnt/interconnect.h"

#include "base/error.h"

namespace simtlab::timing {

// Implementations (one file each).
std::unique_ptr<Interconnect> make_crossbar(const IcntParams& p, uint32_t num_sms, uint32_t num_mem,
                                            stats::Group& parent);

namespace {

struct Entry {
  const char* name;
  std::unique_ptr<Interconnect> (*make)(const IcntParams&, uint32_t, uint32_t, stats::Group&);
};

// The registry: one line per topology.
constexpr Entry kTopologies[] = {
    {"crossbar", &make_crossbar},
};

}  // namespace

void IcntParams::describe(config::Describer& d) {
  d.param("topology", topology, "", "Network topology", "book 1.14 (NVIDIA patents: crossbar)")
      .one_of(interconnect_names());
  // Upper bounds: buffers are allocated up front, and far above real networks' sizes.
  d.param("flit_size", flit_size, "bytes", "Flit size", "GTX480 config icnt_flit_size 40")
      .range(1, 4096);  // one flit then holds any packet (a 128 B block plus header)
  d.param("flits_per_cycle", flits_per_cycle, "flits", "Flits one port moves per cycle",
          "config_fermi_islip.icnt (input_speedup = output_speedup = 1)")
      .range(1, 64);
  d.param("latency", latency, "cycles",
          "Cycles from grant to visibility at the receiver for a one-flit packet (>= 1)",
          "config_fermi_islip.icnt: vc_alloc_delay 1 + sw_alloc_delay 1 + 1 cycle switch "
          "traversal (routing_delay 0)")
      .range(1, 100000);  // real crossbars take a few cycles
  d.param("input_buffer", input_buffer, "packets", "Injection buffer per input port",
          "config_fermi_islip.icnt vc_buf_size 64 (BookSim counts flits; we count packets)")
      .range(1, 65536);  // GPGPU-Sim QV100: icnt_in_buffer_limit 512
  d.param("sm_ejection_buffer", sm_ejection_buffer, "packets",
          "Ejection buffer in front of each SM",
          "GTX480 config "
          "gpgpu_n_cluster_ejection_buffer_size 32")
      .range(1, 65536);
  d.param("mem_ejection_buffer", mem_ejection_buffer, "packets",
          "Ejection buffer in front of each L2 slice",
          "mirrors gpgpu_n_cluster_ejection_buffer_size 32 (GPGPU-Sim gives no memory-side "
          "value)")
      .range(1, 65536);
  d.param("header_bytes", header_bytes, "bytes", "Packet header (request.h wire sizes)",
          "request.h default (8 B control packets)")
      .max(4096);
}

std::vector<std::string> interconnect_names() {
  std::vector<std::string> v;
  for (const Entry& e : kTopologies) v.emplace_back(e.name);
  return v;
}

std::unique_ptr<Interconnect> make_interconnect(const IcntParams& p, uint32_t num_sms,
                                                uint32_t num_mem, stats::Group& parent) {
  for (const Entry& e : kTopologies)
    if (p.topology == e.name) return e.make(p, num_sms, num_mem, parent);
  panic(__FILE__, __LINE__, "unknown interconnect topology '" + p.topology + "'");
}

}  // namespace simtlab::timing
