// EGL fidelity: apps traced on X11 (Xvfb) and Wayland (weston's headless
// compositor) replay every frame identically, headless and with --x11:
//  - an app that asks for a config with 1-bit colour sizes and takes the
//    first one (the replay must pick the config with the attributes the app
//    really got, not the first of its own list: 10-10-10-2 headless);
//  - an app that resizes its window before the first frame and twice later
//    (the replay must resize its pbuffer or window where the app's buffers
//    changed size).
// Where a replay cannot be identical (no config of the traced one's
// attributes), it must say which attributes differ.
#include <EGL/egl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "encode.h"
#include "format/encoders.h"
#include "format/reader.h"
#include "format/schema.h"
#include "format/writer.h"
#include "glreplay/trace_source.h"
#include "gltrace/api/functions.h"
#include "support/apps.h"
#include "support/subprocess.h"
#include "support/tools.h"
#include "support/xvfb.h"

namespace gltrace::test {
namespace {

namespace fs = std::filesystem;

// The cleared environment without a display: each test names its own.
EnvChanges headless_env() {
  EnvChanges env = clean_env();
  env["DISPLAY"] = std::nullopt;
  env["WAYLAND_DISPLAY"] = std::nullopt;
  return env;
}

// weston's headless compositor on a socket of its own, ended by its PID.
class WestonServer {
 public:
  WestonServer() {
    socket_ = "gltrace-egl-" + std::to_string(getpid());
    log_ = make_temp_dir() + "/weston.log";
    const std::string& log = log_;
    const std::string& runtime = runtime_dir();  // made here, not in the child
    pid_ = fork();
    if (pid_ == 0) {
      setenv("XDG_RUNTIME_DIR", runtime.c_str(), 1);
      unsetenv("WAYLAND_DISPLAY");
      unsetenv("DISPLAY");
      if (freopen(log.c_str(), "w", stdout) == nullptr ||
          freopen(log.c_str(), "a", stderr) == nullptr)
        _exit(127);
      std::string socket_arg = "--socket=" + socket_;
      execlp("weston", "weston", "--backend=headless-backend.so", "--use-gl", socket_arg.c_str(),
             static_cast<char*>(nullptr));
      _exit(127);
    }
    // Ready once its socket exists (or it ended: no compositor). Its GL
    // renderer starts llvmpipe first: seconds, tens on a loaded machine.
    for (int k = 0; k < 1200 && pid_ > 0; ++k) {
      if (fs::exists(runtime + "/" + socket_)) return;
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    stop();
    socket_.clear();
  }
  ~WestonServer() { stop(); }
  WestonServer(const WestonServer&) = delete;
  WestonServer& operator=(const WestonServer&) = delete;
  // The WAYLAND_DISPLAY name; "" when weston did not start.
  const std::string& socket() const { return socket_; }
  // What weston printed.
  std::string log() const {
    std::ifstream in(log_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  pid_t pid_ = -1;
  std::string socket_;
  std::string log_;
};

// Traces APP ARGS with framebuffer images at each swap, in `env`.
std::string trace(const std::string& name, const std::vector<std::string>& app,
                  const EnvChanges& env) {
  std::string path = make_temp_dir() + "/" + name + ".gltrace";
  std::vector<std::string> argv = {
      build_bin("gltrace"), "trace", "--framebuffer", "swap", "-o", path, "--"};
  argv.insert(argv.end(), app.begin(), app.end());
  ProcessResult r = run_process(argv, env, 120);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return path;
}

// Replays with --compare (and `extra`), headless unless `display` is given.
ProcessResult replay(const std::string& path, const std::string& display = "",
                     const std::vector<std::string>& extra = {}) {
  EnvChanges env = headless_env();
  std::vector<std::string> argv = {build_bin("gltrace"), "replay", "-n", "--compare"};
  if (!display.empty()) {
    env["DISPLAY"] = display;
    argv.push_back("--x11");
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(path);
  return run_process(argv, env, 120);
}

// Every frame identical, nothing reported.
void expect_identical(const ProcessResult& r, uint64_t frames) {
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  CompareLine c = compare_line(r.out);
  ASSERT_TRUE(c.found) << r.out << r.err;
  EXPECT_EQ(c.identical, frames) << r.out;
  EXPECT_EQ(c.differ, 0u) << r.out;
  EXPECT_EQ(c.without, 0u) << r.out;
  EXPECT_EQ(r.err, "");  // no warning, no call that failed
}

// The sizes of the frames a replay wrote with --snapshot all.
std::vector<std::pair<uint32_t, uint32_t>> snapshot_sizes(const std::string& path) {
  std::string dir = make_temp_dir() + "/frames";
  ProcessResult r =
      run_process({build_bin("gltrace"), "replay", "-n", "--snapshot", "all", "-o", dir, path},
                  headless_env(), 120);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::vector<std::pair<uint32_t, uint32_t>> sizes;
  for (int frame = 0;; ++frame) {
    char name[32];
    snprintf(name, sizeof name, "/frame-%06d.png", frame);
    std::ifstream png(dir + name, std::ios::binary);
    if (!png) break;
    unsigned char header[24] = {};
    png.read(reinterpret_cast<char*>(header), sizeof header);
    auto be32 = [&](int at) {
      return uint32_t{header[at]} << 24 | uint32_t{header[at + 1]} << 16 |
             uint32_t{header[at + 2]} << 8 | uint32_t{header[at + 3]};
    };
    sizes.emplace_back(be32(16), be32(20));  // IHDR width, height
  }
  return sizes;
}

const std::vector<std::string> kResizes = {"--size",      "320x200",   "--resize",    "320x240",
                                           "--resize-at", "3:200x150", "--resize-at", "5:400x300",
                                           "--frames",    "7"};

// --- the records ------------------------------------------------------------------

// A trace of one eglCreateContext with config attributes and one swap with
// a surface size, as the trace layer writes them.
std::string write_sized_trace() {
  namespace s = gltrace::schema;
  std::string path = make_temp_dir() + "/records.gltrace";
  std::string error;
  auto writer = format::TraceWriter::open_file(path, {}, &error);
  EXPECT_NE(writer, nullptr) << error;
  wire::Encoder e;
  encode_header(e, 1, "records");
  auto call = [&](uint32_t function, uint64_t seq, const std::vector<int64_t>& attribs,
                  uint32_t width, uint32_t height) {
    size_t record = s::chunk::begin_records(e);
    size_t c = s::record::begin_call(e);
    s::call::set_function(e, function);
    s::call::set_thread(e, 1);
    s::call::set_seq(e, seq);
    if (!attribs.empty()) {
      size_t packed = s::call::begin_config_attribs(e);
      for (int64_t v : attribs) s::call::pack_config_attribs(e, v);
      e.end_nested(packed);
    }
    if (width != 0) {
      s::call::set_surface_width(e, width);
      s::call::set_surface_height(e, height);
    }
    e.end_nested(c);
    e.end_nested(record);
  };
  call(api::kFn_eglCreateContext, 0, {EGL_RED_SIZE, 10, EGL_SURFACE_TYPE, 0x405, 0x3339, -1}, 0, 0);
  call(api::kFn_eglSwapBuffers, 1, {}, 320, 240);
  writer->submit(format::Payload::from_encoder(e), {});
  EXPECT_TRUE(writer->close(&error)) << error;
  return path;
}

TEST(EglFidelityRecords, ConfigAttributesAndSurfaceSizesReachReaderAndReplay) {
  std::string path = write_sized_trace();
  // Through the prefetching reader (the batch keeps its own copy).
  struct Calls : format::Consumer {
    std::vector<std::vector<int64_t>> attribs;
    std::vector<std::pair<uint32_t, uint32_t>> sizes;
    void on_call(const format::Call& call) override {
      attribs.push_back(call.config_attribs != nullptr ? *call.config_attribs
                                                       : std::vector<int64_t>{});
      sizes.emplace_back(call.surface_width, call.surface_height);
    }
  } calls;
  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(path)) << reader.status().message;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace_prefetched(reader, calls, &status)) << status.message;
  using Attribs = std::vector<int64_t>;
  using Size = std::pair<uint32_t, uint32_t>;
  EXPECT_EQ(calls.attribs,
            (std::vector<Attribs>{{EGL_RED_SIZE, 10, EGL_SURFACE_TYPE, 0x405, 0x3339, -1}, {}}));
  EXPECT_EQ(calls.sizes, (std::vector<Size>{{0, 0}, {320, 240}}));
  // Into the replay's calls.
  glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
  std::string error;
  ASSERT_TRUE(source.open(path, &error)) << error;
  std::vector<glreplay::ReplayCall*> replayed;
  std::vector<replay::Increment> increments;
  replay::Increment increment;
  while (source.next(&increment, &error) == replay::SourceResult::kIncrement)
    increments.push_back(std::move(increment));
  ASSERT_EQ(increments.size(), 2u) << error;
  auto* context = dynamic_cast<glreplay::ReplayCall*>(increments[0].payload.get());
  auto* swap = dynamic_cast<glreplay::ReplayCall*>(increments[1].payload.get());
  ASSERT_TRUE(context != nullptr && swap != nullptr);
  EXPECT_EQ(Attribs(context->config_attribs.begin(), context->config_attribs.end()),
            (Attribs{EGL_RED_SIZE, 10, EGL_SURFACE_TYPE, 0x405, 0x3339, -1}));
  EXPECT_EQ(context->surface_width, 0u);
  EXPECT_TRUE(swap->config_attribs.empty());
  EXPECT_EQ(Size(swap->surface_width, swap->surface_height), Size(320, 240));
}

// The sizes the driver drew kResizes' frames at. Mesa's software paths (X11
// and Wayland) keep the buffers they made at eglMakeCurrent until the first
// swap: frame 0 has the creation size, though the window was resized before.
const std::vector<std::pair<uint32_t, uint32_t>> kResizedFrames = {
    {320, 200}, {320, 240}, {320, 240}, {200, 150}, {200, 150}, {400, 300}, {400, 300}};

// --- X11 --------------------------------------------------------------------------

TEST(EglFidelityX11, AConfigChosenByMinimalAttributesReplaysIdentically) {
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  EnvChanges env = headless_env();
  env["DISPLAY"] = xvfb.display();
  std::string path = trace(
      "x11-config", {build_bin("egl_fidelity_x11_app"), "--minimal-config", "--frames", "4"}, env);
  // Headless, the surfaceless platform lists 10-10-10-2 configs first.
  expect_identical(replay(path), 4);
  expect_identical(replay(path, xvfb.display()), 4);
}

// A window whose size is asked before it is bound (ANGLE does): the replay
// makes it at the size it was created with (issue 23: "the trace holds no
// size for window surface").
TEST(EglFidelityX11, AWindowQueriedBeforeItIsBoundReplaysIdentically) {
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  EnvChanges env = headless_env();
  env["DISPLAY"] = xvfb.display();
  std::string path = trace(
      "x11-query-first",
      {build_bin("egl_fidelity_x11_app"), "--query-first", "--size", "96x64", "--frames", "2"},
      env);
  expect_identical(replay(path), 2);
  expect_identical(replay(path, xvfb.display()), 2);
  // A probe: the window is never bound, so nothing else in the trace sizes it.
  std::string probe = trace(
      "x11-probe", {build_bin("egl_fidelity_x11_app"), "--probe-window", "--size", "96x64"}, env);
  for (const std::string& display : {std::string(), xvfb.display()}) {
    EnvChanges replay_env = headless_env();
    std::vector<std::string> argv = {build_bin("gltrace"), "replay", "-n"};
    if (!display.empty()) {
      replay_env["DISPLAY"] = display;
      argv.push_back("--x11");
    }
    argv.push_back(probe);
    ProcessResult r = run_process(argv, replay_env, 120);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.err.find("holds no size"), std::string::npos) << r.err;
  }
}

// Traces the X11 app resizing its window (kResizes, and `extra`), replays it
// headless and with --x11: every frame identical, of the driver's sizes.
void check_x11_resizes(const std::string& name, const std::vector<std::string>& extra) {
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  EnvChanges env = headless_env();
  env["DISPLAY"] = xvfb.display();
  std::vector<std::string> app = {build_bin("egl_fidelity_x11_app")};
  app.insert(app.end(), kResizes.begin(), kResizes.end());
  app.insert(app.end(), extra.begin(), extra.end());
  std::string path = trace(name, app, env);
  expect_identical(replay(path), 7);
  expect_identical(replay(path, xvfb.display()), 7);
  EXPECT_EQ(snapshot_sizes(path), kResizedFrames);
}

TEST(EglFidelityX11, AWindowResizedBeforeTheFirstFrameAndLaterReplaysIdentically) {
  check_x11_resizes("x11-resize", {});
}

// The window is only blitted to (ES 3, frames drawn off-screen).
TEST(EglFidelityX11, AResizedWindowReachedOnlyByBlitsReplaysIdentically) {
  check_x11_resizes("x11-blit", {"--blit"});
}

// --- Wayland (weston headless) ---------------------------------------------------

std::string wayland_app() {
  std::string app = build_bin("egl_fidelity_wayland_app");
  return access(app.c_str(), X_OK) == 0 ? app : "";
}

TEST(EglFidelityWayland, AConfigChosenByMinimalAttributesReplaysIdentically) {
  if (wayland_app().empty()) GTEST_SKIP() << "built without wayland-client (tools/deps.sh)";
  std::string path;
  {
    WestonServer weston;
    ASSERT_FALSE(weston.socket().empty()) << "weston did not start:\n" << weston.log();
    EnvChanges env = headless_env();
    env["WAYLAND_DISPLAY"] = weston.socket();
    path = trace("wayland-config", {wayland_app(), "--minimal-config", "--frames", "4"}, env);
  }
  expect_identical(replay(path), 4);
  // Mesa's first Wayland config is 10-10-10: an X screen 30 bits deep has
  // its twin.
  XvfbServer deep(30);
  ASSERT_FALSE(deep.display().empty());
  expect_identical(replay(path, deep.display()), 4);
  // A 24-bit one has not: the replay says which attributes differ (before
  // its pixel counts) and fails.
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  ProcessResult x11 = replay(path, xvfb.display());
  EXPECT_EQ(x11.exit_code, 1) << x11.out << x11.err;
  EXPECT_TRUE(std::regex_search(
      x11.err, std::regex("call \\d+ \\(eglCreate\\w+\\): warning: no replay EGL config has all "
                          "the attributes of the traced config \\d+; using the nearest, whose "
                          "EGL_RED_SIZE 8 \\(traced 10\\), EGL_GREEN_SIZE 8 \\(traced 10\\), "
                          "EGL_BLUE_SIZE 8 \\(traced 10\\)")))
      << x11.err;
}

void check_wayland_resizes(const std::string& name, const std::vector<std::string>& extra) {
  std::string path;
  {
    WestonServer weston;
    ASSERT_FALSE(weston.socket().empty()) << "weston did not start:\n" << weston.log();
    EnvChanges env = headless_env();
    env["WAYLAND_DISPLAY"] = weston.socket();
    std::vector<std::string> app = {wayland_app()};
    app.insert(app.end(), kResizes.begin(), kResizes.end());
    app.insert(app.end(), extra.begin(), extra.end());
    path = trace(name, app, env);
  }
  expect_identical(replay(path), 7);
  XvfbServer xvfb;
  ASSERT_FALSE(xvfb.display().empty());
  expect_identical(replay(path, xvfb.display()), 7);
  EXPECT_EQ(snapshot_sizes(path), kResizedFrames);
}

TEST(EglFidelityWayland, AWindowResizedBeforeTheFirstFrameAndLaterReplaysIdentically) {
  if (wayland_app().empty()) GTEST_SKIP() << "built without wayland-client (tools/deps.sh)";
  check_wayland_resizes("wayland-resize", {});
}

TEST(EglFidelityWayland, AResizedWindowReachedOnlyByBlitsReplaysIdentically) {
  if (wayland_app().empty()) GTEST_SKIP() << "built without wayland-client (tools/deps.sh)";
  check_wayland_resizes("wayland-blit", {"--blit"});
}

}  // namespace
}  // namespace gltrace::test
