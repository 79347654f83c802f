// Interconnect: the network between the SMs and the memory partitions' L2 slices, a
// Component in the interconnect clock domain. Implementations are chosen by name
// (mem.icnt.topology); only "crossbar" exists so far.
//
// Traffic is two independent networks: requests (SM i -> memory port j) and responses
// (memory port j -> SM i). Messages travel as packets of ceil(wire bytes / flit_size) flits,
// the wire bytes given by request_wire_bytes / response_wire_bytes (timing/mem/request.h);
// the sender fills Packet::dest and Packet::flits (make_request_packet/make_response_packet).
//
// Wiring: the caller owns all ports. Inputs are created with the interconnect as receiver;
// outputs with the interconnect as sender and the consumer as receiver. The interconnect
// delivers into an output only when the port has room (credits = the port capacity given to
// connect()), so full receivers back-pressure the network and, through the bounded input
// ports, the senders.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/describer.h"
#include "sim/sim.h"
#include "stats/group.h"
#include "timing/mem/request.h"

namespace simtlab::timing {

struct IcntParams {
  std::string topology = "crossbar";
  uint32_t flit_size = 40;
  uint32_t flits_per_cycle = 1;
  Cycle latency{3};
  uint32_t input_buffer = 64;
  uint32_t sm_ejection_buffer = 32;
  uint32_t mem_ejection_buffer = 32;
  uint32_t header_bytes = 8;

  void describe(config::Describer& d);
};

template <typename T>
struct Packet {
  T msg;
  uint32_t dest = 0;  // output port
  uint32_t flits = 1;
};
using ReqPacket = Packet<MemReq>;
using RespPacket = Packet<MemResp>;

inline uint32_t flits_for(uint32_t bytes, uint32_t flit_size) {
  return bytes == 0 ? 1 : (bytes + flit_size - 1) / flit_size;
}
inline ReqPacket make_request_packet(MemReq r, uint32_t dest, const IcntParams& p) {
  const uint32_t f = flits_for(request_wire_bytes(r, p.header_bytes), p.flit_size);
  return ReqPacket{std::move(r), dest, f};
}
inline RespPacket make_response_packet(MemResp r, const IcntParams& p) {
  const uint32_t f = flits_for(response_wire_bytes(r.req, p.header_bytes), p.flit_size);
  const uint32_t dest = r.req.sm;
  return RespPacket{std::move(r), dest, f};
}

class Interconnect : public sim::Component {
 public:
  using sim::Component::Component;
  /// sm_in[i]: SM i's requests (receiver: this). mem_out[j]: requests delivered to memory
  /// port j (capacity mem_ejection_buffer). mem_in[j]: memory port j's responses (receiver:
  /// this). sm_out[i]: responses delivered to SM i (capacity sm_ejection_buffer).
  virtual void connect(std::vector<sim::Port<ReqPacket>*> sm_in,
                       std::vector<sim::Port<MemReq>*> mem_out,
                       std::vector<sim::Port<RespPacket>*> mem_in,
                       std::vector<sim::Port<MemResp>*> sm_out) = 0;
  /// Brings time-integrated stats up to the current cycle (before a stats snapshot).
  virtual void update_stats() = 0;
  /// Nothing buffered or in flight inside the network.
  virtual bool idle() const = 0;
};

std::vector<std::string> interconnect_names();
/// Builds the topology `p.topology` for `num_sms` SM ports and `num_mem` memory ports; stats
/// go to group "icnt" under `parent`.
std::unique_ptr<Interconnect> make_interconnect(const IcntParams& p, uint32_t num_sms,
                                                uint32_t num_mem, stats::Group& parent);

}  // namespace simtlab::timing
