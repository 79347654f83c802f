#include "timing/icnt/crossbar.h"

#include <algorithm>
#include <limits>

#include "base/error.h"
#include "timing/mem/ring.h"

namespace simtlab::timing {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

std::vector<std::string> port_labels(const char* prefix, uint32_t n) {
  std::vector<std::string> v;
  for (uint32_t i = 0; i < n; ++i) v.push_back(prefix + std::to_string(i));
  return v;
}

/// One direction of the crossbar: packets of T from `in` ports to `out` ports.
template <typename T>
class Net {
 public:
  Net(uint32_t n_in, uint32_t n_out, uint32_t out_capacity, const IcntParams& p, stats::Group& g,
      const char* name, const char* out_prefix)
      : cap_(out_capacity),
        latency_(p.latency.v),
        fpc_(p.flits_per_cycle),
        in_busy_(n_in, 0),
        out_busy_(n_out, 0),
        rr_(n_out, 0),
        pipe_(n_out),
        requesters_(n_out),
        packets_(g.counter(std::string(name) + "_packets", "packets", "Packets delivered")),
        flits_(g.counter(std::string(name) + "_flits", "flits", "Flits delivered")),
        stalls_(g.counter(std::string(name) + "_stalls", "cycles",
                          "Output-cycles with a waiting packet and a full receiver buffer")),
        busy_(g.vector(std::string(name) + "_busy", "cycles", "Busy cycles per output port",
                       port_labels(out_prefix, n_out))) {
    for (auto& r : requesters_) r.reserve(n_in);
  }

  std::vector<sim::Port<Packet<T>>*> in;
  std::vector<sim::Port<T>*> out;

  /// One cycle; returns progress and lowers *wake to the next cycle something can happen
  /// (now + 1 = stay awake).
  bool step(uint64_t now, uint64_t* wake) {
    bool progress = false;
    for (auto& r : requesters_) r.clear();
    for (uint32_t i = 0; i < in.size(); ++i) {
      const Packet<T>* pk = in[i]->peek();
      if (!pk) continue;
      if (in_busy_[i] > now) {
        *wake = std::min(*wake, in_busy_[i]);
        continue;
      }
      SIMTLAB_ASSERT(pk->dest < out.size(), "packet to a nonexistent port");
      requesters_[pk->dest].push_back(i);
    }
    for (uint32_t o = 0; o < out.size(); ++o) {
      const auto& rq = requesters_[o];
      if (rq.empty()) continue;
      if (out_busy_[o] > now) {
        *wake = std::min(*wake, out_busy_[o]);
        continue;
      }
      if (pipe_[o].size() + out[o]->size() >= cap_) {
        ++stalls_;
        *wake = std::min(*wake, now + 1);
        continue;
      }
      uint32_t pick = rq.front();
      for (uint32_t i : rq)
        if (i >= rr_[o]) {
          pick = i;
          break;
        }
      Packet<T> pk = in[pick]->pop();
      const uint64_t s = (pk.flits + fpc_ - 1) / fpc_;
      in_busy_[pick] = now + s;
      out_busy_[o] = now + s;
      rr_[o] = pick + 1;
      pipe_[o].push_back(InFlight{now + latency_ + s - 2, std::move(pk.msg)});
      ++packets_;
      flits_ += pk.flits;
      busy_[o] += s;
      progress = true;
      // More packets may wait behind this one.
      *wake = std::min(*wake, now + 1);
    }
    for (uint32_t o = 0; o < out.size(); ++o) {
      Ring<InFlight>& p = pipe_[o];
      if (p.empty()) continue;
      if (p.front().ready <= now) {
        SIMTLAB_ASSERT(out[o]->can_send(), "crossbar credit accounting is broken");
        out[o]->send(p.pop_front().msg, 1);
        progress = true;
      }
      if (!p.empty()) *wake = std::min(*wake, std::max(p.front().ready, now + 1));
    }
    return progress;
  }

  bool idle() const {
    for (const auto& p : pipe_)
      if (!p.empty()) return false;
    for (const auto* port : in)
      if (!port->empty()) return false;
    return true;
  }

