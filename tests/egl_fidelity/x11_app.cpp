// egl_fidelity_x11_app: an X11 GLES 2 app that does to its EGL window what
// media players and toolkits do, for tracing and replaying.
//
//   --minimal-config    eglChooseConfig with 1-bit colour and depth sizes,
//                       the first config, only its EGL_NATIVE_VISUAL_ID learnt
//                       (otherwise: RGBA8, its sizes checked)
//   --size WxH          the window's size when created (default 320x200)
//   --resize WxH        resized once the surface is current, before the first
//                       frame is drawn
//   --resize-at F:WxH   resized before frame F is drawn (repeatable)
//   --frames N          frames drawn (default 6)
//   --blit              ES 3: each frame drawn into a framebuffer object and
//                       blitted to the window (no draw on the window itself)
//   --query-first       the window surface's size asked (eglQuerySurface)
//                       before the first eglMakeCurrent binds it, as ANGLE does
//   --probe-window      the same, then the window surface destroyed unbound
//                       and the context made current without a surface (a
//                       probe; the trace has no frame, no window size else)
#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <cstdio>

#include "scene.h"

namespace {

constexpr const char* kApp = "egl_fidelity_x11_app";

// Resizes the window and waits until the server did (no window manager
// under Xvfb: the size is the one asked for).
void resize(Display* x, Window window, int width, int height) {
  XResizeWindow(x, window, static_cast<unsigned>(width), static_cast<unsigned>(height));
  XSync(x, False);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gltrace::egl_fidelity;
  Options options;
  if (!parse_options(kApp, argc, argv, &options)) return 2;
  Display* x = XOpenDisplay(nullptr);
  if (x == nullptr) {
    fprintf(stderr, "%s: cannot open the X display\n", kApp);
    return 1;
  }
  EGLDisplay dpy = eglGetDisplay(reinterpret_cast<EGLNativeDisplayType>(x));
  if (!check(kApp, dpy != EGL_NO_DISPLAY && eglInitialize(dpy, nullptr, nullptr),
             "eglInitialize") ||
      !check(kApp, eglBindAPI(EGL_OPENGL_ES_API), "eglBindAPI"))
    return 1;
  EGLint visual_id = 0;
  EGLConfig config = choose_config(kApp, dpy, options.minimal_config, &visual_id);
  if (config == nullptr) return 1;
  XVisualInfo templ = {};
  templ.visualid = static_cast<VisualID>(visual_id);
  int visuals = 0;
  XVisualInfo* visual = XGetVisualInfo(x, VisualIDMask, &templ, &visuals);
  if (visual == nullptr) {
    fprintf(stderr, "%s: no X visual 0x%x\n", kApp, visual_id);
    return 1;
  }
  Window root = DefaultRootWindow(x);
  XSetWindowAttributes wa = {};
  wa.colormap = XCreateColormap(x, root, visual->visual, AllocNone);
  wa.event_mask = StructureNotifyMask;
  int width = options.width, height = options.height;
  Window window = XCreateWindow(x, root, 0, 0, static_cast<unsigned>(width),
                                static_cast<unsigned>(height), 0, visual->depth, InputOutput,
                                visual->visual, CWColormap | CWBorderPixel | CWEventMask, &wa);
  XFree(visual);
  XMapWindow(x, window);
  XEvent event;
  do XWindowEvent(x, window, StructureNotifyMask, &event);
  while (event.type != MapNotify);

  EGLSurface surface =
      eglCreateWindowSurface(dpy, config, static_cast<EGLNativeWindowType>(window), nullptr);
  const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, options.blit ? 3 : 2, EGL_NONE};
  EGLContext context = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
  if (!check(kApp, surface != EGL_NO_SURFACE, "eglCreateWindowSurface") ||
      !check(kApp, context != EGL_NO_CONTEXT, "eglCreateContext"))
    return 1;
  if (options.query_first) {
    EGLint w = 0, h = 0;
    if (!check(kApp,
               eglQuerySurface(dpy, surface, EGL_WIDTH, &w) &&
                   eglQuerySurface(dpy, surface, EGL_HEIGHT, &h) && w == width && h == height,
               "eglQuerySurface before eglMakeCurrent"))
      return 1;
  }
  if (options.probe_window) {
    eglDestroySurface(dpy, surface);
    if (!check(kApp, eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, context),
               "eglMakeCurrent without a surface"))
      return 1;
    glFinish();
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, context);
    eglTerminate(dpy);
    XDestroyWindow(x, window);
    XCloseDisplay(x);
    return 0;
  }
  if (!check(kApp, eglMakeCurrent(dpy, surface, surface, context), "eglMakeCurrent")) return 1;
  if (options.first_width != 0) {
    // A player learns the video's size once its surface exists.
    width = options.first_width;
    height = options.first_height;
    resize(x, window, width, height);
  }
  Scene scene;
  if (!scene.init(kApp, options.blit)) return 1;
  for (int frame = 0; frame < options.frames; ++frame) {
    auto it = options.resizes.find(frame);
    if (it != options.resizes.end()) {
      width = it->second.first;
      height = it->second.second;
      resize(x, window, width, height);
    }
    scene.draw(frame, width, height);
    if (!check(kApp, eglSwapBuffers(dpy, surface), "eglSwapBuffers")) return 1;
    printf("frame %d: window %dx%d\n", frame, width, height);
  }
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(dpy, context);
  eglDestroySurface(dpy, surface);
  eglTerminate(dpy);
  XDestroyWindow(x, window);
  XCloseDisplay(x);
  return 0;
}
