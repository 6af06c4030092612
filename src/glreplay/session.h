// The replay's state, composed of the real driver, the EGL state (EglState:
// display, configs, surfaces, contexts, per-thread bindings), the maps from
// recorded GL names and program locations to the replay's own (handle_maps.h,
// ProgramResources, kept per context and share group), the messages and the
// frame count. Used by the generated calls (through Args) and the
// hand-written EGL calls. Each recorded thread replays on a thread of its
// own, one call at a time in recorded order (the engine's
// kTargetThreadInOrder), so the maps need no lock.
#pragma once

// No prototypes: every EGL function is the driver's, reached through gl_loader.
#ifndef EGL_EGL_PROTOTYPES
#define EGL_EGL_PROTOTYPES 0
#endif
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gl_loader/gl_loader.h"
#include "glreplay/call.h"
#include "glreplay/egl_state.h"
#include "glreplay/handle_maps.h"
#include "glreplay/messages.h"

namespace gltrace::glreplay {

class TraceInfo;
class RequirementsCheck;

struct SessionOptions {
  bool x11 = false;  // X11 windows instead of pbuffers
  bool stop_on_error = false;
  size_t max_messages = 50;          // error lines printed before they are only counted
  std::string program = "glreplay";  // prefixes messages
  std::string driver_dir;            // --driver: where libEGL.so.1 and libGLESv2.so.2 are
  bool outcomes = false;             // --outcomes: calls keep what they answered (Args)
};

// RGBA8 pixels read from a surface whose traced config had no alpha: each
// alpha becomes 255, as the app's own read-back got it, whatever alpha the
// replay's config kept there.
inline void make_opaque(std::vector<uint8_t>* rgba) {
  for (size_t i = 3; i < rgba->size(); i += 4) (*rgba)[i] = 255;
}

class Session {
 public:
  Session(SessionOptions options, std::shared_ptr<TraceInfo> info);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Loads the driver. False with *error.
  bool init(std::string* error);

  // The real driver: GL_CALL(session.gl(), name) (gl_loader/call.h), or by
  // id as the generated calls do.
  gl_loader::Driver& gl() { return driver_; }
  void* proc(uint32_t id) { return driver_.proc(id); }
  const SessionOptions& options() const { return options_; }
  TraceInfo& info() { return *info_; }

  // The call being replayed (for messages and size hints); its thread's
  // current context becomes current().
  const ReplayCall* call() const { return call_; }
  // borrowed: the call runs on another recorded thread's replay thread,
  // because its own thread has had no context current yet (TraceSource
  // routes it so): it sees no binding and makes none.
  void set_call(const ReplayCall* call, bool borrowed = false) {
    call_ = call;
    messages_.set_call(call);
    if (call != nullptr) egl_.bind_call(call->thread, borrowed);
  }
  bool borrowed() const { return egl_.borrowed(); }
  // The recorded thread running now (on its own replay thread), for what
  // runs outside a call (snapshots, the manual console's info).
  void set_thread(uint32_t thread) { egl_.set_thread(thread); }

  // The replay's display, opened and initialized at first use; EGL_NO_DISPLAY
  // with *error when that fails.
  EGLDisplay display(std::string* error = nullptr) { return egl_.display(error); }

  // --- handles -----------------------------------------------------------------
  uint64_t map_name(ObjectClass cls, uint64_t recorded);
  // The other way, in the current context: the recorded name of a replay
  // name (what the app called it). A name the replay never remapped is its
  // own (as map_name() passes it through); nullopt when the replay name
  // belongs to another recorded one, or is 0.
  std::optional<uint64_t> recorded_name(ObjectClass cls, uint64_t replayed);
  // Whether the trace defined this recorded name in the current context.
  bool defines_name(ObjectClass cls, uint64_t recorded);
  void define_name(ObjectClass cls, uint64_t recorded, uint64_t replayed);
  // The app deleted the name (its mapping stays: see NameMap::mark_deleted).
  void mark_deleted(ObjectClass cls, uint64_t recorded) {
    if (recorded == 0) return;
    NameMap& names = current().names_of(cls);
    if (cls == ObjectClass::kTexture && names.contains(recorded))
      current().group->compressed.forget(nullptr, static_cast<GLuint>(names.get(recorded)));
    names.mark_deleted(recorded);
  }
  uint64_t map_handle(HandleKind kind, uint64_t recorded, std::string* error) {
    return egl_.map_handle(kind, recorded, error);
  }
  void define_handle(HandleKind kind, uint64_t recorded, uint64_t replayed) {
    egl_.define_handle(kind, recorded, replayed);
  }
  void forget_handle(HandleKind kind, uint64_t recorded) { egl_.forget_handle(kind, recorded); }

