#include "trace/tsc_clock.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace gltrace::trace {

TscClock g_tsc_clock;

void TscCalibrator::start(const ClockPair& pair) {
  last_ = pair;
  window_ns_ = kFirstWindowNs;
}

void TscCalibrator::refine(const ClockPair& pair, bool may_step) {
  if (off_) return;
  if (pair.tsc <= last_.tsc || pair.ns <= last_.ns) return turn_off();  // the TSC went back
  double rate = ns_per_tick_;
  uint64_t since_last_ns = pair.ns - last_.ns;
  if (pair.ns >= due_ns()) {
    uint64_t ticks = pair.tsc - last_.tsc;
    double next_window_ns = static_cast<double>(std::min(window_ns_ * 2, kLastWindowNs));
    double uncertainty = static_cast<double>(last_.width + pair.width) / 2;
    if (uncertainty / static_cast<double>(ticks) * next_window_ns > kMaxDriftNs)
      return;  // interrupted reads: the next pair has a longer window
    rate = static_cast<double>(pair.ns - last_.ns) / static_cast<double>(ticks);
    if (ns_per_tick_ != 0 && std::fabs(rate / ns_per_tick_ - 1) > kMaxRateChange) return turn_off();
    ns_per_tick_ = rate;
    last_ = pair;
    window_ns_ = static_cast<uint64_t>(next_window_ns);
  } else if (ns_per_tick_ == 0 || !may_step) {
    return;  // too short a window for a rate, and no mapping yet to re-anchor
  }

  uint64_t anchor = read_tsc_();
  uint64_t ns_at_anchor = 0;
  if (!clock_->to_ns(anchor, &ns_at_anchor)) {
    // The first mapping, from the start of the pair's reads: clock_gettime
    // took its time no earlier, so the mapping is never behind a time it gave.
    publish(pair.tsc - pair.width / 2, pair.ns, rate);
    return;
  }
  // Continuous at the anchor; 2 ns for what the truncations on either side
  // of it could take back.
  uint64_t ns0 = ns_at_anchor + 2;
  uint64_t ns_at_pair = 0;
  clock_->to_ns(pair.tsc, &ns_at_pair);
  auto offset = static_cast<int64_t>(ns_at_pair - pair.ns);  // mapping minus clock
  if (offset < 0 || may_step) {
    ns0 -= static_cast<uint64_t>(offset);
  } else {
    // Over the time the next refinement will likely take: the next window,
    // or longer when the app ends its frames seldom (a slew kept on past the
    // next refinement overshoots).
    uint64_t next_ns = std::max(window_ns_, since_last_ns);
    double slew = static_cast<double>(offset) / static_cast<double>(next_ns);
    rate *= 1 - std::min(slew, kMaxSlew);
  }
  publish(anchor, ns0, rate);
}

void TscCalibrator::publish(uint64_t tsc0, uint64_t ns0, double ns_per_tick) {
  uint64_t next = clock_->generation.load(std::memory_order_relaxed) + 1;
  TscMapping& m = clock_->mappings[next & 1];
  // A reader that sees any store below sees `generation` past the one it
  // loaded before reading this mapping, and reads again.
  std::atomic_thread_fence(std::memory_order_release);
  m.tsc0.store(tsc0, std::memory_order_relaxed);
  m.ns0.store(ns0, std::memory_order_relaxed);
  m.ns_per_tick.store(ns_per_tick, std::memory_order_relaxed);
  clock_->generation.store(next, std::memory_order_release);
}

void TscCalibrator::turn_off() {
  off_ = true;
  // clock_gettime from here. If the mapping was ahead, times step back once
  // by that much: a misbehaving TSC leaves nothing better.
  clock_->generation.store(0, std::memory_order_release);
}

