// FCFS: requests to one bank are served strictly in arrival order; across banks the oldest
// request whose next command is legal goes first (so banks still work in parallel).
#include <algorithm>
#include <vector>

#include "timing/mem/dram_scheduler.h"

namespace simtlab::timing {
namespace {

class Fcfs final : public DramScheduler {
 public:
  explicit Fcfs(uint32_t banks) : seen_(banks, 0) {}
  int pick(std::span<const DramCandidate> q, std::span<const uint16_t>) override {
    std::fill(seen_.begin(), seen_.end(), 0);
    for (size_t i = 0; i < q.size(); ++i) {
      if (seen_[q[i].bank]) continue;  // an older request owns this bank
      seen_[q[i].bank] = 1;
      if (q[i].ready) return int(i);
    }
    return -1;
  }

 private:
  std::vector<uint8_t> seen_;
};

}  // namespace

std::unique_ptr<DramScheduler> make_fcfs_scheduler(uint32_t banks) {
  return std::make_unique<Fcfs>(banks);
}

}  // namespace simtlab::timing
