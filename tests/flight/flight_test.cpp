// The flight recorder end to end: apps that crash, hang or are asked, run
// with `gltrace run --flight-recorder`, leave traces of their last frames
// that replay identical, and end exactly as they do without gltrace.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <chrono>
#include <regex>
#include <thread>

#include "support/subprocess.h"
#include "support/tools.h"
#include "support/xvfb.h"

namespace gltrace::test {
namespace {

using namespace std::chrono_literals;

constexpr int kFrames = 8;  // what the tests ask the recorder to keep

// Core dumps on, as a developer who wants them has them: the app's own core
// dump must still come, and the recorder's copy of the app must leave none.
void allow_core_dumps() {
  rlimit limit{};
  getrlimit(RLIMIT_CORE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_CORE, &limit);
}

std::vector<std::string> flight_run(const std::string& dir, const std::vector<std::string>& app,
                                    const std::vector<std::string>& options = {},
                                    int frames = kFrames) {
  std::vector<std::string> argv = {build_bin("gltrace"),   "run", "--flight-recorder",
                                   std::to_string(frames), "-o",  dir};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.emplace_back("--");
  argv.insert(argv.end(), app.begin(), app.end());
  return argv;
}

// The flight trace a run left in dir (the one path its message names).
std::string trace_named(const std::string& err) {
  std::smatch m;
  if (!std::regex_search(err, m, std::regex(R"(frames are in (\S+\.gltrace))"))) return "";
  return m[1];
}

// The flight trace a running app's stderr (err_path) names, once it does
// (at most 60 s, while the app runs); "" if it never does.
std::string wait_for_trace(BackgroundProcess& app, const std::string& err_path) {
  std::string trace;
  for (int i = 0; i < 600 && trace.empty() && app.running(); ++i) {
    std::this_thread::sleep_for(100ms);
    trace = trace_named(read_text_file(err_path));
  }
  return trace;
}

// Replays the trace comparing every frame with its recorded image: at least
// kFrames identical and none different.
void expect_replays_identical(const IsolatedEnv& env, const std::string& trace) {
  ProcessResult replay = gltrace(env, {"replay", "--compare", trace});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(replay.out, m,
                                std::regex(R"(compare: (\d+) frames identical, (\d+) differ)")))
      << replay.out << replay.err;
  EXPECT_GE(std::stoi(m[1]), kFrames) << replay.out;
  EXPECT_EQ(m[2], "0") << replay.out;
  // Its gaps (the rounds not kept) are not calls lost.
  EXPECT_EQ(replay.err.find("missing"), std::string::npos) << replay.err;
  EXPECT_EQ(replay.err.find("warning"), std::string::npos) << replay.err;
}

class FlightCrash : public testing::TestWithParam<std::string> {};

// The app crashes midway through a frame: natively it dies of the signal
// with a core dump; with the recorder it dies the same way, and leaves a
// trace of its last frames (and the calls of the frame it crashed in).
TEST_P(FlightCrash, LeavesItsLastFramesAndEndsAsItWouldHave) {
  allow_core_dumps();
  IsolatedEnv env;
  std::vector<std::string> app = {build_bin("gltrace-churn"), "--frames", "20", "--then",
                                  GetParam()};
  std::string native_dir = env.dir + "/native";
  write_text_file(native_dir + "/.keep", "");
  ProcessResult native = run_process(app, env.vars, 120, native_dir);
  ASSERT_NE(native.term_signal, 0) << native.err;

  std::string dir = env.dir + "/flight";
  write_text_file(dir + "/.keep", "");
  EnvChanges vars = env.vars;
  vars["GLTRACE_CAPTURE_FRAMEBUFFER"] = "swap";
  ProcessResult traced = run_process(flight_run(dir, app), vars, 120, dir);
  EXPECT_EQ(traced.term_signal, native.term_signal) << traced.err;
  EXPECT_EQ(traced.exit_code, native.exit_code) << traced.err;
  EXPECT_EQ(traced.core_dumped, native.core_dumped) << traced.err;
  // One core file, the app's (the core pattern may send it elsewhere: then
  // neither run leaves one here).
  EXPECT_EQ(access((dir + "/core").c_str(), F_OK) == 0,
            access((native_dir + "/core").c_str(), F_OK) == 0);
  std::string trace = trace_named(traced.err);
  ASSERT_FALSE(trace.empty()) << traced.err;
  EXPECT_NE(traced.err.find("the app got SIG"), std::string::npos) << traced.err;
  expect_replays_identical(env, trace);
  // The frame it crashed in is there up to its last call.
  ProcessResult dump = gltrace(env, {"dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  size_t last_swap = dump.out.rfind("eglSwapBuffers");
  ASSERT_NE(last_swap, std::string::npos);
  EXPECT_NE(dump.out.find("glDrawArrays", last_swap), std::string::npos)
      << dump.out.substr(last_swap);
}

INSTANTIATE_TEST_SUITE_P(Signals, FlightCrash, testing::Values("segv", "abort", "fpe"));

// A handler of the app's own still gets the signal, and its exit is the app's.
TEST(Flight, TheAppsOwnHandlerStillRuns) {
  IsolatedEnv env;
  std::vector<std::string> app = {
      build_bin("gltrace-churn"), "--frames", "12", "--then", "segv", "--own-handler"};
  ProcessResult native = run_process(app, env.vars, 120, env.dir);
  ASSERT_EQ(native.exit_code, 3) << native.err;
  std::string dir = env.dir + "/flight";
  write_text_file(dir + "/.keep", "");
  ProcessResult traced = run_process(flight_run(dir, app), env.vars, 120, dir);
  EXPECT_EQ(traced.exit_code, 3) << traced.err;
  EXPECT_NE(traced.err.find("churn: its own handler got signal 11"), std::string::npos)
      << traced.err;
  EXPECT_FALSE(trace_named(traced.err).empty()) << traced.err;
}

// A frame that never ends: past the watchdog's time, the trace is written
// while the app still hangs; killed, it ends as a native hang killed does.
TEST(Flight, AHangLeavesItsLastFrames) {
  IsolatedEnv env;
  std::vector<std::string> app = {build_bin("gltrace-churn"), "--frames", "20", "--then", "hang"};
  std::string dir = env.dir + "/flight";
  write_text_file(dir + "/.keep", "");
  EnvChanges vars = env.vars;
  vars["GLTRACE_CAPTURE_FRAMEBUFFER"] = "swap";
  BackgroundProcess traced(flight_run(dir, app, {"--flight-watchdog", "1"}), vars,
                           env.dir + "/hang.out", env.dir + "/hang.err");
  std::string trace = wait_for_trace(traced, env.dir + "/hang.err");
  ASSERT_FALSE(trace.empty()) << read_text_file(env.dir + "/hang.err");
  EXPECT_TRUE(traced.running());
  traced.signal(SIGTERM);
  ProcessResult end = traced.wait();
  EXPECT_EQ(end.term_signal, SIGTERM) << end.err;
  EXPECT_NE(end.err.find("a frame took longer than 1 s"), std::string::npos) << end.err;
  expect_replays_identical(env, trace);
}

// A bound that not even one round of the frames asked for fits in (30 of
// churn's frames take about 1.7 MiB): rounds end early, the memory held
// stays near the bound, and what is kept still replays.
TEST(Flight, TheMemoryBoundHolds) {
  IsolatedEnv env;
  std::vector<std::string> app = {build_bin("gltrace-churn"), "--frames", "300", "--then", "hang"};
  std::string dir = env.dir + "/flight";
  write_text_file(dir + "/.keep", "");
  EnvChanges vars = env.vars;
  vars["GLTRACE_CAPTURE_FRAMEBUFFER"] = "swap";
  BackgroundProcess traced(flight_run(dir, app, {"--flight-watchdog", "1", "--flight-mb", "1"}, 30),
                           vars, env.dir + "/app.out", env.dir + "/app.err");
  std::string trace = wait_for_trace(traced, env.dir + "/app.err");
  ASSERT_FALSE(trace.empty()) << read_text_file(env.dir + "/app.err");
  // While the app hangs, the watch thread checks the bound every 50 ms: it
  // must not begin round after round over it (each freeing the last that
  // held frames, to none kept; seen under ASan, where the check came first).
  std::this_thread::sleep_for(500ms);
  ProcessResult status = gltrace(env, {"ps"});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      status.out, m, std::regex(R"(flight recorder: (\d+) frames kept \(([0-9.]+) MiB\))")))
      << status.out;
  // A round's chunks past the bound, and the frame that found it: churn's
  // frames are about 60 KiB each.
  EXPECT_LE(std::stod(m[2]), 1.5) << status.out;
  traced.signal(SIGTERM);
  ProcessResult end = traced.wait();
  EXPECT_NE(end.err.find("before their 32 frames to stay within 1 MiB"), std::string::npos)
      << end.err;
  ProcessResult replay = gltrace(env, {"replay", "--compare", trace});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find(" 0 differ"), std::string::npos) << replay.out;
}

