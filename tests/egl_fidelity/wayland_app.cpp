// egl_fidelity_wayland_app: the Wayland (xdg-shell) twin of
// egl_fidelity_x11_app: an eglCreatePlatformWindowSurface on a wl_egl_window
// that it resizes with wl_egl_window_resize, before the first frame and
// later. Same options.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <wayland-client.h>
#include <wayland-egl.h>

#include <cstdio>
#include <cstring>

#include "scene.h"
#include "xdg-shell-client-protocol.h"

namespace {

constexpr const char* kApp = "egl_fidelity_wayland_app";

struct Globals {
  wl_compositor* compositor = nullptr;
  xdg_wm_base* wm_base = nullptr;
  bool configured = false;
};

void on_ping(void* /*data*/, xdg_wm_base* wm_base, uint32_t serial) {
  xdg_wm_base_pong(wm_base, serial);
}
const xdg_wm_base_listener kWmBaseListener = {on_ping};

void on_global(void* data, wl_registry* registry, uint32_t name, const char* interface,
               uint32_t /*version*/) {
  auto* g = static_cast<Globals*>(data);
  if (strcmp(interface, wl_compositor_interface.name) == 0) {
    g->compositor =
        static_cast<wl_compositor*>(wl_registry_bind(registry, name, &wl_compositor_interface, 4));
  } else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
    g->wm_base =
        static_cast<xdg_wm_base*>(wl_registry_bind(registry, name, &xdg_wm_base_interface, 1));
    xdg_wm_base_add_listener(g->wm_base, &kWmBaseListener, g);
  }
}
void on_global_remove(void* /*data*/, wl_registry* /*registry*/, uint32_t /*name*/) {}
const wl_registry_listener kRegistryListener = {on_global, on_global_remove};

void on_surface_configure(void* data, xdg_surface* surface, uint32_t serial) {
  xdg_surface_ack_configure(surface, serial);
  static_cast<Globals*>(data)->configured = true;
}
const xdg_surface_listener kSurfaceListener = {on_surface_configure};

// The app chooses its own size (the compositor's suggestions are ignored).
void on_toplevel_configure(void* /*data*/, xdg_toplevel* /*toplevel*/, int32_t /*width*/,
                           int32_t /*height*/, wl_array* /*states*/) {}
void on_toplevel_close(void* /*data*/, xdg_toplevel* /*toplevel*/) {}
// Events of later xdg_toplevel versions (bound at version 1: never sent).
void on_configure_bounds(void* /*data*/, xdg_toplevel* /*toplevel*/, int32_t /*width*/,
                         int32_t /*height*/) {}
void on_wm_capabilities(void* /*data*/, xdg_toplevel* /*toplevel*/, wl_array* /*capabilities*/) {}
const xdg_toplevel_listener kToplevelListener = {on_toplevel_configure, on_toplevel_close,
                                                 on_configure_bounds, on_wm_capabilities};

}  // namespace

int main(int argc, char** argv) {
  using namespace gltrace::egl_fidelity;
  Options options;
  if (!parse_options(kApp, argc, argv, &options)) return 2;
  wl_display* display = wl_display_connect(nullptr);
  if (display == nullptr) {
    fprintf(stderr, "%s: cannot connect to the Wayland display\n", kApp);
    return 1;
  }
  Globals globals;
  wl_registry* registry = wl_display_get_registry(display);
  wl_registry_add_listener(registry, &kRegistryListener, &globals);
  wl_display_roundtrip(display);
  if (globals.compositor == nullptr || globals.wm_base == nullptr) {
    fprintf(stderr, "%s: the compositor offers no wl_compositor or xdg_wm_base\n", kApp);
    return 1;
  }
  wl_surface* surface = wl_compositor_create_surface(globals.compositor);
  xdg_surface* shell_surface = xdg_wm_base_get_xdg_surface(globals.wm_base, surface);
  xdg_surface_add_listener(shell_surface, &kSurfaceListener, &globals);
  xdg_toplevel* toplevel = xdg_surface_get_toplevel(shell_surface);
  xdg_toplevel_add_listener(toplevel, &kToplevelListener, &globals);
  xdg_toplevel_set_title(toplevel, kApp);
  wl_surface_commit(surface);
  while (!globals.configured && wl_display_dispatch(display) != -1) {
  }

  int width = options.width, height = options.height;
  wl_egl_window* window = wl_egl_window_create(surface, width, height);
  EGLDisplay dpy = eglGetPlatformDisplay(EGL_PLATFORM_WAYLAND_KHR, display, nullptr);
  if (!check(kApp, window != nullptr, "wl_egl_window_create") ||
      !check(kApp, dpy != EGL_NO_DISPLAY && eglInitialize(dpy, nullptr, nullptr),
             "eglInitialize") ||
      !check(kApp, eglBindAPI(EGL_OPENGL_ES_API), "eglBindAPI"))
    return 1;
  EGLint visual_id = 0;
  EGLConfig config = choose_config(kApp, dpy, options.minimal_config, &visual_id);
  if (config == nullptr) return 1;
  EGLSurface egl_surface = eglCreatePlatformWindowSurface(dpy, config, window, nullptr);
  const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, options.blit ? 3 : 2, EGL_NONE};
  EGLContext context = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
  if (!check(kApp, egl_surface != EGL_NO_SURFACE, "eglCreatePlatformWindowSurface") ||
      !check(kApp, context != EGL_NO_CONTEXT, "eglCreateContext") ||
      !check(kApp, eglMakeCurrent(dpy, egl_surface, egl_surface, context), "eglMakeCurrent"))
    return 1;
  // No waiting for the compositor's frame callbacks.
  eglSwapInterval(dpy, 0);
  if (options.first_width != 0) {
    width = options.first_width;
    height = options.first_height;
    wl_egl_window_resize(window, width, height, 0, 0);
  }
  Scene scene;
  if (!scene.init(kApp, options.blit)) return 1;
  for (int frame = 0; frame < options.frames; ++frame) {
    auto it = options.resizes.find(frame);
    if (it != options.resizes.end()) {
      width = it->second.first;
      height = it->second.second;
      wl_egl_window_resize(window, width, height, 0, 0);
    }
    scene.draw(frame, width, height);
    if (!check(kApp, eglSwapBuffers(dpy, egl_surface), "eglSwapBuffers")) return 1;
    printf("frame %d: window %dx%d\n", frame, width, height);
  }
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(dpy, context);
  eglDestroySurface(dpy, egl_surface);
  eglTerminate(dpy);
  wl_egl_window_destroy(window);
  xdg_toplevel_destroy(toplevel);
  xdg_surface_destroy(shell_surface);
  wl_surface_destroy(surface);
  wl_registry_destroy(registry);
  wl_display_disconnect(display);
  return 0;
}
