// Resource sharing (src/ext/sharing, thesis ch. 2): the allocation scheme against every entry of
// the thesis's Tables 2.6 and 2.8 and Example 2.2.4, and the SM-level mechanisms (gates, locks,
// ownership, OWF) on small kernels with exact outcomes.
#include <gtest/gtest.h>

#include <vector>

#include "ext/sharing/plan.h"
#include "ext/sharing/sharing.h"
#include "func/record.h"
#include "stats/snapshot.h"
#include "stats/writers.h"
#include "tests/unit/timing/timing_harness.h"
#include "timing/sm/scheduler.h"
#include "timing/sm/warp_slot.h"

namespace simtlab::timing::sharing {
namespace {

// Table 2.3 (Fermi C2050-like): 32768 registers, 8 blocks, 1536 threads (48 warps); 48 KB of
// scratchpad in the register runs, 16 KB in the scratchpad runs.
SmLimits table23(uint32_t smem) { return {32768, smem, 8, 1536, 48, 32}; }

struct Kernel {
  const char* name;
  uint32_t threads, regs, smem;
  std::vector<uint32_t> blocks;  // resident blocks at 0/10/30/50/70/90% sharing
};

const double kT[] = {1.0, 0.9, 0.7, 0.5, 0.3, 0.1};

// Table 2.1 (threads, registers per thread) and Table 2.6.
const Kernel kSet1[] = {
    {"backprop", 256, 24, 0, {5, 5, 5, 5, 6, 6}}, {"b+tree", 508, 24, 0, {2, 2, 2, 3, 3, 3}},
    {"hotspot", 256, 36, 0, {3, 3, 3, 4, 4, 6}},  {"LIB", 192, 36, 0, {4, 4, 5, 5, 6, 8}},
    {"MUM", 256, 28, 0, {4, 4, 4, 5, 5, 6}},      {"mri-q", 256, 24, 0, {5, 5, 5, 5, 6, 6}},
    {"sgemm", 128, 48, 0, {5, 5, 5, 5, 6, 8}},    {"stencil", 512, 28, 0, {2, 2, 2, 2, 2, 3}},
};
// Table 2.2 (threads, scratchpad bytes per block) and Table 2.8.
const Kernel kSet2[] = {
    {"CONV1", 64, 0, 2560, {6, 6, 6, 6, 7, 8}},   {"CONV2", 128, 0, 5184, {3, 3, 3, 3, 3, 4}},
    {"lavaMD", 128, 0, 7200, {2, 2, 2, 2, 2, 4}}, {"NW1", 16, 0, 2180, {7, 7, 7, 8, 8, 8}},
    {"NW2", 16, 0, 2180, {7, 7, 7, 8, 8, 8}},     {"SRAD1", 256, 0, 6144, {2, 2, 2, 3, 4, 4}},
    {"SRAD2", 256, 0, 5120, {3, 3, 3, 3, 3, 5}},
};

TEST(SharingPlan, Table26RegisterSharingResidentBlocks) {
  for (const Kernel& k : kSet1)
    for (size_t i = 0; i < 6; ++i) {
      const Plan p = make_plan(Resource::reg, kT[i], table23(49152), k.threads, k.regs, 0);
      EXPECT_EQ(p.M, k.blocks[i]) << k.name << " t=" << kT[i];
      EXPECT_EQ(p.enabled, k.blocks[i] > k.blocks[0]) << k.name << " t=" << kT[i];
      EXPECT_EQ(p.unshared + 2 * p.pairs, p.M);
    }
}

TEST(SharingPlan, Table28ScratchpadSharingResidentBlocks) {
  for (const Kernel& k : kSet2)
    for (size_t i = 0; i < 6; ++i) {
      const Plan p = make_plan(Resource::smem, kT[i], table23(16384), k.threads, 10, k.smem);
      EXPECT_EQ(p.M, k.blocks[i]) << k.name << " t=" << kT[i];
      EXPECT_EQ(p.enabled, k.blocks[i] > k.blocks[0]) << k.name << " t=" << kT[i];
    }
}

TEST(SharingPlan, PairsAndUnsharedBlocksUnderACap) {
  // MUM at t = 0.1: F = 4, S = 4, capped to 6 by 1536 threads: 2 pairs and 2 unshared blocks.
  const Plan mum = make_plan(Resource::reg, 0.1, table23(49152), 256, 28, 0);
  EXPECT_EQ(mum.F, 4u);
  EXPECT_EQ(mum.S, 4u);
  EXPECT_EQ(mum.baseline, 4u);
  EXPECT_EQ(mum.pairs, 2u);
  EXPECT_EQ(mum.unshared, 2u);
  EXPECT_EQ(mum.private_units, 2u);  // floor(0.1 x 28) registers per thread
  // hotspot: 36 x 256 = 9216 registers per block, 3 fit with 5120 wasted (thesis 2.1).
  const Plan hs = make_plan(Resource::reg, 0.1, table23(49152), 256, 36, 0);
  EXPECT_EQ(hs.R_tb, 9216u);
  EXPECT_EQ(hs.F, 3u);
  EXPECT_EQ(hs.pairs, 3u);
  EXPECT_EQ(hs.unshared, 0u);
  // b+tree's 508 threads are padded to 512.
  EXPECT_EQ(make_plan(Resource::reg, 0.1, table23(49152), 508, 24, 0).R_tb, 24u * 512);
}

TEST(SharingPlan, Example224NeverFewerEffectiveBlocksThanTheBaseline) {
  // R = 36, R_tb = 10, t = 0.8: a naive scheme launches 2 pairs (2 blocks progress, 3 in the
  // baseline); the formula gives S = floor(0.6 / 0.8) = 0: no sharing.
  SmLimits lim{0, 36, 16, 4096, 128, 32};
  const Plan p = make_plan(Resource::smem, 0.8, lim, 32, 0, 10);
  EXPECT_EQ(p.F, 3u);
  EXPECT_EQ(p.S, 0u);
  EXPECT_FALSE(p.enabled);
  EXPECT_EQ(p.M, 3u);
  // t = 0.5: S = floor(0.6 / 0.5) = 1, M = 4 = 2 unshared + 1 pair: 3 progress at least.
  const Plan q = make_plan(Resource::smem, 0.5, lim, 32, 0, 10);
  EXPECT_TRUE(q.enabled);
  EXPECT_EQ(q.pairs, 1u);
  EXPECT_EQ(q.unshared, 2u);
}

TEST(SharingPlan, Set3KernelsLimitedByThreadsOrBlocksNeverShare) {
  // backprop bpnn_layerforward (threads: 256 x 6 = 1536), a 32-register 512-thread kernel.
  EXPECT_FALSE(make_plan(Resource::reg, 0.1, table23(49152), 256, 12, 0).enabled);
  EXPECT_FALSE(make_plan(Resource::reg, 0.1, table23(49152), 512, 16, 0).enabled);
  // Blocks: 8 small blocks already fit.
  EXPECT_FALSE(make_plan(Resource::smem, 0.1, table23(16384), 64, 10, 1024).enabled);
}

// ---- the per-SM state: locks, the deadlock rule, ownership ----

struct TwoPairedCtas {
  stats::Group root{"t"};
  SharingParams p;
  std::unique_ptr<SmSharing> s;
  WarpSlot w[4];  // CTA 0: w[0], w[1]; CTA 1: w[2], w[3]
  Plan plan;
  explicit TwoPairedCtas(const std::string& mode = "reg") {
    p.mode = mode;
    s = std::make_unique<SmSharing>(p, 0, 8, 63, root);
    plan.enabled = true;
    plan.M = 2;
    plan.pairs = 1;
    plan.private_units = 1;
    s->set_regnos({1, 5, 5});  // PC 0 touches R0 only (private), PCs 1-2 a shared register
    s->on_cta_launch(this, plan, nullptr, 10, 0, {&w[0], &w[1]});
    s->on_cta_launch(this, plan, nullptr, 10, 1, {&w[2], &w[3]});
  }
  uint64_t count(const char* n) {
    return stats::to_json(root, stats::snapshot(root))["sharing"][n]["value"].get<uint64_t>();
  }
};

TEST(SharingState, PairFormationOwnerFirstAndClasses) {
  TwoPairedCtas t;
  EXPECT_EQ(t.w[0].share_class, 0);  // the resident (first) block owns
  EXPECT_EQ(t.w[1].share_class, 0);
  EXPECT_EQ(t.w[2].share_class, 2);  // the newcomer waits for the shared part
  EXPECT_EQ(t.w[3].cta_warp, 1);
  EXPECT_EQ(t.count("shared_ctas"), 2u);
}

TEST(SharingState, RegisterGatePrivateRegistersPassSharedOnesNeedTheWarpPairLock) {
  TwoPairedCtas t;
  EXPECT_TRUE(t.s->reg_gate(t.w[2], 0));  // R0 <= floor(10 x 0.1): private, no lock
  EXPECT_EQ(t.count("lock_acquisitions"), 0u);
  EXPECT_TRUE(t.s->reg_gate(t.w[0], 1));   // the owner's warp 0 takes pair lock 0
  EXPECT_FALSE(t.s->reg_gate(t.w[2], 1));  // its partner waits
  EXPECT_TRUE(t.s->reg_gate(t.w[0], 2));   // held: passes
  t.s->on_warp_exit(t.w[0]);               // released at warp exit
  EXPECT_TRUE(t.s->reg_gate(t.w[2], 1));
  EXPECT_EQ(t.w[2].share_class, 0);  // holding its lock makes it an owner warp
  EXPECT_EQ(t.count("lock_acquisitions"), 2u);
  EXPECT_EQ(t.count("lock_releases"), 1u);
}

// Fig. 2.8: W2 (CTA 0 warp 1) and W3 (CTA 1 warp 0) must not both hold locks, or each block
// waits at its barrier for a warp that waits for the other block's lock. The rule: a warp takes
// a free lock only if no warp of the partner block holds one.
TEST(SharingState, DeadlockRuleOneBlockOfAPairHoldsRegisterLocks) {
  TwoPairedCtas t;
  EXPECT_TRUE(t.s->reg_gate(t.w[1], 1));   // W2 (CTA 0) takes lock 1
  EXPECT_FALSE(t.s->reg_gate(t.w[2], 1));  // W3 (CTA 1): lock 0 is free, but CTA 0 holds one
  EXPECT_TRUE(t.s->reg_gate(t.w[0], 1));   // W1 (CTA 0) takes lock 0: no cycle forms
  EXPECT_FALSE(t.s->reg_gate(t.w[3], 1));  // W4 waits for lock 1
  t.s->on_warp_exit(t.w[0]);
  EXPECT_FALSE(t.s->reg_gate(t.w[2], 1));  // lock 0 is free, but W2 still holds lock 1
  t.s->on_warp_exit(t.w[1]);
  EXPECT_TRUE(t.s->reg_gate(t.w[2], 1));
  EXPECT_TRUE(t.s->reg_gate(t.w[3], 1));
}

TEST(SharingState, OwnershipPassesToThePartnerAndANewBlockJoinsAsNonOwner) {
  TwoPairedCtas t;
  t.s->on_warp_exit(t.w[0]);
  t.s->on_warp_exit(t.w[1]);
  t.s->on_cta_exit(0);
  EXPECT_EQ(t.w[2].share_class, 0);
  EXPECT_EQ(t.count("ownership_transfers"), 1u);
  WarpSlot n[2];
  t.s->on_cta_launch(&t, t.plan, nullptr, 10, 0, {&n[0], &n[1]});
  EXPECT_EQ(n[0].share_class, 2);
  EXPECT_EQ(t.w[3].share_class, 0);
}

TEST(SharingState, ScratchpadGateTakesTheBlockPairLockUntilTheBlockExits) {
  TwoPairedCtas t("smem");
  func::WarpInstRecord rec;
  rec.exec = 0x3;
  rec.addr[0] = 0;
  rec.addr[1] = 0;  // below floor(t x smem) = 1: private
  EXPECT_TRUE(t.s->smem_gate(t.w[2], rec));
  rec.addr[1] = 4;                           // one lane in the shared region
  EXPECT_TRUE(t.s->smem_gate(t.w[2], rec));  // free: CTA 1 takes it (and owns the pair)
  EXPECT_EQ(t.w[2].share_class, 0);
  EXPECT_EQ(t.w[0].share_class, 2);
  EXPECT_FALSE(t.s->smem_gate(t.w[0], rec));  // CTA 0 waits
  EXPECT_EQ(t.count("smem_waits"), 1u);
  EXPECT_FALSE(t.s->smem_retry(t.w[1]));
  t.s->on_warp_exit(t.w[2]);
  EXPECT_FALSE(t.s->smem_retry(t.w[1]));  // held until the block exits, not the warp
  t.s->on_warp_exit(t.w[3]);
  t.s->on_cta_exit(1);
  EXPECT_TRUE(t.s->smem_retry(t.w[1]));
  EXPECT_EQ(t.count("lock_releases"), 1u);
}

TEST(SharingState, OwfOrdersOwnersThenUnsharedThenNonOwnersGtoWithin) {
  auto s = make_scheduler("owf", 0);
  WarpSlot w[5];
  const uint8_t cls[5] = {2, 1, 0, 2, 0};
  for (uint32_t i = 0; i < 5; ++i) {
    w[i].age = i;
    w[i].share_class = cls[i];
    s->add(&w[i]);
  }
  auto ids = [&] {
    std::vector<uint64_t> v;
    for (WarpSlot* x : s->order()) v.push_back(x->age);
    return v;
  };
  EXPECT_EQ(ids(), (std::vector<uint64_t>{2, 4, 1, 0, 3}));
  s->issued(&w[4]);  // greedy within its class
  EXPECT_EQ(ids(), (std::vector<uint64_t>{4, 2, 1, 0, 3}));
  s->issued(&w[3]);  // a non-owner that issued stays behind the other classes
  EXPECT_EQ(ids(), (std::vector<uint64_t>{2, 4, 1, 3, 0}));
  for (auto& x : w) x.share_class = 1;  // nothing shared: GTO
  EXPECT_EQ(ids(), (std::vector<uint64_t>{3, 0, 1, 2, 4}));
}

TEST(SharingState, LockWaitCyclesPerWarpAndPerBlock) {
  TwoPairedCtas t;
  t.s->begin_cycle(10, 0);
  EXPECT_TRUE(t.s->reg_gate(t.w[0], 1));  // CTA 0 warp 0 takes pair lock 0
  t.s->begin_cycle(12, 0);
  EXPECT_FALSE(t.s->reg_gate(t.w[2], 1));  // CTA 1 warp 0 begins waiting at 12
  t.s->begin_cycle(14, 0);
  EXPECT_FALSE(t.s->reg_gate(t.w[2], 1));  // (still the same wait)
  EXPECT_FALSE(t.s->reg_gate(t.w[3], 1));  // warp 1: lock 1 is free, but CTA 0 holds one
  t.s->begin_cycle(20, 0);
  t.s->on_warp_exit(t.w[0]);
  EXPECT_TRUE(t.s->reg_gate(t.w[2], 1));  // waited 12..20
  t.s->begin_cycle(22, 0);
  EXPECT_TRUE(t.s->reg_gate(t.w[3], 1));  // waited 14..22
  EXPECT_EQ(t.count("lock_waits"), 2u);
  EXPECT_EQ(t.count("lock_wait_warp_cycles"), 16u);   // 8 + 8
  EXPECT_EQ(t.count("lock_wait_block_cycles"), 10u);  // CTA 1 had a waiting warp 12..22
}

TEST(SharingState, ScratchpadWaitEndsWhenAnotherWarpOfTheBlockTakesTheLock) {
  TwoPairedCtas t("smem");
  func::WarpInstRecord rec;
  rec.exec = 0x1;
  rec.addr[0] = 4;  // shared region
  t.s->begin_cycle(5, 0);
  EXPECT_TRUE(t.s->smem_gate(t.w[0], rec));  // CTA 0 holds the pair lock
  t.s->begin_cycle(6, 0);
  EXPECT_FALSE(t.s->smem_gate(t.w[2], rec));
  t.s->begin_cycle(7, 0);
  EXPECT_FALSE(t.s->smem_gate(t.w[3], rec));
  t.s->on_warp_exit(t.w[0]);
  t.s->on_warp_exit(t.w[1]);
  t.s->on_cta_exit(0);
  t.s->begin_cycle(30, 0);
  EXPECT_TRUE(t.s->smem_retry(t.w[3]));  // takes the lock for CTA 1 (waited 7..30)
  t.s->begin_cycle(31, 0);
  EXPECT_TRUE(t.s->smem_retry(t.w[2]));  // its block holds it (waited 6..31)
  EXPECT_EQ(t.count("lock_wait_warp_cycles"), 23u + 25u);
  EXPECT_EQ(t.count("lock_wait_block_cycles"), 25u);
}

// Dynamic warp execution (thesis 2.3.4): SM 0 is the reference (P = 0); every other SM starts
// at P = 1 and moves by 0.1 per 1000-cycle window: down when its window had more pipeline-stall
// slots than the reference's, up when fewer, unchanged when equal; P saturates in [0, 1].
TEST(SharingState, DynamicWarpExecutionProbabilityTrace) {
  stats::Group root{"t"};
  SharingParams p;
  p.mode = "reg";
  p.dyn = true;
  auto board = std::make_shared<DynBoard>();
  SmSharing ref(p, 0, 8, 63, root), sm1(p, 1, 8, 63, root.child("sm1"));
  ref.set_board(board);
  sm1.set_board(board);
  EXPECT_DOUBLE_EQ(ref.probability(), 0.0);
  EXPECT_DOUBLE_EQ(sm1.probability(), 1.0);
  // Cumulative stall slots at the end of each window: reference 50/window; SM 1 80, 20, 50, 90.
  const uint64_t ref_cum[] = {50, 100, 150, 200}, sm1_cum[] = {80, 100, 150, 240};
  for (uint32_t i = 0; i < 4; ++i) {
    for (uint64_t c = i * 1000 + 1; c < (i + 1) * 1000; c += 333) {
      ref.begin_cycle(c, i ? ref_cum[i - 1] : 0);
      sm1.begin_cycle(c, i ? sm1_cum[i - 1] : 0);
    }
    ref.begin_cycle((i + 1) * 1000, ref_cum[i]);  // the reference SM ticks first
    sm1.begin_cycle((i + 1) * 1000, sm1_cum[i]);
  }
  // 80 > 50: 0.9; 20 < 50: 1.0; 50 = 50: 1.0; 90 > 50: 0.9.
  const auto& tr = sm1.p_trace();
  ASSERT_EQ(tr.size(), 4u);
  const double want[] = {0.9, 1.0, 1.0, 0.9};
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(tr[i].first, (i + 1) * 1000u);
    EXPECT_NEAR(tr[i].second, want[i], 1e-12);
  }
  EXPECT_EQ(ref.p_trace().size(), 4u);
  EXPECT_DOUBLE_EQ(ref.p_trace().back().second, 0.0);
}

TEST(SharingState, DynamicWarpExecutionGatesOnlyNonOwnerGlobalMemory) {
  stats::Group root{"t"};
  SharingParams p;
  p.mode = "reg";
  p.dyn = true;
  SmSharing ref(p, 0, 8, 63, root), sm1(p, 1, 8, 63, root.child("sm1"));
  func::DInst ld;
  ld.exec = ptx::ExecClass::mem;
  ld.aspace = func::AddrSpace::global;
  func::DInst add;
  add.exec = ptx::ExecClass::int_alu;
  WarpSlot owner, nonowner;
  owner.share_class = 0;
  nonowner.share_class = 2;
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(ref.dyn_allow(owner, ld));
    EXPECT_FALSE(ref.dyn_allow(nonowner, ld));  // P = 0 on the reference SM
    EXPECT_TRUE(ref.dyn_allow(nonowner, add));
    EXPECT_TRUE(sm1.dyn_allow(nonowner, ld));  // P = 1
  }
  const uint64_t denied =
      stats::to_json(root, stats::snapshot(root))["sharing"]["dyn_denied"]["value"].get<uint64_t>();
  EXPECT_EQ(denied, 50u);
}

