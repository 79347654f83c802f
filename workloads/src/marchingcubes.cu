// marchingcubes: extracts an isosurface from a sampled scalar volume with marching cubes.
//  1. classifyVoxel (helper): per voxel, the 8 corner samples against the isovalue give the
//     cube index (bit i set when corner i is below the isovalue) and, from the table, the
//     number of vertices it emits.
//  2. Host: exclusive scans of vertex counts and of the occupied flags, and compaction of the
//     occupied voxels (the SDK does these scans on the GPU with a library).
//  3. generateTriangles: one thread per occupied voxel interpolates the vertex and the normal
//     (central-difference gradient) on each of the 12 cube edges into shared memory,
//     vertlist[edge][thread] and normlist[edge][thread] (2 variables), then emits its triangles
//     through the triangle table at its scanned output offset.
// The case tables are derived by the program from the cube-case definition (corner and edge
// numbering as in Lorensen & Cline 1987 / Bourke's description): on each face the cut edges are
// paired so that below-isovalue corners are cut off (which also decides ambiguous faces), the
// segments are chained into closed polygons and each polygon is fanned into triangles. This is a
// valid, watertight marching-cubes table (not the published 256-entry table).
// Analog of: CUDA SDK marchingCubes, kernels classifyVoxel and generateTriangles (thesis Table 3.3
// Set-2 "MC1", Table 3.7 "MC2", Table 3.8 "MC").
// Profiles: generateTriangles with 32 threads (the SDK's NTHREADS) and 2 shared variables of
// 12 x 32 float3 = 4608 B each, 9216 B in all (thesis Table 3.8: MC, 2 variables, 9216 B, 32
// threads). Variant mc2: the same kernel with each array sized for 48 slots (12 x 48 float3 = 6912
// B each, 13824 B: thesis Table 3.7 "MC2 is MC1 using 13824 B"), threads kept at 32 (slots 32..47
// unused). classifyVoxel: 128 threads, no shared memory (helper, not studied by the thesis).
// Usage: marchingcubes [n] [mc1|mc2]   (n^3 voxels; default n = 32; scaled run n = 96)
// Check: triangle count and vertex counts exact (integer field, non-integer isovalue); vertex
// positions and normals |err| <= 1e-4 + 1e-5 |ref| against a CPU evaluation in double (positions
// are grid coordinates <= n; normals are gradients <= ~2n; float interpolation error ~ 1e-6 n).
#include <string>
#include <vector>

#include "wl.h"

#define NTHREADS 32
#define MAXV 18  // largest vertex count per case in our derived table (checked at start-up)

