// The trace's TSC clock against CLOCK_MONOTONIC, before and after its rate is taken.
#include "trace/tsc_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace gltrace::trace {
namespace {

using namespace std::chrono_literals;

TEST(TscClock, FollowsTheMonotonicClock) {
  start_tsc_calibration();
  EXPECT_FALSE(g_tsc_clock.usable.load());  // no waiting at the start
  continue_tsc_calibration();               // too early: still clock_gettime
  EXPECT_FALSE(g_tsc_clock.usable.load());
  std::this_thread::sleep_for(10ms);
  continue_tsc_calibration();
  if (!g_tsc_clock.usable.load()) GTEST_SKIP() << "no invariant TSC here";
  // 200 ms on: a rate off by 1e-4 would be 20 us off by then.
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(20ms);
    uint64_t before = monotonic_ns();
    uint64_t now = now_ns();
    uint64_t after = monotonic_ns();
    EXPECT_GE(now + 20000, before) << "step " << i;
    EXPECT_LE(now, after + 20000) << "step " << i;
  }
}

}  // namespace
}  // namespace gltrace::trace
