// gltrace-surface-recorder.so: a weston module that records what the
// compositor shows as a surface trace (proto/surface.proto), the way
// SurfaceInterceptor recorded SurfaceFlinger's layers. It sees weston's own
// scene graph: the views in the order weston composites them, where the shell
// placed them, the outputs, every applied commit and every repaint.
//
//   GLTRACE_SURFACE_RECORD_FILE=FILE [GLTRACE_SURFACE_RECORD_CONTENTS=1]
//   weston --modules=/path/to/gltrace-surface-recorder.so ...
//
// Increments are appended to FILE (a stream, see trace_io.h) as they happen,
// so a compositor that dies leaves every increment before it readable.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

extern "C" {
#include <libweston-desktop/libweston-desktop.h>
#include <libweston/libweston.h>
#include <libweston/matrix.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
}

#include "surface/trace_io.h"

namespace gltrace::surface {
namespace {

// A wl_listener that knows its owner. The listener is the first member of a
// standard-layout struct, so the wl_listener* libwayland passes back converts
// to the Hook (no offsetof on our own, non-standard-layout classes).
template <typename Owner>
struct Hook {
  wl_listener listener{};
  Owner* owner = nullptr;

  void add(wl_signal* signal, Owner* o, wl_notify_func_t notify) {
    owner = o;
    listener.notify = notify;
    wl_signal_add(signal, &listener);
  }
  void remove() { wl_list_remove(&listener.link); }
  static Owner* of(wl_listener* l) { return reinterpret_cast<Hook*>(l)->owner; }
};
static_assert(std::is_standard_layout_v<Hook<int>>);

// The weston struct whose `link` member (a C struct's: offsetof is defined)
// this list element is.
template <typename T>
T* from_link(wl_list* link, size_t offset) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(link) - offset);
}

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

constexpr uint32_t fourcc(char a, char b, char c, char d) {
  return uint32_t(uint8_t(a)) | uint32_t(uint8_t(b)) << 8 | uint32_t(uint8_t(c)) << 16 |
         uint32_t(uint8_t(d)) << 24;
}

// wl_shm formats are DRM fourccs except the first two.
uint32_t drm_format_of_shm(uint32_t shm_format) {
  if (shm_format == WL_SHM_FORMAT_ARGB8888) return fourcc('A', 'R', '2', '4');
  if (shm_format == WL_SHM_FORMAT_XRGB8888) return fourcc('X', 'R', '2', '4');
  return shm_format;
}

bool is_32bpp(uint32_t drm_format) {
  return drm_format == fourcc('A', 'R', '2', '4') || drm_format == fourcc('X', 'R', '2', '4') ||
         drm_format == fourcc('A', 'B', '2', '4') || drm_format == fourcc('X', 'B', '2', '4');
}

// The trace's role names ("" for none).
std::string role_of(const char* role_name) {
  if (role_name == nullptr) return "";
  if (std::strcmp(role_name, "wl_subsurface") == 0) return "subsurface";
  if (std::strcmp(role_name, "wl_pointer-cursor") == 0) return "cursor";
  return role_name;
}

// What one surface looked like at a repaint; compared field by field with the
// last one recorded so a transaction holds only what changed.
struct Shown {
  bool hidden = true;
  float x = 0, y = 0;
  int32_t w = 0, h = 0;
  float alpha = 1;
  int32_t layer = 0;
  int32_t relative_parent = 0, relative_z = 0;
  Rectangle crop;  // all zero: no crop
  float matrix[4] = {1, 0, 0, 1};
  int32_t scale = 1;
  uint32_t transform = 0;
  bool opaque = false;
};

bool same_rect(const Rectangle& a, const Rectangle& b) {
  return a.left() == b.left() && a.top() == b.top() && a.right() == b.right() &&
         a.bottom() == b.bottom();
}

class Recorder;

struct SurfaceRecord {
  Recorder* recorder = nullptr;
  weston_surface* surface = nullptr;
  int32_t id = 0;
  bool announced = false;
  // wl_surface.attach since the last wl_surface.commit request, and whether
  // it was of a buffer (not NULL); then whether the state committed (applied
  // at once, or cached for a synchronized subsurface until its parent
  // commits) brought a buffer.
  bool attached = false;
  bool attached_buffer = false;
  bool committed_buffer = false;
  uint64_t frames = 0;
  uint32_t format = 0;  // of the last buffer
  bool ever_shown = false;
  Shown last;
  Hook<SurfaceRecord> commit;
  Hook<SurfaceRecord> destroy;
};

