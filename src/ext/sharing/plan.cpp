#include "ext/sharing/plan.h"

#include <algorithm>
#include <cmath>

namespace simtlab::timing::sharing {

namespace {
// floor(x) of a quotient computed in double, robust to representation error at integers
// (t = 0.1 is not exact in binary).
uint32_t floor_q(double x) { return uint32_t(std::floor(x + 1e-9)); }
}  // namespace

Plan make_plan(Resource res, double t, const SmLimits& lim, uint32_t threads,
               uint32_t regs_per_thread, uint32_t smem_per_block) {
  Plan p;
  const uint32_t ws = std::max<uint32_t>(1, lim.warp_size);
  const uint32_t warps = (threads + ws - 1) / ws, padded = warps * ws;
  const uint32_t reg_tb = regs_per_thread * padded;
  // Limits other than the shared resource.
  uint32_t caps = lim.max_ctas;
  if (padded) caps = std::min(caps, lim.max_threads / padded);
  if (warps) caps = std::min(caps, lim.num_warps / warps);
  uint32_t other = caps;
  if (res == Resource::reg && smem_per_block)
    other = std::min(other, lim.shared_bytes / smem_per_block);
  if (res == Resource::smem && reg_tb) other = std::min(other, lim.registers / reg_tb);
  const uint32_t R = res == Resource::reg ? lim.registers : lim.shared_bytes;
  const uint32_t R_tb = res == Resource::reg ? reg_tb : smem_per_block;
  p.R_tb = R_tb;
  p.private_units =
      res == Resource::reg ? floor_q(t * regs_per_thread) : floor_q(t * smem_per_block);
  if (R_tb == 0) {  // the resource does not limit: no sharing
    p.baseline = p.M = p.unshared = other;
    return p;
  }
  p.F = R / R_tb;
  p.S = std::min(p.F, floor_q(double(R % R_tb) / (t * double(R_tb))));
  p.baseline = std::min(p.F, other);
  const uint32_t m = std::min(p.F + p.S, other);
  if (m <= p.baseline) {
    p.M = p.unshared = p.baseline;
    return p;
  }
  p.enabled = true;
  p.M = m;
  const uint32_t f = p.baseline;  // F' = min(F, caps)
  p.pairs = std::min(p.M - f, f);
  p.unshared = f - p.pairs;
  p.M = p.unshared + 2 * p.pairs;
  return p;
}

}  // namespace simtlab::timing::sharing
