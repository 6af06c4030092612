// Context hooks: eglMakeCurrent switches the thread's context (a context
// new to the trace gets its Context record first) and its surface; the calls
// that create surfaces and contexts record their config's attributes.
#define GL_GLES_PROTOTYPES 0
#include <GL/glxtokens.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <type_traits>

#include "format/encoders.h"
#include "format/schema.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/trace_decls.h"
#include "trace/hooks/capture_snapshot.h"
#include "trace/hooks/context_state.h"
#include "trace/hooks/frames.h"
#include "trace/hooks/glx.h"
#include "trace/hooks/object_names.h"
#include "trace/live.h"
#include "trace/modes.h"
#include "trace/next.h"
#include "trace/recorder.h"
#include "trace/window_watch.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

void write_context_record(ThreadState* thread, uint32_t index, EGLDisplay display,
                          EGLContext context, EGLSurface draw) {
  wire::Encoder body;
  schema::context::set_index(body, index);
  schema::context::set_handle(body, handle_bits(context));
  schema::context::set_display(body, handle_bits(display));
  EGLint value = 0;
  if (NEXT(eglQueryContext)(display, context, EGL_CONFIG_ID, &value))
    schema::context::set_config(body, static_cast<uint64_t>(value));
  if (NEXT(eglQueryContext)(display, context, EGL_CONTEXT_CLIENT_VERSION, &value))
    schema::context::set_client_version(body, static_cast<uint64_t>(value));
  if (NEXT(eglQueryContext)(display, context, EGL_CONTEXT_CLIENT_TYPE, &value)) {
    schema::context::set_client_type(body, static_cast<uint64_t>(value));
    // A desktop GL context's profile (it is current: the record is written
    // at its first eglMakeCurrent).
    int major = 1, minor = 0;
    uint32_t profile_mask = 0;
    if (value == EGL_OPENGL_API) current_desktop_version(&major, &minor, &profile_mask);
    if (profile_mask != 0) schema::context::set_profile_mask(body, profile_mask);
  }
  // The config's attributes, so a replay can choose an equivalent one.
  EGLConfig config = nullptr;
  EGLint config_id = 0, count = 0;
  if (NEXT(eglQueryContext)(display, context, EGL_CONFIG_ID, &config_id)) {
    const EGLint wanted[] = {EGL_CONFIG_ID, config_id, EGL_NONE};
    NEXT(eglChooseConfig)(display, wanted, &config, 1, &count);
  }
  if (count == 1) {
    size_t m = schema::context::begin_config_attribs(body);
    for (EGLint name : {EGL_RED_SIZE, EGL_GREEN_SIZE, EGL_BLUE_SIZE, EGL_ALPHA_SIZE, EGL_DEPTH_SIZE,
                        EGL_STENCIL_SIZE, EGL_SAMPLES, EGL_SURFACE_TYPE, EGL_RENDERABLE_TYPE}) {
      EGLint v = 0;
      NEXT(eglGetConfigAttrib)(display, config, name, &v);
      schema::context::pack_config_attribs(body, name);  // int64: two's complement
      schema::context::pack_config_attribs(body, v);
    }
    body.end_nested(m);
  }
  write_context_strings(body);
  uint32_t width = 0, height = 0;
  if (query_surface_size(Drawable{display, draw, false}, &width, &height)) {
    schema::context::set_surface_width(body, width);
    schema::context::set_surface_height(body, height);
  }
  append_record(thread, schema::record::kContext, body.data(), body.size());
}

// Every attribute of an EGL 1.5 config, and the component type when the
// display has EGL_EXT_pixel_format_float: what a replay matches to find the
// config with the same framebuffer, whatever the app asked for or learnt.
constexpr EGLint kConfigAttribs[] = {EGL_CONFIG_ID,
                                     EGL_BUFFER_SIZE,
                                     EGL_RED_SIZE,
                                     EGL_GREEN_SIZE,
                                     EGL_BLUE_SIZE,
                                     EGL_ALPHA_SIZE,
                                     EGL_LUMINANCE_SIZE,
                                     EGL_ALPHA_MASK_SIZE,
                                     EGL_COLOR_BUFFER_TYPE,
                                     EGL_DEPTH_SIZE,
                                     EGL_STENCIL_SIZE,
                                     EGL_SAMPLE_BUFFERS,
                                     EGL_SAMPLES,
                                     EGL_SURFACE_TYPE,
                                     EGL_RENDERABLE_TYPE,
                                     EGL_CONFORMANT,
                                     EGL_CONFIG_CAVEAT,
                                     EGL_NATIVE_RENDERABLE,
                                     EGL_NATIVE_VISUAL_ID,
                                     EGL_NATIVE_VISUAL_TYPE,
                                     EGL_TRANSPARENT_TYPE,
                                     EGL_LEVEL,
                                     EGL_BIND_TO_TEXTURE_RGB,
                                     EGL_BIND_TO_TEXTURE_RGBA,
                                     EGL_MIN_SWAP_INTERVAL,
                                     EGL_MAX_SWAP_INTERVAL};

