// btree: range and point queries on a B+tree of order 508 (Rodinia b+tree's default order).
// The CPU bulk-loads a B+tree over R records with unique sorted keys and stores it as an array
// of fixed-size nodes (keys[ORDER+1], indices[ORDER+1], num_keys, is_leaf), level by level,
// root first. Internal node: child c holds the keys in [keys[c], keys[c+1]), unused key slots
// hold INT_MAX. Leaf: keys[j] is a record key and indices[j] its record number.
// The GPU runs one block per query with one thread per key slot of a node:
//  * findRangeK: for a query [start, end] (both present keys) it walks two root-to-leaf paths
//    at once (one for start, one for end): at each level the thread whose slot brackets the
//    key (keys[t] <= key < keys[t+1]) writes the child to follow; at the leaves the threads
//    holding start and end produce the first record number and the range length;
//  * findK (extra kernel): the same walk for one key, then the leaf thread holding the key
//    returns the record's value.
// Analog of: Rodinia b+tree, kernel findRangeK, thesis Table 2.1 (Ch. 2 Set-1) and Table 3.4
// (Ch. 3 Set-3, "limited by registers"); findK from the same application (not studied).
// Profile: 508 threads (= the tree order) and 24 registers/thread (thesis Table 2.1; 2
// blocks/SM in Table 2.6, i.e. 21..32 registers on fermi-c2050); no shared memory (the
// per-query state -- current node and offset -- lives in global arrays as in the original).
// Registers: with each level's comparisons written directly on the node fields ptxas (sm_75)
// used 18 (3 blocks/SM); findRangeK fetches both walks' slot values (keys[t], keys[t+1],
// indices[t] of the start and the end node) before comparing -- the two walks are
// independent, so their loads overlap -- which gives 26 registers (24 + 2; 2 blocks/SM).
// Usage: btree [queries] [records]   (default 192 queries of each kind over 200000 records:
//        nodes filled to half the order, 3 levels, i.e. 2 internal levels walked; scaled run
//        4096 2000000, also 3 levels)
// Check: exact (integers) against a binary search over the sorted keys.
#include <algorithm>
#include <climits>
#include <vector>

#include "wl.h"

#define ORDER 508

struct knode {
  int location;
  int indices[ORDER + 1];
  int keys[ORDER + 1];
  int is_leaf;
  int num_keys;
};

struct record {
  int value;
};

__global__ void findK(int height, const knode* knodes, long knodes_elem, const record* records,
                      long* currKnode, long* offset, const int* keys, record* ans) {
  const int thid = threadIdx.x, bid = blockIdx.x;
  for (int i = 0; i < height; ++i) {
    const knode& nd = knodes[currKnode[bid]];
    if (nd.keys[thid] <= keys[bid] && nd.keys[thid + 1] > keys[bid]) {
      if (nd.indices[thid] < knodes_elem) offset[bid] = nd.indices[thid];
    }
    __syncthreads();
    if (thid == 0) currKnode[bid] = offset[bid];
    __syncthreads();
  }
  const knode& leaf = knodes[currKnode[bid]];
  if (thid < leaf.num_keys && leaf.keys[thid] == keys[bid])
    ans[bid].value = records[leaf.indices[thid]].value;
}

__global__ void findRangeK(int height, const knode* knodes, long knodes_elem, long* currKnode,
                           long* offset, long* lastKnode, long* offset_2, const int* start,
                           const int* end, int* recstart, int* reclength) {
  const int thid = threadIdx.x, bid = blockIdx.x;
  for (int i = 0; i < height; ++i) {
    // Both paths' slots are fetched before either comparison (the two walks are independent).
    const knode& a = knodes[currKnode[bid]];
    const knode& b = knodes[lastKnode[bid]];
    const int a_lo = a.keys[thid], a_hi = a.keys[thid + 1], a_child = a.indices[thid];
    const int b_lo = b.keys[thid], b_hi = b.keys[thid + 1], b_child = b.indices[thid];
    if (a_lo <= start[bid] && a_hi > start[bid] && a_child < knodes_elem) offset[bid] = a_child;
    if (b_lo <= end[bid] && b_hi > end[bid] && b_child < knodes_elem) offset_2[bid] = b_child;
    __syncthreads();
    if (thid == 0) {
      currKnode[bid] = offset[bid];
      lastKnode[bid] = offset_2[bid];
    }
    __syncthreads();
  }
  const knode& first = knodes[currKnode[bid]];
  if (thid < first.num_keys && first.keys[thid] == start[bid]) recstart[bid] = first.indices[thid];
  __syncthreads();
  const knode& last = knodes[lastKnode[bid]];
  if (thid < last.num_keys && last.keys[thid] == end[bid])
    reclength[bid] = last.indices[thid] - recstart[bid] + 1;
}