  // The replay config for a recorded one: the one with the same attributes
  // when the trace recorded them (the nearest, with a warning naming what
  // differs, when none has them all); else the one it was listed as, unless
  // what the app learnt about it says otherwise.
  EGLConfig config(uint64_t recorded, std::string* error) { return egl_.config(recorded, error); }
  // As config(), first noting the attributes a call recorded for it.
  EGLConfig config(uint64_t recorded, std::span<const int64_t> traced_attribs, std::string* error) {
    return egl_.config(recorded, traced_attribs, error);
  }
  ConfigInfo& config_info(uint64_t recorded) { return egl_.config_info(recorded); }
  // What an eglChooseConfig asks for, made to fit the replay's surfaces.
  std::vector<EGLint> config_attribs(const EGLint* app_list) const {
    return egl_.config_attribs(app_list);
  }
  // Whether config_attribs(app_list) asks for the surface type the app did.
  bool same_surface_type(const EGLint* app_list) const { return egl_.same_surface_type(app_list); }

  // Surfaces: window ones are made at first use, sized from the trace
  // (width, height: the size recorded with that call, 0 for none; then the
  // context record's size_hint).
  SurfaceState* surface_state(uint64_t recorded) { return egl_.surface_state(recorded); }
  EGLSurface surface(uint64_t recorded, const ContextInfo* size_hint, std::string* error,
                     uint32_t width = 0, uint32_t height = 0) {
    return egl_.surface(recorded, size_hint, error, width, height);
  }
  // The replay surface of an app window made this size (a new pbuffer,
  // current again wherever this thread had the old one; or its X11 window
  // resized). False with *error.
  bool resize_surface(uint64_t recorded, uint32_t width, uint32_t height, std::string* error) {
    return egl_.resize_surface(recorded, width, height, error);
  }
  // The current draw surface, when it is an app window, made this size.
  void fit_draw_surface(uint32_t width, uint32_t height) { egl_.fit_draw_surface(width, height); }
  void add_surface(uint64_t recorded, std::unique_ptr<SurfaceState> surface) {
    egl_.add_surface(recorded, std::move(surface));
  }
  void destroy_surface(uint64_t recorded) { egl_.destroy_surface(recorded); }

  // Contexts.
  ReplayContext* context_state(uint64_t recorded) { return egl_.context_state(recorded); }
  void add_context(uint64_t recorded, std::shared_ptr<ReplayContext> context) {
    egl_.add_context(recorded, std::move(context));
  }
  void destroy_context(uint64_t recorded) { egl_.destroy_context(recorded); }
  void make_current(uint64_t recorded_context, uint64_t recorded_draw, EGLSurface draw,
                    uint64_t recorded_read = 0, EGLSurface read = EGL_NO_SURFACE) {
    egl_.make_current(recorded_context, recorded_draw, draw, recorded_read, read);
  }
  // The current context's state (a placeholder when none is current).
  ReplayContext& current() { return egl_.current(); }
  bool has_current() const { return egl_.has_current(); }
  uint64_t current_draw() const { return egl_.current_draw(); }
  uint64_t current_read() const { return egl_.current_read(); }
  EGLSurface current_draw_surface() const { return egl_.current_draw_surface(); }
  bool current_draw_surface_opaque() const { return egl_.current_draw_surface_opaque(); }
  EGLSurface current_read_surface() const { return egl_.current_read_surface(); }
  // The recorded context current on the running thread (0 for none).
  uint64_t current_context() const { return egl_.current_context(); }

  // Uniform and attribute locations.
  int64_t uniform_location(uint64_t recorded_program, int64_t recorded_location);
  void define_uniform_location(uint64_t recorded_program, int64_t recorded, int64_t replayed);
  // Indices of a program's resources (GL_UNIFORM_BLOCK, GL_SHADER_STORAGE_BLOCK,
  // any glGetProgramResourceIndex interface): another driver numbers them its
  // own way. What was never asked for maps to itself.
  uint64_t resource_index(uint64_t recorded_program, uint32_t interface, uint64_t recorded);
  void define_resource_index(uint64_t recorded_program, uint32_t interface, uint64_t recorded,
                             uint64_t replayed);
  // The recorded location of a replay uniform location of a recorded
  // program (the replay's own when the app never asked for it).
  int64_t recorded_uniform_location(uint64_t recorded_program, int64_t replayed);
  int64_t attrib_location(int64_t recorded);
  void define_attrib_location(uint64_t recorded_program, int64_t recorded, int64_t replayed);
  void forget_program(uint64_t recorded_program);

