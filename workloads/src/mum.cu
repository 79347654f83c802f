// mum: exact-match alignment of short DNA queries against a reference with a suffix tree
// (MUMmerGPU, Schatz et al., BMC Bioinformatics 8:474, 2007). The CPU builds a compacted
// suffix tree of the reference (terminated by '$') with suffix links, stored as an array of
// nodes: the label of the edge into the node (a [start, end) range of the reference), its
// string depth, its suffix link and five child indices (A, C, G, T, $). Queries are
// concatenated, with an address, a length and a match-coordinate offset per query (as in
// MUMmerGPU). The GPU runs one thread per query;
// for every query position s where a match of min_match_len (20) can still start, it finds
// the longest prefix of query[s..] that occurs in the reference: position 0 walks down from
// the root comparing characters with edge labels; each next position follows the suffix link
// of the deepest matched node, skips down by edge lengths to the previous length - 1
// (skip/count), and continues comparing. Per position it writes the match coordinate (deepest
// fully matched node, match length) and one reference position of the match.
// Analog of: GPGPU-Sim benchmark MUM (MUMmerGPU), kernel mummergpuKernel, thesis Table 2.1
// (Ch. 2 Set-1), Table 4.3 #12 (label MUM).
// Profile: 256 threads and 28 registers/thread (thesis Table 2.1; 4 blocks/SM in Table 2.6,
// i.e. 25..32 registers on fermi-c2050); no shared memory. ptxas (sm_75) uses 25 registers
// at its default register-usage level (without suffix links / variable-length queries it used
// 18-22) and 27 with `--register-usage-level=6` (more aggressive optimisation at the cost of
// registers, closer to the thesis's 28 from CUDA 4.0), which this file asks for below. Differences from MUMmerGPU: the tree, reference and queries are read
// through the read-only data path (const __restrict__) instead of textures, the node layout
// is a plain array of structs, and the host keeps no reverse-complement pass.
// Usage: mum [queries] [reflen]   (default 7168 queries = 28 blocks of 256, 24..26 bases
//        each, drawn from the reference with ~1 substitution per 8 bases, reference 4096
//        bases; scaled run 114688 65536)
// Check: exact. Every length against the longest match found by binary search in a suffix
//        array of the reference (independent of the tree); every position and node by
//        comparing the reference and the query over the match / the node's path label.
// nvcc-flags: -Xptxas --register-usage-level=6
#include <algorithm>
#include <cstring>
#include <vector>

#include "wl.h"

#define QMIN 24  // query lengths are drawn from [QMIN, QMAX]
#define QMAX 26
#define MIN_MATCH_LEN 20

struct Node {
  int start, end;  // edge label ref[start, end)
  int depth;       // string depth: length of the path label root..node
  int link;        // suffix link (internal nodes): node whose path label drops the first char
  int child[5];    // A C G T $ ; 0 = none (the root, node 0, is never a child)
};

// Per query position: the deepest tree node whose whole path label is matched (MUMmerGPU's
// match coordinate), the match length (which may end inside the edge below that node), and
// one reference position of the match.
struct MatchCoord {
  int node, len, pos;
};

__global__ void mummergpuKernel(const Node* __restrict__ nodes, const unsigned char* __restrict__ ref,
                                const unsigned char* __restrict__ queries,
                                const int* __restrict__ query_addrs,
                                const int* __restrict__ query_lengths,
                                const int* __restrict__ coord_addrs, MatchCoord* match_coords,
                                int num_queries) {
  const int qid = blockIdx.x * blockDim.x + threadIdx.x;
  if (qid >= num_queries) return;
  // Queries are concatenated; each has its start address and length, and its
  // qlen - MIN_MATCH_LEN + 1 match coordinates start at coord_addrs[qid].
  const int addr = query_addrs[qid], qlen = query_lengths[qid];
  const unsigned char* q = queries + addr;
  MatchCoord* out = match_coords + coord_addrs[qid];
  // Only positions where a match of min_match_len can still start are searched.
  // State carried from position s-1 to s: `node`, the deepest tree node whose whole path label
  // is matched, and `len`, the match length (the match may end inside the edge below node).
  int node = 0, len = 0;
  for (int s = 0; s <= qlen - MIN_MATCH_LEN; ++s) {
    if (len > 0) {
      // The match of s-1 minus its first character is a match of s: follow the suffix link
      // and skip/count down to depth len-1 by edge lengths, without comparing characters.
      int u = node ? nodes[node].link : 0;
      int du = node ? nodes[node].depth - 1 : 0;
      const int target = len - 1;
      while (du < target) {
        const int c = nodes[u].child[q[s + du]];
        const int el = nodes[c].end - nodes[c].start;
        if (du + el > target) break;
        u = c;
        du += el;
      }
      node = u;
      len = target;
    }
    // Extend the match character by character.
    int pos = 0;
    while (true) {
      const int du = nodes[node].depth;
      int child;
      if (len == du) {
        child = s + len < qlen ? nodes[node].child[q[s + len]] : 0;
        if (!child) {  // the match ends exactly at `node`
          pos = node ? nodes[node].end - du : 0;
          break;
        }
      } else {
        child = nodes[node].child[q[s + du]];  // the match ends inside this edge
      }
      const int e_end = nodes[child].end;
      int k = nodes[child].start + (len - du);
      while (k < e_end && s + len < qlen && ref[k] == q[s + len]) {
        ++k;
        ++len;
      }
      // The labels on the path spell ref[k - len, k) for this edge's occurrence.
      pos = k - len;
      if (k < e_end) break;  // mismatch, or the query ended inside the edge
      node = child;
    }
    out[s].node = node;
    out[s].len = len;
    out[s].pos = pos;
  }
}

