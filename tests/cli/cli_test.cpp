// gltrace trace and attach report what they wrote and warn about what they
// could not trace; dump, info and the dumper's enum names on real traces of
// gltrace-cli-app (Mesa llvmpipe, surfaceless).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "format/reader.h"
#include "support/subprocess.h"
#include "support/tools.h"
#include "support/xvfb.h"

namespace gltrace::test {
namespace {

using namespace std::chrono_literals;

// `gltrace trace -o OUTPUT -- gltrace-cli-app APP_ARGS...`
ProcessResult trace_app(const IsolatedEnv& env, const std::string& output,
                        const std::vector<std::string>& app_args) {
  std::vector<std::string> args = {"trace", "-o", output, "--", build_bin("gltrace-cli-app")};
  args.insert(args.end(), app_args.begin(), app_args.end());
  return gltrace(env, args);
}

TEST(TraceCommand, MissingOutputDirectoryFailsBeforeTheAppRuns) {
  IsolatedEnv env;
  std::string marker = env.dir + "/app-ran";
  ProcessResult r = gltrace(env, {"trace", "-o", env.dir + "/missing/x.gltrace", "--", "/bin/sh",
                                  "-c", "touch " + marker});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "missing: No such file or directory")) << r.err;
  EXPECT_FALSE(contains(r.err, "tracing to")) << r.err;
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the app ran";
  EXPECT_NE(access((env.dir + "/missing").c_str(), F_OK), 0) << "the directory was created";
}

TEST(TraceCommand, ReadOnlyDirectoryOrPatternDirectoryFails) {
  IsolatedEnv env;
  ProcessResult r = gltrace(env, {"trace", "-o", env.dir + "/%n/x.gltrace", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "in the file name only")) << r.err;
  if (getuid() != 0) {  // root writes anywhere
    std::string read_only = env.dir + "/ro";
    mkdir(read_only.c_str(), 0500);
    r = gltrace(env, {"trace", "-o", read_only + "/x.gltrace", "--", "/bin/true"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "is not writable")) << r.err;
  }
}

TEST(TraceCommand, SaysWhereItTracesAndWhatItWrote) {
  IsolatedEnv env;
  std::string trace = env.dir + "/app.gltrace";
  ProcessResult r = trace_app(env, trace, {"--frames", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "gltrace trace: tracing to " + trace + "\n")) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.err, m, std::regex("gltrace trace: wrote (\\d+) calls, 3 frames, [0-9.]+ MB to " + trace)))
      << r.err;
  EXPECT_GT(std::stoull(m[1]), 10u);
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
  // The same figures as info's.
  ProcessResult info = gltrace(env, {"info", trace});
  EXPECT_TRUE(contains(info.out, "calls:        " + m[1].str() + "\n")) << info.out;
}