bool has_float_configs(EGLDisplay display) {
  const char* extensions = NEXT(eglQueryString)(display, EGL_EXTENSIONS);
  return extensions != nullptr && strstr(extensions, "EGL_EXT_pixel_format_float") != nullptr;
}

// Call.config_attribs of a call that used `config` and succeeded (a valid
// config: no query below fails, so the app's EGL error stays EGL_SUCCESS).
void write_config_attribs(CallRecorder& rec, EGLDisplay display, EGLConfig config) {
  if (mode() != Mode::kFull) return;
  wire::Encoder& call = rec.call_encoder();
  size_t m = schema::call::begin_config_attribs(call);
  auto put = [&](EGLint name) {
    EGLint value = 0;
    if (!NEXT(eglGetConfigAttrib)(display, config, name, &value)) return;
    schema::call::pack_config_attribs(call, name);  // int64: two's complement
    schema::call::pack_config_attribs(call, value);
  };
  for (EGLint name : kConfigAttribs) put(name);
  if (has_float_configs(display)) put(EGL_COLOR_COMPONENT_TYPE_EXT);
  call.end_nested(m);
}

// EGL_LARGEST_PBUFFER is answered for a pbuffer only: a window or pixmap
// leaves the value as it was (EGL 1.5, 3.5.6). Asked after a successful
// eglMakeCurrent: a driver that refused the query would leave its error for
// the app's next eglGetError, so it is read back to EGL_SUCCESS.
bool is_pbuffer(EGLDisplay display, EGLSurface surface) {
  EGLint largest = -1;
  if (!NEXT(eglQuerySurface)(display, surface, EGL_LARGEST_PBUFFER, &largest)) {
    NEXT(eglGetError)();
    return false;
  }
  return largest != -1;
}

}  // namespace

void record_bound_surface(CallRecorder& rec, const Drawable& draw) {
  ThreadState* thread = rec.thread();
  uint32_t width = thread->surface_width, height = thread->surface_height;
  // The surface this thread had (apps that make current every frame): its
  // size as known, checked at the next draw like after a swap, without a
  // query (a round trip to the X server).
  bool known = draw.surface != nullptr && draw.surface == thread->draw_surface &&
               draw.display == thread->draw_display && draw.glx == thread->draw_glx && width != 0;
  thread->draw_display = draw.display;
  thread->draw_surface = draw.surface;
  thread->draw_glx = draw.glx;
  thread->surface_width = thread->surface_height = 0;
  thread->surface_size_check = false;
  if (!known) {
    thread->draw_surface_fixed = false;
    thread->surface_watch = find_window_watch(draw.surface);
  }
  if (mode() != Mode::kFull || (!known && !query_surface_size(draw, &width, &height))) return;
  if (!known && !draw.glx) thread->draw_surface_fixed = is_pbuffer(draw.display, draw.surface);
  // A GLX drawable is its X window's XID where the app made the window
  // current as it is (no glXCreateWindow, whose window is watched when made).
  if (!known && draw.glx && thread->surface_watch == nullptr) {
    watch_window_surface(draw.surface, reinterpret_cast<uintptr_t>(draw.surface), width, height);
    thread->surface_watch = find_window_watch(draw.surface);
  }
  record_surface_size(rec, width, height);
  thread->surface_size_check = !thread->draw_surface_fixed;
}

// --- eglMakeCurrent ----------------------------------------------------------------

