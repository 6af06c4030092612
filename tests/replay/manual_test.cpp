// Manual mode driven through the console's fds: a script of commands in, a
// transcript out. Timestamps are ignored (-n) so stepping is instant; the
// pseudo-terminal tests drive a timed replay.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "replay/replayer.h"
#include "support/subprocess.h"
#include "synthetic.h"
#include "test_util.h"

namespace gltrace::replay {
namespace {

using test::lines_with;
using test::run_with_console;
using test::SyntheticExecutor;
using test::SyntheticSource;
using test::uniform_trace;

std::vector<uint64_t> iota(uint64_t count) {
  std::vector<uint64_t> values(count);
  for (uint64_t i = 0; i < count; ++i) values[i] = i;
  return values;
}

// 100 increments 10 ms apart from t = 1 s, a frame every 5.
std::vector<test::Spec> hundred() { return uniform_trace(100, 10'000'000, 5); }

ReplayOptions manual_options(ExecuteOn mode = ExecuteOn::kMainThread) {
  ReplayOptions options;
  options.manual = true;
  options.wait = false;
  options.execute_on = mode;
  options.handle_sigint = false;
  return options;
}

// The transcript, line by line, with the prompts taken out.
std::vector<std::string> replies(const std::string& transcript) {
  std::vector<std::string> lines;
  std::string rest = transcript;
  for (size_t at; (at = rest.find("(replay) ")) != std::string::npos;)
    rest.erase(at, std::string("(replay) ").size());
  std::istringstream in(rest);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ManualMode, StepsRunsToAndReports) {
  SyntheticSource source(hundred());
  SyntheticExecutor executor;
  std::string snap = ::gltrace::test::make_temp_dir() + "/frame.png";
  test::ConsoleRun run = run_with_console(source, executor, manual_options(),
                                          "n\n"
                                          "\n"  // Enter repeats n
                                          "ni\n"
                                          "ni 3\n"
                                          "l\n"
                                          "f 5\n"
                                          "call 40\n"
                                          "s 505ms\n"
                                          "c 100\n"
                                          "s 1650000000\n"
                                          "f 3\n"
                                          "call 10\n"
                                          "s 100ms\n"
                                          "info\n"
                                          "snap " +
                                              snap +
                                              "\n"
                                              "h\n"
                                              "bogus\n"
                                              "q\n");
  EXPECT_EQ(run.status.result, ReplayResult::kQuit) << run.status.message;
  EXPECT_EQ(run.status.message, "quit before call 65");
  std::vector<std::string> expected = {
      "stopped before call 0 (frame 0, +0.000000 s)",
      "stopped before call 5 (frame 1, +0.050000 s)",
      "stopped before call 10 (frame 2, +0.100000 s)",
      "stopped before call 11 (frame 2, +0.110000 s)",
      "stopped before call 14 (frame 2, +0.140000 s)",
      "time +0.130000 s (1130000000 ns); next: call 14 (frame 2) at +0.140000 s (1140000000 ns)",
      "stopped before call 25 (frame 5, +0.250000 s)",
      "stopped before call 40 (frame 8, +0.400000 s)",
      "stopped at +0.505000 s, before call 51 (frame 10, +0.510000 s)",
      "stopped at +0.605000 s, before call 61 (frame 12, +0.610000 s)",
      "stopped at +0.650000 s, before call 65 (frame 13, +0.650000 s)",
      "already past the start of frame 3 (in frame 13)",
      "already past call 10",
      "already past +0.100000 s (at +0.650000 s)",
      "next: call 65, frame 13, target 0, at +0.650000 s (1650000000 ns)",
      "last: call 64, target 0, at +0.640000 s",
      "pass 1 of 1, 65 increments and 13 frames run",
      "target 0: synthetic target 0",
      "saved " + snap + " (target 0)",
  };
  std::vector<std::string> got = replies(run.transcript);
  ASSERT_GE(got.size(), expected.size()) << run.transcript;
  EXPECT_EQ(std::vector<std::string>(got.begin(), got.begin() + expected.size()), expected)
      << run.transcript;
  EXPECT_NE(run.transcript.find("ni [COUNT]"), std::string::npos);  // h
  EXPECT_NE(run.transcript.find("unknown command 'bogus'"), std::string::npos);
  EXPECT_EQ(executor.executed_indices(), iota(65));
  EXPECT_EQ(::gltrace::test::read_text_file(snap), "snapshot of target 0\n");
}

TEST(ManualMode, SteppingToTheEndKeepsThePrompt) {
  SyntheticSource source(uniform_trace(10, 1000, 5));
  SyntheticExecutor executor;
  test::ConsoleRun run = run_with_console(source, executor, manual_options(), "n\nn\nl\nn\n");
  EXPECT_EQ(run.status.result, ReplayResult::kFinished) << run.status.message;
  EXPECT_EQ(lines_with(run.transcript, "end of trace").size(), 1u) << run.transcript;
  EXPECT_NE(run.transcript.find("end of trace after call 9 (2 frames) (q ends the replay)"),
            std::string::npos)
      << run.transcript;
  EXPECT_NE(run.transcript.find("; end of the trace"), std::string::npos);  // l
  EXPECT_EQ(executor.executed_indices(), iota(10));
}

TEST(ManualMode, ContinueRunsToTheEnd) {
  SyntheticSource source(hundred());
  SyntheticExecutor executor;
  test::ConsoleRun run = run_with_console(source, executor, manual_options(), "ni 2\nc\n");
  EXPECT_EQ(run.status.result, ReplayResult::kFinished) << run.status.message;
  EXPECT_EQ(executor.executed_indices(), iota(100));
  EXPECT_EQ(::gltrace::test::count_occurrences(run.transcript, "(replay) "), 2u) << run.transcript;
}

TEST(ManualMode, EndOfInputQuits) {
  SyntheticSource source(hundred());
  SyntheticExecutor executor;
  test::ConsoleRun run = run_with_console(source, executor, manual_options(), "ni");
  EXPECT_EQ(run.status.result, ReplayResult::kQuit);
  EXPECT_EQ(run.status.message, "end of console input before call 1");
  EXPECT_EQ(executor.executed_indices(), iota(1));
}

TEST(ManualMode, StopAtSwitchesToManual) {
  SyntheticSource source(hundred());
  SyntheticExecutor executor;
  ReplayOptions options = manual_options();
  options.manual = false;
  options.stop_at = TimeSpec{300'000'000, true};  // -s 300ms
  test::ConsoleRun run = run_with_console(source, executor, options, "q\n");
  EXPECT_EQ(run.status.message, "quit before call 30");
  // The clock stands at the stop time, 10 ms past call 29.
  EXPECT_NE(run.transcript.find("stopped at +0.300000 s, before call 30 (frame 6, +0.300000 s)"),
            std::string::npos)
      << run.transcript;
  EXPECT_EQ(executor.executed_indices(), iota(30));
}

TEST(ManualMode, TheSeedsStopHereTimestamp) {
  SyntheticSource source(hundred());
  SyntheticExecutor executor;
  int in[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(write(in[1], "q\n", 2), 2);
  close(in[1]);
  ReplayStatus status;
  test::within(std::chrono::seconds(20), "stop here", [&] {
    Replayer replayer(source, executor, false, 3, false, /*stop_here_ns=*/1'420'000'000);
    // The seed's constructor reads stdin; this test has no terminal there.
    int saved_in = dup(0);
    int saved_out = dup(1);
    dup2(in[0], 0);
    int null_out = open("/dev/null", O_WRONLY);
    dup2(null_out, 1);
    status = replayer.replay();
    dup2(saved_in, 0);
    dup2(saved_out, 1);
    close(saved_in);
    close(saved_out);
    close(null_out);
  });
  close(in[0]);
  EXPECT_EQ(status.message, "quit before call 42");
  EXPECT_EQ(executor.executed_indices(), iota(42));
}

TEST(ManualMode, HooksRunOnTheTargetsThread) {
  // With a thread per target, info and snap reach the target on its own
  // thread, even while that thread waits for its next increment.
  SyntheticSource source(uniform_trace(20, 1000, 5, 2));
  SyntheticExecutor executor;
  std::string snap = ::gltrace::test::make_temp_dir() + "/t.png";
  test::ConsoleRun run =
      run_with_console(source, executor, manual_options(ExecuteOn::kTargetThread),
                       "ni 3\ninfo\nsnap " + snap + "\nq\n");
  EXPECT_EQ(run.status.result, ReplayResult::kQuit) << run.status.message;
  EXPECT_NE(run.transcript.find("target 0: synthetic target 0"), std::string::npos)
      << run.transcript;
  EXPECT_NE(run.transcript.find("saved " + snap + " (target 0)"), std::string::npos);
  std::vector<test::Executed> executed = executor.executed();
  ASSERT_EQ(executed.size(), 3u);
  std::thread::id target0;
  for (const test::Executed& e : executed)
    if (e.index == 2) target0 = e.thread;  // call 2 is target 0's, the last one run
  std::vector<std::thread::id> hooks = executor.hook_threads();
  ASSERT_EQ(hooks.size(), 2u);
  EXPECT_EQ(hooks[0], target0);
  EXPECT_EQ(hooks[1], target0);
}

TEST(ManualMode, HooksRunOnTheTargetsThreadInOrder) {
  // In recorded order, the two targets run on two threads (the first on the
  // replay's own): info and snap reach the last call's target on its thread.
  SyntheticSource source(uniform_trace(20, 1000, 5, 2));
  SyntheticExecutor executor;
  std::string snap = ::gltrace::test::make_temp_dir() + "/t.png";
  test::ConsoleRun run =
      run_with_console(source, executor, manual_options(ExecuteOn::kTargetThreadInOrder),
                       "ni 4\ninfo\nsnap " + snap + "\nq\n");
  EXPECT_EQ(run.status.result, ReplayResult::kQuit) << run.status.message;
  EXPECT_NE(run.transcript.find("target 1: synthetic target 1"), std::string::npos)
      << run.transcript;
  EXPECT_NE(run.transcript.find("saved " + snap + " (target 1)"), std::string::npos);
  std::vector<test::Executed> executed = executor.executed();
  ASSERT_EQ(executed.size(), 4u);
  std::thread::id target0 = executed[0].thread, target1 = executed[1].thread;
  for (const test::Executed& e : executed) {
    EXPECT_EQ(e.index, &e - executed.data());  // in recorded order
    EXPECT_EQ(e.thread, e.target == 0 ? target0 : target1);
  }
  EXPECT_NE(target0, target1);
  std::vector<std::thread::id> hooks = executor.hook_threads();
  ASSERT_EQ(hooks.size(), 2u);
  EXPECT_EQ(hooks[0], target1);
  EXPECT_EQ(hooks[1], target1);
}

TEST(ManualMode, InterruptFromAnotherThread) {
  // interrupt() is the library's Ctrl-C: the prompt shows at the current time.
  std::vector<test::Spec> specs = uniform_trace(400, 5'000'000, 10);  // 2 s
  SyntheticSource source(specs);
  SyntheticExecutor executor;
  int in[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(write(in[1], "l\nq\n", 4), 4);
  close(in[1]);
  int out = memfd_create("transcript", 0);
  ReplayOptions options;
  options.console_in = in[0];
  options.console_out = out;
  options.handle_sigint = false;
  ReplayStatus status;
  test::within(std::chrono::seconds(20), "interrupted replay", [&] {
    Replayer replayer(source, executor, options);
    std::thread interrupter([&] {
      while (executor.executed().size() < 20)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      replayer.interrupt();
    });
    status = replayer.replay();
    interrupter.join();
  });
  close(in[0]);
  std::string transcript(4096, '\0');
  transcript.resize(static_cast<size_t>(pread(out, transcript.data(), transcript.size(), 0)));
  close(out);
  EXPECT_EQ(status.result, ReplayResult::kQuit) << status.message;
  EXPECT_NE(transcript.find("interrupted: stopped at +"), std::string::npos) << transcript;
  EXPECT_LT(executor.executed().size(), 400u);
}

TEST(ManualMode, TwoInterruptsEndTheReplay) {
  std::vector<test::Spec> specs = uniform_trace(400, 5'000'000, 10);
  specs[30].execute_us = 100'000;  // the main thread is busy when both arrive
  SyntheticSource source(specs);
  SyntheticExecutor executor;
  // Whether the first one already shows the prompt (which then waits for a
  // command that never comes) or both arrive first, the replay ends.
  int in[2];
  ASSERT_EQ(pipe(in), 0);
  ReplayOptions options;
  options.handle_sigint = false;
  options.console_in = in[0];
  options.console_out = open("/dev/null", O_WRONLY);
  ReplayStatus status;
  test::within(std::chrono::seconds(20), "twice interrupted replay", [&] {
    Replayer replayer(source, executor, options);
    std::thread interrupter([&] {
      while (executor.executed().size() < 30)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      replayer.interrupt();
      replayer.interrupt();
    });
    status = replayer.replay();
    interrupter.join();
  });
  close(options.console_out);
  close(in[0]);
  close(in[1]);
  EXPECT_EQ(status.result, ReplayResult::kInterrupted) << status.message;
}

}  // namespace
}  // namespace gltrace::replay
