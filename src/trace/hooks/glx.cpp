// GLX hooks: glXMakeCurrent and its kin switch the thread's context as
// eglMakeCurrent does (a context new to the trace gets its Context record,
// marked "glx"); the calls that make contexts and windows record their
// config's attributes in EGL's names, because a replay makes EGL configs,
// contexts and surfaces for them (src/glreplay/egl_calls.cpp). The swap
// hooks are the EGL ones' (frames.cpp).
#define GL_GLES_PROTOTYPES 0
#include "trace/hooks/glx.h"

#include <GL/glxtokens.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <vector>

#include "format/encoders.h"
#include "format/schema.h"
#include "gltrace/api/trace_decls.h"
#include "trace/hooks/context_state.h"
#include "trace/hooks/frames.h"
#include "trace/live.h"
#include "trace/modes.h"
#include "trace/next.h"
#include "trace/recorder.h"
#include "trace/window_watch.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

struct GlxToEgl {
  int glx;
  EGLint egl;
};
// The framebuffer attributes a replay matches a config by
// (glreplay/egl_state.cpp), GLX's and EGL's names (GLX 1.4's samples are
// SGIS's values).
constexpr GlxToEgl kConfigAttribs[] = {
    {GLX_BUFFER_SIZE, EGL_BUFFER_SIZE},   {GLX_RED_SIZE, EGL_RED_SIZE},
    {GLX_GREEN_SIZE, EGL_GREEN_SIZE},     {GLX_BLUE_SIZE, EGL_BLUE_SIZE},
    {GLX_ALPHA_SIZE, EGL_ALPHA_SIZE},     {GLX_DEPTH_SIZE, EGL_DEPTH_SIZE},
    {GLX_STENCIL_SIZE, EGL_STENCIL_SIZE}, {GLX_SAMPLE_BUFFERS_SGIS, EGL_SAMPLE_BUFFERS},
    {GLX_SAMPLES_SGIS, EGL_SAMPLES}};

// A config's (or visual's: `get` is glXGetConfig's, which knows no drawable
// type) attributes as EGL's: (name, value) pairs. get(attribute, &value)
// returns GLX's Success (0) when it answered.
template <typename Get>
std::vector<int64_t> egl_config_attribs(Get get) {
  std::vector<int64_t> out;
  for (const GlxToEgl& a : kConfigAttribs) {
    int value = 0;
    if (get(a.glx, &value) != 0) continue;
    out.push_back(a.egl);
    out.push_back(value);
  }
  int drawable_type = GLX_WINDOW_BIT;
  get(GLX_DRAWABLE_TYPE, &drawable_type);
  EGLint surface_type = ((drawable_type & GLX_WINDOW_BIT) != 0 ? EGL_WINDOW_BIT : 0) |
                        ((drawable_type & GLX_PIXMAP_BIT) != 0 ? EGL_PIXMAP_BIT : 0) |
                        ((drawable_type & GLX_PBUFFER_BIT) != 0 ? EGL_PBUFFER_BIT : 0);
  for (int64_t v :
       {int64_t{EGL_SURFACE_TYPE}, int64_t{surface_type}, int64_t{EGL_RENDERABLE_TYPE},
        int64_t{EGL_OPENGL_BIT}, int64_t{EGL_COLOR_BUFFER_TYPE}, int64_t{EGL_RGB_BUFFER}})
    out.push_back(v);
  return out;
}

std::vector<int64_t> fbconfig_attribs(Display* dpy, GLXFBConfig config) {
  return egl_config_attribs(
      [&](int name, int* value) { return NEXT(glXGetFBConfigAttrib)(dpy, config, name, value); });
}

void write_call_config_attribs(CallRecorder& rec, const std::vector<int64_t>& attribs) {
  if (mode() != Mode::kFull || attribs.empty()) return;
  wire::Encoder& call = rec.call_encoder();
  size_t m = schema::call::begin_config_attribs(call);
  for (int64_t v : attribs) schema::call::pack_config_attribs(call, v);
  call.end_nested(m);
}

void write_glx_context_record(ThreadState* thread, uint32_t index, Display* dpy, GLXContext ctx,
                              GLXDrawable draw) {
  wire::Encoder body;
  schema::context::set_index(body, index);
  schema::context::set_handle(body, handle_bits(ctx));
  schema::context::set_display(body, handle_bits(dpy));
  schema::context::set_window_system(body, "glx");
  int config_id = 0;
  if (NEXT(glXQueryContext)(dpy, ctx, GLX_FBCONFIG_ID, &config_id) == 0)
    schema::context::set_config(body, static_cast<uint64_t>(config_id));
  int major = 1, minor = 0;
  uint32_t profile_mask = 0;
  current_desktop_version(&major, &minor, &profile_mask);
  schema::context::set_client_version(body, static_cast<uint64_t>(major));
  schema::context::set_client_type(body, EGL_OPENGL_API);
  if (profile_mask != 0) schema::context::set_profile_mask(body, profile_mask);
  write_context_strings(body);
  uint32_t width = 0, height = 0;
  if (query_surface_size(Drawable{dpy, reinterpret_cast<void*>(draw), true}, &width, &height)) {
    schema::context::set_surface_width(body, width);
    schema::context::set_surface_height(body, height);
  }
  append_record(thread, schema::record::kContext, body.data(), body.size());
}