TEST(TraceCommand, NoEglCallIsAnErrorAndNoFile) {
  IsolatedEnv env;
  std::string trace = env.dir + "/true.gltrace";
  ProcessResult r = gltrace(env, {"trace", "-o", trace, "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(
      contains(r.err, "no trace was written to " + trace + ": the app made no EGL, GLX or GL call"))
      << r.err;
}

TEST(TraceCommand, AppExitStatusIsPassedOn) {
  IsolatedEnv env;
  // A failing app wins over the missing trace.
  ProcessResult r =
      gltrace(env, {"trace", "-o", env.dir + "/x.gltrace", "--", "/bin/sh", "-c", "exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  r = gltrace(env, {"trace", "-o", env.dir + "/x.gltrace", "--", "/bin/sh", "-c", "kill -9 $$"});
  EXPECT_EQ(r.exit_code, 128 + 9) << r.err;
  r = gltrace(env, {"trace", "-o", env.dir + "/x.gltrace", "--", env.dir + "/no-such-app"});
  EXPECT_EQ(r.exit_code, 127) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot execute")) << r.err;
}

// A signal sent to gltrace alone (a script stopping it, not a Ctrl-C at the
// terminal, which reaches the app's process group itself) is passed on.
TEST(TraceCommand, SignalsSentToGltraceReachTheAppAndTheTraceIsStillReported) {
  for (int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(strsignal(sig));
    IsolatedEnv env;
    std::string trace = env.dir + "/term.gltrace";
    // 100 s of frames: the signal, not the app's end, must stop it, however
    // slowly a loaded machine starts it.
    BackgroundProcess traced({build_bin("gltrace"), "trace", "-o", trace, "--",
                              build_bin("gltrace-cli-app"), "--frames", "20000", "--frame-ms", "5"},
                             env.vars, env.dir + "/trace.out", env.dir + "/trace.err");
    // The trace file appears at the app's first EGL call; its writer thread
    // then writes the file header (16 bytes) and the chunks.
    auto file_size = [&] {
      struct stat st {};
      return stat(trace.c_str(), &st) == 0 ? st.st_size : 0;
    };
    for (int i = 0; i < 1000 && file_size() <= 16 && traced.running(); ++i)
      std::this_thread::sleep_for(10ms);
    ASSERT_GT(file_size(), 16);
    traced.signal(sig);
    ProcessResult r = traced.wait();
    // gltrace passed the signal on, outlived the app and reported what it left.
    EXPECT_EQ(r.exit_code, 128 + sig) << r.err;
    EXPECT_TRUE(contains(r.err, "gltrace trace: wrote ")) << r.err;
  }
}

TEST(TraceCommand, WarnsAboutATraceWithoutFrames) {
  IsolatedEnv env;
  std::string trace = env.dir + "/offscreen.gltrace";
  ProcessResult r = trace_app(env, trace, {"--frames", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, " calls, 0 frames, ")) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: " + trace + ": no frames")) << r.err;
}

// A GLX app is traced (issue 28): its calls by symbol and those it got
// from glXGetProcAddressARB alike, with no warning.
TEST(TraceCommand, AGlxAppIsTraced) {
  IsolatedEnv env;
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty()) << "Xvfb did not start";
  env.vars["DISPLAY"] = xvfb.display();
  std::string app = build_bin("gltrace-cli-glx-app");
  for (bool proc_address : {false, true}) {
    std::string trace = env.dir + "/glx.gltrace";
    std::vector<std::string> args = {"trace", "-o", trace, "--", app};
    if (proc_address) args.push_back("--proc-address");
    ProcessResult r = gltrace(env, args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "gltrace-cli-glx-app: drew a frame")) << r.out;
    EXPECT_TRUE(contains(r.err, " 1 frames, ")) << r.err;
    EXPECT_FALSE(contains(r.err, "warning")) << r.err;
    ProcessResult dump = gltrace(env, {"dump", trace});
    EXPECT_TRUE(contains(dump.out, "glClear(mask = GL_COLOR_BUFFER_BIT)")) << dump.out;
    EXPECT_TRUE(contains(dump.out, "glXSwapBuffers(")) << dump.out;
  }
}

// Desktop GL through EGL is traced: binding it is nothing to warn about.
TEST(TraceCommand, DesktopGlThroughEglNeedsNoWarning) {
  IsolatedEnv env;
  std::string trace = env.dir + "/desktop.gltrace";
  ProcessResult r = trace_app(env, trace, {"--bind-desktop-gl"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "gltrace trace: wrote ")) << r.err;
  EXPECT_FALSE(contains(r.err, "warning:")) << r.err;
}

TEST(TraceCommand, OneLinePerProcessOfAPattern) {
  IsolatedEnv env;
  std::string app = build_bin("gltrace-cli-app");
  // A file of the pattern that was there before is no file of this run.
  write_text_file(env.dir + "/t-1.gltrace", "old");
  ProcessResult r = gltrace(env, {"trace", "-o", env.dir + "/t-%p.gltrace", "--", "/bin/sh", "-c",
                                  app + " --frames 1 && " + app + " --frames 2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_occurrences(r.err, "gltrace trace: wrote "), 2u) << r.err;
  EXPECT_TRUE(contains(r.err, " calls, 1 frames, ")) << r.err;
  EXPECT_TRUE(contains(r.err, " calls, 2 frames, ")) << r.err;
  EXPECT_FALSE(contains(r.err, "t-1.gltrace")) << r.err;
}

// `gltrace info FILE` says the trace holds `frames` frames.
bool info_says_frames(const IsolatedEnv& env, const std::string& file, int frames) {
  ProcessResult info = gltrace(env, {"info", file});
  return std::regex_search(info.out, std::regex("\nframes: +" + std::to_string(frames) + "\\b"));
}

// The files a `gltrace trace` run reported ("wrote ... to FILE (NAME, pid
// PID)"), with their process names, in the order reported.
std::vector<std::pair<std::string, std::string>> reported_files(const std::string& err) {
  std::vector<std::pair<std::string, std::string>> files;
  std::regex line(
      "gltrace trace: wrote \\d+ calls, \\d+ frames, [0-9.]+ MB to (\\S+) \\((\\S+), pid \\d+\\)");
  for (std::sregex_iterator it(err.begin(), err.end(), line), end; it != end; ++it)
    files.emplace_back((*it)[1], (*it)[2]);
  return files;
}

// `gltrace replay -n --compare FILE`: every image identical, none missing.
void expect_replays_identical(const IsolatedEnv& env, const std::string& trace) {
  ProcessResult r = gltrace(env, {"replay", "-n", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << trace << "\n" << r.out << r.err;
  std::smatch m;
  std::string text = r.out + r.err;
  ASSERT_TRUE(
      std::regex_search(text, m, std::regex("compare: (\\d+) frames identical, (\\d+) differ")))
      << trace << "\n"
      << text;
  EXPECT_GT(std::stoull(m[1]), 0u) << text;
  EXPECT_EQ(m[2], "0") << text;
}

// Two GL processes at once under one -o FILE (a script starting two copies
// of the demo): each gets a file of its own, the second a name derived from
// FILE with its process name and pid, both readable and replaying identical.
TEST(TraceCommand, TwoProcessesAtOnceGetAFileEach) {
  IsolatedEnv env;
  std::string trace = env.dir + "/two.gltrace";
  std::string demo = build_bin("gltrace-demo");
  ProcessResult r = gltrace(env, {"trace", "--framebuffer", "swap", "-o", trace, "--", "/bin/sh",
                                  "-c", demo + " --frames 40 & " + demo + " --frames 30; wait"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto files = reported_files(r.err);
  ASSERT_EQ(files.size(), 2u) << r.err;
  EXPECT_EQ(files[0].first, trace) << r.err;
  EXPECT_TRUE(std::regex_match(files[1].first,
                               std::regex(env.dir + "/two\\.gltrace-demo\\.\\d+\\.gltrace")))
      << files[1].first;
  for (const auto& [file, process] : files) {
    EXPECT_EQ(process, "gltrace-demo");
    expect_replays_identical(env, file);
  }
}

// A compositor and its client, started by one script: headless weston with
// the GL renderer, and weston-simple-egl (a GLES Wayland client) on it.
TEST(TraceCommand, ACompositorAndItsClientGetAFileEach) {
  if (access("/usr/bin/weston", X_OK) != 0 || access("/usr/bin/weston-simple-egl", X_OK) != 0)
    GTEST_SKIP() << "weston (package weston) is not installed";
  IsolatedEnv env;
  std::string trace = env.dir + "/wayland.gltrace";
  std::string script =
      "S=gltrace-two-$$; weston --backend=headless-backend.so --use-gl --socket=$S "
      "--width=320 --height=240 & W=$!; i=0; "
      "while [ ! -S \"$XDG_RUNTIME_DIR/$S\" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; "
      "WAYLAND_DISPLAY=$S timeout -s INT 2 weston-simple-egl; kill -TERM $W; wait $W; exit 0";
  ProcessResult r =
      gltrace(env, {"trace", "--framebuffer", "swap", "-o", trace, "--", "/bin/sh", "-c", script});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto files = reported_files(r.err);
  ASSERT_EQ(files.size(), 2u) << r.err;
  std::set<std::string> processes;
  for (const auto& [file, process] : files) {
    processes.insert(process);
    if (file != trace) {
      EXPECT_TRUE(std::regex_match(
          file, std::regex(env.dir + "/wayland\\." + process + "\\.\\d+\\.gltrace")))
          << file;
    }
    expect_replays_identical(env, file);
  }
  EXPECT_EQ(processes, (std::set<std::string>{"weston", "weston-simple-egl"})) << r.err;
  EXPECT_EQ(files[0].first, trace) << r.err;
}

// One process after another under one FILE: the second never writes over
// the first's finished trace.
TEST(TraceCommand, ProcessesOneAfterAnotherGetAFileEach) {
  IsolatedEnv env;
  std::string trace = env.dir + "/seq.gltrace";
  std::string app = build_bin("gltrace-cli-app");
  ProcessResult r = gltrace(env, {"trace", "-o", trace, "--", "/bin/sh", "-c",
                                  app + " --frames 1 && " + app + " --frames 2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto files = reported_files(r.err);
  ASSERT_EQ(files.size(), 2u) << r.err;
  EXPECT_EQ(files[0].first, trace);
  EXPECT_TRUE(info_says_frames(env, files[0].first, 1));
  EXPECT_TRUE(info_says_frames(env, files[1].first, 2));
}

// A trace an earlier run left at FILE is replaced, as -o always did.
TEST(TraceCommand, AFinishedTraceOfAnEarlierRunIsReplaced) {
  IsolatedEnv env;
  std::string trace = env.dir + "/again.gltrace";
  ASSERT_EQ(trace_app(env, trace, {"--frames", "3"}).exit_code, 0);
  ProcessResult r = trace_app(env, trace, {"--frames", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto files = reported_files(r.err);
  ASSERT_EQ(files.size(), 1u) << r.err;
  EXPECT_EQ(files[0].first, trace);
  EXPECT_TRUE(info_says_frames(env, trace, 2));
  // Nothing else is left in the directory (no private name of a claim).
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(env.dir))
    if (entry.is_regular_file()) names.push_back(entry.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"again.gltrace"});
}

// Two runs given one FILE at once: the second run's process finds FILE
// being written and gets a name of its own; neither file is damaged.
TEST(TraceCommand, TwoRunsGivenOneFileAtOnceNeverShareIt) {
  IsolatedEnv env;
  std::string trace = env.dir + "/shared.gltrace";
  std::string app = build_bin("gltrace-cli-app");
  BackgroundProcess first({build_bin("gltrace"), "trace", "-o", trace, "--", app, "--frames", "200",
                           "--frame-ms", "10"},
                          env.vars, env.dir + "/first.out", env.dir + "/first.err");
  auto file_size = [&] {
    struct stat st {};
    return stat(trace.c_str(), &st) == 0 ? st.st_size : 0;
  };
  for (int i = 0; i < 1000 && file_size() <= 0 && first.running(); ++i)
    std::this_thread::sleep_for(10ms);
  ASSERT_GT(file_size(), 0);
  ProcessResult second = trace_app(env, trace, {"--frames", "3"});
  ProcessResult one = first.wait();
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(contains(second.err, "another process is writing " + trace)) << second.err;
  auto first_files = reported_files(one.err);
  auto second_files = reported_files(second.err);
  ASSERT_EQ(first_files.size(), 1u) << one.err;
  ASSERT_EQ(second_files.size(), 1u) << second.err;
  EXPECT_EQ(first_files[0].first, trace);
  EXPECT_NE(second_files[0].first, trace);
  EXPECT_TRUE(info_says_frames(env, trace, 200));
  EXPECT_TRUE(info_says_frames(env, second_files[0].first, 3));
}

// -o DIR: each process writes DIR/NAME.PID.gltrace.
TEST(TraceCommand, ADirectoryHoldsAFilePerProcess) {
  IsolatedEnv env;
  std::string dir = env.dir + "/traces";
  mkdir(dir.c_str(), 0700);
  std::string app = build_bin("gltrace-cli-app");
  ProcessResult r = gltrace(env, {"trace", "-o", dir, "--", "/bin/sh", "-c",
                                  app + " --frames 1 & " + app + " --frames 2; wait"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto files = reported_files(r.err);
  ASSERT_EQ(files.size(), 2u) << r.err;
  for (const auto& file : files)
    EXPECT_TRUE(std::regex_match(file.first, std::regex(dir + "/gltrace-cli-app\\.\\d+\\.gltrace")))
        << file.first;
}

// However the app ends (here killed by `timeout`, as CI jobs stop programs),
// the report warns from what the trace holds: no frames, cut short.
TEST(TraceCommand, WarnsFromTheTraceWhenTheAppIsKilled) {
  IsolatedEnv env;
  std::string trace = env.dir + "/killed.gltrace";
  ProcessResult r =
      gltrace(env, {"trace", "-o", trace, "--", "timeout", "-s", "TERM", "1",
                    build_bin("gltrace-cli-app"), "--init-only", "30", "--dlopen-libgl-late"});
  EXPECT_EQ(r.exit_code, 124) << r.err;  // timeout's own status
  EXPECT_TRUE(contains(r.err, "warning: " + trace + ": no frames")) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: " + trace + " was cut short")) << r.err;
  EXPECT_FALSE(contains(r.err, "libGL")) << "desktop GL is traced: " << r.err;
}

// Settings-driven tracing (debug.gltrace.start now) into a directory: each
// process of the app writes a file of its own there.
TEST(TraceCommand, SettingsDrivenOutputDirectoryHoldsAFilePerProcess) {
  IsolatedEnv env;
  std::string dir = env.dir + "/settings-traces";
  mkdir(dir.c_str(), 0700);
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"debug.gltrace.trace", "full"},
                                                        {"debug.gltrace.start", "now"},
                                                        {"debug.gltrace.output", dir}})
    ASSERT_EQ(gltrace(env, {"settings", "put", name, value}).exit_code, 0) << name;
  std::string app = build_bin("gltrace-cli-app");
  ProcessResult r = gltrace(
      env, {"run", "--", "/bin/sh", "-c", app + " --frames 2 & " + app + " --frames 3; wait"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  ASSERT_EQ(files.size(), 2u) << r.err;
  std::set<std::string> frames;
  for (const std::string& file : files) {
    EXPECT_TRUE(std::regex_match(file, std::regex(dir + "/gltrace-cli-app\\.\\d+\\.gltrace")))
        << file;
    ProcessResult info = gltrace(env, {"info", file});
    std::smatch m;
    ASSERT_TRUE(std::regex_search(info.out, m, std::regex("frames: +(\\d+)"))) << info.out;
    frames.insert(m[1]);
  }
  EXPECT_EQ(frames, (std::set<std::string>{"2", "3"}));
}

TEST(TraceCommand, CommandLineIsTheOneBeforeTheAppRewroteIt) {
  IsolatedEnv env;
  std::string trace = env.dir + "/argv.gltrace";
  ProcessResult r = trace_app(env, trace, {"--rewrite-argv", "--frames", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult info = gltrace(env, {"info", trace});
  EXPECT_TRUE(contains(
      info.out, "command line: " + build_bin("gltrace-cli-app") + " --rewrite-argv --frames 1\n"))
      << info.out;
}

// A trace of gltrace-cli-app --frames 5 (three calls a frame after the set-up).
class AnalysisCommands : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    env_ = new IsolatedEnv();
    trace_ = env_->dir + "/five.gltrace";
    ProcessResult r = trace_app(*env_, trace_, {"--frames", "5"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete env_; }
  static ProcessResult dump(const std::vector<std::string>& options) {
    std::vector<std::string> args = {"dump"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(trace_);
    return gltrace(*env_, args);
  }
  static IsolatedEnv* env_;
  static std::string trace_;
};
IsolatedEnv* AnalysisCommands::env_ = nullptr;
std::string AnalysisCommands::trace_;

TEST_F(AnalysisCommands, DumpFiltersPrintOnlyTheEndsOfFramesWithPrintedCalls) {
  ProcessResult all = dump({});
  EXPECT_EQ(count_occurrences(all.out, "// end of frame"), 5u) << all.out;
  // eglQuerySurface is called once, in frame 0.
  ProcessResult one = dump({"--function", "eglQuerySurface"});
  EXPECT_EQ(count_occurrences(one.out, "eglQuerySurface("), 1u) << one.out;
  EXPECT_EQ(count_occurrences(one.out, "// end of frame"), 1u) << one.out;
  EXPECT_TRUE(contains(one.out, "// end of frame 0 ")) << one.out;
  ProcessResult every = dump({"--function", "glClear$"});
  EXPECT_EQ(count_occurrences(every.out, "// end of frame"), 5u) << every.out;
  ProcessResult first_calls = dump({"--calls", "0-3"});
  EXPECT_EQ(count_occurrences(first_calls.out, "// end of frame"), 1u) << first_calls.out;
  ProcessResult none = dump({"--function", "glDrawArrays"});
  EXPECT_EQ(count_occurrences(none.out, "// end of frame"), 0u) << none.out;
  // --frames alone: every frame of the range, as before.
  ProcessResult frames = dump({"--frames", "1-2"});
  EXPECT_EQ(count_occurrences(frames.out, "// end of frame"), 2u) << frames.out;
}

TEST_F(AnalysisCommands, DumpNamesEglEnums) {
  ProcessResult r = dump({"--function", "^egl"});
  EXPECT_TRUE(std::regex_search(r.out, std::regex("eglQueryString\\(dpy = 0x[0-9a-f]+, name = "
                                                  "EGL_VERSION\\) = \"1\\.[0-9]\"")))
      << r.out;
  EXPECT_TRUE(contains(r.out, "attribute = EGL_CONFIG_ID")) << r.out;
  EXPECT_TRUE(contains(r.out, "attribute = EGL_WIDTH")) << r.out;
  EXPECT_TRUE(contains(r.out, "attrib_list = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE}")) << r.out;
}

TEST_F(AnalysisCommands, InfoOnATraceCutShortKeepsCompressionAndStallLines) {
  std::string cut = env_->dir + "/cut.gltrace";
  // Several chunks (the app flushes every 100 ms), cut inside the last one.
  ProcessResult r = trace_app(*env_, cut, {"--frames", "12", "--frame-ms", "30"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<uint64_t> chunks;
  {
    format::ChunkReader reader;
    ASSERT_TRUE(reader.open(cut));
    for (format::ChunkView chunk; reader.next(&chunk);) chunks.push_back(chunk.offset);
  }
  ASSERT_GE(chunks.size(), 2u);
  ASSERT_EQ(truncate(cut.c_str(), static_cast<off_t>(chunks.back() + 10)), 0);
  ProcessResult info = gltrace(*env_, {"info", cut});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_TRUE(contains(info.out, "complete:     no: cut short")) << info.out;
  EXPECT_TRUE(std::regex_search(
      info.out, std::regex("compression:  [0-9.]+x \\([0-9.]+ MB uncompressed\\), of the part "
                           "read \\(up to the cut\\)\n")))
      << info.out;
  EXPECT_TRUE(contains(info.out, "writer stall: unknown (the trace was cut short")) << info.out;
  ProcessResult whole = gltrace(*env_, {"info", trace_});
  EXPECT_TRUE(std::regex_search(whole.out, std::regex("compression:  [0-9.]+x \\([0-9.]+ MB "
                                                      "uncompressed\\)\n")))
      << whole.out;
  EXPECT_TRUE(contains(whole.out, "writer stall: 0 times")) << whole.out;
}

// Starts gltrace-cli-app traceable in the background.
std::unique_ptr<BackgroundProcess> start_traceable(const IsolatedEnv& env,
                                                   const std::vector<std::string>& app_args) {
  std::vector<std::string> argv = {build_bin("gltrace"), "run", "--traceable", "--",
                                   build_bin("gltrace-cli-app")};
  argv.insert(argv.end(), app_args.begin(), app_args.end());
  return std::make_unique<BackgroundProcess>(argv, env.vars, env.dir + "/app.out",
                                             env.dir + "/app.err");
}

// Waits for the app's control socket (it appears at eglInitialize).
bool wait_for_socket(const IsolatedEnv& env, BackgroundProcess& app) {
  std::string path = env.runtime + "/gltrace/gltrace-" + std::to_string(app.pid()) + ".sock";
  for (int i = 0; i < 1000 && app.running(); ++i) {
    if (access(path.c_str(), F_OK) == 0) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// An app that loaded libGL.so.1 too: desktop GL is traced, nothing to warn about.
TEST(AttachCommand, SaysWhatItWrote) {
  IsolatedEnv env;
  auto app = start_traceable(env, {"--frames", "3000", "--frame-ms", "5", "--dlopen-libgl"});
  ASSERT_TRUE(wait_for_socket(env, *app));
  std::string trace = env.dir + "/live.gltrace";
  ProcessResult r =
      gltrace(env, {"attach", std::to_string(app->pid()), "-o", trace, "--frames", "3", "--quiet"});
  app->signal(SIGTERM);
  app->wait();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("gltrace attach: wrote \\d+ calls, 3 frames, [0-9.]+ MB to " + trace)))
      << r.err;
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
}

TEST(AttachCommand, WarnsWhenNoCallWasRecorded) {
  IsolatedEnv env;
  // Initialized, then no call at all for 30 s: no thread ever joins the capture.
  auto app = start_traceable(env, {"--init-only", "30"});
  ASSERT_TRUE(wait_for_socket(env, *app));
  std::string trace = env.dir + "/empty.gltrace";
  ProcessResult r = gltrace(
      env, {"attach", std::to_string(app->pid()), "-o", trace, "--duration", "0.5", "--quiet"});
  app->signal(SIGTERM);
  app->wait();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "gltrace attach: wrote 0 calls, 0 frames, ")) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: " + trace + ": no EGL, GLX or GL call was recorded"))
      << r.err;
}

TEST(AttachCommand, MissingOutputDirectoryFailsAndTheAppStaysIdle) {
  IsolatedEnv env;
  auto app = start_traceable(env, {"--frames", "3000", "--frame-ms", "5"});
  ASSERT_TRUE(wait_for_socket(env, *app));
  ProcessResult r = gltrace(env, {"attach", std::to_string(app->pid()), "-o",
                                  env.dir + "/missing/x.gltrace", "--frames", "3", "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "missing/x.gltrace: No such file or directory")) << r.err;
  ProcessResult ps = gltrace(env, {"ps"});
  EXPECT_TRUE(
      std::regex_search(ps.out, std::regex(std::to_string(app->pid()) + "\\s+\\S+\\s+idle")))
      << ps.out;
  app->signal(SIGTERM);
  app->wait();
}

// ----- The flight recorder from the command line ---------------------------------

TEST(FlightCommand, AProcessWithoutASocketFailsWithOneLine) {
  IsolatedEnv env;
  // A pid no traceable process has (above the kernel's pid_max).
  ProcessResult r = gltrace(env, {"flight", "99999999"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "gltrace flight: no traceable process '99999999' (see gltrace ps)\n");
  r = gltrace(env, {"flight", "--socket", env.dir + "/none.sock"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("gltrace flight: ", 0), 0u) << r.err;
  EXPECT_EQ(count_occurrences(r.err, "\n"), 1u) << r.err;
  r = gltrace(env, {"flight"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gltrace flight: missing PID or NAME\nsee 'gltrace help flight'\n");
}

TEST(FlightCommand, ATraceableProcessWithoutARecorderSaysSo) {
  IsolatedEnv env;
  auto app = start_traceable(env, {"--frames", "3000", "--frame-ms", "5"});
  ASSERT_TRUE(wait_for_socket(env, *app));
  ProcessResult r = gltrace(env, {"flight", std::to_string(app->pid())});
  app->signal(SIGTERM);
  app->wait();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("gltrace flight: ", 0), 0u) << r.err;
  EXPECT_TRUE(contains(r.err, "flight recorder")) << r.err;
}

TEST(RunCommand, FlightRecorderOptionsMisusedAreUsageErrors) {
  IsolatedEnv env;
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--flight-mb", "16"},
                                             {"--flight-watchdog", "5"},
                                             {"--flight-signal", "USR1"},
                                             {"-o", env.dir}}) {
    std::vector<std::string> argv = {"run"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--", "true"});
    ProcessResult r = gltrace(env, argv);
    EXPECT_EQ(r.exit_code, 2) << args[0];
    std::string name = args[0] == "-o" ? "--output" : args[0];
    EXPECT_EQ(r.err,
              "gltrace run: " + name + " goes with --flight-recorder\nsee 'gltrace help run'\n");
  }
  ProcessResult r = gltrace(env, {"run", "--flight-recorder", "30", "--traceable=log", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace run: --flight-recorder needs the full mode, not --traceable=log\n"
            "see 'gltrace help run'\n");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--flight-recorder", "0"},
           {"--flight-recorder", "many"},
           {"--flight-recorder", "5", "--flight-mb", "0"},
           {"--flight-recorder", "5", "--flight-watchdog=-1"},
           {"--flight-recorder", "5", "--flight-watchdog", "nan"},
           {"--flight-recorder", "5", "--flight-signal", "KILL"}}) {
    std::vector<std::string> argv = {"run"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--", "true"});
    r = gltrace(env, argv);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(count_occurrences(r.err, "\n"), 2u) << r.err;
    EXPECT_TRUE(contains(r.err, "see 'gltrace help run'")) << r.err;
  }
  r = gltrace(env, {"run", "--flight-recorder", "5", "--flight-watchdog", "nan", "true"});
  EXPECT_TRUE(contains(r.err, "--flight-watchdog: 'nan' is no number of seconds")) << r.err;
  r = gltrace(env, {"run", "--flight-recorder", "5", "--flight-signal", "KILL", "true"});
  EXPECT_TRUE(contains(r.err, "'KILL' is not one of USR1, USR2")) << r.err;
  // Not an option's name of `run` already.
  ProcessResult help = gltrace(env, {"run", "--help-options"});
  for (const char* option :
       {"--flight-recorder\tFRAMES", "--flight-mb\tMB", "--flight-watchdog\tSECONDS",
        "--flight-signal\tUSR1|USR2", "-o --output\tDIR|PATTERN"})
    EXPECT_EQ(count_occurrences(help.out, option), 1u) << option << "\n" << help.out;
}

TEST(RunCommand, FlightRecorderSetsTheAppsEnvironment) {
  IsolatedEnv env;
  ProcessResult r =
      gltrace(env, {"run", "--flight-recorder", "30", "--flight-mb=16", "--flight-watchdog", "0.5",
                    "--flight-signal", "USR2", "-o", env.dir, "--", "env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& line :
       std::vector<std::string>{"GLTRACE_LIVE=full", "GLTRACE_FLIGHT=30", "GLTRACE_FLIGHT_MB=16",
                                "GLTRACE_FLIGHT_WATCHDOG=0.5", "GLTRACE_LIVE_START=signal:USR2",
                                "GLTRACE_TRACE_FILE=" + env.dir})
    EXPECT_TRUE(contains(r.out, "\n" + line + "\n")) << line << "\n" << r.out;
  // Only what was asked: the app's settings decide the rest.
  r = gltrace(env, {"run", "--flight-recorder", "30", "--", "env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\nGLTRACE_FLIGHT=30\n")) << r.out;
  for (const char* unset : {"GLTRACE_FLIGHT_MB=", "GLTRACE_FLIGHT_WATCHDOG=", "GLTRACE_LIVE_START=",
                            "GLTRACE_TRACE_FILE="})
    EXPECT_FALSE(contains(r.out, std::string("\n") + unset)) << unset << "\n" << r.out;
  // An output that cannot be written fails before the app runs.
  r = gltrace(env, {"run", "--flight-recorder", "30", "-o", env.dir + "/missing/x-%p.gltrace", "--",
                    "env"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "gltrace run: cannot write the trace")) << r.err;
}

// ----- One command-line parser ------------------------------------------------

TEST(CommandLine, ModeEqualsLogTracesToStderr) {
  IsolatedEnv env;
  for (const char* mode : {"--mode=log", "--mode"}) {
    std::vector<std::string> args = {"trace", mode};
    if (std::string(mode) == "--mode") args.push_back("log");
    args.insert(args.end(), {"--", build_bin("gltrace-cli-app"), "--frames", "1"});
    ProcessResult r = gltrace(env, args);
    EXPECT_EQ(r.exit_code, 0) << mode << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "eglSwapBuffers(")) << mode << ": " << r.err;
  }
}

TEST_F(AnalysisCommands, FramesEqualsValueIsTheSameAsTheNextWord) {
  ProcessResult equals = dump({"--frames=1"});
  ProcessResult word = dump({"--frames", "1"});
  EXPECT_EQ(equals.exit_code, 0) << equals.err;
  EXPECT_EQ(count_occurrences(equals.out, "// end of frame"), 1u) << equals.out;
  EXPECT_EQ(equals.out, word.out);
}

// --perfetto and --chrome name export's two formats as --format does; on a
// pipe, each goes to standard output.
TEST_F(AnalysisCommands, ExportFormatFlagsAreTheFormatsTheyName) {
  auto export_to_stdout = [](const std::vector<std::string>& options) {
    std::vector<std::string> args = {"export"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(trace_);
    return gltrace(*env_, args);
  };
  ProcessResult chrome = export_to_stdout({"--chrome"});
  EXPECT_EQ(chrome.exit_code, 0) << chrome.err;
  EXPECT_EQ(chrome.out, export_to_stdout({"--format", "json"}).out);
  EXPECT_TRUE(contains(chrome.out, "\"ph\":\"X\"")) << chrome.out.substr(0, 200);
  ProcessResult perfetto = export_to_stdout({"--perfetto", "--compression", "none"});
  EXPECT_EQ(perfetto.exit_code, 0) << perfetto.err;
  EXPECT_EQ(perfetto.out, export_to_stdout({"--compression", "none"}).out);
  EXPECT_FALSE(contains(perfetto.out, "\"ph\":\"X\""));
  EXPECT_FALSE(perfetto.out.empty());
}

TEST_F(AnalysisCommands, MisspelledOptionIsOneLineWithTheNearestOption) {
  ProcessResult r = dump({"--frmaes", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace dump: unknown option '--frmaes' (did you mean --frames?)\n"
            "see 'gltrace help dump'\n");
  EXPECT_EQ(r.out, "");
}

TEST(CommandLine, MisspelledCommandSuggestsTheNearest) {
  IsolatedEnv env;
  ProcessResult r = gltrace(env, {"trcae", "-o", "x.gltrace", "app"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace: unknown command 'trcae' (did you mean trace?)\nsee 'gltrace --help'\n");
}

TEST(CommandLine, BadValueIsOneLineWithTheChoices) {
  IsolatedEnv env;
  ProcessResult r = gltrace(env, {"trace", "--mode", "fulll", "-o", "x.gltrace", "app"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace trace: --mode: 'fulll' is not one of full, log, error, systrace (did you "
            "mean full?)\nsee 'gltrace help trace'\n");
  r = gltrace(env, {"stats", "--frames-max=x", "t.gltrace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace stats: --frames-max: 'x' is not a valid value\nsee 'gltrace help stats'\n");
  r = gltrace(env, {"attach", "1", "-o", "x.gltrace", "--zstd-level", "30"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_occurrences(r.err, "\n"), 2u) << r.err;
}

// The surface command and its subcommands say a mistake as every command
// does: one line and where the subcommand's help is.
TEST(CommandLine, SurfaceMistakesAreOneLine) {
  IsolatedEnv env;
  ProcessResult r = gltrace(env, {"surface", "creat", "d.json", "-o", "t.surf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace surface: unknown subcommand 'creat' (did you mean create?)\n"
            "see 'gltrace help surface'\n");
  r = gltrace(env, {"surface", "describe"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace surface describe: missing TRACE\n"
            "see 'gltrace surface describe --help'\n");
  r = gltrace(env, {"surface", "record", "-o", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace surface record: missing CLIENT\n"
            "see 'gltrace surface record --help'\n");
  r = gltrace(env, {"surface", "record", "--renderr", "gl", "-o", "x", "app"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace surface record: unknown option '--renderr' (did you mean --renderer?)\n"
            "see 'gltrace surface record --help'\n");
  r = gltrace(env, {"surface", "from-gl", "-o", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace surface from-gl: missing TRACE\n"
            "see 'gltrace surface from-gl --help'\n");
  r = gltrace(env, {"surface", "replay", "--bogus", "t.surf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace surface replay: unknown option '--bogus'\n"
            "see 'gltrace surface replay --help'\n");
  r = gltrace(env, {"surface", "replay", "--buffer-memory=0", "t.surf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_occurrences(r.err, "\n"), 2u) << r.err;
  ProcessResult sub_help = gltrace(env, {"surface", "from-gl", "--help"});
  EXPECT_EQ(sub_help.exit_code, 0);
  EXPECT_TRUE(contains(sub_help.out, "usage: gltrace surface from-gl -o OUT TRACE\n"))
      << sub_help.out;
  r = gltrace(env, {"surface", "--bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_occurrences(r.err, "\n"), 2u) << r.err;
  ProcessResult help = gltrace(env, {"surface", "help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out, gltrace(env, {"help", "surface"}).out);
  EXPECT_TRUE(contains(help.out, "usage: gltrace surface SUBCOMMAND [ARGS...]\n")) << help.out;
}

// The choices main's outputs work added are checked by the parser.
TEST(CommandLine, OutputFormatChoicesAreOneLine) {
  IsolatedEnv env;
  ProcessResult r = gltrace(env, {"export", "--format", "svg", "t.gltrace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace export: --format: 'svg' is not one of perfetto, json\n"
            "see 'gltrace help export'\n");
  r = gltrace(env, {"export", "--compression", "gzip", "t.gltrace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_occurrences(r.err, "\n"), 2u) << r.err;
  r = gltrace(env, {"export", "--chrome", "--format", "perfetto", "t.gltrace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_occurrences(r.err, "\n"), 2u) << r.err;
  r = gltrace(env, {"stats", "--format", "xml", "t.gltrace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace stats: --format: 'xml' is not one of text, csv, json\n"
            "see 'gltrace help stats'\n");
  r = gltrace(env, {"stats", "--table", "frame", "t.gltrace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "(did you mean frames?)")) << r.err;
  r = gltrace(env, {"replay", "--driver", "", "t.gltrace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace replay: --driver: wants a driver (llvmpipe, softpipe, zink, default or a "
            "path)\nsee 'gltrace help replay'\n");
}

// Every command's help names, in its usage line and in its option list, each
// option its parser accepts (the table `--help-options` prints from the same
// definitions, which tools/cli_docs.py makes the completion from).
TEST(CommandLine, HelpOfEveryCommandListsEveryOptionItAccepts) {
  IsolatedEnv env;
  ProcessResult top = gltrace(env, {"--help"});
  std::vector<std::string> commands;
  std::regex command_line(R"(^  ([a-z]+) +\S)");
  std::istringstream lines(top.out.substr(top.out.find("commands:\n")));
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, command_line)) commands.push_back(m[1]);
  }
  ASSERT_GE(commands.size(), 13u) << top.out;
  auto check = [](const std::string& what, const std::string& help, const std::string& table) {
    std::string usage = help.substr(0, help.find("\n\n"));
    std::istringstream rows(table);
    size_t options = 0;
    for (std::string row; std::getline(rows, row);) {
      std::string names = row.substr(0, row.find('\t'));
      std::string value = row.substr(row.find('\t') + 1);
      std::istringstream words(names);
      std::string first, last;
      for (std::string name; words >> name;) {
        if (first.empty()) first = name;
        last = name;
      }
      ++options;
      if (first == "-h") continue;  // said on every help's last line, not in the usage
      // "-o, --output FILE" in the list; "-o FILE" or "--traceable[=MODE]" in the usage.
      std::string listed = "  " + std::regex_replace(names, std::regex(" "), ", ");
      if (!value.empty()) listed += value[0] == '=' ? "[" + value + "]" : " " + value;
      EXPECT_TRUE(contains(help, "\n" + listed + " ")) << what << ": " << listed << "\n" << help;
      std::string in_usage = value.empty()     ? first
                             : value[0] == '=' ? last + "[" + value + "]"
                                               : first + " " + value;
      EXPECT_TRUE(contains(usage, in_usage)) << what << ": " << in_usage << "\n" << usage;
    }
    EXPECT_GT(options, 0u) << what;
  };
  for (const std::string& command : commands) {
    ProcessResult help = gltrace(env, {"help", command});
    ProcessResult table = gltrace(env, {command, "--help-options"});
    ASSERT_EQ(help.exit_code, 0) << command;
    ASSERT_EQ(table.exit_code, 0) << command;
    check(command, help.out, table.out);
  }
  ProcessResult help = run_process({build_bin("glreplay"), "--help"});
  ProcessResult table = run_process({build_bin("glreplay"), "--help-options"});
  check("glreplay", help.out, table.out);
  // What the issue found missing.
  ProcessResult trace = gltrace(env, {"trace", "--help-options"});
  for (const char* option : {"--framebuffer\tWHEN", "--thread-time\t", "--zstd-level\tN"})
    EXPECT_TRUE(contains(trace.out, option)) << option << "\n" << trace.out;
  ProcessResult attach = gltrace(env, {"attach", "--help-options"});
  EXPECT_TRUE(contains(attach.out, "--zstd-level\tN")) << attach.out;
}

TEST(CommandLine, Versions) {
  IsolatedEnv env;
  ProcessResult r = run_process({build_bin("glreplay"), "--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_match(r.out, std::regex("glreplay [0-9]+\\.[0-9]+\\.[0-9]+\n"))) << r.out;
  r = gltrace(env, {"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(std::regex_match(r.out, std::regex("gltrace [0-9]+\\.[0-9]+\\.[0-9]+\n"))) << r.out;
}

TEST(CommandLine, ZstdLevelReachesTheTraceWriter) {
  IsolatedEnv env;
  std::string fast = env.dir + "/fast.gltrace", small = env.dir + "/small.gltrace";
  std::vector<std::string> app = {"--", build_bin("gltrace-cli-app"), "--frames", "30"};
  std::vector<std::string> a = {"trace", "--zstd-level=1", "-o", fast};
  std::vector<std::string> b = {"trace", "--zstd-level", "19", "-o", small};
  a.insert(a.end(), app.begin(), app.end());
  b.insert(b.end(), app.begin(), app.end());
  ASSERT_EQ(gltrace(env, a).exit_code, 0);
  ASSERT_EQ(gltrace(env, b).exit_code, 0);
  struct stat fast_st {
  }, small_st{};
  ASSERT_EQ(stat(fast.c_str(), &fast_st), 0);
  ASSERT_EQ(stat(small.c_str(), &small_st), 0);
  EXPECT_NE(fast_st.st_size, small_st.st_size);
}

// ----- gltrace settings put: known names and values ------------------------------

TEST(SettingsPut, InvalidValueOfAKnownSettingIsRejectedWithTheChoices) {
  IsolatedEnv env;
  ProcessResult r = gltrace(env, {"settings", "put", "debug.gltrace.trace", "fulll"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gltrace settings: invalid value for debug.gltrace.trace: 'fulll' is not one of off, "
            "0, full, log, error, systrace\nsee 'gltrace help settings'\n");
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"enable_gpu_debug_layers", "yes"},
                                             {"debug.gltrace.start", "later"},
                                             {"debug.gltrace.socket", "a/b"},
                                             {"debug.gltrace.tcp", "70000"}}) {
    r = gltrace(env, {"settings", "put", bad[0], bad[1]});
    EXPECT_EQ(r.exit_code, 2) << bad[0] << " " << bad[1];
    EXPECT_TRUE(contains(r.err, "invalid value for " + bad[0])) << r.err;
  }
  EXPECT_EQ(read_text_file(env.dir + "/config/gltrace/settings.conf"), "") << "nothing stored";
  for (const std::vector<std::string>& good :
       std::vector<std::vector<std::string>>{{"debug.gltrace.trace", "full"},
                                             {"enable_gpu_debug_layers", "1"},
                                             {"debug.gltrace.tcp", "0"},
                                             {"debug.gltrace.socket", "mine"},
                                             {"gpu_debug_app", "x"}}) {
    r = gltrace(env, {"settings", "put", good[0], good[1]});
    EXPECT_EQ(r.exit_code, 0) << good[0] << " " << good[1] << ": " << r.err;
    EXPECT_EQ(r.err, "");
  }
}

TEST(SettingsPut, UnknownNameIsStoredWithAWarningAndTheNearestName) {
  IsolatedEnv env;
  ProcessResult r = gltrace(env, {"settings", "put", "gpu_debug_layer", "libX.so"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "warning: 'gpu_debug_layer' is no setting gltrace reads (did you "
                       "mean gpu_debug_layers_gles?); stored anyway"))
      << r.err;
  EXPECT_EQ(gltrace(env, {"settings", "get", "gpu_debug_layer"}).out, "libX.so\n");
}

TEST(SettingsHelp, ListsEveryKnownSettingWithItsChoices) {
  IsolatedEnv env;
  ProcessResult r = gltrace(env, {"help", "settings"});
  EXPECT_TRUE(contains(r.out, "  debug.gltrace.trace")) << r.out;
  EXPECT_TRUE(contains(r.out, "(off|0|full|log|error|systrace)")) << r.out;
  EXPECT_TRUE(contains(r.out, "  enable_gpu_debug_layers")) << r.out;
}

}  // namespace
}  // namespace gltrace::test