// Naive compacted suffix tree: insert the suffixes one by one from the root.
static std::vector<Node> build_tree(const std::vector<unsigned char>& t) {
  const int n = int(t.size());
  std::vector<Node> nodes(1);
  std::memset(&nodes[0], 0, sizeof(Node));
  for (int i = 0; i < n; ++i) {
    int node = 0, d = i;  // d: position in t of the next character to place
    while (true) {
      const int c = t[d];
      int child = nodes[node].child[c];
      if (!child) {
        Node leaf{};
        leaf.start = d;
        leaf.end = n;
        nodes.push_back(leaf);
        nodes[node].child[c] = int(nodes.size()) - 1;
        break;
      }
      const int s = nodes[child].start, e = nodes[child].end;
      int m = 0;
      while (s + m < e && t[s + m] == t[d + m]) ++m;
      if (s + m == e) {  // whole edge matched
        node = child;
        d += m;
        continue;
      }
      // Split the edge after m characters; the '$' terminator guarantees d + m < n.
      Node mid{};
      mid.start = s;
      mid.end = s + m;
      nodes[child].start = s + m;
      mid.child[t[s + m]] = child;
      nodes.push_back(mid);
      const int mid_id = int(nodes.size()) - 1;
      nodes[node].child[c] = mid_id;
      Node leaf{};
      leaf.start = d + m;
      leaf.end = n;
      nodes.push_back(leaf);
      nodes[mid_id].child[t[d + m]] = int(nodes.size()) - 1;
      break;
    }
  }
  // String depths (parents precede children in index order? not necessarily: use a stack).
  std::vector<int> stack{0};
  nodes[0].depth = 0;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int c = 0; c < 5; ++c)
      if (const int w = nodes[v].child[c]) {
        nodes[w].depth = nodes[v].depth + (nodes[w].end - nodes[w].start);
        stack.push_back(w);
      }
  }
  // Suffix links of internal nodes: walk ref[j+1, j+depth) down from the root by edge lengths.
  for (size_t v = 1; v < nodes.size(); ++v) {
    if (nodes[v].end == n) continue;  // leaf
    const int dv = nodes[v].depth, j = nodes[v].end - dv;
    int u = 0, d = 0;
    while (d < dv - 1) {
      u = nodes[u].child[t[j + 1 + d]];
      d += nodes[u].end - nodes[u].start;
    }
    if (d != dv - 1) {
      std::printf("FAILED: suffix link of node %zu lands inside an edge\n", v);
      std::exit(1);
    }
    nodes[v].link = u;
  }
  return nodes;
}