// Fig. 2.9 / Examples 2.3.1-2.3.2: three warps (unshared U, owner O, non-owner N of O's pair),
// each running I1 `mov R1` (1 cycle), I2 `ld R2, [R1]` (5 cycles), I3 `add R3, R2, R1` (1
// cycle); R1 is private, R2 and R3 shared (floor(10 x 0.1) = 1). A toy single-issue pipeline
// (an instruction issued in cycle c with latency L lets a dependant issue in cycle c + L) drives
// the real schedulers and the real register gate and lock release of SmSharing.
struct Fig29Finish {
  uint64_t u, o, n;
};
Fig29Finish run_fig29(const std::string& policy) {
  stats::Group root{"t"};
  SharingParams p;
  p.mode = "reg";
  p.threshold = 0.1;
  SmSharing s(p, 0, 8, 63, root);
  s.set_regnos({1, 2, 3});  // highest register of I1, I2, I3
  Plan plan;
  plan.enabled = true;
  plan.M = 3;
  plan.pairs = 1;
  plan.unshared = 1;
  WarpSlot w[3];  // launch order U, O, N: U takes the unshared slot, O the empty pair, N joins
  const int kKey = 0;
  for (uint32_t i = 0; i < 3; ++i) {
    w[i].age = i;
    s.on_cta_launch(&kKey, plan, nullptr, 10, i, {&w[i]});
  }
  EXPECT_EQ(w[0].share_class, 1);
  EXPECT_EQ(w[1].share_class, 0);
  EXPECT_EQ(w[2].share_class, 2);
  auto sched = make_scheduler(policy, 0);
  for (auto& x : w) sched->add(&x);
  struct Inst {
    int dst;
    std::vector<int> src;
    uint64_t lat;
  };
  const Inst prog[3] = {{1, {}, 1}, {2, {1}, 5}, {3, {2, 1}, 1}};
  uint32_t pc[3] = {0, 0, 0};
  uint64_t ready[3][4] = {};  // per warp, per register: first cycle a reader may issue
  uint64_t finish[3] = {0, 0, 0};
  for (uint64_t c = 1; c <= 40 && (!finish[0] || !finish[1] || !finish[2]); ++c) {
    for (WarpSlot* x : sched->order()) {
      const size_t i = size_t(x - w);
      const Inst& in = prog[pc[i]];
      bool ok = true;
      for (int r : in.src) ok = ok && ready[i][r] <= c;
      if (!ok || !s.reg_gate(*x, pc[i])) continue;
      ready[i][in.dst] = c + in.lat;
      sched->issued(x);
      if (++pc[i] == 3) {
        finish[i] = c;
        s.on_warp_exit(*x);
        sched->remove(x);
      }
      break;  // one instruction per cycle
    }
  }
  return {finish[0], finish[1], finish[2]};
}

