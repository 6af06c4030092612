#include "trace/tsc_clock.h"

#include <cstdio>
#include <cstring>

namespace gltrace::trace {

TscClock g_tsc_clock;

namespace {

// 0: not started, 1: first pair taken, 2: being finished, 3: done (or no invariant TSC).
std::atomic<int> g_tsc_state{0};
uint64_t g_tsc_start = 0;
uint64_t g_ns_start = 0;

// A (TSC, CLOCK_MONOTONIC) pair read together: false when the thread was
// interrupted between the reads (the pair would be off by the interruption).
bool clock_pair(uint64_t* tsc, uint64_t* ns) {
#if defined(__x86_64__)
  for (int attempt = 0; attempt < 10; ++attempt) {
    uint64_t before = __builtin_ia32_rdtsc();
    *ns = monotonic_ns();
    uint64_t after = __builtin_ia32_rdtsc();
    if (after - before < 20000) {  // a few microseconds at any TSC rate
      *tsc = before + (after - before) / 2;
      return true;
    }
  }
#endif
  (void)tsc;
  (void)ns;
  return false;
}

bool invariant_tsc() {
  FILE* cpuinfo = fopen("/proc/cpuinfo", "r");
  if (cpuinfo == nullptr) return false;
  char line[4096] = "";
  while (fgets(line, sizeof line, cpuinfo) != nullptr && strncmp(line, "flags", 5) != 0) {
  }
  fclose(cpuinfo);
  return strncmp(line, "flags", 5) == 0 && strstr(line, " constant_tsc") != nullptr &&
         strstr(line, " nonstop_tsc") != nullptr;
}

}  // namespace

void start_tsc_calibration() {
  int expected = 0;
  if (!g_tsc_state.compare_exchange_strong(expected, 2)) return;
  bool started = invariant_tsc() && clock_pair(&g_tsc_start, &g_ns_start);
  g_tsc_state.store(started ? 1 : 3, std::memory_order_release);
}

void continue_tsc_calibration() {
  if (g_tsc_state.load(std::memory_order_acquire) != 1) return;
  uint64_t tsc = 0, ns = 0;
  if (!clock_pair(&tsc, &ns) || ns - g_ns_start < 5000000 || tsc <= g_tsc_start) return;
  int expected = 1;
  if (!g_tsc_state.compare_exchange_strong(expected, 2)) return;  // another thread finishes
  g_tsc_clock.ns_per_tick =
      static_cast<double>(ns - g_ns_start) / static_cast<double>(tsc - g_tsc_start);
  g_tsc_clock.tsc0 = tsc;
  g_tsc_clock.ns0 = ns;
  g_tsc_clock.usable.store(true, std::memory_order_release);
  g_tsc_state.store(3, std::memory_order_release);
}

}  // namespace gltrace::trace