// A running app asked by a host (`gltrace flight PID`) and by the signal:
// each time a new trace of its last frames, and it runs on. Two threads
// with two contexts of one share group: each thread's part of a round
// begins with its own snapshot.
TEST(Flight, AHostOrTheSignalAsksForTheLastFrames) {
  IsolatedEnv env;
  std::string dir = env.dir + "/flight";
  write_text_file(dir + "/.keep", "");
  EnvChanges vars = env.vars;
  vars["GLTRACE_CAPTURE_FRAMEBUFFER"] = "swap";
  BackgroundProcess app(flight_run(dir, {build_bin("gltrace-two-threads"), "--frames", "100000"},
                                   {"--flight-signal", "USR2"}),
                        vars, env.dir + "/app.out", env.dir + "/app.err");
  // Past a few rounds.
  std::this_thread::sleep_for(3s);
  ASSERT_TRUE(app.running()) << read_text_file(env.dir + "/app.err");
  ProcessResult asked = gltrace(env, {"flight", std::to_string(app.pid())});
  ASSERT_EQ(asked.exit_code, 0) << asked.out << asked.err;
  std::smatch m;
  std::string out = asked.out;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(flight trace: (\S+\.gltrace))"))) << out;
  std::string first = m[1];
  app.signal(SIGUSR2);
  std::string second;
  for (int i = 0; i < 300 && second.empty(); ++i) {
    std::this_thread::sleep_for(100ms);
    std::string err = read_text_file(env.dir + "/app.err");
    if (std::regex_search(err, m,
                          std::regex(R"(\(the signal\): the last \d+ frames are in (\S+))")))
      second = m[1];
  }
  ASSERT_FALSE(second.empty()) << read_text_file(env.dir + "/app.err");
  EXPECT_NE(first, second);
  EXPECT_TRUE(app.running());
  app.signal(SIGTERM);
  app.wait();
  expect_replays_identical(env, first);
  expect_replays_identical(env, second);
}

