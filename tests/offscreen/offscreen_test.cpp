// Off-screen programs: no eglSwapBuffers, frames end at glFinish or at the
// read-back of what they drew (glReadPixels). The
// trace must count their frames and capture what each rendered; the replay
// must compare every image the trace holds (at each frame's end, after
// each draw) and, where one differs, say which call and what differs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

#include "support/subprocess.h"
#include "support/tools.h"
#include "support/xvfb.h"

namespace gltrace::test {
namespace {

constexpr int kFrames = 6;

// The replay's two summary lines.
struct Summary {
  bool found = false;
  uint64_t frames_identical = 0, frames_differ = 0, frames_without = 0;
  uint64_t images_identical = 0, at_swaps = 0, at_finish = 0, after_draws = 0;
  uint64_t images_differ = 0, images_without = 0;
};
Summary summary(const std::string& out) {
  Summary s;
  std::smatch f, i;
  static const std::regex kFrames(
      R"(compare: (\d+) frames identical, (\d+) differ, (\d+) without a trace image)");
  static const std::regex kImages(
      R"(compare: (\d+) images identical \((\d+) at swaps, (\d+) at off-screen frame ends, )"
      R"((\d+) after )"
      R"(draws\), (\d+) differ, (\d+) without a trace image)");
  if (!std::regex_search(out, f, kFrames) || !std::regex_search(out, i, kImages)) return s;
  s.found = true;
  s.frames_identical = std::stoull(f[1]);
  s.frames_differ = std::stoull(f[2]);
  s.frames_without = std::stoull(f[3]);
  s.images_identical = std::stoull(i[1]);
  s.at_swaps = std::stoull(i[2]);
  s.at_finish = std::stoull(i[3]);
  s.after_draws = std::stoull(i[4]);
  s.images_differ = std::stoull(i[5]);
  s.images_without = std::stoull(i[6]);
  return s;
}

// "frames:       N" of gltrace info.
uint64_t info_frames(const std::string& trace) {
  ProcessResult info = gltrace({"info", trace});
  std::smatch m;
  static const std::regex kLine(R"(frames:\s+(\d+))");
  if (info.exit_code != 0 || !std::regex_search(info.out, m, kLine)) return UINT64_MAX;
  return std::stoull(m[1]);
}

std::string trace_app(const std::string& framebuffer, const std::vector<std::string>& app_args,
                      const std::vector<std::string>& trace_options = {}) {
  std::string path = make_temp_dir() + "/offscreen.gltrace";
  std::vector<std::string> args = {"trace", "--framebuffer", framebuffer};
  args.insert(args.end(), trace_options.begin(), trace_options.end());
  args.insert(args.end(), {"-o", path, "--", build_bin("gltrace-offscreen-app"), "--frames",
                           std::to_string(kFrames)});
  args.insert(args.end(), app_args.begin(), app_args.end());
  ProcessResult r = gltrace(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return path;
}

struct Case {
  const char* framebuffer;
  std::vector<std::string> app_args;
};

// Each glFinish ends a frame: a Frame record and, with --framebuffer swap,
// an image of what it rendered (the renderbuffer FBO, or the pbuffer on
// odd frames; surfaceless, the FBO only). After draws too with draw. A
// program that reads each frame back into a pack buffer, with a fence and
// no glFinish (--read-back), has its frames end at the glReadPixels.
TEST(Offscreen, EveryFrameAndImageReplaysIdenticallyHeadlessAndOnX11) {
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  for (const Case& c : {Case{"swap", {}}, Case{"swap,draw", {}}, Case{"swap", {"--surfaceless"}},
                        Case{"swap,draw", {"--surfaceless"}}, Case{"swap", {"--read-back"}},
                        Case{"swap,draw", {"--surfaceless", "--read-back"}}}) {
    std::string label = c.framebuffer;
    for (const std::string& arg : c.app_args) label += " " + arg;
    std::string trace = trace_app(c.framebuffer, c.app_args);
    EXPECT_EQ(info_frames(trace), uint64_t{kFrames}) << label;
    bool draws = std::string(c.framebuffer) == "swap,draw";
    for (bool x11 : {false, true}) {
      std::vector<std::string> args = {"replay", "-n", "--compare", trace};
      EnvChanges env = clean_env();
      if (x11) {
        args.insert(args.begin() + 1, "--x11");
        env["DISPLAY"] = xvfb.display();
      }
      ProcessResult r = gltrace(args, env);
      std::string where = label + (x11 ? " --x11" : " headless") + "\n" + r.out + r.err;
      EXPECT_EQ(r.exit_code, 0) << where;
      Summary s = summary(r.out);
      ASSERT_TRUE(s.found) << where;
      EXPECT_EQ(s.frames_identical, uint64_t{kFrames}) << where;
      EXPECT_EQ(s.frames_differ + s.frames_without, 0u) << where;
      EXPECT_EQ(s.at_finish, uint64_t{kFrames}) << where;
      EXPECT_EQ(s.at_swaps, 0u) << where;
      EXPECT_EQ(s.after_draws, draws ? uint64_t{2 * kFrames} : 0u) << where;
      EXPECT_EQ(s.images_differ + s.images_without, 0u) << where;
    }
  }
}

// A trace made with draw images only compares those (no frame-end images).
// The systrace mode records no call's arguments, yet each call reaches the
// layer's wrappers, which end the frames of a program that does not swap.
TEST(Offscreen, SystraceTimelineHasTheFramesGlFinishEnds) {
  std::string timeline = make_temp_dir() + "/timeline.json";
  ProcessResult r =
      gltrace({"trace", "--mode", "systrace", "-o", timeline, "--",
               build_bin("gltrace-offscreen-app"), "--frames", std::to_string(kFrames)});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ProcessResult frames = run_process(
      {"/usr/bin/python3", "-c",
       "import json,sys; e=json.load(open(sys.argv[1])); print(sum(x['ph']=='i' for x in e))",
       timeline});
  ASSERT_EQ(frames.exit_code, 0) << frames.err;
  EXPECT_EQ(std::stoi(frames.out), kFrames);
}

TEST(Offscreen, DrawImagesAloneAreCompared) {
  std::string trace = trace_app("draw", {});
  ProcessResult r = gltrace({"replay", "-n", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Summary s = summary(r.out);
  ASSERT_TRUE(s.found) << r.out;
  EXPECT_EQ(s.after_draws, uint64_t{2 * kFrames}) << r.out;
  EXPECT_EQ(s.frames_identical, uint64_t{kFrames}) << r.out;
  EXPECT_EQ(s.images_differ + s.images_without, 0u) << r.out;
}

// Once the program swaps, swaps end its frames: the glFinish before each
// swap no longer does. The glFinish before the first swap still did (the
// swap is not known yet): that swap ends a frame of its own.
TEST(Offscreen, OnceTheProgramSwapsSwapsEndItsFrames) {
  constexpr int kSwapFrom = 2;
  std::string trace = trace_app("swap", {"--swap-from", std::to_string(kSwapFrom)});
  EXPECT_EQ(info_frames(trace), uint64_t{kFrames + 1});
  ProcessResult r = gltrace({"replay", "-n", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Summary s = summary(r.out);
  ASSERT_TRUE(s.found) << r.out;
  EXPECT_EQ(s.frames_identical, uint64_t{kFrames + 1}) << r.out;
  EXPECT_EQ(s.at_finish, uint64_t{kSwapFrom + 1}) << r.out;
  EXPECT_EQ(s.at_swaps, uint64_t{kFrames - kSwapFrom}) << r.out;
  EXPECT_EQ(s.images_differ + s.images_without, 0u) << r.out;
}

// The pattern uploads are not in the trace (--no-texture-data): the replay
// names each image that differs by its call, the upload it could not
// replay, where the pixels differ, and at each frame's end its first draw
// that differs; the triangle pass, which does not use the pattern, matches.
TEST(Offscreen, ADifferingImageNamesItsCallAndWhy) {
  std::string trace = trace_app("swap,draw", {}, {"--no-texture-data"});
  ProcessResult r = gltrace({"replay", "-n", "--compare", trace});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  Summary s = summary(r.out);
  ASSERT_TRUE(s.found) << r.out;
  EXPECT_EQ(s.frames_differ, uint64_t{kFrames}) << r.out;
  EXPECT_EQ(s.after_draws, uint64_t{kFrames}) << r.out;  // the triangle's
  EXPECT_EQ(s.images_differ, uint64_t{2 * kFrames}) << r.out;
  // Frame 2: the quad's draw, with the upload of its frame; then the frame's end.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m,
      std::regex(
          R"(frame 2, image after call (\d+) \(glDrawArrays, origin draw\): \d+ of 6912 )"
          R"(pixels differ \(max channel difference \d+\) within x \d+-\d+, y \d+-\d+\n)"
          R"(  3 calls before it could not be replayed \(1 in this frame\), among them:\n)"
          R"(    call \d+: cannot replay glTexSubImage2D: argument pixels was not captured )"
          R"(\(texture data not captured \(capture option\)\)\n)"
          R"(frame 2, image after call \d+ \(glFinish, origin finish\): \d+ of 6912 pixels )"
          R"(differ \(max channel difference \d+\) within x \d+-\d+, y \d+-\d+\n)"
          R"(  the first draw of this frame whose image differs: call (\d+) \(glDrawArrays\))")))
      << r.out;
  EXPECT_EQ(m[1], m[2]);
}

// glmark2-es2 --off-screen renders into an FBO and ends each frame with
// glFinish: traced with --framebuffer swap, every frame replays identically.
TEST(Offscreen, Glmark2OffScreenReplaysIdentically) {
  if (access("/usr/bin/glmark2-es2", X_OK) != 0) GTEST_SKIP() << "glmark2-es2 not installed";
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  EnvChanges env = clean_env();
  env["DISPLAY"] = xvfb.display();
  std::string trace = make_temp_dir() + "/glmark2.gltrace";
  ProcessResult t = gltrace(
      {"trace", "--framebuffer", "swap", "-o", trace, "--", "/usr/bin/glmark2-es2", "--off-screen",
       "-b", "build:duration=0.5", "-b", "texture:duration=0.3", "-s", "320x240"},
      env);
  ASSERT_EQ(t.exit_code, 0) << t.out << t.err;
  uint64_t frames = info_frames(trace);
  EXPECT_GT(frames, 10u);
  ProcessResult r = gltrace({"replay", "-n", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Summary s = summary(r.out);
  ASSERT_TRUE(s.found) << r.out;
  EXPECT_EQ(s.frames_identical, frames) << r.out;
  EXPECT_EQ(s.at_finish, frames) << r.out;
  EXPECT_EQ(s.images_differ + s.images_without, 0u) << r.out;
}

}  // namespace
}  // namespace gltrace::test
