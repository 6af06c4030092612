// gltrace-cli-glx-app: a GLX/desktop OpenGL program (no EGL, no GLES), which
// gltrace does not trace. Draws one cleared frame in an X11 window (Xvfb in
// the tests). Its GL calls by symbol reach gltrace's exported entry points
// (a partial trace, which gltrace must warn about); with --proc-address it
// gets them from glXGetProcAddress, as loaders like glad do, and gltrace
// sees no call at all (it must say why it wrote nothing).
#include <GL/gl.h>
#include <GL/glx.h>
#include <X11/Xlib.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  bool proc_address = argc > 1 && strcmp(argv[1], "--proc-address") == 0;
  using ClearColor = void (*)(GLfloat, GLfloat, GLfloat, GLfloat);
  using Clear = void (*)(GLbitfield);
  auto lookup = [](const char* name) {
    return glXGetProcAddressARB(reinterpret_cast<const GLubyte*>(name));
  };
  auto clear_color =
      proc_address ? reinterpret_cast<ClearColor>(lookup("glClearColor")) : &glClearColor;
  auto clear = proc_address ? reinterpret_cast<Clear>(lookup("glClear")) : &glClear;
  Display* display = XOpenDisplay(nullptr);
  if (display == nullptr) {
    fputs("gltrace-cli-glx-app: cannot open the X display\n", stderr);
    return 2;
  }
  int attribs[] = {GLX_RGBA, GLX_DOUBLEBUFFER, GLX_RED_SIZE, 8, None};
  XVisualInfo* visual = glXChooseVisual(display, DefaultScreen(display), attribs);
  if (visual == nullptr) {
    fputs("gltrace-cli-glx-app: no GLX visual\n", stderr);
    return 2;
  }
  Window root = RootWindow(display, visual->screen);
  XSetWindowAttributes window_attribs{};
  window_attribs.colormap = XCreateColormap(display, root, visual->visual, AllocNone);
  Window window = XCreateWindow(display, root, 0, 0, 64, 64, 0, visual->depth, InputOutput,
                                visual->visual, CWColormap, &window_attribs);
  GLXContext context = glXCreateContext(display, visual, nullptr, True);
  if (context == nullptr || !glXMakeCurrent(display, window, context)) {
    fputs("gltrace-cli-glx-app: no GLX context\n", stderr);
    return 2;
  }
  clear_color(0.25f, 0.5f, 0.75f, 1.0f);
  clear(GL_COLOR_BUFFER_BIT);
  glXSwapBuffers(display, window);
  puts("gltrace-cli-glx-app: drew a frame");
  glXMakeCurrent(display, None, nullptr);
  glXDestroyContext(display, context);
  XDestroyWindow(display, window);
  XFree(visual);
  XCloseDisplay(display);
  return 0;
}
