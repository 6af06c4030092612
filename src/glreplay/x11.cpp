#include "glreplay/x11.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <dlfcn.h>

#include <cstdlib>
#include <type_traits>

namespace gltrace::glreplay {

struct X11Display::Api {
  decltype(&XOpenDisplay) open_display;
  decltype(&XCloseDisplay) close_display;
  decltype(&XGetVisualInfo) get_visual_info;
  decltype(&XFree) free;
  decltype(&XCreateColormap) create_colormap;
  decltype(&XFreeColormap) free_colormap;
  decltype(&XCreateWindow) create_window;
  decltype(&XDestroyWindow) destroy_window;
  decltype(&XMapWindow) map_window;
  decltype(&XResizeWindow) resize_window;
  decltype(&XStoreName) store_name;
  decltype(&XWindowEvent) window_event;
  decltype(&XSync) sync;
};

X11Display::~X11Display() {
  close();
  delete api_;
}

bool X11Display::open(std::string* error) {
  if (display_ != nullptr) return true;
  if (library_ == nullptr) {
    library_ = dlopen("libX11.so.6", RTLD_NOW | RTLD_GLOBAL);
    if (library_ == nullptr) {
      *error = std::string("--x11: cannot load libX11.so.6: ") + dlerror();
      return false;
    }
    api_ = new Api();
    bool ok = true;
    auto load = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library_, name));
      ok = ok && fn != nullptr;
    };
    load(api_->open_display, "XOpenDisplay");
    load(api_->close_display, "XCloseDisplay");
    load(api_->get_visual_info, "XGetVisualInfo");
    load(api_->free, "XFree");
    load(api_->create_colormap, "XCreateColormap");
    load(api_->free_colormap, "XFreeColormap");
    load(api_->create_window, "XCreateWindow");
    load(api_->destroy_window, "XDestroyWindow");
    load(api_->map_window, "XMapWindow");
    load(api_->resize_window, "XResizeWindow");
    load(api_->store_name, "XStoreName");
    load(api_->window_event, "XWindowEvent");
    load(api_->sync, "XSync");
    if (!ok) {
      *error = "--x11: libX11.so.6 lacks a function the replay needs";
      return false;
    }
  }
  display_ = api_->open_display(nullptr);
  if (display_ == nullptr) {
    const char* name = getenv("DISPLAY");
    *error = std::string("--x11: cannot open X display '") + (name != nullptr ? name : "") + "'";
    return false;
  }
  return true;
}

bool X11Display::create_window(uint32_t width, uint32_t height, int visual_id, X11Window* out,
                               std::string* error) {
  auto* dpy = static_cast<Display*>(display_);
  XVisualInfo templ = {};
  templ.visualid = static_cast<VisualID>(visual_id);
  int count = 0;
  XVisualInfo* info = api_->get_visual_info(dpy, VisualIDMask, &templ, &count);
  if (info == nullptr) {
    *error = "--x11: no X visual for the EGL config";
    return false;
  }
  // A visual of another depth than the root's needs its own colormap and
  // border pixel, or XCreateWindow fails.
  Window root = DefaultRootWindow(dpy);
  out->colormap = api_->create_colormap(dpy, root, info->visual, AllocNone);
  XSetWindowAttributes attributes = {};
  attributes.colormap = out->colormap;
  attributes.event_mask = StructureNotifyMask;
  out->window =
      api_->create_window(dpy, root, 0, 0, width, height, 0, info->depth, InputOutput, info->visual,
                          CWColormap | CWBorderPixel | CWEventMask, &attributes);
  api_->free(info);
  api_->store_name(dpy, out->window, "glreplay");
  api_->map_window(dpy, out->window);
  XEvent event;
  do {
    api_->window_event(dpy, out->window, StructureNotifyMask, &event);
  } while (event.type != MapNotify);
  return true;
}

bool X11Display::resize_window(const X11Window& window, uint32_t width, uint32_t height,
                               std::string* error) {
  if (display_ == nullptr || window.window == 0) {
    *error = "--x11: no window to resize";
    return false;
  }
  auto* dpy = static_cast<Display*>(display_);
  api_->resize_window(dpy, window.window, width, height);
  api_->sync(dpy, False);
  return true;
}

void X11Display::destroy_window(X11Window* window) {
  if (display_ == nullptr) return;
  auto* dpy = static_cast<Display*>(display_);
  if (window->window != 0) api_->destroy_window(dpy, window->window);
  if (window->colormap != 0) api_->free_colormap(dpy, window->colormap);
  *window = X11Window{};
}

void X11Display::close() {
  if (display_ != nullptr) api_->close_display(static_cast<Display*>(display_));
  display_ = nullptr;
  // libX11 stays loaded: EGL may still hold its code.
}

}  // namespace gltrace::glreplay