  // --- errors --------------------------------------------------------------------
  // "call N: message" on stderr (the first max_messages of them) and counted.
  void report(const std::string& message) { messages_.report(message); }
  // "call N (FUNCTION): warning: message" on stderr, not counted: something
  // that may make pixels differ.
  void warn(const std::string& message) { messages_.warn(message); }
  uint64_t errors() const { return messages_.errors(); }

  // The running call's result differs from the trace's: warned for the
  // first few calls of each function, counted for all.
  // `as_enum`: the values are enums (else numbers); `detail`: what the
  // driver said besides (an info log), or empty.
  void note_divergent_result(uint64_t recorded, uint64_t replayed, bool as_enum,
                             const std::string& detail);
  uint64_t divergent_results() const { return divergent_results_; }
  // --outcomes: which queries (replay names) are timers (Args::begin_query).
  void note_query_target(uint64_t query, uint32_t target);
  bool is_timer_query(uint64_t query) const {
    auto it = timer_queries_.find(query);
    return it != timer_queries_.end() && it->second;
  }

  // The driver's GL strings, read at the first context made current (a
  // context of the replay's is current); empty until then.
  // Also checks what the trace needs against the driver (warnings on
  // stderr) at the first ES context, when a check was set.
  void note_driver();
  const std::optional<DriverStrings>& driver_strings() const { return driver_strings_; }
  void set_requirements_check(std::shared_ptr<RequirementsCheck> check) {
    requirements_check_ = std::move(check);
  }
  // Also hands each report() and warn() line ("call N: message") to `hook`
  // (the state worker lists them in its replies).
  void set_message_hook(std::function<void(const std::string&)> hook) {
    messages_.set_hook(std::move(hook));
  }

  // --- frames --------------------------------------------------------------------
  uint64_t frame() const { return frame_; }
  // Called at each swap before the buffers are swapped (their content is
  // undefined after), with the frame number it ends.
  void set_swap_hook(std::function<void(uint64_t frame)> hook) { swap_hook_ = std::move(hook); }
  void before_swap() {
    if (swap_hook_) swap_hook_(frame_);
  }
  void next_frame() { ++frame_; }
  // What a read-back covers, as the trace layer reads it: the draw surface
  // whole (swaps), the bound draw framebuffer within the viewport (after
  // draws), or at a glFinish that ends a frame the surface when framebuffer
  // 0 is bound and else the bound one within the viewport.
  enum class ReadArea { kSurface, kViewport, kFinish };
  // Reads it (RGBA8, bottom row first); false when it cannot. The GL state
  // it touches is put back.
  bool read_framebuffer(std::vector<uint8_t>* pixels, uint32_t* width, uint32_t* height,
                        std::string* error, ReadArea area = ReadArea::kSurface);

  // What each recorded thread has current, by thread (parked replays only:
  // the replay threads change it).
  std::vector<CurrentBinding> current_bindings() const { return egl_.current_bindings(); }

  // On a replay thread that ends: releases its current context there (EGL
  // keeps a context current on a thread until that thread lets it go). Safe
  // on several threads at once: it touches no map.
  void release_thread() { egl_.release_thread(); }

  // Ends every context and surface and forgets every map (loop passes).
  void reset() {
    egl_.reset();
    frame_ = 0;
  }
  // As reset(), and the display too.
  void shutdown() {
    egl_.shutdown();
    frame_ = 0;
  }

 private:
  SessionOptions options_;
  std::shared_ptr<TraceInfo> info_;
  gl_loader::Driver driver_;
  Messages messages_;
  EglState egl_;
  const ReplayCall* call_ = nullptr;
  uint64_t frame_ = 0;
  std::function<void(uint64_t)> swap_hook_;
  std::optional<DriverStrings> driver_strings_;
  std::shared_ptr<RequirementsCheck> requirements_check_;
  std::map<uint32_t, uint64_t> divergent_by_function_;
  uint64_t divergent_results_ = 0;
  std::unordered_map<uint64_t, bool> timer_queries_;
};

}  // namespace gltrace::glreplay
