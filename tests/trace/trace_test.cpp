// The trace layer end to end: real apps traced through the loader, the trace
// read back by the gltrace CLI.
#include <gtest/gtest.h>
#include <png.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "format/reader.h"
#include "format/records.h"
#include "support/apps.h"
#include "support/subprocess.h"
#include "support/tools.h"
#include "support/xvfb.h"

namespace gltrace::test {
namespace {

namespace fs = std::filesystem;

// Call lines of a dump: "SEQ name(...)".
size_t dumped_calls(const std::string& dump, const std::string& function = "") {
  size_t n = 0;
  std::istringstream in(dump);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '/' || !isdigit(static_cast<unsigned char>(line[0]))) continue;
    if (function.empty() || line.find(" " + function + "(") != std::string::npos) ++n;
  }
  return n;
}

TEST(Trace, DemoIsRecordedCallForCallAndRendersTheSame) {
  std::string dir = make_temp_dir();
  std::string trace = dir + "/demo.gltrace";
  ProcessResult native =
      run_process({build_bin("gltrace-demo"), "--frames", "5", "--verify"}, clean_env());
  ASSERT_EQ(native.exit_code, 0) << native.err;

  // The counting layer above the trace layer counts what the app called.
  EnvChanges env = clean_env();
  env["GLTRACE_COUNT_DIR"] = dir;
  ProcessResult traced = gltrace({"trace", "-o", trace, "--layers", "libGLES_layer_counting.so",
                                  "--", build_bin("gltrace-demo"), "--frames", "5", "--verify"},
                                 env);
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_EQ(demo_final_crc(traced.out), demo_final_crc(native.out));
  EXPECT_EQ(traced.err.find("gltrace: error"), std::string::npos) << traced.err;

  ProcessResult dump = gltrace({"dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  auto counts = read_layer_counts(dir);
  ASSERT_GT(counts["total"], 1000u);
  EXPECT_EQ(dumped_calls(dump.out), counts["total"]) << "the dump must show every call";
  EXPECT_EQ(dumped_calls(dump.out, "eglSwapBuffers"), 5u);
  EXPECT_EQ(dumped_calls(dump.out, "glDrawElements"), counts["glDrawElements"]);
  // Arguments: enums by name, pointer data, strings, return values.
  EXPECT_NE(dump.out.find("glClear(mask = GL_DEPTH_BUFFER_BIT | GL_COLOR_BUFFER_BIT)"),
            std::string::npos);
  EXPECT_NE(dump.out.find("glShaderSource(shader = "), std::string::npos);
  EXPECT_NE(dump.out.find("#version 300 es"), std::string::npos);
  EXPECT_NE(dump.out.find("glUniformMatrix4fv(location = "), std::string::npos);
  EXPECT_NE(dump.out.find("glTexImage2D(target = GL_TEXTURE_2D"), std::string::npos);
  EXPECT_NE(dump.out.find("bytes>)"), std::string::npos);  // the texture as a blob
  EXPECT_NE(dump.out.find("glGetError() = GL_NO_ERROR"), std::string::npos);
  EXPECT_NE(dump.out.find("eglBindAPI(api = EGL_OPENGL_ES_API) = EGL_TRUE"), std::string::npos);
  EXPECT_NE(dump.out.find("attrib_list = {EGL_SURFACE_TYPE, "), std::string::npos);
  EXPECT_NE(dump.out.find("glGenTextures(n = 1, textures = {"), std::string::npos);
  EXPECT_NE(dump.out.find("// context 1: EGLContext"), std::string::npos);
  EXPECT_NE(dump.out.find("// end of frame 4"), std::string::npos);
  EXPECT_EQ(dump.out.find("size unknown"), std::string::npos)
      << "the demo's calls all have known sizes";

  ProcessResult info = gltrace({"info", trace});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("frames:       5 (indexed)"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("complete:     yes"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("calls:        " + std::to_string(counts["total"])), std::string::npos);

  ProcessResult stats = gltrace({"stats", trace});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("glDrawElements"), std::string::npos);
  EXPECT_NE(stats.out.find("all "), std::string::npos);
}

TEST(Trace, DumpFilters) {
  std::string trace = make_temp_dir() + "/demo.gltrace";
  ASSERT_EQ(
      gltrace({"trace", "-o", trace, "--", build_bin("gltrace-demo"), "--frames", "3"}).exit_code,
      0);
  ProcessResult swaps = gltrace({"dump", "--function", "^eglSwap", trace});
  EXPECT_EQ(dumped_calls(swaps.out), 3u) << swaps.out;
  EXPECT_EQ(dumped_calls(swaps.out, "eglSwapBuffers"), 3u);
  ProcessResult range = gltrace({"dump", "--calls", "10-19", trace});
  EXPECT_EQ(dumped_calls(range.out), 10u);
  EXPECT_EQ(range.out.rfind("\n19 ") != std::string::npos || range.out.find("19 ") == 0, true);
  ProcessResult frame = gltrace({"dump", "--frames", "1", "--function", "eglSwapBuffers", trace});
  EXPECT_EQ(dumped_calls(frame.out), 1u) << frame.out;
  ProcessResult timing = gltrace({"dump", "--timing", "--calls", "0", trace});
  EXPECT_NE(timing.out.find("th1 ctx"), std::string::npos) << timing.out;
  EXPECT_EQ(gltrace({"dump", "--calls", "x", trace}).exit_code, 2);
}

TEST(TraceModes, ErrorModeReportsTheProvokedErrorAndTheAppStillSeesIt) {
  ProcessResult r = gltrace({"trace", "--mode", "error", "--", build_bin("gltrace-demo"),
                             "--frames", "2", "--provoke-error"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;  // the demo exits 1 if it did not see the error
  EXPECT_NE(r.out.find("demo: provoked GL error 0x0500 seen by app"), std::string::npos);
  EXPECT_EQ(count_occurrences(r.err, "gltrace: error: GL error GL_INVALID_ENUM after call "), 1u)
      << r.err;
  EXPECT_NE(r.err.find("glEnable(cap = 0xffff)"), std::string::npos) << r.err;
  // The stack's first frame is the app's call, by function and source line
  // (the demo is built with debug information).
  std::string demo = read_text_file(source_path("demo/main.cpp"));
  size_t call = demo.find("glEnable(0xFFFF)");
  ASSERT_NE(call, std::string::npos);
  std::string line = std::to_string(std::count(demo.begin(), demo.begin() + call, '\n') + 1);
  EXPECT_TRUE(std::regex_search(
      r.err,
      std::regex("GL_INVALID_ENUM after call [^\n]*\n    at main \\([^\n]*/demo/main\\.cpp:" +
                 line + "\\) in [^\n]*gltrace-demo\\+0x[0-9a-f]+\n")))
      << r.err;
  // Without the provoked error, error mode is silent.
  r = gltrace({"trace", "--mode", "error", "--", build_bin("gltrace-demo"), "--frames", "2"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err.find("GL error"), std::string::npos) << r.err;
}

// Without symbols (a stripped app) a frame is its module and offset.
TEST(TraceModes, ErrorModeStackOfAStrippedApp) {
  std::string app = make_temp_dir() + "/stripped-demo";
  ASSERT_EQ(run_process({"/usr/bin/strip", "-o", app, build_bin("gltrace-demo")}).exit_code, 0);
  ProcessResult r =
      gltrace({"trace", "--mode", "error", "--", app, "--frames", "2", "--provoke-error"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("GL_INVALID_ENUM after call [^\n]*\n    at " + app + "\\+0x[0-9a-f]+\n")))
      << r.err;
}

TEST(TraceModes, LogModeWritesEveryCallAsText) {
  std::string dir = make_temp_dir();
  EnvChanges env = clean_env();
  env["GLTRACE_COUNT_DIR"] = dir + "/counts";
  fs::create_directory(dir + "/counts");
  ProcessResult r = gltrace(
      {"trace", "--mode", "log", "-o", dir + "/log.txt", "--layers", "libGLES_layer_counting.so",
       "--", build_bin("gltrace-demo"), "--frames", "3", "--verify"},
      env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string log = read_text_file(dir + "/log.txt");
  EXPECT_EQ(dumped_calls(log), read_layer_counts(dir + "/counts")["total"]);
  EXPECT_NE(log.find("glDrawElements(mode = GL_TRIANGLES"), std::string::npos);
  EXPECT_EQ(count_occurrences(log, "// end of frame"), 3u);
}

// Log mode formats the values as it records them, the dumper decoded
// values: both with the one formatter (textformat), so a call reads the
// same in both, every kind of value the demo passes (enums, bits, arrays,
// attribute lists, blobs, strings). Addresses and the hashes of data that
// holds addresses differ between runs.
TEST(TraceModes, LogModeLinesAreTheDumpsLines) {
  std::string dir = make_temp_dir();
  std::vector<std::string> demo = {"--", build_bin("gltrace-demo"), "--frames", "2"};
  auto trace = [&](std::vector<std::string> args) {
    args.insert(args.end(), demo.begin(), demo.end());
    ProcessResult r = gltrace(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  };
  trace({"trace", "--mode", "log", "-o", dir + "/log.txt"});
  trace({"trace", "-o", dir + "/t.gltrace"});
  ProcessResult dump = gltrace({"dump", dir + "/t.gltrace"});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  std::regex varies("0x[0-9a-f]{6,}|<blob [0-9a-f]{16}");
  auto calls = [&](const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (!line.starts_with("//")) lines.push_back(std::regex_replace(line, varies, "<varies>"));
    return lines;
  };
  std::vector<std::string> logged = calls(read_text_file(dir + "/log.txt"));
  std::vector<std::string> dumped = calls(dump.out);
  ASSERT_EQ(logged.size(), dumped.size());
  ASSERT_GT(logged.size(), 500u);
  for (size_t i = 0; i < logged.size(); ++i) EXPECT_EQ(logged[i], dumped[i]);
}

TEST(TraceModes, SystraceModeAndExportWriteATimeline) {
  std::string dir = make_temp_dir();
  ProcessResult r = gltrace({"trace", "--mode", "systrace", "-o", dir + "/timeline.json", "--",
                             build_bin("gltrace-demo"), "--frames", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(
      gltrace({"trace", "-o", dir + "/t.gltrace", "--", build_bin("gltrace-demo"), "--frames", "3"})
          .exit_code,
      0);
  ASSERT_EQ(gltrace({"export", "--format", "json", "-o", dir + "/export.json", dir + "/t.gltrace"})
                .exit_code,
            0);
  // Both are JSON arrays of trace events; python's json module checks the syntax.
  for (const char* file : {"/timeline.json", "/export.json"}) {
    ProcessResult check =
        run_process({"/usr/bin/python3", "-c",
                     "import json,sys; e=json.load(open(sys.argv[1])); "
                     "print(sum(x['ph']=='X' for x in e), sum(x['ph']=='i' for x in e))",
                     dir + file});
    ASSERT_EQ(check.exit_code, 0) << check.err;
    std::istringstream counts(check.out);
    int slices = 0, frames = 0;
    counts >> slices >> frames;
    EXPECT_GT(slices, 700) << file;
    EXPECT_EQ(frames, 3) << file;
  }
}

TEST(Trace, FramebufferCaptureOnSwapMatchesWhatTheAppRendered) {
  std::string dir = make_temp_dir();
  std::string trace = dir + "/fb.gltrace";
  ProcessResult traced =
      gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--", build_bin("gltrace-demo"),
               "--frames", "3", "--verify", "--dump-frame", "2", dir + "/app-frame2.ppm"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  ProcessResult native = run_process({build_bin("gltrace-demo"), "--frames", "3"}, clean_env());
  EXPECT_EQ(demo_final_crc(traced.out), demo_final_crc(native.out))
      << "the read-back changed the rendering";
  ProcessResult frames = gltrace({"frames", "-o", dir + "/png", trace});
  ASSERT_EQ(frames.exit_code, 0) << frames.err;
  EXPECT_NE(frames.out.find("3 frames written"), std::string::npos) << frames.out;
  // The PNG of frame 2, as a PNG decoder reads it, holds exactly the pixels
  // the app read back itself (the PPM's RGB, top row first).
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  std::string png = dir + "/png/frame-000002.png";
  ASSERT_NE(png_image_begin_read_from_file(&image, png.c_str()), 0) << image.message;
  image.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> rgba(PNG_IMAGE_SIZE(image));
  ASSERT_NE(png_image_finish_read(&image, nullptr, rgba.data(), 0, nullptr), 0) << image.message;
  EXPECT_EQ(image.width, 320u);
  EXPECT_EQ(image.height, 240u);
  std::string rgb;
  for (size_t i = 0; i < rgba.size(); ++i)
    if (i % 4 != 3) rgb += static_cast<char>(rgba[i]);
  std::string ppm = read_text_file(dir + "/app-frame2.ppm");
  EXPECT_TRUE(ppm.ends_with(rgb) && ppm.size() - rgb.size() < 20)
      << "the PNG differs from the app's pixels";
}

TEST(Trace, CaptureOptionsThreadTimeAndNoTextureData) {
  std::string dir = make_temp_dir();
  ASSERT_EQ(gltrace({"trace", "--thread-time", "--no-texture-data", "-o", dir + "/t.gltrace", "--",
                     build_bin("gltrace-demo"), "--frames", "2", "--verify"})
                .exit_code,
            0);
  ProcessResult info = gltrace({"info", dir + "/t.gltrace"});
  EXPECT_NE(info.out.find("capture:      framebuffer=off texture-data=off thread-time=on"),
            std::string::npos)
      << info.out;
  ProcessResult dump = gltrace({"dump", "--function", "^glTexImage2D$", dir + "/t.gltrace"});
  EXPECT_NE(dump.out.find("size unknown: texture data not captured"), std::string::npos)
      << dump.out;
  ProcessResult stats = gltrace({"stats", dir + "/t.gltrace"});
  // glCompileShader burns CPU on this thread: its thread time is not zero
  // (columns: calls, total, %, mean, p50, p95, max, thread ms).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      stats.out, m,
      std::regex(R"(glCompileShader\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\S+))")))
      << stats.out;
  EXPECT_GT(std::stod(m[1].str()), 0.0) << stats.out;
}

// Call times are CLOCK_MONOTONIC (the header says so) also after the clock
// moved to the TSC mid-run (its rate is taken some ms into the session).
TEST(Trace, CallTimesFollowTheMonotonicClock) {
  auto monotonic = [] {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
  };
  std::string trace = make_temp_dir() + "/t.gltrace";
  uint64_t before = monotonic();
  ASSERT_EQ(gltrace({"trace", "-o", trace, "--", build_bin("gltrace-demo"), "--frames", "40",
                     "--fps", "100"})
                .exit_code,
            0);
  uint64_t after = monotonic();
  struct Times : format::Consumer {
    uint64_t start_time = 0, calls = 0, out_of_range = 0, backwards = 0, overlapping = 0;
    uint64_t first_start = UINT64_MAX;  // trace time
    uint64_t before = 0, after = 0;
    std::map<uint32_t, uint64_t> last_start, last_end;  // per thread
    std::vector<uint64_t> frames;
    void on_header(const format::Header& h) override { start_time = h.start_time_ns; }
    void on_call(const format::Call& c) override {
      ++calls;
      first_start = std::min(first_start, c.start_ns);
      uint64_t start = start_time + c.start_ns;
      if (start < before || start + c.duration_ns > after) ++out_of_range;
      if (start < last_start[c.thread]) ++backwards;
      last_start[c.thread] = start;
      // A thread's calls follow one another: a duration scaled wrong (a
      // TSC rate taken too high) would reach into the next call. 10 us
      // allow for the clock's switch to the TSC between two calls.
      if (start + 10000 < last_end[c.thread]) ++overlapping;
      last_end[c.thread] = start + c.duration_ns;
    }
    void on_frame(const format::Frame& f) override { frames.push_back(f.time_ns); }
  } times;
  times.before = before;
  times.after = after;
  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(trace));
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, times, &status)) << status.message;
  EXPECT_GT(times.calls, 1000u);
  EXPECT_EQ(times.out_of_range, 0u);
  EXPECT_EQ(times.backwards, 0u);
  EXPECT_EQ(times.overlapping, 0u);
  // Paced at 100 fps from deadlines set before its first frame: the 40th
  // swap returns at least 400 ms after the app's first call (a TSC rate
  // taken too low would shrink that).
  ASSERT_EQ(times.frames.size(), 40u);
  EXPECT_GE(times.frames.back() - times.first_start, 400000000u);
}

// Each mode on a real app: glmark2's "shading" scene under Xvfb.
TEST(TraceModes, EveryModeWorksOnAGlmark2Scene) {
  if (access("/usr/bin/glmark2-es2", X_OK) != 0) GTEST_SKIP() << "glmark2-es2 not installed";
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  EnvChanges env = clean_env();
  env["DISPLAY"] = xvfb.display();
  std::string dir = make_temp_dir();
  auto run = [&](const std::string& mode, const std::string& output) {
    std::vector<std::string> args = {"trace", "--mode", mode};
    if (!output.empty()) args.insert(args.end(), {"-o", output});
    args.insert(args.end(),
                {"--", "/usr/bin/glmark2-es2", "-b", "shading:duration=0.3", "-s", "160x120"});
    ProcessResult r = gltrace(args, env);
    EXPECT_EQ(r.exit_code, 0) << mode << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("glmark2 Score"), std::string::npos) << mode;
    return r;
  };
  run("full", dir + "/full.gltrace");
  EXPECT_EQ(gltrace({"info", dir + "/full.gltrace"}).exit_code, 0);
  run("log", dir + "/log.txt");
  std::string log = read_text_file(dir + "/log.txt");
  EXPECT_GT(dumped_calls(log, "glDrawArrays") + dumped_calls(log, "glDrawElements"), 10u);
  EXPECT_GT(count_occurrences(log, "// end of frame"), 5u);
  ProcessResult error = run("error", "");
  EXPECT_EQ(error.err.find("GL error"), std::string::npos) << "glmark2 makes no GL errors";
  run("systrace", dir + "/timeline.json");
  ProcessResult check = run_process(
      {"/usr/bin/python3", "-c",
       "import json,sys; e=json.load(open(sys.argv[1])); print(sum(x['ph']=='i' for x in e))",
       dir + "/timeline.json"});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_GT(std::stoi(check.out), 5) << "frames in the timeline";
}

// A pbuffer keeps the size it was made with: the trace layer asks the driver
// for it once, not at every frame (eglQuerySurface twice and a framebuffer
// binding query a frame cost more than a small frame's own calls). The
// counting layer below the trace layer counts what the trace layer called.
TEST(Trace, PbufferFramesAreNotAskedTheirSizeAgain) {
  auto queries_below = [](int frames) {
    std::string dir = make_temp_dir();
    EnvChanges env = clean_env();
    env["GLTRACE_COUNT_DIR"] = dir;
    env["GLTRACE_TRACE_FILE"] = dir + "/small.gltrace";
    env["GLTRACE_TRACE_MODE"] = "full";
    ProcessResult run = gltrace({"run", "--layers", "libGLES_trace.so:libGLES_layer_counting.so",
                                 "--", build_bin("gltrace-bench-mix"), "--mix", "small-frames",
                                 "--frames", std::to_string(frames)},
                                env);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    auto counts = read_layer_counts(dir);
    EXPECT_EQ(counts["eglSwapBuffers"], 20u * frames)
        << "small-frames makes 20 frames per --frames";
    return counts["eglQuerySurface"] + counts["glGetIntegerv"];
  };
  uint64_t few = queries_below(1), many = queries_below(5);
  EXPECT_GT(few, 0u) << "the size is asked at eglMakeCurrent";
  EXPECT_EQ(many, few) << "80 more frames asked " << many - few << " more queries";
}

TEST(Trace, FramebufferAfterEachDraw) {
  std::string dir = make_temp_dir();
  std::string trace = dir + "/draw.gltrace";
  ProcessResult traced = gltrace({"trace", "--framebuffer", "swap,draw", "-o", trace, "--",
                                  build_bin("gltrace-demo"), "--frames", "2", "--verify"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  ProcessResult native = run_process({build_bin("gltrace-demo"), "--frames", "2"}, clean_env());
  EXPECT_EQ(demo_final_crc(traced.out), demo_final_crc(native.out))
      << "the read-backs changed the rendering";
  // An error the app made before a swap is still its own after it: completing
  // the frame's read-backs and reading the back buffer must not read it.
  ProcessResult provoked =
      gltrace({"trace", "--framebuffer", "swap,draw", "-o", dir + "/error.gltrace", "--",
               build_bin("gltrace-demo"), "--frames", "2", "--provoke-error"});
  EXPECT_EQ(provoked.exit_code, 0) << provoked.out << provoked.err;
  EXPECT_NE(provoked.out.find("provoked GL error 0x0500 seen by app"), std::string::npos);
  ProcessResult dump = gltrace({"dump", "--function", "^glDraw", trace});
  size_t draws = dumped_calls(dump.out);
  ASSERT_GT(draws, 40u);
  ProcessResult frames = gltrace({"frames", "-o", dir + "/png", trace});
  ASSERT_EQ(frames.exit_code, 0) << frames.err;
  std::map<std::string, std::string> last_draw;  // frame-N -> its last draw's PNG
  size_t pngs = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/png")) {
    std::string name = entry.path().filename().string();
    size_t call = name.find("-call-");
    if (call == std::string::npos) continue;
    ++pngs;
    std::string& last = last_draw[name.substr(0, call)];
    last = std::max(last, name);
  }
  EXPECT_EQ(pngs, draws) << "one image after every draw call";
  // The demo's last draw of a frame fills the window: read back (in flight,
  // on ES 3) it must show what the swap showed.
  ASSERT_EQ(last_draw.size(), 2u);
  for (const auto& [frame, png] : last_draw)
    EXPECT_EQ(read_text_file(dir + "/png/" + png), read_text_file(dir + "/png/" + frame + ".png"))
        << png;
}

// An attribute without a value ({name, EGL_NONE}) has no EGL_NONE in a name
// position: the recorder must not read on past readable memory (it faulted
// in piglit's egl-create-context-invalid-attribute-gl), and the app must
// still see the driver's error.
TEST(Trace, MalformedAttributeListIsRecordedWithoutFaulting) {
  std::string trace = make_temp_dir() + "/malformed.gltrace";
  ProcessResult traced =
      gltrace({"trace", "-o", trace, "--", build_bin("gltrace-egl-edges"), "--malformed-attribs"});
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  ProcessResult dump = gltrace({"dump", "--function", "eglCreateContext", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dumped_calls(dump.out), 1u) << dump.out;
  EXPECT_NE(dump.out.find(", 12344}) = 0x0"), std::string::npos)
      << "the list is recorded up to the unreadable page: " << dump.out;
}

// Pointer arguments the registry sizes only as COMPSIZE (issue 23): one texel
// of glClearTex[Sub]ImageEXT (NULL too), the border colours of the
// tex-/sampler-parameter array forms and the values their glGet forms
// write, a 3D upload under the pixel-store state, glMultiDrawElementsEXT's
// index arrays. The trace holds each
// one's data, a replay renders every frame the same and --check finds
// nothing uncaptured; without texture data, --check names the upload.
TEST(Trace, CompsizePointerArgumentsAreCapturedAndReplayed) {
  std::string dir = make_temp_dir();
  std::string trace = dir + "/params.gltrace";
  ProcessResult traced = gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--",
                                  build_bin("gltrace-pointer-params"), "2"});
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;  // the app checks its pixels
  ProcessResult dump = gltrace({"dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dump.out.find("size unknown"), std::string::npos) << dump.out;
  auto dumped = [&](const std::string& text) {
    EXPECT_NE(dump.out.find(text), std::string::npos) << text << "\n" << dump.out;
  };
  dumped(
      "glClearTexImageEXT(texture = 1, level = 0, format = GL_RGBA, type = GL_UNSIGNED_BYTE, "
      "data = <4 bytes: ff 00 00 ff>)");
  dumped("type = GL_UNSIGNED_BYTE, data = <4 bytes: 00 ff 00 ff>)");
  dumped("type = GL_UNSIGNED_BYTE, data = NULL)");  // clears to zero
  dumped(
      "glSamplerParameterfv(sampler = 1, pname = GL_TEXTURE_BORDER_COLOR, param = {0, 0, 1, 1})");
  dumped(
      "glGetSamplerParameterfv(sampler = 1, pname = GL_TEXTURE_BORDER_COLOR, "
      "params = {0, 0, 1, 1})");
  dumped("pname = GL_TEXTURE_BORDER_COLOR, params = {0, 2147483647, 2147483647, 2147483647})");
  dumped("pname = GL_TEXTURE_BORDER_COLOR, params = {-5, 6, -7, 8})");
  dumped("pname = GL_TEXTURE_BORDER_COLOR, param = {9, 10, 11, 12})");
  dumped(
      "glGetSamplerParameterIuiv(sampler = 2, pname = GL_TEXTURE_BORDER_COLOR, "
      "params = {9, 10, 11, 12})");
  // 6-pixel rows, 5-row images, skips of 1 in each: 356 bytes, not 4x4x2x4.
  EXPECT_TRUE(std::regex_search(
      dump.out, std::regex(R"(glTexSubImage3DOES\(.*, pixels = <blob [0-9a-f]+, 356 bytes>\))")))
      << dump.out;

  // Index arrays of a multi-draw: their bytes, or offsets into the bound buffer.
  dumped(
      "count = {3, 3}, type = GL_UNSIGNED_BYTE, indices = {\"\\x00\\x01\\x02\", "
      "\"\\x02\\x01\\x03\"}, primcount = 2)");
  dumped("count = {3, 3}, type = GL_UNSIGNED_SHORT, indices = {0, 6}, primcount = 2)");

  ProcessResult check = gltrace({"replay", "--check", trace});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(": 0 would be refused"), std::string::npos) << check.out;
  ProcessResult replay = gltrace({"replay", "-n", "--compare", trace});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("compare: 2 frames identical, 0 differ"), std::string::npos)
      << replay.out;

  std::string bare = dir + "/bare.gltrace";
  ASSERT_EQ(gltrace({"trace", "--no-texture-data", "-o", bare, "--",
                     build_bin("gltrace-pointer-params"), "2"})
                .exit_code,
            0);
  ProcessResult named = gltrace({"replay", "--check", bare});
  EXPECT_EQ(named.exit_code, 1) << named.out << named.err;
  EXPECT_TRUE(std::regex_search(
      named.out, std::regex(R"(call \d+: would refuse glTexSubImage3DOES: argument pixels was )"
                            R"(not captured \(texture data not captured \(capture option\)\))")))
      << named.out;
}

// GLES 1 apps draw from client-memory arrays (glVertexPointer,
// glColorPointer, glNormalPointer, glTexCoordPointer on a second texture
// unit): each draw records what it read, and the replay points the arrays at
// its copy, so every frame (whose arrays change in place) replays the same.
TEST(Trace, Gles1ClientArraysAreCapturedAndReplayed) {
  std::string trace = make_temp_dir() + "/gles1.gltrace";
  ProcessResult traced = gltrace({"trace", "--framebuffer", "swap", "-o", trace, "--",
                                  build_bin("gltrace-gles1-arrays"), "3"});
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;  // the app checks its pixels
  ProcessResult dump = gltrace({"dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dump.out.find("size unknown"), std::string::npos) << dump.out;
  EXPECT_EQ(dumped_calls(dump.out, "glDrawElements"), 3u) << dump.out;
  ProcessResult check = gltrace({"replay", "--check", trace});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(": 0 would be refused"), std::string::npos) << check.out;
  ProcessResult replay = gltrace({"replay", "-n", "--compare", trace});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("compare: 3 frames identical, 0 differ"), std::string::npos)
      << replay.out;
}

// EGLTime is nanoseconds: the dump prints a wait's timeout as such, and
// EGL_FOREVER by name (it printed both as hex handles).
TEST(Trace, FenceWaitTimeoutsDumpAsNanoseconds) {
  std::string trace = make_temp_dir() + "/fence.gltrace";
  ProcessResult traced =
      gltrace({"trace", "-o", trace, "--", build_bin("gltrace-egl-edges"), "--fence-sync"});
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  ProcessResult dump = gltrace({"dump", "--function", "eglClientWaitSync", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dumped_calls(dump.out), 2u) << dump.out;
  EXPECT_TRUE(std::regex_search(
      dump.out,
      std::regex(
          R"(eglClientWaitSync\(dpy = 0x[0-9a-f]+, sync = 0x[0-9a-f]+, )"
          R"(flags = 1, timeout = 1000000 ns\) = EGL_(TIMEOUT_EXPIRED|CONDITION_SATISFIED))")))
      << dump.out;
  EXPECT_TRUE(std::regex_search(
      dump.out, std::regex(R"(eglClientWaitSync\(dpy = 0x[0-9a-f]+, sync = 0x[0-9a-f]+, )"
                           R"(flags = 0, timeout = EGL_FOREVER\) = EGL_CONDITION_SATISFIED)")))
      << dump.out;
}

// A desktop-GL context made through EGL is traced as a GLES one is: the
// layers see its GL calls, its framebuffer is read at its swap, and a GLES
// context made after it on the same thread is traced too.
TEST(Trace, DesktopGlContextThroughEglIsTraced) {
  std::string dir = make_temp_dir();
  std::string trace = dir + "/desktop.gltrace";
  EnvChanges env = clean_env();
  env["GLTRACE_COUNT_DIR"] = dir + "/counts";
  fs::create_directories(dir + "/counts");
  ProcessResult traced =
      gltrace({"trace", "--framebuffer", "swap,draw", "-o", trace, "--layers",
               "libGLES_layer_counting.so", "--", build_bin("gltrace-egl-edges"), "--desktop-gl"},
              env);
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  EXPECT_NE(traced.out.find("desktop GL: 4."), std::string::npos) << traced.out;
  EXPECT_EQ(traced.err.find("not traced"), std::string::npos) << traced.err;
  auto counts = read_layer_counts(dir + "/counts");
  EXPECT_EQ(counts["glClear"], 2u) << "both contexts' clears pass the layers";
  EXPECT_EQ(counts["glGetString"], 2u);
  EXPECT_EQ(counts["eglMakeCurrent"], 4u);
  EXPECT_EQ(counts["eglSwapBuffers"], 2u);
  ProcessResult dump = gltrace({"dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_NE(dump.out.find("eglBindAPI(api = EGL_OPENGL_API)"), std::string::npos) << dump.out;
  EXPECT_EQ(dumped_calls(dump.out, "glClear"), 2u) << dump.out;
  EXPECT_EQ(dumped_calls(dump.out, "eglCreateContext"), 2u) << dump.out;
  // Each context is named by its API.
  EXPECT_TRUE(std::regex_search(dump.out, std::regex("// context 1: [^\n]*, GL 4\\.[0-9]")))
      << dump.out;
  ProcessResult info = gltrace({"info", trace});
  EXPECT_TRUE(
      std::regex_search(info.out, std::regex("context 1: +EGL GL 4\\.[0-9] (core|compatibility),")))
      << info.out;
  EXPECT_TRUE(std::regex_search(info.out, std::regex("context 2: +EGL ES 2,"))) << info.out;
  ProcessResult frames = gltrace({"frames", "-o", dir + "/png", trace});
  ASSERT_EQ(frames.exit_code, 0) << frames.err;
  size_t pngs = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/png"))
    pngs += entry.path().extension() == ".png";
  EXPECT_EQ(pngs, 2u) << "both swaps' framebuffers: " << frames.out;
  ProcessResult replay = gltrace({"replay", "--compare", trace});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("compare: 2 frames identical, 0 differ"), std::string::npos)
      << replay.out;
}

// What only desktop GL's compatibility profile has (immediate mode, display
// lists, fixed-function client arrays, 1D textures, glMapBuffer with
// GL_READ_WRITE, a named buffer's mapping, glDrawPixels, glBitmap), through
// EGL and libOpenGL.so.0: every frame and every draw replays identically,
// and the layers see those calls.
TEST(Trace, DesktopGlCompatibilityProfileReplaysIdentically) {
  std::string dir = make_temp_dir();
  std::string trace = dir + "/compat.gltrace";
  EnvChanges env = clean_env();
  env["GLTRACE_COUNT_DIR"] = dir + "/counts";
  fs::create_directories(dir + "/counts");
  ProcessResult native = run_process({build_bin("gltrace-desktop-gl-app"), "--frames", "4"}, env);
  ASSERT_EQ(native.exit_code, 0) << native.err;
  // The seeds' example layers above the counting one: the chain over a
  // desktop GL program.
  ProcessResult traced =
      gltrace({"trace", "--framebuffer", "swap,draw", "-o", trace, "--layers",
               "libGLES_layer_active.so:libGLES_layer_passive.so:libGLES_layer_counting.so", "--",
               build_bin("gltrace-desktop-gl-app"), "--frames", "4"},
              env);
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  EXPECT_EQ(traced.out, native.out) << "the app's checksum changed under tracing";
  EXPECT_NE(traced.err.find("gles-layer-active: eglChooseConfig leave"), std::string::npos)
      << traced.err;
  EXPECT_NE(traced.err.find("gles-layer-passive: eglChooseConfig leave"), std::string::npos)
      << traced.err;
  auto counts = read_layer_counts(dir + "/counts");
  EXPECT_EQ(counts["glBegin"], 5u) << "one in a display list, one per frame";
  EXPECT_EQ(counts["glCallList"], 6u) << "two in a display list, one per frame";
  EXPECT_EQ(counts["glMapBuffer"], 4u);
  EXPECT_EQ(counts["glMapNamedBufferRange"], 4u);
  ProcessResult dump = gltrace({"dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_TRUE(std::regex_search(dump.out, std::regex(R"(glTexImage1D\([^\n]*pixels = <48 bytes)")))
      << dump.out;
  EXPECT_TRUE(std::regex_search(
      dump.out, std::regex(R"(glBitmap\([^\n]*bitmap = \{170, 85, 170, 85, 170, 85, 170, 85\}\))")))
      << dump.out;
  EXPECT_NE(dump.out.find("glGenLists(range = 2) = "), std::string::npos) << dump.out;
  ProcessResult replay = gltrace({"replay", "--compare", trace});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("compare: 4 frames identical, 0 differ"), std::string::npos)
      << replay.out << replay.err;
  EXPECT_TRUE(std::regex_search(replay.out, std::regex(R"(images identical \([^)]*\), 0 differ)")))
      << replay.out;
  EXPECT_EQ(replay.err.find("could not be replayed"), std::string::npos) << replay.err;
}

// A GLX program linked to libGL.so.1: an FBConfig and a core context
// (glXCreateContextAttribsARB through glXGetProcAddressARB), a GLX window,
// a resize, a legacy context on the X window itself. Its calls pass the
// layers as an EGL program's do, and a headless replay makes its contexts
// and windows on EGL with every frame identical.
TEST(Trace, GlxProgramIsTracedAndReplaysIdentically) {
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty()) << "Xvfb did not start";
  std::string dir = make_temp_dir();
  std::string trace = dir + "/glx.gltrace";
  EnvChanges env = clean_env();
  env["DISPLAY"] = xvfb.display();
  env["GLTRACE_COUNT_DIR"] = dir + "/counts";
  fs::create_directories(dir + "/counts");
  std::string app = build_bin("gltrace-glx-app");
  ProcessResult native = run_process({app, "--frames", "6"}, env);
  ASSERT_EQ(native.exit_code, 0) << native.err;
  // The seeds' example layers above the counting one: the chain over a GLX
  // program (they intercept eglChooseConfig only, and pass the rest).
  ProcessResult traced =
      gltrace({"trace", "--framebuffer", "swap,draw", "-o", trace, "--layers",
               "libGLES_layer_active.so:libGLES_layer_passive.so:libGLES_layer_counting.so", "--",
               app, "--frames", "6"},
              env);
  ASSERT_EQ(traced.exit_code, 0) << traced.out << traced.err;
  EXPECT_EQ(traced.out, native.out) << "the app's checksum changed under tracing";
  EXPECT_NE(traced.err.find("gles-layer-active: initialize"), std::string::npos) << traced.err;
  EXPECT_EQ(traced.err.find("warning"), std::string::npos) << traced.err;
  EXPECT_NE(traced.err.find(" 7 frames, "), std::string::npos) << traced.err;
  auto counts = read_layer_counts(dir + "/counts");
  EXPECT_EQ(counts["glXSwapBuffers"], 7u);
  EXPECT_EQ(counts["glXCreateContextAttribsARB"], 1u) << "got through glXGetProcAddressARB";
  EXPECT_EQ(counts["glXMakeCurrent"], 2u);
  EXPECT_EQ(counts["glDrawArrays"], 6u);
  EXPECT_EQ(counts["glBegin"], 1u);
  ProcessResult dump = gltrace({"dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_TRUE(std::regex_search(
      dump.out,
      std::regex(
          R"(glXCreateContextAttribsARB\([^\n]*attrib_list = \{8337, 3, 8338, 3, 37158, 1, 0\})")))
      << dump.out;
  EXPECT_TRUE(std::regex_search(
      dump.out, std::regex(R"(glXChooseVisual\([^\n]*attribList = \{4, 5, 8, 8, 12, 24, 0\})")))
      << dump.out;
  ProcessResult info = gltrace({"info", trace});
  EXPECT_TRUE(std::regex_search(info.out, std::regex("context 1: +GLX GL 4\\.[0-9] core, 96x64")))
      << info.out;
  EXPECT_TRUE(
      std::regex_search(info.out, std::regex("context 2: +GLX GL [0-9.]+ compatibility, 128x80")))
      << info.out;
  ProcessResult replay = gltrace({"replay", "--compare", trace});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("compare: 7 frames identical, 0 differ"), std::string::npos)
      << replay.out << replay.err;
  EXPECT_TRUE(std::regex_search(replay.out, std::regex(R"(images identical \([^)]*\), 0 differ)")))
      << replay.out;
  EXPECT_EQ(replay.err.find("could not be replayed"), std::string::npos) << replay.err;
  // As a drop-in libGL.so.1 (LD_LIBRARY_PATH, no preload) the same.
  ProcessResult dropin = gltrace(
      {"trace", "--dropin", "-o", dir + "/dropin.gltrace", "--", app, "--frames", "6"}, env);
  ASSERT_EQ(dropin.exit_code, 0) << dropin.out << dropin.err;
  EXPECT_EQ(dropin.out, native.out);
  EXPECT_NE(dropin.err.find(" 7 frames, "), std::string::npos) << dropin.err;
}

TEST(Trace, SigkilledAppLeavesAReadableTrace) {
  std::string trace = make_temp_dir() + "/killed.gltrace";
  EnvChanges env = clean_env();
  std::string lib = build_lib("");
  pid_t pid = fork();
  if (pid == 0) {
    setenv("LD_PRELOAD", (lib + "libgltrace.so").c_str(), 1);
    setenv("GLTRACE_LAYER_PATH", (lib + "layers").c_str(), 1);
    setenv("DEBUG_GLES_LAYERS", "libGLES_trace.so", 1);
    setenv("GLTRACE_TRACE_FILE", trace.c_str(), 1);
    execl(build_bin("gltrace-demo").c_str(), "gltrace-demo", "--frames", "1000000",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Let it write some frames (whatever the machine's load: up to 2 min),
  // then kill it without warning.
  std::error_code ignored;
  for (int i = 0; i < 2400 && fs::file_size(trace, ignored) + 1 < 200001; ++i) usleep(50000);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ProcessResult info = gltrace({"info", trace});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("complete:     no"), std::string::npos) << info.out;
  ProcessResult dump = gltrace({"dump", "--function", "eglSwapBuffers", trace});
  EXPECT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_GE(dumped_calls(dump.out), 1u) << "frames before the kill are kept";
}

TEST(Trace, BadTraceFilesGiveAClearError) {
  std::string dir = make_temp_dir();
  std::string trace = dir + "/good.gltrace";
  ASSERT_EQ(gltrace({"trace", "-o", trace, "--", build_bin("gltrace-demo"), "--frames", "12",
                     "--fps", "20"})
                .exit_code,
            0);
  // Paced frames: threads flush at frame ends once the flush interval (100 ms) has passed, so
  // the file holds several chunks and its first two thirds hold whole chunks of calls whatever
  // the machine's load (two unpaced frames could all sit in one chunk).
  std::string bytes = read_text_file(trace);
  write_text_file(dir + "/empty.gltrace", "");
  write_text_file(dir + "/text.gltrace", "hello, not a trace\n");
  std::string corrupt = bytes;
  corrupt[corrupt.size() / 2] ^= 0x5a;
  write_text_file(dir + "/corrupt.gltrace", corrupt);
  write_text_file(dir + "/cut.gltrace", bytes.substr(0, bytes.size() * 2 / 3));

  ProcessResult r = gltrace({"dump", dir + "/empty.gltrace"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("empty"), std::string::npos) << r.err;
  r = gltrace({"dump", dir + "/text.gltrace"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("offset 0"), std::string::npos) << r.err;
  r = gltrace({"dump", dir + "/corrupt.gltrace"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("offset"), std::string::npos) << r.err;
  r = gltrace({"dump", dir + "/cut.gltrace"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_GT(dumped_calls(r.out), 100u);
  r = gltrace({"dump", dir + "/missing.gltrace"});
  EXPECT_EQ(r.exit_code, 1);
}

TEST(Trace, Glmark2ScenesAreTracedAndStillValidate) {
  if (access("/usr/bin/glmark2-es2", X_OK) != 0) GTEST_SKIP() << "glmark2-es2 not installed";
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  EnvChanges env = clean_env();
  env["DISPLAY"] = xvfb.display();
  std::string dir = make_temp_dir();
  std::vector<std::string> args = {
      "trace", "-o", dir + "/glmark2.gltrace", "--", "/usr/bin/glmark2-es2", "-s", "160x120"};
  for (const char* scene : {"build", "texture", "shading", "bump", "effect2d", "pulsar", "desktop",
                            "buffer", "ideas", "jellyfish", "terrain", "refract", "shadow"}) {
    args.push_back("-b");
    args.push_back(std::string(scene) + ":duration=0.2");
  }
  ProcessResult r = gltrace(args, env);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("glmark2 Score"), std::string::npos);
  ProcessResult info = gltrace({"info", dir + "/glmark2.gltrace"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("complete:     yes"), std::string::npos) << info.out;
  ProcessResult dump = gltrace({"dump", dir + "/glmark2.gltrace"});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_GT(dumped_calls(dump.out, "glDrawArrays") + dumped_calls(dump.out, "glDrawElements"),
            100u);
  EXPECT_GT(dumped_calls(dump.out, "eglCreateContext"), 12u);
  EXPECT_GT(dumped_calls(dump.out, "eglGetProcAddress"), 100u);

  // glmark2's own pixel check passes while traced.
  ProcessResult validate = gltrace(
      {"trace", "-o", dir + "/validate.gltrace", "--", "/usr/bin/glmark2-es2", "--validate"}, env);
  EXPECT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  EXPECT_EQ(validate.out.find("Validation: Failure"), std::string::npos) << validate.out;
  EXPECT_GE(count_occurrences(validate.out, "Validation: Success"), 20u) << validate.out;
}

}  // namespace
}  // namespace gltrace::test
