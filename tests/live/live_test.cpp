// Live tracing end to end: traceable apps (the demo, two threads, glmark2)
// run idle, a host attaches and detaches while they keep running.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <regex>
#include <thread>

#include "control/protocol.h"
#include "format/crc32.h"
#include "format/reader.h"
#include "format/records.h"
#include "gltrace/api/functions.h"
#include "support/subprocess.h"
#include "support/xvfb.h"

namespace gltrace::test {
namespace {

using namespace std::chrono_literals;

struct Env {
  std::string dir = make_temp_dir();
  std::string runtime = dir + "/run";
  EnvChanges vars;
  Env() {
    mkdir(runtime.c_str(), 0700);
    vars = {{"DEBUG_GLES_LAYERS", std::nullopt},  {"LD_PRELOAD", std::nullopt},
            {"GLTRACE_LAYER_PATH", std::nullopt}, {"GLTRACE_TRACE_FILE", std::nullopt},
            {"GLTRACE_LIVE", std::nullopt},       {"XDG_CONFIG_HOME", dir + "/config"},
            {"XDG_RUNTIME_DIR", runtime},         {"GLTRACE_SYSTEM_SETTINGS", "/nonexistent"}};
  }
  std::string socket(int pid) const {
    return runtime + "/gltrace/gltrace-" + std::to_string(pid) + ".sock";
  }
};

ProcessResult gltrace(const Env& env, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {build_bin("gltrace")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, env.vars, 300);
}

// Starts APP traceable in the background.
std::unique_ptr<BackgroundProcess> start_traceable(const Env& env, const std::string& name,
                                                   const std::vector<std::string>& app,
                                                   const std::vector<std::string>& run_options = {},
                                                   const EnvChanges& extra = {}) {
  std::vector<std::string> argv = {build_bin("gltrace"), "run", "--traceable"};
  argv.insert(argv.end(), run_options.begin(), run_options.end());
  argv.emplace_back("--");
  argv.insert(argv.end(), app.begin(), app.end());
  EnvChanges vars = env.vars;
  for (const auto& [k, v] : extra) vars[k] = v;
  return std::make_unique<BackgroundProcess>(argv, vars, env.dir + "/" + name + ".out",
                                             env.dir + "/" + name + ".err");
}

// Waits for the app's control socket (it appears at eglInitialize).
bool wait_for_socket(const std::string& path, BackgroundProcess& app) {
  for (int i = 0; i < 1000 && app.running(); ++i) {
    if (access(path.c_str(), F_OK) == 0) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// What a trace holds, read with the format library.
struct TraceContent : format::Consumer {
  format::ReadStatus status;
  bool ok = false;
  bool mid_run = false;
  uint64_t calls = 0;
  uint64_t synthetic_calls = 0;
  std::vector<uint64_t> app_frames;  // per frame of the trace
  std::map<uint32_t, uint64_t> frames_per_thread;
  std::map<uint32_t, uint32_t> first_function_per_thread;
  std::map<uint64_t, uint64_t> blob_crc;              // blob id -> CRC32
  std::vector<std::pair<uint64_t, uint64_t>> images;  // (trace frame, blob id)

  void on_header(const format::Header& h) override { mid_run = h.mid_run; }
  void on_call(const format::Call& c) override {
    ++calls;
    synthetic_calls += c.synthetic ? 1 : 0;
    first_function_per_thread.emplace(c.thread, c.function);
  }
  void on_frame(const format::Frame& f) override {
    app_frames.push_back(f.app_frame);
    ++frames_per_thread[f.thread];
  }
  void on_blob(const format::Blob& b) override {
    blob_crc[b.id] = format::crc32(b.data.data(), b.data.size());
  }
  void on_image(const format::Image& i) override { images.emplace_back(i.frame, i.blob); }
};

TraceContent read_trace_file(const std::string& path) {
  TraceContent content;
  format::ChunkReader reader;
  if (reader.open(path)) content.ok = format::read_trace(reader, content, &content.status);
  return content;
}

// "frame N crc 0x..." lines of the demo.
std::map<uint64_t, std::string> demo_frame_crcs(const std::string& out) {
  std::map<uint64_t, std::string> crcs;
  std::regex line(R"(frame (\d+) crc (0x[0-9a-f]+))");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it)
    crcs[std::stoull((*it)[1])] = (*it)[2];
  return crcs;
}

std::string hex(uint32_t v) {
  char text[16];
  snprintf(text, sizeof text, "0x%08x", v);
  return text;
}

constexpr int kDemoFrames = 300;

std::map<uint64_t, std::string> native_demo_crcs() {
  static const std::map<uint64_t, std::string> crcs = [] {
    ProcessResult r = run_process(
        {build_bin("gltrace-demo"), "--frames", std::to_string(kDemoFrames), "--checksum"});
    return demo_frame_crcs(r.out);
  }();
  return crcs;
}

// The test of the issue: idle app, attach for 10 frames, detach, wait,
// attach for 5 more; both traces complete, the app never notices.
TEST(LiveTrace, AttachTwiceToARunningDemo) {
  Env env;
  auto demo = start_traceable(env, "demo",
                              {build_bin("gltrace-demo"), "--frames", std::to_string(kDemoFrames),
                               "--fps", "100", "--checksum"});
  ASSERT_TRUE(wait_for_socket(env.socket(demo->pid()), *demo));
  ProcessResult ps = gltrace(env, {"ps"});
  EXPECT_NE(ps.out.find(std::to_string(demo->pid())), std::string::npos) << ps.out << ps.err;
  EXPECT_NE(ps.out.find("idle"), std::string::npos) << ps.out;

  std::string first = env.dir + "/first.gltrace";
  std::string second = env.dir + "/second.gltrace";
  ProcessResult a = gltrace(
      env, {"attach", std::to_string(demo->pid()), "-o", first, "--frames", "10", "--quiet"});
  EXPECT_EQ(a.exit_code, 0) << a.err;
  std::this_thread::sleep_for(200ms);
  ProcessResult b = gltrace(env, {"attach", "gltrace-demo", "-o", second, "--frames", "5",
                                  "--framebuffer", "swap", "--quiet"});
  EXPECT_EQ(b.exit_code, 0) << b.err;
  ProcessResult app = demo->wait();
  ASSERT_EQ(app.exit_code, 0) << app.err;

  TraceContent t1 = read_trace_file(first);
  TraceContent t2 = read_trace_file(second);
  ASSERT_TRUE(t1.ok && t2.ok) << t1.status.message << t2.status.message;
  EXPECT_TRUE(t1.status.closed_cleanly);
  EXPECT_TRUE(t2.status.closed_cleanly);
  EXPECT_TRUE(t1.mid_run && t2.mid_run);
  ASSERT_EQ(t1.app_frames.size(), 10u);
  ASSERT_EQ(t2.app_frames.size(), 5u);
  for (size_t i = 1; i < t1.app_frames.size(); ++i)
    EXPECT_EQ(t1.app_frames[i], t1.app_frames[0] + i);
  for (size_t i = 1; i < t2.app_frames.size(); ++i)
    EXPECT_EQ(t2.app_frames[i], t2.app_frames[0] + i);
  EXPECT_GT(t2.app_frames.front(), t1.app_frames.back()) << "the second capture follows the first";
  // ~230 calls a frame, and each trace starts with the synthetic eglMakeCurrent.
  EXPECT_GT(t1.calls, 10u * 200);
  EXPECT_GT(t2.calls, 5u * 200);
  EXPECT_EQ(t1.synthetic_calls, 1u);
  EXPECT_EQ(t1.first_function_per_thread.begin()->second,
            static_cast<uint32_t>(api::kFn_eglMakeCurrent));

  // The app drew exactly what it draws untraced, frame by frame.
  std::map<uint64_t, std::string> crcs = demo_frame_crcs(app.out);
  EXPECT_EQ(crcs, native_demo_crcs());
  // The second trace's framebuffers are the app's own frames, by app frame number.
  ASSERT_EQ(t2.images.size(), 5u);
  for (auto [frame, blob] : t2.images)
    EXPECT_EQ(hex(static_cast<uint32_t>(t2.blob_crc[blob])), crcs[t2.app_frames[frame]])
        << "trace frame " << frame;
}

}  // namespace
}  // namespace gltrace::test