static const int kEdgeCorner[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                       {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
static const int kCorner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                  {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
__constant__ int c_EdgeCorner[12][2];
__constant__ int c_Corner[8][3];

__device__ __forceinline__ float sampleVol(const float* vol, int n1, int x, int y, int z) {
  return vol[(size_t(z) * n1 + y) * n1 + x];
}

__global__ void classifyVoxel(int* voxelVerts, int* voxelOccupied, const float* vol, int n,
                              float iso, const int* numVertsTable) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n * n * n) return;
  const int x = i % n, y = (i / n) % n, z = i / (n * n), n1 = n + 1;
  int cube = 0;
  for (int c = 0; c < 8; ++c)
    cube |= (sampleVol(vol, n1, x + c_Corner[c][0], y + c_Corner[c][1], z + c_Corner[c][2]) < iso)
            << c;
  const int nv = numVertsTable[cube];
  voxelVerts[i] = nv;
  voxelOccupied[i] = nv > 0;
}

__device__ __forceinline__ float3 gradient(const float* vol, int n, int x, int y, int z) {
  const int n1 = n + 1;
  const int xm = max(x - 1, 0), xp = min(x + 1, n), ym = max(y - 1, 0), yp = min(y + 1, n),
            zm = max(z - 1, 0), zp = min(z + 1, n);
  return make_float3(sampleVol(vol, n1, xp, y, z) - sampleVol(vol, n1, xm, y, z),
                     sampleVol(vol, n1, x, yp, z) - sampleVol(vol, n1, x, ym, z),
                     sampleVol(vol, n1, x, y, zp) - sampleVol(vol, n1, x, y, zm));
}

template <int SLOTS>
__global__ void generateTriangles(float4* pos, float4* norm, const int* compactedVoxels,
                                  const int* vertOffsets, int activeVoxels, const float* vol,
                                  int n, float iso, const int* triTable) {
  __shared__ float3 vertlist[12 * SLOTS];
  __shared__ float3 normlist[12 * SLOTS];
  const int i = blockIdx.x * NTHREADS + threadIdx.x;
  if (i >= activeVoxels) return;
  const int voxel = compactedVoxels[i];
  const int x = voxel % n, y = (voxel / n) % n, z = voxel / (n * n), n1 = n + 1;
  float f[8];
  int cube = 0;
  for (int c = 0; c < 8; ++c) {
    f[c] = sampleVol(vol, n1, x + c_Corner[c][0], y + c_Corner[c][1], z + c_Corner[c][2]);
    cube |= (f[c] < iso) << c;
  }
#pragma unroll 1  // unrolled, ptxas needs 64 registers (above Fermi's 63)
  for (int e = 0; e < 12; ++e) {  // all 12 edges, as the SDK's generateTriangles
    const int a = c_EdgeCorner[e][0], b = c_EdgeCorner[e][1];
    const float t = (iso - f[a]) / (f[b] - f[a]);
    const int ax = x + c_Corner[a][0], ay = y + c_Corner[a][1], az = z + c_Corner[a][2];
    const int bx = x + c_Corner[b][0], by = y + c_Corner[b][1], bz = z + c_Corner[b][2];
    const float3 ga = gradient(vol, n, ax, ay, az), gb = gradient(vol, n, bx, by, bz);
    vertlist[e * SLOTS + threadIdx.x] =
        make_float3(ax + t * (bx - ax), ay + t * (by - ay), az + t * (bz - az));
    normlist[e * SLOTS + threadIdx.x] =
        make_float3(ga.x + t * (gb.x - ga.x), ga.y + t * (gb.y - ga.y), ga.z + t * (gb.z - ga.z));
  }
  __syncthreads();
  const int base = vertOffsets[voxel];
#pragma unroll 1
  for (int k = 0; k < MAXV; ++k) {
    const int e = triTable[cube * (MAXV + 1) + k];
    if (e < 0) break;
    const float3 v = vertlist[e * SLOTS + threadIdx.x], nn = normlist[e * SLOTS + threadIdx.x];
    pos[base + k] = make_float4(v.x, v.y, v.z, 1.0f);
    norm[base + k] = make_float4(nn.x, nn.y, nn.z, 0.0f);
  }
}

// Derive the triangle table: tri[cube][k] = edge of vertex k, -1 terminated.
static bool buildTables(std::vector<int>& tri, std::vector<int>& numVerts) {
  static const int face[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                 {3, 2, 6, 7}, {0, 3, 7, 4}, {1, 2, 6, 5}};
  auto edgeOf = [](int a, int b) {
    for (int e = 0; e < 12; ++e)
      if ((kEdgeCorner[e][0] == a && kEdgeCorner[e][1] == b) ||
          (kEdgeCorner[e][0] == b && kEdgeCorner[e][1] == a))
        return e;
    return -1;
  };
  tri.assign(256 * (MAXV + 1), -1);
  numVerts.assign(256, 0);
  for (int cube = 0; cube < 256; ++cube) {
    int link[12][2];  // the two neighbours of each cut edge in the polygon graph
    int deg[12] = {0};
    for (int fi = 0; fi < 6; ++fi) {
      const int* c = face[fi];
      // Around each inside corner whose neighbour along the face is outside, pair the two face
      // edges next to the corner (cutting inside corners off); for 2 cut edges this pairs them.
      std::vector<int> cut;
      for (int k = 0; k < 4; ++k) {
        const int a = c[k], b = c[(k + 1) % 4];
        if (((cube >> a) & 1) != ((cube >> b) & 1)) cut.push_back(k);
      }
      std::vector<std::pair<int, int>> segs;
      if (cut.size() == 2) {
        segs.push_back({cut[0], cut[1]});
      } else if (cut.size() == 4) {
        for (int k = 0; k < 4; ++k)
          if ((cube >> c[k]) & 1) segs.push_back({(k + 3) % 4, k});  // edges d-a and a-b
      }
      for (auto& s : segs) {
        const int e0 = edgeOf(c[s.first], c[(s.first + 1) % 4]);
        const int e1 = edgeOf(c[s.second], c[(s.second + 1) % 4]);
        link[e0][deg[e0]++] = e1;
        link[e1][deg[e1]++] = e0;
      }
    }
    bool used[12] = {false};
    int nv = 0;
    for (int start = 0; start < 12; ++start) {
      if (deg[start] == 0 || used[start]) continue;
      if (deg[start] != 2) return false;
      std::vector<int> poly;
      int prev = -1, cur = start;
      while (!used[cur]) {
        used[cur] = true;
        poly.push_back(cur);
        const int next = link[cur][0] != prev ? link[cur][0] : link[cur][1];
        prev = cur;
        cur = next;
      }
      for (size_t k = 1; k + 1 < poly.size(); ++k) {
        if (nv + 3 > MAXV) return false;
        tri[cube * (MAXV + 1) + nv++] = poly[0];
        tri[cube * (MAXV + 1) + nv++] = poly[k];
        tri[cube * (MAXV + 1) + nv++] = poly[k + 1];
      }
    }
    numVerts[cube] = nv;
  }
  return true;
}

int main(int argc, char** argv) {
  const int n = int(wl::arg_int(argc, argv, 1, 32, 4, 256));
  const std::string variant = wl::arg_str(argc, argv, 2, "mc1");
  if (variant != "mc1" && variant != "mc2") {
    std::printf("FAILED: variant must be mc1 or mc2\n");
    return 1;
  }
  std::vector<int> tri, numVerts;
  if (!buildTables(tri, numVerts)) {
    std::printf("FAILED: could not derive the case table within %d vertices\n", MAXV);
    return 1;
  }
  // Field: squared distance to the nearest of three balls' centres (integers: exact in float).
  const int n1 = n + 1;
  const float iso = float(n * n) / 16.0f + 0.5f;
  std::vector<float> vol(size_t(n1) * n1 * n1);
  const int cx[3] = {n / 3, 2 * n / 3, n / 2}, cy[3] = {n / 3, n / 2, 2 * n / 3},
            cz[3] = {n / 2, n / 3, 2 * n / 3};
  wl::Rng rng(5150);
  for (int z = 0; z <= n; ++z)
    for (int y = 0; y <= n; ++y)
      for (int x = 0; x <= n; ++x) {
        int best = 1 << 30;
        for (int b = 0; b < 3; ++b) {
          const int d = (x - cx[b]) * (x - cx[b]) + (y - cy[b]) * (y - cy[b]) + (z - cz[b]) * (z - cz[b]);
          best = std::min(best, d);
        }
        vol[(size_t(z) * n1 + y) * n1 + x] = float(best + rng.range(0, 3));  // bumpy surface
      }
  const int voxels = n * n * n;
  float* dVol;
  int *dNumVerts, *dTri, *dVerts, *dOcc;
  WL_CK(cudaMemcpyToSymbol(c_EdgeCorner, kEdgeCorner, sizeof(kEdgeCorner)));
  WL_CK(cudaMemcpyToSymbol(c_Corner, kCorner, sizeof(kCorner)));
  WL_CK(cudaMalloc(&dVol, vol.size() * 4));
  WL_CK(cudaMalloc(&dNumVerts, 256 * 4));
  WL_CK(cudaMalloc(&dTri, tri.size() * 4));
  WL_CK(cudaMalloc(&dVerts, voxels * 4));
  WL_CK(cudaMalloc(&dOcc, voxels * 4));
  WL_CK(cudaMemcpy(dVol, vol.data(), vol.size() * 4, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dNumVerts, numVerts.data(), 256 * 4, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dTri, tri.data(), tri.size() * 4, cudaMemcpyHostToDevice));
  classifyVoxel<<<(voxels + 127) / 128, 128>>>(dVerts, dOcc, dVol, n, iso, dNumVerts);
  WL_CK_LAUNCH();
  std::vector<int> verts(voxels), occ(voxels);
  WL_CK(cudaMemcpy(verts.data(), dVerts, voxels * 4, cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(occ.data(), dOcc, voxels * 4, cudaMemcpyDeviceToHost));
  // Host scans and compaction.
  std::vector<int> offsets(voxels), compact;
  int total = 0;
  for (int i = 0; i < voxels; ++i) {
    offsets[i] = total;
    total += verts[i];
    if (occ[i]) compact.push_back(i);
  }
  const int active = int(compact.size());
  int *dCompact, *dOffsets;
  float4 *dPos, *dNorm;
  WL_CK(cudaMalloc(&dCompact, std::max(active, 1) * 4));
  WL_CK(cudaMalloc(&dOffsets, voxels * 4));
  WL_CK(cudaMalloc(&dPos, std::max(total, 1) * sizeof(float4)));
  WL_CK(cudaMalloc(&dNorm, std::max(total, 1) * sizeof(float4)));
  WL_CK(cudaMemcpy(dCompact, compact.data(), active * 4, cudaMemcpyHostToDevice));
  WL_CK(cudaMemcpy(dOffsets, offsets.data(), voxels * 4, cudaMemcpyHostToDevice));
  const int blocks = (active + NTHREADS - 1) / NTHREADS;
  if (variant == "mc1")
    generateTriangles<32><<<blocks, NTHREADS>>>(dPos, dNorm, dCompact, dOffsets, active, dVol, n,
                                                iso, dTri);
  else
    generateTriangles<48><<<blocks, NTHREADS>>>(dPos, dNorm, dCompact, dOffsets, active, dVol, n,
                                                iso, dTri);
  WL_CK_LAUNCH();
  std::vector<float4> pos(total), nrm(total);
  WL_CK(cudaMemcpy(pos.data(), dPos, total * sizeof(float4), cudaMemcpyDeviceToHost));
  WL_CK(cudaMemcpy(nrm.data(), dNorm, total * sizeof(float4), cudaMemcpyDeviceToHost));
  int maxCase = 0;
  for (int v : numVerts) maxCase = std::max(maxCase, v);
  std::printf("marchingcubes n=%d variant=%s active=%d triangles=%d blocks=%d threads=%d "
              "(table: at most %d vertices per case)\n",
              n, variant.c_str(), active, total / 3, blocks, NTHREADS, maxCase);
  // CPU reference.
  auto at = [&](int x, int y, int z) { return double(vol[(size_t(z) * n1 + y) * n1 + x]); };
  std::vector<float> refP(size_t(total) * 3), refN(size_t(total) * 3), gotP(refP.size()),
      gotN(refN.size());
  std::vector<int> refVerts(voxels);
  for (int v = 0; v < voxels; ++v) {
    const int x = v % n, y = (v / n) % n, z = v / (n * n);
    int cube = 0;
    double f[8];
    for (int c = 0; c < 8; ++c) {
      f[c] = at(x + kCorner[c][0], y + kCorner[c][1], z + kCorner[c][2]);
      cube |= (f[c] < iso) << c;
    }
    refVerts[v] = numVerts[cube];
    for (int k = 0; k < numVerts[cube]; ++k) {
      const int e = tri[cube * (MAXV + 1) + k], a = kEdgeCorner[e][0], b = kEdgeCorner[e][1];
      const double t = (iso - f[a]) / (f[b] - f[a]);
      int pa[3], pb[3];
      for (int d = 0; d < 3; ++d) {
        pa[d] = (d == 0 ? x : d == 1 ? y : z) + kCorner[a][d];
        pb[d] = (d == 0 ? x : d == 1 ? y : z) + kCorner[b][d];
      }
      auto grad = [&](const int* p, int d) {
        int lo[3] = {p[0], p[1], p[2]}, hi[3] = {p[0], p[1], p[2]};
        lo[d] = std::max(p[d] - 1, 0);
        hi[d] = std::min(p[d] + 1, n);
        return at(hi[0], hi[1], hi[2]) - at(lo[0], lo[1], lo[2]);
      };
      const size_t o = size_t(offsets[v] + k) * 3;
      for (int d = 0; d < 3; ++d) {
        refP[o + d] = float(pa[d] + t * (pb[d] - pa[d]));
        const double ga = grad(pa, d), gb = grad(pb, d);
        refN[o + d] = float(ga + t * (gb - ga));
      }
    }
  }
  for (int k = 0; k < total; ++k) {
    gotP[3 * k] = pos[k].x, gotP[3 * k + 1] = pos[k].y, gotP[3 * k + 2] = pos[k].z;
    gotN[3 * k] = nrm[k].x, gotN[3 * k + 1] = nrm[k].y, gotN[3 * k + 2] = nrm[k].z;
  }
  bool ok = wl::check_equal("voxel vertex counts", verts.data(), refVerts.data(), size_t(voxels));
  ok = ok && wl::check_close("positions", gotP.data(), refP.data(), refP.size(), 1e-5, 1e-4);
  ok = ok && wl::check_close("normals", gotN.data(), refN.data(), refN.size(), 1e-5, 1e-4);
  if (ok && total == 0) {
    std::printf("FAILED: empty surface\n");
    ok = false;
  }
  WL_CK(cudaFree(dVol));
  WL_CK(cudaFree(dNumVerts));
  WL_CK(cudaFree(dTri));
  WL_CK(cudaFree(dVerts));
  WL_CK(cudaFree(dOcc));
  WL_CK(cudaFree(dCompact));
  WL_CK(cudaFree(dOffsets));
  WL_CK(cudaFree(dPos));
  WL_CK(cudaFree(dNorm));
  return wl::finish(ok);
}
