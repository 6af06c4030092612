// The trace's TSC clock: its calibration on made-up clocks (rates that
// drift, re-anchoring, a misbehaving TSC), and the real one against
// CLOCK_MONOTONIC.
#include "trace/tsc_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

namespace gltrace::trace {
namespace {

using namespace std::chrono_literals;

// A TSC at 2.5 GHz and a CLOCK_MONOTONIC whose rate against it NTP changes.
struct FakeMachine {
  static inline uint64_t tsc = 0;
  static uint64_t read_tsc() { return tsc; }
  double ns = 1e12;
  double ns_per_tick = 0.4;

  FakeMachine() { tsc = 1000000000000; }
  void advance(double dt_ns) {
    tsc += static_cast<uint64_t>(dt_ns / ns_per_tick);
    ns += dt_ns;
  }
  // As clock_pair reads them: the clock's time somewhere in `width` ticks.
  ClockPair pair(uint64_t width = 130) const { return {tsc, static_cast<uint64_t>(ns), width}; }
  double error(const TscClock& clock) const {
    uint64_t mapped = 0;
    EXPECT_TRUE(clock.to_ns(tsc, &mapped));
    return static_cast<double>(mapped) - ns;
  }
};

// Frames every 16 ms for two hours while NTP moves the clock's rate by
// 100 ppm (a VM's usual correction) back and forth over 20 minutes: the
// mapping stays within a microsecond all along. A rate taken once is 100 us
// off within a second.
TEST(TscCalibrator, FollowsAClockWhoseRateDrifts) {
  FakeMachine machine;
  TscClock clock;
  TscCalibrator calibrator(&clock, FakeMachine::read_tsc);
  calibrator.start(machine.pair());
  double max_error = 0;
  uint64_t refinements = 0;
  for (double t = 0; t < 7200e9; t += 16e6) {
    machine.ns_per_tick = 0.4 * (1 + 100e-6 * std::sin(t / 1200e9 * 2 * M_PI));
    machine.advance(16e6);
    if (static_cast<uint64_t>(machine.ns) >= calibrator.due_ns()) {
      uint64_t generation = clock.generation.load();
      calibrator.refine(machine.pair(), false);
      refinements += clock.generation.load() != generation;
    }
    max_error = std::max(max_error, std::fabs(machine.error(clock)));
  }
  EXPECT_FALSE(calibrator.off());
  EXPECT_LT(max_error, 1000) << "ns, after " << refinements << " refinements";
  EXPECT_GT(refinements, 7000u);  // every second once the windows have grown
}

// An app that ends a frame every 5 s refines the mapping that seldom: the
// offset the last refinement found (up to a pair's 50 ns) is slewed away over
// the time refinements take, not the nominal window, whose rate would carry
// the mapping on past the clock for seconds.
TEST(TscCalibrator, SlewsOverTheTimeBetweenRefinements) {
  FakeMachine machine;
  TscClock clock;
  TscCalibrator calibrator(&clock, FakeMachine::read_tsc);
  calibrator.start(machine.pair());
  double max_error = 0;
  uint32_t noise = 1;
  for (int frame = 0; frame < 720; ++frame) {
    machine.advance(5e9);
    if (frame > 1) max_error = std::max(max_error, std::fabs(machine.error(clock)));
    ClockPair pair = machine.pair();
    noise = noise * 1664525 + 1013904223;
    pair.ns += noise >> 26;  // 0 to 63 ns: where in its width clock_gettime read
    calibrator.refine(pair, false);
  }
  EXPECT_FALSE(calibrator.off());
  EXPECT_LT(max_error, 300);
}

// Re-anchoring never takes a time back: a thread that read the old mapping
// at some TSC and the new one at a later TSC sees a later time, whether the
// mapping was ahead of the clock (it slows down) or behind (it steps on).
TEST(TscCalibrator, NeverGoesBackWhenReanchored) {
  for (double rate_error : {+3e-4, -3e-4}) {
    FakeMachine machine;
    TscClock clock;
    TscCalibrator calibrator(&clock, FakeMachine::read_tsc);
    calibrator.start(machine.pair());
    machine.advance(5e6);
    calibrator.refine(machine.pair(), false);
    ASSERT_NE(clock.generation.load(), 0u);
    for (int i = 0; i < 8; ++i) {
      // The clock runs off the measured rate: the mapping drifts off it.
      machine.ns_per_tick *= 1 + rate_error;
      machine.advance(static_cast<double>(calibrator.due_ns()) - machine.ns);
      uint64_t old_times[64];
      for (uint64_t k = 0; k < 64; ++k) clock.to_ns(machine.tsc - 32 + k, &old_times[k]);
      calibrator.refine(machine.pair(), false);
      machine.ns_per_tick /= 1 + rate_error;
      ASSERT_FALSE(calibrator.off());
      // The anchor is where read_tsc stands: the machine's TSC.
      for (uint64_t k = 0; k < 64; ++k) {
        uint64_t now = 0;
        clock.to_ns(machine.tsc - 32 + k, &now);
        EXPECT_GE(now, old_times[k]) << "rate error " << rate_error << ", step " << i;
        if (k > 0) {
          EXPECT_GE(now, old_times[k - 1]);
        }
      }
    }
    // Either way the offset was steered away, not left to grow: 3e-4 of
    // the last window (1 s) would be 300 us.
    EXPECT_LT(std::fabs(machine.error(clock)), 5e3) << rate_error;
  }
}

// A TSC that leaves the kernel's clock by 1% between windows is not to be
// trusted: clock_gettime from then on.
TEST(TscCalibrator, TurnsOffWhenTheTscMisbehaves) {
  FakeMachine machine;
  TscClock clock;
  TscCalibrator calibrator(&clock, FakeMachine::read_tsc);
  calibrator.start(machine.pair());
  machine.advance(5e6);
  calibrator.refine(machine.pair(), false);
  ASSERT_NE(clock.generation.load(), 0u);
  machine.ns_per_tick *= 1.01;
  machine.advance(10e6);
  calibrator.refine(machine.pair(), false);
  EXPECT_TRUE(calibrator.off());
  uint64_t ns = 0;
  EXPECT_FALSE(clock.to_ns(machine.tsc, &ns));
}

// Pairs whose reads were interrupted (wide) give no rate over a short
// window: the calibration waits for a window long enough for them.
TEST(TscCalibrator, WaitsForAWindowLongEnoughForWidePairs) {
  FakeMachine machine;
  TscClock clock;
  TscCalibrator calibrator(&clock, FakeMachine::read_tsc);
  calibrator.start(machine.pair(20000));
  machine.advance(5e6);
  calibrator.refine(machine.pair(20000), false);
  EXPECT_EQ(clock.generation.load(), 0u);  // 8 us of 5 ms: a rate off by up to 1.6e-3
  machine.advance(500e6);
  calibrator.refine(machine.pair(20000), false);
  EXPECT_NE(clock.generation.load(), 0u);
}

// A session that starts soon after a refinement re-anchors the mapping on the
// clock but takes no rate from the short window since: over 3 ms, a pair's
// 50 ns of width would make a rate 1.7e-5 off, 17 us over the next second.
TEST(TscCalibrator, ASessionStartReanchorsWithoutTakingARate) {
  FakeMachine machine;
  TscClock clock;
  TscCalibrator calibrator(&clock, FakeMachine::read_tsc);
  calibrator.start(machine.pair());
  machine.advance(5e6);
  calibrator.refine(machine.pair(), false);
  ASSERT_NE(clock.generation.load(), 0u);
  double rate = calibrator.ns_per_tick();
  machine.ns_per_tick *= 1 + 1e-4;  // the mapping falls behind: 0.3 us in 3 ms
  machine.advance(3e6);
  machine.ns_per_tick /= 1 + 1e-4;
  ClockPair pair = machine.pair();
  pair.ns += 50;  // where in its width clock_gettime read the clock
  calibrator.refine(pair, /*may_step=*/true);
  EXPECT_FALSE(calibrator.off());
  EXPECT_EQ(calibrator.ns_per_tick(), rate);
  EXPECT_LT(std::fabs(machine.error(clock)), 100);
  machine.advance(1e9);
  EXPECT_LT(std::fabs(machine.error(clock)), 200);
}

// The real clock: every reading lies between two CLOCK_MONOTONIC readings
// around it (with 5 us to spare), from the first window on, as the frames of
// a 60 Hz app refine it. Skipped where the TSC is not the kernel's clock.
TEST(TscClock, FollowsTheMonotonicClock) {
  start_tsc_calibration();
  EXPECT_EQ(g_tsc_clock.generation.load(), 0u);  // no waiting at the start
  continue_tsc_calibration();                    // too early: still clock_gettime
  EXPECT_EQ(g_tsc_clock.generation.load(), 0u);
  std::this_thread::sleep_for(6ms);
  continue_tsc_calibration();
  if (g_tsc_clock.generation.load() == 0) GTEST_SKIP() << "the TSC is not the kernel's clock here";
  uint64_t last = 0;
  for (int i = 0; i < 40; ++i) {
    std::this_thread::sleep_for(16ms);
    continue_tsc_calibration();
    for (int j = 0; j < 100; ++j) {
      uint64_t before = monotonic_ns();
      uint64_t now = now_ns();
      uint64_t after = monotonic_ns();
      EXPECT_GE(now + 5000, before) << "frame " << i;
      EXPECT_LE(now, after + 5000) << "frame " << i;
      EXPECT_GE(now, last) << "frame " << i;  // one thread's times never go back
      last = now;
    }
  }
  EXPECT_NE(g_tsc_clock.generation.load(), 0u);
}

// The times column's unit: a clock that steps by 10 ns (a VM's TSC), its
// reads rounded to the nanosecond, shows 10, stray reads (1%) or not; one
// that counts below a nanosecond shows 1, as do too few reads.
TEST(ClockResolution, IsTheStepOfTheReadsOr1) {
  std::vector<uint64_t> stepped, fine;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 1000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t steps = 1 + x % 200;
    double step_ns = 9.998;  // 24.45 ticks of a 2.4454 GHz TSC
    // Two rounded reads: the difference is within 1 of the steps' span.
    stepped.push_back(
        static_cast<uint64_t>(std::llround(steps * step_ns + (x >> 40) % 100 / 100.0) -
                              std::llround((x >> 40) % 100 / 100.0)));
    fine.push_back(5 + x % 2000);
  }
  EXPECT_EQ(resolution_of(stepped.data(), stepped.size()), 10u);
  for (int i = 0; i < 10; ++i) stepped[i * 97] += 4;  // preempted between two steps: 1%
  EXPECT_EQ(resolution_of(stepped.data(), stepped.size()), 10u);
  EXPECT_EQ(resolution_of(fine.data(), fine.size()), 1u);
  EXPECT_EQ(resolution_of(stepped.data(), 50), 1u);
  // The real clock's: 1, or a step it shows.
  uint64_t unit = trace_clock_resolution_ns();
  EXPECT_TRUE(unit == 1 || (unit >= 5 && unit <= 1000)) << unit;
}

}  // namespace
}  // namespace gltrace::trace
