// coop_groups: cooperative groups: this_thread_block, thread_rank/size/group_index/thread_index,
// static tiled_partition<32/16/4> and dynamic tiled_partition, cg::reduce with plus/less/
// greater/bit_and/bit_or/bit_xor, cg::inclusive_scan/exclusive_scan, tile shuffles and votes,
// coalesced_threads in divergent code, labeled_partition and sync (compiled to PTX only).
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

__global__ void cgBlock(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  int r = block.thread_rank();
  int v = in[block.group_index().x * block.size() + r];
  dim3 ti = block.thread_index();
  auto warp = cg::tiled_partition<32>(block);
  auto t16 = cg::tiled_partition<16>(block);
  auto t4 = cg::tiled_partition<4>(warp);
  int* o = out + (block.group_index().x * block.size() + r) * 12;
  o[0] = cg::reduce(warp, v, cg::plus<int>());
  o[1] = cg::reduce(t16, v, cg::less<int>());
  o[2] = cg::reduce(t4, v, cg::greater<int>());
  o[3] = cg::reduce(warp, (unsigned)v, cg::bit_and<unsigned>()) ^ cg::reduce(warp, (unsigned)v, cg::bit_or<unsigned>()) ^
         cg::reduce(warp, (unsigned)v, cg::bit_xor<unsigned>());
  o[4] = cg::inclusive_scan(warp, v);
  o[5] = cg::exclusive_scan(t16, v, cg::plus<int>());
  o[6] = warp.shfl(v, 0) + warp.shfl_up(v, 1) + warp.shfl_down(v, 2) + warp.shfl_xor(v, 4) + t4.shfl(v, 3);
  o[7] = (int)warp.ballot(v > 0) + warp.any(v == 3) + 2 * warp.all(v != 0);
  o[8] = (int)(t16.meta_group_rank() * 100 + t16.meta_group_size() * 10 + t4.thread_rank());
  o[9] = ti.x + ti.y + ti.z;
  warp.sync();
  if (v & 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    o[10] = odd.thread_rank() + 100 * odd.size() + cg::reduce(odd, v, cg::plus<int>());
  } else {
    o[10] = -1;
  }
  cg::thread_group dyn = cg::tiled_partition(block, 8);
  dyn.sync();
  o[11] = dyn.thread_rank() + dyn.size();
  block.sync();
}

__global__ void cgLabeled(const int* in, int* out) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  int v = in[block.thread_rank()];
  auto part = cg::labeled_partition(warp, v % 3);
  out[block.thread_rank()] = part.thread_rank() + 100 * part.size() + cg::reduce(part, v, cg::plus<int>());
  auto bin = cg::binary_partition(warp, v > 10);
  out[block.size() + block.thread_rank()] = bin.thread_rank() + 100 * bin.size();
}
