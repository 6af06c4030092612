// The trace's clock: CLOCK_MONOTONIC, read through the TSC where it can be.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

namespace gltrace::trace {

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// ns = ns0 + (tsc - tsc0) * ns_per_tick: CLOCK_MONOTONIC from the TSC.
struct TscMapping {
  std::atomic<uint64_t> tsc0{0};
  std::atomic<uint64_t> ns0{0};
  std::atomic<double> ns_per_tick{0};
};

// CLOCK_MONOTONIC read through the TSC: two clock_gettime calls per call were
// a third of the capture cost. The mapping is re-anchored as its rate is
// refined (TscCalibrator); readers take no lock: `generation` names the
// current one of two mappings (0: the TSC is not in use) and is read again
// after it, like a seqlock's count.
struct alignas(64) TscClock {  // one cache line for the readers
  std::atomic<uint64_t> generation{0};
  TscMapping mappings[2];

  // CLOCK_MONOTONIC at `tsc`; false while the TSC is not in use.
  bool to_ns(uint64_t tsc, uint64_t* ns) const {
    for (;;) {
      uint64_t current = generation.load(std::memory_order_acquire);
      if (current == 0) return false;
      const TscMapping& m = mappings[current & 1];
      uint64_t tsc0 = m.tsc0.load(std::memory_order_relaxed);
      uint64_t ns0 = m.ns0.load(std::memory_order_relaxed);
      double ns_per_tick = m.ns_per_tick.load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (generation.load(std::memory_order_relaxed) != current) [[unlikely]]
        continue;  // re-anchored twice meanwhile: that mapping was being rewritten
      auto ticks = static_cast<int64_t>(tsc - tsc0);
      // A TSC read just before this mapping's anchor: the anchor's time, which
      // is no earlier than the previous mapping gave (see TscCalibrator).
      if (ticks < 0) [[unlikely]]
        ticks = 0;
      // Through int64_t: a double's conversion to it is one instruction.
      *ns = ns0 +
            static_cast<uint64_t>(static_cast<int64_t>(static_cast<double>(ticks) * ns_per_tick));
      return true;
    }
  }
};
extern TscClock g_tsc_clock;

// A (TSC, CLOCK_MONOTONIC) pair read together; `tsc` is the middle of the
// `width` ticks the clock_gettime took.
struct ClockPair {
  uint64_t tsc = 0;
  uint64_t ns = 0;
  uint64_t width = 0;
};

// Sets and refines a TscClock's mapping from clock pairs: windows that grow
// from 5 ms to 1 s give the rate (the newest window alone, so that the clock
// follows NTP's frequency changes), and each refinement re-anchors the
// mapping where it is, steering what is left of its offset away over the
// next window (or the time the last one took, when the app ends frames
// seldom), so that it stays within a few hundred ns of CLOCK_MONOTONIC:
//  - the mapping is continuous and never goes back: ahead of the clock, it
//    slows down (500 ppm at most); behind, it steps forward. (A reader still
//    on the old mapping after the anchor, when the refining thread was
//    preempted between reading its anchor and publishing, can be ahead of
//    the new one by the rate change times that delay: under 1 ns for a
//    millisecond's delay once the windows have grown.)
//  - a rate that changes by more than 1e-3 between windows turns the TSC off
//    for good: clock_gettime from then on. NTP's frequency corrections stay
//    within 5e-4; beyond that the TSC does not follow the kernel's clock, or
//    the clock is being slewed faster (tick adjustments) than a mapping
//    refined at frame ends could follow.
// Pure logic apart from read_tsc, which gives the anchors: the tests drive it
// with made-up pairs.
class TscCalibrator {
 public:
  static constexpr uint64_t kFirstWindowNs = 5000000;
  static constexpr uint64_t kLastWindowNs = 1000000000;
  static constexpr double kMaxRateChange = 1e-3;
  static constexpr double kMaxSlew = 5e-4;
  // A window's rate is taken only when the two pairs' widths leave it exact
  // enough to drift less than this over the next window; until then the
  // window grows.
  static constexpr double kMaxDriftNs = 200;

  TscCalibrator(TscClock* clock, uint64_t (*read_tsc)()) : clock_(clock), read_tsc_(read_tsc) {}
  // The first pair: the clock stays off until a window has passed.
  void start(const ClockPair& pair);
  // A pair taken when due_ns() has passed: refines the rate and re-anchors.
  // `may_step` (no call being timed) lets it step back to the clock too, and
  // re-anchor on a pair taken early (a session's start), keeping the rate.
  void refine(const ClockPair& pair, bool may_step);
  // CLOCK_MONOTONIC time of the next refinement.
  uint64_t due_ns() const { return last_.ns + window_ns_; }
  bool off() const { return off_; }
  double ns_per_tick() const { return ns_per_tick_; }

 private:
  void publish(uint64_t tsc0, uint64_t ns0, double ns_per_tick);
  void turn_off();

  TscClock* clock_;
  uint64_t (*read_tsc_)();
  ClockPair last_;
  uint64_t window_ns_ = kFirstWindowNs;
  double ns_per_tick_ = 0;  // of the last window measured
  bool off_ = false;
};

// The process's calibration of g_tsc_clock. start_tsc_calibration() (at a
// session's start) notes a first pair without waiting, or re-anchors the
// mapping; continue_tsc_calibration(), called at frame ends and flushes,
// refines it when a window has passed. The TSC is used only where it is
// invariant (constant_tsc, nonstop_tsc) and the kernel's own clocksource.
void start_tsc_calibration();
void continue_tsc_calibration();

// The resolution shown by `count` differences between two reads of a clock,
// in ns: the largest unit in [5, 1000] ns within 1 ns (rounding) of a
// multiple of which at least 99% of them fall; 1 when none (a clock that
// counts below a nanosecond, or too little data).
uint64_t resolution_of(const uint64_t* differences, size_t count);
// The trace clock's resolution (the times column's unit, format 3): read
// pairs a varying distance apart. A VM's TSC may step by 10 ns; the digits
// below a step are rounding, and stored, a third of a trace's times bytes.
uint64_t trace_clock_resolution_ns();

// Time on the trace's clock (CLOCK_MONOTONIC, ns): a rdtsc and a multiply.
inline uint64_t now_ns() {
#if defined(__x86_64__)
  uint64_t ns;
  if (g_tsc_clock.to_ns(__builtin_ia32_rdtsc(), &ns)) [[likely]]
    return ns;
#endif
  return monotonic_ns();
}

}  // namespace gltrace::trace