TEST(SharingState, Fig29OwfFinishesOwnerUnsharedNonOwnerAt7_9_13) {
  const Fig29Finish owf = run_fig29("owf");
  EXPECT_EQ(owf.o, 7u);
  EXPECT_EQ(owf.u, 9u);
  EXPECT_EQ(owf.n, 13u);  // I2 overlaps the unshared warp's wait in cycle 8
}

TEST(SharingState, Fig29UnsharedWarpFirstFinishesTheNonOwnerAt15) {
  // GTO with the unshared warp oldest is the thesis's "Unshared Warp First" order here.
  const Fig29Finish uwf = run_fig29("gto");
  EXPECT_EQ(uwf.u, 7u);
  EXPECT_EQ(uwf.o, 9u);
  EXPECT_EQ(uwf.n, 15u);  // waits for the owner's release in cycle 9, resumes in cycle 10
}

// ---- on the SM ----

// One warp per block of 8 registers/thread (the PTX estimate: 256 per block); with 384
// registers per SM one block fits (the baseline), and at t = 0.2 the 128 left over pay for a
// pair: 2 blocks. Private registers: floor(8 x 0.2) = 1, i.e. R0.
std::vector<std::string> sm_sets(bool share) {
  std::vector<std::string> s = {"gpu.num_sms=1",          "sm.l1i_perfect=true",
                                "sim.memory_model=fixed", "sim.fixed_memory_latency=100",
                                "sm.registers=384",       "sm.reg_alloc_granularity=32"};
  if (share) {
    s.push_back("sharing.mode=reg");
    s.push_back("sharing.threshold=0.2");
  }
  return s;
}

