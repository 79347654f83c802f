#include "timing/mem/dram_scheduler.h"

#include "base/error.h"

namespace simtlab::timing {

// Implementations (one file each).
std::unique_ptr<DramScheduler> make_fcfs_scheduler(uint32_t banks);
std::unique_ptr<DramScheduler> make_frfcfs_scheduler(uint32_t banks);

namespace {

struct Entry {
  const char* name;
  DramSchedulerFactory make;
};

// The registry: one line per scheduler.
constexpr Entry kSchedulers[] = {
    {"fcfs", &make_fcfs_scheduler},
    {"frfcfs", &make_frfcfs_scheduler},
};

}  // namespace

std::vector<std::string> dram_scheduler_names() {
  std::vector<std::string> v;
  for (const Entry& e : kSchedulers) v.emplace_back(e.name);
  return v;
}

std::unique_ptr<DramScheduler> make_dram_scheduler(std::string_view name, uint32_t banks) {
  for (const Entry& e : kSchedulers)
    if (name == e.name) return e.make(banks);
  panic(__FILE__, __LINE__, "unknown DRAM scheduler '" + std::string(name) + "'");
}

}  // namespace simtlab::timing
