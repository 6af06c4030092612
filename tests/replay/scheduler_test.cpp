// The per-target scheduler on its own.
#include <gtest/gtest.h>

#include "replay/target_scheduler.h"

namespace gltrace::replay {
namespace {

TEST(TargetScheduler, OneInFlightPerTargetReleasedInOrder) {
  TargetScheduler<int> scheduler;
  EXPECT_TRUE(scheduler.admit(1, 10));
  EXPECT_FALSE(scheduler.admit(1, 11));
  EXPECT_FALSE(scheduler.admit(1, 12));
  EXPECT_TRUE(scheduler.admit(2, 20));  // another target is independent
  EXPECT_EQ(scheduler.waiting(), 2u);
  EXPECT_EQ(scheduler.finish(1), 11);
  EXPECT_FALSE(scheduler.admit(1, 13));
  EXPECT_EQ(scheduler.finish(1), 12);
  EXPECT_EQ(scheduler.finish(1), 13);
  EXPECT_EQ(scheduler.finish(1), std::nullopt);
  EXPECT_TRUE(scheduler.admit(1, 14));  // idle again
  EXPECT_EQ(scheduler.finish(2), std::nullopt);
  EXPECT_EQ(scheduler.finish(7), std::nullopt);  // unknown target
}

}  // namespace
}  // namespace gltrace::replay
