// The replay's state: the real driver, the replay's EGL display, surfaces
// and contexts, and every map from a recorded handle, object name or
// location to the replay's own. Used by the generated calls (through Args)
// and the hand-written EGL calls. Each recorded thread replays on a thread
// of its own, one call at a time in recorded order (the engine's
// kTargetThreadInOrder), so the maps need no lock; what EGL keeps per thread
// (the current context and surface) is kept per recorded thread here.
#pragma once

// No prototypes: every EGL function is the driver's, reached through Driver.
#ifndef EGL_EGL_PROTOTYPES
#define EGL_EGL_PROTOTYPES 0
#endif
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "glreplay/call.h"
#include "glreplay/driver.h"
#include "glreplay/x11.h"

namespace gltrace::glreplay {

// "0x..." of a recorded value, for messages.
std::string hex(uint64_t value);

class TraceInfo;

// GL object namespaces, from the registry's class= (programs and shaders
// share one).
enum class ObjectClass : uint8_t {
  kBuffer,
  kTexture,
  kProgram,
  kRenderbuffer,
  kSampler,
  kSync,  // GLsync: pointers, shared like the others
  // Container objects: per context, not shared.
  kFramebuffer,
  kVertexArray,
  kTransformFeedback,
  kQuery,
  kProgramPipeline,
  kCount,
};

enum class HandleKind : uint8_t {
  kDisplay,
  kSurface,
  kContext,
  kConfig,
  kEglSync,
  kImage,
  kSync,
  kRaw
};

// Recorded value -> replay value; what was never defined maps to itself
// (GL names an app did not generate, 0). GL names are small and dense: those
// below kDenseLimit are looked up in a vector (a hash lookup per name was a
// visible share of a replay's own cost), the rest (EGL handles) in a map.
class NameMap {
 public:
  uint64_t get(uint64_t recorded) const {
    if (recorded == 0) return 0;
    if (recorded < dense_.size()) {
      uint64_t replayed = dense_[recorded];
      return replayed != kUnset ? replayed : recorded;
    }
    if (recorded < kDenseLimit) return recorded;
    auto it = sparse_.find(recorded);
    return it != sparse_.end() ? it->second : recorded;
  }
  void set(uint64_t recorded, uint64_t replayed) {
    if (recorded >= kDenseLimit) {
      sparse_[recorded] = replayed;
      return;
    }
    if (recorded >= dense_.size())
      dense_.resize(std::max<size_t>(recorded + 1, dense_.size() * 2), kUnset);
    dense_[recorded] = replayed;
  }
  void erase(uint64_t recorded) {
    if (recorded < dense_.size())
      dense_[recorded] = kUnset;
    else
      sparse_.erase(recorded);
  }
  // The recorded value that maps to `replayed` (a linear search: for the
  // state worker's replies, never on the replay's path); nullopt when none
  // does.
  std::optional<uint64_t> recorded_of(uint64_t replayed) const {
    for (size_t i = 1; i < dense_.size(); ++i)
      if (dense_[i] == replayed) return i;
    for (const auto& [recorded, value] : sparse_)
      if (value == replayed) return recorded;
    return std::nullopt;
  }
  bool contains(uint64_t recorded) const {
    if (recorded < kDenseLimit) return recorded < dense_.size() && dense_[recorded] != kUnset;
    return sparse_.count(recorded) != 0;
  }
  void clear() {
    dense_.clear();
    sparse_.clear();
  }

 private:
  static constexpr uint64_t kDenseLimit = 1 << 16;  // 512 KiB at most per map
  static constexpr uint64_t kUnset = ~uint64_t{0};
  std::vector<uint64_t> dense_;
  std::unordered_map<uint64_t, uint64_t> sparse_;
};

using LocationMap = std::unordered_map<int64_t, int64_t>;

// What contexts created sharing with each other have in common.
struct ShareGroup {
  NameMap names[static_cast<size_t>(ObjectClass::kCount)];
  // recorded program -> recorded location -> replay location.
  std::unordered_map<uint64_t, LocationMap> uniforms;
  std::unordered_map<uint64_t, LocationMap> attributes;
  // (recorded program, program interface) -> recorded index -> replay index:
  // uniform and storage block indices, other program resources.
  std::map<std::pair<uint64_t, uint32_t>, LocationMap> resources;
};

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
  uint32_t target = 0;
  uint8_t* pointer = nullptr;
  int64_t offset = 0;
  int64_t length = 0;
};

