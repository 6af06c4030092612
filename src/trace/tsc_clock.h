// The trace's clock: CLOCK_MONOTONIC, read through the TSC where it can be.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

namespace gltrace::trace {

// CLOCK_MONOTONIC read through the TSC: two clock_gettime calls per call
// were a third of the capture cost. Used only on an invariant TSC
// (constant_tsc and nonstop_tsc). Calibrated once per process, without
// waiting: start_tsc_calibration() notes a (TSC, CLOCK_MONOTONIC) pair, and
// continue_tsc_calibration(), called at frame ends and flushes, takes the
// rate once 5 ms have passed (good to ~1e-6); until then, clock_gettime.
struct TscClock {
  std::atomic<bool> usable{false};  // published (release) after the fields
  uint64_t tsc0 = 0;
  uint64_t ns0 = 0;
  double ns_per_tick = 0;
};
extern TscClock g_tsc_clock;
void start_tsc_calibration();
void continue_tsc_calibration();

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Time on the trace's clock (CLOCK_MONOTONIC, ns).
inline uint64_t now_ns() {
#if defined(__x86_64__)
  if (g_tsc_clock.usable.load(std::memory_order_acquire)) [[likely]]
    return g_tsc_clock.ns0 +
           static_cast<uint64_t>(static_cast<double>(__builtin_ia32_rdtsc() - g_tsc_clock.tsc0) *
                                 g_tsc_clock.ns_per_tick);
#endif
  return monotonic_ns();
}

}  // namespace gltrace::trace
