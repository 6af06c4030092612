// X11 windows for `--x11` replays, with libX11 loaded at run time (the
// headless default needs no X library at all).
#pragma once

#include <cstdint>
#include <string>

namespace gltrace::glreplay {

struct X11Window {
  unsigned long window = 0;
  unsigned long colormap = 0;
};

class X11Display {
 public:
  X11Display() = default;
  ~X11Display();
  X11Display(const X11Display&) = delete;
  X11Display& operator=(const X11Display&) = delete;

  // Opens $DISPLAY. False with *error.
  bool open(std::string* error);
  void* display() const { return display_; }

  // A mapped window of this size with the given visual id (an EGL config's
  // EGL_NATIVE_VISUAL_ID). False with *error.
  bool create_window(uint32_t width, uint32_t height, int visual_id, X11Window* out,
                     std::string* error);
  // Resizes it, and waits until the server did (the driver reads the new
  // size at the next draw). False with *error.
  bool resize_window(const X11Window& window, uint32_t width, uint32_t height, std::string* error);
  void destroy_window(X11Window* window);
  void close();

 private:
  struct Api;
  Api* api_ = nullptr;
  void* library_ = nullptr;
  void* display_ = nullptr;
};

}  // namespace gltrace::glreplay
