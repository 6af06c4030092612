// The replay's EGL state: its display, the recorded configs, surfaces and
// contexts and what each is in the replay, EGL syncs and images, and what
// each recorded thread has current (EGL keeps that per thread; the replay
// keeps it per recorded thread). Each recorded thread replays on a thread of
// its own, one call at a time in recorded order, so nothing here needs a
// lock (release_thread() excepted, which touches no map).
#pragma once

// No prototypes: every EGL function is the driver's, reached through gl_loader.
#ifndef EGL_EGL_PROTOTYPES
#define EGL_EGL_PROTOTYPES 0
#endif
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/fixed_arrays.h"
#include "gl_loader/gl_loader.h"
#include "glreplay/call.h"
#include "glreplay/handle_maps.h"
#include "glreplay/messages.h"
#include "glreplay/x11.h"

namespace gltrace::glreplay {

class TraceInfo;

inline constexpr int kMaxAttribs = 32;

// The app's last glVertexAttrib[I]Pointer of an attribute of VAO 0, for
// client arrays: a draw's recorded data is pointed at with these.
struct VertexPointer {
  int32_t size = 4;
  uint32_t type = 0x1406;  // GL_FLOAT
  bool normalized = false;
  bool integer = false;
  bool client = false;  // points at client memory (VAO 0, no array buffer)
  Bytes data;           // the client array now pointed at, kept alive
};

struct Mapping {
  uint32_t target = 0;  // 0: a named buffer's mapping
  uint32_t buffer = 0;  // then the buffer, as recorded
  uint8_t* pointer = nullptr;
  int64_t offset = 0;
  int64_t length = 0;
};

// One recorded context as the replay made it (the trace layer's own record
// of an app's context is trace::TracedContext).
struct ReplayContext {
  EGLContext context = EGL_NO_CONTEXT;
  uint64_t recorded = 0;
  uint64_t config = 0;  // recorded (a GLX window made current as it is takes it)
  int client_version = 2;
  std::shared_ptr<ShareGroup> group;
  NameMap names[static_cast<size_t>(ObjectClass::kCount)];  // containers only
  uint64_t program = 0;                                     // recorded, glUseProgram
  LocationMap attributes;  // the last glGetAttribLocation answers, any program
  VertexPointer pointers[kMaxAttribs];
  VertexPointer fixed[fixed_arrays::kSlots];  // GLES 1's arrays (glVertexPointer...)
  std::vector<Mapping> mappings;

  // The map of this class of names: the context's own for containers, its
  // share group's for the others.
  NameMap& names_of(ObjectClass cls) {
    auto index = static_cast<size_t>(cls);
    return is_container(cls) ? names[index] : group->names[index];
  }
};

// A context current on a recorded thread, and its surfaces (recorded).
struct CurrentBinding {
  uint32_t thread = 0;
  uint64_t context = 0;
  uint64_t draw = 0;
  uint64_t read = 0;
  const ShareGroup* group = nullptr;
};

struct SurfaceState {
  EGLSurface surface = EGL_NO_SURFACE;
  bool window = false;          // an app window: made at first use, of the recorded size
  uint64_t config = 0;          // recorded
  std::vector<EGLint> attribs;  // kept for a window made later
  uint32_t width = 0, height = 0;
  X11Window x_window;
};

// One eglChooseConfig / eglGetConfigs answer: the replay's whole list, and
// how long the recorded one was.
struct ConfigList {
  std::vector<EGLConfig> replayed;
  size_t asked = 0;  // the app's config_size
  size_t recorded_count = 0;
  // The replay asked for what the app asked (the same surface type): the
  // lists are the same when the platform is.
  bool same_request = false;
};

// A recorded EGLConfig: the replay config at its position in the list it
// came from, and what the app learnt about it (eglGetConfigAttrib answers),
// to check the two agree.
struct ConfigInfo {
  EGLConfig listed = nullptr;
  std::shared_ptr<const ConfigList> list;
  std::map<EGLint, EGLint> known;
  // All its attributes, as the trace recorded them with the calls that used
  // it (ReplayCall.config_attribs; empty in older traces): when known, the replay
  // config is the one whose attributes are the same.
  std::vector<int64_t> traced;
  EGLConfig chosen = nullptr;  // once resolved
};

class EglState {
 public:
  // x11: X11 windows instead of pbuffers. info: the trace's context records
  // (window sizes); messages: where config and surface problems go.
  EglState(gl_loader::Driver& driver, bool x11, const TraceInfo& info, Messages& messages);
  ~EglState();
  EglState(const EglState&) = delete;
  EglState& operator=(const EglState&) = delete;

