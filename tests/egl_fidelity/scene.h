// What the EGL fidelity apps share: their options, the config they choose
// and the frames they draw. The window system part is each app's own.
#pragma once

#include <EGL/egl.h>
#include <GLES2/gl2.h>

#include <map>
#include <utility>

namespace gltrace::egl_fidelity {

struct Options {
  bool minimal_config = false;
  int width = 320, height = 200;               // the window when created
  int first_width = 0, first_height = 0;       // resized before the first frame (0: not)
  std::map<int, std::pair<int, int>> resizes;  // frame -> size it is drawn at
  int frames = 6;
  bool blit = false;          // ES 3: drawn into a framebuffer object, blitted to the window
  bool query_first = false;   // the window's size asked before it is bound (X11 app)
  bool probe_window = false;  // ... and the window then dropped unbound (X11 app)
};

// Parses the options (see the apps' usage); false after printing the usage.
bool parse_options(const char* app, int argc, char** argv, Options* out);

// Prints "APP: WHAT failed (EGL 0x...)" when !ok; returns ok.
bool check(const char* app, bool ok, const char* what);

// --minimal-config: eglChooseConfig with 1-bit colour and depth sizes, the
// first answer, nothing learnt about it but EGL_NATIVE_VISUAL_ID. Otherwise
// an RGBA8 config, its sizes checked. Null after a message.
EGLConfig choose_config(const char* app, EGLDisplay dpy, bool minimal, EGLint* visual_id);

// Blended gradients over a gradient clear (channel depths show in every
// pixel), in the viewport the app sets to its window's size; it never asks
// EGL for it.
class Scene {
 public:
  // Needs the context current (ES 3 with `blit`). False after a message.
  bool init(const char* app, bool blit);
  void draw(int frame, int width, int height);

 private:
  GLuint program_ = 0;
  GLuint buffer_ = 0;
  GLint shade_ = -1;
  GLuint framebuffer_ = 0;  // with blit: the frame is drawn here, then blitted
};

}  // namespace gltrace::egl_fidelity
