// Statistics of dynamic warp formation (sim.divergence=dwf): the SM's group `dwf`, present only
// when on. Fung et al. (MICRO 2007) report SIMD efficiency / IPC (the SM's simd_efficiency and
// ipc), and discuss the pool's size and the costs of mixing threads of different warps
// (register-bank conflicts; uncoalesced accesses show in the L1 statistics).
#pragma once

#include "stats/group.h"

namespace simtlab::ext::dwf {

class DwfStats {
 public:
  explicit DwfStats(stats::Group& sm)
      : g_(sm.child("dwf")),
        formed_(g_.counter("warps_formed", "warps",
                           "Pool warps formed after branches (threads that found no free lane in "
                           "a pool warp at their PC)")),
        branches_(
            g_.counter("divergent_branches", "branches", "Branches whose threads went to two PCs")),
        syncs_(g_.counter("sync_reforms", "warps",
                          "Static warps re-formed at barriers and warp-collective instructions")),
        mixed_(g_.counter("mixed_warp_insts", "warp instructions",
                          "Warp instructions issued by warps holding threads of more than one "
                          "home warp")),
        bank_(g_.counter("extra_bank_conflicts", "cycles",
                         "Register-bank conflict cycles of formed warps beyond their first home "
                         "warp's own")),
        pool_(g_.histogram("pool_warps", "warps", "Warps in the CTA's pool after each branch",
                           {1, 2, 4, 8, 16, 32, 64})) {}

  void on_branch(bool divergent, uint32_t formed, size_t pool) {
    branches_ += divergent;
    formed_ += formed;
    pool_.sample(pool);
  }
  void on_sync(uint32_t n) { syncs_ += n; }
  void on_issue(size_t pieces, uint32_t extra_bank) {
    mixed_ += pieces > 1;
    bank_ += extra_bank;
  }

 private:
  stats::Group& g_;
  stats::Counter &formed_, &branches_, &syncs_, &mixed_, &bank_;
  stats::Histogram& pool_;
};

}  // namespace simtlab::ext::dwf
