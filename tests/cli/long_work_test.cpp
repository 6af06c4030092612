// Long work on real traces of gltrace-demo: a progress line on a terminal
// (and nothing on a pipe) for replay, dump -o, export and frames; frames with
// a range that holds no image, and replay --compare without images, say
// what the trace holds instead.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "support/subprocess.h"
#include "support/tools.h"

namespace gltrace::test {
namespace {

// gltrace with its stderr on a pseudo-terminal: out is what the terminal got.
ProcessResult gltrace_on_terminal(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/python3", source_path("tests/cli/pty_stderr.py"),
                                   build_bin("gltrace")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, clean_env(), 300);
}

// 60 demo frames, with and without framebuffer images.
class LongWork : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(make_temp_dir());
    ProcessResult r = gltrace({"trace", "-o", plain(), "--", build_bin("gltrace-demo")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = gltrace(
        {"trace", "--framebuffer", "swap", "-o", images(), "--", build_bin("gltrace-demo")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static std::string dir() { return *dir_; }
  static std::string plain() { return *dir_ + "/plain.gltrace"; }
  static std::string images() { return *dir_ + "/images.gltrace"; }
  static std::string* dir_;
};
std::string* LongWork::dir_ = nullptr;

TEST_F(LongWork, FramesRangeWithoutImagesSaysWhatTheTraceHolds) {
  ProcessResult r = gltrace({"frames", "-o", dir() + "/none", "--frames", "70-80", images()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "no image in frames 70-80: " + images() +
                                  " has frames 0-59, with 60 images in frames 0-59"))
      << r.err;
  EXPECT_FALSE(contains(r.err, "holds no framebuffer images")) << r.err;
  // A range that holds images writes them; a trace without any says that.
  r = gltrace({"frames", "-o", dir() + "/some", "--frames", "58-80", images()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "2 frames written")) << r.out;
  r = gltrace({"frames", "-o", dir() + "/plain", plain()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "holds no framebuffer images")) << r.err;
}

TEST_F(LongWork, ReplayCompareWithoutImagesSaysSoBeforeReplaying) {
  ProcessResult r = gltrace({"replay", "--compare", plain()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, plain() + " holds no framebuffer images to compare with")) << r.err;
  EXPECT_FALSE(contains(r.out, "replayed")) << "it replayed first: " << r.out;
  r = gltrace({"replay", "--compare", images()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "compare: 60 frames identical")) << r.out;
}

struct Work {
  const char* name;
  std::vector<std::string> args;  // the trace is appended
};

std::vector<Work> long_work(const std::string& dir) {
  return {{"replay", {"replay"}},
          {"dump", {"dump", "-o", dir + "/dump.txt"}},
          {"export", {"export", "-o", dir + "/out.perfetto-trace"}},
          {"frames", {"frames", "-o", dir + "/frames"}}};
}

// On a terminal: "gltrace CMD: N calls, M frames, R calls/s, P%..." lines,
// each drawn over the last, and erased at the end.
TEST_F(LongWork, ProgressLineOnATerminalErasedAtTheEnd) {
  for (Work& work : long_work(dir())) {
    work.args.push_back(images());
    ProcessResult r = gltrace_on_terminal(work.args);
    EXPECT_EQ(r.exit_code, 0) << work.name << ": " << r.out;
    std::string line = std::string("\rgltrace ") + work.name + ": ";
    EXPECT_TRUE(contains(r.out, line)) << work.name << ": " << r.out;
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex(line + "[0-9.]+( k)? calls, [0-9]+ frames, [0-9.]+( [kM])? calls/s, "
                                 "[0-9]+%[^\r]*\x1b\\[K")))
        << work.name << ": " << r.out;
    EXPECT_TRUE(r.out.ends_with("\r\x1b[K")) << work.name << ": not erased: " << r.out;
  }
}

// On a pipe (and a file) nothing but what the command says anyway.
TEST_F(LongWork, NoProgressWhenStderrIsNotATerminal) {
  for (Work& work : long_work(make_temp_dir())) {
    work.args.push_back(images());
    ProcessResult r = gltrace(work.args);
    EXPECT_EQ(r.exit_code, 0) << work.name << ": " << r.err;
    EXPECT_FALSE(contains(r.err, "\r")) << work.name << ": " << r.err;
    EXPECT_FALSE(contains(r.err, "calls/s")) << work.name << ": " << r.err;
  }
}

}  // namespace
}  // namespace gltrace::test