int main(int argc, char** argv) {
  const int nq = int(wl::arg_int(argc, argv, 1, 7168, 1, 1 << 24));
  const int reflen = int(wl::arg_int(argc, argv, 2, 4096, QMAX, 1 << 22));
  wl::Rng rr(81), rq(82);
  std::vector<unsigned char> ref(reflen + 1);
  for (int i = 0; i < reflen; ++i) ref[i] = (unsigned char)(rr.u32() & 3);
  ref[reflen] = 4;  // '$'
  std::vector<unsigned char> q;
  std::vector<int> qaddr(nq), qlens(nq), caddr(nq);
  int ncoords = 0;
  for (int j = 0; j < nq; ++j) {
    const int len = rq.range(QMIN, QMAX);
    const int at = rq.range(0, reflen - len);
    qaddr[j] = int(q.size());
    qlens[j] = len;
    caddr[j] = ncoords;
    ncoords += len - MIN_MATCH_LEN + 1;
    for (int i = 0; i < len; ++i) {
      unsigned char c = ref[at + i];
      if (rq.range(0, 7) == 0) c = (unsigned char)((c + rq.range(1, 3)) & 3);  // substitution
      q.push_back(c);
    }
  }
  const std::vector<Node> nodes = build_tree(ref);

  Node* d_nodes;
  unsigned char *d_ref, *d_q;
  MatchCoord* d_mc;
  WL_CK(cudaMalloc(&d_nodes, nodes.size() * sizeof(Node)));
  WL_CK(cudaMalloc(&d_ref, ref.size()));
  WL_CK(cudaMalloc(&d_q, q.size()));
  WL_CK(cudaMalloc(&d_mc, size_t(ncoords) * sizeof(MatchCoord)));
  WL_CK(cudaMemcpy(d_nodes, nodes.data(), nodes.size() * sizeof(Node), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_ref, ref.data(), ref.size(), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_q, q.data(), q.size(), cudaMemcpyHostToDevice));
  int *d_addr, *d_len, *d_caddr;
  WL_CK(cudaMalloc(&d_addr, nq * sizeof(int)));
  WL_CK(cudaMalloc(&d_len, nq * sizeof(int)));
  WL_CK(cudaMalloc(&d_caddr, nq * sizeof(int)));
  WL_CK(cudaMemcpy(d_caddr, caddr.data(), nq * sizeof(int), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_addr, qaddr.data(), nq * sizeof(int), cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(d_len, qlens.data(), nq * sizeof(int), cudaMemcpyHostToDevice));
  WL_CK(cudaMemset(d_mc, 0, size_t(ncoords) * sizeof(MatchCoord)));
  const int threads = 256, blocks = (nq + threads - 1) / threads;
  mummergpuKernel<<<blocks, threads>>>(d_nodes, d_ref, d_q, d_addr, d_len, d_caddr, d_mc,
                                                nq);
  WL_CK_LAUNCH();
  std::vector<MatchCoord> mc(ncoords);
  WL_CK(cudaMemcpy(mc.data(), d_mc, mc.size() * sizeof(MatchCoord), cudaMemcpyDeviceToHost));

  // Reference: suffix array of ref (without '$'), longest match by binary search + LCP.
  std::vector<int> sa(reflen);
  for (int i = 0; i < reflen; ++i) sa[i] = i;
  std::sort(sa.begin(), sa.end(), [&](int a, int b) {
    return std::lexicographical_compare(ref.begin() + a, ref.begin() + reflen, ref.begin() + b,
                                        ref.begin() + reflen);
  });
  auto lcp = [&](int r, const unsigned char* p, int plen) {
    int l = 0;
    while (l < plen && r + l < reflen && ref[r + l] == p[l]) ++l;
    return l;
  };
  std::vector<int> got_len(mc.size(), 0), ref_len(mc.size(), 0);
  long reported = 0;
  int bad_pos = -1;
  for (int j = 0; j < nq; ++j)
    for (int s = 0; s <= qlens[j] - MIN_MATCH_LEN; ++s) {
      const unsigned char* p = &q[size_t(qaddr[j]) + s];
      const int plen = qlens[j] - s;
      const auto it = std::lower_bound(sa.begin(), sa.end(), 0, [&](int a, int) {
        return std::lexicographical_compare(ref.begin() + a, ref.begin() + reflen, p, p + plen);
      });
      int best = 0;
      if (it != sa.end()) best = std::max(best, lcp(*it, p, plen));
      if (it != sa.begin()) best = std::max(best, lcp(*(it - 1), p, plen));
      const size_t k = size_t(caddr[j]) + s;
      ref_len[k] = best;
      got_len[k] = mc[k].len;
      if (best >= MIN_MATCH_LEN) ++reported;
      const int pos = mc[k].pos, len = mc[k].len;
      const int nd = mc[k].node;
      const bool node_ok = nd >= 0 && nd < int(nodes.size()) && nodes[nd].depth <= len &&
                           (nd == 0 || lcp(nodes[nd].end - nodes[nd].depth, p, nodes[nd].depth) ==
                                           nodes[nd].depth);
      if (bad_pos < 0 && (pos < 0 || pos + len > reflen || lcp(pos, p, len) != len || !node_ok))
        bad_pos = int(k);
    }
  std::printf("mum queries=%d qlen=%d..%d bases=%zu reflen=%d nodes=%zu blocks=%d "
              "matches>=%d: %ld\n",
              nq, QMIN, QMAX, q.size(), reflen, nodes.size(), blocks, MIN_MATCH_LEN, reported);
  bool ok = wl::check_equal("match length", got_len.data(), ref_len.data(), got_len.size());
  if (ok && bad_pos >= 0) {
    std::printf("FAILED: match at [%d] (node %d pos %d len %d) does not match the query\n",
                bad_pos, mc[bad_pos].node, mc[bad_pos].pos, mc[bad_pos].len);
    ok = false;
  }
  WL_CK(cudaFree(d_nodes));
  WL_CK(cudaFree(d_ref));
  WL_CK(cudaFree(d_q));
  WL_CK(cudaFree(d_mc));
  WL_CK(cudaFree(d_addr));
  WL_CK(cudaFree(d_len));
  WL_CK(cudaFree(d_caddr));
  return wl::finish(ok);
}
