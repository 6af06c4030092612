#include "surface/from_gl/from_gl.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "format/reader.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/roles.h"

namespace gltrace::surface {
namespace {

using format::Value;
using format::ValueKind;

// DRM_FORMAT_ARGB8888: the contents' byte order is B, G, R, A.
constexpr uint32_t kArgb8888 = 0x34325241;

uint64_t handle_of(const Value& v) {
  switch (v.kind) {
    case ValueKind::kPointer:
    case ValueKind::kUnknown:
      return v.pointer;
    case ValueKind::kUint:
      return v.uint;
    case ValueKind::kSint:
      return static_cast<uint64_t>(v.sint);
    default:
      return 0;
  }
}

struct Event {
  enum Kind { kCreate, kSwap, kDestroy } kind;
  int64_t time = 0;
  int32_t surface = 0;
  uint32_t w = 0, h = 0;
  uint64_t frame = 0;
  uint32_t context = 0;
  uint64_t seq = 0;
  uint64_t blob = 0;  // the swap's captured framebuffer (0: none)
};

struct GlSurface {
  int32_t id = 0;
  uint64_t handle = 0;
  uint64_t frames = 0;
  uint32_t first_w = 0, first_h = 0;
  bool pbuffer = false;
  uint64_t display = 0;  // EGLDisplay
};

struct SwapImage {
  uint32_t context = 0;
  uint64_t seq = 0;
  uint32_t w = 0, h = 0;
  uint64_t blob = 0;
};

// Pass 1: surfaces, swaps and the swap images.
class Collector : public format::Consumer {
 public:
  void on_header(const format::Header& header) override {
    process_ = std::string(header.process_name);
  }

  void on_call(const format::Call& call) override {
    const int64_t end = static_cast<int64_t>(call.start_ns + call.duration_ns);
    last_time_ = std::max(last_time_, end);
    const uint64_t display = call.args.empty() ? 0 : handle_of(call.args[0]);
    if (api::has_role(call.function, api::kRoleWindowSurface) && call.ret != nullptr) {
      const uint64_t handle = handle_of(*call.ret);
      offscreen_.erase(handle);
      if (handle != 0) create(handle, display, end, false);
    } else if (api::has_role(call.function, api::kRoleOffscreenSurface) && call.ret != nullptr) {
      offscreen_.insert(handle_of(*call.ret));
      by_handle_.erase(handle_of(*call.ret));
    } else if (call.function == api::kFn_eglDestroySurface && call.args.size() >= 2) {
      const uint64_t handle = handle_of(call.args[1]);
      offscreen_.erase(handle);
      auto it = by_handle_.find(handle);
      if (it != by_handle_.end()) {
        events.push_back({Event::kDestroy, end, it->second, 0, 0, 0, 0, 0, 0});
        by_handle_.erase(it);
      }
    } else if (call.function == api::kFn_eglTerminate) {
      // Ends every surface of the display (glmark2 destroys none itself).
      destroy_where(end, [&](const GlSurface& s) { return s.display == display; });
    } else if (api::has_role(call.function, api::kRoleSwap) && call.args.size() >= 2) {
      if (call.ret != nullptr && handle_of(*call.ret) == 0) return;  // EGL_FALSE: nothing shown
      const uint64_t handle = handle_of(call.args[1]);
      // A pbuffer enters at its first swap: the trace layer ends a frame
      // there (a surfaceless program's frames); one never swapped is a
      // context's dummy surface. A window made before the trace began (an
      // attach mid-run) enters at its first swap too.
      auto it = by_handle_.find(handle);
      GlSurface& s = it != by_handle_.end()
                         ? surfaces[it->second]
                         : create(handle, display, end, offscreen_.count(handle) != 0);
      ++s.frames;
      if (s.frames == 1) s.first_w = call.surface_width, s.first_h = call.surface_height;
      events.push_back({Event::kSwap, end, s.id, call.surface_width, call.surface_height, s.frames,
                        call.context, call.seq, 0});
    }
  }

  void on_image(const format::Image& image) override {
    if (image.origin == "swap" && image.blob != 0)
      images.push_back({image.context, image.seq, image.width, image.height, image.blob});
  }

  std::string name_of(const GlSurface& s) const {
    char handle[32];
    snprintf(handle, sizeof handle, "0x%llx", static_cast<unsigned long long>(s.handle));
    const std::string kind = s.pbuffer ? "EGL pbuffer " : "EGL window ";
    return (process_.empty() ? kind : process_ + ": " + kind) + handle;
  }