namespace {

enum State : int { kNotStarted, kRunning, kBusy, kOff };
std::atomic<int> g_state{kNotStarted};
// When the next refinement is due: a cheap check at every frame end.
std::atomic<uint64_t> g_due_ns{0};

uint64_t read_tsc() {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#else
  return 0;
#endif
}

TscCalibrator g_calibrator(&g_tsc_clock, read_tsc);

// The narrowest of a few tries: a thread interrupted between the reads gives
// a wide one. False when none was narrow.
bool clock_pair(ClockPair* pair) {
#if defined(__x86_64__)
  constexpr uint64_t kMaxWidth = 20000;  // a few microseconds at any TSC rate
  pair->width = UINT64_MAX;
  for (int attempt = 0; attempt < 8; ++attempt) {
    // The fences keep the reads in order: rdtsc alone is not.
    __builtin_ia32_lfence();
    uint64_t before = __builtin_ia32_rdtsc();
    __builtin_ia32_lfence();
    uint64_t ns = monotonic_ns();
    __builtin_ia32_lfence();
    uint64_t after = __builtin_ia32_rdtsc();
    if (after > before && after - before < pair->width) {
      pair->width = after - before;
      pair->tsc = before + pair->width / 2;
      pair->ns = ns;
    }
  }
  return pair->width < kMaxWidth;
#else
  (void)pair;
  return false;
#endif
}

bool first_line_is(const char* path, const char* prefix, const char* needle) {
  FILE* file = fopen(path, "r");
  if (file == nullptr) return false;
  char line[4096] = "";
  bool found = false;
  while (fgets(line, sizeof line, file) != nullptr) {
    if (strncmp(line, prefix, strlen(prefix)) == 0) {
      found = strstr(line, needle) != nullptr;
      break;
    }
  }
  fclose(file);
  return found;
}

// An invariant TSC that the kernel itself keeps CLOCK_MONOTONIC on (it
// leaves a TSC that its watchdog found drifting, or that differs between
// CPUs).
bool tsc_is_the_kernel_clock() {
  return first_line_is("/proc/cpuinfo", "flags", " constant_tsc") &&
         first_line_is("/proc/cpuinfo", "flags", " nonstop_tsc") &&
         first_line_is("/sys/devices/system/clocksource/clocksource0/current_clocksource", "",
                       "tsc\n");
}

// Publishes where the calibration stands and lets other threads in again.
void release() {
  g_due_ns.store(g_calibrator.due_ns(), std::memory_order_relaxed);
  g_state.store(g_calibrator.off() ? kOff : kRunning, std::memory_order_release);
}

bool claim() {
  int expected = kRunning;
  return g_state.compare_exchange_strong(expected, kBusy, std::memory_order_acquire);
}

}  // namespace

void start_tsc_calibration() {
  int expected = kNotStarted;
  ClockPair pair;
  if (g_state.compare_exchange_strong(expected, kBusy, std::memory_order_acquire)) {
    if (!tsc_is_the_kernel_clock() || !clock_pair(&pair)) {
      g_state.store(kOff, std::memory_order_release);
      return;
    }
    g_calibrator.start(pair);
    release();
    return;
  }
  // A later session: no call is being timed, so the mapping may step back to
  // the clock after the time between sessions, when nothing refined it.
  if (!claim()) return;
  if (clock_pair(&pair)) g_calibrator.refine(pair, /*may_step=*/true);
  release();
}

void continue_tsc_calibration() {
  if (g_state.load(std::memory_order_acquire) != kRunning ||
      now_ns() < g_due_ns.load(std::memory_order_relaxed))
    return;
  if (!claim()) return;  // another thread refines it now
  ClockPair pair;
  if (clock_pair(&pair)) g_calibrator.refine(pair, /*may_step=*/false);
  release();
}

uint64_t resolution_of(const uint64_t* differences, size_t count) {
  if (count < 100) return 1;
  size_t allowed_misses = count / 100;
  for (uint64_t unit = 1000; unit >= 5; --unit) {
    size_t misses = 0;
    for (size_t i = 0; i < count && misses <= allowed_misses; ++i) {
      uint64_t off = differences[i] % unit;
      misses += off > 1 && off < unit - 1 ? 1 : 0;
    }
    if (misses <= allowed_misses) return unit;
  }
  return 1;
}

namespace {

uint64_t measure_trace_clock_resolution() {
  // Reads a varying distance apart (0 to 255 steps of a spin), so that the
  // differences spread over many multiples of the unit, not one.
  constexpr size_t kPairs = 1000;
  uint64_t differences[kPairs];
  uint32_t spin_seed = 0x9e3779b9;
  for (size_t i = 0; i < kPairs; ++i) {
    spin_seed = spin_seed * 1664525 + 1013904223;
    uint32_t spins = spin_seed >> 24;
    uint64_t first = now_ns();
    for (uint32_t j = 0; j < spins; ++j) asm volatile("" ::: "memory");  // not optimized away
    differences[i] = now_ns() - first;
  }
  return resolution_of(differences, kPairs);
}

}  // namespace

// Measured once: every session of the process (a capture from its start,
// live attaches, the flight recorder) reads the same clock.
uint64_t trace_clock_resolution_ns() {
  static const uint64_t resolution = measure_trace_clock_resolution();
  return resolution;
}

}  // namespace gltrace::trace