int main(int argc, char** argv) {
  const int nq = int(wl::arg_int(argc, argv, 1, 192, 1, 1 << 20));
  const int R = int(wl::arg_int(argc, argv, 2, 200000, 1, 1 << 26));
  const int fill = ORDER / 2;

  // Unique sorted keys with random gaps; record i has key keys[i].
  std::vector<int> keys(R);
  std::vector<record> recs(R);
  wl::Rng rk(71), rv(72), rq(73);
  int k = 0;
  for (int i = 0; i < R; ++i) {
    k += rk.range(1, 8);
    keys[i] = k;
    recs[i].value = int(rv.u32() & 0x7fffffff);
  }

  // Bulk load, bottom-up: leaves of `fill` keys, then parents of `fill` children, until one
  // node remains. Levels are then laid out root first.
  std::vector<std::vector<knode>> levels;
  std::vector<int> level_min;  // min key of each node of the level being built upon
  {
    std::vector<knode> leaves;
    for (int i = 0; i < R; i += fill) {
      knode nd{};
      const int nk = std::min(fill, R - i);
      for (int j = 0; j <= ORDER; ++j) {
        nd.keys[j] = j < nk ? keys[i + j] : INT_MAX;
        nd.indices[j] = j < nk ? i + j : 0;
      }
      nd.is_leaf = 1;
      nd.num_keys = nk;
      leaves.push_back(nd);
      level_min.push_back(keys[i]);
    }
    levels.push_back(leaves);
  }
  while (levels.back().size() > 1) {
    const std::vector<knode>& below = levels.back();
    std::vector<knode> up;
    std::vector<int> up_min;
    for (size_t i = 0; i < below.size(); i += fill) {
      knode nd{};
      const int nc = int(std::min<size_t>(fill, below.size() - i));
      for (int j = 0; j <= ORDER; ++j) {
        // Child 0 takes everything below its successor (INT_MIN as its lower bound).
        nd.keys[j] = j < nc ? (j == 0 ? INT_MIN : level_min[i + j]) : INT_MAX;
        nd.indices[j] = j < nc ? int(i + j) : 0;  // position within the level below, fixed later
      }
      nd.is_leaf = 0;
      nd.num_keys = nc;
      up.push_back(nd);
      up_min.push_back(level_min[i]);
    }
    levels.push_back(up);
    level_min = up_min;
  }
  const int height = int(levels.size()) - 1;  // internal levels to walk
  std::vector<knode> nodes;
  std::vector<long> level_base(levels.size());
  for (int l = int(levels.size()) - 1; l >= 0; --l) {
    level_base[l] = long(nodes.size());
    for (const auto& nd : levels[l]) nodes.push_back(nd);
  }
  for (int l = int(levels.size()) - 1; l >= 1; --l)
    for (long n = 0; n < long(levels[l].size()); ++n) {
      knode& nd = nodes[level_base[l] + n];
      for (int j = 0; j < nd.num_keys; ++j) nd.indices[j] += int(level_base[l - 1]);
    }
  for (size_t n = 0; n < nodes.size(); ++n) nodes[n].location = int(n);
  const long knodes_elem = long(nodes.size());

  // Queries: ranges between two present keys; point queries on present keys.
  std::vector<int> qs(nq), qe(nq), qk(nq), ref_start(nq), ref_len(nq), ref_val(nq);
  for (int q = 0; q < nq; ++q) {
    const int a = rq.range(0, R - 1);
    const int b = std::min(R - 1, a + rq.range(0, 3 * fill));
    qs[q] = keys[a];
    qe[q] = keys[b];
    const int c = rq.range(0, R - 1);
    qk[q] = keys[c];
    // Reference by binary search over the sorted keys.
    const int ia = int(std::lower_bound(keys.begin(), keys.end(), qs[q]) - keys.begin());
    const int ib = int(std::lower_bound(keys.begin(), keys.end(), qe[q]) - keys.begin());
    ref_start[q] = ia;
    ref_len[q] = ib - ia + 1;
    ref_val[q] = recs[std::lower_bound(keys.begin(), keys.end(), qk[q]) - keys.begin()].value;
  }

  knode* d_nodes;
  record *d_recs, *d_ans;
  long *d_curr, *d_off, *d_last, *d_off2;
  int *d_qs, *d_qe, *d_qk, *d_rs, *d_rl;
  WL_CK(cudaMalloc(&d_nodes, nodes.size() * sizeof(knode)));
  WL_CK(cudaMalloc(&d_recs, size_t(R) * sizeof(record)));
  WL_CK(cudaMalloc(&d_ans, size_t(nq) * sizeof(record)));
  for (long** p : {&d_curr, &d_off, &d_last, &d_off2}) WL_CK(cudaMalloc(p, nq * sizeof(long)));
  for (int** p : {&d_qs, &d_qe, &d_qk, &d_rs, &d_rl}) WL_CK(cudaMalloc(p, nq * sizeof(int)));
  WL_CK(cudaMemcpy(d_nodes, nodes.data(), nodes.size() * sizeof(knode), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_recs, recs.data(), size_t(R) * sizeof(record), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_qs, qs.data(), nq * sizeof(int), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_qe, qe.data(), nq * sizeof(int), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_qk, qk.data(), nq * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<long> zeros(nq, 0);  // every walk starts at the root, node 0
  auto reset = [&]() {
    for (long* p : {d_curr, d_off, d_last, d_off2})
      WL_CK(cudaMemcpy(p, zeros.data(), nq * sizeof(long), cudaMemcpyHostToDevice));
  };
  WL_CK(cudaMemset(d_ans, 0xff, nq * sizeof(record)));
  WL_CK(cudaMemset(d_rs, 0xff, nq * sizeof(int)));
  WL_CK(cudaMemset(d_rl, 0xff, nq * sizeof(int)));

  reset();
  findK<<<nq, ORDER>>>(height, d_nodes, knodes_elem, d_recs, d_curr, d_off, d_qk, d_ans);
  WL_CK_LAUNCH();
  reset();
  findRangeK<<<nq, ORDER>>>(height, d_nodes, knodes_elem, d_curr, d_off, d_last, d_off2, d_qs,
                            d_qe, d_rs, d_rl);
  WL_CK_LAUNCH();
  std::vector<record> ans(nq);
  std::vector<int> rs(nq), rl(nq), val(nq);
  WL_CK(cudaMemcpy(ans.data(), d_ans, nq * sizeof(record), cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(rs.data(), d_rs, nq * sizeof(int), cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(rl.data(), d_rl, nq * sizeof(int), cudaMemcpyDeviceToHost));
  for (int q = 0; q < nq; ++q) val[q] = ans[q].value;
  std::printf("btree order=%d records=%d nodes=%ld height=%d queries=%d\n", ORDER, R,
              knodes_elem, height, nq);
  bool ok = wl::check_equal("findK value", val.data(), ref_val.data(), size_t(nq));
  ok = ok && wl::check_equal("findRangeK start", rs.data(), ref_start.data(), size_t(nq));
  ok = ok && wl::check_equal("findRangeK length", rl.data(), ref_len.data(), size_t(nq));
  WL_CK(cudaFree(d_nodes));
  WL_CK(cudaFree(d_recs));
  WL_CK(cudaFree(d_ans));
  for (long* p : {d_curr, d_off, d_last, d_off2}) WL_CK(cudaFree(p));
  for (int* p : {d_qs, d_qe, d_qk, d_rs, d_rl}) WL_CK(cudaFree(p));
  return wl::finish(ok);
}