// A real program in a window, asked while it runs: glmark2's texture scene,
// whose 512x512 textures make each round's snapshot larger than one chunk.
TEST(Flight, Glmark2AskedWhileItRuns) {
  if (access("/usr/bin/glmark2-es2", X_OK) != 0) GTEST_SKIP() << "glmark2-es2 not installed";
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  IsolatedEnv env;
  std::string dir = env.dir + "/flight";
  write_text_file(dir + "/.keep", "");
  EnvChanges vars = env.vars;
  vars["GLTRACE_CAPTURE_FRAMEBUFFER"] = "swap";
  vars["DISPLAY"] = xvfb.display();
  BackgroundProcess app(
      flight_run(dir, {"/usr/bin/glmark2-es2", "-s", "160x120", "-b", "texture:duration=6"}), vars,
      env.dir + "/app.out", env.dir + "/app.err");
  std::string asked_out;
  for (int i = 0; i < 100 && app.running(); ++i) {
    std::this_thread::sleep_for(100ms);
    ProcessResult status = gltrace(env, {"ps"});
    std::smatch m;
    // Past a few rounds.
    if (std::regex_search(status.out, m, std::regex(R"(flight recorder: (\d+) frames kept)")) &&
        std::stoi(m[1]) >= kFrames + 2) {
      asked_out = gltrace(env, {"flight", std::to_string(app.pid())}).out;
      break;
    }
  }
  std::smatch m;
  ASSERT_TRUE(std::regex_search(asked_out, m, std::regex(R"(flight trace: (\S+\.gltrace))")))
      << asked_out << read_text_file(env.dir + "/app.err");
  std::string trace = m[1];
  ProcessResult end = app.wait();
  EXPECT_EQ(end.exit_code, 0) << end.err;
  expect_replays_identical(env, trace);
}

}  // namespace
}  // namespace gltrace::test
