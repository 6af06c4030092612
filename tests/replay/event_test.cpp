// The Event handshake on its own: SettingUp -> Waiting -> Signaled ->
// Running, complete() returning only once the worker runs, failures and
// cancellation waking whoever waits.
#include "replay/event.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace gltrace::replay {
namespace {

using State = Event::State;
using Wait = Event::Wait;

TEST(Event, HandshakeConfirmsTheWorkerResumed) {
  Event event;
  EXPECT_EQ(event.state(), State::kSettingUp);
  std::atomic<bool> resumed{false};
  std::thread worker([&] {
    event.prepared();
    EXPECT_EQ(event.ready_to_execute(), Wait::kOk);
    resumed = true;
  });
  EXPECT_EQ(event.complete(), Wait::kOk);
  // complete() returned: the worker is past its wait, in kRunning.
  EXPECT_EQ(event.state(), State::kRunning);
  worker.join();
  EXPECT_TRUE(resumed);
}

TEST(Event, CompleteWaitsWhileSettingUp) {
  Event event;
  std::atomic<bool> completed{false};
  std::thread main_thread([&] {
    EXPECT_EQ(event.complete(), Wait::kOk);
    completed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(completed);  // nothing is prepared: it cannot have returned
  EXPECT_EQ(event.state(), State::kSettingUp);
  event.prepared();
  EXPECT_EQ(event.ready_to_execute(), Wait::kOk);
  main_thread.join();
  EXPECT_TRUE(completed);
}

TEST(Event, ReadyToExecuteWaitsForTheSignal) {
  Event event;
  event.prepared();
  std::atomic<bool> running{false};
  std::thread worker([&] {
    EXPECT_EQ(event.ready_to_execute(), Wait::kOk);
    running = true;
  });
  while (event.state() != State::kWaiting) std::this_thread::yield();
  EXPECT_FALSE(running);
  EXPECT_EQ(event.complete(), Wait::kOk);
  worker.join();
  EXPECT_TRUE(running);
}

TEST(Event, FailureWakesTheMainThread) {
  Event event;
  std::thread main_thread([&] { EXPECT_EQ(event.complete(), Wait::kFailed); });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  event.fail("cannot decode");
  main_thread.join();
  EXPECT_TRUE(event.failed());
  EXPECT_EQ(event.message(), "cannot decode");
  EXPECT_EQ(event.ready_to_execute(), Wait::kFailed);
  EXPECT_EQ(event.wait_prepared(), Wait::kFailed);
}

TEST(Event, CancelWakesBothSides) {
  Event main_side;
  Event worker_side;
  worker_side.prepared();
  std::thread main_thread([&] { EXPECT_EQ(main_side.complete(), Wait::kCancelled); });
  std::thread worker([&] { EXPECT_EQ(worker_side.ready_to_execute(), Wait::kCancelled); });
  while (worker_side.state() != State::kWaiting) std::this_thread::yield();
  main_side.cancel();
  worker_side.cancel();
  main_thread.join();
  worker.join();
}

TEST(Event, GivingUpLeavesTheStateForALaterTry) {
  Event event;
  std::atomic<bool> give_up{false};
  std::thread main_thread(
      [&] { EXPECT_EQ(event.complete([&] { return give_up.load(); }), Wait::kGaveUp); });
  give_up = true;
  main_thread.join();
  EXPECT_EQ(event.state(), State::kSettingUp);
  std::thread worker([&] {
    event.prepared();
    EXPECT_EQ(event.ready_to_execute(), Wait::kOk);
  });
  EXPECT_EQ(event.complete([] { return false; }), Wait::kOk);
  worker.join();
}

TEST(Event, WorkerYieldsAndComesBack) {
  // A target thread waiting for its signal leaves to run a hook, then waits again.
  Event event;
  event.prepared();
  std::atomic<bool> yield{true};
  EXPECT_EQ(event.ready_to_execute([&] { return yield.load(); }), Wait::kGaveUp);
  EXPECT_EQ(event.state(), State::kWaiting);
  yield = false;
  std::thread worker(
      [&] { EXPECT_EQ(event.ready_to_execute([&] { return yield.load(); }), Wait::kOk); });
  EXPECT_EQ(event.complete(), Wait::kOk);
  worker.join();
}

TEST(Event, WaitPrepared) {
  Event event;
  std::thread worker([&] { event.prepared(); });
  EXPECT_EQ(event.wait_prepared(), Wait::kOk);
  worker.join();
  EXPECT_TRUE(event.is_prepared());
  EXPECT_STREQ(to_string(State::kSignaled), "Signaled");
}

}  // namespace
}  // namespace gltrace::replay
