// graphs: CUDA graphs and the stream features modern code uses.
//  - stream capture of memset + kernels + async copies on two streams joined by events
//    (fork/join), replayed 5 times; capture status queries; node count
//  - an explicitly built diamond graph (kernel, two kernels, kernel + host node) with
//    cudaGraphAddDependencies, replayed twice
//  - errors: capturing the legacy stream, synchronising a capturing stream (invalidates it)
//  - cudaLaunchHostFunc / cudaStreamAddCallback ordering, cudaMallocAsync / cudaFreeAsync,
//    default memory pool attributes
// Everything is checked against host arithmetic; all values are integers.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  printf("FAILED: %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)
#define EXPECT(cond) do { if (!(cond)) { printf("FAILED: %s (line %d)\n", #cond, __LINE__); return 1; } } while (0)

__global__ void axpb(int* x, int a, int b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + b;
}
__global__ void add_into(int* dst, const int* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] += src[i];
}

struct HostLog {
  int calls = 0;
  int seen = 0;
  const int* watch = nullptr;
};
void CUDART_CB host_fn(void* p) {
  auto* log = static_cast<HostLog*>(p);
  ++log->calls;
  if (log->watch) log->seen = log->watch[3];  // reads a pinned buffer written before it
}
void CUDART_CB stream_cb(cudaStream_t, cudaError_t status, void* p) {
  if (status == cudaSuccess) ++static_cast<HostLog*>(p)->calls;
}