void record_context_switch(CallRecorder& rec, EGLDisplay dpy, EGLSurface draw, EGLSurface /*read*/,
                           EGLContext ctx, EGLBoolean result) {
  if (!result) return;
  ThreadState* thread = rec.thread();
  uint32_t index = 0;
  if (switch_thread_context(rec, ctx, &index)) write_context_record(thread, index, dpy, ctx, draw);
  EGLint version = 0, client_type = 0;
  if (ctx != EGL_NO_CONTEXT &&
      NEXT(eglQueryContext)(dpy, ctx, EGL_CONTEXT_CLIENT_VERSION, &version))
    context_state(thread)->client_version = version;
  if (ctx != EGL_NO_CONTEXT &&
      NEXT(eglQueryContext)(dpy, ctx, EGL_CONTEXT_CLIENT_TYPE, &client_type))
    context_state(thread)->desktop_gl = client_type == EGL_OPENGL_API;
  record_bound_surface(rec, Drawable{dpy, ctx != EGL_NO_CONTEXT ? draw : EGL_NO_SURFACE, false});
}

void switch_point_after_make_current(CallRecorder* /*recorded*/, EGLDisplay /*dpy*/,
                                     EGLSurface /*draw*/, EGLSurface /*read*/, EGLContext /*ctx*/,
                                     EGLBoolean /*result*/) {
  live_switch_point(false);
}

// --- a capture that starts mid-run -------------------------------------------------

