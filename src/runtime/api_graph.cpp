// Stream capture and CUDA graphs, host functions in streams, and stream-ordered allocation.
//
// Graphs: a captured or explicitly built graph is a list of nodes with dependency edges; each
// node holds the stream operation it replays (kernel nodes keep the arguments packed when the
// node was made). cudaGraphInstantiate orders the nodes topologically and cudaGraphLaunch runs
// them one after another on the launch stream through the same paths as direct calls, so
// graph work is simulated and reported exactly like the equivalent stream work. Supported:
// capture across streams joined by events (fork/join), kernel/memcpy/memset/host/empty nodes,
// explicit dependencies, graph launch into a capturing stream. Node-parameter updates
// (cudaGraphExec*SetParams, cudaGraphExecUpdate), child/conditional/event/allocation nodes
// and device-side graph launch are not supported (the stubs say so).
//
// Host functions (cudaLaunchHostFunc, cudaStreamAddCallback) run on the calling thread once
// all earlier work of the device is done, which keeps every ordering CUDA guarantees.
// cudaMallocAsync/cudaFreeAsync use the device heap with stream-ordered frees; the memory
// pool handles answer attribute queries.
#include <algorithm>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "runtime/runtime.h"

using simtlab::runtime::Capture;
using simtlab::runtime::Graph;
using simtlab::runtime::GraphExec;
using simtlab::runtime::GraphNode;
using simtlab::runtime::GraphOp;
using simtlab::runtime::Runtime;

namespace {

Graph* graph_of(cudaGraph_t g) { return reinterpret_cast<Graph*>(g); }
GraphNode* node_of(cudaGraphNode_t n) { return reinterpret_cast<GraphNode*>(n); }
GraphExec* exec_of(cudaGraphExec_t e) { return reinterpret_cast<GraphExec*>(e); }

/// Adds a node to an explicitly built graph; `deps` must be nodes of the same graph.
cudaError_t add_node(Runtime& rt, cudaGraphNode_t* out, cudaGraph_t g, const cudaGraphNode_t* deps,
                     size_t n, const char* kind, GraphOp op) {
  Graph* graph = graph_of(g);
  if (!graph || !out || (n && !deps)) return rt.ret(cudaErrorInvalidValue);
  std::vector<GraphNode*> d;
  for (size_t i = 0; i < n; ++i) {
    GraphNode* dn = node_of(deps[i]);
    const bool mine = std::any_of(graph->nodes.begin(), graph->nodes.end(),
                                  [&](const auto& p) { return p.get() == dn; });
    if (!mine) return rt.ret(cudaErrorInvalidValue);
    d.push_back(dn);
  }
  *out = reinterpret_cast<cudaGraphNode_t>(graph->add(kind, std::move(op), std::move(d)));
  return cudaSuccess;
}

/// The kernel record behind a cudaKernelNodeParams/launch function pointer.
simtlab::runtime::KernelRec* kernel_of(Runtime& rt, const void* func) {
  return rt.kernel_by_handle(func);
}

GraphOp host_op(cudaHostFn_t fn, void* data) {
  return [fn, data](cudaStream_t) {
    Runtime& rt = Runtime::get();
    rt.drain();
    std::fflush(stdout);
    fn(data);
    return cudaSuccess;
  };
}

GraphOp memset_op(void* dst, size_t pitch, unsigned value, unsigned elem, size_t width,
                  size_t height) {
  return [=](cudaStream_t st) -> cudaError_t {
    Runtime& rt = Runtime::get();
    if (elem == 1) return cudaMemset2DAsync(dst, pitch, int(value), width, height, st);
    rt.drain();
    std::vector<uint8_t> row(width * elem);
    for (size_t i = 0; i < width; ++i) std::memcpy(&row[i * elem], &value, elem);
    for (size_t r = 0; r < height; ++r) {
      const auto a = reinterpret_cast<simtlab::Addr>(static_cast<char*>(dst) + r * pitch);
      if (!rt.dev().valid(a, row.size())) return rt.ret(cudaErrorInvalidValue);
      rt.dev().write(a, row.data(), row.size());
      rt.dev().engine()->copy_engine_write(a, row.size());
    }
    return cudaSuccess;
  };
}

thread_local cudaStreamCaptureMode t_capture_mode = cudaStreamCaptureModeGlobal;

struct MemPool {
  uint64_t release_threshold = 0;
  int reuse_follow_event = 1, reuse_opportunistic = 1, reuse_internal = 1;
};
MemPool g_default_pool;

}  // namespace

