// bfs: breadth-first search levels (hop counts from node 0) of a random undirected graph in
// CSR form, by the frontier-mask formulation: per level, Kernel expands every node in the
// frontier mask (marks its unvisited neighbours in an "updating" mask and sets their cost to
// the node's cost + 1), then Kernel2 turns the updating mask into the next frontier, marks
// those nodes visited and raises a flag that another level is needed; the host loops while the
// flag is set.
// Analog of: Rodinia bfs (also in the GPGPU-Sim benchmark set), kernels Kernel (BFS1) and
// Kernel2 (BFS2); thesis Table 2.4 (Set-3, limited by threads), Table 3.4 (limited by threads,
// registers), Table 4.3 #2 and #3. Algorithm from Harish & Narayanan, "Accelerating large graph
// algorithms on the GPU using CUDA" (HiPC 2007), which the Rodinia code implements.
// Profile: 512 threads per block for both kernels, one node per thread (the original's
//   MAX_THREADS_PER_BLOCK 512); no shared memory. The thesis lists no register count but says
//   Kernel is limited by threads (3 blocks of 512 per Fermi SM): the edge loop is kept rolled
//   (#pragma unroll 1) so ptxas uses 16 registers (22 when it unrolls the loop, which would make
//   registers the limit at 2 blocks). Kernel2 uses 6.
// Node records {first edge, degree} as an array of structs, as in the original.
// Usage: bfs [nodes]   (default 16384 nodes = 32 blocks, scaled run 262144); every node gets
//   1..6 random undirected edges to other nodes (so ~7 neighbours on average).
// Check: every node's level exact against a CPU BFS (unreached nodes stay -1).
#include <queue>
#include <vector>

#include "wl.h"

constexpr int kThreads = 512;

struct Node {
  int start;   // first edge in the edge list
  int degree;  // number of edges
};

__global__ void Kernel(const Node* nodes, const int* edges, bool* mask, bool* updating,
                       const bool* visited, int* cost, int numNodes) {
  const int tid = blockIdx.x * kThreads + threadIdx.x;
  if (tid < numNodes && mask[tid]) {
    mask[tid] = false;
    const Node node = nodes[tid];
    // Kept rolled: unrolled by 4, ptxas needs 22 registers and only 2 blocks of 512 fit on a
    // Fermi SM, whereas the thesis reports this kernel limited by threads (3 blocks).
#pragma unroll 1
    for (int e = node.start; e < node.start + node.degree; ++e) {
      const int id = edges[e];
      if (!visited[id]) {
        cost[id] = cost[tid] + 1;
        updating[id] = true;
      }
    }
  }
}

__global__ void Kernel2(bool* mask, bool* updating, bool* visited, bool* more, int numNodes) {
  const int tid = blockIdx.x * kThreads + threadIdx.x;
  if (tid < numNodes && updating[tid]) {
    mask[tid] = true;
    visited[tid] = true;
    *more = true;
    updating[tid] = false;
  }
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 16384, 2, 1 << 26));

  // Random undirected graph: node i draws 1..6 partners; both directions are stored.
  std::vector<std::vector<int>> adj(n);
  wl::Rng rg(51);
  for (int i = 0; i < n; ++i) {
    const int k = rg.range(1, 6);
    for (int j = 0; j < k; ++j) {
      int t = rg.range(0, n - 1);
      if (t == i) t = (t + 1) % n;
      adj[i].push_back(t);
      adj[t].push_back(i);
    }
  }
  std::vector<Node> nodes(n);
  std::vector<int> edges;
  for (int i = 0; i < n; ++i) {
    nodes[i].start = int(edges.size());
    nodes[i].degree = int(adj[i].size());
    edges.insert(edges.end(), adj[i].begin(), adj[i].end());
  }
  const int m = int(edges.size());

  // CPU BFS.
  std::vector<int> want(n, -1);
  std::queue<int> q;
  want[0] = 0;
  q.push(0);
  while (!q.empty()) {
    const int u = q.front();
    q.pop();
    for (int v : adj[u])
      if (want[v] < 0) {
        want[v] = want[u] + 1;
        q.push(v);
      }
  }

  std::vector<int> cost(n, -1);
  cost[0] = 0;
  bool* hostMask = new bool[n]();
  bool* hostVisited = new bool[n]();
  hostMask[0] = hostVisited[0] = true;
  Node* dNodes;
  int *dEdges, *dCost;
  bool *dMask, *dUpdating, *dVisited, *dMore;
  WL_CK(cudaMalloc(&dNodes, sizeof(Node) * n));
  WL_CK(cudaMalloc(&dEdges, sizeof(int) * m));
  WL_CK(cudaMalloc(&dCost, sizeof(int) * n));
  WL_CK(cudaMalloc(&dMask, n));
  WL_CK(cudaMalloc(&dUpdating, n));
  WL_CK(cudaMalloc(&dVisited, n));
  WL_CK(cudaMalloc(&dMore, 1));
  WL_CK(cudaMemcpy(dNodes, nodes.data(), sizeof(Node) * n, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dEdges, edges.data(), sizeof(int) * m, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dCost, cost.data(), sizeof(int) * n, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dMask, hostMask, n, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dVisited, hostVisited, n, cudaMemcpyHostToDevice));
  WL_CK(cudaMemset(dUpdating, 0, n));

  const int blocks = (n + kThreads - 1) / kThreads;
  int levels = 0;
  bool more = true;
  while (more) {
    more = false;
    WL_CK(cudaMemcpy(dMore, &more, 1, cudaMemcpyHostToDevice));
    Kernel<<<blocks, kThreads>>>(dNodes, dEdges, dMask, dUpdating, dVisited, dCost, n);
    WL_CK_LAUNCH();
    Kernel2<<<blocks, kThreads>>>(dMask, dUpdating, dVisited, dMore, n);
    WL_CK_LAUNCH();
    WL_CK(cudaMemcpy(&more, dMore, 1, cudaMemcpyDeviceToHost));
    ++levels;
    if (levels > n + 1) break;  // cannot happen for a correct BFS; guards a broken simulator
  }
  WL_CK(cudaMemcpy(cost.data(), dCost, sizeof(int) * n, cudaMemcpyDeviceToHost));
  int maxLevel = 0, reached = 0;
  for (int i = 0; i < n; ++i)
    if (want[i] >= 0) ++reached, maxLevel = want[i] > maxLevel ? want[i] : maxLevel;
  std::printf("bfs nodes=%d edges=%d blocks=%d threads=%d launch pairs=%d reached=%d depth=%d\n", n,
              m, blocks, kThreads, levels, reached, maxLevel);
  const bool ok = wl::check_equal("levels", cost.data(), want.data(), size_t(n));
  delete[] hostMask;
  delete[] hostVisited;
  WL_CK(cudaFree(dNodes));
  WL_CK(cudaFree(dEdges));
  WL_CK(cudaFree(dCost));
  WL_CK(cudaFree(dMask));
  WL_CK(cudaFree(dUpdating));
  WL_CK(cudaFree(dVisited));
  WL_CK(cudaFree(dMore));
  return wl::finish(ok);
}