struct OutputRecord {
  Recorder* recorder = nullptr;
  weston_output* output = nullptr;
  int32_t id = 0;
  Hook<OutputRecord> frame;
};

class Recorder {
 public:
  Recorder(weston_compositor* compositor, bool contents)
      : compositor_(compositor), contents_(contents) {}

  bool start(const std::string& path) {
    std::string error;
    if (!writer_.open(path, error)) {
      weston_log("gltrace-surface-recorder: %s\n", error.c_str());
      return false;
    }
    weston_log("gltrace-surface-recorder: recording to %s%s\n", path.c_str(),
               contents_ ? " with shm buffer contents" : "");
    create_surface_.add(&compositor_->create_surface_signal, this, [](wl_listener* l, void* data) {
      Hook<Recorder>::of(l)->on_create(static_cast<weston_surface*>(data));
    });
    output_created_.add(&compositor_->output_created_signal, this, [](wl_listener* l, void* data) {
      Hook<Recorder>::of(l)->add_output(static_cast<weston_output*>(data));
    });
    output_destroyed_.add(&compositor_->output_destroyed_signal, this,
                          [](wl_listener* l, void* data) {
                            Hook<Recorder>::of(l)->remove_output(static_cast<weston_output*>(data));
                          });
    destroy_.add(&compositor_->destroy_signal, this, [](wl_listener* l, void*) {
      Recorder* self = Hook<Recorder>::of(l);
      self->finish();
      delete self;
    });
    // wl_surface.attach is the only way to know a commit brought a new
    // buffer: the same wl_buffer may be attached again.
    logger_ = wl_display_add_protocol_logger(
        compositor_->wl_display,
        [](void* user, wl_protocol_logger_type type, const wl_protocol_logger_message* message) {
          static_cast<Recorder*>(user)->on_protocol(type, message);
        },
        this);
    for (wl_list* l = compositor_->output_list.next; l != &compositor_->output_list; l = l->next)
      add_output(from_link<weston_output>(l, offsetof(weston_output, link)));
    return true;
  }

 private:
  void write(Increment& increment) {
    if (failed_) return;
    if (increment.time_stamp() == 0) increment.set_time_stamp(now_ns());
    std::string error;
    if (!writer_.append(increment, error)) {
      // Nothing more can be kept; the compositor goes on without us.
      weston_log("gltrace-surface-recorder: %s; recording stopped\n", error.c_str());
      failed_ = true;
    }
  }

  void on_protocol(wl_protocol_logger_type type, const wl_protocol_logger_message* message) {
    // Requests are logged before they are dispatched: a commit's state is
    // marked here, then applied (commit_signal) in its dispatch or later.
    if (type != WL_PROTOCOL_LOGGER_REQUEST ||
        std::strcmp(wl_resource_get_class(message->resource), "wl_surface") != 0)
      return;
    auto* surface = static_cast<weston_surface*>(wl_resource_get_user_data(message->resource));
    SurfaceRecord* r = record_of(surface);
    if (r == nullptr) return;
    if (std::strcmp(message->message->name, "attach") == 0 && message->arguments_count >= 1) {
      r->attached = true;
      r->attached_buffer = message->arguments[0].o != nullptr;
    } else if (std::strcmp(message->message->name, "commit") == 0 && r->attached) {
      r->committed_buffer = r->attached_buffer;
      r->attached = false;
    }
  }

  void on_create(weston_surface* surface) {
    auto record = std::make_unique<SurfaceRecord>();
    record->recorder = this;
    record->surface = surface;
    record->id = next_surface_id_++;
    record->commit.add(&surface->commit_signal, record.get(), [](wl_listener* l, void*) {
      SurfaceRecord* r = Hook<SurfaceRecord>::of(l);
      r->recorder->on_commit(*r);
    });
    record->destroy.add(&surface->destroy_signal, record.get(), [](wl_listener* l, void*) {
      SurfaceRecord* r = Hook<SurfaceRecord>::of(l);
      r->recorder->on_destroy(*r);
    });
    surfaces_[surface] = std::move(record);
  }

