#include "timing/mem/memory_system.h"

#include "base/error.h"

#include <fmt/format.h>

namespace simtlab::timing {

namespace {
// Register stages between the partition and its channel (a channel pulls requests into its
// scheduler queue every cycle, so two entries keep it fed).
constexpr size_t kDramPortDepth = 2;
}  // namespace

std::vector<config::Issue> MemoryParams::validate() const {
  std::vector<config::Issue> r;
  const uint32_t banks = dram.resolve().banks;
  const uint32_t encoded = 1u << map.layout_bank_bits();
  if (banks != encoded)
    r.push_back({"dram.banks",
                 fmt::format("must equal the {} banks mem.map.layout encodes ({} B bits)", encoded,
                             map.layout_bank_bits()),
                 dram.banks == -1 ? fmt::format("{} (timing set {})", banks, dram.timing)
                                  : std::to_string(banks)});
  if (l2.partitions == 2 && map.channels % 2 != 0)
    r.push_back({"l2.partitions",
                 fmt::format("two L2 partitions need an even number of channels (mem.map.channels "
                             "is {})",
                             map.channels)});
  if (map.interleave < l2.slice.line)
    r.push_back(
        {"map.interleave", fmt::format("must be at least mem.l2.slice.line ({})", l2.slice.line)});
  return r;
}

MemorySystem::MemorySystem(const MemoryParams& p, sim::Simulation& sim, const MemoryDomains& d,
                           uint32_t num_sms, stats::Group& parent, MemoryOptions opts)
    : p_(p), num_sms_(num_sms), map_(p.map), g_("mem", &parent) {
  SIMTLAB_ASSERT(num_sms >= 1, "a memory system needs at least one SM");
  // Defence: a resolved Config passes these.
  if (auto issues = p.validate(); !issues.empty())
    throw UserError(config::format_issues("mem", issues));
  const uint32_t channels = map_.channels();
  const uint32_t slices = map_.slices();
  icnt_ = make_interconnect(p.icnt, num_sms, slices, g_);
  for (uint32_t c = 0; c < channels; ++c)
    parts_.push_back(std::make_unique<MemoryPartition>(c, p.l2, p.icnt, map_, g_, opts.keep_data));
  for (uint32_t c = 0; c < channels; ++c)
    drams_.push_back(std::make_unique<DramChannel>("dram[" + std::to_string(c) + "]", p.dram, map_,
                                                   g_, opts.keep_data));
  sim.add(*icnt_, d.icnt);
  for (auto& part : parts_) sim.add(*part, d.l2);
  for (auto& ch : drams_) sim.add(*ch, d.dram);

  for (uint32_t c = 0; c < channels; ++c) {
    std::vector<sim::Port<MemReq>*> in;
    std::vector<sim::Port<RespPacket>*> out;
    for (uint32_t s = 0; s < map_.sub_partitions(); ++s) {
      const std::string n = std::to_string(c * map_.sub_partitions() + s);
      slice_in_.push_back(std::make_unique<sim::Port<MemReq>>(
          icnt_.get(), parts_[c].get(), p.icnt.mem_ejection_buffer, "icnt->slice" + n));
      slice_out_.push_back(std::make_unique<sim::Port<RespPacket>>(
          parts_[c].get(), icnt_.get(), p.icnt.input_buffer, "slice" + n + "->icnt"));
      in.push_back(slice_in_.back().get());
      out.push_back(slice_out_.back().get());
    }
    dram_in_.push_back(
        std::make_unique<sim::Port<MemReq>>(parts_[c].get(), drams_[c].get(), kDramPortDepth));
    dram_out_.push_back(std::make_unique<sim::Port<MemResp>>(drams_[c].get(), parts_[c].get(),
                                                             p.l2.dram_return_queue));
    parts_[c]->connect(std::move(in), std::move(out), dram_in_.back().get(),
                       dram_out_.back().get());
    drams_[c]->connect(dram_in_.back().get(), dram_out_.back().get());
  }
  if (p.l2.partitions == 2) {
    if (channels % 2 != 0)
      throw UserError(
          fmt::format("mem.l2.partitions: two L2 partitions need an even number "
                      "of channels (mem.map.channels is {})",
                      channels));
    if (num_sms < 2) throw UserError("mem.l2.partitions: two L2 partitions need at least two SMs");
    if (opts.keep_data)
      throw UserError(
          "mem.l2.partitions: two L2 partitions keep near copies without coherence, so the "
          "data-carrying checker mode needs mem.l2.partitions = 1");
    const uint32_t half = channels / 2;
    for (uint32_t c = 0; c < channels; ++c) {  // link c: partition c -> its mirror
      const uint32_t m = (c + half) % channels;
      const std::string n = std::to_string(c) + "->" + std::to_string(m);
      link_req_.push_back(std::make_unique<sim::Port<MemReq>>(parts_[c].get(), parts_[m].get(),
                                                              kDramPortDepth, "link" + n));
      link_resp_.push_back(std::make_unique<sim::Port<MemResp>>(parts_[c].get(), parts_[m].get(),
                                                                kDramPortDepth, "link_resp" + n));
    }
    for (uint32_t c = 0; c < channels; ++c) {
      const uint32_t m = (c + half) % channels;
      parts_[c]->connect_peer(c / half, link_req_[c].get(), link_req_[m].get(), link_resp_[c].get(),
                              link_resp_[m].get());
    }
  }
  sm_in_.resize(num_sms);
  sm_out_.resize(num_sms);
}

MemorySystem::~MemorySystem() = default;

void MemorySystem::attach_sm(uint32_t sm, sim::Component& c) {
  SIMTLAB_ASSERT(sm < num_sms_, "attach_sm: no such SM");
  SIMTLAB_ASSERT(!sm_in_[sm], "attach_sm: SM attached twice");
  const std::string n = std::to_string(sm);
  sm_in_[sm] = std::make_unique<sim::Port<ReqPacket>>(&c, icnt_.get(), p_.icnt.input_buffer,
                                                      "sm" + n + "->icnt");
  sm_out_[sm] = std::make_unique<sim::Port<MemResp>>(icnt_.get(), &c, p_.icnt.sm_ejection_buffer,
                                                     "icnt->sm" + n);
  if (++attached_ < num_sms_) return;
  std::vector<sim::Port<ReqPacket>*> sin;
  std::vector<sim::Port<MemResp>*> sout;
  for (uint32_t i = 0; i < num_sms_; ++i) {
    sin.push_back(sm_in_[i].get());
    sout.push_back(sm_out_[i].get());
  }
  std::vector<sim::Port<MemReq>*> mout;
  std::vector<sim::Port<RespPacket>*> min;
  for (size_t s = 0; s < slice_in_.size(); ++s) {
    mout.push_back(slice_in_[s].get());
    min.push_back(slice_out_[s].get());
  }
  icnt_->connect(std::move(sin), std::move(mout), std::move(min), std::move(sout));
}

bool MemorySystem::can_send(uint32_t sm) const { return sm_in_[sm]->can_send(); }

void MemorySystem::send(uint32_t sm, MemReq req) {
  SIMTLAB_ASSERT(attached_ == num_sms_, "send before every SM was attached");
  req.sm = uint16_t(sm);
  uint32_t dest = map_.slice(req.addr);
  if (!link_req_.empty()) {  // two L2 partitions: a line homed in the other one -> near copy
    const uint32_t half = map_.channels() / 2;
    const uint32_t home = dest / map_.sub_partitions() / half;
    const uint32_t mine = uint32_t(uint64_t(sm) * 2 / num_sms_);
    if (home != mine)
      dest = mine ? dest + half * map_.sub_partitions() : dest - half * map_.sub_partitions();
  }
  sm_in_[sm]->send(make_request_packet(std::move(req), dest, p_.icnt), 1);
}

const MemResp* MemorySystem::peek(uint32_t sm) const { return sm_out_[sm]->peek(); }

MemResp MemorySystem::pop(uint32_t sm) { return sm_out_[sm]->pop(); }

void MemorySystem::update_stats() {
  icnt_->update_stats();
  for (auto& ch : drams_) ch->update_stats();
}

void MemorySystem::copy_engine_write(Addr a, uint64_t n) {
  if (!p_.l2.memcpy_fills || n == 0) return;
  const Addr end = a + n;
  const uint32_t subs = map_.sub_partitions();
  for (Addr b = a & ~Addr(kBlockBytes - 1); b < end; b += kBlockBytes) {
    const Addr lo = std::max(a, b), hi = std::min<Addr>(end, b + kBlockBytes);
    // 32-byte sectors of the block [lo, hi) covers completely.
    const uint32_t first = uint32_t((lo - b + kSectorBytes - 1) / kSectorBytes);
    const uint32_t last = uint32_t((hi - b) / kSectorBytes);
    uint32_t units = 0;
    for (uint32_t u = first; u < last; ++u) units |= 1u << u;
    const uint32_t touched_first = uint32_t((lo - b) / kSectorBytes);
    const uint32_t touched_last = uint32_t((hi - b + kSectorBytes - 1) / kSectorBytes);
    uint32_t touched = 0;
    for (uint32_t u = touched_first; u < touched_last; ++u) touched |= 1u << u;
    const uint32_t slice = map_.slice(b);
    parts_[slice / subs]->slice(slice % subs).external_write(b, units, touched);
  }
}

bool MemorySystem::idle() const {
  if (!icnt_->idle()) return false;
  for (const auto& part : parts_)
    if (!part->idle()) return false;
  for (const auto& ch : drams_)
    if (!ch->idle()) return false;
  for (const auto& pt : dram_in_)
    if (!pt->empty()) return false;
  for (const auto& pt : sm_out_)
    if (pt && !pt->empty()) return false;
  return true;
}

}  // namespace simtlab::timing