// An app that closes its X display with its context still current (glmark2
// and most small GLX programs) would lose its last swap's read-back, still
// in flight: it is completed as Xlib closes the display, by a close hook of
// the layer's own on each display a context is made current on
// (XAddExtension, XESetCloseDisplay). Xlib runs those hooks newest first,
// so ours before GLX's own, which ends the display's contexts. Xlib is the
// app's, looked up, not linked.
struct XExtCodes;
using AddExtension = XExtCodes* (*)(Display*);
using CloseDisplayHook = int (*)(Display*, XExtCodes*);
using SetCloseDisplay = CloseDisplayHook (*)(Display*, int, CloseDisplayHook);

std::mutex g_hooked_mutex;
auto& g_hooked = *new std::vector<Display*>();  // never destroyed (threads at exit)

int complete_reads_on_close(Display* dpy, XExtCodes* /*codes*/) {
  {
    std::lock_guard<std::mutex> lock(g_hooked_mutex);
    std::erase(g_hooked, dpy);  // a later display may get its address
  }
  if (!recording() || mode() != Mode::kFull) return 0;
  ThreadState* thread = thread_state();
  if (thread->context != 0 && thread->draw_glx && thread->draw_display == dpy &&
      !thread->busy.load(std::memory_order_acquire))
    complete_pending_reads(thread);
  return 0;
}

void hook_display_close(Display* dpy) {
  static auto add = reinterpret_cast<AddExtension>(dlsym(RTLD_DEFAULT, "XAddExtension"));
  static auto set = reinterpret_cast<SetCloseDisplay>(dlsym(RTLD_DEFAULT, "XESetCloseDisplay"));
  if (add == nullptr || set == nullptr || dpy == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(g_hooked_mutex);
    if (std::find(g_hooked.begin(), g_hooked.end(), dpy) != g_hooked.end()) return;
    g_hooked.push_back(dpy);
  }
  // XExtCodes begins with the extension's number (Xlib.h).
  if (XExtCodes* codes = add(dpy))
    set(dpy, *reinterpret_cast<int*>(codes), &complete_reads_on_close);
}

void context_switch(CallRecorder& rec, Display* dpy, GLXDrawable draw, GLXContext ctx,
                    Bool result) {
  if (!result) return;
  ThreadState* thread = rec.thread();
  uint32_t index = 0;
  if (switch_thread_context(rec, ctx, &index))
    write_glx_context_record(thread, index, dpy, ctx, draw);
  if (ctx != nullptr) {
    int major = 1, minor = 0;
    uint32_t profile_mask = 0;
    current_desktop_version(&major, &minor, &profile_mask);
    context_state(thread)->client_version = major;
    context_state(thread)->desktop_gl = true;
    hook_display_close(dpy);
  }
  record_bound_surface(
      rec, Drawable{dpy, ctx != nullptr ? reinterpret_cast<void*>(draw) : nullptr, true});
}

// A new GLX window's size, and its watch (window_watch.h): `win` is the X
// window it was made for.
void write_window_size(CallRecorder& rec, Display* dpy, GLXWindow window, Window win) {
  uint32_t width = 0, height = 0;
  if (mode() != Mode::kFull ||
      !query_surface_size(Drawable{dpy, reinterpret_cast<void*>(window), true}, &width, &height))
    return;
  schema::call::set_surface_width(rec.call_encoder(), width);
  schema::call::set_surface_height(rec.call_encoder(), height);
  watch_window_surface(reinterpret_cast<void*>(window), win, width, height);
}

}  // namespace

// --- glXMakeCurrent, glXMakeContextCurrent, glXMakeCurrentReadSGI ---------------
// (their pre hook is EGL's twin's, in contexts.cpp)

void record_context_switch(CallRecorder& rec, Display* dpy, GLXDrawable drawable, GLXContext ctx,
                           Bool result) {
  context_switch(rec, dpy, drawable, ctx, result);
}
void record_context_switch(CallRecorder& rec, Display* dpy, GLXDrawable draw, GLXDrawable /*read*/,
                           GLXContext ctx, Bool result) {
  record_context_switch(rec, dpy, draw, ctx, result);
}

void switch_point_after_make_current(CallRecorder* /*recorded*/, Display* /*dpy*/,
                                     GLXDrawable /*drawable*/, GLXContext /*ctx*/,
                                     Bool /*result*/) {
  live_switch_point(false);
}
void switch_point_after_make_current(CallRecorder* /*recorded*/, Display* /*dpy*/,
                                     GLXDrawable /*draw*/, GLXDrawable /*read*/, GLXContext /*ctx*/,
                                     Bool /*result*/) {
  live_switch_point(false);
}

