// FR-FCFS (Rixner et al., "Memory Access Scheduling", ISCA 2000): first-ready column
// commands (row hits) before row commands, oldest first within each class. A row still wanted
// by a queued row hit is not precharged.
#include "timing/mem/dram_scheduler.h"

namespace simtlab::timing {
namespace {

class FrFcfs final : public DramScheduler {
 public:
  int pick(std::span<const DramCandidate> q, std::span<const uint16_t> row_hits) override {
    for (size_t i = 0; i < q.size(); ++i)
      if (q[i].row_hit && q[i].ready) return int(i);
    for (size_t i = 0; i < q.size(); ++i) {
      if (!q[i].ready) continue;
      if (q[i].cmd == DramCmd::pre && row_hits[q[i].bank] > 0) continue;
      return int(i);
    }
    return -1;
  }
};

}  // namespace

std::unique_ptr<DramScheduler> make_frfcfs_scheduler(uint32_t) {
  return std::make_unique<FrFcfs>();
}

}  // namespace simtlab::timing
