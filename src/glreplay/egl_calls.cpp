// The EGL and GLX calls replayed by hand (the generator's CUSTOM list): the
// replay has its own display, chooses its own configs, makes pbuffers (or its
// own windows) for the app's windows, and ends frames. GLX's contexts and
// drawables are made on EGL, as desktop GL contexts and EGL surfaces.

#define GL_GLES_PROTOTYPES 0
#include <GL/glxtokens.h>
#include <GLES3/gl32.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "common/pixel_store.h"
#include "gl_loader/call.h"
#include "glreplay/args.h"
#include "glreplay/trace_source.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/pfn.h"
#include "gltrace/api/replay_decls.h"

namespace gltrace::glreplay {

namespace {

std::string egl_error(Session& s) {
  auto get_error = GL_CALL(s.gl(), eglGetError);
  char text[32];
  snprintf(text, sizeof text, "EGL error 0x%04x", get_error != nullptr ? get_error() : 0);
  return text;
}

EGLDisplay display(Session& s, Args& a) {
  std::string error;
  EGLDisplay dpy = s.display(&error);
  if (dpy == EGL_NO_DISPLAY) a.fail(error);
  return dpy;
}

// The recorded call failed too: the replay's failure is no news.
bool recorded_false(const Args& a) { return a.call().has_ret && a.ret_u() == 0; }

// Window surface attributes a pbuffer also takes (the others, such as
// EGL_RENDER_BUFFER, only fit windows).
template <typename T>
std::vector<EGLint> window_attribs(const T* list, bool x11) {
  std::vector<EGLint> out;
  for (const T* p = list; p != nullptr && p[0] != EGL_NONE && out.size() < 64; p += 2) {
    if (x11 || p[0] == EGL_GL_COLORSPACE || p[0] == EGL_VG_COLORSPACE ||
        p[0] == EGL_VG_ALPHA_FORMAT) {
      out.push_back(static_cast<EGLint>(p[0]));
      out.push_back(static_cast<EGLint>(p[1]));
    }
  }
  return out;
}

// The call's window (its result), of the recorded config a.raw_handle(1),
// with `attribs`: made at its first use, when its config is chosen, by the
// attributes the call recorded when the trace has them. The make-current
// that binds it holds its size (older traces: the context record); a use
// before that (eglQuerySurface) takes the size it was created with.
bool add_window(Session& s, Args& a, std::vector<EGLint> attribs) {
  auto surface = std::make_unique<SurfaceState>();
  surface->window = true;
  surface->config = a.raw_handle(1);
  surface->attribs = std::move(attribs);
  ConfigInfo& config = s.config_info(surface->config);
  if (config.traced.empty())
    config.traced.assign(a.call().config_attribs.begin(), a.call().config_attribs.end());
  surface->width = a.call().surface_width;
  surface->height = a.call().surface_height;
  s.add_surface(a.ret_u(), std::move(surface));
  return true;
}

template <typename T>
bool window_surface(Session& s, Args& a) {
  if (display(s, a) == EGL_NO_DISPLAY) return false;
  if (a.ret_u() == 0) return true;  // it failed when traced
  std::vector<EGLint> attribs = window_attribs(a.array<T>(3), s.options().x11);
  if (!a.ok()) return false;
  return add_window(s, a, std::move(attribs));
}

// The call's pbuffer (its result), of the recorded config a.raw_handle(1).
bool make_pbuffer(Session& s, Args& a, const EGLint* attribs) {
  EGLDisplay dpy = display(s, a);
  std::string error;
  EGLConfig config = s.config(a.raw_handle(1), a.call().config_attribs, &error);
  if (!error.empty()) a.fail(error);
  if (!a.ok()) return false;
  auto create = GL_CALL(s.gl(), eglCreatePbufferSurface);
  if (create == nullptr) return a.missing();
  auto surface = std::make_unique<SurfaceState>();
  surface->config = a.raw_handle(1);
  surface->surface = create(dpy, config, attribs);
  if (surface->surface == EGL_NO_SURFACE) {
    if (!recorded_false(a)) a.fail("failed: " + egl_error(s));
    return a.ok();
  }
  s.add_surface(a.ret_u(), std::move(surface));
  return true;
}

bool list_configs(Session& s, Args& a, const std::vector<EGLint>* attribs, bool same_request,
                  size_t configs_index) {
  EGLDisplay dpy = display(s, a);
  if (dpy == EGL_NO_DISPLAY) return false;
  auto choose = GL_CALL(s.gl(), eglChooseConfig);
  auto get = GL_CALL(s.gl(), eglGetConfigs);
  if ((attribs != nullptr ? choose == nullptr : get == nullptr)) return a.missing();
  auto list = [&](EGLConfig* out, EGLint size, EGLint* count) {
    return attribs != nullptr ? choose(dpy, attribs->data(), out, size, count)
                              : get(dpy, out, size, count);
  };
  // The whole list, whatever the app asked for: a recorded config is
  // resolved against it.
  EGLint count = 0;
  if (!list(nullptr, 0, &count)) {
    if (!recorded_false(a)) a.fail("failed: " + egl_error(s));
    return a.ok();
  }
  auto configs = std::make_shared<ConfigList>();
  configs->same_request = same_request;
  configs->asked = static_cast<size_t>(std::max<int64_t>(a.s(configs_index + 1), 0));
  configs->replayed.resize(static_cast<size_t>(std::clamp<EGLint>(count, 0, 65536)));
  list(configs->replayed.data(), static_cast<EGLint>(configs->replayed.size()), &count);
  configs->replayed.resize(static_cast<size_t>(std::max<EGLint>(count, 0)));
  const Value* num_config = a.value(configs_index + 2);
  if (num_config != nullptr && num_config->kind == format::ValueKind::kArray &&
      !num_config->sints().empty())
    configs->recorded_count = static_cast<size_t>(std::max<int64_t>(num_config->sints()[0], 0));
  // The app picks from the list by position (or by asking): position k of
  // the recorded list is position k of the replay's, when the lists agree.
  std::vector<uint64_t> recorded = a.recorded_handles(configs_index);
  for (size_t k = 0; k < recorded.size(); ++k) {
    ConfigInfo& info = s.config_info(recorded[k]);
    info.listed = k < configs->replayed.size() ? configs->replayed[k] : nullptr;
    info.list = configs;
  }
  return a.ok();
}

}  // namespace

bool custom_eglGetDisplay(Session& s, Args& a) { return display(s, a) != EGL_NO_DISPLAY; }
bool custom_eglGetPlatformDisplay(Session& s, Args& a) { return display(s, a) != EGL_NO_DISPLAY; }
bool custom_eglGetPlatformDisplayEXT(Session& s, Args& a) {
  return display(s, a) != EGL_NO_DISPLAY;
}
// The display is initialized when it is opened, once.
bool custom_eglInitialize(Session& s, Args& a) { return display(s, a) != EGL_NO_DISPLAY; }

bool custom_eglChooseConfig(Session& s, Args& a) {
  const EGLint* app = a.array<EGLint>(1);
  if (!a.ok()) return false;
  std::vector<EGLint> attribs = s.config_attribs(app);
  return list_configs(s, a, &attribs, s.same_surface_type(app), 2);
}

// Every config of the display: the same list only on the same platform,
// which a count cannot tell; the app's knowledge of its choice decides.
bool custom_eglGetConfigs(Session& s, Args& a) { return list_configs(s, a, nullptr, false, 1); }

// Not run: what the app learnt is what matters, to choose a replay config
// of the same format.
bool custom_eglGetConfigAttrib(Session& s, Args& a) {
  if (recorded_false(a)) return true;
  const Value* value = a.value(3);
  if (value == nullptr || value->kind != format::ValueKind::kArray || value->sints().empty())
    return true;
  s.config_info(a.raw_handle(1)).known[static_cast<EGLint>(a.s(2))] =
      static_cast<EGLint>(value->sints()[0]);
  return true;
}

bool custom_eglCreateWindowSurface(Session& s, Args& a) { return window_surface<EGLint>(s, a); }
bool custom_eglCreatePlatformWindowSurface(Session& s, Args& a) {
  return window_surface<EGLAttrib>(s, a);
}
bool custom_eglCreatePlatformWindowSurfaceEXT(Session& s, Args& a) {
  return window_surface<EGLint>(s, a);
}

bool custom_eglCreatePbufferSurface(Session& s, Args& a) {
  const EGLint* attribs = a.array<EGLint>(2);
  if (!a.ok()) return false;
  return make_pbuffer(s, a, attribs);
}

namespace {

// A context of `api` (EGL_NONE: the thread's bound one) with `attribs`, for
// the recorded call's result. A borrowed call (its thread has no replay
// thread yet) runs where another API may be bound; its own thread had
// OpenGL ES (TraceSource), unless the call says which.
bool make_context(Session& s, Args& a, EGLenum api, uint64_t recorded_config,
                  uint64_t share_recorded, const EGLint* attribs) {
  EGLDisplay dpy = display(s, a);
  std::string error;
  EGLConfig config = s.config(recorded_config, a.call().config_attribs, &error);
  if (!error.empty()) a.fail(error);
  ReplayContext* share = share_recorded != 0 ? s.context_state(share_recorded) : nullptr;
  if (share_recorded != 0 && share == nullptr)
    a.fail("argument share context: unknown context " + std::to_string(share_recorded));
  if (!a.ok()) return false;
  auto create = GL_CALL(s.gl(), eglCreateContext);
  auto query = GL_CALL(s.gl(), eglQueryContext);
  if (create == nullptr || query == nullptr) return a.missing();
  auto query_api = GL_CALL(s.gl(), eglQueryAPI);
  auto bind_api = GL_CALL(s.gl(), eglBindAPI);
  EGLenum bound = (s.borrowed() || api != EGL_NONE) && query_api != nullptr
                      ? query_api()
                      : EGLenum{EGL_OPENGL_ES_API};
  if (api == EGL_NONE) api = s.borrowed() ? EGLenum{EGL_OPENGL_ES_API} : bound;
  if (api != bound && bind_api != nullptr) bind_api(api);
  EGLContext context =
      create(dpy, config, share != nullptr ? share->context : EGL_NO_CONTEXT, attribs);
  if (api != bound && bind_api != nullptr) bind_api(bound);
  if (context == EGL_NO_CONTEXT) {
    if (!recorded_false(a)) a.fail("failed: " + egl_error(s));
    return a.ok();
  }
  auto state = std::make_shared<ReplayContext>();
  state->context = context;
  state->recorded = a.ret_u();
  state->config = recorded_config;
  state->group = share != nullptr ? share->group : std::make_shared<ShareGroup>();
  EGLint version = 0;
  if (query(dpy, context, EGL_CONTEXT_CLIENT_VERSION, &version)) state->client_version = version;
  uint64_t recorded = state->recorded;
  s.add_context(recorded, std::move(state));
  return true;
}

}  // namespace

bool custom_eglCreateContext(Session& s, Args& a) {
  const EGLint* attribs = a.array<EGLint>(3);
  if (!a.ok()) return false;
  return make_context(s, a, EGL_NONE, a.raw_handle(1), a.raw_handle(2), attribs);
}

namespace {

// Binds the recorded context and surfaces: the surfaces as the replay made
// them (a window at its first use, of the size the call holds).
bool make_current(Session& s, Args& a, uint64_t recorded_draw, uint64_t recorded_read,
                  uint64_t recorded_context) {
  EGLDisplay dpy = display(s, a);
  // The call holds the draw surface's size (older traces: the context record
  // of this context, the size its window had when it was first made current).
  std::optional<ContextInfo> hint = s.info().context(a.call().context);
  uint32_t width = a.call().surface_width, height = a.call().surface_height;
  std::string draw_error, read_error;
  EGLSurface draw =
      s.surface(recorded_draw, hint.has_value() ? &*hint : nullptr, &draw_error, width, height);
  if (!draw_error.empty()) a.fail("argument draw: " + draw_error);
  bool same = recorded_read == recorded_draw;
  EGLSurface read = s.surface(recorded_read, hint.has_value() ? &*hint : nullptr, &read_error,
                              same ? width : 0, same ? height : 0);
  if (!read_error.empty()) a.fail("argument read: " + read_error);
  ReplayContext* context = recorded_context != 0 ? s.context_state(recorded_context) : nullptr;
  if (recorded_context != 0 && context == nullptr) a.fail("argument ctx: unknown context");
  if (!a.ok()) return false;
  auto bind = GL_CALL(s.gl(), eglMakeCurrent);
  if (bind == nullptr) return a.missing();
  if (!bind(dpy, draw, read, context != nullptr ? context->context : EGL_NO_CONTEXT)) {
    if (!recorded_false(a)) a.fail("failed: " + egl_error(s));
    return a.ok();
  }
  s.make_current(recorded_context, recorded_draw, draw, recorded_read, read);
  if (context != nullptr) s.note_driver();
  // A window made earlier may have been resized since.
  if (width != 0 && height != 0) s.fit_draw_surface(width, height);
  return true;
}

}  // namespace

bool custom_eglMakeCurrent(Session& s, Args& a) {
  return make_current(s, a, a.raw_handle(1), a.raw_handle(2), a.raw_handle(3));
}

bool custom_eglDestroyContext(Session& s, Args& a) {
  s.destroy_context(a.raw_handle(1));
  return true;
}

bool custom_eglDestroySurface(Session& s, Args& a) {
  s.destroy_surface(a.raw_handle(1));
  return true;
}

namespace {

bool swap(Session& s, Args& a, bool with_damage) {
  EGLDisplay dpy = display(s, a);
  EGLSurface surface = a.handle<EGLSurface>(1, HandleKind::kSurface);
  const EGLint* rects = with_damage ? a.array<EGLint>(2) : nullptr;
  auto n_rects = with_damage ? static_cast<EGLint>(a.s(3)) : 0;
  if (!a.ok()) return false;
  auto plain = GL_CALL(s.gl(), eglSwapBuffers);
  if (plain == nullptr) return a.missing();
  // The trace's size of the frame: the replay drew it at another size when
  // the trace has no record of the resize before the frame's first draw.
  uint32_t width = a.call().surface_width, height = a.call().surface_height;
  const SurfaceState* state = s.surface_state(a.raw_handle(1));
  if (width != 0 && state != nullptr && state->window &&
      (state->width != width || state->height != height))
    s.warn("frame " + std::to_string(s.frame()) + " was replayed at " +
           std::to_string(state->width) + "x" + std::to_string(state->height) + ", traced at " +
           std::to_string(width) + "x" + std::to_string(height) +
           ": the trace records no resize before the frame's first draw (a draw call "
           "the trace layer does not check)");
  s.before_swap();
  EGLBoolean ok;
  auto damage_khr = GL_CALL(s.gl(), eglSwapBuffersWithDamageKHR);
  auto damage_ext = GL_CALL(s.gl(), eglSwapBuffersWithDamageEXT);
  uint32_t id = a.call().function;
  if (with_damage && id == api::kFn_eglSwapBuffersWithDamageKHR && damage_khr != nullptr)
    ok = damage_khr(dpy, surface, rects, n_rects);
  else if (with_damage && id == api::kFn_eglSwapBuffersWithDamageEXT && damage_ext != nullptr)
    ok = damage_ext(dpy, surface, rects, n_rects);
  else
    ok = plain(dpy, surface);
  s.next_frame();
  if (width != 0 && height != 0) s.fit_draw_surface(width, height);
  if (!ok && !recorded_false(a)) a.fail("failed: " + egl_error(s));
  return a.ok();
}

}  // namespace

namespace {

// Targets whose client buffer is a GL object name (the KHR names have the
// same values).
bool is_gl_image_target(uint64_t target) {
  return target >= EGL_GL_TEXTURE_2D && target <= EGL_GL_RENDERBUFFER;
}

// An image of a source the replay cannot recreate (a dma-buf, a pixmap),
// from the pixels the trace read when it was made: an EGL_GL_TEXTURE_2D
// image of a texture of the replay's own in the current context. The
// texture is deleted at once (the image keeps its storage); the texture
// binding and unpack state it touches are put back.
template <typename T, typename Create>
EGLImage image_from_pixels(Session& s, Args& a, EGLDisplay dpy, const ImageSource& source,
                           const T* app_attribs, Create create) {
  auto gen = GL_CALL(s.gl(), glGenTextures);
  auto del = GL_CALL(s.gl(), glDeleteTextures);
  auto bind = GL_CALL(s.gl(), glBindTexture);
  auto image = GL_CALL(s.gl(), glTexImage2D);
  auto parameter = GL_CALL(s.gl(), glTexParameteri);
  auto store = GL_CALL(s.gl(), glPixelStorei);
  auto get = GL_CALL(s.gl(), glGetIntegerv);
  auto bind_buffer = GL_CALL(s.gl(), glBindBuffer);
  if (gen == nullptr || del == nullptr || bind == nullptr || image == nullptr ||
      parameter == nullptr || store == nullptr || get == nullptr || bind_buffer == nullptr) {
    a.missing();
    return EGL_NO_IMAGE;
  }
  if (!s.has_current()) {
    a.fail("no context is current to hold the image's recorded pixels");
    return EGL_NO_IMAGE;
  }
  if (source.pixels == nullptr || source.width == 0 || source.height == 0 ||
      source.pixels->size() != uint64_t{source.width} * source.height * 4) {
    a.fail("the image's recorded pixels are damaged");
    return EGL_NO_IMAGE;
  }
  auto integer = [&](GLenum pname) {
    GLint value = 0;
    get(pname, &value);
    return value;
  };
  GLint binding = integer(GL_TEXTURE_BINDING_2D);
  PixelStoreScope unpacking({get, store, bind_buffer}, s.current().client_version >= 3,
                            PixelStoreScope::Direction::kUnpack);
  unpacking.set_tightly_packed();
  GLuint texture = 0;
  gen(1, &texture);
  bind(GL_TEXTURE_2D, texture);
  // One level, complete with these filters: an image needs a complete texture.
  parameter(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  parameter(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  image(GL_TEXTURE_2D, 0, GL_RGBA, static_cast<GLsizei>(source.width),
        static_cast<GLsizei>(source.height), 0, GL_RGBA, GL_UNSIGNED_BYTE, source.pixels->data());
  // The app's EGL_IMAGE_PRESERVED is the only attribute that still means
  // something; the others described the source that is gone.
  std::vector<T> attribs;
  for (const T* p = app_attribs; p != nullptr && p[0] != EGL_NONE && attribs.size() < 64; p += 2)
    if (p[0] == EGL_IMAGE_PRESERVED) attribs.insert(attribs.end(), {p[0], p[1]});
  attribs.push_back(EGL_NONE);
  EGLImage result =
      create(dpy, s.current().context, EGL_GL_TEXTURE_2D,
             reinterpret_cast<EGLClientBuffer>(static_cast<uintptr_t>(texture)), attribs.data());
  if (result == EGL_NO_IMAGE)
    a.fail("cannot make an image of the recorded pixels: " + egl_error(s));
  bind(GL_TEXTURE_2D, static_cast<GLuint>(binding));
  del(1, &texture);
  return result;
}

// eglCreateImage (EGLAttrib list) and eglCreateImageKHR (EGLint list).
template <typename T, typename Pfn>
bool create_image(Session& s, Args& a, Pfn create) {
  EGLDisplay dpy = display(s, a);
  uint64_t recorded_context = a.raw_handle(1);
  uint64_t target = a.u(2);
  uint64_t buffer = a.raw_handle(3);
  const T* attribs = a.array<T>(4);
  uint64_t recorded = a.ret_u();
  if (!a.ok()) return false;
  if (recorded == 0) return true;  // it failed when traced: nothing will use it
  if (create == nullptr) return a.missing();
  EGLImage result = EGL_NO_IMAGE;
  const ImageSource* source = a.call().image_source;
  // A snapshot's image of no context is made of the pixels the snapshot
  // read: no object it could be made of was written (docs/trace-format.md,
  // "Snapshots").
  bool from_pixels = a.call().snapshot && recorded_context == 0;
  if (is_gl_image_target(target) && !from_pixels) {
    // The buffer is a texture or renderbuffer name of the recorded
    // context's share group: the replay's name for it, in the replay's
    // context (the attributes, level, z offset and preserved, are values).
    ReplayContext* context = s.context_state(recorded_context);
    if (context == nullptr) {
      a.fail("argument ctx: unknown context " + hex(recorded_context));
      return false;
    }
    ObjectClass cls =
        target == EGL_GL_RENDERBUFFER ? ObjectClass::kRenderbuffer : ObjectClass::kTexture;
    uint64_t name = context->group->names[static_cast<size_t>(cls)].get(buffer);
    result = create(dpy, context->context, static_cast<EGLenum>(target),
                    reinterpret_cast<EGLClientBuffer>(static_cast<uintptr_t>(name)), attribs);
    if (result == EGL_NO_IMAGE) a.fail("failed: " + egl_error(s));
  } else {
    if (source == nullptr || source->pixels == nullptr) {
      std::string why = source != nullptr ? source->not_captured : "the trace holds none";
      a.fail(from_pixels
                 ? "the snapshot could not read this image's pixels (" + why + ")"
                 : "the source of this image (target " + hex(target) +
                       ") is not a GL object and its pixels were not captured (" + why + ")");
      return false;
    }
    result = image_from_pixels<T>(s, a, dpy, *source, attribs, create);
  }
  if (result == EGL_NO_IMAGE) return false;
  a.define_handle(HandleKind::kImage, result);
  return true;
}

}  // namespace

bool custom_eglCreateImage(Session& s, Args& a) {
  return create_image<EGLAttrib>(s, a, GL_CALL(s.gl(), eglCreateImage));
}
bool custom_eglCreateImageKHR(Session& s, Args& a) {
  return create_image<EGLint>(s, a, GL_CALL(s.gl(), eglCreateImageKHR));
}

bool custom_eglSwapBuffers(Session& s, Args& a) { return swap(s, a, false); }
bool custom_eglSwapBuffersWithDamageKHR(Session& s, Args& a) { return swap(s, a, true); }
bool custom_eglSwapBuffersWithDamageEXT(Session& s, Args& a) { return swap(s, a, true); }

// --- GLX, on EGL ------------------------------------------------------------------

namespace {

// glXCreateContextAttribsARB's attributes as eglCreateContext's; *api is the
// EGL API they ask for (GLX_EXT_create_context_es2_profile: OpenGL ES).
std::vector<EGLint> egl_context_attribs(const int* glx, EGLenum* api) {
  std::vector<EGLint> out;
  *api = EGL_OPENGL_API;
  for (const int* p = glx; p != nullptr && p[0] != 0 && out.size() < 64; p += 2) {
    switch (p[0]) {
      case GLX_CONTEXT_MAJOR_VERSION_ARB:
        out.insert(out.end(), {EGL_CONTEXT_MAJOR_VERSION, p[1]});
        break;
      case GLX_CONTEXT_MINOR_VERSION_ARB:
        out.insert(out.end(), {EGL_CONTEXT_MINOR_VERSION, p[1]});
        break;
      case GLX_CONTEXT_PROFILE_MASK_ARB:
        if ((p[1] & GLX_CONTEXT_ES2_PROFILE_BIT_EXT) != 0)
          *api = EGL_OPENGL_ES_API;
        else  // the core and compatibility bits are EGL's
          out.insert(out.end(), {EGL_CONTEXT_OPENGL_PROFILE_MASK, p[1] & 3});
        break;
      case GLX_CONTEXT_FLAGS_ARB:
        if ((p[1] & GLX_CONTEXT_DEBUG_BIT_ARB) != 0)
          out.insert(out.end(), {EGL_CONTEXT_OPENGL_DEBUG, EGL_TRUE});
        if ((p[1] & GLX_CONTEXT_FORWARD_COMPATIBLE_BIT_ARB) != 0)
          out.insert(out.end(), {EGL_CONTEXT_OPENGL_FORWARD_COMPATIBLE, EGL_TRUE});
        if ((p[1] & GLX_CONTEXT_ROBUST_ACCESS_BIT_ARB) != 0)
          out.insert(out.end(), {EGL_CONTEXT_OPENGL_ROBUST_ACCESS, EGL_TRUE});
        break;
      case GLX_CONTEXT_RESET_NOTIFICATION_STRATEGY_ARB:
        out.insert(out.end(), {EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY,
                               p[1] == GLX_LOSE_CONTEXT_ON_RESET_ARB ? EGL_LOSE_CONTEXT_ON_RESET
                                                                     : EGL_NO_RESET_NOTIFICATION});
        break;
      default:  // GLX_RENDER_TYPE and the like: no EGL counterpart needed
        break;
    }
  }
  out.push_back(EGL_NONE);
  return out;
}

// A drawable the app made current as it is (an X window, no glXCreateWindow):
// the replay's window, of the context's config, made at its first use.
void adopt_window(Session& s, uint64_t drawable, uint64_t recorded_context) {
  if (drawable == 0 || s.surface_state(drawable) != nullptr) return;
  const ReplayContext* context = s.context_state(recorded_context);
  auto surface = std::make_unique<SurfaceState>();
  surface->window = true;
  surface->config = context != nullptr ? context->config : 0;
  s.add_surface(drawable, std::move(surface));
}

bool glx_make_current(Session& s, Args& a, uint64_t draw, uint64_t read, uint64_t context) {
  if (context != 0) {
    adopt_window(s, draw, context);
    adopt_window(s, read, context);
  }
  return make_current(s, a, draw, read, context);
}

}  // namespace

bool custom_glXCreateContext(Session& s, Args& a) {
  const EGLint attribs[] = {EGL_NONE};
  return make_context(s, a, EGL_OPENGL_API, a.raw_handle(1), a.raw_handle(2), attribs);
}
bool custom_glXCreateNewContext(Session& s, Args& a) {
  const EGLint attribs[] = {EGL_NONE};
  return make_context(s, a, EGL_OPENGL_API, a.raw_handle(1), a.raw_handle(3), attribs);
}
bool custom_glXCreateContextAttribsARB(Session& s, Args& a) {
  const int* glx = a.array<int>(4);
  if (!a.ok()) return false;
  EGLenum api = EGL_OPENGL_API;
  std::vector<EGLint> attribs = egl_context_attribs(glx, &api);
  return make_context(s, a, api, a.raw_handle(1), a.raw_handle(2), attribs.data());
}

bool custom_glXMakeCurrent(Session& s, Args& a) {
  return glx_make_current(s, a, a.raw_handle(1), a.raw_handle(1), a.raw_handle(2));
}
bool custom_glXMakeContextCurrent(Session& s, Args& a) {
  return glx_make_current(s, a, a.raw_handle(1), a.raw_handle(2), a.raw_handle(3));
}
bool custom_glXMakeCurrentReadSGI(Session& s, Args& a) {
  return custom_glXMakeContextCurrent(s, a);
}

bool custom_glXSwapBuffers(Session& s, Args& a) { return swap(s, a, false); }

bool custom_glXCreateWindow(Session& s, Args& a) {
  if (a.ret_u() == 0) return true;  // it failed when traced
  return add_window(s, a, {});
}

// Its size only: a GLX pbuffer's other attributes have no EGL counterpart.
bool custom_glXCreatePbuffer(Session& s, Args& a) {
  const int* glx = a.array<int>(2);
  if (!a.ok()) return false;
  std::vector<EGLint> attribs;
  for (const int* p = glx; p != nullptr && p[0] != 0 && attribs.size() < 8; p += 2) {
    if (p[0] == GLX_PBUFFER_WIDTH) attribs.insert(attribs.end(), {EGL_WIDTH, p[1]});
    if (p[0] == GLX_PBUFFER_HEIGHT) attribs.insert(attribs.end(), {EGL_HEIGHT, p[1]});
  }
  attribs.push_back(EGL_NONE);
  return make_pbuffer(s, a, attribs.data());
}

// The handle is argument 1, as eglDestroyContext's and eglDestroySurface's.
bool custom_glXDestroyContext(Session& s, Args& a) { return custom_eglDestroyContext(s, a); }
bool custom_glXDestroyWindow(Session& s, Args& a) { return custom_eglDestroySurface(s, a); }
bool custom_glXDestroyPbuffer(Session& s, Args& a) { return custom_eglDestroySurface(s, a); }

}  // namespace gltrace::glreplay