namespace {

// The EGL objects a session's snapshots wrote: each once an epoch (snapshot_epoch).
std::mutex g_written_mutex;
uint32_t g_written_generation = 0;
auto& g_written = *new std::set<const void*>();  // never destroyed (threads at exit)

bool first_write(const void* handle) {
  uint32_t generation = snapshot_epoch();
  std::lock_guard<std::mutex> lock(g_written_mutex);
  if (g_written_generation != generation) {
    g_written.clear();
    g_written_generation = generation;
  }
  return g_written.insert(handle).second;
}

bool written(const void* handle) {
  std::lock_guard<std::mutex> lock(g_written_mutex);
  return g_written_generation == snapshot_epoch() && g_written.count(handle) != 0;
}

EGLConfig config_by_id(EGLDisplay dpy, EGLint id) {
  const EGLint wanted[] = {EGL_CONFIG_ID, id, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (id == 0 || !NEXT(eglChooseConfig)(dpy, wanted, &config, 1, &count) || count != 1)
    return nullptr;
  return config;
}

// A call the app made before the capture, recorded as a part of its snapshot.
template <typename Record>
void record_snapshot_call(uint32_t function, Record&& record) {
  CallRecorder rec(function);
  if (!rec.finish()) return;
  rec.set_synthetic();
  rec.set_snapshot();
  record(rec);
}

// A window or pbuffer as the call that made it (a replay makes its own of
// the same config and size).
void record_surface(EGLDisplay dpy, EGLSurface surface) {
  if (surface == EGL_NO_SURFACE || !first_write(surface)) return;
  EGLint id = 0;
  NEXT(eglQuerySurface)(dpy, surface, EGL_CONFIG_ID, &id);
  EGLConfig config = config_by_id(dpy, id);
  if (is_pbuffer(dpy, surface)) {
    EGLint width = 0, height = 0;
    NEXT(eglQuerySurface)(dpy, surface, EGL_WIDTH, &width);
    NEXT(eglQuerySurface)(dpy, surface, EGL_HEIGHT, &height);
    const EGLint attribs[] = {EGL_WIDTH, width, EGL_HEIGHT, height, EGL_NONE};
    record_snapshot_call(api::kFn_eglCreatePbufferSurface, [&](CallRecorder& rec) {
      record_eglCreatePbufferSurface(rec, dpy, config, attribs, surface);
    });
  } else {
    record_snapshot_call(api::kFn_eglCreateWindowSurface, [&](CallRecorder& rec) {
      record_eglCreateWindowSurface(rec, dpy, config, EGLNativeWindowType{}, nullptr, surface);
    });
  }
}

// A desktop GL context (current on this thread) as the calls that made it:
// the API bound, its version and profile asked for, and the thread's API of
// now bound again.
void record_desktop_context(EGLDisplay dpy, EGLConfig config, EGLContext share, EGLContext ctx) {
  int major = 1, minor = 0;
  uint32_t profile = 0;
  current_desktop_version(&major, &minor, &profile);
  const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                            major,
                            EGL_CONTEXT_MINOR_VERSION,
                            minor,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK,
                            (profile & 1) != 0  // the core bit
                                ? EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT
                                : EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT,
                            EGL_NONE};
  record_snapshot_call(api::kFn_eglBindAPI, [&](CallRecorder& rec) {
    record_eglBindAPI(rec, EGL_OPENGL_API, EGL_TRUE);
  });
  record_snapshot_call(api::kFn_eglCreateContext, [&](CallRecorder& rec) {
    record_eglCreateContext(rec, dpy, config, share, attribs, ctx);
  });
  EGLenum bound = NEXT(eglQueryAPI)();
  if (bound != EGL_OPENGL_API)
    record_snapshot_call(api::kFn_eglBindAPI,
                         [&](CallRecorder& rec) { record_eglBindAPI(rec, bound, EGL_TRUE); });
}

// The display, context and surfaces a joining thread uses, each written once
// a session; and whether the thread writes its share group's objects.
GroupClaim record_egl_objects(EGLDisplay dpy, EGLContext ctx, EGLSurface draw, EGLSurface read) {
  if (first_write(dpy)) {
    record_snapshot_call(api::kFn_eglGetDisplay, [&](CallRecorder& rec) {
      record_eglGetDisplay(rec, EGL_DEFAULT_DISPLAY, dpy);
    });
    record_snapshot_call(api::kFn_eglInitialize, [&](CallRecorder& rec) {
      record_eglInitialize(rec, dpy, nullptr, nullptr, EGL_TRUE);
    });
  }
  GroupClaim claim = claim_share_group(ctx, snapshot_epoch());
  if (first_write(ctx)) {
    EGLint id = 0, version = 2, client_type = EGL_OPENGL_ES_API;
    NEXT(eglQueryContext)(dpy, ctx, EGL_CONFIG_ID, &id);
    NEXT(eglQueryContext)(dpy, ctx, EGL_CONTEXT_CLIENT_VERSION, &version);
    NEXT(eglQueryContext)(dpy, ctx, EGL_CONTEXT_CLIENT_TYPE, &client_type);
    EGLConfig config = config_by_id(dpy, id);
    if (client_type == EGL_OPENGL_API) {
      record_desktop_context(dpy, config, claim.share_with, ctx);
    } else {
      const EGLint attribs[] = {EGL_CONTEXT_CLIENT_VERSION, version, EGL_NONE};
      record_snapshot_call(api::kFn_eglCreateContext, [&](CallRecorder& rec) {
        record_eglCreateContext(rec, dpy, config, claim.share_with, attribs, ctx);
      });
    }
  }
  record_surface(dpy, draw);
  if (read != draw) record_surface(dpy, read);
  return claim;
}

// A GLX context (current on this thread) as the call that made it: its
// config, version and profile (the replay makes an EGL context of them).
GroupClaim record_glx_objects(Display* dpy, GLXContext ctx, GLXDrawable draw) {
  GroupClaim claim = claim_share_group(ctx, snapshot_epoch());
  if (!first_write(ctx)) return claim;
  int major = 1, minor = 0;
  uint32_t profile = 0;
  current_desktop_version(&major, &minor, &profile);
  const int attribs[] = {GLX_CONTEXT_MAJOR_VERSION_ARB,
                         major,
                         GLX_CONTEXT_MINOR_VERSION_ARB,
                         minor,
                         GLX_CONTEXT_PROFILE_MASK_ARB,
                         (profile & 1) != 0 ? GLX_CONTEXT_CORE_PROFILE_BIT_ARB
                                            : GLX_CONTEXT_COMPATIBILITY_PROFILE_BIT_ARB,
                         0};
  GLXFBConfig config = glx_context_config(dpy, ctx, draw);
  record_snapshot_call(api::kFn_glXCreateContextAttribsARB, [&](CallRecorder& rec) {
    record_glXCreateContextAttribsARB(rec, dpy, config, static_cast<GLXContext>(claim.share_with),
                                      1, attribs, ctx);
  });
  return claim;
}

// One thread's snapshot at a time, whole: what one writes (a context
// another's eglCreateContext shares, the objects another's refreshes) comes
// before, in call order, what refers to it.
std::mutex& snapshot_mutex() {
  static auto& snapshots = *new std::mutex();  // never destroyed (threads at exit)
  return snapshots;
}

// record_current_binding of a thread with a GLX context current (false: none is).
bool record_current_glx_binding() {
  GLXContext ctx = NEXT(glXGetCurrentContext)();
  if (ctx == nullptr) return false;
  Display* dpy = NEXT(glXGetCurrentDisplay)();
  GLXDrawable draw = NEXT(glXGetCurrentDrawable)();
  GLXDrawable read = NEXT(glXGetCurrentReadDrawable)();
  thread_state();  // joins the session
  bool snapshot = (session_mid_run() || thread_state()->round_snapshot) && mode() == Mode::kFull;
  std::unique_lock<std::mutex> one_at_a_time(snapshot_mutex(), std::defer_lock);
  if (snapshot) one_at_a_time.lock();
  GroupClaim claim;
  if (snapshot) claim = record_glx_objects(dpy, ctx, draw);
  CallRecorder rec(api::kFn_glXMakeContextCurrent);
  if (!rec.finish()) return true;
  rec.set_synthetic();
  if (snapshot) rec.set_snapshot();
  record_glXMakeContextCurrent(rec, dpy, draw, read, ctx, 1);
  if (snapshot)
    record_gl_snapshot(Drawable{dpy, reinterpret_cast<void*>(draw), true}, ctx, claim.shared);
  return true;
}

}  // namespace