// --- contexts, windows and pbuffers: their config's attributes ------------------

void record_glx_visual_attribs(CallRecorder& rec, Display* dpy, XVisualInfo* vis,
                               GLXContext /*shareList*/, Bool /*direct*/, GLXContext result) {
  if (result == nullptr || vis == nullptr) return;
  write_call_config_attribs(rec, egl_config_attribs([&](int name, int* value) {
                              return NEXT(glXGetConfig)(dpy, vis, name, value);
                            }));
}
void record_glx_config_attribs(CallRecorder& rec, Display* dpy, GLXFBConfig config,
                               GLXContext /*share_context*/, Bool /*direct*/,
                               const int* /*attrib_list*/, GLXContext result) {
  if (result != nullptr && config != nullptr)
    write_call_config_attribs(rec, fbconfig_attribs(dpy, config));
}
void record_glx_config_attribs(CallRecorder& rec, Display* dpy, GLXFBConfig config,
                               int /*render_type*/, GLXContext /*share_list*/, Bool /*direct*/,
                               GLXContext result) {
  if (result != nullptr && config != nullptr)
    write_call_config_attribs(rec, fbconfig_attribs(dpy, config));
}
void record_glx_config_attribs(CallRecorder& rec, Display* dpy, GLXFBConfig config,
                               const int* /*attrib_list*/, GLXPbuffer result) {
  if (result != 0 && config != nullptr)
    write_call_config_attribs(rec, fbconfig_attribs(dpy, config));
}
void record_glx_config_attribs(CallRecorder& rec, Display* dpy, GLXFBConfig config, Window win,
                               const int* /*attrib_list*/, GLXWindow result) {
  if (result == 0 || config == nullptr) return;
  write_call_config_attribs(rec, fbconfig_attribs(dpy, config));
  write_window_size(rec, dpy, result, win);
}

GLXFBConfig glx_context_config(Display* dpy, GLXContext ctx, GLXDrawable draw) {
  int id = 0, screen = 0, count = 0;
  if (NEXT(glXQueryContext)(dpy, ctx, GLX_SCREEN, &screen) != 0) return nullptr;
  // Mesa answers no id for a context made from a visual (glXCreateContext):
  // its drawable's config is the same then.
  if (NEXT(glXQueryContext)(dpy, ctx, GLX_FBCONFIG_ID, &id) != 0 || id <= 0) {
    unsigned int drawable_id = 0;
    if (draw != 0) NEXT(glXQueryDrawable)(dpy, draw, GLX_FBCONFIG_ID, &drawable_id);
    id = static_cast<int>(drawable_id);
  }
  if (id <= 0) return nullptr;
  const int wanted[] = {GLX_FBCONFIG_ID, id, 0};
  GLXFBConfig* configs = NEXT(glXChooseFBConfig)(dpy, screen, wanted, &count);
  GLXFBConfig config = configs != nullptr && count == 1 ? configs[0] : nullptr;
  // The list is Xlib's to free; the configs stay the display's.
  static auto x_free = reinterpret_cast<int (*)(void*)>(dlsym(RTLD_DEFAULT, "XFree"));
  if (configs != nullptr && x_free != nullptr) x_free(configs);
  return config;
}

// --- sizes ---------------------------------------------------------------------------

// glXChooseVisual's list: the boolean attributes stand alone, the others
// take a value; None (0) ends it (counted).
int64_t compsize_glXChooseVisual_attribList(Display* /*dpy*/, int /*screen*/, int* attribList) {
  if (attribList == nullptr) return 0;
  constexpr int64_t kMax = 256;  // what a sane list holds; a longer one is cut there
  int64_t n = 0;
  while (n < kMax && attribList[n] != 0) {
    int name = attribList[n];
    bool alone =
        name == GLX_USE_GL || name == GLX_RGBA || name == GLX_DOUBLEBUFFER || name == GLX_STEREO;
    n += alone ? 1 : 2;
  }
  return n < kMax ? n + 1 : kMax;
}

// GLX_MESA_query_renderer: the renderer's version is three numbers.
int64_t compsize_glXQueryRendererIntegerMESA_value(Display* /*dpy*/, int /*screen*/,
                                                   int /*renderer*/, int attribute,
                                                   unsigned int* /*value*/) {
  return attribute == 0x8185 /* GLX_RENDERER_VERSION_MESA */ ? 3 : 1;
}
int64_t compsize_glXQueryCurrentRendererIntegerMESA_value(int attribute, unsigned int* value) {
  return compsize_glXQueryRendererIntegerMESA_value(nullptr, 0, 0, attribute, value);
}

}  // namespace gltrace::trace
