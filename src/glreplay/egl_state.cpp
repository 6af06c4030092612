#include "glreplay/egl_state.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "gl_loader/call.h"
#include "glreplay/trace_source.h"

namespace gltrace::glreplay {

namespace {

// The attributes that make two configs' framebuffers the same format.
constexpr EGLint kFormatAttribs[] = {EGL_BUFFER_SIZE,  EGL_RED_SIZE,       EGL_GREEN_SIZE,
                                     EGL_BLUE_SIZE,    EGL_ALPHA_SIZE,     EGL_DEPTH_SIZE,
                                     EGL_STENCIL_SIZE, EGL_SAMPLE_BUFFERS, EGL_SAMPLES};

bool is_format_attrib(EGLint name) {
  for (EGLint a : kFormatAttribs)
    if (a == name) return true;
  return false;
}

// The attributes of a traced config (ReplayCall.config_attribs) a replay config
// must have too for the same pixels; the others (id, visual, caveat, swap
// intervals...) belong to the traced platform. Of surface types, the kinds
// of surface are the replay's own (pbuffers or its windows) and the other
// bits capabilities: the replay's config needs at least the traced one's.
struct MatchedAttrib {
  EGLint name;
  const char* text;
  EGLint absent;  // the replay's value when its driver does not know it
};
constexpr MatchedAttrib kMatchedAttribs[] = {
    {EGL_RED_SIZE, "EGL_RED_SIZE", 0},
    {EGL_GREEN_SIZE, "EGL_GREEN_SIZE", 0},
    {EGL_BLUE_SIZE, "EGL_BLUE_SIZE", 0},
    {EGL_ALPHA_SIZE, "EGL_ALPHA_SIZE", 0},
    {EGL_BUFFER_SIZE, "EGL_BUFFER_SIZE", 0},
    {EGL_LUMINANCE_SIZE, "EGL_LUMINANCE_SIZE", 0},
    {EGL_ALPHA_MASK_SIZE, "EGL_ALPHA_MASK_SIZE", 0},
    {EGL_COLOR_BUFFER_TYPE, "EGL_COLOR_BUFFER_TYPE", EGL_RGB_BUFFER},
    {EGL_COLOR_COMPONENT_TYPE_EXT, "EGL_COLOR_COMPONENT_TYPE_EXT",
     EGL_COLOR_COMPONENT_TYPE_FIXED_EXT},
    {EGL_DEPTH_SIZE, "EGL_DEPTH_SIZE", 0},
    {EGL_STENCIL_SIZE, "EGL_STENCIL_SIZE", 0},
    {EGL_SAMPLE_BUFFERS, "EGL_SAMPLE_BUFFERS", 0},
    {EGL_SAMPLES, "EGL_SAMPLES", 0},
    {EGL_RENDERABLE_TYPE, "EGL_RENDERABLE_TYPE", 0},
    {EGL_SURFACE_TYPE, "EGL_SURFACE_TYPE", 0},
};
constexpr EGLint kSurfaceKinds = EGL_WINDOW_BIT | EGL_PIXMAP_BIT | EGL_PBUFFER_BIT;

std::string attrib_value_text(EGLint name, int64_t value) {
  bool bits = name == EGL_SURFACE_TYPE || name == EGL_RENDERABLE_TYPE ||
              name == EGL_COLOR_BUFFER_TYPE || name == EGL_COLOR_COMPONENT_TYPE_EXT;
  return bits ? hex(static_cast<uint64_t>(value)) : std::to_string(value);
}

}  // namespace

EglState::EglState(gl_loader::Driver& driver, bool x11, const TraceInfo& info, Messages& messages)
    : driver_(driver), x11_windows_(x11), info_(info), messages_(messages) {
  none_.group = std::make_shared<ShareGroup>();
  bound_ = &bindings_[thread_];
}

EglState::~EglState() = default;

void EglState::set_thread(uint32_t thread) {
  thread_ = thread;
  bound_ = &bindings_[thread];
}

EGLDisplay EglState::display(std::string* error) {
  if (display_ != EGL_NO_DISPLAY || display_failed_) {
    if (display_failed_ && error != nullptr) *error = "the replay has no EGL display";
    return display_;
  }
  std::string why;
  if (x11_windows_ && !x11_.open(&why)) {
    display_failed_ = true;
  } else {
    auto platform = x11_windows_ ? gl_loader::Platform::kX11 : gl_loader::Platform::kSurfaceless;
    void* native = x11_windows_ ? x11_.display() : EGL_DEFAULT_DISPLAY;
    display_ = gl_loader::platform_display(driver_, platform, native, &why);
    display_failed_ = display_ == EGL_NO_DISPLAY;
  }
  if (display_failed_ && error != nullptr) *error = why;
  return display_;
}

// --- handles ----------------------------------------------------------------------

uint64_t EglState::map_handle(HandleKind kind, uint64_t recorded, std::string* error) {
  error->clear();
  switch (kind) {
    case HandleKind::kDisplay:
      return reinterpret_cast<uintptr_t>(display(error));
    case HandleKind::kSurface:
      return reinterpret_cast<uintptr_t>(surface(recorded, nullptr, error));
    case HandleKind::kContext: {
      if (recorded == 0) return 0;
      ReplayContext* c = context_state(recorded);
      if (c == nullptr) *error = "unknown context " + hex(recorded);
      return c != nullptr ? reinterpret_cast<uintptr_t>(c->context) : 0;
    }
    case HandleKind::kConfig:
      return reinterpret_cast<uintptr_t>(config(recorded, error));
    case HandleKind::kEglSync:
      return egl_syncs_.get(recorded);
    case HandleKind::kImage:
      // A recorded address the replay never made (its eglCreateImage could
      // not be replayed) must not reach the driver.
      if (recorded != 0 && !images_.contains(recorded))
        *error = "unknown EGL image " + hex(recorded);
      return images_.get(recorded);
    case HandleKind::kSync:
      return current().group->names[static_cast<size_t>(ObjectClass::kSync)].get(recorded);
    case HandleKind::kRaw:
      return recorded;
  }
  return recorded;
}

void EglState::define_handle(HandleKind kind, uint64_t recorded, uint64_t replayed) {
  if (recorded == 0) return;
  if (kind == HandleKind::kEglSync)
    egl_syncs_.set(recorded, replayed);
  else if (kind == HandleKind::kImage)
    images_.set(recorded, replayed);
  else if (kind == HandleKind::kSync)
    current().names_of(ObjectClass::kSync).set(recorded, replayed);
}

void EglState::forget_handle(HandleKind kind, uint64_t recorded) {
  if (kind == HandleKind::kEglSync) egl_syncs_.erase(recorded);
  if (kind == HandleKind::kImage) images_.erase(recorded);
}

// --- configs ----------------------------------------------------------------------

EGLint EglState::surface_bit() const { return x11_windows_ ? EGL_WINDOW_BIT : EGL_PBUFFER_BIT; }

std::vector<EGLint> EglState::config_attribs(const EGLint* app_list) const {
  std::vector<EGLint> out;
  for (const EGLint* a = app_list; a != nullptr && a[0] != EGL_NONE && out.size() < 256; a += 2) {
    // Native windows and visuals are the traced process's; the replay's
    // surfaces are pbuffers (or its own windows).
    if (a[0] == EGL_SURFACE_TYPE || a[0] == EGL_NATIVE_RENDERABLE ||
        a[0] == EGL_NATIVE_VISUAL_TYPE || a[0] == EGL_NATIVE_VISUAL_ID || a[0] == EGL_CONFIG_ID)
      continue;
    out.push_back(a[0]);
    out.push_back(a[1]);
  }
  out.push_back(EGL_SURFACE_TYPE);
  out.push_back(surface_bit());
  out.push_back(EGL_NONE);
  return out;
}

bool EglState::same_surface_type(const EGLint* app_list) const {
  EGLint app = EGL_WINDOW_BIT;  // EGL's default
  for (const EGLint* a = app_list; a != nullptr && a[0] != EGL_NONE; a += 2)
    if (a[0] == EGL_SURFACE_TYPE) app = a[1];
  return app == surface_bit();
}

bool EglState::config_matches(EGLConfig config, const std::map<EGLint, EGLint>& known) {
  auto get = GL_CALL(driver_, eglGetConfigAttrib);
  if (get == nullptr) return true;
  EGLint value = 0;
  if (!get(display_, config, EGL_SURFACE_TYPE, &value) || (value & surface_bit()) == 0)
    return false;
  for (const auto& [name, want] : known) {
    if (!is_format_attrib(name)) continue;
    if (!get(display_, config, name, &value) || value != want) return false;
  }
  return true;
}

// The replay config whose attributes are the traced ones (kMatchedAttribs),
// preferring the one at the app's position in its list; else the one with the
// fewest differences, and a warning that names them.
EGLConfig EglState::config_with_attribs(ConfigInfo& info, std::string* error) {
  EGLDisplay dpy = display(error);
  auto get_configs = GL_CALL(driver_, eglGetConfigs);
  auto get = GL_CALL(driver_, eglGetConfigAttrib);
  EGLint count = 0;
  if (dpy == EGL_NO_DISPLAY || get_configs == nullptr || get == nullptr ||
      !get_configs(dpy, nullptr, 0, &count) || count <= 0) {
    if (error != nullptr && error->empty()) *error = "the replay's display has no EGL config";
    return nullptr;
  }
  std::vector<EGLConfig> all(static_cast<size_t>(count));
  get_configs(dpy, all.data(), count, &count);
  all.resize(static_cast<size_t>(std::max<EGLint>(count, 0)));
  if (info.listed != nullptr) {
    auto it = std::find(all.begin(), all.end(), info.listed);
    if (it != all.end()) std::rotate(all.begin(), it, it + 1);  // tried first
  }
  std::map<EGLint, int64_t> traced;
  for (size_t k = 0; k + 1 < info.traced.size(); k += 2)
    traced[static_cast<EGLint>(info.traced[k])] = info.traced[k + 1];
  EGLConfig best = nullptr;
  std::vector<std::string> best_differences;
  int64_t best_distance = 0;
  for (EGLConfig c : all) {
    EGLint surface_type = 0;
    if (!get(dpy, c, EGL_SURFACE_TYPE, &surface_type) || (surface_type & surface_bit()) == 0)
      continue;  // the replay cannot make its surfaces with it
    std::vector<std::string> differences;
    int64_t distance = 0;
    for (const MatchedAttrib& m : kMatchedAttribs) {
      auto it = traced.find(m.name);
      if (it == traced.end()) continue;
      EGLint value = m.absent;
      if (m.name == EGL_SURFACE_TYPE) {
        value = surface_type;
      } else if (!get(dpy, c, m.name, &value)) {
        value = m.absent;
      }
      int64_t want = it->second;
      int64_t have = value;
      if (m.name == EGL_SURFACE_TYPE) {
        // Capabilities (preserved swaps, box resolves...): the replay's
        // config needs those the app's had, headless not the swap behaviour
        // (a pbuffer has one buffer, kept whatever it says).
        int64_t ignored = kSurfaceKinds | (x11_windows_ ? 0 : EGL_SWAP_BEHAVIOR_PRESERVED_BIT);
        want &= ~ignored;
        have &= want;
      } else if (m.name == EGL_RENDERABLE_TYPE) {
        // The APIs the app's config served: the replay's may serve more (a
        // GLX trace names desktop GL only; Mesa's configs serve every API).
        have &= want;
      }
      if (want == have) continue;
      differences.push_back(std::string(m.text) + " " + attrib_value_text(m.name, have) +
                            " (traced " + attrib_value_text(m.name, want) + ")");
      distance += 1000 + std::min<int64_t>(std::abs(want - have), 999);
    }
    if (best == nullptr || distance < best_distance) {
      best = c;
      best_distance = distance;
      best_differences = std::move(differences);
      if (distance == 0) break;
    }
  }
  if (best == nullptr) {
    if (error != nullptr) *error = "no replay EGL config supports its surfaces";
    return nullptr;
  }
  if (!best_differences.empty()) {
    auto id = traced.find(EGL_CONFIG_ID);
    std::string text = "no replay EGL config has all the attributes of the traced config";
    if (id != traced.end()) text += " " + std::to_string(id->second);
    text += "; using the nearest, whose";
    for (size_t k = 0; k < best_differences.size(); ++k)
      text += (k == 0 ? " " : ", ") + best_differences[k];
    messages_.warn(text + ": pixels may differ");
  }
  return info.chosen = best;
}

EGLConfig EglState::resolve_config(ConfigInfo& info, std::string* error) {
  EGLDisplay dpy = display(error);
  if (dpy == EGL_NO_DISPLAY) return nullptr;
  if (!info.traced.empty()) return config_with_attribs(info, error);
  // The same list (the same platform and driver): position k is the config
  // the app was given, unless what it learnt about it says otherwise.
  if (info.list != nullptr) {
    const ConfigList& list = *info.list;
    bool same_list =
        list.same_request && std::min(list.replayed.size(), list.asked) == list.recorded_count;
    if (same_list && info.listed != nullptr && config_matches(info.listed, info.known))
      return info.chosen = info.listed;
    // Another list (the replay's surfaces are other than the app's): the
    // first config, in the order the app saw, with what the app knew of its
    // choice. Unknown attributes then take the list's order (fewest samples
    // first).
    if (!info.known.empty()) {
      for (EGLConfig c : list.replayed)
        if (config_matches(c, info.known)) return info.chosen = c;
    } else if (info.listed != nullptr) {
      return info.chosen = info.listed;  // nothing known: its position is all there is
    }
  }
  auto get_configs = GL_CALL(driver_, eglGetConfigs);
  EGLint count = 0;
  if (get_configs != nullptr && get_configs(dpy, nullptr, 0, &count) && count > 0) {
    std::vector<EGLConfig> all(static_cast<size_t>(count));
    get_configs(dpy, all.data(), count, &count);
    auto get = GL_CALL(driver_, eglGetConfigAttrib);
    for (EGLint k = 0; k < count && info.chosen == nullptr; ++k) {
      EGLint renderable = 0;
      if (get != nullptr && get(dpy, all[k], EGL_RENDERABLE_TYPE, &renderable) &&
          (renderable & EGL_OPENGL_ES2_BIT) != 0 && config_matches(all[k], info.known))
        info.chosen = all[k];
    }
    if (info.chosen == nullptr) {
      info.chosen = info.listed != nullptr ? info.listed : all[0];
      std::string known;
      for (const auto& [name, value] : info.known)
        if (is_format_attrib(name))
          known += " " + hex(static_cast<uint64_t>(name)) + "=" + std::to_string(value);
      messages_.report("no replay EGL config has the recorded config's format (" + known +
                       " ); using another one: pixels may differ");
    }
  }
  if (info.chosen == nullptr && error != nullptr) *error = "no EGL config";
  return info.chosen;
}

EGLConfig EglState::config(uint64_t recorded, std::string* error) {
  if (recorded == 0) return nullptr;
  ConfigInfo& info = configs_[recorded];
  if (info.chosen != nullptr) return info.chosen;
  return resolve_config(info, error);
}

EGLConfig EglState::config(uint64_t recorded, std::span<const int64_t> traced_attribs,
                           std::string* error) {
  if (recorded != 0 && !traced_attribs.empty()) {
    ConfigInfo& info = configs_[recorded];
    if (info.traced.empty()) info.traced.assign(traced_attribs.begin(), traced_attribs.end());
  }
  return config(recorded, error);
}

// --- surfaces -----------------------------------------------------------------------

SurfaceState* EglState::surface_state(uint64_t recorded) {
  auto it = surfaces_.find(recorded);
  return it != surfaces_.end() ? it->second.get() : nullptr;
}

void EglState::add_surface(uint64_t recorded, std::unique_ptr<SurfaceState> surface) {
  surfaces_[recorded] = std::move(surface);
}

EGLSurface EglState::surface(uint64_t recorded, const ContextInfo* size_hint, std::string* error,
                             uint32_t width, uint32_t height) {
  if (recorded == 0) return EGL_NO_SURFACE;
  SurfaceState* s = surface_state(recorded);
  if (s == nullptr) {
    *error = "unknown surface " + hex(recorded);
    return EGL_NO_SURFACE;
  }
  if (s->surface != EGL_NO_SURFACE || !s->window) return s->surface;
  // An app window, made now that its size is known: the size recorded with
  // the call that binds it, else its size when it was created, or the context
  // record of its first eglMakeCurrent (older traces).
  if ((width == 0 || height == 0) && s->width != 0 && s->height != 0) {
    width = s->width;
    height = s->height;
  }
  if (width == 0 || height == 0) {
    std::optional<ContextInfo> fallback;
    if (size_hint == nullptr || size_hint->surface_width == 0) {
      fallback = info_.last_sized_context();
      size_hint = fallback.has_value() ? &*fallback : nullptr;
    }
    if (size_hint == nullptr) {
      *error = "the trace holds no size for window surface " + hex(recorded);
      return EGL_NO_SURFACE;
    }
    width = size_hint->surface_width;
    height = size_hint->surface_height;
  }
  s->width = width;
  s->height = height;
  make_window_surface(*s, recorded, error);
  return s->surface;
}

// The replay's surface for an app window, of s.width x s.height.
bool EglState::make_window_surface(SurfaceState& s, uint64_t recorded, std::string* error) {
  EGLConfig config = this->config(s.config, error);
  if (config == nullptr) return false;
  EGLDisplay dpy = display(error);
  std::vector<EGLint> attribs;
  if (x11_windows_) {
    EGLint visual = 0;
    auto get = GL_CALL(driver_, eglGetConfigAttrib);
    if (get != nullptr) get(dpy, config, EGL_NATIVE_VISUAL_ID, &visual);
    if (!x11_.create_window(s.width, s.height, visual, &s.x_window, error)) return false;
    attribs = s.attribs;
    attribs.push_back(EGL_NONE);
    auto create = GL_CALL(driver_, eglCreateWindowSurface);
    if (create != nullptr)
      s.surface =
          create(dpy, config, static_cast<EGLNativeWindowType>(s.x_window.window), attribs.data());
  } else {
    attribs = {EGL_WIDTH, static_cast<EGLint>(s.width), EGL_HEIGHT, static_cast<EGLint>(s.height)};
    attribs.insert(attribs.end(), s.attribs.begin(), s.attribs.end());
    attribs.push_back(EGL_NONE);
    auto create = GL_CALL(driver_, eglCreatePbufferSurface);
    if (create != nullptr) s.surface = create(dpy, config, attribs.data());
  }
  if (s.surface != EGL_NO_SURFACE) return true;
  auto get_error = GL_CALL(driver_, eglGetError);
  char message[96];
  snprintf(message, sizeof message, "cannot make a %ux%u %s for window surface ", s.width, s.height,
           x11_windows_ ? "window" : "pbuffer");
  *error =
      message + hex(recorded) +
      (get_error != nullptr ? " (EGL error " + hex(static_cast<uint64_t>(get_error())) + ")" : "");
  return false;
}

bool EglState::resize_surface(uint64_t recorded, uint32_t width, uint32_t height,
                              std::string* error) {
  SurfaceState* s = surface_state(recorded);
  if (s == nullptr || !s->window || s->surface == EGL_NO_SURFACE || width == 0 || height == 0 ||
      (s->width == width && s->height == height))
    return true;  // an app pbuffer keeps its size; a window not made yet is made at this size
  if (x11_windows_) {
    // The driver sizes the window's buffers at the next draw, as it did for the app.
    if (!x11_.resize_window(s->x_window, width, height, error)) return false;
    s->width = width;
    s->height = height;
    return true;
  }
  // A pbuffer keeps its size: a new one, bound where the old one was.
  EGLSurface old = s->surface;
  uint32_t old_width = s->width, old_height = s->height;
  s->surface = EGL_NO_SURFACE;
  s->width = width;
  s->height = height;
  if (!make_window_surface(*s, recorded, error)) {
    s->surface = old;
    s->width = old_width;
    s->height = old_height;
    return false;
  }
  Binding& b = *bound_;
  if (b.context != nullptr && (b.surface == old || b.read_surface == old)) {
    EGLSurface draw = b.surface == old ? s->surface : b.surface;
    EGLSurface read = b.read_surface == old ? s->surface : b.read_surface;
    auto make_current = GL_CALL(driver_, eglMakeCurrent);
    if (make_current == nullptr || !make_current(display_, draw, read, b.context->context)) {
      *error = "cannot make the context current with the resized pbuffer";
      return false;
    }
    b.surface = draw;
    b.read_surface = read;
  }
  auto destroy = GL_CALL(driver_, eglDestroySurface);
  if (destroy != nullptr) destroy(display_, old);
  return true;
}

void EglState::fit_draw_surface(uint32_t width, uint32_t height) {
  if (bound_->draw == 0) return;
  std::string error;
  if (!resize_surface(bound_->draw, width, height, &error))
    messages_.report("cannot resize window surface " + hex(bound_->draw) + " to " +
                     std::to_string(width) + "x" + std::to_string(height) + ": " + error);
}

void EglState::destroy_surface(uint64_t recorded) {
  auto it = surfaces_.find(recorded);
  if (it == surfaces_.end()) return;
  auto destroy = GL_CALL(driver_, eglDestroySurface);
  if (it->second->surface != EGL_NO_SURFACE && destroy != nullptr)
    destroy(display_, it->second->surface);
  if (it->second->x_window.window != 0) x11_.destroy_window(&it->second->x_window);
  surfaces_.erase(it);
}

// --- contexts -----------------------------------------------------------------------

ReplayContext* EglState::context_state(uint64_t recorded) {
  auto it = contexts_.find(recorded);
  return it != contexts_.end() ? it->second.get() : nullptr;
}

void EglState::add_context(uint64_t recorded, std::shared_ptr<ReplayContext> context) {
  contexts_[recorded] = std::move(context);
}

void EglState::destroy_context(uint64_t recorded) {
  auto it = contexts_.find(recorded);
  if (it == contexts_.end()) return;
  auto destroy = GL_CALL(driver_, eglDestroyContext);
  if (destroy != nullptr) destroy(display_, it->second->context);
  contexts_.erase(it);  // a binding keeps it while it is current, as EGL does
}

void EglState::make_current(uint64_t recorded_context, uint64_t recorded_draw, EGLSurface draw,
                            uint64_t recorded_read, EGLSurface read) {
  auto it = contexts_.find(recorded_context);
  Binding& b = *bound_;
  b.context = it != contexts_.end() ? it->second : nullptr;
  b.draw = b.context != nullptr ? recorded_draw : 0;
  b.surface = b.context != nullptr ? draw : EGL_NO_SURFACE;
  b.read = b.context != nullptr ? recorded_read : 0;
  b.read_surface = b.context != nullptr ? read : EGL_NO_SURFACE;
}

// --- teardown ---------------------------------------------------------------------

std::vector<CurrentBinding> EglState::current_bindings() const {
  std::vector<CurrentBinding> list;
  for (const auto& [thread, binding] : bindings_)
    if (binding.context != nullptr)
      list.push_back({thread, binding.context->recorded, binding.draw, binding.read,
                      binding.context->group.get()});
  std::sort(list.begin(), list.end(),
            [](const CurrentBinding& a, const CurrentBinding& b) { return a.thread < b.thread; });
  return list;
}

void EglState::release_thread() {
  auto make_current = GL_CALL(driver_, eglMakeCurrent);
  auto release = GL_CALL(driver_, eglReleaseThread);
  if (display_ != EGL_NO_DISPLAY && make_current != nullptr)
    make_current(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (release != nullptr) release();
}

void EglState::reset() {
  if (display_ != EGL_NO_DISPLAY) {
    auto make_current = GL_CALL(driver_, eglMakeCurrent);
    if (make_current != nullptr)
      make_current(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  }
  // Contexts current on other replay threads are destroyed once those
  // threads release them (EGL defers it); their bindings go now.
  bindings_.clear();
  bound_ = &bindings_[thread_];
  while (!contexts_.empty()) destroy_context(contexts_.begin()->first);
  while (!surfaces_.empty()) destroy_surface(surfaces_.begin()->first);
  configs_.clear();
  egl_syncs_.clear();
  images_.clear();
  none_ = ReplayContext{};
  none_.group = std::make_shared<ShareGroup>();
}

void EglState::shutdown() {
  reset();
  if (display_ != EGL_NO_DISPLAY) {
    auto terminate = GL_CALL(driver_, eglTerminate);
    auto release = GL_CALL(driver_, eglReleaseThread);
    if (terminate != nullptr) terminate(display_);
    if (release != nullptr) release();
    display_ = EGL_NO_DISPLAY;
  }
  x11_.close();
}

bool EglState::current_draw_surface_opaque() const {
  auto surface = surfaces_.find(bound_->draw);
  if (surface == surfaces_.end()) return false;
  auto config = configs_.find(surface->second->config);
  if (config == configs_.end()) return false;
  const ConfigInfo& info = config->second;
  for (size_t i = 0; i + 1 < info.traced.size(); i += 2)
    if (info.traced[i] == EGL_ALPHA_SIZE) return info.traced[i + 1] == 0;
  auto known = info.known.find(EGL_ALPHA_SIZE);
  return known != info.known.end() && known->second == 0;
}

}  // namespace gltrace::glreplay
