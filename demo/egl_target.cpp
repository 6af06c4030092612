#include "egl_target.h"

#include <EGL/eglext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#ifdef GLTRACE_DEMO_HAVE_X11
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#endif

namespace demo {

const char* egl_error_name(EGLint error) {
  static const char* const kNames[] = {
      "EGL_SUCCESS",       "EGL_NOT_INITIALIZED",     "EGL_BAD_ACCESS",
      "EGL_BAD_ALLOC",     "EGL_BAD_ATTRIBUTE",       "EGL_BAD_CONFIG",
      "EGL_BAD_CONTEXT",   "EGL_BAD_CURRENT_SURFACE", "EGL_BAD_DISPLAY",
      "EGL_BAD_MATCH",     "EGL_BAD_NATIVE_PIXMAP",   "EGL_BAD_NATIVE_WINDOW",
      "EGL_BAD_PARAMETER", "EGL_BAD_SURFACE",         "EGL_CONTEXT_LOST",
  };
  if (error >= EGL_SUCCESS && error <= EGL_CONTEXT_LOST) return kNames[error - EGL_SUCCESS];
  return "unknown EGL error";
}

namespace {

// Prints "demo: CALL failed: EGL_xxx (0x3xxx)" and returns false so callers
// can write `return fail("eglFoo")`.
bool fail(const char* call) {
  EGLint error = eglGetError();
  std::fprintf(stderr, "demo: %s failed: %s (0x%04x)\n", call, egl_error_name(error),
               static_cast<unsigned>(error));
  return false;
}

bool has_extension(const char* list, const char* name) {
  if (list == nullptr) return false;
  size_t len = std::strlen(name);
  for (const char* p = std::strstr(list, name); p != nullptr; p = std::strstr(p + len, name)) {
    bool starts = p == list || p[-1] == ' ';
    bool ends = p[len] == '\0' || p[len] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

// Picks an exactly-RGBA8 config (RGB8 without alpha as a fallback for X11
// visuals) so readbacks and checksums do not depend on config sort order.
bool choose_config(EGLDisplay display, EGLint surface_bit, EGLConfig* out) {
  // clang-format off
  const EGLint attribs[] = {EGL_SURFACE_TYPE, surface_bit,
                            EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
                            EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
                            EGL_NONE};
  // clang-format on
  EGLConfig configs[128];
  EGLint count = 0;
  if (!eglChooseConfig(display, attribs, configs, 128, &count)) return fail("eglChooseConfig");
  for (EGLint want_alpha : {8, 0}) {
    for (EGLint i = 0; i < count; ++i) {
      EGLint r = 0, g = 0, b = 0, a = 0;
      eglGetConfigAttrib(display, configs[i], EGL_RED_SIZE, &r);
      eglGetConfigAttrib(display, configs[i], EGL_GREEN_SIZE, &g);
      eglGetConfigAttrib(display, configs[i], EGL_BLUE_SIZE, &b);
      eglGetConfigAttrib(display, configs[i], EGL_ALPHA_SIZE, &a);
      if (r == 8 && g == 8 && b == 8 && a == want_alpha) {
        *out = configs[i];
        return true;
      }
    }
  }
  std::fprintf(stderr, "demo: eglChooseConfig: none of %d ES3 configs is RGBA8 or RGB8\n", count);
  return false;
}

#ifdef GLTRACE_DEMO_HAVE_X11
bool open_x11(EglTarget* t, EGLConfig config, int width, int height) {
  Display* xdpy = static_cast<Display*>(t->x_display);
  EGLint visual_id = 0;
  eglGetConfigAttrib(t->display, config, EGL_NATIVE_VISUAL_ID, &visual_id);
  XVisualInfo templ = {};
  templ.visualid = static_cast<VisualID>(visual_id);
  int n = 0;
  XVisualInfo* info = XGetVisualInfo(xdpy, VisualIDMask, &templ, &n);
  if (info == nullptr) {
    std::fprintf(stderr, "demo: no X visual 0x%x for the chosen EGL config\n", visual_id);
    return false;
  }
  // The config's visual may be 32-bit ARGB: a window of another depth than the
  // parent needs its own colormap and border pixel or XCreateWindow fails.
  Window root = DefaultRootWindow(xdpy);
  t->x_colormap = XCreateColormap(xdpy, root, info->visual, AllocNone);
  XSetWindowAttributes swa = {};
  swa.colormap = t->x_colormap;
  swa.event_mask = StructureNotifyMask;
  t->x_window = XCreateWindow(xdpy, root, 0, 0, width, height, 0, info->depth, InputOutput,
                              info->visual, CWColormap | CWBorderPixel | CWEventMask, &swa);
  XFree(info);
  XStoreName(xdpy, t->x_window, "gltrace-demo");
  XMapWindow(xdpy, t->x_window);
  XEvent event;
  do {
    XWindowEvent(xdpy, t->x_window, StructureNotifyMask, &event);
  } while (event.type != MapNotify);
  t->surface = eglCreateWindowSurface(t->display, config,
                                      static_cast<EGLNativeWindowType>(t->x_window), nullptr);
  return t->surface != EGL_NO_SURFACE || fail("eglCreateWindowSurface");
}
#endif

}  // namespace

bool egl_open(Platform platform, int width, int height, EglTarget* t) {
  const char* client_ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (platform == Platform::kSurfaceless) {
    if (!has_extension(client_ext, "EGL_MESA_platform_surfaceless")) {
      std::fprintf(stderr, "demo: EGL_MESA_platform_surfaceless is not supported by this EGL\n");
      return false;
    }
    t->display = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (t->display == EGL_NO_DISPLAY) return fail("eglGetPlatformDisplay(SURFACELESS_MESA)");
  } else {
#ifdef GLTRACE_DEMO_HAVE_X11
    Display* xdpy = XOpenDisplay(nullptr);
    if (xdpy == nullptr) {
      const char* name = std::getenv("DISPLAY");
      std::fprintf(stderr, "demo: XOpenDisplay failed (DISPLAY=%s)\n", name ? name : "<unset>");
      return false;
    }
    t->x_display = xdpy;
    if (has_extension(client_ext, "EGL_KHR_platform_x11") ||
        has_extension(client_ext, "EGL_EXT_platform_x11")) {
      t->display = eglGetPlatformDisplay(EGL_PLATFORM_X11_KHR, xdpy, nullptr);
      if (t->display == EGL_NO_DISPLAY) return fail("eglGetPlatformDisplay(X11_KHR)");
    } else {
      t->display = eglGetDisplay(reinterpret_cast<EGLNativeDisplayType>(xdpy));
      if (t->display == EGL_NO_DISPLAY) return fail("eglGetDisplay");
    }
#else
    std::fprintf(stderr, "demo: built without X11 support\n");
    return false;
#endif
  }

  EGLint major = 0, minor = 0;
  if (!eglInitialize(t->display, &major, &minor)) return fail("eglInitialize");
  if (!eglBindAPI(EGL_OPENGL_ES_API)) return fail("eglBindAPI(EGL_OPENGL_ES_API)");

  bool x11 = platform == Platform::kX11;
  EGLConfig config = nullptr;
  if (!choose_config(t->display, x11 ? EGL_WINDOW_BIT : EGL_PBUFFER_BIT, &config)) return false;

  if (x11) {
#ifdef GLTRACE_DEMO_HAVE_X11
    if (!open_x11(t, config, width, height)) return false;
#endif
  } else {
    const EGLint attribs[] = {EGL_WIDTH, width, EGL_HEIGHT, height, EGL_NONE};
    t->surface = eglCreatePbufferSurface(t->display, config, attribs);
    if (t->surface == EGL_NO_SURFACE) return fail("eglCreatePbufferSurface");
  }

  const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0,
                                EGL_NONE};
  t->context = eglCreateContext(t->display, config, EGL_NO_CONTEXT, ctx_attribs);
  if (t->context == EGL_NO_CONTEXT) return fail("eglCreateContext(ES 3.0)");
  if (!eglMakeCurrent(t->display, t->surface, t->surface, t->context)) {
    return fail("eglMakeCurrent");
  }
  // A window would otherwise wait for vblank; the demo runs as fast as it can.
  if (x11) eglSwapInterval(t->display, 0);
  return true;
}

void egl_close(EglTarget* t) {
  if (t->display != EGL_NO_DISPLAY) {
    eglMakeCurrent(t->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (t->context != EGL_NO_CONTEXT) eglDestroyContext(t->display, t->context);
    if (t->surface != EGL_NO_SURFACE) eglDestroySurface(t->display, t->surface);
    eglTerminate(t->display);
    eglReleaseThread();
  }
#ifdef GLTRACE_DEMO_HAVE_X11
  if (t->x_display != nullptr) {
    Display* xdpy = static_cast<Display*>(t->x_display);
    if (t->x_window != 0) XDestroyWindow(xdpy, t->x_window);
    if (t->x_colormap != 0) XFreeColormap(xdpy, t->x_colormap);
    XCloseDisplay(xdpy);
  }
#endif
  *t = EglTarget{};
}

}  // namespace demo