  static std::string client_program(weston_surface* surface) {
    if (surface->resource == nullptr) return "";
    pid_t pid = 0;
    wl_client_get_credentials(wl_resource_get_client(surface->resource), &pid, nullptr, nullptr);
    std::string path = "/proc/" + std::to_string(pid) + "/cmdline";
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    char buf[256] = {};
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return "";
    std::string argv0(buf);  // up to the first NUL
    return argv0.substr(argv0.rfind('/') == std::string::npos ? 0 : argv0.rfind('/') + 1);
  }

  SurfaceRecord* record_of(weston_surface* surface) {
    auto it = surfaces_.find(surface);
    return it == surfaces_.end() ? nullptr : it->second.get();
  }

  // The surface a subsurface is attached to (weston keeps its
  // weston_subsurface as the role's private data).
  static weston_surface* subsurface_parent(weston_surface* surface) {
    if (surface->role_name == nullptr || std::strcmp(surface->role_name, "wl_subsurface") != 0)
      return nullptr;
    auto* sub = static_cast<weston_subsurface*>(surface->committed_private);
    return sub != nullptr ? sub->parent : nullptr;
  }

  // A surface enters the trace at its first applied commit: by then a client
  // has given it its role, title and app id.
  void announce(SurfaceRecord& r) {
    if (r.announced) return;
    weston_surface* s = r.surface;
    weston_surface* parent = subsurface_parent(s);
    SurfaceRecord* parent_record = parent != nullptr ? record_of(parent) : nullptr;
    if (parent_record != nullptr) announce(*parent_record);
    r.announced = true;
    Increment inc;
    SurfaceCreation* c = inc.mutable_surface_creation();
    c->set_id(r.id);
    c->set_w(static_cast<uint32_t>(std::max(s->width, 0)));
    c->set_h(static_cast<uint32_t>(std::max(s->height, 0)));
    c->set_role(role_of(s->role_name));
    if (weston_surface_is_desktop_surface(s)) {
      weston_desktop_surface* desktop = weston_surface_get_desktop_surface(s);
      if (const char* app_id = weston_desktop_surface_get_app_id(desktop)) c->set_app_id(app_id);
      if (const char* title = weston_desktop_surface_get_title(desktop)) c->set_title(title);
    }
    if (parent_record != nullptr) c->set_parent_id(parent_record->id);
    const std::string program = client_program(s);
    std::string name = !c->title().empty() ? c->title() : !c->app_id().empty() ? c->app_id() : "";
    if (name.empty() && s->get_label != nullptr) {
      // The compositor's own description ("background for output ...").
      char label[128] = {};
      if (s->get_label(s, label, sizeof label) > 0) name = label;
    }
    if (name.empty()) name = c->role().empty() ? "surface" : c->role();
    if (!program.empty()) name = program + ": " + name;
    c->set_name(name);
    write(inc);
  }

  void on_commit(SurfaceRecord& r) {
    weston_surface* s = r.surface;
    const bool new_buffer = r.committed_buffer;
    r.committed_buffer = false;
    if (!r.announced && s->role_name == nullptr && !new_buffer) return;
    announce(r);
    weston_buffer* buffer = s->buffer_ref.buffer;
    if (!new_buffer || buffer == nullptr) return;
    Increment inc;
    BufferUpdate* u = inc.mutable_buffer_update();
    u->set_id(r.id);
    u->set_frame_number(++r.frames);
    u->set_w(static_cast<uint32_t>(std::max(buffer->width, 0)));
    u->set_h(static_cast<uint32_t>(std::max(buffer->height, 0)));
    r.format = 0;  // not an shm buffer: unknown
    if (wl_shm_buffer* shm = buffer->resource ? wl_shm_buffer_get(buffer->resource) : nullptr) {
      const int32_t w = wl_shm_buffer_get_width(shm), h = wl_shm_buffer_get_height(shm);
      u->set_w(static_cast<uint32_t>(w));
      u->set_h(static_cast<uint32_t>(h));
      u->set_format(drm_format_of_shm(wl_shm_buffer_get_format(shm)));
      r.format = u->format();
      if (contents_ && is_32bpp(u->format()) && w > 0 && h > 0) {
        const auto row = static_cast<size_t>(w) * 4;
        const auto stride = static_cast<size_t>(wl_shm_buffer_get_stride(shm));
        std::string* pixels = u->mutable_contents();
        pixels->resize(row * static_cast<size_t>(h));
        // The client's pool may be truncated under us: libwayland turns the
        // SIGBUS into a client error inside begin/end_access.
        wl_shm_buffer_begin_access(shm);
        const auto* data = static_cast<const char*>(wl_shm_buffer_get_data(shm));
        for (int32_t y = 0; y < h; ++y)
          std::memcpy(pixels->data() + row * static_cast<size_t>(y),
                      data + stride * static_cast<size_t>(y), row);
        wl_shm_buffer_end_access(shm);
      } else if (contents_ && !warned_contents_) {
        warned_contents_ = true;
        weston_log("gltrace-surface-recorder: contents are kept for 32-bit shm buffers only\n");
      }
    }
    write(inc);
  }