extern "C" {

// ---- host functions -------------------------------------------------------------------------

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  Runtime& rt = Runtime::get();
  if (!fn) return rt.ret(cudaErrorInvalidValue);
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_op(stream, "host", host_op(fn, userData))) return cudaSuccess;
  return host_op(fn, userData)(stream);
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* userData, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!callback || flags != 0) return rt.ret(cudaErrorInvalidValue);
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_of(stream)) return rt.ret(cudaErrorStreamCaptureUnsupported);
  const cudaError_t status = rt.drain();
  std::fflush(stdout);
  callback(stream, status, userData);
  return cudaSuccess;
}

// ---- stream-ordered allocation --------------------------------------------------------------

cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(hStream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_of(hStream)) {
    rt.unsupported("cudaMallocAsync during stream capture (graph allocation nodes)");
    return rt.ret(cudaErrorStreamCaptureUnsupported);
  }
  const cudaError_t e = cudaMalloc(devPtr, size);
  if (e == cudaSuccess) rt.note_pool_alloc(reinterpret_cast<simtlab::Addr>(*devPtr));
  return e;
}

cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t, cudaStream_t stream) {
  return cudaMallocAsync(ptr, size, stream);
}

cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(hStream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_of(hStream)) {
    rt.unsupported("cudaFreeAsync during stream capture (graph free nodes)");
    return rt.ret(cudaErrorStreamCaptureUnsupported);
  }
  if (!devPtr) return cudaSuccess;
  if (!rt.dev().valid(reinterpret_cast<simtlab::Addr>(devPtr), 1))
    return rt.ret(cudaErrorInvalidValue);
  rt.forget_pool_alloc(reinterpret_cast<simtlab::Addr>(devPtr));
  if (rt.deferred(hStream)) {
    rt.enqueue_action(hStream,
                      [&rt, devPtr] { rt.dev().free(reinterpret_cast<simtlab::Addr>(devPtr)); });
    return cudaSuccess;
  }
  return cudaFree(devPtr);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  Runtime& rt = Runtime::get();
  if (!memPool) return rt.ret(cudaErrorInvalidValue);
  if (device != 0) return rt.ret(cudaErrorInvalidDevice);
  *memPool = reinterpret_cast<cudaMemPool_t>(&g_default_pool);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  return cudaDeviceGetDefaultMemPool(memPool, device);
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  Runtime& rt = Runtime::get();
  auto* p = reinterpret_cast<MemPool*>(memPool);
  if (p != &g_default_pool || !value) return rt.ret(cudaErrorInvalidValue);
  switch (attr) {
    case cudaMemPoolAttrReleaseThreshold:
      p->release_threshold = *static_cast<uint64_t*>(value);
      return cudaSuccess;
    case cudaMemPoolReuseFollowEventDependencies:
      p->reuse_follow_event = *static_cast<int*>(value);
      return cudaSuccess;
    case cudaMemPoolReuseAllowOpportunistic:
      p->reuse_opportunistic = *static_cast<int*>(value);
      return cudaSuccess;
    case cudaMemPoolReuseAllowInternalDependencies:
      p->reuse_internal = *static_cast<int*>(value);
      return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
      return cudaSuccess;  // resetting a high watermark (only 0 is allowed)
    default:
      return rt.ret(cudaErrorInvalidValue);
  }
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  Runtime& rt = Runtime::get();
  auto* p = reinterpret_cast<MemPool*>(memPool);
  if (p != &g_default_pool || !value) return rt.ret(cudaErrorInvalidValue);
  switch (attr) {
    case cudaMemPoolAttrReleaseThreshold:
      *static_cast<uint64_t*>(value) = p->release_threshold;
      return cudaSuccess;
    case cudaMemPoolReuseFollowEventDependencies:
      *static_cast<int*>(value) = p->reuse_follow_event;
      return cudaSuccess;
    case cudaMemPoolReuseAllowOpportunistic:
      *static_cast<int*>(value) = p->reuse_opportunistic;
      return cudaSuccess;
    case cudaMemPoolReuseAllowInternalDependencies:
      *static_cast<int*>(value) = p->reuse_internal;
      return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemCurrent:
    case cudaMemPoolAttrUsedMemHigh:
      // Freed blocks return to the device heap at once: the pool itself holds nothing.
      *static_cast<uint64_t*>(value) = 0;
      return cudaSuccess;
    default:
      return rt.ret(cudaErrorInvalidValue);
  }
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t) {
  Runtime& rt = Runtime::get();
  return reinterpret_cast<MemPool*>(memPool) == &g_default_pool ? cudaSuccess
                                                                : rt.ret(cudaErrorInvalidValue);
}