  // The recorded thread of the call about to run; borrowed: it runs on
  // another recorded thread's replay thread (see Session::set_call), sees no
  // binding and makes none.
  void bind_call(uint32_t thread, bool borrowed) {
    if (borrowed) {
      borrowed_ = {};
      bound_ = &borrowed_;
    } else if (bound_ == &borrowed_ || thread != thread_) {
      set_thread(thread);
    }
  }
  bool borrowed() const { return bound_ == &borrowed_; }
  void set_thread(uint32_t thread);

  // The replay's display, opened and initialized at first use; EGL_NO_DISPLAY
  // with *error when that fails.
  EGLDisplay display(std::string* error = nullptr);

  // EGL handles (GL syncs are names of the current share group).
  uint64_t map_handle(HandleKind kind, uint64_t recorded, std::string* error);
  void define_handle(HandleKind kind, uint64_t recorded, uint64_t replayed);
  void forget_handle(HandleKind kind, uint64_t recorded);

  // Configs: see Session::config.
  EGLConfig config(uint64_t recorded, std::string* error);
  EGLConfig config(uint64_t recorded, std::span<const int64_t> traced_attribs, std::string* error);
  ConfigInfo& config_info(uint64_t recorded) { return configs_[recorded]; }
  std::vector<EGLint> config_attribs(const EGLint* app_list) const;
  bool same_surface_type(const EGLint* app_list) const;

  // Surfaces: see Session::surface.
  SurfaceState* surface_state(uint64_t recorded);
  EGLSurface surface(uint64_t recorded, const ContextInfo* size_hint, std::string* error,
                     uint32_t width = 0, uint32_t height = 0);
  bool resize_surface(uint64_t recorded, uint32_t width, uint32_t height, std::string* error);
  void fit_draw_surface(uint32_t width, uint32_t height);
  void add_surface(uint64_t recorded, std::unique_ptr<SurfaceState> surface);
  void destroy_surface(uint64_t recorded);

  // Contexts and what the running thread has current.
  ReplayContext* context_state(uint64_t recorded);
  void add_context(uint64_t recorded, std::shared_ptr<ReplayContext> context);
  void destroy_context(uint64_t recorded);
  void make_current(uint64_t recorded_context, uint64_t recorded_draw, EGLSurface draw,
                    uint64_t recorded_read = 0, EGLSurface read = EGL_NO_SURFACE);
  // The current context's state (a placeholder when none is current).
  ReplayContext& current() { return bound_->context != nullptr ? *bound_->context : none_; }
  bool has_current() const { return bound_->context != nullptr; }
  uint64_t current_draw() const { return bound_->draw; }
  uint64_t current_read() const { return bound_->read; }
  EGLSurface current_draw_surface() const { return bound_->surface; }
  EGLSurface current_read_surface() const { return bound_->read_surface; }
  uint64_t current_context() const { return bound_->context ? bound_->context->recorded : 0; }
  // Whether the app's current draw surface had no alpha channel (its traced
  // config's EGL_ALPHA_SIZE was 0): what the app showed was opaque, whatever
  // the replay's config, which may have alpha, holds there.
  bool current_draw_surface_opaque() const;

  // What each recorded thread has current, by thread (see Session).
  std::vector<CurrentBinding> current_bindings() const;
  // See Session::release_thread.
  void release_thread();
  // Ends every context and surface and forgets every handle.
  void reset();
  // As reset(), and the display too.
  void shutdown();

 private:
  EGLConfig resolve_config(ConfigInfo& info, std::string* error);
  EGLConfig config_with_attribs(ConfigInfo& info, std::string* error);
  bool make_window_surface(SurfaceState& s, uint64_t recorded, std::string* error);
  bool config_matches(EGLConfig config, const std::map<EGLint, EGLint>& known);
  EGLint surface_bit() const;

  gl_loader::Driver& driver_;
  bool x11_windows_;
  const TraceInfo& info_;
  Messages& messages_;

  EGLDisplay display_ = EGL_NO_DISPLAY;
  bool display_failed_ = false;
  X11Display x11_;

  std::unordered_map<uint64_t, ConfigInfo> configs_;
  std::unordered_map<uint64_t, std::unique_ptr<SurfaceState>> surfaces_;
  std::unordered_map<uint64_t, std::shared_ptr<ReplayContext>> contexts_;
  NameMap egl_syncs_;
  NameMap images_;
  // What a recorded thread has current.
  struct Binding {
    std::shared_ptr<ReplayContext> context;
    uint64_t draw = 0;  // recorded
    EGLSurface surface = EGL_NO_SURFACE;
    uint64_t read = 0;  // recorded
    EGLSurface read_surface = EGL_NO_SURFACE;
  };
  std::unordered_map<uint32_t, Binding> bindings_;  // by recorded thread
  uint32_t thread_ = 0;
  Binding* bound_ = nullptr;  // bindings_[thread_] (nodes do not move), or borrowed_
  Binding borrowed_;          // a borrowed call's: always empty
  ReplayContext none_;        // GL calls with no context current land here
};

}  // namespace gltrace::glreplay