 private:
  struct InFlight {
    uint64_t ready = 0;  // cycle it is sent into the output port (visible one cycle later)
    T msg;
  };

  uint32_t cap_;
  uint64_t latency_;
  uint32_t fpc_;
  std::vector<uint64_t> in_busy_;
  std::vector<uint64_t> out_busy_;
  std::vector<uint32_t> rr_;
  std::vector<Ring<InFlight>> pipe_;
  std::vector<std::vector<uint32_t>> requesters_;
  stats::Counter& packets_;
  stats::Counter& flits_;
  stats::Counter& stalls_;
  stats::Vector& busy_;
};

}  // namespace

struct Crossbar::Nets {
  Nets(const IcntParams& p, uint32_t num_sms, uint32_t num_mem, stats::Group& parent)
      : g("icnt", &parent),
        req(num_sms, num_mem, p.mem_ejection_buffer, p, g, "req", "mem"),
        resp(num_mem, num_sms, p.sm_ejection_buffer, p, g, "resp", "sm"),
        cycles(g.counter("cycles", "cycles", "Interconnect cycles elapsed (update_stats)")),
        req_port_cycles(
            g.counter("req_port_cycles", "cycles", "cycles x memory ports (update_stats)")),
        resp_port_cycles(
            g.counter("resp_port_cycles", "cycles", "cycles x SM ports (update_stats)")),
        num_sms(num_sms),
        num_mem(num_mem) {
    g.ratio("req_utilization", "", "Mean busy fraction of the memory-side output ports", "req_busy",
            "req_port_cycles");
    g.ratio("resp_utilization", "", "Mean busy fraction of the SM-side output ports", "resp_busy",
            "resp_port_cycles");
  }
  stats::Group g;
  Net<MemReq> req;
  Net<MemResp> resp;
  stats::Counter& cycles;
  stats::Counter& req_port_cycles;
  stats::Counter& resp_port_cycles;
  uint32_t num_sms;
  uint32_t num_mem;
};

Crossbar::Crossbar(const IcntParams& p, uint32_t num_sms, uint32_t num_mem, stats::Group& parent)
    : Interconnect("icnt"), nets_(std::make_unique<Nets>(p, num_sms, num_mem, parent)) {}

Crossbar::~Crossbar() = default;

void Crossbar::connect(std::vector<sim::Port<ReqPacket>*> sm_in,
                       std::vector<sim::Port<MemReq>*> mem_out,
                       std::vector<sim::Port<RespPacket>*> mem_in,
                       std::vector<sim::Port<MemResp>*> sm_out) {
  SIMTLAB_ASSERT(sm_in.size() == nets_->num_sms && sm_out.size() == nets_->num_sms,
                 "crossbar SM port count mismatch");
  SIMTLAB_ASSERT(mem_in.size() == nets_->num_mem && mem_out.size() == nets_->num_mem,
                 "crossbar memory port count mismatch");
  nets_->req.in = std::move(sm_in);
  nets_->req.out = std::move(mem_out);
  nets_->resp.in = std::move(mem_in);
  nets_->resp.out = std::move(sm_out);
}

bool Crossbar::tick() {
  const uint64_t now = cycle();
  uint64_t wake = kNever;
  bool progress = nets_->req.step(now, &wake);
  progress |= nets_->resp.step(now, &wake);
  if (wake <= now + 1) return progress;
  sleep();
  if (wake != kNever) wake_at(sim().now() + (wake - now) * domain().period());
  return progress;
}

void Crossbar::update_stats() {
  nets_->cycles.value = cycle();
  nets_->req_port_cycles.value = cycle() * nets_->num_mem;
  nets_->resp_port_cycles.value = cycle() * nets_->num_sms;
}

bool Crossbar::idle() const { return nets_->req.idle() && nets_->resp.idle(); }

std::unique_ptr<Interconnect> make_crossbar(const IcntParams& p, uint32_t num_sms, uint32_t num_mem,
                                            stats::Group& parent) {
  return std::make_unique<Crossbar>(p, num_sms, num_mem, parent);
}

}  // namespace simtlab::timing