std::string chain_kernel(bool shared_regs) {
  // %r1 lives in R0 (private); the second value (R2, R1 being the stack pointer) is shared.
  std::string body = "  mov.u32 %r1, %tid.x;\n";
  for (int i = 0; i < 20; ++i)
    body += shared_regs ? "  add.s32 %r2, %r1, 1;\n  add.s32 %r1, %r2, %r1;\n"
                        : "  add.s32 %r1, %r1, 1;\n";
  return R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>;
)" + body +
         "  ret;\n}\n";
}

uint64_t run(const std::vector<std::string>& sets, const std::string& ptx, nlohmann::json* st) {
  testing::TimingRunner r(testing::timing_params(sets));
  r.load(ptx);
  r.launch("k", {2, 1, 1}, {32, 1, 1}, Addr(0));
  if (st) *st = r.stats;
  return r.last.cycles;
}

TEST(SharingSm, PrivateRegistersOnlyBehaveLikeTwiceTheRegisterFile) {
  nlohmann::json st;
  const uint64_t shared = run(sm_sets(true), chain_kernel(false), &st);
  EXPECT_EQ(st["sm[0]"]["sharing"]["shared_ctas"]["value"], 2);
  EXPECT_EQ(st["sm[0]"]["sharing"]["lock_acquisitions"]["value"], 0);
  EXPECT_EQ(st["sm[0]"]["stall"]["values"]["lock_wait"], 0);
  auto doubled = sm_sets(false);
  doubled[4] = "sm.registers=512";  // both blocks fit without sharing
  EXPECT_EQ(shared, run(doubled, chain_kernel(false), nullptr));
  EXPECT_LT(shared, run(sm_sets(false), chain_kernel(false), nullptr));
}

