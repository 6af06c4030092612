// gltrace trim: cuts of real traces of the demo and of its two-thread mode
// replay with --compare identical to the frames the original captured; the
// cut says what it was cut from and starts with its snapshot; bad ranges
// and inputs are clear errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "support/subprocess.h"
#include "support/tools.h"

namespace gltrace::test {
namespace {

// A trace of `app` with the framebuffer captured at every swap.
std::string capture(const IsolatedEnv& env, const std::string& app,
                    const std::vector<std::string>& app_args, const std::string& name) {
  std::string trace = env.dir + "/" + name + ".gltrace";
  std::vector<std::string> args = {"trace", "-o", trace,         "--framebuffer",
                                   "swap",  "--", build_bin(app)};
  args.insert(args.end(), app_args.begin(), app_args.end());
  ProcessResult r = gltrace(env, args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return trace;
}

// Cuts frames `range` of `trace` and replays the cut with --compare:
// every frame identical.
void expect_identical_cut(const IsolatedEnv& env, const std::string& trace,
                          const std::string& range, int frames) {
  std::string cut = env.dir + "/cut-" + range + ".gltrace";
  ProcessResult r = gltrace(env, {"trim", "--frames", range, "-o", cut, trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "wrote " + cut + ": frames " + range)) << r.err;
  ProcessResult replay = gltrace(env, {"replay", "-n", "--compare", cut});
  EXPECT_EQ(replay.exit_code, 0) << range << "\n" << replay.err << replay.out;
  EXPECT_TRUE(contains(replay.err + replay.out, "compare: " + std::to_string(frames) +
                                                    " frames identical, 0 differ, 0 without a "
                                                    "trace image, 0 not replayed"))
      << range << "\n"
      << replay.err << replay.out;
  EXPECT_FALSE(contains(replay.err, "began while the app ran")) << replay.err;
  EXPECT_LT(std::filesystem::file_size(cut), std::filesystem::file_size(trace));
}

TEST(Trim, DemoCutsReplayTheirFramesIdentical) {
  IsolatedEnv env;
  std::string trace = capture(env, "gltrace-demo", {"--frames", "12"}, "demo");
  expect_identical_cut(env, trace, "0-2", 3);
  expect_identical_cut(env, trace, "3-3", 1);
  expect_identical_cut(env, trace, "5-9", 5);
  expect_identical_cut(env, trace, "11-11", 1);
}

// A cut by calls begins inside a frame: the snapshot holds the window's
// half-drawn color buffer, and the frames that end in the cut are identical.
TEST(Trim, ACutInsideAFrameReplaysTheFramesThatEndInIt) {
  IsolatedEnv env;
  std::string trace = capture(env, "gltrace-demo", {"--frames", "8"}, "demo");
  ProcessResult dump = gltrace(env, {"dump", "--frames", "3", trace});
  // A call in the middle of frame 3: its first draw on the window (after its
  // render-to-texture pass; that pass tests depth, whose contents a snapshot
  // does not restore yet, as trim warns).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      dump.out, m, std::regex("\\n(\\d+) glDrawElements\\(mode = GL_TRIANGLES, count = 6,")))
      << dump.out;
  std::string first = m[1];
  std::string cut = env.dir + "/calls.gltrace";
  ProcessResult r =
      gltrace(env, {"trim", "--calls", first + "-" + std::to_string(std::stoull(first) + 700), "-o",
                    cut, trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult info = gltrace(env, {"info", cut});
  EXPECT_TRUE(contains(info.out, "cut from:     calls " + first + "-")) << info.out;
  ProcessResult replay = gltrace(env, {"replay", "-n", "--compare", cut});
  EXPECT_EQ(replay.exit_code, 0) << replay.err << replay.out;
  EXPECT_TRUE(
      std::regex_search(replay.out, std::regex("compare: [1-9] frames identical, 0 differ")))
      << replay.out;
  r = gltrace(env, {"trim", "--calls", "5-999999", "-o", cut + "2", trace});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "are not all there")) << r.err;
}

TEST(Trim, TwoThreadCutsReplayTheirFramesIdentical) {
  IsolatedEnv env;
  // 8 frames a thread: 16 in the trace, their swaps interleaved.
  std::string trace = capture(env, "gltrace-two-threads", {"--frames", "8"}, "two-threads");
  expect_identical_cut(env, trace, "2-4", 3);
  expect_identical_cut(env, trace, "9-15", 7);
  // Each frame of thread 1 is its swap alone: the call its image was read
  // after lies before the cut.
  trace = capture(env, "gltrace-two-threads", {"--frames", "4", "--swaps-in-turn"}, "in-turn");
  expect_identical_cut(env, trace, "3-3", 1);
  expect_identical_cut(env, trace, "5-7", 3);
}

// Objects made once in frame 0 and drawn with after: luminance and alpha
// textures (read by drawing them), every level of a cube map, an immutable
// 2D array, a half-float texture, a buffer only the GPU wrote, a program
// whose shaders were detached after it linked.
TEST(Trim, ObjectsMadeBeforeTheCutAreRecreatedExactly) {
  IsolatedEnv env;
  std::string trace = capture(env, "gltrace-snapshot-objects", {"--frames", "6"}, "objects");
  expect_identical_cut(env, trace, "2-5", 4);
  std::string cut = env.dir + "/cut-2-5.gltrace";
  // The state where the cut begins is the original's where frame 2 begins.
  ProcessResult diff = gltrace(env, {"diff-state", trace + "@frame:2", cut + "@frame:0"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  EXPECT_TRUE(contains(diff.out, "same state after call ")) << diff.out;
  ProcessResult r = gltrace(env, {"trim", "--frames", "3-3", "-o", env.dir + "/3.gltrace", trace});
  EXPECT_TRUE(contains(r.err, "(0 not exact)")) << r.err;
}

// diff-state names what differs between two points, object by object.
TEST(Trim, DiffStateNamesTheObjectsThatDiffer) {
  IsolatedEnv env;
  std::string trace = capture(env, "gltrace-demo", {"--frames", "6"}, "demo");
  ProcessResult same = gltrace(env, {"diff-state", trace + "@frame:3", trace + "@frame:3"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  ProcessResult differ = gltrace(env, {"diff-state", trace + "@frame:2", trace + "@frame:4"});
  EXPECT_EQ(differ.exit_code, 1) << differ.out << differ.err;
  // The demo's render-to-texture target and its animated uniforms change.
  EXPECT_TRUE(contains(differ.out, "context 1: texture 2:\n")) << differ.out;
  EXPECT_TRUE(contains(differ.out, "glUniformMatrix4fv(")) << differ.out;
  EXPECT_TRUE(contains(differ.out, "states differ after call ")) << differ.out;
  ProcessResult bad = gltrace(env, {"diff-state", trace + "@frame:99", trace + "@1"});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_TRUE(contains(bad.err, "frame 99 is past its end")) << bad.err;
  bad = gltrace(env, {"diff-state", trace, trace + "@1"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_TRUE(contains(bad.err, "is not TRACE@CALL or TRACE@frame:N")) << bad.err;
}

TEST(Trim, TheCutSaysWhatItWasCutFromAndStartsWithItsSnapshot) {
  IsolatedEnv env;
  std::string trace = capture(env, "gltrace-demo", {"--frames", "6"}, "demo");
  std::string cut = env.dir + "/cut.gltrace";
  ASSERT_EQ(gltrace(env, {"trim", "--frames", "4-5", "-o", cut, trace}).exit_code, 0);
  ProcessResult info = gltrace(env, {"info", cut});
  EXPECT_TRUE(contains(info.out, "cut from:     frames 4-5 of " + trace + "\n")) << info.out;
  EXPECT_TRUE(contains(info.out, "frames:       2 (indexed)")) << info.out;
  ProcessResult dump = gltrace(env, {"dump", cut});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  // Every call up to the first frame's is the snapshot's, and none after.
  const std::string marker = "// snapshot: recreates what the app had when the capture began";
  size_t last_snapshot = dump.out.rfind(marker);
  ASSERT_NE(last_snapshot, std::string::npos) << dump.out.substr(0, 2000);
  EXPECT_TRUE(contains(dump.out.substr(0, last_snapshot), "eglMakeCurrent(")) << "no context";
  EXPECT_TRUE(contains(dump.out.substr(0, last_snapshot), "glTexImage2D(")) << "no texture";
  EXPECT_TRUE(contains(dump.out.substr(0, last_snapshot), "glLinkProgram(")) << "no program";
  std::string after = dump.out.substr(dump.out.find('\n', last_snapshot));
  EXPECT_TRUE(contains(after, "eglSwapBuffers(")) << after.substr(0, 2000);
  EXPECT_FALSE(contains(after, "// snapshot")) << after.substr(0, 2000);
}

// replay --loop over a cut: every iteration made again from the snapshot
// draws the first's frames, which are the capture's.
TEST(Trim, LoopOverFramesDrawsTheSameFramesEveryIteration) {
  IsolatedEnv env;
  std::string trace = capture(env, "gltrace-demo", {"--frames", "8"}, "demo");
  ProcessResult r = gltrace(env, {"replay", "--loop", "6", "--frames", "3-6", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, "loop: 6 iterations of 4 frames: iteration min ")) << r.out;
  EXPECT_TRUE(contains(r.out, "loop: peak memory after iteration 1: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "loop: every iteration's 4 frames identical to the first's"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "compare: 4 frames identical, 0 differ")) << r.out;
  r = gltrace(env, {"replay", "--loop", "2", "--frames", "3-99", trace});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_TRUE(contains(r.err, "frame 99 is past its end")) << r.err;
}

TEST(Trim, BadRangesAndInputsAreClearErrors) {
  IsolatedEnv env;
  std::string trace = capture(env, "gltrace-demo", {"--frames", "3"}, "demo");
  std::string cut = env.dir + "/cut.gltrace";
  ProcessResult r = gltrace(env, {"trim", "--frames", "2-1", "-o", cut, trace});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "2-1")) << r.err;
  r = gltrace(env, {"trim", "--frames", "x", "-o", cut, trace});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = gltrace(env, {"trim", "--frames", "1-9", "-o", cut, trace});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "has 3 frames: frame 9 is past its end")) << r.err;
  std::string junk = env.dir + "/junk.gltrace";
  FILE* f = fopen(junk.c_str(), "w");
  fputs("not a trace at all", f);
  fclose(f);
  r = gltrace(env, {"trim", "--frames", "0-1", "-o", cut, junk});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, junk)) << r.err;
  EXPECT_FALSE(std::filesystem::exists(cut));
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kMeasureLoopMemory = false;  // sanitizers hold freed memory
#else
constexpr bool kMeasureLoopMemory = true;
#endif

// replay --loop 100 over frames that make new textures, buffers, vertex
// arrays, framebuffers, renderbuffers and programs every frame and delete
// the previous frame's (gltrace-churn): every iteration draws the first's
// frames, and what an iteration makes goes with it: the peak memory after
// the 100th is the 10th's (what every iteration makes, kept, would add
// about 30 MiB).
TEST(Trim, LoopOverFramesThatMakeObjectsEveryFrameHoldsItsMemory) {
  IsolatedEnv env;
  std::string trace = capture(env, "gltrace-churn", {"--frames", "10"}, "churn");
  ProcessResult r =
      gltrace(env, {"replay", "--loop", "100", "--frames", "5-8", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, "loop: 100 iterations of 4 frames: iteration min ")) << r.out;
  EXPECT_TRUE(contains(r.out, "loop: every iteration's 4 frames identical to the first's"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "compare: 4 frames identical, 0 differ")) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m,
                                std::regex("loop: peak memory after iteration 1: ([0-9.]+) MiB, "
                                           "10: ([0-9.]+) MiB, 100: ([0-9.]+) MiB\\n")))
      << r.out;
  double after_10 = std::stod(m[2]), after_100 = std::stod(m[3]);
  if (kMeasureLoopMemory) {
    EXPECT_LE(after_100, after_10 + 8.0) << r.out;
  }
}

}  // namespace
}  // namespace gltrace::test
