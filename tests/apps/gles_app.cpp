#include "gles_app.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gltrace::test_app {

bool frames_option(const char* app, int argc, char** argv, int* frames) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--frames") != 0 || i + 1 >= argc) {
      fprintf(stderr, "usage: gltrace-%s [--frames N]\n", app);
      return false;
    }
    *frames = atoi(argv[++i]);
  }
  return true;
}

bool check(bool ok, const char* app, const char* what) {
  if (!ok)
    fprintf(stderr, "%s: %s failed (EGL 0x%x, GL 0x%x)\n", app, what, eglGetError(), glGetError());
  return ok;
}

bool open_surfaceless(const char* app, EGLDisplay* display, EGLConfig* config) {
  *display = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  EGLint major = 0, minor = 0;
  if (!check(*display != EGL_NO_DISPLAY && eglInitialize(*display, &major, &minor), app,
             "eglInitialize"))
    return false;
  eglBindAPI(EGL_OPENGL_ES_API);
  const EGLint attribs[] = {EGL_SURFACE_TYPE,
                            EGL_PBUFFER_BIT,
                            EGL_RENDERABLE_TYPE,
                            EGL_OPENGL_ES3_BIT,
                            EGL_RED_SIZE,
                            8,
                            EGL_GREEN_SIZE,
                            8,
                            EGL_BLUE_SIZE,
                            8,
                            EGL_ALPHA_SIZE,
                            8,
                            EGL_NONE};
  EGLint count = 0;
  return check(eglChooseConfig(*display, attribs, config, 1, &count) && count == 1, app,
               "eglChooseConfig");
}

bool make_pbuffer_current(const char* app, EGLDisplay display, EGLConfig config, int width,
                          int height, const EGLint* context_attribs, const char* what,
                          EGLSurface* surface, EGLContext* context) {
  const EGLint surface_attribs[] = {EGL_WIDTH, width, EGL_HEIGHT, height, EGL_NONE};
  *surface = eglCreatePbufferSurface(display, config, surface_attribs);
  *context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  return check(*surface != EGL_NO_SURFACE && *context != EGL_NO_CONTEXT &&
                   eglMakeCurrent(display, *surface, *surface, *context),
               app, what);
}

GLuint compile(const char* app, GLenum type, const char* source) {
  GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    fprintf(stderr, "%s: shader: %s\n", app, log);
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

GLuint link(const char* app, const char* vertex, const char* fragment) {
  GLuint program = glCreateProgram();
  glAttachShader(program, compile(app, GL_VERTEX_SHADER, vertex));
  glAttachShader(program, compile(app, GL_FRAGMENT_SHADER, fragment));
  glLinkProgram(program);
  return program;
}

}  // namespace gltrace::test_app