// Live tracing joined a thread that has a context current: its binding, as
// an eglMakeCurrent (or glXMakeContextCurrent) the app did not make just
// now. A capture that started mid-run writes, around it, what the thread's
// context holds.
void record_current_binding() {
  EGLContext ctx = NEXT(eglGetCurrentContext)();
  if (ctx == EGL_NO_CONTEXT && record_current_glx_binding()) return;
  EGLDisplay dpy = NEXT(eglGetCurrentDisplay)();
  EGLSurface draw = NEXT(eglGetCurrentSurface)(EGL_DRAW);
  EGLSurface read = NEXT(eglGetCurrentSurface)(EGL_READ);
  thread_state();  // joins the session
  bool snapshot = ctx != EGL_NO_CONTEXT && (session_mid_run() || thread_state()->round_snapshot) &&
                  mode() == Mode::kFull;
  std::unique_lock<std::mutex> one_at_a_time(snapshot_mutex(), std::defer_lock);
  if (snapshot) one_at_a_time.lock();
  GroupClaim claim;
  if (snapshot) claim = record_egl_objects(dpy, ctx, draw, read);
  CallRecorder rec(api::kFn_eglMakeCurrent);
  if (!rec.finish()) return;
  rec.set_synthetic();
  if (snapshot) rec.set_snapshot();
  record_eglMakeCurrent(rec, dpy, draw, read, ctx, EGL_TRUE);
  if (!snapshot) return;
  record_gl_snapshot(Drawable{dpy, draw, false}, ctx, claim.shared);
  // The display's images no object written shares (an image of a cube
  // face, one whose siblings the app deleted): of their source object where
  // a snapshot wrote it, else of their pixels.
  for (const UnwrittenImage& image : unwritten_images(dpy, snapshot_epoch()))
    record_snapshot_call(api::kFn_eglCreateImageKHR, [&](CallRecorder& rec) {
      record_eglCreateImageKHR(rec, dpy, image.context, image.target, image.buffer,
                               image.attribs.data(), image.image);
    });
}

namespace {

// Before a make-current (EGL's or GLX's): a read-back in flight needs the
// context that is still current. A context no thread had current when a
// capture began mid-run has not been written: it is now, as `bind` makes
// it current, before the app's call (which then changes nothing) is
// recorded.
template <typename Bind>
void join_before_switch(const void* ctx, Bind bind) {
  if (!recording() || mode() != Mode::kFull) return;
  if (thread_state()->context != 0) complete_pending_reads(thread_state());
  if (ctx != nullptr && session_mid_run() && !written(ctx) && bind()) record_current_binding();
}

}  // namespace

bool complete_reads_before_switch(EGLDisplay& dpy, EGLSurface& draw, EGLSurface& read,
                                  EGLContext& ctx, EGLBoolean& /*result*/) {
  join_before_switch(ctx, [&] { return NEXT(eglMakeCurrent)(dpy, draw, read, ctx) != EGL_FALSE; });
  return true;
}

