// EGL display, surface and context for gltrace-demo: a pbuffer on the
// surfaceless platform (headless, the default) or an X11 window.
#pragma once

#include <EGL/egl.h>

namespace demo {

enum class Platform { kSurfaceless, kX11 };

struct EglTarget {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLSurface surface = EGL_NO_SURFACE;
  EGLContext context = EGL_NO_CONTEXT;
  // X11 objects, opaque here so this header needs no Xlib.
  void* x_display = nullptr;
  unsigned long x_window = 0;
  unsigned long x_colormap = 0;
};

// Creates display, surface and an ES 3.0 context and makes them current.
// On failure prints which call failed (with the EGL error), releases what was
// created and returns false.
bool egl_open(Platform platform, int width, int height, EglTarget* target);

// Releases everything egl_open created; safe on a partly opened target.
void egl_close(EglTarget* target);

// "EGL_BAD_MATCH (0x3009)" style name for eglGetError() values.
const char* egl_error_name(EGLint error);

}  // namespace demo
