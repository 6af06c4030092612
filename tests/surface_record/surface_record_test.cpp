// `gltrace surface record` under a real headless weston, recording weston's
// own demo clients and gltrace-surface-client (tests/apps), and `gltrace
// surface from-gl` on real GL traces (the demo, glmark2-es2 under Xvfb).
// Traces are checked with protoc --decode and with read_trace.
#include <gtest/gtest.h>
#include <png.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "support/subprocess.h"
#include "support/tools.h"
#include "support/xvfb.h"
#include "surface/trace_io.h"

namespace gltrace::test {
namespace {

using surface::Increment;
using surface::Trace;

constexpr uint32_t kXrgb8888 = 0x34325258;  // 'XR24'
constexpr uint32_t kArgb8888 = 0x34325241;  // 'AR24'

// The cleared environment without a compositor: each test starts its own.
EnvChanges record_env() {
  EnvChanges env = clean_env();
  env["WAYLAND_DISPLAY"] = std::nullopt;
  return env;
}

ProcessResult record_gltrace(const std::vector<std::string>& args,
                             const EnvChanges& env = record_env()) {
  return gltrace(args, env, 180);
}

// Why recording cannot be tested here ("" when it can).
std::string missing_for_recording() {
  if (access("/usr/bin/weston", X_OK) != 0) return "weston not installed";
  if (access(build_lib("weston/gltrace-surface-recorder.so").c_str(), F_OK) != 0)
    return "the recorder module was not built (libweston-10-dev)";
  if (access(build_bin("gltrace-surface-client").c_str(), X_OK) != 0)
    return "gltrace-surface-client was not built (wayland-client)";
  return "";
}

Trace read(const std::string& path, std::string* warning = nullptr) {
  Trace trace;
  std::string error;
  EXPECT_TRUE(surface::read_trace(path, trace, error, warning)) << error;
  return trace;
}

std::string protoc_decode(const std::string& path) {
  const std::string script =
      "protoc --decode=gltrace.surface.Trace -I \"$1\" \"$1/surface.proto\" < \"$2\"";
  ProcessResult r = run_process({"/bin/sh", "-c", script, "sh", source_path("proto"), path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

struct BufferSeen {
  uint32_t w = 0, h = 0;
  uint64_t frame = 0;
  uint32_t format = 0;
  std::string contents;
  size_t index = 0;  // of its increment
};

// A surface's life as the trace tells it, replayed from its increments.
struct SurfaceLife {
  surface::SurfaceCreation creation;
  size_t created_at = 0, deleted_at = 0;
  bool deleted = false;
  std::vector<BufferSeen> buffers;
  std::vector<std::pair<float, float>> positions;
  std::vector<std::pair<uint32_t, uint32_t>> sizes;
  std::vector<std::pair<int32_t, int32_t>> relative;  // relative parent, z
  std::vector<surface::Rectangle> crops;
  std::vector<int32_t> scales;
  std::vector<uint32_t> transforms;
  std::vector<bool> hidden_flags;
  bool hidden = true;
  bool ever_shown = false;
  int32_t layer = 0;
};

struct Replayed {
  std::map<int32_t, SurfaceLife> surfaces;
  std::vector<surface::DisplayCreation> displays;
  size_t vsyncs = 0;
  size_t deleted_displays = 0;
  // Each time a toplevel was first shown: was it above every other toplevel
  // then shown (weston raises what it maps)?
  std::vector<std::string> stacking_errors;
};

Replayed replay(const Trace& trace) {
  Replayed r;
  for (int i = 0; i < trace.increment_size(); ++i) {
    const Increment& inc = trace.increment(i);
    const auto index = static_cast<size_t>(i);
    if (inc.has_surface_creation()) {
      SurfaceLife& s = r.surfaces[inc.surface_creation().id()];
      s.creation = inc.surface_creation();
      s.created_at = index;
    } else if (inc.has_surface_deletion()) {
      SurfaceLife& s = r.surfaces[inc.surface_deletion().id()];
      s.deleted = true;
      s.deleted_at = index;
    } else if (inc.has_buffer_update()) {
      const auto& u = inc.buffer_update();
      r.surfaces[u.id()].buffers.push_back(
          {u.w(), u.h(), u.frame_number(), u.format(), u.contents(), index});
    } else if (inc.has_vsync_event()) {
      ++r.vsyncs;
    } else if (inc.has_display_creation()) {
      r.displays.push_back(inc.display_creation());
    } else if (inc.has_display_deletion()) {
      ++r.deleted_displays;
    } else if (inc.has_transaction()) {
      std::set<int32_t> newly_shown;
      for (const auto& c : inc.transaction().surface_change()) {
        SurfaceLife& s = r.surfaces[c.id()];
        if (c.has_position()) s.positions.emplace_back(c.position().x(), c.position().y());
        if (c.has_size()) s.sizes.emplace_back(c.size().w(), c.size().h());
        if (c.has_relative_parent())
          s.relative.emplace_back(c.relative_parent().relative_parent_id(),
                                  c.relative_parent().z());
        if (c.has_crop()) s.crops.push_back(c.crop().rectangle());
        if (c.has_layer()) s.layer = c.layer().layer();
        if (c.has_buffer_scale()) s.scales.push_back(c.buffer_scale().scale());
        if (c.has_buffer_transform()) s.transforms.push_back(c.buffer_transform().transform());
        if (c.has_hidden_flag()) {
          s.hidden_flags.push_back(c.hidden_flag().hidden_flag());
          s.hidden = c.hidden_flag().hidden_flag();
          if (!s.hidden && !s.ever_shown) newly_shown.insert(c.id());
          s.ever_shown = s.ever_shown || !s.hidden;
        }
      }
      // (Windows mapped in the same repaint are in an order of their own.)
      for (int32_t id : newly_shown) {
        const SurfaceLife& shown = r.surfaces[id];
        if (shown.creation.role() != "xdg_toplevel") continue;
        for (const auto& [other_id, other] : r.surfaces)
          if (newly_shown.count(other_id) == 0 && other.creation.role() == "xdg_toplevel" &&
              !other.hidden && !other.deleted && other.layer >= shown.layer)
            r.stacking_errors.push_back(shown.creation.name() + " mapped below " +
                                        other.creation.name());
      }
    }
  }
  return r;
}

const SurfaceLife* find_app(const Replayed& r, const std::string& app_id) {
  for (const auto& [id, s] : r.surfaces)
    if (s.creation.app_id() == app_id) return &s;
  return nullptr;
}

// The parent's `nth` subsurface, in creation order.
const SurfaceLife* find_child(const Replayed& r, int32_t parent, int nth = 0) {
  for (const auto& [id, s] : r.surfaces)
    if (s.creation.parent_id() == parent && nth-- == 0) return &s;
  return nullptr;
}

// Reads the trace while it is being written until `enough` holds (the
// recorder and weston keep running meanwhile); false after a minute.
template <typename Predicate>
bool wait_for_trace(const std::string& path, Predicate enough) {
  for (int i = 0; i < 600; ++i) {
    Trace trace;
    std::string error;
    if (surface::read_trace(path, trace, error) && enough(trace)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

size_t shm_updates(const Trace& trace) {
  const Replayed r = replay(trace);
  const SurfaceLife* shm = find_app(r, "org.freedesktop.weston.simple-shm");
  return shm != nullptr ? shm->buffers.size() : 0;
}

// The direct child of `parent` named `comm`, 0 if none.
pid_t child_named(pid_t parent, const std::string& comm) {
  ProcessResult r =
      run_process({"/usr/bin/ps", "-o", "pid=,comm=", "--ppid", std::to_string(parent)});
  std::istringstream lines(r.out);
  pid_t pid = 0;
  std::string name;
  while (lines >> pid >> name)
    if (name == comm) return pid;
  return 0;
}

bool is_stream(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof surface::kStreamMagic] = {};
  in.read(magic, sizeof magic);
  return in && std::memcmp(magic, surface::kStreamMagic, sizeof magic) == 0;
}

// One shm and one EGL demo client of weston's, and gltrace-surface-client
// (resizes its toplevel, moves and restacks a cropped subsurface), at once.
TEST(SurfaceRecord, DemoClientsAndAResizingClientUnderHeadlessWeston) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = make_temp_dir() + "/clients.surface";
  // The demo clients run until stopped: 3 s each, while the client shows 20 frames.
  const std::string clients =
      "timeout -s INT 3 weston-simple-shm & timeout -s INT 3 weston-simple-egl & "
      "\"$0\" --frames 20 & wait";
  ProcessResult r = record_gltrace({"surface", "record", "-o", out, "--size", "800x600", "--", "sh",
                                    "-c", clients, build_bin("gltrace-surface-client")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("increments: 1 displays"), std::string::npos) << r.err;
  EXPECT_FALSE(is_stream(out)) << "a finished recording is a plain Trace";

  const std::string text = protoc_decode(out);
  for (const char* expected :
       {"app_id: \"org.freedesktop.weston.simple-shm\"",
        "app_id: \"org.freedesktop.weston.simple-egl\"", "app_id: \"org.gltrace.surface-client\"",
        "title: \"surface client\"", "role: \"subsurface\"", "role: \"xdg_toplevel\"",
        "refresh_mhz: 60000", "w: 300", "h: 200", "vsync_event", "surface_deletion",
        "display_deletion"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected;

  const Replayed trace = replay(read(out));
  ASSERT_EQ(trace.displays.size(), 1u);
  EXPECT_EQ(trace.displays[0].w(), 800u);
  EXPECT_EQ(trace.displays[0].h(), 600u);
  EXPECT_EQ(trace.deleted_displays, 1u);
  EXPECT_TRUE(trace.stacking_errors.empty()) << trace.stacking_errors[0];

  const SurfaceLife* shm = find_app(trace, "org.freedesktop.weston.simple-shm");
  const SurfaceLife* egl = find_app(trace, "org.freedesktop.weston.simple-egl");
  const SurfaceLife* client = find_app(trace, "org.gltrace.surface-client");
  ASSERT_TRUE(shm && egl && client);
  const SurfaceLife* sub = find_child(trace, client->creation.id());
  ASSERT_NE(sub, nullptr) << "the client's subsurface, attached to its toplevel";
  EXPECT_EQ(sub->creation.role(), "subsurface");

  for (const SurfaceLife* demo : {shm, egl}) {
    ASSERT_FALSE(demo->buffers.empty()) << demo->creation.name();
    for (const BufferSeen& b : demo->buffers) {
      EXPECT_EQ(b.w, 250u);
      EXPECT_EQ(b.h, 250u);
      EXPECT_TRUE(b.contents.empty()) << "no --contents";
    }
    EXPECT_EQ(shm->buffers.front().format, kXrgb8888);
  }
  // Every toplevel where weston placed it: inside the output.
  for (const SurfaceLife* top : {shm, egl, client}) {
    ASSERT_FALSE(top->positions.empty()) << top->creation.name();
    ASSERT_FALSE(top->sizes.empty()) << top->creation.name();
    for (auto [x, y] : top->positions) {
      EXPECT_GE(x, 0);
      EXPECT_GE(y, 0);
      EXPECT_LE(x + static_cast<float>(top->sizes.front().first), 800);
      EXPECT_LE(y + static_cast<float>(top->sizes.front().second), 600);
    }
    EXPECT_TRUE(top->deleted) << top->creation.name() << " deleted at client exit";
    EXPECT_GT(top->deleted_at, top->buffers.back().index);
  }
  // The client's 20 frames: 10 at 200x150, then 10 at 300x200.
  ASSERT_EQ(client->buffers.size(), 20u);
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(client->buffers[i].frame, i + 1);
    EXPECT_EQ(client->buffers[i].w, i < 10 ? 200u : 300u);
    EXPECT_EQ(client->buffers[i].h, i < 10 ? 150u : 200u);
    EXPECT_EQ(client->buffers[i].format, kArgb8888);
  }
  ASSERT_EQ(client->sizes.size(), 2u);
  EXPECT_EQ(client->sizes[0], std::make_pair(200u, 150u));
  EXPECT_EQ(client->sizes[1], std::make_pair(300u, 200u));
  EXPECT_EQ(client->positions.size(), 1u) << "weston does not move a window by itself";
  // The subsurface: cropped 32x32 from (16,16) and shown 48x48, at (20,30)
  // above its parent, then at (100,50) below it; three buffers (the third
  // attached while the second was still cached, committed a frame later).
  EXPECT_EQ(sub->buffers.size(), 3u);
  ASSERT_EQ(sub->sizes.size(), 1u);
  EXPECT_EQ(sub->sizes[0], std::make_pair(48u, 48u));
  ASSERT_EQ(sub->crops.size(), 1u);
  EXPECT_EQ(sub->crops[0].left(), 16);
  EXPECT_EQ(sub->crops[0].top(), 16);
  EXPECT_EQ(sub->crops[0].right(), 48);
  EXPECT_EQ(sub->crops[0].bottom(), 48);
  ASSERT_EQ(sub->positions.size(), 2u);
  EXPECT_EQ(sub->positions[0], std::make_pair(20.0f, 30.0f));
  EXPECT_EQ(sub->positions[1], std::make_pair(100.0f, 50.0f));
  ASSERT_EQ(sub->relative.size(), 2u);
  EXPECT_EQ(sub->relative[0], std::make_pair(client->creation.id(), 1));
  EXPECT_EQ(sub->relative[1], std::make_pair(client->creation.id(), -1));
  EXPECT_TRUE(sub->deleted);
  EXPECT_TRUE(sub->scales.empty() && sub->transforms.empty()) << "scale 1, normal";
  // The second subsurface: 40x20 at scale 2 turned 90 degrees is 10x20,
  // above the first; unmapped (hidden) in the last quarter, with no update.
  const SurfaceLife* turned = find_child(trace, client->creation.id(), 1);
  ASSERT_NE(turned, nullptr);
  ASSERT_EQ(turned->buffers.size(), 1u);
  EXPECT_EQ(turned->buffers[0].w, 40u);
  EXPECT_EQ(turned->buffers[0].h, 20u);
  ASSERT_FALSE(turned->sizes.empty());
  EXPECT_EQ(turned->sizes[0], std::make_pair(10u, 20u));
  EXPECT_EQ(turned->scales, std::vector<int32_t>{2});
  EXPECT_EQ(turned->transforms, std::vector<uint32_t>{1});  // WL_OUTPUT_TRANSFORM_90
  ASSERT_FALSE(turned->positions.empty());
  EXPECT_EQ(turned->positions[0], std::make_pair(150.0f, 10.0f));
  ASSERT_FALSE(turned->relative.empty());
  EXPECT_EQ(turned->relative[0], std::make_pair(client->creation.id(), 2));
  EXPECT_EQ(turned->hidden_flags, (std::vector<bool>{false, true}));
  // A repaint after each of the client's frames at least (it waits for them).
  EXPECT_GE(trace.vsyncs, 20u);
}

// The pixels of every shm update, whichever renderer weston composites with.
class SurfaceRecordContents : public testing::TestWithParam<const char*> {};

TEST_P(SurfaceRecordContents, KeepShmPixelsAtEachUpdate) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = make_temp_dir() + "/contents.surface";
  ProcessResult r =
      record_gltrace({"surface", "record", "--contents", "--renderer", GetParam(), "-o", out, "--",
                      build_bin("gltrace-surface-client"), "--frames", "6"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  struct stat st {};
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "pixels of the user's windows: private";
  const Replayed trace = replay(read(out));
  const SurfaceLife* client = find_app(trace, "org.gltrace.surface-client");
  ASSERT_NE(client, nullptr);
  ASSERT_EQ(client->buffers.size(), 6u);
  for (const BufferSeen& b : client->buffers) {
    ASSERT_EQ(b.contents.size(), size_t{b.w} * b.h * 4) << "frame " << b.frame;
    // ARGB 0xff0000NN little-endian: NN, 0, 0, 0xff, at the first and last pixel.
    const std::string expected = {static_cast<char>(b.frame), 0, 0, static_cast<char>(0xff)};
    EXPECT_EQ(b.contents.substr(0, 4), expected) << "frame " << b.frame;
    EXPECT_EQ(b.contents.substr(b.contents.size() - 4), expected) << "frame " << b.frame;
  }
  const SurfaceLife* sub = find_child(trace, client->creation.id());
  ASSERT_NE(sub, nullptr);
  ASSERT_EQ(sub->buffers.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(sub->buffers[i].contents.size(), 64u * 64 * 4);
    EXPECT_EQ(sub->buffers[i].contents.substr(0, 4),
              std::string(i == 1 ? "\xcc\x33\x33\xff" : "\x33\x33\xcc\xff"))
        << "update " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Renderers, SurfaceRecordContents, testing::Values("pixman", "gl"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

// CLIENT starts a client and leaves at once: the recording goes on until the
// client it left behind has ended too.
// RGBA pixels of a PNG, rows top first (empty when it does not read).
struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
  std::array<int, 3> at(uint32_t x, uint32_t y) const {
    const uint8_t* p = &rgba[(size_t{y} * width + x) * 4];
    return {p[0], p[1], p[2]};
  }
};

Image read_png(const std::string& path) {
  Image out;
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&image, path.c_str()) == 0) return out;
  image.format = PNG_FORMAT_RGBA;
  out.rgba.resize(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr) == 0) return {};
  out.width = image.width;
  out.height = image.height;
  return out;
}

// surfacereplayer's colour of a surface at its n-th buffer update
// (docs/surface.md): hue 137 * id degrees, saturation 1, value 1 - (n % 4) / 8.
std::array<int, 3> replay_colour(int32_t id, size_t n) {
  double hue = static_cast<double>((id * 137) % 360) / 60.0;
  double value = 1.0 - static_cast<double>(n % 4) / 8.0;
  double x = value * (1 - std::abs(std::fmod(hue, 2.0) - 1));
  double rgb[3] = {0, 0, 0};
  switch (static_cast<int>(hue)) {
    case 0:
      rgb[0] = value, rgb[1] = x;
      break;
    case 1:
      rgb[0] = x, rgb[1] = value;
      break;
    case 2:
      rgb[1] = value, rgb[2] = x;
      break;
    case 3:
      rgb[1] = x, rgb[2] = value;
      break;
    case 4:
      rgb[0] = x, rgb[2] = value;
      break;
    default:
      rgb[0] = value, rgb[2] = x;
      break;
  }
  return {static_cast<int>(std::lround(rgb[0] * 255)), static_cast<int>(std::lround(rgb[1] * 255)),
          static_cast<int>(std::lround(rgb[2] * 255))};
}

// A toplevel as it stood at one VSync of the recording.
struct Placed {
  int32_t id = 0;
  float x = 0, y = 0;
  uint32_t w = 0, h = 0;
  int32_t layer = 0;
  size_t updates = 0;  // buffer updates so far
};

// weston's demo clients, one shm and one EGL, and a client that resizes its
// window, recorded under weston's headless backend, then replayed by
// surfacereplayer, as fast as it goes and at the recorded times: one image
// per recorded VSync, and in the last image before the first client left,
// each window at the place, size and stacking weston gave it, in its
// replay colour.
TEST(SurfaceRecord, RecordedDemoClientsReplayWhereWestonShowedThem) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = make_temp_dir();
  const std::string out = dir + "/clients.surface";
  // gltrace-surface-client resizes its window halfway, and moves its
  // subsurfaces (below the window, or unmapped, by the end).
  const std::string clients =
      "timeout -s INT 3 weston-simple-shm & timeout -s INT 3 weston-simple-egl & "
      "\"$0\" --frames 60 & wait";
  ProcessResult r = record_gltrace({"surface", "record", "-o", out, "--size", "640x480", "--", "sh",
                                    "-c", clients, build_bin("gltrace-surface-client")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const Trace trace = read(out);

  // The state at the last VSync before the first window went away.
  std::map<int32_t, Placed> windows, at_vsync;
  size_t vsyncs = 0, vsync_before_deletion = 0;
  int32_t display = -1;
  bool deleting = false;
  for (const Increment& inc : trace.increment()) {
    if (inc.has_display_creation() && display < 0) display = inc.display_creation().id();
    if (inc.has_surface_creation() && inc.surface_creation().role() == "xdg_toplevel")
      windows[inc.surface_creation().id()].id = inc.surface_creation().id();
    if (inc.has_surface_deletion()) deleting = true;
    if (inc.has_vsync_event()) {
      if (!deleting) {
        vsync_before_deletion = vsyncs;
        at_vsync = windows;
      }
      ++vsyncs;
    }
    if (deleting) continue;
    if (inc.has_buffer_update()) {
      auto it = windows.find(inc.buffer_update().id());
      if (it == windows.end()) continue;
      ++it->second.updates;
      it->second.w = inc.buffer_update().w();
      it->second.h = inc.buffer_update().h();
    }
    if (inc.has_transaction())
      for (const auto& c : inc.transaction().surface_change()) {
        auto it = windows.find(c.id());
        if (it == windows.end()) continue;
        if (c.has_position()) it->second.x = c.position().x(), it->second.y = c.position().y();
        if (c.has_size()) it->second.w = c.size().w(), it->second.h = c.size().h();
        if (c.has_layer()) it->second.layer = c.layer().layer();
      }
  }
  windows = at_vsync;
  ASSERT_EQ(windows.size(), 3u);
  ASSERT_GE(display, 0);
  ASSERT_GT(vsync_before_deletion, 10u);

  for (bool fast : {true, false}) {  // -n, then at the recorded times
    SCOPED_TRACE(fast ? "-n" : "at the recorded times");
    const std::string images = dir + (fast ? "/fast" : "/timed");
    std::vector<std::string> argv = {build_bin("surfacereplayer"), "-o", images, out};
    if (fast) argv.insert(argv.begin() + 1, "-n");
    ProcessResult replayed = run_process(argv, record_env(), 120);
    ASSERT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
    size_t written = 0;
    char name[64];
    for (;; ++written) {
      snprintf(name, sizeof name, "/display-%d-vsync-%06zu.png", display, written);
      if (access((images + name).c_str(), F_OK) != 0) break;
    }
    EXPECT_EQ(written, vsyncs) << "an image per recorded VSync";

    snprintf(name, sizeof name, "/display-%d-vsync-%06zu.png", display, vsync_before_deletion);
    const Image image = read_png(images + name);
    size_t total_checked = 0;
    ASSERT_EQ(image.width, 640u);
    ASSERT_EQ(image.height, 480u);
    for (const auto& [id, w] : windows) {
      if (w.updates == 0) continue;  // mapped later
      // Points of the window that no window above it covers.
      size_t checked = 0;
      for (int gx = 1; gx < 8; ++gx)
        for (int gy = 1; gy < 8; ++gy) {
          float px = w.x + static_cast<float>(w.w) * static_cast<float>(gx) / 8.0f;
          float py = w.y + static_cast<float>(w.h) * static_cast<float>(gy) / 8.0f;
          bool covered = false;
          for (const auto& [other_id, o] : windows)
            covered = covered || (other_id != id && o.layer > w.layer && px >= o.x &&
                                  px < o.x + static_cast<float>(o.w) && py >= o.y &&
                                  py < o.y + static_cast<float>(o.h));
          if (covered || px < 0 || py < 0 || px >= 640 || py >= 480) continue;
          const std::array<int, 3> expected = replay_colour(id, w.updates - 1);
          const std::array<int, 3> actual =
              image.at(static_cast<uint32_t>(px), static_cast<uint32_t>(py));
          for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(actual[c], expected[c], 3)
                << "window " << id << " at (" << px << "," << py << ") channel " << c;
          ++checked;
        }
      total_checked += checked;
    }
    // Windows may overlap where weston put them, but the top one shows whole.
    EXPECT_GE(total_checked, 40u);
  }
}

TEST(SurfaceRecord, WaitsForClientsTheClientLeftBehind) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = make_temp_dir() + "/orphan.surface";
  ProcessResult r =
      record_gltrace({"surface", "record", "-o", out, "--", "sh", "-c",
                      "\"$0\" --frames 8 & exit 0", build_bin("gltrace-surface-client")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Replayed trace = replay(read(out));
  const SurfaceLife* client = find_app(trace, "org.gltrace.surface-client");
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->buffers.size(), 8u);
  EXPECT_TRUE(client->deleted);
}

// A client that crashes: its status, a complete trace, its surfaces deleted
// when weston saw it go.
TEST(SurfaceRecord, CrashingClient) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  const std::string out = make_temp_dir() + "/crash.surface";
  ProcessResult r = record_gltrace({"surface", "record", "-o", out, "--",
                                    build_bin("gltrace-surface-client"), "--crash-after", "3"});
  EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << r.err;
  EXPECT_NE(r.err.find("gltrace-surface-client was killed by signal 11"), std::string::npos)
      << r.err;
  EXPECT_FALSE(is_stream(out));
  const Replayed trace = replay(read(out));
  const SurfaceLife* client = find_app(trace, "org.gltrace.surface-client");
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->buffers.size(), 3u);
  EXPECT_TRUE(client->deleted);
  const SurfaceLife* sub = find_child(trace, client->creation.id());
  ASSERT_NE(sub, nullptr);
  EXPECT_TRUE(sub->deleted);
}

// A recorder killed mid-run leaves the stream written so far, readable, and
// takes its weston with it.
TEST(SurfaceRecord, KilledRecorderLeavesAReadableStream) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = make_temp_dir();
  const std::string out = dir + "/killed.surface";
  BackgroundProcess recorder(
      {build_bin("gltrace"), "surface", "record", "-o", out, "--", "weston-simple-shm"},
      record_env(), dir + "/out", dir + "/err");
  ASSERT_TRUE(wait_for_trace(out, [](const Trace& t) { return shm_updates(t) >= 5; }))
      << read_text_file(dir + "/err");
  const std::string socket =
      *record_env().at("XDG_RUNTIME_DIR") + "/gltrace-surface-" + std::to_string(recorder.pid());
  struct stat st {};
  ASSERT_EQ(stat(socket.c_str(), &st), 0) << "weston's socket " << socket;
  recorder.signal(SIGKILL);
  recorder.wait();
  // weston ends (it removes its socket) once its parent is gone.
  bool gone = false;
  for (int i = 0; i < 300 && !gone; ++i) {
    gone = stat(socket.c_str(), &st) != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone) << "weston outlived its recorder";
  EXPECT_TRUE(is_stream(out));
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string warning;
  const Replayed trace = replay(read(out, &warning));
  ASSERT_EQ(trace.displays.size(), 1u);
  const SurfaceLife* shm = find_app(trace, "org.freedesktop.weston.simple-shm");
  ASSERT_NE(shm, nullptr);
  EXPECT_GE(shm->buffers.size(), 5u);
}

// Ctrl-C reaches the recorder's whole process group (as a terminal sends
// it): the client ends, weston does not, and the recording finishes.
TEST(SurfaceRecord, InterruptEndsTheClientNotTheRecording) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = make_temp_dir();
  const std::string out = dir + "/interrupted.surface";
  BackgroundProcess recorder(
      {build_bin("gltrace"), "surface", "record", "-o", out, "--", "weston-simple-shm"},
      record_env(), dir + "/out", dir + "/err");
  ASSERT_TRUE(wait_for_trace(out, [](const Trace& t) { return shm_updates(t) >= 3; }))
      << read_text_file(dir + "/err");
  ASSERT_EQ(kill(-recorder.pid(), SIGINT), 0);
  ProcessResult r = recorder.wait();
  EXPECT_EQ(r.err.find("weston exited"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("weston was killed"), std::string::npos) << r.err;
  // simple-shm ends cleanly at the first SIGINT, and dies of a second one
  // (this one's and the recorder's passing it on may come as one or two).
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 128 + SIGINT) << r.exit_code << r.err;
  EXPECT_FALSE(is_stream(out)) << "the recording was finished";
  const Replayed trace = replay(read(out));
  const SurfaceLife* shm = find_app(trace, "org.freedesktop.weston.simple-shm");
  ASSERT_NE(shm, nullptr);
  EXPECT_TRUE(shm->deleted);
  EXPECT_EQ(trace.deleted_displays, 1u);
}

// weston dying under the recorder: a clear message, a failure status, and
// the trace up to the crash.
TEST(SurfaceRecord, CompositorCrashIsReportedAndTheTraceKept) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = make_temp_dir();
  const std::string out = dir + "/crash.surface";
  BackgroundProcess recorder(
      {build_bin("gltrace"), "surface", "record", "-o", out, "--", "weston-simple-shm"},
      record_env(), dir + "/out", dir + "/err");
  ASSERT_TRUE(wait_for_trace(out, [](const Trace& t) { return shm_updates(t) >= 5; }))
      << read_text_file(dir + "/err");
  const pid_t weston = child_named(recorder.pid(), "weston");
  ASSERT_GT(weston, 0);
  ASSERT_EQ(kill(weston, SIGKILL), 0);
  ProcessResult r = recorder.wait();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("weston was killed by signal 9"), std::string::npos) << r.err;
  const Replayed trace = replay(read(out));
  const SurfaceLife* shm = find_app(trace, "org.freedesktop.weston.simple-shm");
  ASSERT_NE(shm, nullptr);
  EXPECT_GE(shm->buffers.size(), 5u);
}

// The module cannot write the trace: weston does not start, the client is
// never run, and the module's own message says why.
TEST(SurfaceRecord, UnwritableOutputStopsBeforeTheClient) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  const std::string dir = make_temp_dir();
  const std::string out = dir + "/missing/x.surface";
  ProcessResult r =
      record_gltrace({"surface", "record", "-o", out, "--", "/usr/bin/touch", dir + "/client-ran"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("before it was ready"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gltrace-surface-recorder: " + out + ": No such file or directory"),
            std::string::npos)
      << r.err;
  EXPECT_NE(access((dir + "/client-ran").c_str(), F_OK), 0) << "the client ran";
}

// FILE is replaced at the end: never a device (or a directory, or a link).
TEST(SurfaceRecord, OutputMustBeARegularFile) {
  const std::string dir = make_temp_dir();
  ASSERT_EQ(symlink("/dev/null", (dir + "/link").c_str()), 0);
  for (const std::string& out : {std::string("/dev/null"), dir, dir + "/link"}) {
    ProcessResult r = record_gltrace({"surface", "record", "-o", out, "--", "/usr/bin/true"});
    EXPECT_EQ(r.exit_code, 1) << out;
    EXPECT_NE(r.err.find(out + " exists and is not a regular file"), std::string::npos) << r.err;
  }
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(SurfaceRecord, RefusesARunningCompositor) {
  EnvChanges env = record_env();
  env["WAYLAND_DISPLAY"] = "wayland-0";
  ProcessResult r =
      record_gltrace({"surface", "record", "-o", make_temp_dir() + "/x", "--", "true"}, env);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("WAYLAND_DISPLAY is set (wayland-0)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--modules="), std::string::npos) << r.err;
}

TEST(SurfaceRecord, ClientThatCannotRun) {
  if (std::string why = missing_for_recording(); !why.empty()) GTEST_SKIP() << why;
  ProcessResult r = record_gltrace(
      {"surface", "record", "-o", make_temp_dir() + "/x", "--", "/nonexistent/client"});
  EXPECT_EQ(r.exit_code, 127) << r.err;
  EXPECT_NE(r.err.find("cannot run /nonexistent/client"), std::string::npos) << r.err;
}

TEST(SurfaceRecord, UsageErrors) {
  EXPECT_EQ(record_gltrace({"surface", "record", "--", "true"}).exit_code, 2);
  EXPECT_EQ(record_gltrace({"surface", "record", "-o", "x"}).exit_code, 2);
  EXPECT_EQ(record_gltrace({"surface", "record", "-o", "x", "--size", "big", "true"}).exit_code, 2);
  EXPECT_EQ(
      record_gltrace({"surface", "record", "-o", "x", "--renderer", "vulkan", "true"}).exit_code,
      2);
  EXPECT_EQ(record_gltrace({"surface", "from-gl", "-o", "x"}).exit_code, 2);
}

// --- from-gl -----------------------------------------------------------------

size_t count_swaps(const std::string& gl_trace) {
  ProcessResult dump = record_gltrace({"dump", gl_trace});
  EXPECT_EQ(dump.exit_code, 0) << dump.err;
  return count_occurrences(dump.out, " eglSwapBuffers(");
}

// The demo (surfaceless: a pbuffer it swaps), with its frames captured: one
// update per swap with the frame's pixels, top row first, B G R A.
TEST(SurfaceFromGl, DemoTraceWithFramebuffers) {
  const std::string dir = make_temp_dir();
  const std::string gl = dir + "/demo.gltrace", out = dir + "/demo.surface";
  ProcessResult traced = record_gltrace({"trace", "--framebuffer", "swap", "-o", gl, "--",
                                         build_bin("gltrace-demo"), "--frames", "8", "--size",
                                         "96x64", "--dump-frame", "5", dir + "/frame5.ppm"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  ProcessResult r = record_gltrace({"surface", "from-gl", "-o", out, gl});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 surfaces, 8 buffer updates (8 with contents)"), std::string::npos)
      << r.out;
  EXPECT_NE(protoc_decode(out).find("role: \"egl_pbuffer\""), std::string::npos);
  struct stat st {};
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  const Trace trace = read(out);
  const Replayed replayed = replay(trace);
  ASSERT_EQ(replayed.displays.size(), 1u);
  EXPECT_EQ(replayed.displays[0].w(), 96u);
  EXPECT_EQ(replayed.displays[0].h(), 64u);
  ASSERT_EQ(replayed.surfaces.size(), 1u);
  const SurfaceLife& s = replayed.surfaces.begin()->second;
  ASSERT_EQ(s.buffers.size(), count_swaps(gl));
  ASSERT_EQ(s.buffers.size(), 8u);
  EXPECT_EQ(replayed.vsyncs, 8u);
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    EXPECT_EQ(s.buffers[i].w, 96u);
    EXPECT_EQ(s.buffers[i].h, 64u);
    EXPECT_EQ(s.buffers[i].frame, i + 1);
    EXPECT_EQ(s.buffers[i].format, kArgb8888);
  }
  // The demo's own dump of frame 5 (frames count from 0): RGB, top row first.
  const std::string ppm = read_text_file(dir + "/frame5.ppm");
  const std::string header = "P6\n96 64\n255\n";
  ASSERT_EQ(ppm.substr(0, header.size()), header);
  const std::string rgb = ppm.substr(header.size());
  ASSERT_EQ(rgb.size(), 96u * 64 * 3);
  const std::string& argb = s.buffers[5].contents;
  ASSERT_EQ(argb.size(), 96u * 64 * 4);
  size_t differing = 0;
  for (size_t p = 0; p < 96u * 64; ++p)
    differing += argb[p * 4] != rgb[p * 3 + 2] || argb[p * 4 + 1] != rgb[p * 3 + 1] ||
                 argb[p * 4 + 2] != rgb[p * 3];
  EXPECT_EQ(differing, 0u);
}

// glmark2-es2 on an X11 window: one surface, one update per swap at the
// window's size.
TEST(SurfaceFromGl, Glmark2Window) {
  if (access("/usr/bin/glmark2-es2", X_OK) != 0) GTEST_SKIP() << "glmark2-es2 not installed";
  const std::string dir = make_temp_dir();
  const std::string gl = dir + "/glmark2.gltrace", out = dir + "/glmark2.surface";
  {
    XvfbServer xvfb;
    ASSERT_FALSE(xvfb.display().empty());
    EnvChanges env = record_env();
    env["DISPLAY"] = xvfb.display();
    ProcessResult traced =
        record_gltrace({"trace", "--framebuffer", "swap", "-o", gl, "--", "/usr/bin/glmark2-es2",
                        "-s", "160x120", "-b", "build:duration=0.3", "-b", "shading:duration=0.3"},
                       env);
    ASSERT_EQ(traced.exit_code, 0) << traced.err;
  }
  ProcessResult r = record_gltrace({"surface", "from-gl", "-o", out, gl});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Replayed replayed = replay(read(out));
  ASSERT_EQ(replayed.surfaces.size(), 1u);
  const SurfaceLife& s = replayed.surfaces.begin()->second;
  EXPECT_EQ(s.creation.role(), "egl_window");
  EXPECT_NE(s.creation.name().find("glmark2-es2"), std::string::npos) << s.creation.name();
  const size_t swaps = count_swaps(gl);
  ASSERT_GT(swaps, 2u);
  ASSERT_EQ(s.buffers.size(), swaps);
  EXPECT_EQ(replayed.vsyncs, swaps);
  for (const BufferSeen& b : s.buffers) {
    EXPECT_EQ(b.w, 160u);
    EXPECT_EQ(b.h, 120u);
    EXPECT_EQ(b.contents.size(), 160u * 120 * 4) << "the captured framebuffer";
  }
  EXPECT_TRUE(s.deleted) << "glmark2's eglTerminate ends its window surface";

  // Replayed: an image per swap, each showing that swap's framebuffer.
  const std::string images = dir + "/images";
  ProcessResult played =
      run_process({build_bin("surfacereplayer"), "-n", "-o", images, out}, record_env(), 120);
  ASSERT_EQ(played.exit_code, 0) << played.out << played.err;
  ASSERT_EQ(replayed.displays.size(), 1u);
  const int32_t display = replayed.displays[0].id();
  for (size_t k = 0; k < swaps; ++k) {
    char name[64];
    snprintf(name, sizeof name, "/display-%d-vsync-%06zu.png", display, k);
    const Image image = read_png(images + name);
    ASSERT_EQ(image.width, 160u) << name;
    ASSERT_EQ(image.height, 120u) << name;
    // ARGB8888 in memory order: B, G, R, A.
    const std::string& argb = s.buffers[k].contents;
    size_t differing = 0;
    for (uint32_t y = 0; y < 120; y += 7)
      for (uint32_t x = 0; x < 160; x += 5) {
        const auto* p = reinterpret_cast<const uint8_t*>(&argb[(size_t{y} * 160 + x) * 4]);
        const std::array<int, 3> actual = image.at(x, y);
        differing += std::abs(actual[0] - p[2]) > 2 || std::abs(actual[1] - p[1]) > 2 ||
                     std::abs(actual[2] - p[0]) > 2;
      }
    EXPECT_EQ(differing, 0u) << name;
  }
  char past[64];
  snprintf(past, sizeof past, "/display-%d-vsync-%06zu.png", display, swaps);
  EXPECT_NE(access((images + past).c_str(), F_OK), 0) << "no image beyond the swaps";
}

TEST(SurfaceFromGl, NotAGlTrace) {
  const std::string dir = make_temp_dir();
  write_text_file(dir + "/junk", "not a trace");
  ProcessResult r = record_gltrace({"surface", "from-gl", "-o", dir + "/out", dir + "/junk"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gltrace surface from-gl: " + dir + "/junk: "), std::string::npos) << r.err;
  EXPECT_NE(access((dir + "/out").c_str(), F_OK), 0);
}

}  // namespace
}  // namespace gltrace::test