struct ContextState {
  EGLContext context = EGL_NO_CONTEXT;
  uint64_t recorded = 0;
  int client_version = 2;
  std::shared_ptr<ShareGroup> group;
  NameMap names[static_cast<size_t>(ObjectClass::kCount)];  // containers only
  uint64_t program = 0;                                     // recorded, glUseProgram
  LocationMap attributes;  // the last glGetAttribLocation answers, any program
  VertexPointer pointers[kMaxAttribs];
  std::vector<Mapping> mappings;
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
  // it (Call.config_attribs; empty in older traces): when known, the replay
  // config is the one whose attributes are the same.
  std::vector<int64_t> traced;
  EGLConfig chosen = nullptr;  // once resolved
};

struct SessionOptions {
  bool x11 = false;  // X11 windows instead of pbuffers
  bool stop_on_error = false;
  size_t max_messages = 50;          // error lines printed before they are only counted
  std::string program = "glreplay";  // prefixes messages
  std::string driver_dir;            // --driver: where libEGL.so.1 and libGLESv2.so.2 are
};

class Session {
 public:
  Session(SessionOptions options, std::shared_ptr<TraceInfo> info);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Loads the driver. False with *error.
  bool init(std::string* error);

  void* proc(uint32_t id) { return driver_.proc(id); }
  const SessionOptions& options() const { return options_; }
  TraceInfo& info() { return *info_; }

  // The call being replayed (for messages and size hints); its thread's
  // current context becomes current().
  const Call* call() const { return call_; }
  // borrowed: the call runs on another recorded thread's replay thread,
  // because its own thread has had no context current yet (TraceSource
  // routes it so): it sees no binding and makes none.
  void set_call(const Call* call, bool borrowed = false) {
    call_ = call;
    if (call == nullptr) return;
    if (borrowed) {
      borrowed_ = {};
      bound_ = &borrowed_;
    } else if (bound_ == &borrowed_ || call->thread != thread_) {
      set_thread(call->thread);
    }
  }
  bool borrowed() const { return bound_ == &borrowed_; }
  // The recorded thread running now (on its own replay thread), for what
  // runs outside a call (snapshots, the manual console's info).
  void set_thread(uint32_t thread);

  // The replay's display, opened and initialized at first use; EGL_NO_DISPLAY
  // with *error when that fails.
  EGLDisplay display(std::string* error = nullptr);

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
  uint64_t map_handle(HandleKind kind, uint64_t recorded, std::string* error);
  void define_handle(HandleKind kind, uint64_t recorded, uint64_t replayed);
  void forget_handle(HandleKind kind, uint64_t recorded);

  // The replay config for a recorded one: the one with the same attributes
  // when the trace recorded them (the nearest, with a warning naming what
  // differs, when none has them all); else the one it was listed as, unless
  // what the app learnt about it says otherwise.
  EGLConfig config(uint64_t recorded, std::string* error);
  // As config(), first noting the attributes a call recorded for it.
  EGLConfig config(uint64_t recorded, const std::vector<int64_t>& traced_attribs,
                   std::string* error);
  ConfigInfo& config_info(uint64_t recorded) { return configs_[recorded]; }
  // What an eglChooseConfig asks for, made to fit the replay's surfaces.
  std::vector<EGLint> config_attribs(const EGLint* app_list) const;
  // Whether config_attribs(app_list) asks for the surface type the app did.
  bool same_surface_type(const EGLint* app_list) const;

