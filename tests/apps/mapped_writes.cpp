// gltrace-mapped-writes: maps a large buffer (--megabytes, default 48) for
// writing, changes one byte, unmaps it, then idles 60 ms without a GL call,
// --maps times (default 12), then swaps once. The trace layer copies the
// whole mapped range when the buffer is unmapped, before the driver's
// unmap, outside the call's recording window; meanwhile the trace's
// sweeper finds the thread's records older than its limit and hands them
// to the writer: a test that the two never write the same payload at once
// (tests/idle_threads: every call is in the trace).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "apps/gles_app.h"

using namespace gltrace::test_app;

namespace {
constexpr char kApp[] = "mapped-writes";
}  // namespace

int main(int argc, char** argv) {
  long megabytes = 48;
  int maps = 12;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--megabytes") == 0) {
      megabytes = atol(argv[i + 1]);
    } else if (strcmp(argv[i], "--maps") == 0) {
      maps = atoi(argv[i + 1]);
    } else {
      fprintf(stderr, "usage: gltrace-%s [--megabytes N] [--maps N]\n", kApp);
      return 2;
    }
  }
  if ((argc - 1) % 2 != 0 || megabytes <= 0 || maps <= 0) {
    fprintf(stderr, "usage: gltrace-%s [--megabytes N] [--maps N]\n", kApp);
    return 2;
  }
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  EGLSurface surface = EGL_NO_SURFACE;
  EGLContext context = EGL_NO_CONTEXT;
  const EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  if (!open_surfaceless(kApp, &display, &config) ||
      !make_pbuffer_current(kApp, display, config, 16, 16, es3, "context", &surface, &context))
    return 1;
  GLuint buffer = 0;
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  const auto size = static_cast<GLsizeiptr>(megabytes) << 20;
  glBufferData(GL_ARRAY_BUFFER, size, nullptr, GL_STREAM_DRAW);
  for (int i = 0; i < maps; ++i) {
    auto* p =
        static_cast<unsigned char*>(glMapBufferRange(GL_ARRAY_BUFFER, 0, size, GL_MAP_WRITE_BIT));
    if (!check(p != nullptr, kApp, "glMapBufferRange")) return 1;
    p[i] = static_cast<unsigned char>(i + 1);  // a new blob each time
    if (!check(glUnmapBuffer(GL_ARRAY_BUFFER) == GL_TRUE, kApp, "glUnmapBuffer")) return 1;
    usleep(60 * 1000);
  }
  glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  bool ok = check(eglSwapBuffers(display, surface) == EGL_TRUE, kApp, "eglSwapBuffers");
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglTerminate(display);
  return ok ? 0 : 1;
}
