// The ReplayController with a synthetic trace: run to a call (forward runs
// only what lies between, backward restarts), park, the position, tasks on a
// target's thread, and its errors (a call beyond the end, a task while
// running, a failed increment, a damaged trace).
#include "replay/controller.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "synthetic.h"
#include "test_util.h"

namespace gltrace::replay {
namespace {

using test::SyntheticExecutor;
using test::SyntheticSource;
using test::uniform_trace;
using test::within;

ReplayOptions controller_options(ExecuteOn mode = ExecuteOn::kMainThread) {
  ReplayOptions options;
  options.wait = false;
  options.threads = 0;
  options.lookahead = 1;
  options.execute_on = mode;
  options.handle_sigint = false;
  return options;
}

std::vector<uint64_t> range(uint64_t first, uint64_t last) {
  std::vector<uint64_t> values;
  for (uint64_t i = first; i <= last; ++i) values.push_back(i);
  return values;
}

TEST(ReplayController, RunToACallParksRightAfterIt) {
  within(std::chrono::seconds(20), "run_to", [] {
    SyntheticSource source(uniform_trace(20, 1000));
    SyntheticExecutor executor;
    ReplayController controller(source, executor, controller_options());
    RunResult result = controller.run_to(7);
    ASSERT_EQ(result.stop, RunStop::kParked) << result.status.message;
    Position at = controller.position();
    ASSERT_TRUE(at.last);
    EXPECT_EQ(*at.last, 7u);
    ASSERT_TRUE(at.next);
    EXPECT_EQ(*at.next, 8u);
    EXPECT_EQ(at.frame, 8u);  // every increment ends a frame
    EXPECT_EQ(executor.executed_indices(), range(0, 7));
    // Forward: only the calls in between.
    bool restarted = true;
    result = controller.run_to(12, &restarted);
    ASSERT_EQ(result.stop, RunStop::kParked);
    EXPECT_FALSE(restarted);
    EXPECT_EQ(executor.executed_indices(), range(0, 12));
    // The same call again runs nothing.
    result = controller.run_to(12);
    ASSERT_EQ(result.stop, RunStop::kParked);
    EXPECT_EQ(executor.executed_indices().size(), 13u);
    EXPECT_EQ(controller.stats().increments, 13u);
  });
}

TEST(ReplayController, BackwardRestartsFromTheStart) {
  within(std::chrono::seconds(20), "backward", [] {
    SyntheticSource source(uniform_trace(20, 1000));
    SyntheticExecutor executor;
    ReplayController controller(source, executor, controller_options());
    ASSERT_EQ(controller.run_to(12).stop, RunStop::kParked);
    bool restarted = false;
    ASSERT_EQ(controller.run_to(3, &restarted).stop, RunStop::kParked);
    EXPECT_TRUE(restarted);
    EXPECT_EQ(source.rewinds, 1);
    EXPECT_EQ(executor.restarts(), 1);
    EXPECT_EQ(*controller.position().last, 3u);
    EXPECT_EQ(controller.position().frame, 4u);  // the pass's frames, from its start
    std::vector<uint64_t> expected = range(0, 12);
    for (uint64_t i : range(0, 3)) expected.push_back(i);
    EXPECT_EQ(executor.executed_indices(), expected);
  });
}

TEST(ReplayController, ACallBeyondTheEndStopsAtTheEndStillParked) {
  within(std::chrono::seconds(20), "beyond the end", [] {
    SyntheticSource source(uniform_trace(10, 1000));
    SyntheticExecutor executor;
    ReplayController controller(source, executor, controller_options());
    RunResult result = controller.run_to(100);
    EXPECT_EQ(result.stop, RunStop::kEnd);
    EXPECT_EQ(result.status.result, ReplayResult::kFinished) << result.status.message;
    Position at = controller.position();
    EXPECT_EQ(*at.last, 9u);
    EXPECT_FALSE(at.next);
    EXPECT_EQ(controller.stats().passes, 1u);
    // Parked at the end: tasks run, and the replay goes back on request.
    std::string error;
    bool ran = false;
    EXPECT_TRUE(controller.run_on_target(
        0, [&] { ran = true; }, &error))
        << error;
    EXPECT_TRUE(ran);
    EXPECT_EQ(controller.run_to(100).stop, RunStop::kEnd);  // again: nothing more to run
    EXPECT_EQ(controller.stats().passes, 1u);
    EXPECT_EQ(controller.run_to(4).stop, RunStop::kParked);
    EXPECT_EQ(*controller.position().last, 4u);
  });
}

TEST(ReplayController, ATaskRunsOnTheTargetsThread) {
  within(std::chrono::seconds(20), "tasks", [] {
    SyntheticSource source(uniform_trace(12, 1000, 1, 3));  // targets 0, 1, 2 take turns
    SyntheticExecutor executor;
    ReplayController controller(source, executor,
                                controller_options(ExecuteOn::kTargetThreadInOrder));
    ASSERT_EQ(controller.run_to(7).stop, RunStop::kParked);
    EXPECT_EQ(controller.position().last_target, 1u);  // 7 % 3
    std::map<uint32_t, std::thread::id> ran_on;
    for (const test::Executed& e : executor.executed()) ran_on[e.target] = e.thread;
    for (uint32_t target = 0; target < 3; ++target) {
      std::thread::id task_thread;
      std::string error;
      ASSERT_TRUE(controller.run_on_target(
          target, [&] { task_thread = std::this_thread::get_id(); }, &error))
          << error;
      EXPECT_EQ(task_thread, ran_on[target]) << "target " << target;
    }
    // The first target runs on the driving thread itself.
    EXPECT_EQ(ran_on[0], std::this_thread::get_id());
    EXPECT_NE(ran_on[1], std::this_thread::get_id());
  });
}

// Asks the controller for a task from inside an increment: refused.
class IntrusiveExecutor : public SyntheticExecutor {
 public:
  bool execute(Increment& increment, std::string* error) override {
    if (increment.index == 3 && controller != nullptr) {
      running_seen = controller->running();
      task_ran = controller->run_on_target(
          0, [] {}, &task_error);
    }
    return SyntheticExecutor::execute(increment, error);
  }
  ReplayController* controller = nullptr;
  bool running_seen = false;
  bool task_ran = true;
  std::string task_error;
};

TEST(ReplayController, ATaskWhileRunningIsRefused) {
  within(std::chrono::seconds(20), "task while running", [] {
    SyntheticSource source(uniform_trace(10, 1000));
    IntrusiveExecutor executor;
    ReplayController controller(source, executor, controller_options());
    executor.controller = &controller;
    ASSERT_EQ(controller.run_to(5).stop, RunStop::kParked);
    EXPECT_TRUE(executor.running_seen);
    EXPECT_FALSE(executor.task_ran);
    EXPECT_NE(executor.task_error.find("running"), std::string::npos) << executor.task_error;
    EXPECT_FALSE(controller.running());
    EXPECT_EQ(executor.executed_indices(), range(0, 5));
  });
}

TEST(ReplayController, AFailedIncrementEndsTheRunOver) {
  within(std::chrono::seconds(20), "failure", [] {
    std::vector<test::Spec> specs = uniform_trace(10, 1000);
    specs[4].fail_execute = true;
    SyntheticSource source(specs);
    SyntheticExecutor executor;
    ReplayController controller(source, executor, controller_options());
    RunResult result = controller.run_to(8);
    EXPECT_EQ(result.stop, RunStop::kOver);
    EXPECT_EQ(result.status.result, ReplayResult::kExecuteError);
    EXPECT_EQ(result.status.index, 4u);
    std::string error;
    EXPECT_FALSE(controller.run_on_target(
        0, [] {}, &error));
    EXPECT_EQ(controller.run(RunGoal{}).stop, RunStop::kOver);  // over until restarted
    EXPECT_TRUE(controller.restart(&error)) << error;
    EXPECT_EQ(controller.run_to(2).stop, RunStop::kParked);
    EXPECT_EQ(*controller.position().last, 2u);
  });
}

TEST(ReplayController, ADamagedTraceEndsAtItsLastGoodCall) {
  within(std::chrono::seconds(20), "source error", [] {
    SyntheticSource source(uniform_trace(10, 1000), 6);
    SyntheticExecutor executor;
    ReplayController controller(source, executor, controller_options());
    RunResult result = controller.run_to(8);
    EXPECT_EQ(result.stop, RunStop::kEnd);
    EXPECT_EQ(result.status.result, ReplayResult::kSourceError);
    EXPECT_EQ(*controller.position().last, 5u);
    EXPECT_EQ(result.status.message.rfind("trace error after call 5: ", 0), 0u)
        << result.status.message;
  });
}

TEST(ReplayController, StepsFramesAndInterrupts) {
  within(std::chrono::seconds(20), "goals", [] {
    SyntheticSource source(uniform_trace(20, 1000, 4));  // a frame ends every 4th
    SyntheticExecutor executor;
    ReplayController controller(source, executor, controller_options());
    RunGoal steps{RunGoal::Kind::kSteps, 3, {}, false};
    ASSERT_EQ(controller.run(steps).stop, RunStop::kParked);
    EXPECT_EQ(*controller.position().last, 2u);
    RunGoal frames{RunGoal::Kind::kFrames, 1, {}, false};
    ASSERT_EQ(controller.run(frames).stop, RunStop::kParked);
    EXPECT_EQ(*controller.position().last, 3u);  // the first frame's end
    EXPECT_EQ(controller.position().frame, 1u);
    RunGoal frame{RunGoal::Kind::kFrame, 3, {}, false};
    ASSERT_EQ(controller.run(frame).stop, RunStop::kParked);
    EXPECT_EQ(*controller.position().next, 12u);  // the start of frame 3
    // interrupt(): parks before the next increment, once.
    controller.interrupt();
    EXPECT_EQ(controller.run(RunGoal{}).stop, RunStop::kInterrupted);
    EXPECT_EQ(*controller.position().next, 12u);
    EXPECT_EQ(controller.run(RunGoal{}).stop, RunStop::kEnd);
    EXPECT_EQ(*controller.position().last, 19u);
  });
}

}  // namespace
}  // namespace gltrace::replay