// glXMakeCurrent, glXMakeContextCurrent: the same.
bool complete_reads_before_switch(Display*& dpy, GLXDrawable& draw, GLXDrawable& read,
                                  GLXContext& ctx, Bool& /*result*/) {
  join_before_switch(ctx, [&] { return NEXT(glXMakeContextCurrent)(dpy, draw, read, ctx) != 0; });
  return true;
}
bool complete_reads_before_switch(Display*& dpy, GLXDrawable& drawable, GLXContext& ctx,
                                  Bool& result) {
  return complete_reads_before_switch(dpy, drawable, drawable, ctx, result);
}

// --- configs -------------------------------------------------------------------------

namespace {

// A new window's size: the replay makes its window at its first use, and an
// eglQuerySurface (or any use) before the first eglMakeCurrent that binds it
// needs the size then. The thread's surface size is not touched: the window
// is not current. The window is watched from here on (window_watch.h):
// `native_window` is its handle as a number (0: unknown).
void write_window_size(CallRecorder& rec, EGLDisplay dpy, EGLSurface surface,
                       uint64_t native_window) {
  EGLint width = 0, height = 0;
  if (mode() != Mode::kFull || !NEXT(eglQuerySurface)(dpy, surface, EGL_WIDTH, &width) ||
      !NEXT(eglQuerySurface)(dpy, surface, EGL_HEIGHT, &height) || width <= 0 || height <= 0)
    return;
  schema::call::set_surface_width(rec.call_encoder(), static_cast<uint32_t>(width));
  schema::call::set_surface_height(rec.call_encoder(), static_cast<uint32_t>(height));
  watch_window_surface(surface, native_window, static_cast<uint32_t>(width),
                       static_cast<uint32_t>(height));
}

// eglCreateWindowSurface's window as a number (an X11 Window: its XID).
uint64_t window_number(EGLNativeWindowType win) {
  if constexpr (std::is_pointer_v<EGLNativeWindowType>)
    return reinterpret_cast<uintptr_t>(win);
  else
    return static_cast<uint64_t>(win);
}

// eglCreatePlatformWindowSurface's window points at the platform's handle:
// an X11 Window or an xcb_window_t, whose low 32 bits are the XID (little
// endian). Another platform's object is larger than 4 bytes, so reading
// them is safe; the watch then finds no such X window of that size.
uint64_t pointed_window_number(const void* native_window) {
  if (native_window == nullptr) return 0;
  uint32_t xid = 0;
  memcpy(&xid, native_window, sizeof xid);
  return xid;
}

}  // namespace

void record_window_config_attribs(CallRecorder& rec, EGLDisplay dpy, EGLConfig config,
                                  EGLNativeWindowType win, const EGLint* /*attrib_list*/,
                                  EGLSurface result) {
  if (result == EGL_NO_SURFACE) return;
  write_config_attribs(rec, dpy, config);
  write_window_size(rec, dpy, result, window_number(win));
}
void record_config_attribs(CallRecorder& rec, EGLDisplay dpy, EGLConfig config, void* native_window,
                           const EGLAttrib* /*attrib_list*/, EGLSurface result) {
  if (result == EGL_NO_SURFACE) return;
  write_config_attribs(rec, dpy, config);
  write_window_size(rec, dpy, result, pointed_window_number(native_window));
}
void record_config_attribs(CallRecorder& rec, EGLDisplay dpy, EGLConfig config, void* native_window,
                           const EGLint* /*attrib_list*/, EGLSurface result) {
  if (result == EGL_NO_SURFACE) return;
  write_config_attribs(rec, dpy, config);
  write_window_size(rec, dpy, result, pointed_window_number(native_window));
}
void record_config_attribs(CallRecorder& rec, EGLDisplay dpy, EGLConfig config,
                           const EGLint* /*attrib_list*/, EGLSurface result) {
  if (result != EGL_NO_SURFACE) write_config_attribs(rec, dpy, config);
}
void record_context_config_attribs(CallRecorder& rec, EGLDisplay dpy, EGLConfig config,
                                   EGLContext /*share_context*/, const EGLint* /*attrib_list*/,
                                   EGLContext result) {
  // EGL_NO_CONFIG_KHR (no config) has no attributes.
  if (result != EGL_NO_CONTEXT && config != nullptr) write_config_attribs(rec, dpy, config);
}

}  // namespace gltrace::trace