int main() {
  const int n = 1000, T = 128, B = (n + T - 1) / T;
  int *x, *y;
  CK(cudaMalloc(&x, n * sizeof(int)));
  CK(cudaMalloc(&y, n * sizeof(int)));
  int* h;
  CK(cudaMallocHost(&h, n * sizeof(int)));
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

  // ---- capture: s1 sets y = 7 and forks s2, which scales x; s1 then adds y into x -------
  std::vector<int> hx(n);
  for (int i = 0; i < n; ++i) hx[i] = i - 300;
  CK(cudaMemcpy(x, hx.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaStreamCaptureStatus st;
  CK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusNone);
  cudaGraph_t g;
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusActive);
  CK(cudaEventRecord(fork, s1));
  CK(cudaStreamWaitEvent(s2, fork, 0));  // s2 joins the capture
  CK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusActive);
  axpb<<<B, T, 0, s2>>>(x, 3, -1, n);    // x = 3x - 1
  CK(cudaEventRecord(join, s2));
  CK(cudaMemsetAsync(y, 0, n * sizeof(int), s1));
  axpb<<<B, T, 0, s1>>>(y, 1, 7, n);     // y = 7
  CK(cudaStreamWaitEvent(s1, join, 0));
  add_into<<<B, T, 0, s1>>>(x, y, n);    // x += y
  CK(cudaMemcpyAsync(h, x, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CK(cudaStreamEndCapture(s1, &g));
  CK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone);
  size_t nodes = 0;
  CK(cudaGraphGetNodes(g, nullptr, &nodes));
  EXPECT(nodes == 5);
  // Nothing ran during capture.
  std::vector<int> chk(n);
  CK(cudaMemcpy(chk.data(), x, n * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(chk == hx);
  cudaGraphExec_t ge;
  CK(cudaGraphInstantiate(&ge, g, 0));
  for (int it = 0; it < 5; ++it) {
    CK(cudaGraphLaunch(ge, s1));
    for (int i = 0; i < n; ++i) hx[i] = 3 * hx[i] - 1 + 7;
  }
  CK(cudaStreamSynchronize(s1));
  for (int i = 0; i < n; ++i) EXPECT(h[i] == hx[i]);
  long long sum_capture = 0;
  for (int i = 0; i < n; ++i) sum_capture += h[i];
  CK(cudaGraphExecDestroy(ge));
  CK(cudaGraphDestroy(g));

  // ---- explicit diamond: A: x = 2x; B: y = y + 5 (after A); C: x = x + 1 (after A);
  //      D: x += y (after B and C); E: host node (after D) --------------------------------
  CK(cudaMemcpy(x, hx.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> hy(n, 7);
  CK(cudaMemcpy(y, hy.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaGraph_t d;
  CK(cudaGraphCreate(&d, 0));
  int a2 = 2, b0 = 0, a1 = 1, b5 = 5, b1 = 1, nn = n;
  int* xp = x;
  int* yp = y;
  void* argsA[] = {&xp, &a2, &b0, &nn};
  void* argsB[] = {&yp, &a1, &b5, &nn};
  void* argsC[] = {&xp, &a1, &b1, &nn};
  void* argsD[] = {&xp, &yp, &nn};
  cudaKernelNodeParams kp = {};
  kp.gridDim = dim3(B);
  kp.blockDim = dim3(T);
  cudaGraphNode_t A, Bn, C, D, E;
  kp.func = (void*)axpb; kp.kernelParams = argsA;
  CK(cudaGraphAddKernelNode(&A, d, nullptr, 0, &kp));
  kp.kernelParams = argsB;
  CK(cudaGraphAddKernelNode(&Bn, d, nullptr, 0, &kp));   // dependency added below
  kp.kernelParams = argsC;
  CK(cudaGraphAddKernelNode(&C, d, &A, 1, &kp));
  kp.func = (void*)add_into; kp.kernelParams = argsD;
  cudaGraphNode_t bc[] = {Bn, C};
  CK(cudaGraphAddKernelNode(&D, d, bc, 2, &kp));
  a2 = 1000;  // parameters were copied when the node was added
  CK(cudaGraphAddDependencies(d, &A, &Bn, nullptr, 1));
  HostLog log;
  cudaHostNodeParams hp = {host_fn, &log};
  CK(cudaGraphAddHostNode(&E, d, &D, 1, &hp));
  cudaGraphExec_t de;
  CK(cudaGraphInstantiate(&de, d, 0));
  CK(cudaGraphLaunch(de, s2));
  CK(cudaGraphLaunch(de, s2));
  CK(cudaStreamSynchronize(s2));
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < n; ++i) { hx[i] = 2 * hx[i] + 1; hy[i] += 5; hx[i] += hy[i]; }
  CK(cudaMemcpy(chk.data(), x, n * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(chk == hx);
  EXPECT(log.calls == 2);
  CK(cudaGraphExecDestroy(de));
  CK(cudaGraphDestroy(d));

  // ---- capture errors ------------------------------------------------------------------
  EXPECT(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported);
  cudaGetLastError();
  CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
  axpb<<<B, T, 0, s1>>>(x, 1, 1, n);
  EXPECT(cudaStreamSynchronize(s1) == cudaErrorStreamCaptureUnsupported);
  CK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusInvalidated);
  cudaGraph_t bad = nullptr;
  EXPECT(cudaStreamEndCapture(s1, &bad) == cudaErrorStreamCaptureInvalidated && bad == nullptr);
  cudaGetLastError();
  CK(cudaMemcpy(chk.data(), x, n * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(chk == hx);  // the captured kernel never ran

  // ---- host functions, callbacks, stream-ordered allocation ------------------------------
  HostLog hl;
  hl.watch = h;
  int* tmp;
  CK(cudaMallocAsync(&tmp, n * sizeof(int), s1));
  CK(cudaMemcpyAsync(tmp, x, n * sizeof(int), cudaMemcpyDeviceToDevice, s1));
  axpb<<<B, T, 0, s1>>>(tmp, 1, 100, n);
  CK(cudaMemcpyAsync(h, tmp, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CK(cudaLaunchHostFunc(s1, host_fn, &hl));      // runs after the copy into h
  CK(cudaStreamAddCallback(s1, stream_cb, &hl, 0));
  CK(cudaFreeAsync(tmp, s1));
  CK(cudaStreamSynchronize(s1));
  EXPECT(hl.calls == 2);
  EXPECT(hl.seen == hx[3] + 100);
  cudaMemPool_t pool;
  CK(cudaDeviceGetDefaultMemPool(&pool, 0));
  unsigned long long thr = 1ull << 30, back = 0;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &back));
  EXPECT(back == thr);

  printf("graphs: capture sum %lld, diamond x[0]=%d x[%d]=%d, host fn saw %d\n", sum_capture,
         hx[0], n - 1, hx[n - 1], hl.seen);
  CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFreeHost(h));
  CK(cudaStreamDestroy(s1)); CK(cudaStreamDestroy(s2));
  printf("PASSED\n");
  return 0;
}