TEST(SharingSm, NonOwnerRunsItsPrivatePrefixThenWaitsForThePartnerWarp) {
  nlohmann::json st;
  run(sm_sets(true), chain_kernel(true), &st);
  const auto& g = st["sm[0]"]["sharing"];
  EXPECT_EQ(g["shared_ctas"]["value"], 2);
  EXPECT_EQ(g["lock_acquisitions"]["value"], 2);  // warp 0 of each block, one after the other
  EXPECT_EQ(g["lock_releases"]["value"], 2);
  EXPECT_EQ(g["ownership_transfers"]["value"], 1);
  EXPECT_EQ(g["nonowner_insts"]["value"], 1);  // only its private `mov` before the lock
  EXPECT_GT(st["sm[0]"]["stall"]["values"]["lock_wait"].get<uint64_t>(), 0u);
}

TEST(SharingSm, KernelsTheAllocationDoesNotShareRunExactlyAsWithoutSharing) {
  // Set-3-like: 2 blocks fit with none left over (512 registers): no pairs, same timing.
  auto a = sm_sets(false), b = sm_sets(true);
  a[4] = b[4] = "sm.registers=512";
  nlohmann::json sa, sb;
  EXPECT_EQ(run(a, chain_kernel(true), &sa), run(b, chain_kernel(true), &sb));
  EXPECT_EQ(sa["sm[0]"]["warp_insts"], sb["sm[0]"]["warp_insts"]);
  EXPECT_EQ(sb["sm[0]"]["sharing"]["shared_ctas"]["value"], 0);
}

}  // namespace
}  // namespace simtlab::timing::sharing
