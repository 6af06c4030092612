// The engine with a synthetic trace: order with any number of workers and
// any execution thread, absolute deadlines, -n, loops, the per-target
// scheduler, and every failure path ending the replay (never hanging it).
#include "replay/replayer.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "replay/preload_source.h"
#include "replay/read_ahead_source.h"
#include "synthetic.h"
#include "test_util.h"

namespace gltrace::replay {
namespace {

using test::Spec;
using test::SyntheticExecutor;
using test::SyntheticSource;
using test::uniform_trace;
using test::within;
using Clock = std::chrono::steady_clock;

ReplayOptions fast_options(ExecuteOn mode = ExecuteOn::kMainThread, int threads = 3) {
  ReplayOptions options;
  options.wait = false;
  options.threads = threads;
  options.execute_on = mode;
  options.handle_sigint = false;
  return options;
}

ReplayStatus replay_guarded(IncrementSource& source, Executor& executor,
                            const ReplayOptions& options, ReplayStats* stats = nullptr) {
  ReplayStatus status;
  within(std::chrono::seconds(20), "replay", [&] {
    Replayer replayer(source, executor, options);
    status = replayer.replay();
    if (stats != nullptr) *stats = replayer.stats();
  });
  return status;
}

std::vector<uint64_t> iota(uint64_t count, uint64_t first = 0) {
  std::vector<uint64_t> values(count);
  for (uint64_t i = 0; i < count; ++i) values[i] = first + i;
  return values;
}

// A mix of slow and fast preparations and executions, the same every run.
std::vector<Spec> mixed_trace(size_t count, uint32_t targets) {
  std::vector<Spec> specs = uniform_trace(count, 1'000'000, 4, targets);
  uint32_t state = 12345;
  for (Spec& spec : specs) {
    state = state * 1103515245u + 12345u;
    static const uint32_t kPrepareUs[] = {0, 0, 0, 0, 200, 1500};
    spec.prepare_us = kPrepareUs[(state >> 16) % 6];
    spec.execute_us = (state >> 8) % 3 == 0 ? 50 : 0;
  }
  return specs;
}

const char* mode_name(ExecuteOn mode) {
  switch (mode) {
    case ExecuteOn::kMainThread:
      return "Main";
    case ExecuteOn::kTargetThread:
      return "Target";
    case ExecuteOn::kTargetThreadInOrder:
      return "TargetInOrder";
    case ExecuteOn::kWorker:
      return "Worker";
  }
  return "?";
}

class OrderTest : public ::testing::TestWithParam<std::tuple<ExecuteOn, int>> {};

TEST_P(OrderTest, EveryIncrementInOrderPerTarget) {
  // Not a structured binding: the lambda below captures them.
  const ExecuteOn mode = std::get<0>(GetParam());
  const int threads = std::get<1>(GetParam());
  const size_t kCount = 240;
  SyntheticSource source(mixed_trace(kCount, 3));
  SyntheticExecutor executor;
  executor.expect_one_per_target = mode == ExecuteOn::kWorker;
  std::thread::id replay_thread;
  ReplayStatus status;
  within(std::chrono::seconds(20), "ordered replay", [&] {
    replay_thread = std::this_thread::get_id();
    Replayer replayer(source, executor, fast_options(mode, threads));
    status = replayer.replay();
  });
  ASSERT_EQ(status.result, ReplayResult::kFinished) << status.message;
  std::vector<test::Executed> executed = executor.executed();
  ASSERT_EQ(executed.size(), kCount);
  std::map<uint32_t, uint64_t> last;
  std::map<uint32_t, std::set<std::thread::id>> threads_of;
  for (const test::Executed& e : executed) {
    auto it = last.find(e.target);
    if (it != last.end()) {
      EXPECT_LT(it->second, e.index) << "target " << e.target;
    }
    last[e.target] = e.index;
    threads_of[e.target].insert(e.thread);
  }
  // Without workers each target's thread prepares its own increments.
  int preparers = threads > 0                               ? threads
                  : mode == ExecuteOn::kTargetThread        ? 3
                  : mode == ExecuteOn::kTargetThreadInOrder ? 3
                                                            : 1;
  EXPECT_LE(executor.max_concurrent_prepares(), preparers);
  if (mode == ExecuteOn::kMainThread) {
    EXPECT_EQ(executor.executed_indices(), iota(kCount));  // globally in order
    for (auto& [target, ids] : threads_of) EXPECT_EQ(ids, std::set{replay_thread});
  }
  if (mode == ExecuteOn::kTargetThread) {
    std::set<std::thread::id> all;
    for (auto& [target, ids] : threads_of) {
      ASSERT_EQ(ids.size(), 1u) << "target " << target << " ran on several threads";
      EXPECT_NE(*ids.begin(), replay_thread);
      all.insert(*ids.begin());
    }
    EXPECT_EQ(all.size(), 3u);  // a thread per target
    std::vector<uint32_t> exited = executor.exited_targets();
    std::sort(exited.begin(), exited.end());
    EXPECT_EQ(exited, (std::vector<uint32_t>{0, 1, 2}));
  }
  if (mode == ExecuteOn::kTargetThreadInOrder) {
    EXPECT_EQ(executor.executed_indices(), iota(kCount));  // globally in order
    EXPECT_EQ(executor.max_concurrent_executes(), 1);
    // The first target on the replay's own thread, each other on its own.
    std::set<std::thread::id> all;
    for (auto& [target, ids] : threads_of) {
      ASSERT_EQ(ids.size(), 1u) << "target " << target << " ran on several threads";
      EXPECT_EQ(*ids.begin() == replay_thread, target == 0) << "target " << target;
      all.insert(*ids.begin());
    }
    EXPECT_EQ(all.size(), 3u);
    std::vector<uint32_t> exited = executor.exited_targets();
    std::sort(exited.begin(), exited.end());
    EXPECT_EQ(exited, (std::vector<uint32_t>{1, 2}));
  }
}

INSTANTIATE_TEST_SUITE_P(
    ModesAndThreads, OrderTest,
    ::testing::Values(
        std::tuple{ExecuteOn::kMainThread, 0}, std::tuple{ExecuteOn::kMainThread, 1},
        std::tuple{ExecuteOn::kMainThread, 3}, std::tuple{ExecuteOn::kMainThread, 8},
        std::tuple{ExecuteOn::kTargetThread, 0}, std::tuple{ExecuteOn::kTargetThread, 1},
        std::tuple{ExecuteOn::kTargetThread, 3}, std::tuple{ExecuteOn::kTargetThread, 8},
        std::tuple{ExecuteOn::kTargetThreadInOrder, 0},
        std::tuple{ExecuteOn::kTargetThreadInOrder, 3}, std::tuple{ExecuteOn::kWorker, 1},
        std::tuple{ExecuteOn::kWorker, 3}, std::tuple{ExecuteOn::kWorker, 8}),
    [](const auto& info) {
      return std::string(mode_name(std::get<0>(info.param))) + "Threads" +
             std::to_string(std::get<1>(info.param));
    });

TEST(Replayer, OnePerTargetInEveryMode) {
  // The seed's BufferQueueScheduler promise: a target's next increment is
  // prepared only once its previous one has executed (the executor fails
  // the replay otherwise).
  for (ExecuteOn mode : {ExecuteOn::kMainThread, ExecuteOn::kTargetThread,
                         ExecuteOn::kTargetThreadInOrder, ExecuteOn::kWorker}) {
    SyntheticSource source(mixed_trace(120, 2));
    SyntheticExecutor executor;
    executor.expect_one_per_target = true;
    ReplayOptions options = fast_options(mode);
    options.one_per_target = true;
    ReplayStatus status = replay_guarded(source, executor, options);
    EXPECT_EQ(status.result, ReplayResult::kFinished) << mode_name(mode) << status.message;
    std::vector<uint64_t> ran = executor.executed_indices();
    std::sort(ran.begin(), ran.end());
    EXPECT_EQ(ran, iota(120)) << mode_name(mode);
  }
}

TEST(Replayer, TwoTargetsSlowAndFastKeepTheirOwnOrder) {
  // Target 0 is slow to prepare and to run, target 1 fast, interleaved over
  // 60 ms of recorded time: each target's increments still run in order.
  std::vector<Spec> specs = uniform_trace(120, 500'000, 10, 2);
  for (Spec& spec : specs) {
    if (spec.target == 0) {
      spec.prepare_us = 2000;
      spec.execute_us = 300;
    }
  }
  for (ExecuteOn mode : {ExecuteOn::kTargetThread, ExecuteOn::kWorker}) {
    SyntheticSource source(specs);
    SyntheticExecutor executor;
    ReplayOptions options = fast_options(mode, 2);
    options.wait = true;
    ReplayStatus status = replay_guarded(source, executor, options);
    EXPECT_EQ(status.result, ReplayResult::kFinished) << mode_name(mode) << status.message;
    std::map<uint32_t, std::vector<uint64_t>> per_target;
    for (const test::Executed& e : executor.executed()) per_target[e.target].push_back(e.index);
    ASSERT_EQ(per_target[0].size(), 60u);
    ASSERT_EQ(per_target[1].size(), 60u);
    EXPECT_TRUE(std::is_sorted(per_target[0].begin(), per_target[0].end()));
    EXPECT_TRUE(std::is_sorted(per_target[1].begin(), per_target[1].end()));
  }
}

// The engine's own timing: absolute deadlines from the first timestamp, so
// nothing runs before its time and the replay takes at least the recorded
// span. How close it comes to that span is measured by
// bench/replay_timing.py, not asserted here (no timed assertions in tests).
TEST(Replayer, ATimedReplayRunsNothingEarly) {
  const uint64_t kDuration = 500'000'000;
  std::vector<Spec> specs = uniform_trace(200, kDuration / 199, 10);
  const double span = static_cast<double>(specs.back().timestamp_ns - specs.front().timestamp_ns);
  SyntheticSource source(specs);
  SyntheticExecutor executor;
  ReplayOptions options = fast_options();
  options.wait = true;
  std::vector<FrameTiming> frames;
  options.on_frame = [&](const FrameTiming& timing) { frames.push_back(timing); };
  ReplayStats stats;
  Clock::time_point start = Clock::now();
  ReplayStatus status = replay_guarded(source, executor, options, &stats);
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_EQ(status.result, ReplayResult::kFinished) << status.message;
  EXPECT_GE(elapsed * 1e9, span) << "the last increment ran before its time";
  for (const FrameTiming& frame : frames) EXPECT_GE(frame.lateness_ns, 0) << frame.frame;
  EXPECT_EQ(stats.increments, 200u);
  EXPECT_EQ(stats.frames, 20u);
  EXPECT_EQ(stats.timed_frames, 20u);
  ASSERT_EQ(frames.size(), 20u);
  EXPECT_TRUE(frames[0].timed);
  EXPECT_EQ(frames[19].frame, 19u);
  EXPECT_EQ(frames[19].index, 199u);
  EXPECT_GE(static_cast<double>(stats.max_lateness_ns), stats.mean_lateness_ns);
  EXPECT_GT(stats.frames_per_second(), 0);
  EXPECT_GT(stats.calls_per_second(), stats.frames_per_second());
}

// Recorded an hour apart: with -n the replay cannot wait for them (it would
// hit the test's timeout), and still reports what a timed replay would take.
TEST(Replayer, IgnoringTimestampsRunsAsFastAsItCan) {
  const uint64_t kHour = 3600'000'000'000;
  SyntheticSource source(uniform_trace(200, kHour / 199, 10));
  SyntheticExecutor executor;
  std::vector<FrameTiming> frames;
  ReplayOptions options = fast_options();
  options.on_frame = [&](const FrameTiming& timing) { frames.push_back(timing); };
  ReplayStats stats;
  ReplayStatus status = replay_guarded(source, executor, options, &stats);
  ASSERT_EQ(status.result, ReplayResult::kFinished) << status.message;
  EXPECT_EQ(stats.increments, 200u);
  EXPECT_EQ(stats.timed_frames, 0u);  // lateness means nothing with -n
  EXPECT_NEAR(stats.recorded_seconds, static_cast<double>(kHour / 199 * 199) / 1e9, 1e-6);
  ASSERT_EQ(frames.size(), 20u);
  EXPECT_FALSE(frames[0].timed);
}

TEST(Replayer, LoopsRunTheTraceAgain) {
  SyntheticSource source(uniform_trace(50, 1000, 5));
  SyntheticExecutor executor;
  ReplayOptions options = fast_options();
  options.loops = 2;
  ReplayStats stats;
  ReplayStatus status = replay_guarded(source, executor, options, &stats);
  ASSERT_EQ(status.result, ReplayResult::kFinished) << status.message;
  std::vector<uint64_t> expected = iota(50);
  expected.insert(expected.end(), expected.begin(), expected.end());
  EXPECT_EQ(executor.executed_indices(), expected);
  EXPECT_EQ(executor.restarts(), 1);
  EXPECT_EQ(source.rewinds, 1);
  EXPECT_EQ(stats.passes, 2u);
  EXPECT_EQ(stats.frames, 20u);
  EXPECT_NEAR(stats.recorded_seconds, 49e-6, 1e-12);  // one pass's span
}

TEST(Replayer, LoopForeverUntilStopped) {
  SyntheticSource source(uniform_trace(20, 1000, 5));
  SyntheticExecutor executor;
  ReplayOptions options = fast_options();
  options.loops = 0;  // -l
  ReplayStatus status;
  ReplayStats stats;
  within(std::chrono::seconds(20), "looping replay", [&] {
    Replayer replayer(source, executor, options);
    std::thread stopper([&] {
      while (executor.restarts() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      replayer.stop();
    });
    status = replayer.replay();
    stats = replayer.stats();
    stopper.join();
  });
  EXPECT_EQ(status.result, ReplayResult::kQuit) << status.message;
  EXPECT_GE(stats.passes, 3u);
  EXPECT_GE(source.rewinds, 3);
}

TEST(Replayer, ASourceThatCannotRewindCannotLoop) {
  SyntheticSource source(uniform_trace(10, 1000));
  source.can_rewind = false;
  SyntheticExecutor executor;
  ReplayOptions options = fast_options();
  options.loops = 2;
  ReplayStatus status = replay_guarded(source, executor, options);
  EXPECT_EQ(status.result, ReplayResult::kSourceError);
  EXPECT_EQ(status.message, "cannot loop: synthetic source cannot rewind");
  EXPECT_EQ(executor.executed_indices(), iota(10));
}

TEST(Replayer, EmptyTrace) {
  SyntheticSource source({});
  SyntheticExecutor executor;
  ReplayOptions options = fast_options();
  options.loops = 0;  // an empty trace must not loop forever
  ReplayStatus status = replay_guarded(source, executor, options);
  EXPECT_EQ(status.result, ReplayResult::kFinished);
  EXPECT_EQ(status.message, "the trace has no increments");
}

TEST(Replayer, BadOptionsAndASecondReplay) {
  SyntheticSource source(uniform_trace(3, 1000));
  SyntheticExecutor executor;
  ReplayStatus status = replay_guarded(source, executor, fast_options(ExecuteOn::kWorker, 0));
  EXPECT_EQ(status.result, ReplayResult::kBadOptions);
  status = replay_guarded(source, executor, fast_options(ExecuteOn::kMainThread, -1));
  EXPECT_EQ(status.result, ReplayResult::kBadOptions);
  Replayer replayer(source, executor, fast_options());
  EXPECT_EQ(replayer.replay().result, ReplayResult::kFinished);
  EXPECT_EQ(replayer.replay().result, ReplayResult::kBadOptions);
}

TEST(Replayer, TheSeedsConstructor) {
  SyntheticSource source(uniform_trace(30, 1000, 3));
  SyntheticExecutor executor;
  ReplayStatus status;
  within(std::chrono::seconds(20), "seed constructor", [&] {
    Replayer replayer(source, executor, /*replay_manually=*/false, /*num_threads=*/2,
                      /*wait=*/false);
    status = replayer.replay();
  });
  EXPECT_EQ(status.result, ReplayResult::kFinished) << status.message;
  EXPECT_EQ(executor.executed_indices(), iota(30));
}

// Failure paths, in every execution mode: the replay stops at the failed
// increment with its index and message, having run everything before it.
class FailureTest : public ::testing::TestWithParam<ExecuteOn> {};

TEST_P(FailureTest, PrepareFailureStopsBeforeTheIncrement) {
  std::vector<Spec> specs = mixed_trace(150, 3);
  specs[57].fail_prepare = true;
  SyntheticSource source(specs);
  SyntheticExecutor executor;
  ReplayStatus status = replay_guarded(source, executor, fast_options(GetParam()));
  EXPECT_EQ(status.result, ReplayResult::kPrepareError);
  EXPECT_EQ(status.index, 57u);
  EXPECT_EQ(status.message, "call 57: prepare failed: synthetic prepare failure");
  std::vector<uint64_t> ran = executor.executed_indices();
  std::sort(ran.begin(), ran.end());
  EXPECT_EQ(ran, iota(57));
}

TEST_P(FailureTest, ExecuteFailureStopsTheReplay) {
  std::vector<Spec> specs = mixed_trace(150, 3);
  specs[57].fail_execute = true;
  SyntheticSource source(specs);
  SyntheticExecutor executor;
  ReplayStatus status = replay_guarded(source, executor, fast_options(GetParam()));
  EXPECT_EQ(status.result, ReplayResult::kExecuteError);
  EXPECT_EQ(status.index, 57u);
  EXPECT_EQ(status.message, "call 57: execute failed: synthetic execute failure");
  std::vector<uint64_t> ran = executor.executed_indices();
  std::sort(ran.begin(), ran.end());
  ASSERT_GE(ran.size(), 57u);
  EXPECT_EQ(std::vector<uint64_t>(ran.begin(), ran.begin() + 57), iota(57));
  EXPECT_EQ(std::count(ran.begin(), ran.end(), 57u), 0);
  if (GetParam() == ExecuteOn::kMainThread) {
    EXPECT_EQ(ran, iota(57));
  }
}

TEST_P(FailureTest, ExceptionsAreFailuresToo) {
  std::vector<Spec> specs = uniform_trace(40, 1000);
  specs[10].throw_prepare = true;
  SyntheticSource source(specs);
  SyntheticExecutor executor;
  ReplayStatus status = replay_guarded(source, executor, fast_options(GetParam()));
  EXPECT_EQ(status.result, ReplayResult::kPrepareError);
  EXPECT_EQ(status.message, "call 10: prepare failed: exception: synthetic prepare exception");

  specs[10].throw_prepare = false;
  specs[20].throw_execute = true;
  SyntheticSource source2(specs);
  SyntheticExecutor executor2;
  status = replay_guarded(source2, executor2, fast_options(GetParam()));
  EXPECT_EQ(status.result, ReplayResult::kExecuteError);
  EXPECT_EQ(status.message, "call 20: execute failed: exception: synthetic execute exception");
}

TEST_P(FailureTest, PrepareFailureWithoutWorkers) {
  if (GetParam() == ExecuteOn::kWorker) GTEST_SKIP() << "kWorker needs workers";
  std::vector<Spec> specs = uniform_trace(30, 1000);
  specs[3].fail_prepare = true;
  SyntheticSource source(specs);
  SyntheticExecutor executor;
  ReplayStatus status = replay_guarded(source, executor, fast_options(GetParam(), 0));
  EXPECT_EQ(status.result, ReplayResult::kPrepareError);
  EXPECT_EQ(status.index, 3u);
  EXPECT_EQ(executor.executed_indices(), iota(3));
}

TEST_P(FailureTest, TruncatedTraceStopsAfterTheLastGoodIncrement) {
  SyntheticSource source(mixed_trace(200, 2), /*error_after=*/120);
  SyntheticExecutor executor;
  ReplayStatus status = replay_guarded(source, executor, fast_options(GetParam()));
  EXPECT_EQ(status.result, ReplayResult::kSourceError);
  EXPECT_EQ(status.index, 119u);
  EXPECT_EQ(status.message, "trace error after call 119: truncated record at offset 1920");
  std::vector<uint64_t> ran = executor.executed_indices();
  std::sort(ran.begin(), ran.end());
  EXPECT_EQ(ran, iota(120));
}

TEST_P(FailureTest, TimedReplayFailsPromptlyToo) {
  // A failure while the main thread sleeps towards a deadline seconds away.
  std::vector<Spec> specs = uniform_trace(6, 100'000'000);
  // An hour later: a replay that waited for it would hit the test's timeout.
  specs.push_back({specs.back().timestamp_ns + 3600'000'000'000ull, 0});
  specs[5].fail_execute = true;
  specs[5].execute_us = 20'000;
  SyntheticSource source(specs);
  SyntheticExecutor executor;
  ReplayOptions options = fast_options(GetParam());
  options.wait = true;
  ReplayStatus status = replay_guarded(source, executor, options);
  EXPECT_EQ(status.result, ReplayResult::kExecuteError);
  EXPECT_EQ(status.index, 5u);
}

INSTANTIATE_TEST_SUITE_P(Modes, FailureTest,
                         ::testing::Values(ExecuteOn::kMainThread, ExecuteOn::kTargetThread,
                                           ExecuteOn::kTargetThreadInOrder, ExecuteOn::kWorker),
                         [](const auto& info) { return std::string(mode_name(info.param)); });

TEST(Replayer, DamagedBeforeTheFirstIncrement) {
  SyntheticSource source(uniform_trace(5, 1000), 0);
  SyntheticExecutor executor;
  ReplayStatus status = replay_guarded(source, executor, fast_options());
  EXPECT_EQ(status.result, ReplayResult::kSourceError);
  EXPECT_FALSE(status.index);
  EXPECT_EQ(status.message, "trace error before the first increment: truncated record at offset 0");
}

TEST(ReadAheadSource, SameIncrementsErrorAndRewind) {
  SyntheticSource inner(uniform_trace(300, 1000, 7), /*error_after=*/250);
  ReadAheadSource source(inner, 16);
  SyntheticExecutor executor;
  ReplayStatus status = replay_guarded(source, executor, fast_options());
  EXPECT_EQ(status.result, ReplayResult::kSourceError);
  EXPECT_EQ(status.message, "trace error after call 249: truncated record at offset 4000");
  EXPECT_EQ(executor.executed_indices(), iota(250));

  SyntheticSource inner2(uniform_trace(40, 1000, 7));
  ReadAheadSource source2(inner2, 4);
  SyntheticExecutor executor2;
  ReplayOptions options = fast_options();
  options.loops = 3;
  status = replay_guarded(source2, executor2, options);
  EXPECT_EQ(status.result, ReplayResult::kFinished) << status.message;
  EXPECT_EQ(executor2.executed_indices().size(), 120u);
  EXPECT_EQ(inner2.rewinds, 2);
}

// Every ring size, the smallest ones included (a batch of one, the reader
// waiting for room at every increment), hands over every increment once, in
// order, and the end.
TEST(ReadAheadSource, EveryRingSizeKeepsOrder) {
  for (size_t capacity : {1, 2, 3, 5, 64}) {
    SyntheticSource inner(uniform_trace(2000, 1000, 3));
    ReadAheadSource source(inner, capacity);
    Increment increment;
    std::string error;
    std::vector<uint64_t> indices;
    SourceResult result;
    while ((result = source.next(&increment, &error)) == SourceResult::kIncrement) {
      ASSERT_NE(increment.payload, nullptr);
      indices.push_back(increment.index);
    }
    EXPECT_EQ(result, SourceResult::kEnd) << error;
    EXPECT_EQ(indices, iota(2000)) << "capacity " << capacity;
    EXPECT_EQ(source.next(&increment, &error), SourceResult::kEnd);
  }
}

// A source that counts what is asked of it and what its payloads hold: a
// PreloadSource must not ask again for what it kept, and must end every
// payload once.
struct CountedPayload : IncrementPayload {
  explicit CountedPayload(int* live) : live(live) { ++*live; }
  ~CountedPayload() override { --*live; }
  size_t memory_bytes() const override { return 1000; }
  int* live;
};

class CountingSource : public IncrementSource {
 public:
  CountingSource(size_t count, std::optional<size_t> error_after = std::nullopt,
                 bool throws = false)
      : count_(count), error_after_(error_after), throws_(throws) {}
  SourceResult next(Increment* out, std::string* error) override {
    ++nexts;
    if (error_after_ && position_ == *error_after_) {
      if (throws_) throw std::runtime_error("bad chunk");
      *error = "truncated record at offset " + std::to_string(position_);
      return SourceResult::kError;
    }
    if (position_ == count_) return SourceResult::kEnd;
    out->index = position_;
    out->timestamp_ns = 1000 * position_;
    out->target = static_cast<uint32_t>(position_ % 3);
    out->ends_frame = position_ % 5 == 4;
    out->payload.reset(new CountedPayload(&live));
    ++position_;
    return SourceResult::kIncrement;
  }
  bool rewind(std::string*) override {
    ++rewinds;
    position_ = 0;
    return true;
  }
  int nexts = 0;
  int rewinds = 0;
  int live = 0;  // payloads not ended

 private:
  size_t count_;
  std::optional<size_t> error_after_;
  bool throws_;
  size_t position_ = 0;
};

struct Drained {
  std::vector<uint64_t> indices;
  std::vector<const IncrementPayload*> payloads;
  SourceResult last = SourceResult::kIncrement;
  std::string error;
};

// Every increment of a pass, checking each one's fields against the source's.
Drained drain(IncrementSource& source) {
  Drained d;
  Increment increment;
  while ((d.last = source.next(&increment, &d.error)) == SourceResult::kIncrement) {
    EXPECT_NE(increment.payload, nullptr);
    EXPECT_EQ(increment.timestamp_ns, 1000 * increment.index);
    EXPECT_EQ(increment.target, increment.index % 3);
    EXPECT_EQ(increment.ends_frame, increment.index % 5 == 4);
    d.indices.push_back(increment.index);
    d.payloads.push_back(increment.payload.get());
    increment.payload.reset();  // as the engine ends what it executed
  }
  return d;
}

TEST(PreloadSource, ServesTheInnerIncrementsInOrderThenAgainWithoutReading) {
  CountingSource inner(300);
  {
    PreloadSource source(inner, uint64_t{1} << 30);
    source.preload();
    EXPECT_EQ(source.preloaded(), 300u);
    EXPECT_FALSE(source.over_budget());
    EXPECT_EQ(source.preloaded_bytes(), 300 * (sizeof(Increment) + 1000));
    EXPECT_EQ(inner.nexts, 301);  // every increment and the end, before the replay
    Drained first = drain(source);
    EXPECT_EQ(first.last, SourceResult::kEnd) << first.error;
    EXPECT_EQ(first.indices, iota(300));
    EXPECT_EQ(inner.live, 300);  // kept: the engine's pointer did not end them
    Increment increment;
    std::string error;
    EXPECT_EQ(source.next(&increment, &error), SourceResult::kEnd);

    std::string error2;
    ASSERT_TRUE(source.rewind(&error2)) << error2;
    Drained second = drain(source);
    EXPECT_EQ(second.last, SourceResult::kEnd);
    EXPECT_EQ(second.indices, iota(300));
    EXPECT_EQ(second.payloads, first.payloads);  // the same calls, not decoded again
    EXPECT_EQ(inner.nexts, 301);
    EXPECT_EQ(inner.rewinds, 0);
  }
  EXPECT_EQ(inner.live, 0);  // the source ended what it kept
}

// The engine loops over preloaded increments without rewinding the inner
// source, on every execution mode.
TEST(PreloadSource, ReplaysAndLoopsThroughTheEngine) {
  for (ExecuteOn mode : {ExecuteOn::kMainThread, ExecuteOn::kTargetThreadInOrder}) {
    SyntheticSource inner(uniform_trace(40, 1000, 7, 2));
    PreloadSource source(inner, uint64_t{1} << 30);
    SyntheticExecutor executor;
    ReplayOptions options = fast_options(mode);
    options.loops = 3;
    ReplayStatus status = replay_guarded(source, executor, options);
    EXPECT_EQ(status.result, ReplayResult::kFinished) << status.message;
    std::vector<uint64_t> expected = iota(40);
    expected.insert(expected.end(), expected.begin(), expected.begin() + 40);
    expected.insert(expected.end(), expected.begin(), expected.begin() + 40);
    std::vector<uint64_t> executed = executor.executed_indices();
    if (mode != ExecuteOn::kMainThread) std::sort(executed.begin(), executed.end());
    if (mode != ExecuteOn::kMainThread) std::sort(expected.begin(), expected.end());
    EXPECT_EQ(executed, expected) << mode_name(mode);
    EXPECT_EQ(inner.rewinds, 0);
  }
}

// Past the budget the preload stops, and the rest streams from the inner
// source: every increment still comes, in order, on every pass.
TEST(PreloadSource, PastTheBudgetTheRestStreams) {
  CountingSource inner(300);
  {
    const uint64_t each = sizeof(Increment) + 1000;
    PreloadSource source(inner, 10 * each + each / 2);
    source.preload();
    EXPECT_TRUE(source.over_budget());
    EXPECT_EQ(source.preloaded(), 10u);
    EXPECT_EQ(source.preloaded_bytes(), 10 * each);
    EXPECT_EQ(inner.nexts, 11);  // the one that did not fit is served after them
    Drained first = drain(source);
    EXPECT_EQ(first.last, SourceResult::kEnd) << first.error;
    EXPECT_EQ(first.indices, iota(300));
    EXPECT_EQ(inner.live, 10);  // the streamed ones ended as they were dropped
    for (int pass = 0; pass < 2; ++pass) {
      std::string error;
      ASSERT_TRUE(source.rewind(&error)) << error;
      Drained again = drain(source);
      EXPECT_EQ(again.last, SourceResult::kEnd);
      EXPECT_EQ(again.indices, iota(300));
      EXPECT_TRUE(
          std::equal(first.payloads.begin(), first.payloads.begin() + 10, again.payloads.begin()));
    }
    EXPECT_EQ(inner.rewinds, 2);
  }
  EXPECT_EQ(inner.live, 0);

  // Through the engine, looping.
  SyntheticSource inner2(uniform_trace(40, 1000, 7));
  PreloadSource source2(inner2, 5 * sizeof(Increment));
  SyntheticExecutor executor;
  ReplayOptions options = fast_options();
  options.loops = 2;
  ReplayStatus status = replay_guarded(source2, executor, options);
  EXPECT_EQ(status.result, ReplayResult::kFinished) << status.message;
  std::vector<uint64_t> expected = iota(40);
  expected.insert(expected.end(), expected.begin(), expected.end());
  EXPECT_EQ(executor.executed_indices(), expected);
  EXPECT_EQ(inner2.rewinds, 1);
}

// An error of the inner source after K increments, met while preloading or
// while streaming past the budget: those K, then the error, unchanged.
TEST(PreloadSource, AnInnerErrorComesAfterTheIncrementsBeforeIt) {
  for (uint64_t budget : {uint64_t{1} << 30, uint64_t{20} * (sizeof(Increment) + 1000)}) {
    CountingSource inner(300, /*error_after=*/250);
    PreloadSource source(inner, budget);
    Drained d = drain(source);
    EXPECT_EQ(d.indices, iota(250)) << budget;
    EXPECT_EQ(d.last, SourceResult::kError);
    EXPECT_EQ(d.error, "truncated record at offset 250");
  }
  // An exception while preloading is the inner source's error.
  CountingSource throwing(300, 7, /*throws=*/true);
  PreloadSource source(throwing, uint64_t{1} << 30);
  source.preload();
  Drained d = drain(source);
  EXPECT_EQ(d.indices, iota(7));
  EXPECT_EQ(d.last, SourceResult::kError);
  EXPECT_EQ(d.error, "exception: bad chunk");

  // The engine replays the calls before it and stops with the message.
  SyntheticSource inner(uniform_trace(300, 1000, 7), /*error_after=*/250);
  PreloadSource preloaded(inner, uint64_t{1} << 30);
  SyntheticExecutor executor;
  ReplayStatus status = replay_guarded(preloaded, executor, fast_options());
  EXPECT_EQ(status.result, ReplayResult::kSourceError);
  EXPECT_EQ(status.message, "trace error after call 249: truncated record at offset 4000");
  EXPECT_EQ(executor.executed_indices(), iota(250));
}

void custom_handler(int) {}

TEST(Replayer, TheCallersSigintHandlerIsBackAfterwards) {
  struct sigaction custom = {};
  custom.sa_handler = custom_handler;
  struct sigaction saved;
  ASSERT_EQ(sigaction(SIGINT, &custom, &saved), 0);
  // During the replay the engine's handler is in place.
  class Probe : public SyntheticExecutor {
   public:
    bool execute(Increment& increment, std::string* error) override {
      struct sigaction now;
      sigaction(SIGINT, nullptr, &now);
      if (now.sa_handler == custom_handler) replaced = false;
      return SyntheticExecutor::execute(increment, error);
    }
    bool replaced = true;
  } executor;
  SyntheticSource source(uniform_trace(5, 1000));
  ReplayOptions options = fast_options();
  options.handle_sigint = true;
  ReplayStatus status = replay_guarded(source, executor, options);
  EXPECT_EQ(status.result, ReplayResult::kFinished);
  EXPECT_TRUE(executor.replaced);
  struct sigaction after;
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, custom_handler);
  sigaction(SIGINT, &saved, nullptr);
}

}  // namespace
}  // namespace gltrace::replay