  void on_destroy(SurfaceRecord& r) {
    r.commit.remove();
    r.destroy.remove();
    if (r.announced) {
      Increment inc;
      inc.mutable_surface_deletion()->set_id(r.id);
      write(inc);
    }
    surfaces_.erase(r.surface);  // r is gone from here on
  }

  void add_output(weston_output* output) {
    if (outputs_.count(output) != 0) return;
    auto record = std::make_unique<OutputRecord>();
    record->recorder = this;
    record->output = output;
    record->id = next_display_id_++;
    record->frame.add(&output->frame_signal, record.get(), [](wl_listener* l, void*) {
      OutputRecord* o = Hook<OutputRecord>::of(l);
      o->recorder->on_repaint(*o);
    });
    Increment inc;
    DisplayCreation* d = inc.mutable_display_creation();
    d->set_id(record->id);
    d->set_name(output->name != nullptr ? output->name : "output");
    d->set_w(static_cast<uint32_t>(output->width));
    d->set_h(static_cast<uint32_t>(output->height));
    if (output->current_mode != nullptr)
      d->set_refresh_mhz(static_cast<int32_t>(output->current_mode->refresh));
    write(inc);
    // Every output shows the one global space weston places surfaces in:
    // the same layer stack, seen through the output's own rectangle.
    Increment t;
    DisplayChange* change = t.mutable_transaction()->add_display_change();
    change->set_id(record->id);
    ProjectionChange* p = change->mutable_projection();
    p->mutable_viewport()->set_left(output->x);
    p->mutable_viewport()->set_top(output->y);
    p->mutable_viewport()->set_right(output->x + output->width);
    p->mutable_viewport()->set_bottom(output->y + output->height);
    p->mutable_frame()->set_right(output->width);
    p->mutable_frame()->set_bottom(output->height);
    write(t);
    outputs_[output] = std::move(record);
  }

  void remove_output(weston_output* output) {
    auto it = outputs_.find(output);
    if (it == outputs_.end()) return;
    it->second->frame.remove();
    Increment inc;
    inc.mutable_display_deletion()->set_id(it->second->id);
    write(inc);
    outputs_.erase(it);
  }