// ---- stream capture -------------------------------------------------------------------------

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> g(rt.mutex());
  return rt.begin_capture(stream, int(mode));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  Runtime& rt = Runtime::get();
  if (!pGraph) return rt.ret(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> g(rt.mutex());
  Graph* out = nullptr;
  const cudaError_t e = rt.end_capture(stream, &out);
  *pGraph = reinterpret_cast<cudaGraph_t>(out);
  return e;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* pCaptureStatus) {
  Runtime& rt = Runtime::get();
  if (!pCaptureStatus) return rt.ret(cudaErrorInvalidValue);
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  const Capture* c = rt.capture_of(stream);
  *pCaptureStatus = !c               ? cudaStreamCaptureStatusNone
                    : c->invalidated ? cudaStreamCaptureStatusInvalidated
                                     : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** deps, const cudaGraphEdgeData** edges,
                                     size_t* num_deps) {
  Runtime& rt = Runtime::get();
  if (!status) return rt.ret(cudaErrorInvalidValue);
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  Capture* c = rt.capture_of(stream);
  *status = !c               ? cudaStreamCaptureStatusNone
            : c->invalidated ? cudaStreamCaptureStatusInvalidated
                             : cudaStreamCaptureStatusActive;
  if (id) *id = c ? c->id : 0;
  if (graph) *graph = c ? reinterpret_cast<cudaGraph_t>(c->graph.get()) : nullptr;
  static thread_local std::vector<cudaGraphNode_t> dep_handles;
  dep_handles.clear();
  if (c)
    for (GraphNode* n : c->next_deps[stream])
      dep_handles.push_back(reinterpret_cast<cudaGraphNode_t>(n));
  if (deps) *deps = dep_handles.empty() ? nullptr : dep_handles.data();
  if (edges) *edges = nullptr;
  if (num_deps) *num_deps = dep_handles.size();
  return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  Runtime& rt = Runtime::get();
  if (!mode) return rt.ret(cudaErrorInvalidValue);
  std::swap(*mode, t_capture_mode);
  return cudaSuccess;
}

// ---- graphs ---------------------------------------------------------------------------------

cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!pGraph || flags) return rt.ret(cudaErrorInvalidValue);
  *pGraph = reinterpret_cast<cudaGraph_t>(new Graph);
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  Runtime& rt = Runtime::get();
  if (!graph) return rt.ret(cudaErrorInvalidValue);
  delete graph_of(graph);
  return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const cudaKernelNodeParams* p) {
  Runtime& rt = Runtime::get();
  if (!p) return rt.ret(cudaErrorInvalidValue);
  if (p->extra) {
    rt.unsupported("cudaGraphAddKernelNode with `extra` launch parameters");
    return rt.ret(cudaErrorNotSupported);
  }
  std::lock_guard<std::mutex> g(rt.mutex());
  auto* k = kernel_of(rt, p->func);
  if (!k) return rt.ret(cudaErrorInvalidDeviceFunction);
  std::vector<uint8_t> pbuf;
  const dim3 grid = p->gridDim, block = p->blockDim;
  const size_t shared = p->sharedMemBytes;
  if (const cudaError_t e = rt.prepare_launch(*k, grid, block, p->kernelParams, shared, &pbuf);
      e != cudaSuccess)
    return e;
  return add_node(rt, pGraphNode, graph, pDependencies, numDependencies, "kernel",
                  [&rt, k, grid, block, shared, pbuf](cudaStream_t st) {
                    std::lock_guard<std::mutex> lock(rt.mutex());
                    return rt.submit(*k, grid, block, shared, pbuf, st);
                  });
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     void* dst, const void* src, size_t count,
                                     cudaMemcpyKind kind) {
  Runtime& rt = Runtime::get();
  return add_node(rt, pGraphNode, graph, pDependencies, numDependencies, "memcpy",
                  [dst, src, count, kind](cudaStream_t st) {
                    return cudaMemcpyAsync(dst, src, count, kind, st);
                  });
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const cudaMemsetParams* p) {
  Runtime& rt = Runtime::get();
  if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4))
    return rt.ret(cudaErrorInvalidValue);
  const size_t height = std::max<size_t>(p->height, 1);
  const size_t pitch = height > 1 ? p->pitch : p->width * p->elementSize;
  if (height > 1 && pitch < p->width * p->elementSize) return rt.ret(cudaErrorInvalidValue);
  return add_node(rt, pGraphNode, graph, pDependencies, numDependencies, "memset",
                  memset_op(p->dst, pitch, p->value, p->elementSize, p->width, height));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                 const cudaHostNodeParams* p) {
  Runtime& rt = Runtime::get();
  if (!p || !p->fn) return rt.ret(cudaErrorInvalidValue);
  return add_node(rt, pGraphNode, graph, pDependencies, numDependencies, "host",
                  host_op(p->fn, p->userData));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t* pDependencies, size_t numDependencies) {
  return add_node(Runtime::get(), pGraphNode, graph, pDependencies, numDependencies, "empty",
                  nullptr);
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData,
                                     size_t numDependencies) {
  Runtime& rt = Runtime::get();
  if (!graph_of(graph) || (numDependencies && (!from || !to))) return rt.ret(cudaErrorInvalidValue);
  if (edgeData) {
    rt.unsupported("cudaGraphAddDependencies with edge data");
    return rt.ret(cudaErrorNotSupported);
  }
  for (size_t i = 0; i < numDependencies; ++i) node_of(to[i])->deps.push_back(node_of(from[i]));
  return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  Runtime& rt = Runtime::get();
  Graph* g = graph_of(graph);
  if (!g || !numNodes) return rt.ret(cudaErrorInvalidValue);
  if (nodes) {
    const size_t n = std::min(*numNodes, g->nodes.size());
    for (size_t i = 0; i < n; ++i) nodes[i] = reinterpret_cast<cudaGraphNode_t>(g->nodes[i].get());
  }
  *numNodes = g->nodes.size();
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* pType) {
  Runtime& rt = Runtime::get();
  if (!node || !pType) return rt.ret(cudaErrorInvalidValue);
  const std::string& k = node_of(node)->kind;
  *pType = k == "kernel"   ? cudaGraphNodeTypeKernel
           : k == "memcpy" ? cudaGraphNodeTypeMemcpy
           : k == "memset" ? cudaGraphNodeTypeMemset
           : k == "host"   ? cudaGraphNodeTypeHost
           : k == "graph"  ? cudaGraphNodeTypeGraph
                           : cudaGraphNodeTypeEmpty;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                 unsigned long long) {
  Runtime& rt = Runtime::get();
  Graph* g = graph_of(graph);
  if (!pGraphExec || !g) return rt.ret(cudaErrorInvalidValue);
  // Kahn's algorithm, taking the earliest-created ready node first.
  const size_t n = g->nodes.size();
  std::unordered_map<const GraphNode*, size_t> index;
  for (size_t i = 0; i < n; ++i) index[g->nodes[i].get()] = i;
  std::vector<size_t> missing(n, 0);
  std::vector<std::vector<size_t>> users(n);
  for (size_t i = 0; i < n; ++i)
    for (const GraphNode* d : g->nodes[i]->deps) {
      auto it = index.find(d);
      if (it == index.end()) return rt.ret(cudaErrorInvalidValue);
      ++missing[i];
      users[it->second].push_back(i);
    }
  auto exec = std::make_unique<GraphExec>();
  std::vector<bool> done(n, false);
  for (size_t emitted = 0; emitted < n; ++emitted) {
    size_t pick = n;
    for (size_t i = 0; i < n && pick == n; ++i)
      if (!done[i] && missing[i] == 0) pick = i;
    if (pick == n) {
      rt.warn("cudaGraphInstantiate: the graph has a dependency cycle");
      return rt.ret(cudaErrorInvalidValue);
    }
    done[pick] = true;
    for (size_t u : users[pick]) --missing[u];
    if (g->nodes[pick]->run) exec->ops.push_back(g->nodes[pick]->run);
  }
  *pGraphExec = reinterpret_cast<cudaGraphExec_t>(exec.release());
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(pGraphExec, graph, flags);
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  if (!graphExec) return rt.ret(cudaErrorInvalidValue);
  return rt.stream(stream) ? cudaSuccess : rt.ret(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  Runtime& rt = Runtime::get();
  GraphExec* x = exec_of(graphExec);
  if (!x) return rt.ret(cudaErrorInvalidValue);
  if (!rt.stream(stream)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.sticky() != cudaSuccess) return rt.sticky();
  if (rt.capture_of(stream)) {
    for (const GraphOp& op : x->ops) rt.capture_op(stream, "graph", op);
    return cudaSuccess;
  }
  for (const GraphOp& op : x->ops)
    if (const cudaError_t e = op(stream); e != cudaSuccess) return e;
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  Runtime& rt = Runtime::get();
  if (!graphExec) return rt.ret(cudaErrorInvalidValue);
  delete exec_of(graphExec);
  return cudaSuccess;
}

}  // extern "C"