  // The surfaces the program still had when it ended go with it.
  void finish() {
    destroy_where(last_time_, [](const GlSurface&) { return true; });
  }

  std::vector<Event> events;
  std::map<int32_t, GlSurface> surfaces;
  std::vector<SwapImage> images;

 private:
  GlSurface& create(uint64_t handle, uint64_t display, int64_t time, bool pbuffer) {
    // A handle the driver reuses after eglDestroySurface is a new surface.
    const auto id = static_cast<int32_t>(surfaces.size() + 1);
    GlSurface& s = surfaces[id];
    s.id = id;
    s.handle = handle;
    s.pbuffer = pbuffer;
    s.display = display;
    by_handle_[handle] = id;
    events.push_back({Event::kCreate, time, id, 0, 0, 0, 0, 0, 0});
    return s;
  }

  template <typename Predicate>
  void destroy_where(int64_t time, Predicate matches) {
    std::vector<int32_t> ids;
    for (auto it = by_handle_.begin(); it != by_handle_.end();) {
      if (matches(surfaces[it->second])) {
        ids.push_back(it->second);
        it = by_handle_.erase(it);
      } else {
        ++it;
      }
    }
    std::sort(ids.begin(), ids.end());
    for (int32_t id : ids) events.push_back({Event::kDestroy, time, id, 0, 0, 0, 0, 0, 0});
  }

  int64_t last_time_ = 0;
  std::string process_;
  std::unordered_map<uint64_t, int32_t> by_handle_;
  std::unordered_set<uint64_t> offscreen_;
};

// Pass 2: the pixels of the wanted blobs, as top-down ARGB8888 rows.
class BlobCollector : public format::Consumer {
 public:
  explicit BlobCollector(std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> wanted)
      : wanted_(std::move(wanted)) {}
  void on_blob(const format::Blob& blob) override {
    auto it = wanted_.find(blob.id);
    if (it == wanted_.end()) return;
    const auto [w, h] = it->second;
    const size_t row = size_t{w} * 4;
    if (blob.data.size() != row * h) return;  // not the image it claims to be: no contents
    std::string& out = pixels[blob.id];
    out.resize(blob.data.size());
    for (uint32_t y = 0; y < h; ++y) {
      // GL's rows are bottom first, RGBA; a buffer's are top first, BGRA.
      const char* src = blob.data.data() + row * (h - 1 - y);
      char* dst = out.data() + row * y;
      for (size_t x = 0; x < row; x += 4) {
        dst[x] = src[x + 2];
        dst[x + 1] = src[x + 1];
        dst[x + 2] = src[x];
        dst[x + 3] = src[x + 3];
      }
    }
    wanted_.erase(it);
  }
  std::unordered_map<uint64_t, std::string> pixels;