  Shown shown_of(weston_view* view, const std::unordered_map<weston_surface*, int32_t>& layers) {
    weston_surface* s = view->surface;
    Shown now;
    now.hidden = false;
    now.w = s->width;
    now.h = s->height;
    now.alpha = view->alpha;
    now.layer = layers.at(s);
    weston_surface* parent = subsurface_parent(s);
    if (SurfaceRecord* p = parent != nullptr ? record_of(parent) : nullptr) {
      // Subsurfaces: position relative to the parent (as the protocol sets
      // it), z relative to the parent: below it negative, above positive.
      // (weston keeps a subsurface view's translation relative to its
      // parent's view.)
      if (view->geometry.parent != nullptr) {
        now.x = view->geometry.x;
        now.y = view->geometry.y;
      } else {
        weston_view_to_global_float(view, 0, 0, &now.x, &now.y);
      }
      now.relative_parent = p->id;
      auto it = layers.find(parent);
      now.relative_z = it != layers.end() ? now.layer - it->second : 1;
    } else {
      weston_view_to_global_float(view, 0, 0, &now.x, &now.y);
    }
    if (view->transform.enabled) {
      // The 2x2 part of the view's transformation (rotation, zoom).
      const float* d = view->transform.matrix.d;
      now.matrix[0] = d[0], now.matrix[1] = d[1], now.matrix[2] = d[4], now.matrix[3] = d[5];
    }
    const weston_buffer_viewport& vp = s->buffer_viewport;
    now.scale = vp.buffer.scale;
    now.transform = vp.buffer.transform;
    if (vp.buffer.src_width != wl_fixed_from_int(-1) && s->width > 0 && s->height > 0) {
      // The source rectangle in buffer pixels: the surface's corners through
      // weston's surface-to-buffer matrix (scale, transform and viewport).
      weston_vector a{{0, 0, 0, 1}};
      weston_vector b{{static_cast<float>(s->width), static_cast<float>(s->height), 0, 1}};
      weston_matrix_transform(&s->surface_to_buffer_matrix, &a);
      weston_matrix_transform(&s->surface_to_buffer_matrix, &b);
      now.crop.set_left(static_cast<int32_t>(std::min(a.f[0], b.f[0])));
      now.crop.set_top(static_cast<int32_t>(std::min(a.f[1], b.f[1])));
      now.crop.set_right(static_cast<int32_t>(std::max(a.f[0], b.f[0])));
      now.crop.set_bottom(static_cast<int32_t>(std::max(a.f[1], b.f[1])));
    }
    // Opaque as weston composites it: a buffer without alpha, or an opaque
    // region over the whole surface.
    pixman_box32_t whole{0, 0, s->width, s->height};
    const SurfaceRecord* record = record_of(s);
    now.opaque = (record != nullptr && (record->format == fourcc('X', 'R', '2', '4') ||
                                        record->format == fourcc('X', 'B', '2', '4'))) ||
                 pixman_region32_contains_rectangle(&s->opaque, &whole) == PIXMAN_REGION_IN;
    return now;
  }

  // The differences between what was recorded and what is shown now.
  static void diff(int32_t id, const Shown& was, const Shown& now, bool first, Transaction* t) {
    auto change = [&]() {
      SurfaceChange* c = t->add_surface_change();
      c->set_id(id);
      return c;
    };
    if (first || was.hidden != now.hidden)
      change()->mutable_hidden_flag()->set_hidden_flag(now.hidden);
    if (now.hidden) return;
    if (first || was.x != now.x || was.y != now.y) {
      auto* p = change()->mutable_position();
      p->set_x(now.x);
      p->set_y(now.y);
    }
    if (first || was.w != now.w || was.h != now.h) {
      auto* sz = change()->mutable_size();
      sz->set_w(static_cast<uint32_t>(now.w));
      sz->set_h(static_cast<uint32_t>(now.h));
    }
    if (first ? now.alpha != 1 : was.alpha != now.alpha)
      change()->mutable_alpha()->set_alpha(now.alpha);
    if (now.relative_parent != 0) {
      if (first || was.relative_parent != now.relative_parent || was.relative_z != now.relative_z) {
        auto* rp = change()->mutable_relative_parent();
        rp->set_relative_parent_id(now.relative_parent);
        rp->set_z(now.relative_z);
      }
    }
    if (first || was.layer != now.layer) change()->mutable_layer()->set_layer(now.layer);
    if (first ? !same_rect(now.crop, Rectangle()) : !same_rect(was.crop, now.crop))
      *change()->mutable_crop()->mutable_rectangle() = now.crop;
    if (!std::equal(std::begin(was.matrix), std::end(was.matrix), std::begin(now.matrix))) {
      auto* m = change()->mutable_matrix();
      m->set_dsdx(now.matrix[0]);
      m->set_dtdx(now.matrix[1]);
      m->set_dtdy(now.matrix[2]);
      m->set_dsdy(now.matrix[3]);
    }
    if (first ? now.scale != 1 : was.scale != now.scale)
      change()->mutable_buffer_scale()->set_scale(now.scale);
    if (first ? now.transform != 0 : was.transform != now.transform)
      change()->mutable_buffer_transform()->set_transform(now.transform);
    if (first || was.opaque != now.opaque)
      change()->mutable_opaque_flag()->set_opaque_flag(now.opaque);
  }