  // Surfaces: window ones are made at first use, sized from the trace
  // (width, height: the size recorded with that call, 0 for none; then the
  // context record's size_hint).
  SurfaceState* surface_state(uint64_t recorded);
  EGLSurface surface(uint64_t recorded, const ContextInfo* size_hint, std::string* error,
                     uint32_t width = 0, uint32_t height = 0);
  // The replay surface of an app window made this size (a new pbuffer,
  // current again wherever this thread had the old one; or its X11 window
  // resized). False with *error.
  bool resize_surface(uint64_t recorded, uint32_t width, uint32_t height, std::string* error);
  // The current draw surface, when it is an app window, made this size.
  void fit_draw_surface(uint32_t width, uint32_t height);
  void add_surface(uint64_t recorded, std::unique_ptr<SurfaceState> surface);
  void destroy_surface(uint64_t recorded);

  // Contexts.
  ContextState* context_state(uint64_t recorded);
  void add_context(uint64_t recorded, std::shared_ptr<ContextState> context);
  void destroy_context(uint64_t recorded);
  void make_current(uint64_t recorded_context, uint64_t recorded_draw, EGLSurface draw,
                    uint64_t recorded_read = 0, EGLSurface read = EGL_NO_SURFACE);
  // The current context's state (a placeholder when none is current).
  ContextState& current();
  bool has_current() const { return bound_->context != nullptr; }
  uint64_t current_draw() const { return bound_->draw; }
  uint64_t current_read() const { return bound_->read; }
  EGLSurface current_draw_surface() const { return bound_->surface; }
  EGLSurface current_read_surface() const { return bound_->read_surface; }
  // The recorded context current on the running thread (0 for none).
  uint64_t current_context() const { return bound_->context ? bound_->context->recorded : 0; }

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
  void report(const std::string& message);
  // "call N (FUNCTION): warning: message" on stderr, not counted: something
  // that may make pixels differ.
  void warn(const std::string& message);
  uint64_t errors() const { return errors_; }
  // Also hands each report() and warn() line ("call N: message") to `hook`
  // (the state worker lists them in its replies).
  void set_message_hook(std::function<void(const std::string&)> hook) {
    message_hook_ = std::move(hook);
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

  // On a replay thread that ends: releases its current context there (EGL
  // keeps a context current on a thread until that thread lets it go). Safe
  // on several threads at once: it touches no map.
  void release_thread();

  // Ends every context and surface and forgets every map (loop passes).
  void reset();
  // As reset(), and the display too.
  void shutdown();

 private:
  EGLConfig resolve_config(ConfigInfo& info, std::string* error);
  EGLConfig config_with_attribs(ConfigInfo& info, std::string* error);
  bool make_window_surface(SurfaceState& s, uint64_t recorded, std::string* error);
  bool config_matches(EGLConfig config, const std::map<EGLint, EGLint>& known);
  EGLint surface_bit() const;

  SessionOptions options_;
  std::shared_ptr<TraceInfo> info_;
  Driver driver_;
  const Call* call_ = nullptr;

  EGLDisplay display_ = EGL_NO_DISPLAY;
  bool display_failed_ = false;
  X11Display x11_;

  std::unordered_map<uint64_t, ConfigInfo> configs_;
  std::unordered_map<uint64_t, std::unique_ptr<SurfaceState>> surfaces_;
  std::unordered_map<uint64_t, std::shared_ptr<ContextState>> contexts_;
  NameMap egl_syncs_;
  NameMap images_;
  // What a recorded thread has current.
  struct Binding {
    std::shared_ptr<ContextState> context;
    uint64_t draw = 0;  // recorded
    EGLSurface surface = EGL_NO_SURFACE;
    uint64_t read = 0;  // recorded
    EGLSurface read_surface = EGL_NO_SURFACE;
  };
  std::unordered_map<uint32_t, Binding> bindings_;  // by recorded thread
  uint32_t thread_ = 0;
  Binding* bound_ = nullptr;  // bindings_[thread_] (nodes do not move), or borrowed_
  Binding borrowed_;          // a borrowed call's: always empty
  ContextState none_;         // GL calls with no context current land here

  uint64_t frame_ = 0;
  uint64_t errors_ = 0;
  std::function<void(uint64_t)> swap_hook_;
  std::function<void(const std::string&)> message_hook_;
};

}  // namespace gltrace::glreplay
