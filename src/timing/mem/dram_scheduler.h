// DRAM request schedulers behind one interface, chosen by name (mem.dram.scheduler).
//
// Each DRAM cycle the channel lists its schedulable requests oldest first, each with the next
// command it needs (ACT if its bank is closed, PRE if the bank holds another row, RD/WR if it
// holds the request's row) and whether that command is legal this cycle. The scheduler picks
// one; the channel issues it. Requests waiting behind an older request to the same 128-byte
// block are not listed (the channel keeps same-address order itself).
//
// Contract: pick() returns an index of a `ready` candidate or -1; it must not keep pointers
// into the spans. Adding a scheduler: one file with a factory plus one line in
// dram_scheduler.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace simtlab::timing {

enum class DramCmd : uint8_t { act, pre, rd, wr, ref };

struct DramCandidate {
  uint32_t bank = 0;
  DramCmd cmd = DramCmd::act;
  bool ready = false;    // the command is legal this cycle
  bool row_hit = false;  // cmd is a column command (the bank holds the request's row)
};

class DramScheduler {
 public:
  virtual ~DramScheduler() = default;
  /// `row_hits[b]`: listed requests that hit bank b's open row.
  virtual int pick(std::span<const DramCandidate> oldest_first,
                   std::span<const uint16_t> row_hits) = 0;
};

using DramSchedulerFactory = std::unique_ptr<DramScheduler> (*)(uint32_t banks);

std::vector<std::string> dram_scheduler_names();
/// Panics on an unknown name (the config validated it).
std::unique_ptr<DramScheduler> make_dram_scheduler(std::string_view name, uint32_t banks);

}  // namespace simtlab::timing