 private:
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> wanted_;
};

bool read_gl(const std::string& path, format::Consumer& consumer, std::string& error,
             std::string& warning) {
  format::ChunkReader reader;
  if (!reader.open(path)) {
    error = path + ": " + reader.status().message;
    return false;
  }
  format::ReadStatus status;
  if (!format::read_trace_prefetched(reader, consumer, &status)) {
    error = path + ": " + status.message;
    return false;
  }
  if (status.state == format::ReadState::kCutShort) warning = path + ": " + status.message;
  return true;
}

}  // namespace

bool convert_gl_trace(const std::string& path, Trace& out, FromGlSummary& summary,
                      std::string& error, std::string& warning) {
  Collector collector;
  if (!read_gl(path, collector, error, warning)) return false;
  collector.finish();
  std::vector<Event>& events = collector.events;

  // Each swap image belongs to the first swap on its context after the call
  // it was read after.
  std::unordered_map<uint32_t, std::vector<Event*>> swaps_by_context;
  for (Event& e : events)
    if (e.kind == Event::kSwap) swaps_by_context[e.context].push_back(&e);
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> wanted;
  for (const SwapImage& image : collector.images) {
    auto it = swaps_by_context.find(image.context);
    if (it == swaps_by_context.end()) continue;
    auto swap = std::upper_bound(it->second.begin(), it->second.end(), image.seq,
                                 [](uint64_t seq, const Event* e) { return seq < e->seq; });
    if (swap == it->second.end() || (*swap)->blob != 0) continue;
    (*swap)->blob = image.blob;
    wanted[image.blob] = {image.w, image.h};
  }
  const bool any_wanted = !wanted.empty();
  BlobCollector blobs(std::move(wanted));
  if (any_wanted) {
    std::string ignored;  // the first pass said it already
    if (!read_gl(path, blobs, error, ignored)) return false;
  }

  out.Clear();
  if (events.empty()) {
    warning += std::string(warning.empty() ? "" : "; ") + path +
               " has no EGL window surface and no swap: nothing to convert";
    return true;
  }
  // Threads' calls are recorded in call order, not quite time order.
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.time < b.time; });
  uint32_t display_w = 0, display_h = 0;
  for (const Event& e : events)
    display_w = std::max(display_w, e.w), display_h = std::max(display_h, e.h);

  Increment* display = out.add_increment();
  display->set_time_stamp(events.front().time);
  DisplayCreation* d = display->mutable_display_creation();
  d->set_id(1);
  d->set_name("gl: " + path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1));
  d->set_w(display_w);
  d->set_h(display_h);

  std::map<int32_t, std::pair<uint32_t, uint32_t>> sizes;
  auto size_change = [&](int64_t time, int32_t id, uint32_t w, uint32_t h) {
    Increment* inc = out.add_increment();
    inc->set_time_stamp(time);
    SurfaceChange* c = inc->mutable_transaction()->add_surface_change();
    c->set_id(id);
    c->mutable_size()->set_w(w);
    c->mutable_size()->set_h(h);
    sizes[id] = {w, h};
  };
  for (const Event& e : events) {
    const GlSurface& s = collector.surfaces[e.surface];
    if (e.kind == Event::kCreate) {
      ++summary.surfaces;
      Increment* inc = out.add_increment();
      inc->set_time_stamp(e.time);
      SurfaceCreation* c = inc->mutable_surface_creation();
      c->set_id(s.id);
      c->set_name(collector.name_of(s));
      c->set_role(s.pbuffer ? "egl_pbuffer" : "egl_window");
      c->set_w(s.first_w);
      c->set_h(s.first_h);
      // Every window at the display's origin, later ones above earlier ones.
      Increment* t = out.add_increment();
      t->set_time_stamp(e.time);
      Transaction* transaction = t->mutable_transaction();
      SurfaceChange* position = transaction->add_surface_change();
      position->set_id(s.id);
      position->mutable_position();
      SurfaceChange* layer = transaction->add_surface_change();
      layer->set_id(s.id);
      layer->mutable_layer()->set_layer(s.id);
      if (s.first_w != 0 && s.first_h != 0) {
        SurfaceChange* size = transaction->add_surface_change();
        size->set_id(s.id);
        size->mutable_size()->set_w(s.first_w);
        size->mutable_size()->set_h(s.first_h);
        sizes[s.id] = {s.first_w, s.first_h};
      }
    } else if (e.kind == Event::kSwap) {
      ++summary.swaps;
      auto known = sizes.find(e.surface);
      if (e.w != 0 && e.h != 0 &&
          (known == sizes.end() || known->second != std::make_pair(e.w, e.h)))
        size_change(e.time, e.surface, e.w, e.h);
      Increment* inc = out.add_increment();
      inc->set_time_stamp(e.time);
      BufferUpdate* u = inc->mutable_buffer_update();
      u->set_id(e.surface);
      u->set_w(e.w);
      u->set_h(e.h);
      u->set_frame_number(e.frame);
      if (auto it = blobs.pixels.find(e.blob); e.blob != 0 && it != blobs.pixels.end()) {
        const size_t image_bytes = it->second.size();
        if (image_bytes == size_t{e.w} * e.h * 4 || (e.w == 0 && e.h == 0)) {
          u->set_format(kArgb8888);
          u->set_contents(it->second);
          ++summary.with_contents;
        }
      }
      Increment* vsync = out.add_increment();
      vsync->set_time_stamp(e.time);
      vsync->mutable_vsync_event()->set_when(e.time);
      vsync->mutable_vsync_event()->set_display_id(1);
    } else {
      Increment* inc = out.add_increment();
      inc->set_time_stamp(e.time);
      inc->mutable_surface_deletion()->set_id(e.surface);
    }
  }
  return true;
}

}  // namespace gltrace::surface
