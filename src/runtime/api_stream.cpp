// Streams, events, synchronisation and error queries.
//
// Work runs when it is submitted (kernels complete inside the launch call), so every
// ordering guarantee of streams holds. Events carry simulated time: each stream keeps the
// simulated time at which its last operation completed (kernel durations come from the
// timing model; in functional mode they take zero time).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "runtime/errors.h"
#include "runtime/runtime.h"

using simtlab::runtime::Capture;
using simtlab::runtime::Runtime;

extern "C" {

cudaError_t cudaStreamCreate(cudaStream_t* s) {
  Runtime& rt = Runtime::get();
  if (!s) return rt.ret(cudaErrorInvalidValue);
  *s = reinterpret_cast<cudaStream_t>(rt.new_stream(0, 0));
  return cudaSuccess;
}

// cudaStreamDefault and cudaStreamNonBlocking are the only stream flags.
constexpr unsigned kStreamFlags = cudaStreamNonBlocking;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags) {
  Runtime& rt = Runtime::get();
  if (!s || (flags & ~kStreamFlags)) return rt.ret(cudaErrorInvalidValue);
  *s = reinterpret_cast<cudaStream_t>(rt.new_stream(flags, 0));
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int flags, int priority) {
  Runtime& rt = Runtime::get();
  if (!s || (flags & ~kStreamFlags)) return rt.ret(cudaErrorInvalidValue);
  // Priorities outside cudaDeviceGetStreamPriorityRange are clamped into it (CUDA Runtime API).
  int least = 0, greatest = 0;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  priority = std::clamp(priority, greatest, least);
  *s = reinterpret_cast<cudaStream_t>(rt.new_stream(flags, priority));
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  Runtime& rt = Runtime::get();
  return rt.destroy_stream(s) ? cudaSuccess : rt.ret(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(s)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (Capture* c = rt.capture_of(s)) {
    c->invalidated = true;  // synchronising a capturing stream is illegal and ends the capture
    return rt.ret(cudaErrorStreamCaptureUnsupported);
  }
  rt.drain();
  std::fflush(stdout);
  return rt.sticky();
}

cudaError_t cudaStreamQuery(cudaStream_t s) {
  Runtime& rt = Runtime::get();
  if (!rt.stream(s)) return rt.ret(cudaErrorInvalidResourceHandle);
  rt.drain();  // queued work completes when queried (simulation has no wall-clock overlap)
  return rt.sticky();
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int) {
  Runtime& rt = Runtime::get();
  auto* st = rt.stream(s);
  auto* ev = rt.event(e);
  if (!st || !ev) return rt.ret(cudaErrorInvalidResourceHandle);
  if (ev->capture) {
    rt.capture_wait(s, ev);  // `s` joins the capture the event was recorded in
    return cudaSuccess;
  }
  if (ev->pending_op >= 0) {
    if (rt.deferred(s))
      rt.enqueue_wait(s, ev);
    else
      rt.drain();
  } else if (ev->recorded) {
    st->time_ms = std::max(st->time_ms, ev->time_ms);
  }
  return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int* flags) {
  Runtime& rt = Runtime::get();
  auto* st = rt.stream(s);
  if (!st || !flags) return rt.ret(cudaErrorInvalidValue);
  *flags = st->flags;
  return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t s, int* priority) {
  Runtime& rt = Runtime::get();
  auto* st = rt.stream(s);
  if (!st || !priority) return rt.ret(cudaErrorInvalidValue);
  *priority = st->priority;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  Runtime& rt = Runtime::get();
  if (!e) return rt.ret(cudaErrorInvalidValue);
  *e = reinterpret_cast<cudaEvent_t>(rt.new_event(0));
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int flags) {
  Runtime& rt = Runtime::get();
  // Valid flags: blocking sync, disable timing, interprocess (which needs disable timing).
  constexpr unsigned kEventFlags =
      cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (!e || (flags & ~kEventFlags) ||
      ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)))
    return rt.ret(cudaErrorInvalidValue);
  *e = reinterpret_cast<cudaEvent_t>(rt.new_event(flags));
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
  Runtime& rt = Runtime::get();
  return rt.destroy_event(e) ? cudaSuccess : rt.ret(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  Runtime& rt = Runtime::get();
  auto* ev = rt.event(e);
  if (!ev || !rt.stream(s)) return rt.ret(cudaErrorInvalidResourceHandle);
  if (rt.capture_of(s)) {
    rt.capture_record(s, ev);  // a fork/join point of the captured graph
    return cudaSuccess;
  }
  if (rt.deferred(s)) {
    rt.enqueue_record(s, ev);
    return cudaSuccess;
  }
  rt.drain();
  ev->recorded = true;
  ev->pending_op = -1;
  ev->time_ms = rt.stream_time(s);
  return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int) {
  return cudaEventRecord(e, s);
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  Runtime& rt = Runtime::get();
  if (!rt.event(e)) return rt.ret(cudaErrorInvalidResourceHandle);
  rt.drain();
  std::fflush(stdout);
  return rt.sticky();
}

cudaError_t cudaEventQuery(cudaEvent_t e) {
  Runtime& rt = Runtime::get();
  if (!rt.event(e)) return rt.ret(cudaErrorInvalidResourceHandle);
  rt.drain();
  return rt.sticky();
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  Runtime& rt = Runtime::get();
  auto* a = rt.event(start);
  auto* b = rt.event(end);
  if (!ms) return rt.ret(cudaErrorInvalidValue);
  if (!a || !b) return rt.ret(cudaErrorInvalidResourceHandle);
  if (a->pending_op >= 0 || b->pending_op >= 0) rt.drain();
  if (!a->recorded || !b->recorded) return rt.ret(cudaErrorInvalidResourceHandle);
  if ((a->flags | b->flags) & cudaEventDisableTiming) return rt.ret(cudaErrorInvalidResourceHandle);
  *ms = float(b->time_ms - a->time_ms);
  return cudaSuccess;
}

cudaError_t cudaGetLastError(void) { return Runtime::get().last_error_get(true); }

cudaError_t cudaPeekAtLastError(void) { return Runtime::get().last_error_get(false); }

const char* cudaGetErrorString(cudaError_t e) { return simtlab::runtime::error_string(e); }

const char* cudaGetErrorName(cudaError_t e) { return simtlab::runtime::error_name(e); }

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

}  // extern "C"