  // After weston composited an output: the scene it drew (its view list,
  // top first), as the changes since the last repaint, then the VSync.
  void on_repaint(const OutputRecord& output) {
    std::vector<weston_view*> views;  // bottom first
    wl_list* head = &compositor_->view_list;
    for (wl_list* l = head->prev; l != head; l = l->prev) {
      weston_view* view = from_link<weston_view>(l, offsetof(weston_view, link));
      if (record_of(view->surface) != nullptr) views.push_back(view);
    }
    std::unordered_map<weston_surface*, int32_t> layers;
    std::vector<weston_view*> first_views;  // one per surface: a surface may have several views
    for (weston_view* view : views)
      if (layers.emplace(view->surface, static_cast<int32_t>(layers.size())).second)
        first_views.push_back(view);
    Increment inc;
    Transaction* t = inc.mutable_transaction();
    for (weston_view* view : first_views) {
      SurfaceRecord& r = *record_of(view->surface);
      announce(r);
      const Shown now = shown_of(view, layers);
      diff(r.id, r.last, now, !r.ever_shown, t);
      r.last = now;
      r.ever_shown = true;
    }
    for (auto& [surface, record] : surfaces_) {
      if (!record->ever_shown || record->last.hidden || layers.count(surface) != 0) continue;
      Shown hidden = record->last;
      hidden.hidden = true;
      diff(record->id, record->last, hidden, false, t);
      record->last = hidden;
    }
    if (t->surface_change_size() != 0) write(inc);
    Increment vsync;
    vsync.set_time_stamp(now_ns());
    vsync.mutable_vsync_event()->set_when(vsync.time_stamp());
    vsync.mutable_vsync_event()->set_display_id(output.id);
    write(vsync);
  }

  // The compositor is going away: what it still showed goes away with it.
  void finish() {
    for (auto& [surface, record] : surfaces_) {
      record->commit.remove();
      record->destroy.remove();
      if (record->announced) {
        Increment inc;
        inc.mutable_surface_deletion()->set_id(record->id);
        write(inc);
      }
    }
    surfaces_.clear();
    while (!outputs_.empty()) remove_output(outputs_.begin()->first);
    if (logger_ != nullptr) wl_protocol_logger_destroy(logger_);
    create_surface_.remove();
    output_created_.remove();
    output_destroyed_.remove();
    std::string error;
    if (!writer_.close(error)) weston_log("gltrace-surface-recorder: %s\n", error.c_str());
  }

  weston_compositor* compositor_;
  bool contents_;
  bool failed_ = false;
  bool warned_contents_ = false;
  StreamWriter writer_;
  wl_protocol_logger* logger_ = nullptr;
  Hook<Recorder> create_surface_, output_created_, output_destroyed_, destroy_;
  std::unordered_map<weston_surface*, std::unique_ptr<SurfaceRecord>> surfaces_;
  std::unordered_map<weston_output*, std::unique_ptr<OutputRecord>> outputs_;
  int32_t next_surface_id_ = 1;
  int32_t next_display_id_ = 1;
};

}  // namespace
}  // namespace gltrace::surface

extern "C" WL_EXPORT int wet_module_init(weston_compositor* compositor, int* /*argc*/,
                                         char* /*argv*/[]) {
  using gltrace::surface::Recorder;
  const char* path = std::getenv("GLTRACE_SURFACE_RECORD_FILE");
  if (path == nullptr || path[0] == '\0') {
    weston_log(
        "gltrace-surface-recorder: GLTRACE_SURFACE_RECORD_FILE is not set: nothing to record to\n");
    return -1;
  }
  const char* contents = std::getenv("GLTRACE_SURFACE_RECORD_CONTENTS");
  auto* recorder = new Recorder(compositor, contents != nullptr && std::strcmp(contents, "1") == 0);
  if (!recorder->start(path)) {
    delete recorder;
    return -1;
  }
  return 0;  // the recorder deletes itself when the compositor is destroyed
}
