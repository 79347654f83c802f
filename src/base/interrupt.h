// A process-wide "stop simulating" request, set from a signal handler (async-signal-safe:
// a lock-free atomic store) and polled by the engines' main loops, which then throw
// simtlab::Interrupted so the runtime can write the stats of what ran before exiting.
#pragma once

#include <atomic>

namespace simtlab {

// Constant-initialised (no guard variable), so a signal handler may touch it at any time.
inline std::atomic<int> g_interrupt_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

// True while an engine runs a kernel and polls interrupt_pending() (set by the runtime).
inline std::atomic<bool> g_engine_polling{false};
static_assert(std::atomic<bool>::is_always_lock_free);

/// The signal number of a pending interrupt request, or 0.
inline int interrupt_pending() { return g_interrupt_signal.load(std::memory_order_relaxed); }
inline void request_interrupt(int sig) { g_interrupt_signal.store(sig, std::memory_order_relaxed); }

}  // namespace simtlab
